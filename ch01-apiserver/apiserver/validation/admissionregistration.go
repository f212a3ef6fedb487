package validation

import (
	"fmt"
	"net/url"
	"strings"

	"kubik/ch01-apiserver/api/admissionregistrationv1"
	"kubik/ch01-apiserver/api/metav1"
	"kubik/ch01-apiserver/apiserver/cel"
	"kubik/ch01-apiserver/apiserver/validation/field"

	celgo "github.com/google/cel-go/cel"
)

// Webhook configurations: upstream's
// pkg/apis/admissionregistration/validation (ValidateValidatingWebhookConfiguration,
// ValidateMutatingWebhookConfiguration) and apiserver's util/webhook
// (ValidateWebhookURL, ValidateWebhookService), with their messages.

var (
	supportedOperations         = []string{"*", "CONNECT", "CREATE", "DELETE", "UPDATE"}
	supportedScopes             = []string{"*", "Cluster", "Namespaced"}
	supportedFailurePolicies    = []string{"Fail", "Ignore"}
	supportedMatchPolicies      = []string{"Equivalent", "Exact"}
	noSideEffectClasses         = []string{"None", "NoneOnDryRun"}
	acceptedAdmissionReviewVers = []string{"v1", "v1beta1"}
)

// maxMatchConditions is upstream's limit on a webhook's matchConditions.
const maxMatchConditions = 64

// webhookFields is what the two webhook kinds share.
type webhookFields struct {
	name                    string
	clientConfig            admissionregistrationv1.WebhookClientConfig
	rules                   []admissionregistrationv1.RuleWithOperations
	failurePolicy           *admissionregistrationv1.FailurePolicyType
	matchPolicy             *admissionregistrationv1.MatchPolicyType
	namespaceSelector       *metav1.LabelSelector
	objectSelector          *metav1.LabelSelector
	sideEffects             *admissionregistrationv1.SideEffectClass
	timeoutSeconds          *int32
	admissionReviewVersions []string
	matchConditions         []admissionregistrationv1.MatchCondition
}

func validateValidatingWebhookConfiguration(c *admissionregistrationv1.ValidatingWebhookConfiguration) field.ErrorList {
	hooks := make([]webhookFields, len(c.Webhooks))
	for i, w := range c.Webhooks {
		hooks[i] = webhookFields{w.Name, w.ClientConfig, w.Rules, w.FailurePolicy, w.MatchPolicy, w.NamespaceSelector,
			w.ObjectSelector, w.SideEffects, w.TimeoutSeconds, w.AdmissionReviewVersions, w.MatchConditions}
	}
	return validateWebhookConfiguration(&c.ObjectMeta, hooks, nil)
}

func validateMutatingWebhookConfiguration(c *admissionregistrationv1.MutatingWebhookConfiguration) field.ErrorList {
	hooks := make([]webhookFields, len(c.Webhooks))
	var extra field.ErrorList
	for i, w := range c.Webhooks {
		hooks[i] = webhookFields{w.Name, w.ClientConfig, w.Rules, w.FailurePolicy, w.MatchPolicy, w.NamespaceSelector,
			w.ObjectSelector, w.SideEffects, w.TimeoutSeconds, w.AdmissionReviewVersions, w.MatchConditions}
		if p := w.ReinvocationPolicy; p != nil && *p != admissionregistrationv1.NeverReinvocationPolicy && *p != admissionregistrationv1.IfNeededReinvocationPolicy {
			extra = append(extra, field.NotSupported(field.NewPath("webhooks").Index(i).Child("reinvocationPolicy"), *p, []string{"IfNeeded", "Never"}))
		}
	}
	return validateWebhookConfiguration(&c.ObjectMeta, hooks, extra)
}

func validateWebhookConfiguration(meta *metav1.ObjectMeta, hooks []webhookFields, extra field.ErrorList) field.ErrorList {
	errs := ValidateObjectMeta(meta, false, NameIsDNSSubdomain, field.NewPath("metadata"))
	names := map[string]bool{}
	for i := range hooks {
		h := &hooks[i]
		p := field.NewPath("webhooks").Index(i)
		errs = append(errs, validateWebhook(h, p)...)
		errs = append(errs, validateAdmissionReviewVersions(h.admissionReviewVersions, p.Child("admissionReviewVersions"))...)
		if h.name != "" {
			if names[h.name] {
				errs = append(errs, field.Duplicate(p.Child("name"), h.name))
			}
			names[h.name] = true
		}
	}
	return append(errs, extra...)
}

