package apiserver

import (
	"context"
	"encoding/json"
	"errors"

	"kubik/ch01-apiserver/api/metav1"
	"kubik/ch01-apiserver/api/scheme"
	"kubik/ch01-apiserver/apiserver/policy"
	"kubik/ch01-apiserver/apiserver/selection"
	"kubik/ch01-apiserver/apiserver/webhook"
	"kubik/ch01-apiserver/storage"
)

// ValidatingAdmissionPolicy: the admission plugin that evaluates the CEL
// policies bound by ValidatingAdmissionPolicyBindings (package policy). It
// runs in validateAdmission just before the validating webhooks, and for
// deletes in admitDelete, as upstream orders its plugins.

// newPolicies builds the server's policy source and dispatcher.
func (s *Server) newPolicies() {
	log := s.cfg.Logger.With("component", "apiserver", "plugin", "ValidatingAdmissionPolicy")
	s.policySource = policy.NewSource(s.cfg.Storage, log)
	s.policies = policy.NewDispatcher(s.policySource, policy.Hooks{
		Namespace: func(ctx context.Context, name string) ([]byte, error) {
			obj, err := s.getForAdmission(ctx, scheme.Lookup("", "v1", "namespaces"), "", name)
			if err != nil {
				return nil, err
			}
			return json.Marshal(obj)
		},
		Params: s.policyParams,
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

// policyParams reads the param objects of a binding from storage.
func (s *Server) policyParams(ctx context.Context, apiVersion, kind, namespace, name string, selector *metav1.LabelSelector) (policy.ParamObjects, error) {
	var res *scheme.Resource
	for _, r := range s.allResources() {
		if r.GroupVersion() == apiVersion && r.Kind == kind && !r.NotStored {
			res = r
			break
		}
	}
	if res == nil {
		return policy.ParamObjects{}, nil
	}
	out := policy.ParamObjects{Known: true, Namespaced: res.Namespaced}
	switch {
	case name != "":
		kv, err := s.cfg.Storage.Get(ctx, storageKey(res, namespace, name))
		if errors.Is(err, storage.ErrNotFound) {
			return out, nil
		}
		if err != nil {
			return out, storageError(err)
		}
		out.Objects = append(out.Objects, kv.Value)
	case selector != nil:
		sel, err := selection.FromLabelSelector(selector)
		if err != nil {
			return out, err
		}
		result, err := s.cfg.Storage.List(ctx, storagePrefix(res, namespace), storage.ListOptions{AllowStale: true})
		if err != nil {
			return out, storageError(err)
		}
		for _, kv := range result.KVs {
			if sel.Matches(webhook.LabelsOf(kv.Value)) {
				out.Objects = append(out.Objects, kv.Value)
			}
		}
	}
	return out, nil
}

// policyError turns the dispatcher's errors into the apiserver's.
func policyError(err error) error {
	var pe *policy.StatusError
	if errors.As(err, &pe) {
		return &StatusError{Status: pe.Status}
	}
	return err
}

// validatePolicies evaluates the bound policies on a create or update.
func (s *Server) validatePolicies(ctx context.Context, q *request, obj, old metav1.Object) error {
	if s.policies == nil || !s.policySource.HasPolicies() {
		return nil
	}
	a, err := s.writeAttributes(q, obj, old)
	if err != nil {
		return err
	}
	return policyError(s.policies.Validate(context.WithValue(ctx, webhookRequestKey{}, q), a))
}

// deletePolicies evaluates the bound policies on a delete.
func (s *Server) deletePolicies(ctx context.Context, q *request, namespace, name string) error {
	if s.policies == nil || !s.policySource.HasPolicies() {
		return nil
	}
	a, err := s.deleteAttributes(ctx, q, namespace, name)
	if a == nil {
		return err
	}
	return policyError(s.policies.Validate(context.WithValue(ctx, webhookRequestKey{}, q), a))
}
