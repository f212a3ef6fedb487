// Package proxytest has the helpers the proxier tests share: Services and
// EndpointSlices built as upstream's tests build them, a fake list of
// local addresses, and the transaction-sorting comparisons of upstream's
// test helpers (rule order is kept, Service order is not).
package proxytest

import (
	"fmt"
	"net"

	"kubik/ch01-apiserver/api/corev1"
	"kubik/ch01-apiserver/api/discoveryv1"
	"kubik/ch01-apiserver/api/metav1"
)

// The node of upstream's proxier tests.
const (
	TestNodeName   = "test-node"
	TestNodeIP     = "192.168.0.2"
	TestNodeIPAlt  = "192.168.1.2"
	TestExternalIP = "192.168.99.11"
)

// Ptr returns &v.
func Ptr[T any](v T) *T { return &v }

// MakeTestService returns ns/name changed by svcFunc.
func MakeTestService(namespace, name string, svcFunc func(*corev1.Service)) *corev1.Service {
	svc := &corev1.Service{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: namespace, Annotations: map[string]string{}}}
	svcFunc(svc)
	return svc
}

// MakeTestEndpointSlice returns the slice "name-sliceNum" of Service ns/name.
func MakeTestEndpointSlice(namespace, name string, sliceNum int, epsFunc func(*discoveryv1.EndpointSlice)) *discoveryv1.EndpointSlice {
	eps := &discoveryv1.EndpointSlice{ObjectMeta: metav1.ObjectMeta{
		Name:      fmt.Sprintf("%s-%d", name, sliceNum),
		Namespace: namespace,
		Labels:    map[string]string{discoveryv1.LabelServiceName: name},
	}}
	epsFunc(eps)
	return eps
}

// TCPPort is an EndpointSlice port.
func TCPPort(name string, port int32) discoveryv1.EndpointPort {
	return discoveryv1.EndpointPort{Name: Ptr(name), Port: Ptr(port), Protocol: Ptr(corev1.ProtocolTCP)}
}

// FakeNetwork is the local addresses of upstream's fake proxier: lo
// (127.0.0.1/8) and eth0 with the node IPs.
type FakeNetwork struct{ Addrs []net.Addr }

// NewFakeNetwork returns upstream's test addresses (IPv4 ones).
func NewFakeNetwork() *FakeNetwork {
	n := &FakeNetwork{}
	for _, a := range []string{"127.0.0.1/8", TestNodeIP + "/24", TestNodeIPAlt + "/24", TestExternalIP + "/24"} {
		ip, ipnet, _ := net.ParseCIDR(a)
		n.Addrs = append(n.Addrs, &net.IPNet{IP: ip, Mask: ipnet.Mask})
	}
	return n
}

// InterfaceAddrs implements util.NetworkInterfacer.
func (n *FakeNetwork) InterfaceAddrs() ([]net.Addr, error) { return n.Addrs, nil }
