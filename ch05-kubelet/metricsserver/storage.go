package metricsserver

// Storage: the last two scrapes of each node, and the usage they give, as
// upstream's pkg/storage computes it: CPU is the rate between the two
// cumulative readings (core-seconds over seconds), memory the last working
// set; the window is the time between the readings.

import (
	"math"
	"sync"
	"time"

	"kubik/ch01-apiserver/api/corev1"
	"kubik/ch01-apiserver/api/resource"
)

// usage is what the API serves for one node or container.
type usage struct {
	ts     time.Time
	window time.Duration
	cpu    resource.Quantity
	memory resource.Quantity
}

type nodeScrapes struct{ prev, last *batch }

type storage struct {
	mu    sync.Mutex
	nodes map[string]*nodeScrapes
}

func newStorage() *storage { return &storage{nodes: map[string]*nodeScrapes{}} }

// store keeps b as the node's latest scrape; nodes not in keep are dropped.
func (s *storage) store(scraped map[string]*batch, keep map[string]bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for name := range s.nodes {
		if !keep[name] {
			delete(s.nodes, name)
		}
	}
	for name, b := range scraped {
		ns := s.nodes[name]
		if ns == nil {
			ns = &nodeScrapes{}
			s.nodes[name] = ns
		}
		ns.prev, ns.last = ns.last, b
	}
}

// rate is the usage between two points, false when they do not give one
// (one reading only, a restart in between, time not moving forward).
func rate(prev, last point) (usage, bool) {
	if !prev.hasCPU || !last.hasCPU || !last.hasMem || !last.ts.After(prev.ts) || !prev.start.Equal(last.start) || last.cpu < prev.cpu {
		return usage{}, false
	}
	window := last.ts.Sub(prev.ts)
	nanocores := (last.cpu - prev.cpu) / window.Seconds() * 1e9
	return usage{ts: last.ts, window: window,
		cpu:    *resource.NewScaledQuantity(int64(math.Round(nanocores)), -9),
		memory: *resource.NewQuantity(int64(last.memory), resource.BinarySI)}, true
}

// nodeUsage is node name's usage, if two scrapes give one.
func (s *storage) nodeUsage(name string) (usage, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	ns := s.nodes[name]
	if ns == nil || ns.prev == nil || !ns.prev.hasNode || !ns.last.hasNode {
		return usage{}, false
	}
	return rate(ns.prev.node, ns.last.node)
}

// containerUsage is one named container's usage.
type containerUsage struct {
	name string
	usage
}

// podUsage is the usage of each container of pod namespace/name found on
// node, only when every container it reported has one (upstream leaves
// a pod out rather than show part of it).
func (s *storage) podUsage(node, namespace, name string) ([]containerUsage, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	ns := s.nodes[node]
	if ns == nil || ns.prev == nil {
		return nil, false
	}
	var out []containerUsage
	for k, last := range ns.last.containers {
		if k.namespace != namespace || k.pod != name {
			continue
		}
		prev, ok := ns.prev.containers[k]
		if !ok {
			return nil, false
		}
		u, ok := rate(prev, last)
		if !ok {
			return nil, false
		}
		out = append(out, containerUsage{k.container, u})
	}
	return out, len(out) > 0
}

// podNode is the node a pod's metrics are read from.
func podNode(p *corev1.Pod) string { return p.Spec.NodeName }
