package proxy

import (
	"fmt"
	"log/slog"
	"net"
	"slices"
	"strings"

	"kubik/ch01-apiserver/api/corev1"
	proxyutil "kubik/ch07-kube-proxy/proxy/util"
)

// ServicePort is what a proxier needs to know about one port of a Service.
// The iptables and nftables proxiers embed BaseServicePortInfo and add
// their precomputed chain names.
type ServicePort interface {
	// String is "clusterIP:port/protocol".
	String() string
	ClusterIP() net.IP
	Port() int
	SessionAffinityType() corev1.ServiceAffinity
	// StickyMaxAgeSeconds is sessionAffinityConfig.clientIP.timeoutSeconds.
	StickyMaxAgeSeconds() int
	ExternalIPs() []net.IP
	// LoadBalancerVIPs are the status.loadBalancer.ingress IPs in VIP mode.
	LoadBalancerVIPs() []net.IP
	Protocol() corev1.Protocol
	LoadBalancerSourceRanges() []*net.IPNet
	HealthCheckNodePort() int
	NodePort() int
	// ExternalPolicyLocal: externalTrafficPolicy Local (on an externally
	// accessible Service).
	ExternalPolicyLocal() bool
	// InternalPolicyLocal: internalTrafficPolicy Local.
	InternalPolicyLocal() bool
	// ExternallyAccessible: a NodePort, a load-balancer IP or an external IP.
	ExternallyAccessible() bool
	// UsesClusterEndpoints: some traffic uses Cluster policy, so the proxier
	// needs the cluster-wide endpoints.
	UsesClusterEndpoints() bool
	// UsesLocalEndpoints: some traffic uses Local policy.
	UsesLocalEndpoints() bool
}

// BaseServicePortInfo is the ServicePort every proxier starts from.
type BaseServicePortInfo struct {
	clusterIP                net.IP
	port                     int
	protocol                 corev1.Protocol
	nodePort                 int
	loadBalancerVIPs         []net.IP
	sessionAffinityType      corev1.ServiceAffinity
	stickyMaxAgeSeconds      int
	externalIPs              []net.IP
	loadBalancerSourceRanges []*net.IPNet
	healthCheckNodePort      int
	externalPolicyLocal      bool
	internalPolicyLocal      bool
}

var _ ServicePort = &BaseServicePortInfo{}

func (b *BaseServicePortInfo) String() string {
	return fmt.Sprintf("%s:%d/%s", b.clusterIP, b.port, b.protocol)
}
func (b *BaseServicePortInfo) ClusterIP() net.IP { return b.clusterIP }
func (b *BaseServicePortInfo) Port() int         { return b.port }
func (b *BaseServicePortInfo) SessionAffinityType() corev1.ServiceAffinity {
	return b.sessionAffinityType
}
func (b *BaseServicePortInfo) StickyMaxAgeSeconds() int  { return b.stickyMaxAgeSeconds }
func (b *BaseServicePortInfo) Protocol() corev1.Protocol { return b.protocol }
func (b *BaseServicePortInfo) LoadBalancerSourceRanges() []*net.IPNet {
	return b.loadBalancerSourceRanges
}
func (b *BaseServicePortInfo) HealthCheckNodePort() int   { return b.healthCheckNodePort }
func (b *BaseServicePortInfo) NodePort() int              { return b.nodePort }
func (b *BaseServicePortInfo) ExternalIPs() []net.IP      { return b.externalIPs }
func (b *BaseServicePortInfo) LoadBalancerVIPs() []net.IP { return b.loadBalancerVIPs }
func (b *BaseServicePortInfo) ExternalPolicyLocal() bool  { return b.externalPolicyLocal }
func (b *BaseServicePortInfo) InternalPolicyLocal() bool  { return b.internalPolicyLocal }

func (b *BaseServicePortInfo) ExternallyAccessible() bool {
	return b.nodePort != 0 || len(b.loadBalancerVIPs) != 0 || len(b.externalIPs) != 0
}

func (b *BaseServicePortInfo) UsesClusterEndpoints() bool {
	// The service port uses Cluster-policy endpoints if the internal traffic
	// policy is "Cluster", or if it accepts external traffic at all. (Even if
	// the external traffic policy is "Local", we need Cluster-policy
	// endpoints to implement the short circuit for pod and node traffic.)
	return !b.internalPolicyLocal || b.ExternallyAccessible()
}

func (b *BaseServicePortInfo) UsesLocalEndpoints() bool {
	return b.internalPolicyLocal || (b.externalPolicyLocal && b.ExternallyAccessible())
}

