package networkpolicy

import (
	"context"
	"log/slog"
	"maps"
	"net/netip"
	"os/exec"
	"time"

	"kubik/ch01-apiserver/api/corev1"
	"kubik/ch01-apiserver/api/networkingv1"
	"kubik/ch03-scheduler/clientgo/rest"
	"kubik/ch03-scheduler/clientgo/tools/cache"
)

// Defaults of Config.
const (
	DefaultResyncPeriod  = 30 * time.Second
	DefaultMinSyncPeriod = 500 * time.Millisecond
)

// Config is what Run needs besides a client.
type Config struct {
	NodeName string
	// NodeIPs are the node's own addresses (its interface's and its pod
	// bridge's): they always reach the node's pods.
	NodeIPs []netip.Addr
	// ResyncPeriod is how often the table is rewritten even without a
	// change, repairing whatever else touched it.
	ResyncPeriod time.Duration
	// MinSyncPeriod is the least time between two syncs: changes that
	// come faster are applied together (kube-proxy's --min-sync-period).
	MinSyncPeriod time.Duration
	Logger        *slog.Logger
}

// Run keeps the node's table in step with the Pods, Namespaces and
// NetworkPolicies until ctx ends.
func Run(ctx context.Context, client *rest.Client, cfg Config) {
	if cfg.ResyncPeriod <= 0 {
		cfg.ResyncPeriod = DefaultResyncPeriod
	}
	if cfg.MinSyncPeriod <= 0 {
		cfg.MinSyncPeriod = DefaultMinSyncPeriod
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	log := cfg.Logger.With("component", "network-policy", "node", cfg.NodeName)
	if _, err := exec.LookPath("nft"); err != nil {
		log.Error("NetworkPolicy is not enforced on this node: nft is missing", "err", err)
		return
	}

	changed := make(chan struct{}, 1)
	poke := func() {
		select {
		case changed <- struct{}{}:
		default:
		}
	}
	pods := cache.New[corev1.Pod](client, cache.Options{Logger: cfg.Logger})
	namespaces := cache.New[corev1.Namespace](client, cache.Options{Logger: cfg.Logger})
	policies := cache.New[networkingv1.NetworkPolicy](client, cache.Options{Logger: cfg.Logger})
	pods.AddEventHandler(cache.ResourceEventHandlerFuncs[corev1.Pod]{
		AddFunc:    func(*corev1.Pod) { poke() },
		UpdateFunc: func(old, p *corev1.Pod) { podChanged(old, p, poke) },
		DeleteFunc: func(*corev1.Pod) { poke() },
	})
	namespaces.AddEventHandler(cache.ResourceEventHandlerFuncs[corev1.Namespace]{
		AddFunc:    func(*corev1.Namespace) { poke() },
		UpdateFunc: func(_, _ *corev1.Namespace) { poke() },
		DeleteFunc: func(*corev1.Namespace) { poke() },
	})
	policies.AddEventHandler(cache.ResourceEventHandlerFuncs[networkingv1.NetworkPolicy]{
		AddFunc:    func(*networkingv1.NetworkPolicy) { poke() },
		UpdateFunc: func(_, _ *networkingv1.NetworkPolicy) { poke() },
		DeleteFunc: func(*networkingv1.NetworkPolicy) { poke() },
	})
	go pods.Run(ctx)
	go namespaces.Run(ctx)
	go policies.Run(ctx)
	if !cache.WaitForCacheSync(ctx, pods.HasSynced, namespaces.HasSynced, policies.HasSynced) {
		return
	}

	resync := time.NewTicker(cfg.ResyncPeriod)
	defer resync.Stop()
	var applied string
	var last time.Time
	force := true
	for {
		if wait := cfg.MinSyncPeriod - time.Since(last); wait > 0 {
			t := time.NewTimer(wait)
			select {
			case <-ctx.Done():
				t.Stop()
				return
			case <-t.C:
			}
		}
		select {
		case <-changed: // the changes of the wait are in this sync
		default:
		}
		last = time.Now()
		in := Input{NodeName: cfg.NodeName, NodeIPs: cfg.NodeIPs,
			Pods: pods.GetStore().List(), Namespaces: namespaces.GetStore().List(), Policies: policies.GetStore().List()}
		rs := Compute(in)
		script := Render(rs)
		if script != applied || force {
			if err := Apply(ctx, script); err != nil {
				if ctx.Err() != nil {
					return
				}
				log.Warn("writing the network policy table failed; retrying", "err", err)
				time.AfterFunc(cfg.ResyncPeriod/10, poke)
			} else {
				// A resync that rewrote the same rules is not news.
				level := slog.LevelInfo
				if script == applied {
					level = slog.LevelDebug
				}
				applied, force = script, false
				log.Log(ctx, level, "network policy table written", "table", "inet "+TableName, "policies", rs.Policies,
					"ingressPods", len(rs.Ingress), "egressPods", len(rs.Egress), "sets", len(rs.Sets)+len(rs.PortSets),
					"rules", rs.RuleCount(), "took", time.Since(last).Round(time.Millisecond))
			}
		}
		select {
		case <-ctx.Done():
			return
		case <-changed:
		case <-resync.C:
			force = true
		}
	}
}

// podChanged pokes for the changes of a pod that matter here: its
// labels, addresses, node and phase; not, say, its conditions.
func podChanged(old, p *corev1.Pod, poke func()) {
	if old.Spec.NodeName != p.Spec.NodeName || old.Status.PodIP != p.Status.PodIP ||
		old.Status.Phase != p.Status.Phase || len(old.Status.PodIPs) != len(p.Status.PodIPs) ||
		!maps.Equal(old.Labels, p.Labels) {
		poke()
	}
}

// RuleCount is the number of accept rules in the pods' chains.
func (rs *Ruleset) RuleCount() int {
	n := 0
	for _, ch := range rs.Ingress {
		n += len(ch.Rules)
	}
	for _, ch := range rs.Egress {
		n += len(ch.Rules)
	}
	return n
}
