package nftables

import (
	"crypto/sha256"
	"encoding/base32"
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
	"kubik/ch07-kube-proxy/proxy/nftables/nft"
	"kubik/ch07-kube-proxy/proxy/runner"
	proxyutil "kubik/ch07-kube-proxy/proxy/util"
)

const (
	// kubeProxyTable holds all our chains, sets and maps, so they need no
	// "kube-" prefix of their own.
	kubeProxyTable = "kube-proxy"

	// base chains
	filterPreroutingPreDNATChain = "filter-prerouting-pre-dnat"
	filterOutputPreDNATChain     = "filter-output-pre-dnat"
	filterInputChain             = "filter-input"
	filterForwardChain           = "filter-forward"
	filterOutputChain            = "filter-output"
	natPreroutingChain           = "nat-prerouting"
	natOutputChain               = "nat-output"
	natPostroutingChain          = "nat-postrouting"

	// service dispatch
	servicesChain       = "services"
	serviceIPsMap       = "service-ips"
	serviceNodePortsMap = "service-nodeports"

	// set of IPs that accept NodePort traffic
	nodePortIPsSet = "nodeport-ips"

	// set of active ClusterIPs
	clusterIPsSet = "cluster-ips"

	// handling for services with no endpoints
	serviceEndpointsCheckChain  = "service-endpoints-check"
	nodePortEndpointsCheckChain = "nodeport-endpoints-check"
	noEndpointServicesMap       = "no-endpoint-services"
	noEndpointNodePortsMap      = "no-endpoint-nodeports"
	rejectChain                 = "reject-chain"

	// traffic to unallocated ClusterIPs and undefined ports of ClusterIPs
	clusterIPsCheckChain = "cluster-ips-check"

	// LoadBalancerSourceRanges handling
	firewallIPsMap     = "firewall-ips"
	firewallCheckChain = "firewall-check"

	// masquerading
	markMasqChain     = "mark-for-masquerade"
	masqueradingChain = "masquerading"
)

// Config is what NewProxier needs; optional fields default to the real
// implementations.
type Config struct {
	NFTables          nft.Interface // nil: the nft binary
	SyncPeriod        time.Duration // retry interval (--iptables-sync-period)
	MinSyncPeriod     time.Duration // --iptables-min-sync-period
	MasqueradeAll     bool
	MasqueradeBit     int
	LocalDetector     proxyutil.LocalTrafficDetector
	NodeName          string
	NodeIP            net.IP
	HealthzServer     *healthcheck.ProxyHealthServer
	NodePortAddresses []string
	Logger            *slog.Logger

	// Optional (tests).
	Conntrack           conntrack.Interface
	NetworkInterfacer   proxyutil.NetworkInterfacer
	ServiceHealthServer healthcheck.ServiceHealthServer
}

// Proxier is an nftables-based proxy for one IP family.
type Proxier struct {
	ipFamily corev1.IPFamily

	endpointsChanges *proxy.EndpointsChangeTracker
	serviceChanges   *proxy.ServiceChangeTracker

	mu                   sync.Mutex // protects the following fields
	svcPortMap           proxy.ServicePortMap
	endpointsMap         proxy.EndpointsMap
	topologyLabels       map[string]string
	endpointSlicesSynced bool
	servicesSynced       bool
	syncedOnce           bool
	lastFullSync         time.Time
	needFullSync         bool
	initialized          atomic.Bool
	syncRunner           *runner.BoundedFrequencyRunner
	syncPeriod           time.Duration
	// flushed: the base chains were re-created once (so changed properties
	// such as priorities apply).
	flushed bool

	nftables            nft.Interface
	masqueradeAll       bool
	masqueradeMark      string
	conntrack           conntrack.Interface
	localDetector       proxyutil.LocalTrafficDetector
	nodeName            string
	nodeIP              net.IP
	serviceHealthServer healthcheck.ServiceHealthServer
	healthzServer       *healthcheck.ProxyHealthServer
	nodePortAddresses   *proxyutil.NodePortAddresses
	networkInterfacer   proxyutil.NetworkInterfacer
	log                 *slog.Logger

	// staleChains are flushed service chains waiting to be deleted: a
	// kernel before 6.2 notices only a moment later that a chain is no
	// longer referenced by a map element, so deletion waits a second.
	staleChains map[string]time.Time

	// knownChains and knownAffinitySets are the table's chains and
	// affinity sets as of the last transaction (nil: unknown, list them).
	// Upstream lists the whole table before every sync; at 5000 Services
	// that listing alone takes most of a second, so a partial sync here
	// reuses what the last successful transaction left, and full syncs (and
	// syncs after a failure) list the table again.
	knownChains       map[string]bool
	knownAffinitySets map[string]bool

	// serviceCIDRs is the comma-separated list of ServiceCIDRs of our family.
	serviceCIDRs string

	// What the kernel's sets and maps hold, so a sync only sends the
	// elements that changed.
	clusterIPs          *nftElementStorage
	serviceIPs          *nftElementStorage
	firewallIPs         *nftElementStorage
	noEndpointServices  *nftElementStorage
	noEndpointNodePorts *nftElementStorage
	serviceNodePorts    *nftElementStorage
}

