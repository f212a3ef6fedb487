package policy

import (
	"fmt"
	"sort"
	"strconv"
	"strings"

	"kubik/ch01-apiserver/api/admissionregistrationv1"
	"kubik/ch01-apiserver/apiserver/cel"
)

// TypeChecker checks a policy's validations against the schemas of the
// kinds it matches, as upstream's validating.TypeChecker does for the
// validatingadmissionpolicy-status-controller: every expression and
// messageExpression is compiled once per matched kind with object and
// oldObject typed from that kind's schema (and params from the
// paramKind's), and what does not check becomes an ExpressionWarning.
type TypeChecker struct {
	Schemas Schemas
}

// Schemas resolves resources to kinds and kinds to schemas (upstream's
// RESTMapper and SchemaResolver).
type Schemas interface {
	// KindsFor returns the kinds served as group/version/resource.
	KindsFor(group, version, resource string) []GroupVersionKind
	// Schema returns a kind's schema, nil when it has none.
	Schema(gvk GroupVersionKind) cel.Schema
}

// GroupVersionKind names a kind.
type GroupVersionKind struct{ Group, Version, Kind string }

// String is upstream's schema.GroupVersionKind.String.
func (g GroupVersionKind) String() string {
	return g.Group + "/" + g.Version + ", Kind=" + g.Kind
}

// maxTypesToCheck is upstream's bound on the kinds checked per policy.
const maxTypesToCheck = 10

// Check returns the policy's type checking warnings (nil when none).
func (c *TypeChecker) Check(p *admissionregistrationv1.ValidatingAdmissionPolicy) []admissionregistrationv1.ExpressionWarning {
	gvks := c.typesToCheck(p)
	if len(gvks) == 0 {
		return nil
	}
	var params cel.Schema
	hasParams := p.Spec.ParamKind != nil
	if hasParams {
		group, version, ok := strings.Cut(p.Spec.ParamKind.APIVersion, "/")
		if !ok {
			group, version = "", p.Spec.ParamKind.APIVersion
		}
		if strings.Count(p.Spec.ParamKind.APIVersion, "/") <= 1 {
			params = c.Schemas.Schema(GroupVersionKind{group, version, p.Spec.ParamKind.Kind})
		}
	}
	compilers := make([]*cel.PolicyCompiler, len(gvks))
	for i, gvk := range gvks {
		compiler, err := cel.NewTypeCheckingCompiler(hasParams, gvk.Kind+strconv.Itoa(i), c.Schemas.Schema(gvk), "Params", params)
		if err != nil {
			continue
		}
		for _, v := range p.Spec.Variables {
			compiler.CompileVariable(v.Name, v.Expression)
		}
		compilers[i] = compiler
	}
	check := func(expr string) string {
		var messages []string
		for i, gvk := range gvks {
			if compilers[i] == nil {
				continue
			}
			if issues := compilers[i].Check(expr); issues != "" {
				messages = append(messages, fmt.Sprintf("%v: %s\n", gvk, issues))
			}
		}
		return strings.Join(messages, "\n")
	}
	var warnings []admissionregistrationv1.ExpressionWarning
	for i, v := range p.Spec.Validations {
		if w := check(v.Expression); w != "" {
			warnings = append(warnings, admissionregistrationv1.ExpressionWarning{
				FieldRef: fmt.Sprintf("spec.validations[%d].expression", i), Warning: w})
		}
		if v.MessageExpression == "" {
			continue
		}
		if w := check(v.MessageExpression); w != "" {
			warnings = append(warnings, admissionregistrationv1.ExpressionWarning{
				FieldRef: fmt.Sprintf("spec.validations[%d].messageExpression", i), Warning: w})
		}
	}
	return warnings
}

// typesToCheck is upstream's: the kinds of the resourceRules without
// wildcards, in group, version, kind order, at most maxTypesToCheck.
func (c *TypeChecker) typesToCheck(p *admissionregistrationv1.ValidatingAdmissionPolicy) []GroupVersionKind {
	m := p.Spec.MatchConstraints
	if m == nil || len(m.ResourceRules) == 0 {
		return nil
	}
	seen := map[GroupVersionKind]bool{}
	var out []GroupVersionKind
	for _, rule := range m.ResourceRules {
		groups := withoutWildcards(rule.APIGroups, "*", true)
		versions := withoutWildcards(rule.APIVersions, "*", true)
		resources := withoutWildcards(rule.Resources, "*/", false)
		if len(groups) == 0 || len(versions) == 0 || len(resources) == 0 {
			continue
		}
		count := 0
		for _, g := range groups {
			for _, v := range versions {
				for _, r := range resources {
					for _, gvk := range c.Schemas.KindsFor(g, v, r) {
						if gvk.Kind == "" {
							continue
						}
						if !seen[gvk] {
							seen[gvk] = true
							out = append(out, gvk)
						}
						count++
						if count == maxTypesToCheck {
							return sortGVKs(out)
						}
					}
				}
			}
		}
	}
	return sortGVKs(out)
}

// withoutWildcards is upstream's extractGroups/extractVersions (all:
// any wildcard voids the list) and extractResources (drop the entries
// with a wildcard or a subresource), sorted.
func withoutWildcards(list []string, chars string, all bool) []string {
	out := make([]string, 0, len(list))
	for _, x := range list {
		if strings.ContainsAny(x, chars) {
			if all {
				return nil
			}
			continue
		}
		out = append(out, x)
	}
	sort.Strings(out)
	return out
}

func sortGVKs(list []GroupVersionKind) []GroupVersionKind {
	sort.Slice(list, func(i, j int) bool {
		a, b := list[i], list[j]
		if a.Group != b.Group {
			return a.Group < b.Group
		}
		if a.Version != b.Version {
			return a.Version < b.Version
		}
		return a.Kind < b.Kind
	})
	return list
}
