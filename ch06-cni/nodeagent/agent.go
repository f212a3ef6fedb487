package nodeagent

import (
	"context"
	"fmt"
	"log/slog"
	"maps"
	"net/netip"
	"time"

	"github.com/coreos/go-iptables/iptables"
	"github.com/vishvananda/netlink"

	"kubik/ch01-apiserver/api/corev1"
	"kubik/ch03-scheduler/clientgo/rest"
	"kubik/ch03-scheduler/clientgo/tools/cache"
	"kubik/ch06-cni/ipam"
	"kubik/ch06-cni/kubikcni"
	"kubik/ch06-cni/networkpolicy"
)

// agent is one running node agent. Everything after start-up happens on
// the goroutine of Run, so nothing here needs a lock.
type agent struct {
	cfg      Config
	log      *slog.Logger
	client   *rest.Client
	nodes    *cache.Informer[corev1.Node, *corev1.Node]
	iface    netlink.Link
	publicIP netip.Addr
	ipt      *iptables.IPTables
	backend  backend
	subnet   netip.Prefix      // this node's podCIDR
	want     map[string]string // this node's annotations
	skipped  map[string]string // node → why it gets no routes, as last logged
}

// Run runs the agent until ctx ends. It returns an error only for a
// configuration it cannot work with; failures to reach the apiserver or
// to program the kernel are logged and retried.
func Run(ctx context.Context, cfg Config) error {
	if err := cfg.complete(); err != nil {
		return err
	}
	a := &agent{cfg: cfg, log: cfg.Logger.With("component", "kubik-node-agent", "node", cfg.NodeName),
		skipped: map[string]string{}}
	if err := a.init(); err != nil {
		return err
	}

	// One informer for all Nodes; every change pokes the loop below.
	changed := make(chan struct{}, 1)
	poke := func() {
		select {
		case changed <- struct{}{}:
		default:
		}
	}
	a.nodes = cache.New[corev1.Node](a.client, cache.Options{Logger: cfg.Logger})
	a.nodes.AddEventHandler(cache.ResourceEventHandlerFuncs[corev1.Node]{
		AddFunc:    func(*corev1.Node) { poke() },
		UpdateFunc: func(_, _ *corev1.Node) { poke() },
		DeleteFunc: func(*corev1.Node) { poke() },
	})
	go a.nodes.Run(ctx)
	if !cache.WaitForCacheSync(ctx, a.nodes.HasSynced) {
		return nil
	}

	subnet, err := a.waitForPodCIDR(ctx, changed)
	if err != nil || ctx.Err() != nil {
		return err
	}
	a.subnet = subnet
	a.log.Info("node's pod subnet", "podCIDR", subnet, "backend", a.backend.Type(), "publicIP", a.publicIP, "mtu", a.backend.MTU())

	// Start-up: everything in place before the CNI configuration appears.
	for backoff := time.Second; ; backoff = min(2*backoff, a.cfg.ResyncPeriod) {
		err := a.setUp(ctx)
		if err == nil {
			break
		}
		a.log.Warn("setting up the node's network failed; retrying", "err", err, "after", backoff)
		if sleep(ctx, backoff) != nil {
			return nil
		}
	}
	a.syncPeers()
	go networkpolicy.Run(ctx, a.client, networkpolicy.Config{
		NodeName:     a.cfg.NodeName,
		NodeIPs:      []netip.Addr{a.publicIP, ipam.Gateway(a.subnet)},
		ResyncPeriod: a.cfg.ResyncPeriod,
		Logger:       a.cfg.Logger,
	})
	if err := a.ensureCNIConfList(); err != nil {
		a.log.Warn("writing the CNI configuration failed; retrying at the next resync", "err", err)
	}

	resync := time.NewTicker(a.cfg.ResyncPeriod)
	defer resync.Stop()
	for {
		select {
		case <-ctx.Done():
			return nil
		case <-changed:
			a.syncPeers()
		case <-resync.C:
			if err := a.setUp(ctx); err != nil {
				a.log.Warn("resync of the node's network failed", "err", err)
			}
			a.syncPeers()
			if err := a.ensureCNIConfList(); err != nil {
				a.log.Warn("writing the CNI configuration failed", "err", err)
			}
		}
	}
}

// init connects to the apiserver, finds the interface and its address,
// and picks the backend.
func (a *agent) init() error {
	var err error
	if a.client, err = rest.New(a.cfg.Kubeconfig, "kubik-node-agent/"+a.cfg.NodeName); err != nil {
		return err
	}
	if a.iface, err = netlink.LinkByName(a.cfg.Interface); err != nil {
		return fmt.Errorf("interface %s: %w", a.cfg.Interface, err)
	}
	a.publicIP = a.cfg.PublicIP
	if !a.publicIP.IsValid() {
		if a.publicIP, err = firstIPv4(a.iface); err != nil {
			return err
		}
	}
	if a.ipt, err = iptables.NewWithProtocol(iptables.ProtocolIPv4); err != nil {
		return err
	}
	switch a.cfg.Backend {
	case BackendVXLAN:
		a.backend = &vxlan{iface: a.iface, publicIP: a.publicIP, log: a.log}
	default:
		a.backend = &hostGW{iface: a.iface, log: a.log}
	}
	return nil
}