var _ proxy.Provider = &Proxier{}

// NewProxier returns an IPv4 nftables proxier.
func NewProxier(cfg Config) (*Proxier, error) {
	const ipFamily = corev1.IPv4Protocol
	log := cfg.Logger
	if log == nil {
		log = slog.Default().With("component", "kube-proxy")
	}
	log = log.With("ipFamily", string(ipFamily))
	nftables := cfg.NFTables
	if nftables == nil {
		var err error
		if nftables, err = nft.New(nft.IPv4Family, kubeProxyTable); err != nil {
			return nil, err
		}
	}
	nodePortAddresses := proxyutil.NewNodePortAddresses(ipFamily, cfg.NodePortAddresses)
	p := &Proxier{
		ipFamily:            ipFamily,
		svcPortMap:          make(proxy.ServicePortMap),
		serviceChanges:      proxy.NewServiceChangeTracker(ipFamily, newServiceInfo),
		endpointsMap:        make(proxy.EndpointsMap),
		endpointsChanges:    proxy.NewEndpointsChangeTracker(ipFamily, cfg.NodeName, newEndpointInfo),
		needFullSync:        true,
		syncPeriod:          cfg.SyncPeriod,
		nftables:            nftables,
		masqueradeAll:       cfg.MasqueradeAll,
		masqueradeMark:      fmt.Sprintf("%#08x", 1<<uint(cfg.MasqueradeBit)),
		conntrack:           cfg.Conntrack,
		localDetector:       cfg.LocalDetector,
		nodeName:            cfg.NodeName,
		nodeIP:              cfg.NodeIP,
		serviceHealthServer: cfg.ServiceHealthServer,
		healthzServer:       cfg.HealthzServer,
		nodePortAddresses:   nodePortAddresses,
		networkInterfacer:   cfg.NetworkInterfacer,
		log:                 log,
		staleChains:         map[string]time.Time{},
		clusterIPs:          newNFTElementStorage("set", clusterIPsSet),
		serviceIPs:          newNFTElementStorage("map", serviceIPsMap),
		firewallIPs:         newNFTElementStorage("map", firewallIPsMap),
		noEndpointServices:  newNFTElementStorage("map", noEndpointServicesMap),
		noEndpointNodePorts: newNFTElementStorage("map", noEndpointNodePortsMap),
		serviceNodePorts:    newNFTElementStorage("map", serviceNodePortsMap),
	}
	if p.localDetector == nil {
		p.localDetector = proxyutil.NewNoOpLocalDetector()
	}
	if p.conntrack == nil {
		p.conntrack = conntrack.New()
	}
	if p.networkInterfacer == nil {
		p.networkInterfacer = proxyutil.RealNetwork{}
	}
	if p.serviceHealthServer == nil {
		p.serviceHealthServer = healthcheck.NewServiceHealthServer(cfg.NodeName, nodePortAddresses, cfg.HealthzServer, log)
	}
	p.syncRunner = runner.NewBoundedFrequencyRunner("sync-runner", p.SyncProxyRules, cfg.MinSyncPeriod, cfg.SyncPeriod, proxyutil.FullSyncPeriod)
	return p, nil
}

// servicePortInfo is the nftables proxier's ServicePort: the base info and
// its chain names.
type servicePortInfo struct {
	*proxy.BaseServicePortInfo
	nameString             string
	clusterPolicyChainName string
	localPolicyChainName   string
	externalChainName      string
	firewallChainName      string
}

func newServiceInfo(port *corev1.ServicePort, service *corev1.Service, base *proxy.BaseServicePortInfo) proxy.ServicePort {
	svcPort := &servicePortInfo{BaseServicePortInfo: base}
	svcPortName := proxy.ServicePortName{NamespacedName: proxy.NamespacedName{Namespace: service.Namespace, Name: service.Name}, Port: port.Name}
	svcPort.nameString = svcPortName.String()
	chainNameBase := servicePortChainNameBase(&svcPortName, strings.ToLower(string(svcPort.Protocol())))
	svcPort.clusterPolicyChainName = servicePortPolicyClusterChainNamePrefix + chainNameBase
	svcPort.localPolicyChainName = servicePortPolicyLocalChainNamePrefix + chainNameBase
	svcPort.externalChainName = serviceExternalChainNamePrefix + chainNameBase
	svcPort.firewallChainName = servicePortFirewallChainNamePrefix + chainNameBase
	return svcPort
}

