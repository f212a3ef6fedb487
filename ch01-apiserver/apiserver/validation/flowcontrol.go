package validation

import (
	"fmt"
	"slices"
	"strings"

	"kubik/ch01-apiserver/api/flowcontrolv1"
	"kubik/ch01-apiserver/apiserver/validation/field"
)

// API Priority and Fairness objects, as upstream's
// pkg/apis/flowcontrol/validation (v1 rules: zero nominal concurrency
// shares are allowed).

var (
	apfVerbs          = []string{"create", "delete", "deletecollection", "get", "list", "patch", "proxy", "update", "watch"}
	apfSubjectKinds   = []string{"Group", "ServiceAccount", "User"}
	apfDistinguishers = []string{"ByNamespace", "ByUser"}
)

func validateFlowSchema(fs *flowcontrolv1.FlowSchema) field.ErrorList {
	errs := ValidateObjectMeta(&fs.ObjectMeta, false, NameIsDNSSubdomain, field.NewPath("metadata"))
	spec, p := &fs.Spec, field.NewPath("spec")
	if spec.MatchingPrecedence <= 0 {
		errs = append(errs, field.Invalid(p.Child("matchingPrecedence"), spec.MatchingPrecedence, "must be a positive value"))
	}
	if spec.MatchingPrecedence > flowcontrolv1.FlowSchemaMaxMatchingPrecedence {
		errs = append(errs, field.Invalid(p.Child("matchingPrecedence"), spec.MatchingPrecedence,
			fmt.Sprintf("must not be greater than %v", flowcontrolv1.FlowSchemaMaxMatchingPrecedence)))
	}
	if spec.MatchingPrecedence == 1 && fs.Name != flowcontrolv1.FlowSchemaNameExempt {
		errs = append(errs, field.Invalid(p.Child("matchingPrecedence"), spec.MatchingPrecedence, "only the schema named 'exempt' may have matchingPrecedence 1"))
	}
	if dm := spec.DistinguisherMethod; dm != nil && !slices.Contains(apfDistinguishers, string(dm.Type)) {
		// Upstream reports the whole method, as its internal type prints in JSON.
		errs = append(errs, field.NotSupported(p.Child("distinguisherMethod", "type"), struct{ Type string }{string(dm.Type)}, apfDistinguishers))
	}
	if name := spec.PriorityLevelConfiguration.Name; name != "" {
		for _, msg := range NameIsDNSSubdomain(name, false) {
			errs = append(errs, field.Invalid(p.Child("priorityLevelConfiguration", "name"), name, msg))
		}
	} else {
		errs = append(errs, field.Required(p.Child("priorityLevelConfiguration", "name"), "must reference a priority level"))
	}
	for i := range spec.Rules {
		errs = append(errs, validatePolicyRulesWithSubjects(&spec.Rules[i], p.Child("rules").Index(i))...)
	}
	for i, c := range fs.Status.Conditions {
		if c.Type == "" {
			errs = append(errs, field.Required(field.NewPath("status", "conditions").Index(i).Child("type"), "must not be empty"))
		}
	}
	return errs
}

func validatePolicyRulesWithSubjects(rule *flowcontrolv1.PolicyRulesWithSubjects, p *field.Path) field.ErrorList {
	var errs field.ErrorList
	if len(rule.Subjects) == 0 {
		errs = append(errs, field.Required(p.Child("subjects"), "subjects must contain at least one value"))
	}
	for i, s := range rule.Subjects {
		errs = append(errs, validateAPFSubject(&s, p.Child("subjects").Index(i))...)
	}
	if len(rule.ResourceRules) == 0 && len(rule.NonResourceRules) == 0 {
		errs = append(errs, field.Required(p, "at least one of resourceRules and nonResourceRules has to be non-empty"))
	}
	for i, r := range rule.ResourceRules {
		rp := p.Child("resourceRules").Index(i)
		errs = append(errs, validateAPFVerbs(r.Verbs, rp.Child("verbs"))...)
		if len(r.APIGroups) == 0 {
			errs = append(errs, field.Required(rp.Child("apiGroups"), "resource rules must supply at least one api group"))
		} else if len(r.APIGroups) > 1 && slices.Contains(r.APIGroups, "*") {
			errs = append(errs, field.Invalid(rp.Child("apiGroups"), r.APIGroups, "if '*' is present, must not specify other api groups"))
		}
		if len(r.Resources) == 0 {
			errs = append(errs, field.Required(rp.Child("resources"), "resource rules must supply at least one resource"))
		} else if len(r.Resources) > 1 && slices.Contains(r.Resources, "*") {
			errs = append(errs, field.Invalid(rp.Child("resources"), r.Resources, "if '*' is present, must not specify other resources"))
		}
		switch {
		case len(r.Namespaces) == 0 && !r.ClusterScope:
			errs = append(errs, field.Required(rp.Child("namespaces"), "resource rules that are not cluster scoped must supply at least one namespace"))
		case slices.Contains(r.Namespaces, "*"):
			if len(r.Namespaces) > 1 {
				errs = append(errs, field.Invalid(rp.Child("namespaces"), r.Namespaces, "if '*' is present, must not specify other namespaces"))
			}
		default:
			for j, ns := range r.Namespaces {
				for _, msg := range NameIsDNSLabel(ns, false) {
					errs = append(errs, field.Invalid(rp.Child("namespaces").Index(j), ns, "each member of this list must be '*' or a DNS-1123 label; "+msg))
				}
			}
		}
	}
	for i, r := range rule.NonResourceRules {
		rp := p.Child("nonResourceRules").Index(i)
		errs = append(errs, validateAPFVerbs(r.Verbs, rp.Child("verbs"))...)
		switch {
		case len(r.NonResourceURLs) == 0:
			errs = append(errs, field.Required(rp.Child("nonResourceURLs"), "nonResourceURLs must contain at least one value"))
		case slices.Contains(r.NonResourceURLs, "*"):
			if len(r.NonResourceURLs) > 1 {
				errs = append(errs, field.Invalid(rp.Child("nonResourceURLs"), r.NonResourceURLs, "if '*' is present, must not specify other non-resource URLs"))
			}
		default:
			for j, u := range r.NonResourceURLs {
				if msg := nonResourceURLError(u); msg != "" {
					errs = append(errs, field.Invalid(rp.Child("nonResourceURLs").Index(j), u, msg))
				}
			}
		}
	}
	return errs
}

