package iptables

import (
	"bytes"
	"fmt"
	"log/slog"
	"net"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"kubik/ch01-apiserver/api/corev1"
	"kubik/ch01-apiserver/api/discoveryv1"
	"kubik/ch07-kube-proxy/proxy"
	"kubik/ch07-kube-proxy/proxy/conntrack"
	"kubik/ch07-kube-proxy/proxy/healthcheck"
	"kubik/ch07-kube-proxy/proxy/runner"
	proxyutil "kubik/ch07-kube-proxy/proxy/util"
)

const (
	sysctlRouteLocalnet           = "net/ipv4/conf/all/route_localnet"
	sysctlNFConntrackTCPBeLiberal = "net/netfilter/nf_conntrack_tcp_be_liberal"

	// The nfacct counters the rules count packets with.
	ctStateInvalidDroppedNFAcctCounter = "ct_state_invalid_dropped_pkts"
	localhostNodePortAcceptedCounter   = "localhost_nps_accepted_pkts"
)

// NFAcct creates nfacct counters (proxyutil.NFAcct, a fake in tests).
type NFAcct interface {
	Ensure(name string) error
}

// Config is what NewProxier needs; the zero values of the optional fields
// pick the real implementations.
type Config struct {
	IPTables      Interface
	SyncPeriod    time.Duration // retry interval and canary check interval (--iptables-sync-period)
	MinSyncPeriod time.Duration // --iptables-min-sync-period
	MasqueradeAll bool
	// LocalhostNodePorts: NodePorts answer on 127.0.0.1 too (sets route_localnet).
	LocalhostNodePorts bool
	MasqueradeBit      int // 14: mark 0x4000
	LocalDetector      proxyutil.LocalTrafficDetector
	NodeName           string
	NodeIP             net.IP
	HealthzServer      *healthcheck.ProxyHealthServer // may be nil
	NodePortAddresses  []string
	Logger             *slog.Logger

	// Optional (tests).
	Sysctl              proxyutil.Sysctl
	Conntrack           conntrack.Interface
	NFAcct              NFAcct
	NetworkInterfacer   proxyutil.NetworkInterfacer
	ServiceHealthServer healthcheck.ServiceHealthServer
}

// Proxier is an iptables-based proxy for one IP family.
type Proxier struct {
	ipFamily corev1.IPFamily

	// endpointsChanges and serviceChanges hold the changes since the last
	// sync (a Service's state before the first and after the last change).
	endpointsChanges *proxy.EndpointsChangeTracker
	serviceChanges   *proxy.ServiceChangeTracker

	mu             sync.Mutex // protects the following fields
	svcPortMap     proxy.ServicePortMap
	endpointsMap   proxy.EndpointsMap
	topologyLabels map[string]string
	// Syncs wait until both informers have delivered their initial lists,
	// so a restart never writes rules from half the state.
	endpointSlicesSynced bool
	servicesSynced       bool
	lastFullSync         time.Time
	needFullSync         bool
	initialized          atomic.Bool
	syncRunner           *runner.BoundedFrequencyRunner
	syncPeriod           time.Duration
	lastIPTablesCleanup  time.Time

	// Constant after construction.
	iptables            Interface
	masqueradeAll       bool
	masqueradeMark      string
	conntrack           conntrack.Interface
	nfacct              NFAcct
	localDetector       proxyutil.LocalTrafficDetector
	nodeName            string
	nodeIP              net.IP
	serviceHealthServer healthcheck.ServiceHealthServer
	healthzServer       *healthcheck.ProxyHealthServer
	localhostNodePorts  bool
	conntrackTCPLiberal bool
	nodePortAddresses   *proxyutil.NodePortAddresses
	networkInterfacer   proxyutil.NetworkInterfacer
	log                 *slog.Logger

	// precomputedProbabilities caches "%0.10f" of 1/n.
	precomputedProbabilities []string

	// Buffers reused by every sync.
	iptablesData *bytes.Buffer
	filterChains proxyutil.LineBuffer
	filterRules  proxyutil.LineBuffer
	natChains    proxyutil.LineBuffer
	natRules     proxyutil.LineBuffer

	// largeClusterMode: so many endpoints that comments are left out.
	largeClusterMode bool

	// nfAcctCounters records which counters exist (only those are used).
	nfAcctCounters map[string]bool
}