// endpointInfo is the nftables proxier's Endpoint: its chain and its
// session-affinity set.
type endpointInfo struct {
	*proxy.BaseEndpointInfo
	chainName       string
	affinitySetName string
}

func newEndpointInfo(base *proxy.BaseEndpointInfo, svcPortName *proxy.ServicePortName) proxy.Endpoint {
	chainNameBase := servicePortEndpointChainNameBase(svcPortName, strings.ToLower(string(svcPortName.Protocol)), base.String())
	return &endpointInfo{
		BaseEndpointInfo: base,
		chainName:        servicePortEndpointChainNamePrefix + chainNameBase,
		affinitySetName:  servicePortEndpointAffinityNamePrefix + chainNameBase,
	}
}

const (
	// nameLengthMax is nft's limit on a chain or set name.
	nameLengthMax = 256
	// chainNamePrefixLengthMax is the longest prefix below, with its hyphen.
	chainNamePrefixLengthMax = 16
	chainNameBaseLengthMax   = nameLengthMax - chainNamePrefixLengthMax

	servicePortPolicyClusterChainNamePrefix = "service-"
	servicePortPolicyLocalChainNamePrefix   = "local-"
	serviceExternalChainNamePrefix          = "external-"
	servicePortEndpointChainNamePrefix      = "endpoint-"
	servicePortEndpointAffinityNamePrefix   = "affinity-"
	servicePortFirewallChainNamePrefix      = "firewall-"
)

// hashAndTruncate prefixes name with 8 characters of its hash (so that
// names differing in one digit look different, and a truncated name stays
// unique) and truncates it to chainNameBaseLengthMax.
func hashAndTruncate(name string) string {
	hash := sha256.Sum256([]byte(name))
	name = base32.StdEncoding.EncodeToString(hash[:])[:8] + "-" + name
	if len(name) > chainNameBaseLengthMax {
		name = name[:chainNameBaseLengthMax-3] + "..."
	}
	return name
}

// servicePortChainNameBase is "HASH-namespace/service/protocol/port".
// Namespace, Service and port names use [a-z0-9-]; "/" separates them.
func servicePortChainNameBase(servicePortName *proxy.ServicePortName, protocol string) string {
	return hashAndTruncate(fmt.Sprintf("%s/%s/%s/%s", servicePortName.Namespace, servicePortName.Name, protocol, servicePortName.Port))
}

// servicePortEndpointChainNameBase is
// "HASH-namespace/service/protocol/port__ip/port" (":" of IPv6 become ".").
func servicePortEndpointChainNameBase(servicePortName *proxy.ServicePortName, protocol, endpoint string) string {
	ip, port, _ := net.SplitHostPort(endpoint)
	ip = strings.ReplaceAll(ip, ":", ".")
	return hashAndTruncate(fmt.Sprintf("%s/%s/%s/%s__%s/%s", servicePortName.Namespace, servicePortName.Name, protocol, servicePortName.Port, ip, port))
}

// isServiceChainName: only per-service and per-endpoint chains contain "/".
func isServiceChainName(chain string) bool { return strings.Contains(chain, "/") }

func isAffinitySetName(set string) bool {
	return strings.HasPrefix(set, servicePortEndpointAffinityNamePrefix)
}

// Sync asks for a sync as soon as the minimum sync period allows.
func (p *Proxier) Sync() {
	if p.healthzServer != nil {
		p.healthzServer.QueuedUpdate(p.ipFamily)
	}
	p.syncRunner.Run()
}

// SyncLoop runs the syncs until stop closes.
func (p *Proxier) SyncLoop(stop <-chan struct{}) {
	if p.healthzServer != nil {
		p.healthzServer.Updated(p.ipFamily)
	}
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

// OnServiceCIDRsChanged records the ServiceCIDRs of our family; the next
// full sync drops traffic to their unallocated addresses.
func (p *Proxier) OnServiceCIDRsChanged(cidrs []string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	var ours []string
	for _, cidr := range cidrs {
		if proxyutil.IsIPv4CIDRString(cidr) == (p.ipFamily == corev1.IPv4Protocol) {
			ours = append(ours, cidr)
		}
	}
	p.serviceCIDRs = strings.Join(ours, ",")
}
