package webhook

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"sort"
	"sync"

	"kubik/ch01-apiserver/api/admissionregistrationv1"
	"kubik/ch01-apiserver/api/metav1"
	"kubik/ch01-apiserver/apiserver/selection"
	"kubik/ch01-apiserver/storage"
)

// The etcd key prefixes of the configurations, as upstream.
const (
	ValidatingPrefix = "/registry/validatingwebhookconfigurations/"
	MutatingPrefix   = "/registry/mutatingwebhookconfigurations/"
)

// Source keeps the webhooks of every configuration in memory, from a list
// and then a watch of storage (upstream's validatingWebhookConfigurationManager
// and mutatingWebhookConfigurationManager over an informer).
type Source struct {
	store storage.Interface
	log   *slog.Logger

	mu         sync.RWMutex
	validating map[string]*admissionregistrationv1.ValidatingWebhookConfiguration
	mutating   map[string]*admissionregistrationv1.MutatingWebhookConfiguration
	vhooks     []*hook // in configuration name order, then webhook order
	mhooks     []*hook
}

// NewSource makes a Source; Start fills it.
func NewSource(store storage.Interface, log *slog.Logger) *Source {
	return &Source{store: store, log: log,
		validating: map[string]*admissionregistrationv1.ValidatingWebhookConfiguration{},
		mutating:   map[string]*admissionregistrationv1.MutatingWebhookConfiguration{}}
}

// Start lists the configurations once (so the first requests already see
// them), then keeps watching them until ctx ends (storage.Follow).
func (s *Source) Start(ctx context.Context) error {
	return storage.Follow(ctx, s.store, s.log, s, ValidatingPrefix, MutatingPrefix)
}

// Replace, Put and Delete keep the configurations of prefix (storage.Mirror).
func (s *Source) Replace(prefix string, objects map[string][]byte) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if prefix == ValidatingPrefix {
		clear(s.validating)
	} else {
		clear(s.mutating)
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
	if prefix == ValidatingPrefix {
		delete(s.validating, name)
	} else {
		delete(s.mutating, name)
	}
	s.rebuildLocked()
}

func (s *Source) putLocked(prefix, name string, value []byte) {
	if prefix == ValidatingPrefix {
		c := &admissionregistrationv1.ValidatingWebhookConfiguration{}
		if err := json.Unmarshal(value, c); err != nil {
			s.log.Warn("decoding a ValidatingWebhookConfiguration", "name", name, "err", err)
			return
		}
		s.validating[name] = c
		return
	}
	c := &admissionregistrationv1.MutatingWebhookConfiguration{}
	if err := json.Unmarshal(value, c); err != nil {
		s.log.Warn("decoding a MutatingWebhookConfiguration", "name", name, "err", err)
		return
	}
	s.mutating[name] = c
}

func (s *Source) rebuildLocked() {
	var v, m []*hook
	for _, name := range sortedKeys(s.validating) {
		for i, w := range s.validating[name].Webhooks {
			v = append(v, newHook(name, i, w.Name, w.ClientConfig, w.Rules, w.FailurePolicy, w.MatchPolicy,
				w.NamespaceSelector, w.ObjectSelector, w.SideEffects, w.TimeoutSeconds, nil, w.MatchConditions))
		}
	}
	for _, name := range sortedKeys(s.mutating) {
		for i, w := range s.mutating[name].Webhooks {
			m = append(m, newHook(name, i, w.Name, w.ClientConfig, w.Rules, w.FailurePolicy, w.MatchPolicy,
				w.NamespaceSelector, w.ObjectSelector, w.SideEffects, w.TimeoutSeconds, w.ReinvocationPolicy, w.MatchConditions))
		}
	}
	s.vhooks, s.mhooks = v, m
}

func sortedKeys[T any](m map[string]T) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

func newHook(config string, index int, name string, cc admissionregistrationv1.WebhookClientConfig,
	rules []admissionregistrationv1.RuleWithOperations, fp *admissionregistrationv1.FailurePolicyType,
	mp *admissionregistrationv1.MatchPolicyType, nsSel, objSel *metav1.LabelSelector,
	se *admissionregistrationv1.SideEffectClass, timeout *int32, rp *admissionregistrationv1.ReinvocationPolicyType,
	conds []admissionregistrationv1.MatchCondition) *hook {
	h := &hook{configuration: config, name: name, uid: fmt.Sprintf("%s/%s/%d", config, name, index),
		clientConfig: cc, rules: rules,
		failurePolicy: admissionregistrationv1.Fail, matchPolicy: admissionregistrationv1.Equivalent,
		sideEffects: admissionregistrationv1.SideEffectClassUnknown, timeoutSeconds: 10,
		reinvocationPolicy: admissionregistrationv1.NeverReinvocationPolicy}
	if fp != nil {
		h.failurePolicy = *fp
	}
	if mp != nil {
		h.matchPolicy = *mp
	}
	if se != nil {
		h.sideEffects = *se
	}
	if timeout != nil {
		h.timeoutSeconds = *timeout
	}
	if rp != nil {
		h.reinvocationPolicy = *rp
	}
	h.namespaceSelector = selectorOrEverything(nsSel)
	h.objectSelector = selectorOrEverything(objSel)
	for _, c := range conds {
		h.matchConditions = append(h.matchConditions, MatchCondition{Name: c.Name, Expression: c.Expression})
	}
	return h
}

// selectorOrEverything: a missing selector (defaulting makes it {}) selects
// everything; a selector validation would have refused selects nothing.
func selectorOrEverything(ps *metav1.LabelSelector) selection.LabelSelector {
	if ps == nil {
		return selection.Everything()
	}
	sel, err := selection.FromLabelSelector(ps)
	if err != nil {
		return selection.Nothing()
	}
	return sel
}

// hooks returns the current webhooks of one kind; callers only read them.
func (s *Source) hooks(mutating bool) []*hook {
	s.mu.RLock()
	defer s.mu.RUnlock()
	if mutating {
		return s.mhooks
	}
	return s.vhooks
}

// HasWebhooks reports whether any webhook is configured.
func (s *Source) HasWebhooks() bool {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return len(s.vhooks)+len(s.mhooks) > 0
}