func validateWebhook(h *webhookFields, p *field.Path) field.ErrorList {
	errs := isFullyQualifiedName(p.Child("name"), h.name)
	for i := range h.rules {
		errs = append(errs, validateRuleWithOperations(&h.rules[i], p.Child("rules").Index(i))...)
	}
	if h.failurePolicy != nil && !contains(supportedFailurePolicies, string(*h.failurePolicy)) {
		errs = append(errs, field.NotSupported(p.Child("failurePolicy"), *h.failurePolicy, supportedFailurePolicies))
	}
	if h.matchPolicy != nil && !contains(supportedMatchPolicies, string(*h.matchPolicy)) {
		errs = append(errs, field.NotSupported(p.Child("matchPolicy"), *h.matchPolicy, supportedMatchPolicies))
	}
	if h.sideEffects == nil {
		errs = append(errs, field.Required(p.Child("sideEffects"), "must specify one of "+strings.Join(noSideEffectClasses, ", ")))
	} else if !contains(noSideEffectClasses, string(*h.sideEffects)) {
		errs = append(errs, field.NotSupported(p.Child("sideEffects"), *h.sideEffects, noSideEffectClasses))
	}
	if t := h.timeoutSeconds; t != nil && (*t > 30 || *t < 1) {
		errs = append(errs, field.Invalid(p.Child("timeoutSeconds"), *t, "the timeout value must be between 1 and 30 seconds"))
	}
	if h.namespaceSelector != nil {
		errs = append(errs, ValidateLabelSelector(h.namespaceSelector, p.Child("namespaceSelector"))...)
	}
	if h.objectSelector != nil {
		errs = append(errs, ValidateLabelSelector(h.objectSelector, p.Child("objectSelector"))...)
	}
	cc := h.clientConfig
	switch {
	case (cc.URL == nil) == (cc.Service == nil):
		errs = append(errs, field.Required(p.Child("clientConfig"), "exactly one of url or service is required"))
	case cc.URL != nil:
		errs = append(errs, validateWebhookURL(p.Child("clientConfig", "url"), *cc.URL)...)
	default:
		port := int32(443)
		if cc.Service.Port != nil {
			port = *cc.Service.Port
		}
		// Upstream passes (name, namespace) to a function declared
		// (namespace, name): an empty name is reported as the namespace.
		errs = append(errs, validateWebhookService(p.Child("clientConfig", "service"), cc.Service.Name, cc.Service.Namespace, cc.Service.Path, port)...)
	}
	return append(errs, validateMatchConditions(h.matchConditions, p.Child("matchConditions"))...)
}

// isFullyQualifiedName is upstream's utilvalidation.IsFullyQualifiedName.
func isFullyQualifiedName(p *field.Path, name string) field.ErrorList {
	if name == "" {
		return field.ErrorList{field.Required(p, "")}
	}
	if strings.HasSuffix(name, ".") {
		return field.ErrorList{field.Invalid(p, name, "must not contain a trailing period")}
	}
	if msgs := IsDNS1123Subdomain(name); len(msgs) > 0 {
		return field.ErrorList{field.Invalid(p, name, strings.Join(msgs, ","))}
	}
	if len(strings.Split(name, ".")) < 3 {
		return field.ErrorList{field.Invalid(p, name, "should be a domain with at least three segments separated by dots")}
	}
	return nil
}

func hasWildcard(list []string) bool { return contains(list, "*") }

func contains(list []string, v string) bool {
	for _, x := range list {
		if x == v {
			return true
		}
	}
	return false
}

func validateRuleWithOperations(r *admissionregistrationv1.RuleWithOperations, p *field.Path) field.ErrorList {
	var errs field.ErrorList
	ops := make([]string, len(r.Operations))
	for i, o := range r.Operations {
		ops[i] = string(o)
	}
	if len(ops) == 0 {
		errs = append(errs, field.Required(p.Child("operations"), ""))
	}
	if len(ops) > 1 && hasWildcard(ops) {
		errs = append(errs, field.Invalid(p.Child("operations"), ops, "if '*' is present, must not specify other operations"))
	}
	for i, o := range ops {
		if !contains(supportedOperations, o) {
			errs = append(errs, field.NotSupported(p.Child("operations").Index(i), o, supportedOperations))
		}
	}
	return append(errs, validateRule(&r.Rule, p)...)
}

