// Package discoveryv1 holds discovery.k8s.io/v1 EndpointSlice: the addresses
// behind a Service.
//
// Upstream: k8s.io/api/discovery/v1. Field names, JSON names and protobuf tags
// are upstream's (including its unusual tags on the optional scalar fields).
package discoveryv1

import (
	"kubik/ch01-apiserver/api/corev1"
	"kubik/ch01-apiserver/api/metav1"
)

// Well-known labels of EndpointSlices.
const (
	// LabelServiceName names the Service an EndpointSlice belongs to.
	LabelServiceName = "kubernetes.io/service-name"
	// LabelManagedBy names the controller that manages an EndpointSlice.
	LabelManagedBy = "endpointslice.kubernetes.io/managed-by"
	// LabelSkipMirror tells the mirroring controller to leave an Endpoints object alone.
	LabelSkipMirror = "endpointslice.kubernetes.io/skip-mirror"
)

// EndpointSlice is a set of endpoints of a Service.
type EndpointSlice struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`
	// AddressType is "IPv4", "IPv6" or "FQDN"; immutable.
	AddressType AddressType `json:"addressType" protobuf:"bytes,4,rep,name=addressType"`
	// Endpoints are the endpoints of this slice (at most 1000).
	Endpoints []Endpoint `json:"endpoints" protobuf:"bytes,2,rep,name=endpoints"`
	// Ports are the ports every endpoint of the slice exposes.
	Ports []EndpointPort `json:"ports" protobuf:"bytes,3,rep,name=ports"`
}

// AddressType is the kind of addresses an EndpointSlice holds.
type AddressType string

const (
	AddressTypeIPv4 = AddressType(corev1.IPv4Protocol)
	AddressTypeIPv6 = AddressType(corev1.IPv6Protocol)
	AddressTypeFQDN = AddressType("FQDN")
)

// Endpoint is one backend of a Service, normally a pod.
type Endpoint struct {
	// Addresses of the endpoint; consumers use the first.
	Addresses []string `json:"addresses" protobuf:"bytes,1,rep,name=addresses"`
	// Conditions is the current state of the endpoint.
	Conditions EndpointConditions `json:"conditions,omitempty" protobuf:"bytes,2,opt,name=conditions"`
	// Hostname of the endpoint (for DNS).
	Hostname *string `json:"hostname,omitempty" protobuf:"bytes,3,opt,name=hostname"`
	// TargetRef points to the object behind the endpoint (the pod).
	TargetRef *corev1.ObjectReference `json:"targetRef,omitempty" protobuf:"bytes,4,opt,name=targetRef"`
	// DeprecatedTopology is the old topology map; use NodeName and Zone.
	DeprecatedTopology map[string]string `json:"deprecatedTopology,omitempty" protobuf:"bytes,5,opt,name=deprecatedTopology"`
	// NodeName is the node hosting the endpoint.
	NodeName *string `json:"nodeName,omitempty" protobuf:"bytes,6,opt,name=nodeName"`
	// Zone is the zone the endpoint is in.
	Zone *string `json:"zone,omitempty" protobuf:"bytes,7,opt,name=zone"`
	// Hints are topology-aware routing hints.
	Hints *EndpointHints `json:"hints,omitempty" protobuf:"bytes,8,opt,name=hints"`
}

// EndpointConditions is the state of an endpoint.
type EndpointConditions struct {
	// Ready: the endpoint should receive traffic (nil means unknown, treat as ready).
	Ready *bool `json:"ready,omitempty" protobuf:"bytes,1,name=ready"`
	// Serving: the endpoint can serve, even while terminating.
	Serving *bool `json:"serving,omitempty" protobuf:"bytes,2,name=serving"`
	// Terminating: the endpoint is terminating.
	Terminating *bool `json:"terminating,omitempty" protobuf:"bytes,3,name=terminating"`
}

// EndpointHints say where an endpoint should be consumed.
type EndpointHints struct {
	// ForZones lists the zones that should use this endpoint.
	ForZones []ForZone `json:"forZones,omitempty" protobuf:"bytes,1,name=forZones"`
	// ForNodes lists the nodes that should use this endpoint.
	ForNodes []ForNode `json:"forNodes,omitempty" protobuf:"bytes,2,name=forNodes"`
}

// ForZone names a zone in a hint.
type ForZone struct {
	Name string `json:"name" protobuf:"bytes,1,name=name"`
}

// ForNode names a node in a hint.
type ForNode struct {
	Name string `json:"name" protobuf:"bytes,1,name=name"`
}

// EndpointPort is a port of the endpoints of a slice.
type EndpointPort struct {
	// Name matches the Service port name.
	Name *string `json:"name,omitempty" protobuf:"bytes,1,name=name"`
	// Protocol is TCP (the default), UDP or SCTP.
	Protocol *corev1.Protocol `json:"protocol,omitempty" protobuf:"bytes,2,name=protocol"`
	// Port number; nil means all ports.
	Port *int32 `json:"port,omitempty" protobuf:"bytes,3,opt,name=port"`
	// AppProtocol is the application protocol, e.g. "http".
	AppProtocol *string `json:"appProtocol,omitempty" protobuf:"bytes,4,name=appProtocol"`
}

// EndpointSliceList is a list of EndpointSlices.
type EndpointSliceList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`
	Items           []EndpointSlice `json:"items" protobuf:"bytes,2,rep,name=items"`
}
