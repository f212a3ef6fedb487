// Package metrics keeps a few of kube-proxy's Prometheus metrics (under
// their upstream names, prefixed kubeproxy_) and writes them in the text
// exposition format for --metrics-bind-address's /metrics.
//
// Upstream: k8s.io/kubernetes/pkg/proxy/metrics (which uses
// component-base's Prometheus registry; this is a minimal stand-in).
package metrics

import (
	"fmt"
	"io"
	"sort"
	"sync"
	"time"
)

var (
	mu     sync.Mutex
	values = map[string]float64{}
	help   = map[string]string{
		"kubeproxy_sync_proxy_rules_duration_seconds_sum":            "SyncProxyRules latency in seconds (sum)",
		"kubeproxy_sync_proxy_rules_duration_seconds_count":          "SyncProxyRules latency in seconds (count)",
		"kubeproxy_sync_full_proxy_rules_duration_seconds_count":     "Full SyncProxyRules runs",
		"kubeproxy_sync_partial_proxy_rules_duration_seconds_count":  "Partial SyncProxyRules runs",
		"kubeproxy_sync_proxy_rules_last_timestamp_seconds":          "The last time proxy rules were successfully synced",
		"kubeproxy_sync_proxy_rules_iptables_total":                  "Total number of iptables rules owned by kube-proxy",
		"kubeproxy_sync_proxy_rules_iptables_restore_failures_total": "Cumulative proxy iptables restore failures",
		"kubeproxy_sync_proxy_rules_nftables_sync_failures_total":    "Cumulative proxy nftables sync failures",
	}
)

// Add adds v to the named value.
func Add(name string, v float64) {
	mu.Lock()
	values[name] += v
	mu.Unlock()
}

// Set sets the named value.
func Set(name string, v float64) {
	mu.Lock()
	values[name] = v
	mu.Unlock()
}

// ObserveSync records one sync of the given duration.
func ObserveSync(d time.Duration, full bool) {
	mu.Lock()
	defer mu.Unlock()
	values["kubeproxy_sync_proxy_rules_duration_seconds_sum"] += d.Seconds()
	values["kubeproxy_sync_proxy_rules_duration_seconds_count"]++
	if full {
		values["kubeproxy_sync_full_proxy_rules_duration_seconds_count"]++
	} else {
		values["kubeproxy_sync_partial_proxy_rules_duration_seconds_count"]++
	}
}

// WriteText writes every value in the Prometheus text format.
func WriteText(w io.Writer) {
	mu.Lock()
	defer mu.Unlock()
	names := make([]string, 0, len(values))
	for n := range values {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		if h, ok := help[n]; ok {
			fmt.Fprintf(w, "# HELP %s %s\n", n, h)
		}
		fmt.Fprintf(w, "%s %g\n", n, values[n])
	}
}
