package webhook

import (
	"kubik/ch01-apiserver/api/admissionregistrationv1"
	"kubik/ch01-apiserver/api/admissionv1"
)

// The predicates the admission policies (package policy) share with the
// webhooks, as upstream's policy matcher uses the webhooks' rules,
// namespace and object predicates.

// MatchRules reports whether one of the rules covers the request in the
// given group/version/resource (upstream's rules.Matcher).
func MatchRules(rules []admissionregistrationv1.RuleWithOperations, a *Attributes, gvr admissionv1.GroupVersionResource) bool {
	return matchRules(rules, a, gvr)
}

// IsExempt reports whether the request is for an admission configuration
// object (webhook configurations, policies and their bindings), which no
// webhook and no policy sees.
func IsExempt(a *Attributes) bool { return isExempt(a) }

// LabelsOf reads metadata.labels of an object in JSON.
func LabelsOf(obj []byte) map[string]string { return labelsOf(obj) }
