package apiserver

import (
	"context"
	"encoding/json"
	"errors"
	"reflect"

	"kubik/ch01-apiserver/api/admissionv1"
	"kubik/ch01-apiserver/api/authenticationv1"
	"kubik/ch01-apiserver/api/corev1"
	"kubik/ch01-apiserver/api/metav1"
	"kubik/ch01-apiserver/api/scheme"
	"kubik/ch01-apiserver/apiserver/defaults"
	"kubik/ch01-apiserver/apiserver/webhook"
)

// MutatingAdmissionWebhook and ValidatingAdmissionWebhook: the admission
// plugins that call the webhooks of the webhook configurations (package
// webhook). The mutating ones run at the end of admit, the validating ones
// first in validateAdmission (before ResourceQuota, as upstream orders its
// plugins), and both for deletes in admitDelete.

// webhookRequestKey carries the request in the context of a webhook call,
// so the webhooks' warnings reach its response.
type webhookRequestKey struct{}

// newWebhooks builds the server's webhook source and dispatcher.
func (s *Server) newWebhooks() {
	log := s.cfg.Logger.With("component", "apiserver", "plugin", "webhook")
	s.webhookSource = webhook.NewSource(s.cfg.Storage, log)
	s.webhooks = webhook.NewDispatcher(s.webhookSource, webhook.Hooks{
		NamespaceLabels: func(ctx context.Context, name string) (map[string]string, error) {
			obj, err := s.getForAdmission(ctx, scheme.Lookup("", "v1", "namespaces"), "", name)
			if err != nil {
				return nil, err
			}
			return obj.(*corev1.Namespace).Labels, nil
		},
		MatchConditions: (&webhook.MatchConditionsCEL{}).Match,
		Warn: func(ctx context.Context, text string) {
			if q, ok := ctx.Value(webhookRequestKey{}).(*request); ok {
				addWarning(q.w, text)
			}
		},
		Annotate: func(ctx context.Context, key, value string) {
			log.Debug("audit annotation", "key", key, "value", value)
		},
	}, log)
}

// webhookAttributes describes the request for the webhooks; obj or old may be nil.
func (s *Server) webhookAttributes(q *request, op admissionv1.Operation, namespace, name string, obj, old metav1.Object) (*webhook.Attributes, error) {
	res := q.res
	kind := admissionv1.GroupVersionKind{Group: res.Group, Version: res.Version, Kind: res.Kind}
	if sub := res.Subresource(q.info.Subresource); sub != nil && sub.Kind != "" {
		kind.Kind = sub.Kind
		if sub.Group != "" {
			kind.Group, kind.Version = sub.Group, sub.Version
		}
	}
	a := &webhook.Attributes{
		Kind:        kind,
		Resource:    admissionv1.GroupVersionResource{Group: res.Group, Version: res.Version, Resource: res.Resource},
		Subresource: q.info.Subresource,
		Name:        name,
		Namespace:   namespace,
		Operation:   op,
		DryRun:      q.dryRun(),
	}
	if res.Group == "" && res.Resource == "namespaces" {
		a.Namespace = name // upstream's attributes name the namespace itself
	}
	if q.user != nil {
		a.UserInfo = authenticationv1.UserInfo{Username: q.user.Name, UID: q.user.UID, Groups: q.user.Groups}
		if len(q.user.Extra) > 0 {
			a.UserInfo.Extra = map[string]authenticationv1.ExtraValue{}
			for k, v := range q.user.Extra {
				a.UserInfo.Extra[k] = v
			}
		}
	}
	for _, other := range s.allResources() {
		if other != res && other.Resource == res.Resource && (other.Group == res.Group || (other.StoragePrefix != "" && other.StoragePrefix == res.StoragePrefix)) {
			a.Equivalent = append(a.Equivalent, admissionv1.GroupVersionResource{Group: other.Group, Version: other.Version, Resource: other.Resource})
		}
	}
	var err error
	if a.Object, err = objectJSON(res, obj); err != nil {
		return nil, err
	}
	if a.OldObject, err = objectJSON(res, old); err != nil {
		return nil, err
	}
	opts := map[string]any{"apiVersion": "meta.k8s.io/v1"}
	switch op {
	case admissionv1.Create:
		opts["kind"] = "CreateOptions"
	case admissionv1.Update:
		opts["kind"] = "UpdateOptions"
	default:
		opts["kind"] = "DeleteOptions"
	}
	if a.DryRun {
		opts["dryRun"] = []string{"All"}
	}
	if m := q.query("fieldManager"); m != "" && op != admissionv1.Delete {
		opts["fieldManager"] = m
	}
	a.Options, _ = json.Marshal(opts)
	return a, nil
}