func validateAPFVerbs(verbs []string, p *field.Path) field.ErrorList {
	switch {
	case len(verbs) == 0:
		return field.ErrorList{field.Required(p, "verbs must contain at least one value")}
	case slices.Contains(verbs, "*"):
		if len(verbs) > 1 {
			return field.ErrorList{field.Invalid(p, verbs, "if '*' is present, must not specify other verbs")}
		}
	default:
		for _, v := range verbs {
			if !slices.Contains(apfVerbs, v) {
				return field.ErrorList{field.NotSupported(p, verbs, apfVerbs)}
			}
		}
	}
	return nil
}

func validateAPFSubject(s *flowcontrolv1.Subject, p *field.Path) field.ErrorList {
	var errs field.ErrorList
	forbid := func(set bool, name, kind string) {
		if set {
			errs = append(errs, field.Forbidden(p.Child(name), fmt.Sprintf("%s is forbidden when subject kind is not '%s'", name, kind)))
		}
	}
	switch s.Kind {
	case flowcontrolv1.SubjectKindServiceAccount:
		if sa := s.ServiceAccount; sa == nil {
			errs = append(errs, field.Required(p.Child("serviceAccount"), "serviceAccount is required when subject kind is 'ServiceAccount'"))
		} else {
			if sa.Name == "" {
				errs = append(errs, field.Required(p.Child("serviceAccount", "name"), ""))
			} else if sa.Name != flowcontrolv1.NameAll {
				for _, msg := range NameIsDNSSubdomain(sa.Name, false) {
					errs = append(errs, field.Invalid(p.Child("serviceAccount", "name"), sa.Name, msg))
				}
			}
			if sa.Namespace == "" {
				errs = append(errs, field.Required(p.Child("serviceAccount", "namespace"), "must specify namespace for service account"))
			} else {
				for _, msg := range NameIsDNSLabel(sa.Namespace, false) {
					errs = append(errs, field.Invalid(p.Child("serviceAccount", "namespace"), sa.Namespace, msg))
				}
			}
		}
		forbid(s.User != nil, "user", "User")
		forbid(s.Group != nil, "group", "Group")
	case flowcontrolv1.SubjectKindUser:
		if s.User == nil {
			errs = append(errs, field.Required(p.Child("user"), "user is required when subject kind is 'User'"))
		} else if s.User.Name == "" {
			errs = append(errs, field.Required(p.Child("user", "name"), ""))
		}
		forbid(s.ServiceAccount != nil, "serviceAccount", "ServiceAccount")
		forbid(s.Group != nil, "group", "Group")
	case flowcontrolv1.SubjectKindGroup:
		if s.Group == nil {
			errs = append(errs, field.Required(p.Child("group"), "group is required when subject kind is 'Group'"))
		} else if s.Group.Name == "" {
			errs = append(errs, field.Required(p.Child("group", "name"), ""))
		}
		forbid(s.ServiceAccount != nil, "serviceAccount", "ServiceAccount")
		forbid(s.User != nil, "user", "User")
	default:
		errs = append(errs, field.NotSupported(p.Child("kind"), s.Kind, apfSubjectKinds))
	}
	return errs
}