var _ proxy.Provider = &Proxier{}

// NewProxier returns an IPv4 iptables proxier. It sets route_localnet when
// localhost NodePorts are on, as upstream does.
func NewProxier(cfg Config) (*Proxier, error) {
	const ipFamily = corev1.IPv4Protocol
	log := cfg.Logger
	if log == nil {
		log = slog.Default().With("component", "kube-proxy")
	}
	log = log.With("ipFamily", string(ipFamily))
	sysctl := cfg.Sysctl
	if sysctl == nil {
		sysctl = proxyutil.ProcSysctl{}
	}
	nodePortAddresses := proxyutil.NewNodePortAddresses(ipFamily, cfg.NodePortAddresses)

	localhostNodePorts := cfg.LocalhostNodePorts
	if !nodePortAddresses.ContainsIPv4Loopback() {
		localhostNodePorts = false
	}
	if localhostNodePorts {
		// NodePorts on 127.0.0.1 need route_localnet (https://issues.k8s.io/90259);
		// the KUBE-FIREWALL rule below closes the hole it opens.
		log.Info("Setting route_localnet=1 to allow node-ports on localhost; to change this either disable iptables.localhostNodePorts (--iptables-localhost-nodeports) or set nodePortAddresses (--nodeport-addresses) to filter loopback addresses")
		if err := proxyutil.EnsureSysctl(sysctl, sysctlRouteLocalnet, 1); err != nil {
			return nil, err
		}
	}

	// With nf_conntrack_tcp_be_liberal only out-of-window RSTs are INVALID,
	// so there is no need to drop INVALID packets.
	conntrackTCPLiberal := false
	if v, err := sysctl.GetSysctl(sysctlNFConntrackTCPBeLiberal); err == nil && v != 0 {
		conntrackTCPLiberal = true
		log.Info("nf_conntrack_tcp_be_liberal set, not installing DROP rules for INVALID packets")
	}

	masqueradeMark := fmt.Sprintf("%#08x", 1<<uint(cfg.MasqueradeBit))

	p := &Proxier{
		ipFamily:                 ipFamily,
		svcPortMap:               make(proxy.ServicePortMap),
		serviceChanges:           proxy.NewServiceChangeTracker(ipFamily, newServiceInfo),
		endpointsMap:             make(proxy.EndpointsMap),
		endpointsChanges:         proxy.NewEndpointsChangeTracker(ipFamily, cfg.NodeName, newEndpointInfo),
		needFullSync:             true,
		syncPeriod:               cfg.SyncPeriod,
		iptables:                 cfg.IPTables,
		masqueradeAll:            cfg.MasqueradeAll,
		masqueradeMark:           masqueradeMark,
		conntrack:                cfg.Conntrack,
		nfacct:                   cfg.NFAcct,
		localDetector:            cfg.LocalDetector,
		nodeName:                 cfg.NodeName,
		nodeIP:                   cfg.NodeIP,
		serviceHealthServer:      cfg.ServiceHealthServer,
		healthzServer:            cfg.HealthzServer,
		localhostNodePorts:       localhostNodePorts,
		conntrackTCPLiberal:      conntrackTCPLiberal,
		nodePortAddresses:        nodePortAddresses,
		networkInterfacer:        cfg.NetworkInterfacer,
		log:                      log,
		precomputedProbabilities: make([]string, 0, 1001),
		iptablesData:             bytes.NewBuffer(nil),
		filterChains:             proxyutil.NewLineBuffer(),
		filterRules:              proxyutil.NewLineBuffer(),
		natChains:                proxyutil.NewLineBuffer(),
		natRules:                 proxyutil.NewLineBuffer(),
		nfAcctCounters: map[string]bool{
			ctStateInvalidDroppedNFAcctCounter: false,
			localhostNodePortAcceptedCounter:   false,
		},
	}
	if p.localDetector == nil {
		p.localDetector = proxyutil.NewNoOpLocalDetector()
	}
	if p.conntrack == nil {
		p.conntrack = conntrack.New()
	}
	if p.nfacct == nil {
		if n, err := proxyutil.NewNFAcct(); err == nil {
			p.nfacct = n
		} else {
			log.Error("Failed to create nfacct runner, nfacct based metrics won't be available", "err", err)
		}
	}
	if p.networkInterfacer == nil {
		p.networkInterfacer = proxyutil.RealNetwork{}
	}
	if p.serviceHealthServer == nil {
		p.serviceHealthServer = healthcheck.NewServiceHealthServer(cfg.NodeName, nodePortAddresses, cfg.HealthzServer, log)
	}
	// The runner runs a sync at most every MinSyncPeriod, retries a failed
	// one after SyncPeriod, and resyncs on its own every FullSyncPeriod.
	p.syncRunner = runner.NewBoundedFrequencyRunner("sync-runner", p.SyncProxyRules, cfg.MinSyncPeriod, cfg.SyncPeriod, proxyutil.FullSyncPeriod)
	return p, nil
}

