package kubik

import (
	"context"
	"net"
	"net/http"
	"strconv"
	"sync"
	"time"

	"github.com/containernetworking/plugins/pkg/ns"
)

// Health checks, as a cloud's balancer does them: every 5 s, from the
// balancer's namespace, GET http://<node>:<port>/healthz for each balancer
// and each of its nodes, where port is
//
//   - the Service's healthCheckNodePort when its externalTrafficPolicy is
//     Local: kube-proxy answers 200 there only on nodes with one of the
//     Service's pods, so only those get its traffic;
//   - else kube-proxy's own health port, 10256: 200 while kube-proxy keeps
//     the node's rules up to date (upstream's providers check it for
//     externalTrafficPolicy: Cluster since 1.28).
//
// A node that failed twice in a row gets no new connections from that
// balancer until it passes once. When every node of a balancer fails, all
// of them get traffic again: a balancer that is sure of nothing does not
// shut its Service off (GCE and AWS do the same).

const (
	// KubeProxyHealthzPort is kube-proxy's --healthz-bind-address port.
	KubeProxyHealthzPort = 10256
	healthCheckInterval  = 5 * time.Second
	healthCheckTimeout   = 2 * time.Second
	unhealthyThreshold   = 2
)

type healthChecker struct {
	interval time.Duration
	port     int32 // kube-proxy's health port

	mu    sync.Mutex
	fails map[string]int // by balancer name + "/" + node IP
}

func newHealthChecker() *healthChecker {
	return &healthChecker{interval: healthCheckInterval, port: KubeProxyHealthzPort, fails: map[string]int{}}
}

// healthy: the backend has not failed unhealthyThreshold checks in a row
// (one never checked is healthy).
func (h *healthChecker) healthy(lb, ip string) bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.fails[lb+"/"+ip] < unhealthyThreshold
}

// healthyBackends are the backends of lb to send to.
func healthyBackends(lb *loadBalancerRecord, healthy func(lb, ip string) bool) []backend {
	var out []backend
	for _, be := range lb.Backends {
		if healthy == nil || healthy(lb.Name, be.IP) {
			out = append(out, be)
		}
	}
	if len(out) == 0 {
		return lb.Backends // fail open
	}
	return out
}

// runHealthChecks checks every interval until ctx ends, and programs the
// balancer again when a backend changed state.
func (c *Cloud) runHealthChecks(ctx context.Context) {
	tr := &http.Transport{DisableKeepAlives: true, DialContext: func(ctx context.Context, network, addr string) (conn net.Conn, err error) {
		err = ns.WithNetNSPath(c.balancer.path(), func(ns.NetNS) error {
			conn, err = (&net.Dialer{Timeout: healthCheckTimeout}).DialContext(ctx, network, addr)
			return err
		})
		return conn, err
	}}
	defer tr.CloseIdleConnections()
	client := &http.Client{Transport: tr, Timeout: healthCheckTimeout}
	for {
		select {
		case <-ctx.Done():
			return
		case <-time.After(c.health.interval):
		}
		if c.checkOnce(ctx, client) {
			if err := c.Resync(); err != nil {
				c.log.Error("programming the balancer", "err", err)
			}
		}
	}
}

// checkOnce checks every backend once; it reports whether one of them
// became healthy or unhealthy.
func (c *Cloud) checkOnce(ctx context.Context, client *http.Client) bool {
	c.mu.Lock()
	st, err := c.records.read()
	c.mu.Unlock()
	if err != nil {
		c.log.Error("health checks: reading the records", "err", err)
		return false
	}
	type result struct {
		key, service, node string
		ok                 bool
	}
	results := make(chan result)
	var wg sync.WaitGroup
	keep := map[string]bool{}
	for _, lb := range st.LoadBalancers {
		port := c.health.port
		if lb.HealthCheckNodePort != 0 {
			port = lb.HealthCheckNodePort
		}
		for _, be := range lb.Backends {
			key := lb.Name + "/" + be.IP
			keep[key] = true
			url := "http://" + net.JoinHostPort(be.IP, strconv.Itoa(int(port))) + "/healthz"
			wg.Go(func() {
				ok := false
				if resp, err := client.Get(url); err == nil {
					ok = resp.StatusCode == http.StatusOK
					resp.Body.Close()
				}
				select {
				case results <- result{key, lb.Service, be.Node, ok}:
				case <-ctx.Done():
				}
			})
		}
	}
	go func() { wg.Wait(); close(results) }()
	changed := false
	for r := range results {
		h := c.health
		h.mu.Lock()
		before := h.fails[r.key] < unhealthyThreshold
		if r.ok {
			delete(h.fails, r.key)
		} else {
			h.fails[r.key]++
		}
		after := h.fails[r.key] < unhealthyThreshold
		h.mu.Unlock()
		if before != after {
			changed = true
			if after {
				c.log.Info("load balancer backend healthy again", "service", r.service, "node", r.node)
			} else {
				c.log.Warn("load balancer backend unhealthy", "service", r.service, "node", r.node)
			}
		}
	}
	c.health.mu.Lock()
	for key := range c.health.fails {
		if !keep[key] {
			delete(c.health.fails, key)
		}
	}
	c.health.mu.Unlock()
	return changed
}