// nonResourceURLError is upstream's ValidateNonResourceURLPath: a leading
// slash, no spaces or double slashes, a wildcard only as a "/*" suffix.
func nonResourceURLError(path string) string {
	switch {
	case path == "":
		return "must not be empty"
	case path == "/":
		return ""
	case !strings.HasPrefix(path, "/"):
		return "must start with slash"
	case strings.Contains(path, " "):
		return "must not contain white-space"
	case strings.Contains(path, "//"):
		return "must not contain double slash"
	}
	if n := strings.Count(path, "*"); n > 1 || (n == 1 && !strings.HasSuffix(path, "/*")) {
		return "wildcard can only do suffix matching"
	}
	return ""
}

func validatePriorityLevelConfiguration(pl *flowcontrolv1.PriorityLevelConfiguration) field.ErrorList {
	errs := ValidateObjectMeta(&pl.ObjectMeta, false, NameIsDNSSubdomain, field.NewPath("metadata"))
	spec, p := &pl.Spec, field.NewPath("spec")
	if (pl.Name == flowcontrolv1.PriorityLevelConfigurationNameExempt) != (spec.Type == flowcontrolv1.PriorityLevelEnablementExempt) {
		errs = append(errs, field.Invalid(p.Child("type"), spec.Type, "must be 'Exempt' if and only if `name` is 'exempt'"))
	}
	percent := func(v *int32, path *field.Path) {
		if v != nil && (*v < 0 || *v > 100) {
			errs = append(errs, field.Invalid(path, *v, "must be between 0 and 100, inclusive"))
		}
	}
	switch spec.Type {
	case flowcontrolv1.PriorityLevelEnablementExempt:
		if spec.Limited != nil {
			errs = append(errs, field.Forbidden(p.Child("limited"), "must be nil if the type is not Limited"))
		}
		if e := spec.Exempt; e != nil {
			if e.NominalConcurrencyShares != nil && *e.NominalConcurrencyShares < 0 {
				errs = append(errs, field.Invalid(p.Child("exempt", "nominalConcurrencyShares"), *e.NominalConcurrencyShares, "must be a non-negative integer"))
			}
			percent(e.LendablePercent, p.Child("exempt", "lendablePercent"))
		}
	case flowcontrolv1.PriorityLevelEnablementLimited:
		if spec.Exempt != nil {
			errs = append(errs, field.Forbidden(p.Child("exempt"), "must be nil if the type is Limited"))
		}
		l := spec.Limited
		if l == nil {
			errs = append(errs, field.Required(p.Child("limited"), "must not be empty when type is Limited"))
			break
		}
		lp := p.Child("limited")
		if l.NominalConcurrencyShares != nil && *l.NominalConcurrencyShares < 0 {
			errs = append(errs, field.Invalid(lp.Child("nominalConcurrencyShares"), *l.NominalConcurrencyShares, "must be a non-negative integer"))
		}
		errs = append(errs, validateLimitResponse(&l.LimitResponse, lp.Child("limitResponse"))...)
		percent(l.LendablePercent, lp.Child("lendablePercent"))
		if b := l.BorrowingLimitPercent; b != nil && *b < 0 {
			errs = append(errs, field.Invalid(lp.Child("borrowingLimitPercent"), *b, "if specified, must be a non-negative integer"))
		}
	default:
		errs = append(errs, field.NotSupported(p.Child("type"), spec.Type, []string{"Exempt", "Limited"}))
	}
	return errs
}

func validateLimitResponse(lr *flowcontrolv1.LimitResponse, p *field.Path) field.ErrorList {
	var errs field.ErrorList
	switch lr.Type {
	case flowcontrolv1.LimitResponseTypeReject:
		if lr.Queuing != nil {
			errs = append(errs, field.Forbidden(p.Child("queuing"), "must be nil if limited.limitResponse.type is not Limited"))
		}
	case flowcontrolv1.LimitResponseTypeQueue:
		q := lr.Queuing
		if q == nil {
			errs = append(errs, field.Required(p.Child("queuing"), "must not be empty if limited.limitResponse.type is Limited"))
			break
		}
		qp := p.Child("queuing")
		if q.QueueLengthLimit <= 0 {
			errs = append(errs, field.Invalid(qp.Child("queueLengthLimit"), q.QueueLengthLimit, "must be positive"))
		}
		if q.Queues <= 0 {
			errs = append(errs, field.Invalid(qp.Child("queues"), q.Queues, "must be positive"))
		} else if q.Queues > 10_000_000 {
			errs = append(errs, field.Invalid(qp.Child("queues"), q.Queues, "must not be greater than 10000000"))
		}
		if q.HandSize <= 0 {
			errs = append(errs, field.Invalid(qp.Child("handSize"), q.HandSize, "must be positive"))
		} else if q.HandSize > q.Queues {
			errs = append(errs, field.Invalid(qp.Child("handSize"), q.HandSize, fmt.Sprintf("should not be greater than queues (%d)", q.Queues)))
		}
	default:
		errs = append(errs, field.NotSupported(p.Child("type"), lr.Type, []string{"Queue", "Reject"}))
	}
	return errs
}