// servicePortInfo is the iptables proxier's ServicePort: the base info and
// its chain names, computed once.
type servicePortInfo struct {
	*proxy.BaseServicePortInfo
	nameString             string // "ns/svc:port"
	clusterPolicyChainName Chain
	localPolicyChainName   Chain
	firewallChainName      Chain
	externalChainName      Chain
}

func newServiceInfo(port *corev1.ServicePort, service *corev1.Service, base *proxy.BaseServicePortInfo) proxy.ServicePort {
	svcPort := &servicePortInfo{BaseServicePortInfo: base}
	svcPortName := proxy.ServicePortName{NamespacedName: proxy.NamespacedName{Namespace: service.Namespace, Name: service.Name}, Port: port.Name}
	protocol := strings.ToLower(string(svcPort.Protocol()))
	svcPort.nameString = svcPortName.String()
	svcPort.clusterPolicyChainName = servicePortPolicyClusterChain(svcPort.nameString, protocol)
	svcPort.localPolicyChainName = servicePortPolicyLocalChainName(svcPort.nameString, protocol)
	svcPort.firewallChainName = serviceFirewallChainName(svcPort.nameString, protocol)
	svcPort.externalChainName = serviceExternalChainName(svcPort.nameString, protocol)
	return svcPort
}

// endpointInfo is the iptables proxier's Endpoint: its KUBE-SEP chain.
type endpointInfo struct {
	*proxy.BaseEndpointInfo
	ChainName Chain
}

func newEndpointInfo(base *proxy.BaseEndpointInfo, svcPortName *proxy.ServicePortName) proxy.Endpoint {
	return &endpointInfo{
		BaseEndpointInfo: base,
		ChainName:        servicePortEndpointChainName(svcPortName.String(), strings.ToLower(string(svcPortName.Protocol)), base.String()),
	}
}

// iptablesJumpChain is a rule in a built-in chain that jumps to ours.
type iptablesJumpChain struct {
	table     Table
	dstChain  Chain
	srcChain  Chain
	comment   string
	extraArgs []string
}

