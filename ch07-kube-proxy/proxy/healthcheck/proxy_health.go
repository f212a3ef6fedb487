package healthcheck

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"sync"
	"time"

	"kubik/ch01-apiserver/api/corev1"
)

// ToBeDeletedTaint is the cluster autoscaler's taint on a node it removes:
// /healthz fails so load balancers drain the node first.
const ToBeDeletedTaint = "ToBeDeletedByClusterAutoscaler"

// ProxierHealth is one IP family's proxier state.
type ProxierHealth struct {
	LastUpdated time.Time `json:"lastUpdated"`
	Healthy     bool      `json:"healthy"`
}

// ProxyHealth is the JSON body of /healthz and /livez.
type ProxyHealth struct {
	LastUpdated  time.Time                         `json:"lastUpdated"`
	CurrentTime  time.Time                         `json:"currentTime"`
	NodeEligible *bool                             `json:"nodeEligible,omitempty"`
	Healthy      bool                              `json:"healthy"`
	Status       map[corev1.IPFamily]ProxierHealth `json:"status,omitempty"`
}

// ProxyHealthServer tracks whether the proxier's syncs keep up: it is
// unhealthy when a queued change has waited longer than healthTimeout
// (2 × --iptables-sync-period) without a successful sync.
type ProxyHealthServer struct {
	addr          string
	healthTimeout time.Duration
	node          func() *corev1.Node // the own Node from the informer (nil: not known yet)
	now           func() time.Time

	lock                   sync.RWMutex
	lastUpdatedMap         map[corev1.IPFamily]time.Time
	oldestPendingQueuedMap map[corev1.IPFamily]time.Time
}

// NewProxyHealthServer returns a server for addr; node returns this node's
// Node object (or nil).
func NewProxyHealthServer(addr string, healthTimeout time.Duration, node func() *corev1.Node) *ProxyHealthServer {
	return &ProxyHealthServer{addr: addr, healthTimeout: healthTimeout, node: node, now: time.Now,
		lastUpdatedMap: map[corev1.IPFamily]time.Time{}, oldestPendingQueuedMap: map[corev1.IPFamily]time.Time{}}
}

// Updated records a successful sync of ipFamily's rules.
func (hs *ProxyHealthServer) Updated(ipFamily corev1.IPFamily) {
	hs.lock.Lock()
	defer hs.lock.Unlock()
	delete(hs.oldestPendingQueuedMap, ipFamily)
	hs.lastUpdatedMap[ipFamily] = hs.now()
}

// QueuedUpdate records that a change is waiting for a sync.
func (hs *ProxyHealthServer) QueuedUpdate(ipFamily corev1.IPFamily) {
	hs.lock.Lock()
	defer hs.lock.Unlock()
	if _, set := hs.oldestPendingQueuedMap[ipFamily]; !set {
		hs.oldestPendingQueuedMap[ipFamily] = hs.now()
	}
}

// Health is the current state.
func (hs *ProxyHealthServer) Health() ProxyHealth {
	health := ProxyHealth{Healthy: true, Status: map[corev1.IPFamily]ProxierHealth{}}
	hs.lock.RLock()
	defer hs.lock.RUnlock()
	var lastUpdated time.Time
	for family, t := range hs.lastUpdatedMap {
		if t.After(lastUpdated) {
			lastUpdated = t
		}
		health.Status[family] = ProxierHealth{LastUpdated: t, Healthy: true}
	}
	now := hs.now()
	health.CurrentTime = now
	for family, t := range hs.lastUpdatedMap {
		queued, set := hs.oldestPendingQueuedMap[family]
		if !set || now.Sub(queued) < hs.healthTimeout {
			continue
		}
		health.Healthy = false
		health.Status[family] = ProxierHealth{LastUpdated: t, Healthy: false}
	}
	health.LastUpdated = lastUpdated
	return health
}

// NodeEligible: the Node is known, not being deleted, not tainted for deletion.
func (hs *ProxyHealthServer) NodeEligible() bool {
	if hs.node == nil {
		return false
	}
	node := hs.node()
	if node == nil || node.DeletionTimestamp != nil {
		return false
	}
	for _, taint := range node.Spec.Taints {
		if taint.Key == ToBeDeletedTaint {
			return false
		}
	}
	return true
}

// Handler serves /healthz and /livez.
func (hs *ProxyHealthServer) Handler() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("/healthz", func(w http.ResponseWriter, _ *http.Request) {
		health := hs.Health()
		eligible := hs.NodeEligible()
		health.NodeEligible = &eligible
		hs.write(w, health, health.Healthy && eligible)
	})
	mux.HandleFunc("/livez", func(w http.ResponseWriter, _ *http.Request) {
		health := hs.Health()
		hs.write(w, health, health.Healthy)
	})
	return mux
}

func (hs *ProxyHealthServer) write(w http.ResponseWriter, health ProxyHealth, healthy bool) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("X-Content-Type-Options", "nosniff")
	if !healthy {
		w.WriteHeader(http.StatusServiceUnavailable)
	} else {
		w.WriteHeader(http.StatusOK)
		health.LastUpdated = hs.now()
	}
	out, _ := json.Marshal(health)
	fmt.Fprint(w, string(out))
}

// Run serves until ctx ends.
func (hs *ProxyHealthServer) Run(ctx context.Context) error {
	l, err := net.Listen("tcp", hs.addr)
	if err != nil {
		return fmt.Errorf("failed to start proxy healthz on %s: %w", hs.addr, err)
	}
	srv := &http.Server{Handler: hs.Handler(), ReadHeaderTimeout: 10 * time.Second}
	go func() { <-ctx.Done(); _ = srv.Close() }()
	if err := srv.Serve(l); err != nil && err != http.ErrServerClosed {
		return fmt.Errorf("proxy healthz closed with error: %w", err)
	}
	return nil
}
