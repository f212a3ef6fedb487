package resourcequota

import (
	"context"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"time"

	"kubik/ch01-apiserver/api/corev1"
	"kubik/ch01-apiserver/api/metav1"
	"kubik/ch01-apiserver/api/scheme"
	"kubik/ch01-apiserver/apiserver/quota"
	"kubik/ch03-scheduler/clientgo/rest"
	"kubik/ch03-scheduler/clientgo/tools/cache"
	"kubik/ch04-controllers/controller"
)

// quotaMonitor counts the objects of the resources a quota names as
// count/<resource>[.<group>] beyond the kinds known from the start: the
// first quota naming one finds it in discovery and starts a metadata-only
// informer for it, whose events replenish the quotas of the object's
// namespace. A name no served resource matches is not measured until
// discovery, read again every sync period (Controller.Sync), serves it: a
// CustomResourceDefinition created after the quota.
// Upstream: QuotaMonitor (resource_quota_monitor.go), which watches every
// discovered resource from the start.
type quotaMonitor struct {
	client    *rest.Client
	log       *slog.Logger
	known     map[string]bool // group resources with their own evaluator
	replenish func(groupResource, namespace string)
	// syncPeriod bounds how often a name not found is looked up again.
	syncPeriod time.Duration

	mu          sync.Mutex
	ctx         context.Context
	discovered  map[string]*scheme.Resource // by group resource
	lastRefresh time.Time
	evaluators  map[string]quota.Evaluator
}

// ignoredResources are never counted: events have never been quota'd.
// Upstream: install.ignoredResources (the virtual review resources there
// cannot be listed anyway).
var ignoredResources = map[string]bool{"events": true, "events.events.k8s.io": true}

func newQuotaMonitor(c *rest.Client, log *slog.Logger, known map[string]bool, replenish func(string, string), syncPeriod time.Duration) *quotaMonitor {
	return &quotaMonitor{client: c, log: log, known: known, replenish: replenish, syncPeriod: syncPeriod,
		evaluators: map[string]quota.Evaluator{}}
}

// measured: gr is counted by a known evaluator, an object count evaluator
// already made, or never (ignored).
func (m *quotaMonitor) measured(gr string) bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	_, ok := m.evaluators[gr]
	return ok || m.known[gr] || ignoredResources[gr]
}

// discoverLocked reads discovery again: the namespaced resources that can
// be listed and watched.
func (m *quotaMonitor) discoverLocked(ctx context.Context) error {
	resources, err := controller.ServerPreferredResources(ctx, m.client)
	if err != nil && len(resources) == 0 {
		return fmt.Errorf("discovery: %w", err)
	}
	m.lastRefresh = time.Now()
	m.discovered = map[string]*scheme.Resource{}
	for _, res := range controller.SupportsAllVerbs(resources, "list", "watch") {
		if res.Namespaced {
			m.discovered[res.GroupResource()] = res
		}
	}
	return nil
}

// newlyServed reads discovery again and returns which of wanted (group
// resources not measured yet) are now served.
func (m *quotaMonitor) newlyServed(ctx context.Context, wanted map[string]bool) ([]string, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if err := m.discoverLocked(ctx); err != nil {
		return nil, err
	}
	var out []string
	for gr := range wanted {
		if m.discovered[gr] != nil {
			out = append(out, gr)
		}
	}
	return out, nil
}

// Run records the context the informers run in.
func (m *quotaMonitor) Run(ctx context.Context) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.ctx = ctx
}

// evaluatorsFor returns the evaluators of the count/ names among names
// that no known evaluator computes, starting their informers if needed.
func (m *quotaMonitor) evaluatorsFor(ctx context.Context, names []corev1.ResourceName) ([]quota.Evaluator, error) {
	var out []quota.Evaluator
	for _, n := range names {
		gr, ok := strings.CutPrefix(string(n), "count/")
		if !ok || m.known[gr] || ignoredResources[gr] {
			continue
		}
		e, err := m.evaluator(ctx, gr)
		if err != nil {
			return nil, err
		}
		if e != nil {
			out = append(out, e)
		}
	}
	return out, nil
}

func (m *quotaMonitor) evaluator(ctx context.Context, gr string) (quota.Evaluator, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if e, ok := m.evaluators[gr]; ok {
		return e, nil
	}
	r := m.discovered[gr]
	if r == nil && time.Since(m.lastRefresh) > m.syncPeriod {
		if err := m.discoverLocked(ctx); err != nil {
			return nil, err
		}
		r = m.discovered[gr]
	}
	if r == nil || m.ctx == nil {
		return nil, nil
	}
	inf := cache.New[metav1.PartialObjectMetadata](m.client, cache.Options{Resource: r, Logger: m.log})
	cache.AddNamespaceIndex(inf)
	ns := func(o *metav1.PartialObjectMetadata) string { return o.Namespace }
	inf.AddEventHandler(cache.ResourceEventHandlerFuncs[metav1.PartialObjectMetadata]{
		AddFunc:    func(o *metav1.PartialObjectMetadata) { m.replenish(gr, ns(o)) },
		DeleteFunc: func(o *metav1.PartialObjectMetadata) { m.replenish(gr, ns(o)) },
	})
	go inf.Run(m.ctx)
	m.log.Info("QuotaMonitor created object count evaluator", "resource", gr)
	e := quota.NewObjectCountEvaluator(gr, listSynced(gr, inf), "")
	m.evaluators[gr] = e
	return e, nil
}
