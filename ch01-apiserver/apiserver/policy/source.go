// Package policy is the ValidatingAdmissionPolicy admission plugin: the
// policies and bindings in storage, kept in memory by a watch and
// compiled once per change, and evaluated in CEL against every request
// they match.
//
// Upstream: k8s.io/apiserver/pkg/admission/plugin/policy (generic/ the
// source and dispatcher, matching/ the matcher, validating/ the validator
// and its messages) and k8s.io/apiserver/pkg/admission/plugin/cel.
package policy

import (
	"context"
	"encoding/json"
	"log/slog"
	"sort"
	"sync"

	"kubik/ch01-apiserver/api/admissionregistrationv1"
	"kubik/ch01-apiserver/storage"
)

// The etcd key prefixes of the policies and the bindings, as upstream.
const (
	PolicyPrefix  = "/registry/validatingadmissionpolicies/"
	BindingPrefix = "/registry/validatingadmissionpolicybindings/"
)

// Source keeps every policy (compiled) and binding in memory, from a list
// and then a watch of storage (upstream's policy source over informers).
type Source struct {
	store storage.Interface
	log   *slog.Logger

	mu       sync.RWMutex
	policies map[string]*compiledPolicy
	bindings map[string]*admissionregistrationv1.ValidatingAdmissionPolicyBinding
	hooks    []*policyHook // policies that have bindings, in name order
}

// policyHook is a policy with its bindings (upstream's PolicyHook).
type policyHook struct {
	policy   *compiledPolicy
	bindings []*admissionregistrationv1.ValidatingAdmissionPolicyBinding
}

// NewSource makes a Source; Start fills it.
func NewSource(store storage.Interface, log *slog.Logger) *Source {
	return &Source{store: store, log: log,
		policies: map[string]*compiledPolicy{},
		bindings: map[string]*admissionregistrationv1.ValidatingAdmissionPolicyBinding{}}
}

// Start lists policies and bindings once, then watches them until ctx ends
// (storage.Follow).
func (s *Source) Start(ctx context.Context) error {
	return storage.Follow(ctx, s.store, s.log, s, PolicyPrefix, BindingPrefix)
}

// Replace, Put and Delete keep the policies or bindings of prefix
// (storage.Mirror); a policy is compiled when it is put.
func (s *Source) Replace(prefix string, objects map[string][]byte) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if prefix == PolicyPrefix {
		clear(s.policies)
	} else {
		clear(s.bindings)
	}
	for name, value := range objects {
		s.putLocked(prefix, name, value)
	}
	s.rebuildLocked()
}

func (s *Source) Put(prefix, name string, value []byte) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.putLocked(prefix, name, value)
	s.rebuildLocked()
}

func (s *Source) Delete(prefix, name string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if prefix == PolicyPrefix {
		delete(s.policies, name)
	} else {
		delete(s.bindings, name)
	}
	s.rebuildLocked()
}

func (s *Source) putLocked(prefix, name string, value []byte) {
	if prefix == PolicyPrefix {
		p := &admissionregistrationv1.ValidatingAdmissionPolicy{}
		if err := json.Unmarshal(value, p); err != nil {
			s.log.Warn("decoding a ValidatingAdmissionPolicy", "name", name, "err", err)
			return
		}
		s.policies[name] = compilePolicy(p)
		return
	}
	b := &admissionregistrationv1.ValidatingAdmissionPolicyBinding{}
	if err := json.Unmarshal(value, b); err != nil {
		s.log.Warn("decoding a ValidatingAdmissionPolicyBinding", "name", name, "err", err)
		return
	}
	s.bindings[name] = b
}

func (s *Source) rebuildLocked() {
	byPolicy := map[string][]*admissionregistrationv1.ValidatingAdmissionPolicyBinding{}
	for _, b := range s.bindings {
		byPolicy[b.Spec.PolicyName] = append(byPolicy[b.Spec.PolicyName], b)
	}
	var hooks []*policyHook
	for name, bs := range byPolicy {
		p, ok := s.policies[name]
		if !ok {
			continue // a binding to a missing policy does nothing, as upstream
		}
		sort.Slice(bs, func(i, j int) bool { return bs[i].Name < bs[j].Name })
		hooks = append(hooks, &policyHook{policy: p, bindings: bs})
	}
	sort.Slice(hooks, func(i, j int) bool { return hooks[i].policy.policy.Name < hooks[j].policy.policy.Name })
	s.hooks = hooks
}

func (s *Source) current() []*policyHook {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return s.hooks
}

// HasPolicies reports whether any policy is bound.
func (s *Source) HasPolicies() bool {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return len(s.hooks) > 0
}