func validateRule(r *admissionregistrationv1.Rule, p *field.Path) field.ErrorList {
	var errs field.ErrorList
	if len(r.APIGroups) == 0 {
		errs = append(errs, field.Required(p.Child("apiGroups"), ""))
	}
	if len(r.APIGroups) > 1 && hasWildcard(r.APIGroups) {
		errs = append(errs, field.Invalid(p.Child("apiGroups"), r.APIGroups, "if '*' is present, must not specify other API groups"))
	}
	if len(r.APIVersions) == 0 {
		errs = append(errs, field.Required(p.Child("apiVersions"), ""))
	}
	if len(r.APIVersions) > 1 && hasWildcard(r.APIVersions) {
		errs = append(errs, field.Invalid(p.Child("apiVersions"), r.APIVersions, "if '*' is present, must not specify other API versions"))
	}
	for i, v := range r.APIVersions {
		if v == "" {
			errs = append(errs, field.Required(p.Child("apiVersions").Index(i), ""))
		}
	}
	errs = append(errs, validateRuleResources(r.Resources, p.Child("resources"))...)
	if r.Scope != nil && !contains(supportedScopes, string(*r.Scope)) {
		errs = append(errs, field.NotSupported(p.Child("scope"), *r.Scope, supportedScopes))
	}
	return errs
}

func validateRuleResources(resources []string, p *field.Path) field.ErrorList {
	var errs field.ErrorList
	if len(resources) == 0 {
		errs = append(errs, field.Required(p, ""))
	}
	wildSub := map[string]bool{} // x/*
	wildRes := map[string]bool{} // */x
	doubleWildcard, singleWildcard, withoutSub := false, false, false
	for i, rs := range resources {
		if rs == "" {
			errs = append(errs, field.Required(p.Index(i), ""))
			continue
		}
		if rs == "*/*" {
			doubleWildcard = true
		}
		if rs == "*" {
			singleWildcard = true
		}
		res, sub, ok := strings.Cut(rs, "/")
		if !ok {
			withoutSub = rs != "*"
			continue
		}
		if wildSub[res] {
			errs = append(errs, field.Invalid(p.Index(i), rs, fmt.Sprintf("if '%s/*' is present, must not specify %s", res, rs)))
		}
		if wildRes[sub] {
			errs = append(errs, field.Invalid(p.Index(i), rs, fmt.Sprintf("if '*/%s' is present, must not specify %s", sub, rs)))
		}
		if sub == "*" {
			wildSub[res] = true
		}
		if res == "*" {
			wildRes[sub] = true
		}
	}
	if len(resources) > 1 && doubleWildcard {
		errs = append(errs, field.Invalid(p, resources, "if '*/*' is present, must not specify other resources"))
	}
	if singleWildcard && withoutSub {
		errs = append(errs, field.Invalid(p, resources, "if '*' is present, must not specify other resources without subresources"))
	}
	return errs
}

func validateAdmissionReviewVersions(versions []string, p *field.Path) field.ErrorList {
	if len(versions) < 1 {
		return field.ErrorList{field.Required(p, "must specify one of "+strings.Join(acceptedAdmissionReviewVers, ", "))}
	}
	var errs field.ErrorList
	seen := map[string]bool{}
	accepted := false
	for i, v := range versions {
		if seen[v] {
			errs = append(errs, field.Invalid(p.Index(i), v, "duplicate version"))
			continue
		}
		seen[v] = true
		for _, msg := range IsDNS1035Label(v) {
			errs = append(errs, field.Invalid(p.Index(i), v, msg))
		}
		if contains(acceptedAdmissionReviewVers, v) {
			accepted = true
		}
	}
	if !accepted {
		errs = append(errs, field.Invalid(p, versions, "must include at least one of "+strings.Join(acceptedAdmissionReviewVers, ", ")))
	}
	return errs
}