// objectJSON is the object as a webhook sees it, apiVersion and kind included.
func objectJSON(res *scheme.Resource, obj metav1.Object) ([]byte, error) {
	if obj == nil || reflect.ValueOf(obj).IsNil() {
		return nil, nil
	}
	data, err := json.Marshal(obj)
	if err != nil {
		return nil, err
	}
	var head struct {
		Kind string `json:"kind"`
	}
	if json.Unmarshal(data, &head) == nil && head.Kind == "" && len(data) > 1 && data[0] == '{' {
		tm, _ := json.Marshal(metav1.TypeMeta{Kind: res.Kind, APIVersion: res.GroupVersion()})
		sep := ","
		if data[1] == '}' {
			sep = ""
		}
		data = append(append(tm[:len(tm)-1:len(tm)-1], sep...), data[1:]...)
	}
	return data, nil
}

// webhookError turns the dispatcher's errors into the apiserver's.
func webhookError(err error) error {
	var we *webhook.StatusError
	if errors.As(err, &we) {
		return &StatusError{Status: we.Status}
	}
	return err
}

// writeAttributes are the admission attributes of a create (old nil) or an
// update of obj.
func (s *Server) writeAttributes(q *request, obj, old metav1.Object) (*webhook.Attributes, error) {
	op := admissionv1.Create
	if old != nil {
		op = admissionv1.Update
	}
	meta := obj.GetObjectMeta()
	a, err := s.webhookAttributes(q, op, meta.Namespace, meta.Name, obj, old)
	if err != nil {
		return nil, ErrInternal(err)
	}
	return a, nil
}

// deleteAttributes are the admission attributes of deleting
// namespace/name, the stored object being the old one; nil with no error
// when there is no such object (the delete itself answers the 404).
func (s *Server) deleteAttributes(ctx context.Context, q *request, namespace, name string) (*webhook.Attributes, error) {
	old, err := s.getObject(ctx, q.res, namespace, name)
	if err != nil {
		return nil, nil
	}
	a, err := s.webhookAttributes(q, admissionv1.Delete, namespace, name, nil, old)
	if err != nil {
		return nil, ErrInternal(err)
	}
	return a, nil
}

// admitWebhooks runs the mutating webhooks on a create or update and puts
// their changes into obj.
func (s *Server) admitWebhooks(ctx context.Context, q *request, obj, old metav1.Object) error {
	if s.webhooks == nil || !s.webhookSource.HasWebhooks() {
		return nil
	}
	a, err := s.writeAttributes(q, obj, old)
	if err != nil {
		return err
	}
	before := a.Object
	patched, err := s.webhooks.Admit(context.WithValue(ctx, webhookRequestKey{}, q), a)
	if err != nil {
		return webhookError(err)
	}
	if string(patched) == string(before) {
		return nil
	}
	// Decode the patched object into obj (a fresh decode: fields the
	// patch removed must go), then default it again, as upstream does.
	v := reflect.ValueOf(obj).Elem()
	v.SetZero()
	if err := json.Unmarshal(patched, obj); err != nil {
		return ErrInternal(err)
	}
	defaults.Default(obj)
	return nil
}

// validateWebhooks runs the validating webhooks on a create or update.
func (s *Server) validateWebhooks(ctx context.Context, q *request, obj, old metav1.Object) error {
	if s.webhooks == nil || !s.webhookSource.HasWebhooks() {
		return nil
	}
	a, err := s.writeAttributes(q, obj, old)
	if err != nil {
		return err
	}
	return webhookError(s.webhooks.Validate(context.WithValue(ctx, webhookRequestKey{}, q), a))
}

// deleteWebhooks runs both kinds of webhooks on a delete: the object is the
// one being deleted (oldObject), the new object is absent.
func (s *Server) deleteWebhooks(ctx context.Context, q *request, namespace, name string) error {
	if s.webhooks == nil || !s.webhookSource.HasWebhooks() {
		return nil
	}
	a, err := s.deleteAttributes(ctx, q, namespace, name)
	if a == nil {
		return err
	}
	ctx = context.WithValue(ctx, webhookRequestKey{}, q)
	if _, err := s.webhooks.Admit(ctx, a); err != nil {
		return webhookError(err)
	}
	return webhookError(s.webhooks.Validate(ctx, a))
}