// iptablesJumpChains are the entry points into kube-proxy's chains, ensured
// (inserted at the top of the built-in chains) on every full sync.
var iptablesJumpChains = []iptablesJumpChain{
	{TableFilter, kubeExternalServicesChain, ChainInput, "kubernetes externally-visible service portals", []string{"-m", "conntrack", "--ctstate", "NEW"}},
	{TableFilter, kubeExternalServicesChain, ChainForward, "kubernetes externally-visible service portals", []string{"-m", "conntrack", "--ctstate", "NEW"}},
	{TableFilter, kubeNodePortsChain, ChainInput, "kubernetes health check service ports", nil},
	{TableFilter, kubeServicesChain, ChainForward, "kubernetes service portals", []string{"-m", "conntrack", "--ctstate", "NEW"}},
	{TableFilter, kubeServicesChain, ChainOutput, "kubernetes service portals", []string{"-m", "conntrack", "--ctstate", "NEW"}},
	{TableFilter, kubeForwardChain, ChainForward, "kubernetes forwarding rules", nil},
	{TableFilter, kubeProxyFirewallChain, ChainInput, "kubernetes load balancer firewall", []string{"-m", "conntrack", "--ctstate", "NEW"}},
	{TableFilter, kubeProxyFirewallChain, ChainOutput, "kubernetes load balancer firewall", []string{"-m", "conntrack", "--ctstate", "NEW"}},
	{TableFilter, kubeProxyFirewallChain, ChainForward, "kubernetes load balancer firewall", []string{"-m", "conntrack", "--ctstate", "NEW"}},
	{TableNAT, kubeServicesChain, ChainOutput, "kubernetes service portals", nil},
	{TableNAT, kubeServicesChain, ChainPrerouting, "kubernetes service portals", nil},
	{TableNAT, kubePostroutingChain, ChainPostrouting, "kubernetes postrouting rules", nil},
}

// iptablesKubeletJumpChains duplicate the kubelet's KUBE-FIREWALL jumps.
var iptablesKubeletJumpChains = []iptablesJumpChain{
	{TableFilter, kubeletFirewallChain, ChainInput, "", nil},
	{TableFilter, kubeletFirewallChain, ChainOutput, "", nil},
}

func computeProbability(n int) string {
	return fmt.Sprintf("%0.10f", 1.0/float64(n))
}

// probability is 1/n as "%0.10f" (cached). Assumes mu is held.
func (p *Proxier) probability(n int) string {
	if len(p.precomputedProbabilities) == 0 {
		p.precomputedProbabilities = append(p.precomputedProbabilities, "<bad value>")
	}
	for i := len(p.precomputedProbabilities); i <= n; i++ {
		p.precomputedProbabilities = append(p.precomputedProbabilities, computeProbability(i))
	}
	return p.precomputedProbabilities[n]
}

// Sync asks for a sync as soon as the minimum sync period allows.
func (p *Proxier) Sync() {
	if p.healthzServer != nil {
		p.healthzServer.QueuedUpdate(p.ipFamily)
	}
	p.syncRunner.Run()
}

// SyncLoop runs the syncs and the iptables canary monitor until stop closes.
func (p *Proxier) SyncLoop(stop <-chan struct{}) {
	if p.healthzServer != nil {
		p.healthzServer.Updated(p.ipFamily)
	}
	go p.monitorCanary(stop)
	p.syncRunner.Loop(stop)
}

func (p *Proxier) setInitialized(v bool) { p.initialized.Store(v) }
func (p *Proxier) isInitialized() bool   { return p.initialized.Load() }

// OnServiceAdd is called when a Service is created.
func (p *Proxier) OnServiceAdd(service *corev1.Service) { p.OnServiceUpdate(nil, service) }

// OnServiceUpdate is called when a Service changes.
func (p *Proxier) OnServiceUpdate(oldService, service *corev1.Service) {
	if p.serviceChanges.Update(oldService, service) && p.isInitialized() {
		p.Sync()
	}
}

// OnServiceDelete is called when a Service is deleted.
func (p *Proxier) OnServiceDelete(service *corev1.Service) { p.OnServiceUpdate(service, nil) }