// validateWebhookURL is upstream's webhook.ValidateWebhookURL with forceHttps.
func validateWebhookURL(p *field.Path, raw string) field.ErrorList {
	const form = "; desired format: https://host[/path]"
	u, err := url.Parse(raw)
	if err != nil {
		return field.ErrorList{field.Required(p, "url must be a valid URL: "+err.Error()+form)}
	}
	var errs field.ErrorList
	if u.Scheme != "https" {
		errs = append(errs, field.Invalid(p, u.Scheme, "'https' is the only allowed URL scheme"+form))
	}
	if u.Host == "" {
		errs = append(errs, field.Invalid(p, u.Host, "host must be specified"+form))
	}
	if u.User != nil {
		errs = append(errs, field.Invalid(p, u.User.String(), "user information is not permitted in the URL"))
	}
	if u.Fragment != "" {
		errs = append(errs, field.Invalid(p, u.Fragment, "fragments are not permitted in the URL"))
	}
	if u.RawQuery != "" {
		errs = append(errs, field.Invalid(p, u.RawQuery, "query parameters are not permitted in the URL"))
	}
	return errs
}

// validateWebhookService is upstream's webhook.ValidateWebhookService.
func validateWebhookService(p *field.Path, namespace, name string, path *string, port int32) field.ErrorList {
	var errs field.ErrorList
	if name == "" {
		errs = append(errs, field.Required(p.Child("name"), ""))
	}
	if namespace == "" {
		errs = append(errs, field.Required(p.Child("namespace"), ""))
	}
	if msgs := IsValidPortNum(int(port)); msgs != nil {
		errs = append(errs, field.Invalid(p.Child("port"), port, "port is not valid: "+strings.Join(msgs, ", ")))
	}
	if path == nil || *path == "/" || *path == "" {
		return errs
	}
	urlPath := *path
	if urlPath == "//" {
		return append(errs, field.Invalid(p.Child("path"), urlPath, "segment[0] may not be empty"))
	}
	if !strings.HasPrefix(urlPath, "/") {
		errs = append(errs, field.Invalid(p.Child("path"), urlPath, "must start with a '/'"))
	}
	check := strings.TrimPrefix(urlPath, "/")
	check = strings.TrimSuffix(check, "/")
	for i, step := range strings.Split(check, "/") {
		if step == "" {
			errs = append(errs, field.Invalid(p.Child("path"), urlPath, fmt.Sprintf("segment[%d] may not be empty", i)))
			continue
		}
		for _, msg := range IsDNS1123Subdomain(step) {
			errs = append(errs, field.Invalid(p.Child("path"), urlPath, fmt.Sprintf("segment[%d]: %v", i, msg)))
		}
	}
	return errs
}

// validateMatchConditions checks matchConditions: at most 64, unique
// qualified names, an expression each that compiles in the admission CEL
// environment (cel.AdmissionEnvironment) and yields a bool.
func validateMatchConditions(conds []admissionregistrationv1.MatchCondition, p *field.Path) field.ErrorList {
	var errs field.ErrorList
	if len(conds) > maxMatchConditions {
		errs = append(errs, field.TooMany(p, len(conds), maxMatchConditions))
	}
	names := map[string]bool{}
	for i, c := range conds {
		cp := p.Index(i)
		if c.Name == "" {
			errs = append(errs, field.Required(cp.Child("name"), ""))
		} else {
			for _, msg := range IsQualifiedName(c.Name) {
				errs = append(errs, field.Invalid(cp.Child("name"), c.Name, msg))
			}
			if names[c.Name] {
				errs = append(errs, field.Duplicate(cp.Child("name"), c.Name))
			}
			names[c.Name] = true
		}
		if c.Expression == "" {
			errs = append(errs, field.Required(cp.Child("expression"), ""))
		} else if msg := compileMatchCondition(c.Expression); msg != "" {
			errs = append(errs, field.Invalid(cp.Child("expression"), c.Expression, msg))
		}
	}
	return errs
}

// compileMatchCondition returns why a match condition's expression is
// refused ("" when it compiles to a bool), in upstream's words.
func compileMatchCondition(expr string) string {
	env, err := cel.AdmissionEnvironment()
	if err != nil {
		return err.Error()
	}
	c, cerr := cel.Compile(env, expr, "")
	if cerr != nil {
		return cerr.Detail
	}
	if t := c.AST.OutputType(); !t.IsExactType(celgo.BoolType) {
		return "must evaluate to bool but got " + t.String()
	}
	return ""
}