func firstIPv4(link netlink.Link) (netip.Addr, error) {
	addrs, err := retryInterrupted(func() ([]netlink.Addr, error) { return netlink.AddrList(link, netlink.FAMILY_V4) })
	if err != nil {
		return netip.Addr{}, err
	}
	for _, a := range addrs {
		if p, ok := prefixOf(a.IPNet); ok && p.Addr().IsGlobalUnicast() {
			return p.Addr(), nil
		}
	}
	return netip.Addr{}, fmt.Errorf("interface %s has no IPv4 address", link.Attrs().Name)
}

// waitForPodCIDR waits until this node's Node has a podCIDR (the
// node-ipam controller sets it) and checks it lies in the cluster CIDR.
func (a *agent) waitForPodCIDR(ctx context.Context, changed <-chan struct{}) (netip.Prefix, error) {
	said := ""
	for {
		n, ok := a.nodes.GetStore().Get("", a.cfg.NodeName)
		var why string
		if !ok {
			why = "no Node object yet"
		} else if p, err := podCIDR(n); err != nil {
			why = err.Error()
		} else if p.Bits() < a.cfg.ClusterCIDR.Bits() || !a.cfg.ClusterCIDR.Contains(p.Addr()) {
			return netip.Prefix{}, fmt.Errorf("node %s: podCIDR %s is not inside the cluster CIDR %s", a.cfg.NodeName, p, a.cfg.ClusterCIDR)
		} else {
			return p, nil
		}
		if why != said {
			a.log.Info("waiting for the node's spec.podCIDR", "reason", why)
			said = why
		}
		select {
		case <-ctx.Done():
			return netip.Prefix{}, nil
		case <-changed:
		}
	}
}

// setUp writes the subnet file, sets up the backend, the iptables rules
// and the node's annotations: each step only when it is not already so.
func (a *agent) setUp(ctx context.Context) error {
	sc := kubikcni.SubnetConfig{Network: a.cfg.ClusterCIDR, Subnet: a.subnet, MTU: a.backend.MTU()}
	if wrote, err := ensureSubnetFile(a.cfg.SubnetFile, sc); err != nil {
		return fmt.Errorf("subnet file: %w", err)
	} else if wrote {
		a.log.Info("subnet file written", "path", a.cfg.SubnetFile, "network", sc.Network, "subnet", sc.Subnet, "mtu", sc.MTU)
	}
	data, err := a.backend.SetUp(a.subnet)
	if err != nil {
		return fmt.Errorf("%s backend: %w", a.backend.Type(), err)
	}
	for _, cr := range []chainRules{
		masqRules(a.cfg.ClusterCIDR, a.subnet, a.ipt.HasRandomFully()),
		forwardRules(a.cfg.ClusterCIDR),
	} {
		if err := ensureChain(a.ipt, cr, a.log); err != nil {
			return fmt.Errorf("iptables %s %s: %w", cr.Table, cr.Chain, err)
		}
	}
	a.want = nodeAnnotations(a.backend.Type(), data, a.publicIP.String())
	return a.publishAnnotations(ctx)
}

// publishAnnotations patches this node's annotations unless the informer
// already shows them.
func (a *agent) publishAnnotations(ctx context.Context) error {
	if n, ok := a.nodes.GetStore().Get("", a.cfg.NodeName); ok && hasAnnotations(n, a.want) {
		return nil
	}
	if err := publishAnnotations(ctx, a.client, a.cfg.NodeName, a.want); err != nil {
		if rest.IsNotFound(err) {
			return fmt.Errorf("node %s is gone", a.cfg.NodeName)
		}
		return fmt.Errorf("patching node %s's annotations: %w", a.cfg.NodeName, err)
	}
	a.log.Info("node annotations published", "annotations", maps.Clone(a.want))
	return nil
}

// syncPeers programs the backend for the Nodes in the informer's cache.
func (a *agent) syncPeers() {
	peers, skipped := peersFor(a.backend.Type(), a.cfg.NodeName, a.cfg.ClusterCIDR, a.subnet, a.nodes.GetStore().List())
	now := map[string]string{}
	for _, s := range skipped {
		now[s.Node] = s.Reason
		if a.skipped[s.Node] != s.Reason {
			a.log.Info("node gets no route", "peer", s.Node, "reason", s.Reason)
		}
	}
	a.skipped = now
	if err := a.backend.Sync(peers, a.cfg.ClusterCIDR, a.subnet); err != nil {
		a.log.Warn("programming the routes to the other nodes failed", "err", err)
	}
}

func (a *agent) ensureCNIConfList() error {
	if a.cfg.CNIConfPath == "" {
		return nil
	}
	wrote, err := ensureCNIConfList(a.cfg.CNIConfPath, a.cfg.CNIConfList)
	if err == nil && wrote {
		a.log.Info("CNI configuration written", "path", a.cfg.CNIConfPath)
	}
	return err
}

func sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}
