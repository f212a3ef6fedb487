// Package webhook calls admission webhooks: the apiserver sends an
// AdmissionReview to every webhook whose rules match a request, mutating
// webhooks first and one after another (applying their JSON patches), then
// validating webhooks in parallel once the object has been validated.
//
// The webhooks come from the ValidatingWebhookConfigurations and
// MutatingWebhookConfigurations in storage, kept in memory by a watch
// (Source), as upstream's configuration managers keep them through an
// informer: no storage read per request.
//
// Upstream: k8s.io/apiserver/pkg/admission/plugin/webhook (generic/webhook.go
// ShouldCallHook, mutating/dispatcher.go, validating/dispatcher.go,
// errors/statuserror.go, request/admissionreview.go, predicates/rules,
// predicates/namespace, predicates/object) and its configuration managers in
// k8s.io/apiserver/pkg/admission/configuration.
package webhook

import (
	"context"

	"kubik/ch01-apiserver/api/admissionv1"
	"kubik/ch01-apiserver/api/authenticationv1"
)

// Attributes describe one request to admit (upstream's admission.Attributes).
// Object and OldObject are the objects as JSON in the request's version (nil
// when absent: OldObject on create, Object on delete).
type Attributes struct {
	Kind        admissionv1.GroupVersionKind
	Resource    admissionv1.GroupVersionResource
	Subresource string
	Name        string
	// Namespace is the object's namespace; for a Namespace object it is the
	// namespace's own name, as upstream.
	Namespace string
	Operation admissionv1.Operation
	Object    []byte
	OldObject []byte
	// Options: CreateOptions, UpdateOptions or DeleteOptions as JSON.
	Options  []byte
	DryRun   bool
	UserInfo authenticationv1.UserInfo
	// Equivalent lists the other served versions of the same resource (same
	// storage) for matchPolicy Equivalent.
	Equivalent []admissionv1.GroupVersionResource
}

// Hooks connects the dispatcher to the apiserver.
type Hooks struct {
	// NamespaceLabels returns a namespace's labels (an apiserver error,
	// e.g. its 404, when it cannot).
	NamespaceLabels func(ctx context.Context, name string) (map[string]string, error)
	// MatchConditions evaluates a webhook's matchConditions (CEL) against a
	// request: true to call the webhook (MatchConditionsCEL.Match). Nil
	// means every webhook with match conditions is called.
	MatchConditions func(ctx context.Context, a *Attributes, webhookName string, conditions []MatchCondition) (bool, error)
	// Warn passes a webhook's warning on to the client (a Warning header).
	Warn func(ctx context.Context, text string)
	// Annotate records an audit annotation "<webhook>/<key>".
	Annotate func(ctx context.Context, key, value string)
}

// MatchCondition is a webhook's named CEL expression.
type MatchCondition struct {
	Name       string
	Expression string
}
