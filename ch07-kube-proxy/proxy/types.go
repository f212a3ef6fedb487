package proxy

import (
	"fmt"

	"kubik/ch01-apiserver/api/corev1"
	"kubik/ch01-apiserver/api/discoveryv1"
)

// NamespacedName names a namespaced object: "ns/name".
// Upstream: k8s.io/apimachinery/pkg/types.NamespacedName.
type NamespacedName struct {
	Namespace string
	Name      string
}

func (n NamespacedName) String() string { return n.Namespace + "/" + n.Name }

// ServicePortName carries a namespace + name + port name. This is the unique
// identifier of a load-balanced service port: "ns1/svc1:p80".
type ServicePortName struct {
	NamespacedName
	Port     string
	Protocol corev1.Protocol
}

func (spn ServicePortName) String() string {
	return fmt.Sprintf("%s%s", spn.NamespacedName.String(), fmtPortName(spn.Port))
}

func fmtPortName(in string) string {
	if in == "" {
		return ""
	}
	return ":" + in
}

// ServiceHandler is told about Service changes (upstream: config.ServiceHandler).
type ServiceHandler interface {
	OnServiceAdd(service *corev1.Service)
	OnServiceUpdate(oldService, service *corev1.Service)
	OnServiceDelete(service *corev1.Service)
	// OnServiceSynced: the informer has delivered its initial list.
	OnServiceSynced()
}

// EndpointSliceHandler is told about EndpointSlice changes
// (upstream: config.EndpointSliceHandler).
type EndpointSliceHandler interface {
	OnEndpointSliceAdd(endpointSlice *discoveryv1.EndpointSlice)
	OnEndpointSliceUpdate(oldEndpointSlice, newEndpointSlice *discoveryv1.EndpointSlice)
	OnEndpointSliceDelete(endpointSlice *discoveryv1.EndpointSlice)
	OnEndpointSlicesSynced()
}

// Provider is what the iptables and nftables proxiers implement
// (upstream: proxy.Provider).
type Provider interface {
	ServiceHandler
	EndpointSliceHandler
	// OnTopologyChange: this node's topology labels changed.
	OnTopologyChange(topologyLabels map[string]string)
	// OnServiceCIDRsChanged: the complete list of ServiceCIDRs.
	OnServiceCIDRsChanged(cidrs []string)
	// Sync synchronizes the rules with the current state as soon as allowed.
	Sync()
	// SyncLoop runs the periodic and requested syncs until stop is closed.
	SyncLoop(stop <-chan struct{})
}
