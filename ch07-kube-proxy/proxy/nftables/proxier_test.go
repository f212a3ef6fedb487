package nftables

import (
	"testing"

	"kubik/ch01-apiserver/api/corev1"
	"kubik/ch01-apiserver/api/discoveryv1"
	"kubik/ch01-apiserver/api/intstr"
	pt "kubik/ch07-kube-proxy/proxy/proxytest"
)

// overallServices are the Services and EndpointSlices of upstream's
// TestOverallNFTablesRules (and TestOverallIPTablesRules).
func overallServices() ([]*corev1.Service, []*discoveryv1.EndpointSlice) {
	tcp80 := func(name string, port, nodePort int32) corev1.ServicePort {
		return corev1.ServicePort{Name: name, Port: port, Protocol: corev1.ProtocolTCP, NodePort: nodePort}
	}
	svcs := []*corev1.Service{
		pt.MakeTestService("ns1", "svc1", func(svc *corev1.Service) {
			svc.Spec.ClusterIP = "172.30.0.41"
			svc.Spec.Ports = []corev1.ServicePort{tcp80("p80", 80, 0)}
		}),
		pt.MakeTestService("ns2", "svc2", func(svc *corev1.Service) {
			svc.Spec.Type = "LoadBalancer"
			svc.Spec.ExternalTrafficPolicy = corev1.ServiceExternalTrafficPolicyLocal
			svc.Spec.ClusterIP = "172.30.0.42"
			svc.Spec.Ports = []corev1.ServicePort{tcp80("p80", 80, 3001)}
			svc.Status.LoadBalancer.Ingress = []corev1.LoadBalancerIngress{{IP: "1.2.3.4"}}
			svc.Spec.ExternalIPs = []string{"192.168.99.22"}
			svc.Spec.HealthCheckNodePort = 30000
		}),
		pt.MakeTestService("ns3", "svc3", func(svc *corev1.Service) {
			svc.Spec.Type = "NodePort"
			svc.Spec.ClusterIP = "172.30.0.43"
			svc.Spec.Ports = []corev1.ServicePort{tcp80("p80", 80, 3003)}
		}),
		pt.MakeTestService("ns4", "svc4", func(svc *corev1.Service) {
			svc.Spec.Type = "NodePort"
			svc.Spec.ClusterIP = "172.30.0.44"
			svc.Spec.ExternalIPs = []string{"192.168.99.33"}
			svc.Spec.Ports = []corev1.ServicePort{{Name: "p80", Port: 80, Protocol: corev1.ProtocolTCP, TargetPort: intstr.FromInt(80)}}
		}),
		pt.MakeTestService("ns5", "svc5", func(svc *corev1.Service) {
			svc.Spec.Type = "LoadBalancer"
			svc.Spec.ExternalTrafficPolicy = corev1.ServiceExternalTrafficPolicyCluster
			svc.Spec.ClusterIP = "172.30.0.45"
			svc.Spec.Ports = []corev1.ServicePort{tcp80("p80", 80, 3002)}
			svc.Status.LoadBalancer.Ingress = []corev1.LoadBalancerIngress{{IP: "5.6.7.8"}}
			svc.Spec.HealthCheckNodePort = 30000
			// Extra whitespace must not break anything.
			svc.Spec.LoadBalancerSourceRanges = []string{" 203.0.113.0/25"}
			svc.Spec.SessionAffinity = corev1.ServiceAffinityClientIP
			svc.Spec.SessionAffinityConfig = &corev1.SessionAffinityConfig{ClientIP: &corev1.ClientIPConfig{TimeoutSeconds: pt.Ptr[int32](10800)}}
		}),
		pt.MakeTestService("ns6", "svc6", func(svc *corev1.Service) {
			svc.Spec.Type = "ClusterIP"
			svc.Spec.ClusterIP = "172.30.0.46"
			svc.Spec.Ports = []corev1.ServicePort{{Name: "p80", Port: 80, Protocol: corev1.ProtocolTCP, TargetPort: intstr.FromInt(80)}}
		}),
	}
	slice := func(ns, name string, eps ...discoveryv1.Endpoint) *discoveryv1.EndpointSlice {
		return pt.MakeTestEndpointSlice(ns, name, 1, func(s *discoveryv1.EndpointSlice) {
			s.AddressType = discoveryv1.AddressTypeIPv4
			s.Endpoints = eps
			s.Ports = []discoveryv1.EndpointPort{pt.TCPPort("p80", 80)}
		})
	}
	ep := func(ip string) discoveryv1.Endpoint { return discoveryv1.Endpoint{Addresses: []string{ip}} }
	slices := []*discoveryv1.EndpointSlice{
		slice("ns1", "svc1", ep("10.180.0.1")),
		// No NodeName: not local, so ignored by the Local policy.
		slice("ns2", "svc2", ep("10.180.0.2")),
		slice("ns3", "svc3", ep("10.180.0.3")),
		slice("ns4", "svc4", ep("10.180.0.4"), discoveryv1.Endpoint{Addresses: []string{"10.180.0.5"}, NodeName: pt.Ptr(pt.TestNodeName)}),
		slice("ns5", "svc5", ep("10.180.0.3")),
	}
	return svcs, slices
}

// TestOverallNFTablesRules is upstream's: a variety of Services, the whole table.
func TestOverallNFTablesRules(t *testing.T) {
	fake, p := NewFakeProxier(corev1.IPv4Protocol)
	svcs, slices := overallServices()
	makeServiceMap(p, svcs...)
	populateEndpointSlices(p, slices...)
	p.syncProxyRules()
	assertNFTablesTransactionEqual(t, getLine(), baseRules+overallRules, fake.Dump())
}