// OnServiceSynced is called once the Service informer has its initial list.
func (p *Proxier) OnServiceSynced() {
	p.mu.Lock()
	p.servicesSynced = true
	p.setInitialized(p.endpointSlicesSynced)
	p.mu.Unlock()
	_ = p.SyncProxyRules()
}

// OnEndpointSliceAdd is called when an EndpointSlice is created.
func (p *Proxier) OnEndpointSliceAdd(endpointSlice *discoveryv1.EndpointSlice) {
	if p.endpointsChanges.EndpointSliceUpdate(endpointSlice, false) && p.isInitialized() {
		p.Sync()
	}
}

// OnEndpointSliceUpdate is called when an EndpointSlice changes.
func (p *Proxier) OnEndpointSliceUpdate(_, endpointSlice *discoveryv1.EndpointSlice) {
	if p.endpointsChanges.EndpointSliceUpdate(endpointSlice, false) && p.isInitialized() {
		p.Sync()
	}
}

// OnEndpointSliceDelete is called when an EndpointSlice is deleted.
func (p *Proxier) OnEndpointSliceDelete(endpointSlice *discoveryv1.EndpointSlice) {
	if p.endpointsChanges.EndpointSliceUpdate(endpointSlice, true) && p.isInitialized() {
		p.Sync()
	}
}

// OnEndpointSlicesSynced is called once the EndpointSlice informer has its
// initial list.
func (p *Proxier) OnEndpointSlicesSynced() {
	p.mu.Lock()
	p.endpointSlicesSynced = true
	p.setInitialized(p.servicesSynced)
	p.mu.Unlock()
	_ = p.SyncProxyRules()
}

// OnTopologyChange is called when this node's topology labels change.
func (p *Proxier) OnTopologyChange(topologyLabels map[string]string) {
	p.mu.Lock()
	p.topologyLabels = topologyLabels
	p.needFullSync = true
	p.mu.Unlock()
	p.Sync()
}

// OnServiceCIDRsChanged: the iptables proxier does not use ServiceCIDRs.
func (p *Proxier) OnServiceCIDRsChanged(_ []string) {}

// forceSyncProxyRules resyncs every Service (after iptables was flushed).
func (p *Proxier) forceSyncProxyRules() {
	p.mu.Lock()
	p.needFullSync = true
	p.mu.Unlock()
	_ = p.SyncProxyRules()
}

// monitorCanary keeps an empty KUBE-PROXY-CANARY chain in mangle, nat and
// filter and checks every sync period that it is still there; if someone
// flushed iptables, it forces a full sync. Upstream: iptables.Monitor.
func (p *Proxier) monitorCanary(stop <-chan struct{}) {
	tables := []Table{TableMangle, TableNAT, TableFilter}
	interval := p.syncPeriod
	if interval <= 0 {
		interval = 30 * time.Second
	}
	t := time.NewTicker(interval)
	defer t.Stop()
	ensure := func() bool {
		for _, table := range tables {
			if _, err := p.iptables.EnsureChain(table, kubeProxyCanaryChain); err != nil {
				p.log.Error("Could not set up iptables canary", "table", string(table), "chain", string(kubeProxyCanaryChain), "err", err)
				return false
			}
		}
		return true
	}
	ready := ensure()
	for {
		select {
		case <-stop:
			return
		case <-t.C:
		}
		if !ready {
			ready = ensure()
			continue
		}
		if exists, err := p.iptables.ChainExists(tables[0], kubeProxyCanaryChain); exists || err != nil {
			continue
		}
		p.log.Info("IPTables canary deleted, reloading", "table", string(tables[0]))
		ready = ensure()
		p.forceSyncProxyRules()
	}
}

// appendServiceCommentLocked adds "-m comment --comment svcName" unless
// in large cluster mode. Assumes mu is held.
func (p *Proxier) appendServiceCommentLocked(args []string, svcName string) []string {
	if p.largeClusterMode {
		return args
	}
	return append(args, "-m", "comment", "--comment", svcName)
}
