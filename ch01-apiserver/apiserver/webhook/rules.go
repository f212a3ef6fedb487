package webhook

import (
	"context"
	"encoding/json"
	"strings"

	"kubik/ch01-apiserver/api/admissionregistrationv1"
	"kubik/ch01-apiserver/api/admissionv1"
	"kubik/ch01-apiserver/apiserver/selection"
)

// hook is one webhook of either kind, as the matcher and the caller see it
// (upstream's webhook.WebhookAccessor).
type hook struct {
	configuration      string
	name               string
	uid                string // configuration/name/index: the key of reinvocation
	clientConfig       admissionregistrationv1.WebhookClientConfig
	rules              []admissionregistrationv1.RuleWithOperations
	failurePolicy      admissionregistrationv1.FailurePolicyType
	matchPolicy        admissionregistrationv1.MatchPolicyType
	namespaceSelector  selection.LabelSelector
	objectSelector     selection.LabelSelector
	sideEffects        admissionregistrationv1.SideEffectClass
	timeoutSeconds     int32
	reinvocationPolicy admissionregistrationv1.ReinvocationPolicyType
	matchConditions    []MatchCondition
}

// exemptResources are never sent to webhooks, so a broken webhook can always
// be fixed or removed (upstream's rules.IsExemptAdmissionConfigurationResource).
var exemptResources = map[string]bool{
	"validatingwebhookconfigurations":   true,
	"mutatingwebhookconfigurations":     true,
	"validatingadmissionpolicies":       true,
	"validatingadmissionpolicybindings": true,
	"mutatingadmissionpolicies":         true,
	"mutatingadmissionpolicybindings":   true,
}

func isExempt(a *Attributes) bool {
	return a.Resource.Group == admissionregistrationv1.GroupName && exemptResources[a.Resource.Resource]
}

// matchRules reports whether one of the rules covers the request's
// operation, resource (in the given group/version) and scope (upstream's
// rules.Matcher).
func matchRules(rules []admissionregistrationv1.RuleWithOperations, a *Attributes, gvr admissionv1.GroupVersionResource) bool {
	for _, r := range rules {
		if matchOperation(r.Operations, a.Operation) &&
			matchList(r.APIGroups, gvr.Group) && matchList(r.APIVersions, gvr.Version) &&
			matchResource(r.Resources, gvr.Resource, a.Subresource) && matchScope(r.Scope, a) {
			return true
		}
	}
	return false
}

func matchOperation(ops []admissionregistrationv1.OperationType, op admissionv1.Operation) bool {
	for _, o := range ops {
		if o == admissionregistrationv1.OperationAll || string(o) == string(op) {
			return true
		}
	}
	return false
}

func matchList(list []string, v string) bool {
	for _, x := range list {
		if x == "*" || x == v {
			return true
		}
	}
	return false
}

// matchResource: "pods" is the main resource only, "pods/status" one
// subresource, "pods/*" pods and every subresource of pods (a "*"
// subresource matches none too, as upstream), "*" every main resource,
// "*/*" everything, "*/status" every status subresource.
func matchResource(list []string, resource, subresource string) bool {
	for _, r := range list {
		res, sub, _ := strings.Cut(r, "/")
		if (res == "*" || res == resource) && (sub == "*" || sub == subresource) {
			return true
		}
	}
	return false
}

func matchScope(scope *admissionregistrationv1.ScopeType, a *Attributes) bool {
	if scope == nil || *scope == admissionregistrationv1.AllScopes {
		return true
	}
	isNamespace := a.Resource.Group == "" && a.Resource.Resource == "namespaces"
	switch *scope {
	case admissionregistrationv1.NamespacedScope:
		return !isNamespace && a.Namespace != ""
	case admissionregistrationv1.ClusterScope:
		return isNamespace || a.Namespace == ""
	}
	return false
}

// matchNamespace is upstream's namespace.Matcher.MatchNamespaceSelector:
// cluster-scoped objects always match; a namespace being created or
// updated is matched by its own labels; any other object by its namespace's.
func matchNamespace(ctx context.Context, h *hook, a *Attributes, hooks *Hooks) (bool, error) {
	isNamespace := a.Resource.Group == "" && a.Resource.Resource == "namespaces"
	if a.Namespace == "" && !isNamespace {
		return true, nil
	}
	if h.namespaceSelector.Empty() {
		return true, nil
	}
	if isNamespace && a.Subresource == "" && (a.Operation == admissionv1.Create || a.Operation == admissionv1.Update) {
		return h.namespaceSelector.Matches(labelsOf(a.Object)), nil
	}
	if hooks.NamespaceLabels == nil {
		return false, nil
	}
	labels, err := hooks.NamespaceLabels(ctx, a.Namespace)
	if err != nil {
		return false, err
	}
	return h.namespaceSelector.Matches(labels), nil
}

// matchObject is upstream's object.Matcher.MatchObjectSelector: the new
// or the old object's labels match.
func matchObject(h *hook, a *Attributes) bool {
	if h.objectSelector.Empty() {
		return true
	}
	return (a.Object != nil && h.objectSelector.Matches(labelsOf(a.Object))) ||
		(a.OldObject != nil && h.objectSelector.Matches(labelsOf(a.OldObject)))
}

// labelsOf reads metadata.labels of a JSON object.
func labelsOf(obj []byte) map[string]string {
	var o struct {
		Metadata struct {
			Labels map[string]string `json:"labels"`
		} `json:"metadata"`
	}
	if json.Unmarshal(obj, &o) != nil {
		return nil
	}
	return o.Metadata.Labels
}

// invocation is a webhook to call, and the version it is called for.
type invocation struct {
	hook     *hook
	resource admissionv1.GroupVersionResource
}

// shouldCall is upstream's generic Webhook.ShouldCallHook: rules (and,
// with matchPolicy Equivalent, the rules against the resource's other
// versions), then the namespace and object selectors, then the match
// conditions. A nil invocation means "do not call".
func shouldCall(ctx context.Context, h *hook, a *Attributes, hooks *Hooks) (*invocation, error) {
	inv := (*invocation)(nil)
	if matchRules(h.rules, a, a.Resource) {
		inv = &invocation{hook: h, resource: a.Resource}
	} else if h.matchPolicy == admissionregistrationv1.Equivalent {
		for _, eq := range a.Equivalent {
			if matchRules(h.rules, a, eq) {
				// The object is sent in the request's version: this
				// apiserver does not convert between served versions here.
				inv = &invocation{hook: h, resource: a.Resource}
				break
			}
		}
	}
	if inv == nil {
		return nil, nil
	}
	ok, err := matchNamespace(ctx, h, a, hooks)
	if err != nil || !ok {
		return nil, err
	}
	if !matchObject(h, a) {
		return nil, nil
	}
	if len(h.matchConditions) > 0 && hooks.MatchConditions != nil {
		ok, err := hooks.MatchConditions(ctx, a, h.name, h.matchConditions)
		if err != nil {
			if h.failurePolicy == admissionregistrationv1.Ignore {
				return nil, nil
			}
			return nil, matchConditionsFailed(a, err) // failing closed, as upstream
		}
		if !ok {
			return nil, nil
		}
	}
	return inv, nil
}
