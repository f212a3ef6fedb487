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
	"strings"
	"sync"
	"time"

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

// Start lists policies and bindings once, then watches them until ctx ends.
func (s *Source) Start(ctx context.Context) error {
	for _, prefix := range []string{PolicyPrefix, BindingPrefix} {
		rev, err := s.relist(ctx, prefix)
		if err != nil {
			return err
		}
		go s.watch(ctx, prefix, rev)
	}
	return nil
}

func (s *Source) relist(ctx context.Context, prefix string) (int64, error) {
	result, err := s.store.List(ctx, prefix, storage.ListOptions{})
	if err != nil {
		return 0, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	seen := map[string]bool{}
	for _, kv := range result.KVs {
		seen[strings.TrimPrefix(kv.Key, prefix)] = true
		s.putLocked(prefix, kv.Key, kv.Value)
	}
	if prefix == PolicyPrefix {
		for name := range s.policies {
			if !seen[name] {
				delete(s.policies, name)
			}
		}
	} else {
		for name := range s.bindings {
			if !seen[name] {
				delete(s.bindings, name)
			}
		}
	}
	s.rebuildLocked()
	return result.Revision, nil
}

func (s *Source) watch(ctx context.Context, prefix string, rev int64) {
	for ctx.Err() == nil {
		events, err := s.store.Watch(ctx, prefix, rev)
		if err == nil {
			for ev := range events {
				rev = max(rev, ev.KV.ModRevision)
				s.mu.Lock()
				if ev.Type == storage.EventDelete {
					name := strings.TrimPrefix(ev.KV.Key, prefix)
					if prefix == PolicyPrefix {
						delete(s.policies, name)
					} else {
						delete(s.bindings, name)
					}
				} else {
					s.putLocked(prefix, ev.KV.Key, ev.KV.Value)
				}
				s.rebuildLocked()
				s.mu.Unlock()
			}
		}
		if ctx.Err() != nil {
			return
		}
		if err != nil {
			s.log.Warn("watching admission policies", "prefix", prefix, "err", err)
		}
		select {
		case <-ctx.Done():
			return
		case <-time.After(time.Second):
		}
		if r, err := s.relist(ctx, prefix); err == nil {
			rev = r
		}
	}
}

func (s *Source) putLocked(prefix, key string, value []byte) {
	name := strings.TrimPrefix(key, prefix)
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