// externallyAccessible, externalPolicyLocal, internalPolicyLocal and
// needsHealthCheck are upstream's pkg/api/v1/service helpers.
func externallyAccessible(service *corev1.Service) bool {
	return service.Spec.Type == corev1.ServiceTypeLoadBalancer ||
		service.Spec.Type == corev1.ServiceTypeNodePort ||
		(service.Spec.Type == corev1.ServiceTypeClusterIP && len(service.Spec.ExternalIPs) > 0)
}

func externalPolicyLocal(service *corev1.Service) bool {
	return externallyAccessible(service) && service.Spec.ExternalTrafficPolicy == corev1.ServiceExternalTrafficPolicyLocal
}

func internalPolicyLocal(service *corev1.Service) bool {
	return service.Spec.InternalTrafficPolicy != nil && *service.Spec.InternalTrafficPolicy == corev1.ServiceInternalTrafficPolicyLocal
}

func needsHealthCheck(service *corev1.Service) bool {
	return service.Spec.Type == corev1.ServiceTypeLoadBalancer && externalPolicyLocal(service)
}

// defaultStickyMaxAgeSeconds is the apiserver's default of
// sessionAffinityConfig.clientIP.timeoutSeconds (3 hours).
const defaultStickyMaxAgeSeconds = 10800

func newBaseServiceInfo(service *corev1.Service, ipFamily corev1.IPFamily, port *corev1.ServicePort) *BaseServicePortInfo {
	var stickyMaxAgeSeconds int
	if service.Spec.SessionAffinity == corev1.ServiceAffinityClientIP {
		stickyMaxAgeSeconds = defaultStickyMaxAgeSeconds
		if c := service.Spec.SessionAffinityConfig; c != nil && c.ClientIP != nil && c.ClientIP.TimeoutSeconds != nil {
			stickyMaxAgeSeconds = int(*c.ClientIP.TimeoutSeconds)
		}
	}
	info := &BaseServicePortInfo{
		clusterIP:           proxyutil.ParseIPSloppy(proxyutil.GetClusterIPByFamily(ipFamily, service)),
		port:                int(port.Port),
		protocol:            port.Protocol,
		nodePort:            int(port.NodePort),
		sessionAffinityType: service.Spec.SessionAffinity,
		stickyMaxAgeSeconds: stickyMaxAgeSeconds,
		externalPolicyLocal: externalPolicyLocal(service),
		internalPolicyLocal: internalPolicyLocal(service),
	}

	info.externalIPs = proxyutil.MapIPsByIPFamily(service.Spec.ExternalIPs)[ipFamily]

	// A source range of 0.0.0.0/0 allows everyone: no firewall at all.
	ranges := make([]string, len(service.Spec.LoadBalancerSourceRanges))
	for i, r := range service.Spec.LoadBalancerSourceRanges {
		ranges[i] = strings.TrimSpace(r)
	}
	cidrs := proxyutil.MapCIDRsByIPFamily(ranges)[ipFamily]
	if slices.ContainsFunc(cidrs, proxyutil.IsZeroCIDR) {
		cidrs = []*net.IPNet{}
	}
	info.loadBalancerSourceRanges = cidrs

	// Only IP-mode VIP ingress addresses are captured; a Proxy-mode load
	// balancer sends its traffic to the node ports instead.
	for _, ing := range service.Status.LoadBalancer.Ingress {
		if ing.IP == "" || !proxyutil.IsVIPMode(ing) {
			continue
		}
		ip := proxyutil.ParseIPSloppy(ing.IP)
		if ip != nil && proxyutil.GetIPFamilyFromIP(ip) == ipFamily {
			info.loadBalancerVIPs = append(info.loadBalancerVIPs, ip)
		}
	}

	if needsHealthCheck(service) {
		if p := service.Spec.HealthCheckNodePort; p == 0 {
			slog.Error("Service has no healthcheck nodeport", "component", "kube-proxy", "service", service.Namespace+"/"+service.Name)
		} else {
			info.healthCheckNodePort = int(p)
		}
	}
	return info
}

// NewTestServicePort is a ServicePort with just a cluster IP, port,
// protocol and node port (for tests of code that reads ServicePorts).
func NewTestServicePort(clusterIP string, port int, protocol corev1.Protocol, nodePort int) *BaseServicePortInfo {
	return &BaseServicePortInfo{clusterIP: proxyutil.ParseIPSloppy(clusterIP), port: port, protocol: protocol, nodePort: nodePort}
}
