package proxy

// Tests ported from upstream's pkg/proxy/endpointslicecache_test.go (v1.35.4):
// the same Services and EndpointSlices in, the same rules (or the same
// packet traces) out. The helpers they call are in model_helpers_test.go.

import (
	"fmt"
	"reflect"
	"testing"
	"time"

	"kubik/ch01-apiserver/api/corev1"
	"kubik/ch01-apiserver/api/discoveryv1"
	"kubik/ch01-apiserver/api/metav1"
	"kubik/ch07-kube-proxy/proxy/proxytest/ptr"
)

func TestEndpointsMapFromESC(t *testing.T) {
	testCases := map[string]struct {
		endpointSlices []*discoveryv1.EndpointSlice
		hostname       string
		namespacedName NamespacedName
		expectedMap    map[ServicePortName][]*BaseEndpointInfo
	}{
		"1 slice, 2 hosts, ports 80,443": {
			namespacedName: NamespacedName{Name: "svc1", Namespace: "ns1"},
			hostname:       "host1",
			endpointSlices: []*discoveryv1.EndpointSlice{
				generateEndpointSlice("svc1", "ns1", 1, 3, 999, 999, []string{"host1", "host2"}, []*int32{ptr.To[int32](80), ptr.To[int32](443)}),
			},
			expectedMap: map[ServicePortName][]*BaseEndpointInfo{
				makeServicePortName("ns1", "svc1", "port-0", corev1.ProtocolTCP): {
					&BaseEndpointInfo{ip: "10.0.1.1", port: 80, endpoint: "10.0.1.1:80", isLocal: false, ready: true, serving: true, terminating: false},
					&BaseEndpointInfo{ip: "10.0.1.2", port: 80, endpoint: "10.0.1.2:80", isLocal: true, ready: true, serving: true, terminating: false},
					&BaseEndpointInfo{ip: "10.0.1.3", port: 80, endpoint: "10.0.1.3:80", isLocal: false, ready: true, serving: true, terminating: false},
				},
				makeServicePortName("ns1", "svc1", "port-1", corev1.ProtocolTCP): {
					&BaseEndpointInfo{ip: "10.0.1.1", port: 443, endpoint: "10.0.1.1:443", isLocal: false, ready: true, serving: true, terminating: false},
					&BaseEndpointInfo{ip: "10.0.1.2", port: 443, endpoint: "10.0.1.2:443", isLocal: true, ready: true, serving: true, terminating: false},
					&BaseEndpointInfo{ip: "10.0.1.3", port: 443, endpoint: "10.0.1.3:443", isLocal: false, ready: true, serving: true, terminating: false},
				},
			},
		},
		"2 slices, same port": {
			namespacedName: NamespacedName{Name: "svc1", Namespace: "ns1"},
			endpointSlices: []*discoveryv1.EndpointSlice{
				generateEndpointSlice("svc1", "ns1", 1, 3, 999, 999, []string{}, []*int32{ptr.To[int32](80)}),
				generateEndpointSlice("svc1", "ns1", 2, 3, 999, 999, []string{}, []*int32{ptr.To[int32](80)}),
			},
			expectedMap: map[ServicePortName][]*BaseEndpointInfo{
				makeServicePortName("ns1", "svc1", "port-0", corev1.ProtocolTCP): {
					&BaseEndpointInfo{ip: "10.0.1.1", port: 80, endpoint: "10.0.1.1:80", isLocal: false, ready: true, serving: true, terminating: false},
					&BaseEndpointInfo{ip: "10.0.1.2", port: 80, endpoint: "10.0.1.2:80", isLocal: false, ready: true, serving: true, terminating: false},
					&BaseEndpointInfo{ip: "10.0.1.3", port: 80, endpoint: "10.0.1.3:80", isLocal: false, ready: true, serving: true, terminating: false},
					&BaseEndpointInfo{ip: "10.0.2.1", port: 80, endpoint: "10.0.2.1:80", isLocal: false, ready: true, serving: true, terminating: false},
					&BaseEndpointInfo{ip: "10.0.2.2", port: 80, endpoint: "10.0.2.2:80", isLocal: false, ready: true, serving: true, terminating: false},
					&BaseEndpointInfo{ip: "10.0.2.3", port: 80, endpoint: "10.0.2.3:80", isLocal: false, ready: true, serving: true, terminating: false},
				},
			},
		},
		// 2 slices, with some overlapping endpoints, result should be a union
		// of the 2.
		"2 overlapping slices, same port": {
			namespacedName: NamespacedName{Name: "svc1", Namespace: "ns1"},
			endpointSlices: []*discoveryv1.EndpointSlice{
				generateEndpointSlice("svc1", "ns1", 1, 3, 999, 999, []string{}, []*int32{ptr.To[int32](80)}),
				generateEndpointSlice("svc1", "ns1", 1, 4, 999, 999, []string{}, []*int32{ptr.To[int32](80)}),
			},
			expectedMap: map[ServicePortName][]*BaseEndpointInfo{
				makeServicePortName("ns1", "svc1", "port-0", corev1.ProtocolTCP): {
					&BaseEndpointInfo{ip: "10.0.1.1", port: 80, endpoint: "10.0.1.1:80", isLocal: false, ready: true, serving: true, terminating: false},
					&BaseEndpointInfo{ip: "10.0.1.2", port: 80, endpoint: "10.0.1.2:80", isLocal: false, ready: true, serving: true, terminating: false},
					&BaseEndpointInfo{ip: "10.0.1.3", port: 80, endpoint: "10.0.1.3:80", isLocal: false, ready: true, serving: true, terminating: false},
					&BaseEndpointInfo{ip: "10.0.1.4", port: 80, endpoint: "10.0.1.4:80", isLocal: false, ready: true, serving: true, terminating: false},
				},
			},
		},
		// 2 slices with all endpoints overlapping, more unready in first than
		// second. If an endpoint is marked ready, we add it to the
		// EndpointsMap, even if conditions.Ready isn't true for another
		// matching endpoint
		"2 slices, overlapping endpoints, some endpoints unready in 1 or both": {
			namespacedName: NamespacedName{Name: "svc1", Namespace: "ns1"},
			endpointSlices: []*discoveryv1.EndpointSlice{
				generateEndpointSlice("svc1", "ns1", 1, 10, 3, 999, []string{}, []*int32{ptr.To[int32](80)}),
				generateEndpointSlice("svc1", "ns1", 1, 10, 6, 999, []string{}, []*int32{ptr.To[int32](80)}),
			},
			expectedMap: map[ServicePortName][]*BaseEndpointInfo{
				makeServicePortName("ns1", "svc1", "port-0", corev1.ProtocolTCP): {
					&BaseEndpointInfo{ip: "10.0.1.10", port: 80, endpoint: "10.0.1.10:80", isLocal: false, ready: true, serving: true, terminating: false},
					&BaseEndpointInfo{ip: "10.0.1.1", port: 80, endpoint: "10.0.1.1:80", isLocal: false, ready: true, serving: true, terminating: false},
					&BaseEndpointInfo{ip: "10.0.1.2", port: 80, endpoint: "10.0.1.2:80", isLocal: false, ready: true, serving: true, terminating: false},
					&BaseEndpointInfo{ip: "10.0.1.3", port: 80, endpoint: "10.0.1.3:80", isLocal: false, ready: true, serving: true, terminating: false},
					&BaseEndpointInfo{ip: "10.0.1.4", port: 80, endpoint: "10.0.1.4:80", isLocal: false, ready: true, serving: true, terminating: false},
					&BaseEndpointInfo{ip: "10.0.1.5", port: 80, endpoint: "10.0.1.5:80", isLocal: false, ready: true, serving: true, terminating: false},
					&BaseEndpointInfo{ip: "10.0.1.6", port: 80, endpoint: "10.0.1.6:80", isLocal: false, ready: false, serving: false, terminating: false},
					&BaseEndpointInfo{ip: "10.0.1.7", port: 80, endpoint: "10.0.1.7:80", isLocal: false, ready: true, serving: true, terminating: false},
					&BaseEndpointInfo{ip: "10.0.1.8", port: 80, endpoint: "10.0.1.8:80", isLocal: false, ready: true, serving: true, terminating: false},
					&BaseEndpointInfo{ip: "10.0.1.9", port: 80, endpoint: "10.0.1.9:80", isLocal: false, ready: true, serving: true, terminating: false},
				},
			},
		},
		// 2 slices with all endpoints overlapping, some unready and terminating.
		"2 slices, overlapping endpoints, some endpoints unready and some endpoints terminating": {
			namespacedName: NamespacedName{Name: "svc1", Namespace: "ns1"},
			endpointSlices: []*discoveryv1.EndpointSlice{
				generateEndpointSlice("svc1", "ns1", 1, 10, 3, 5, []string{}, []*int32{ptr.To[int32](80)}),
				generateEndpointSlice("svc1", "ns1", 1, 10, 6, 5, []string{}, []*int32{ptr.To[int32](80)}),
			},
			expectedMap: map[ServicePortName][]*BaseEndpointInfo{
				makeServicePortName("ns1", "svc1", "port-0", corev1.ProtocolTCP): {
					&BaseEndpointInfo{ip: "10.0.1.10", port: 80, endpoint: "10.0.1.10:80", isLocal: false, ready: false, serving: true, terminating: true},
					&BaseEndpointInfo{ip: "10.0.1.1", port: 80, endpoint: "10.0.1.1:80", isLocal: false, ready: true, serving: true, terminating: false},
					&BaseEndpointInfo{ip: "10.0.1.2", port: 80, endpoint: "10.0.1.2:80", isLocal: false, ready: true, serving: true, terminating: false},
					&BaseEndpointInfo{ip: "10.0.1.3", port: 80, endpoint: "10.0.1.3:80", isLocal: false, ready: true, serving: true, terminating: false},
					&BaseEndpointInfo{ip: "10.0.1.4", port: 80, endpoint: "10.0.1.4:80", isLocal: false, ready: true, serving: true, terminating: false},
					&BaseEndpointInfo{ip: "10.0.1.5", port: 80, endpoint: "10.0.1.5:80", isLocal: false, ready: false, serving: true, terminating: true},
					&BaseEndpointInfo{ip: "10.0.1.6", port: 80, endpoint: "10.0.1.6:80", isLocal: false, ready: false, serving: false, terminating: false},
					&BaseEndpointInfo{ip: "10.0.1.7", port: 80, endpoint: "10.0.1.7:80", isLocal: false, ready: true, serving: true, terminating: false},
					&BaseEndpointInfo{ip: "10.0.1.8", port: 80, endpoint: "10.0.1.8:80", isLocal: false, ready: true, serving: true, terminating: false},
					&BaseEndpointInfo{ip: "10.0.1.9", port: 80, endpoint: "10.0.1.9:80", isLocal: false, ready: true, serving: true, terminating: false},
				},
			},
		},
		"2 slices, overlapping endpoints, all unready": {
			namespacedName: NamespacedName{Name: "svc1", Namespace: "ns1"},
			endpointSlices: []*discoveryv1.EndpointSlice{
				generateEndpointSlice("svc1", "ns1", 1, 10, 1, 999, []string{}, []*int32{ptr.To[int32](80)}),
				generateEndpointSlice("svc1", "ns1", 1, 10, 1, 999, []string{}, []*int32{ptr.To[int32](80)}),
			},
			expectedMap: map[ServicePortName][]*BaseEndpointInfo{
				makeServicePortName("ns1", "svc1", "port-0", corev1.ProtocolTCP): {
					&BaseEndpointInfo{ip: "10.0.1.10", port: 80, endpoint: "10.0.1.10:80", isLocal: false, ready: false, serving: false, terminating: false},
					&BaseEndpointInfo{ip: "10.0.1.1", port: 80, endpoint: "10.0.1.1:80", isLocal: false, ready: false, serving: false, terminating: false},
					&BaseEndpointInfo{ip: "10.0.1.2", port: 80, endpoint: "10.0.1.2:80", isLocal: false, ready: false, serving: false, terminating: false},
					&BaseEndpointInfo{ip: "10.0.1.3", port: 80, endpoint: "10.0.1.3:80", isLocal: false, ready: false, serving: false, terminating: false},
					&BaseEndpointInfo{ip: "10.0.1.4", port: 80, endpoint: "10.0.1.4:80", isLocal: false, ready: false, serving: false, terminating: false},
					&BaseEndpointInfo{ip: "10.0.1.5", port: 80, endpoint: "10.0.1.5:80", isLocal: false, ready: false, serving: false, terminating: false},
					&BaseEndpointInfo{ip: "10.0.1.6", port: 80, endpoint: "10.0.1.6:80", isLocal: false, ready: false, serving: false, terminating: false},
					&BaseEndpointInfo{ip: "10.0.1.7", port: 80, endpoint: "10.0.1.7:80", isLocal: false, ready: false, serving: false, terminating: false},
					&BaseEndpointInfo{ip: "10.0.1.8", port: 80, endpoint: "10.0.1.8:80", isLocal: false, ready: false, serving: false, terminating: false},
					&BaseEndpointInfo{ip: "10.0.1.9", port: 80, endpoint: "10.0.1.9:80", isLocal: false, ready: false, serving: false, terminating: false},
				},
			},
		},
		"3 slices with different services and namespaces": {
			namespacedName: NamespacedName{Name: "svc1", Namespace: "ns1"},
			endpointSlices: []*discoveryv1.EndpointSlice{
				generateEndpointSlice("svc1", "ns1", 1, 3, 999, 999, []string{}, []*int32{ptr.To[int32](80)}),
				generateEndpointSlice("svc2", "ns1", 2, 3, 999, 999, []string{}, []*int32{ptr.To[int32](80)}),
				generateEndpointSlice("svc1", "ns2", 3, 3, 999, 999, []string{}, []*int32{ptr.To[int32](80)}),
			},
			expectedMap: map[ServicePortName][]*BaseEndpointInfo{
				makeServicePortName("ns1", "svc1", "port-0", corev1.ProtocolTCP): {
					&BaseEndpointInfo{ip: "10.0.1.1", port: 80, endpoint: "10.0.1.1:80", isLocal: false, ready: true, serving: true, terminating: false},
					&BaseEndpointInfo{ip: "10.0.1.2", port: 80, endpoint: "10.0.1.2:80", isLocal: false, ready: true, serving: true, terminating: false},
					&BaseEndpointInfo{ip: "10.0.1.3", port: 80, endpoint: "10.0.1.3:80", isLocal: false, ready: true, serving: true, terminating: false},
				},
			},
		},
		// Ensuring that nil port value will not break things. This will
		// represent all ports in the future, but that has not been implemented
		// yet.
		"Nil port should not break anything": {
			namespacedName: NamespacedName{Name: "svc1", Namespace: "ns1"},
			hostname:       "host1",
			endpointSlices: []*discoveryv1.EndpointSlice{
				generateEndpointSlice("svc1", "ns1", 1, 3, 999, 999, []string{"host1", "host2"}, []*int32{nil}),
			},
			expectedMap: map[ServicePortName][]*BaseEndpointInfo{},
		},
		// Make sure that different endpoints with duplicate IPs are returned correctly.
		"Different endpoints with duplicate IPs should not be filtered": {
			namespacedName: NamespacedName{Name: "svc1", Namespace: "ns1"},
			hostname:       "host1",
			endpointSlices: []*discoveryv1.EndpointSlice{
				generateEndpointSliceWithOffset("svc1", "ns1", 1, 1, 2, 999, 999, []string{"host1", "host2"}, []*int32{ptr.To[int32](80)}),
				generateEndpointSliceWithOffset("svc1", "ns1", 2, 1, 2, 999, 999, []string{"host1", "host2"}, []*int32{ptr.To[int32](8080)}),
			},
			expectedMap: map[ServicePortName][]*BaseEndpointInfo{
				makeServicePortName("ns1", "svc1", "port-0", corev1.ProtocolTCP): {
					&BaseEndpointInfo{ip: "10.0.1.1", port: 80, endpoint: "10.0.1.1:80", isLocal: false, ready: true, serving: true, terminating: false},
					&BaseEndpointInfo{ip: "10.0.1.1", port: 8080, endpoint: "10.0.1.1:8080", isLocal: false, ready: true, serving: true, terminating: false},
					&BaseEndpointInfo{ip: "10.0.1.2", port: 80, endpoint: "10.0.1.2:80", isLocal: true, ready: true, serving: true, terminating: false},
					&BaseEndpointInfo{ip: "10.0.1.2", port: 8080, endpoint: "10.0.1.2:8080", isLocal: true, ready: true, serving: true, terminating: false},
				},
			},
		},
	}

	for name, tc := range testCases {
		t.Run(name, func(t *testing.T) {
			esCache := NewEndpointSliceCache(tc.hostname, nil)

			for _, endpointSlice := range tc.endpointSlices {
				esCache.updatePending(endpointSlice, false)
			}

			compareEndpointsMapsStr(t, esCache.getEndpointsMap(tc.namespacedName, esCache.trackerByServiceMap[tc.namespacedName].pending), tc.expectedMap)
		})
	}
}

func TestEndpointInfoByServicePort(t *testing.T) {
	testCases := map[string]struct {
		namespacedName NamespacedName
		endpointSlices []*discoveryv1.EndpointSlice
		hostname       string
		expectedMap    spToEndpointMap
	}{
		"simple use case with 3 endpoints": {
			namespacedName: NamespacedName{Name: "svc1", Namespace: "ns1"},
			hostname:       "host1",
			endpointSlices: []*discoveryv1.EndpointSlice{
				generateEndpointSlice("svc1", "ns1", 1, 3, 999, 999, []string{"host1", "host2"}, []*int32{ptr.To[int32](80)}),
			},
			expectedMap: spToEndpointMap{
				makeServicePortName("ns1", "svc1", "port-0", corev1.ProtocolTCP): {
					"10.0.1.1:80": &BaseEndpointInfo{
						ip:          "10.0.1.1",
						port:        80,
						endpoint:    "10.0.1.1:80",
						isLocal:     false,
						ready:       true,
						serving:     true,
						terminating: false,
					},
					"10.0.1.2:80": &BaseEndpointInfo{
						ip:          "10.0.1.2",
						port:        80,
						endpoint:    "10.0.1.2:80",
						isLocal:     true,
						ready:       true,
						serving:     true,
						terminating: false,
					},
					"10.0.1.3:80": &BaseEndpointInfo{
						ip:          "10.0.1.3",
						port:        80,
						endpoint:    "10.0.1.3:80",
						isLocal:     false,
						ready:       true,
						serving:     true,
						terminating: false,
					},
				},
			},
		},
		"4 different slices with duplicate IPs": {
			namespacedName: NamespacedName{Name: "svc1", Namespace: "ns1"},
			hostname:       "host1",
			endpointSlices: []*discoveryv1.EndpointSlice{
				generateEndpointSliceWithOffset("svc1", "ns1", 1, 1, 2, 999, 999, []string{"host1", "host2"}, []*int32{ptr.To[int32](80)}),
				generateEndpointSliceWithOffset("svc1", "ns1", 2, 1, 2, 999, 999, []string{"host1", "host2"}, []*int32{ptr.To[int32](8080)}),
			},
			expectedMap: spToEndpointMap{
				makeServicePortName("ns1", "svc1", "port-0", corev1.ProtocolTCP): {
					"10.0.1.1:80": &BaseEndpointInfo{
						ip:          "10.0.1.1",
						port:        80,
						endpoint:    "10.0.1.1:80",
						isLocal:     false,
						ready:       true,
						serving:     true,
						terminating: false,
					},
					"10.0.1.2:80": &BaseEndpointInfo{
						ip:          "10.0.1.2",
						port:        80,
						endpoint:    "10.0.1.2:80",
						isLocal:     true,
						ready:       true,
						serving:     true,
						terminating: false,
					},
					"10.0.1.1:8080": &BaseEndpointInfo{
						ip:          "10.0.1.1",
						port:        8080,
						endpoint:    "10.0.1.1:8080",
						isLocal:     false,
						ready:       true,
						serving:     true,
						terminating: false,
					},
					"10.0.1.2:8080": &BaseEndpointInfo{
						ip:          "10.0.1.2",
						port:        8080,
						endpoint:    "10.0.1.2:8080",
						isLocal:     true,
						ready:       true,
						serving:     true,
						terminating: false,
					},
				},
			},
		},
	}

	for name, tc := range testCases {
		t.Run(name, func(t *testing.T) {
			esCache := NewEndpointSliceCache(tc.hostname, nil)

			for _, endpointSlice := range tc.endpointSlices {
				esCache.updatePending(endpointSlice, false)
			}

			got := esCache.endpointInfoByServicePort(tc.namespacedName, esCache.trackerByServiceMap[tc.namespacedName].pending)
			if !reflect.DeepEqual(got, tc.expectedMap) {
				t.Errorf("endpointInfoByServicePort does not match. Want: %+v, Got: %+v", tc.expectedMap, got)
			}
		})
	}
}

func TestEsDataChanged(t *testing.T) {
	p80 := int32(80)
	p443 := int32(443)
	port80 := discoveryv1.EndpointPort{Port: &p80, Name: ptr.To("http"), Protocol: ptr.To(corev1.ProtocolTCP)}
	port443 := discoveryv1.EndpointPort{Port: &p443, Name: ptr.To("https"), Protocol: ptr.To(corev1.ProtocolTCP)}
	endpoint1 := discoveryv1.Endpoint{Addresses: []string{"10.0.1.0"}}
	endpoint2 := discoveryv1.Endpoint{Addresses: []string{"10.0.1.1"}}

	objMeta := metav1.ObjectMeta{
		Name:      "foo",
		Namespace: "bar",
		Labels:    map[string]string{discoveryv1.LabelServiceName: "svc1"},
	}

	testCases := map[string]struct {
		cache         *EndpointSliceCache
		initialSlice  *discoveryv1.EndpointSlice
		updatedSlice  *discoveryv1.EndpointSlice
		expectChanged bool
	}{
		"identical slices, ports only": {
			cache: NewEndpointSliceCache("", nil),
			initialSlice: &discoveryv1.EndpointSlice{
				ObjectMeta: objMeta,
				Ports:      []discoveryv1.EndpointPort{port80},
			},
			updatedSlice: &discoveryv1.EndpointSlice{
				ObjectMeta: objMeta,
				Ports:      []discoveryv1.EndpointPort{port80},
			},
			expectChanged: false,
		},
		"identical slices, ports out of order": {
			cache: NewEndpointSliceCache("", nil),
			initialSlice: &discoveryv1.EndpointSlice{
				ObjectMeta: objMeta,
				Ports:      []discoveryv1.EndpointPort{port443, port80},
			},
			updatedSlice: &discoveryv1.EndpointSlice{
				ObjectMeta: objMeta,
				Ports:      []discoveryv1.EndpointPort{port80, port443},
			},
			expectChanged: true,
		},
		"port removed": {
			cache: NewEndpointSliceCache("", nil),
			initialSlice: &discoveryv1.EndpointSlice{
				ObjectMeta: objMeta,
				Ports:      []discoveryv1.EndpointPort{port443, port80},
			},
			updatedSlice: &discoveryv1.EndpointSlice{
				ObjectMeta: objMeta,
				Ports:      []discoveryv1.EndpointPort{port443},
			},
			expectChanged: true,
		},
		"port added": {
			cache: NewEndpointSliceCache("", nil),
			initialSlice: &discoveryv1.EndpointSlice{
				ObjectMeta: objMeta,
				Ports:      []discoveryv1.EndpointPort{port443},
			},
			updatedSlice: &discoveryv1.EndpointSlice{
				ObjectMeta: objMeta,
				Ports:      []discoveryv1.EndpointPort{port443, port80},
			},
			expectChanged: true,
		},
		"identical with endpoints": {
			cache: NewEndpointSliceCache("", nil),
			initialSlice: &discoveryv1.EndpointSlice{
				ObjectMeta: objMeta,
				Ports:      []discoveryv1.EndpointPort{port443},
				Endpoints:  []discoveryv1.Endpoint{endpoint1, endpoint2},
			},
			updatedSlice: &discoveryv1.EndpointSlice{
				ObjectMeta: objMeta,
				Ports:      []discoveryv1.EndpointPort{port443},
				Endpoints:  []discoveryv1.Endpoint{endpoint1, endpoint2},
			},
			expectChanged: false,
		},
		"identical with endpoints out of order": {
			cache: NewEndpointSliceCache("", nil),
			initialSlice: &discoveryv1.EndpointSlice{
				ObjectMeta: objMeta,
				Ports:      []discoveryv1.EndpointPort{port443},
				Endpoints:  []discoveryv1.Endpoint{endpoint1, endpoint2},
			},
			updatedSlice: &discoveryv1.EndpointSlice{
				ObjectMeta: objMeta,
				Ports:      []discoveryv1.EndpointPort{port443},
				Endpoints:  []discoveryv1.Endpoint{endpoint2, endpoint1},
			},
			expectChanged: true,
		},
		"identical with endpoint added": {
			cache: NewEndpointSliceCache("", nil),
			initialSlice: &discoveryv1.EndpointSlice{
				ObjectMeta: objMeta,
				Ports:      []discoveryv1.EndpointPort{port443},
				Endpoints:  []discoveryv1.Endpoint{endpoint1},
			},
			updatedSlice: &discoveryv1.EndpointSlice{
				ObjectMeta: objMeta,
				Ports:      []discoveryv1.EndpointPort{port443},
				Endpoints:  []discoveryv1.Endpoint{endpoint2, endpoint1},
			},
			expectChanged: true,
		},
	}

	for name, tc := range testCases {
		t.Run(name, func(t *testing.T) {

			if tc.initialSlice != nil {
				tc.cache.updatePending(tc.initialSlice, false)
				tc.cache.checkoutChanges()
			}

			serviceKey, sliceKey, err := endpointSliceCacheKeys(tc.updatedSlice)
			if err != nil {
				t.Fatalf("Expected no error calling endpointSliceCacheKeys(): %v", err)
			}

			esData := &endpointSliceData{tc.updatedSlice, false}
			changed := tc.cache.esDataChanged(serviceKey, sliceKey, esData)

			if tc.expectChanged != changed {
				t.Errorf("Expected esDataChanged() to return %t, got %t", tc.expectChanged, changed)
			}
		})
	}
}

func generateEndpointSliceWithOffset(serviceName, namespace string, sliceNum, offset, numEndpoints, unreadyMod int, terminatingMod int, hosts []string, portNums []*int32) *discoveryv1.EndpointSlice {
	endpointSlice := &discoveryv1.EndpointSlice{
		ObjectMeta: metav1.ObjectMeta{
			Name:      fmt.Sprintf("%s-%d", serviceName, sliceNum),
			Namespace: namespace,
			Labels:    map[string]string{discoveryv1.LabelServiceName: serviceName},
		},
		Ports:       []discoveryv1.EndpointPort{},
		AddressType: discoveryv1.AddressTypeIPv4,
		Endpoints:   []discoveryv1.Endpoint{},
	}

	for i, portNum := range portNums {
		endpointSlice.Ports = append(endpointSlice.Ports, discoveryv1.EndpointPort{
			Name:     ptr.To(fmt.Sprintf("port-%d", i)),
			Port:     portNum,
			Protocol: ptr.To(corev1.ProtocolTCP),
		})
	}

	for i := 1; i <= numEndpoints; i++ {
		readyCondition := i%unreadyMod != 0
		terminatingCondition := i%terminatingMod == 0

		ready := ptr.To(readyCondition && !terminatingCondition)
		serving := ptr.To(readyCondition)
		terminating := ptr.To(terminatingCondition)

		endpoint := discoveryv1.Endpoint{
			Addresses: []string{fmt.Sprintf("10.0.%d.%d", offset, i)},
			Conditions: discoveryv1.EndpointConditions{
				Ready:       ready,
				Serving:     serving,
				Terminating: terminating,
			},
		}

		if len(hosts) > 0 {
			hostname := hosts[i%len(hosts)]
			endpoint.NodeName = &hostname
		}

		endpointSlice.Endpoints = append(endpointSlice.Endpoints, endpoint)
	}

	return endpointSlice
}

func generateEndpointSlice(serviceName, namespace string, sliceNum, numEndpoints, unreadyMod int, terminatingMod int, hosts []string, portNums []*int32) *discoveryv1.EndpointSlice {
	return generateEndpointSliceWithOffset(serviceName, namespace, sliceNum, sliceNum, numEndpoints, unreadyMod, terminatingMod, hosts, portNums)
}

func TestEndpointSliceCacheClearedCorrectly(t *testing.T) {
	initEndpointsPorts := func(eps *discoveryv1.EndpointSlice) {
		eps.Endpoints = []discoveryv1.Endpoint{{
			Addresses: []string{"1.1.1.1"},
			NodeName:  ptr.To(testHostname),
		}}
		eps.Ports = []discoveryv1.EndpointPort{{
			Name:     ptr.To("n1"),
			Port:     ptr.To[int32](11),
			Protocol: ptr.To(corev1.ProtocolUDP),
		}}
	}

	testCases := []struct {
		name               string
		currEndpointSlices []*discoveryv1.EndpointSlice
	}{
		{
			name: "one endpoint slice",
			currEndpointSlices: []*discoveryv1.EndpointSlice{
				makeTestEndpointSlice("ns1", "ep1", 1, initEndpointsPorts),
			},
		},
		{
			name: "two endpoint slices, same namespace",
			currEndpointSlices: []*discoveryv1.EndpointSlice{
				makeTestEndpointSlice("ns1", "ep1", 1, initEndpointsPorts),
				makeTestEndpointSlice("ns1", "ep2", 2, initEndpointsPorts),
			},
		},
		{
			name: "two endpoint slices, same service",
			currEndpointSlices: []*discoveryv1.EndpointSlice{
				makeTestEndpointSlice("ns1", "ep1", 1, initEndpointsPorts),
				makeTestEndpointSlice("ns1", "ep1", 2, initEndpointsPorts),
			},
		},
		{
			name: "two endpoint slices, different namespace",
			currEndpointSlices: []*discoveryv1.EndpointSlice{
				makeTestEndpointSlice("ns1", "ep1", 1, initEndpointsPorts),
				makeTestEndpointSlice("ns2", "ep1", 2, initEndpointsPorts),
			},
		},
	}

	for _, tc := range testCases {
		t.Run(tc.name, func(t *testing.T) {
			fp := newFakeProxier(corev1.IPv4Protocol, time.Time{})

			for _, epSlice := range tc.currEndpointSlices {
				fp.addEndpointSlice(epSlice)
			}
			fp.endpointsMap.Update(fp.endpointsChanges)

			for _, epSlice := range tc.currEndpointSlices {
				fp.deleteEndpointSlice(epSlice)
			}
			fp.endpointsMap.Update(fp.endpointsChanges)

			if len(fp.endpointsChanges.endpointSliceCache.trackerByServiceMap) != 0 {
				t.Errorf("expected: endpointSliceCache does not have any entries, got: %v", fp.endpointsChanges.endpointSliceCache.trackerByServiceMap)
			}
		})
	}
}

func TestSameServiceEndpointSliceCacheClearedCorrectly(t *testing.T) {
	initEndpointsPorts := func(eps *discoveryv1.EndpointSlice) {
		eps.Endpoints = []discoveryv1.Endpoint{{
			Addresses: []string{"1.1.1.1"},
			NodeName:  ptr.To(testHostname),
		}}
		eps.Ports = []discoveryv1.EndpointPort{{
			Name:     ptr.To("n1"),
			Port:     ptr.To[int32](11),
			Protocol: ptr.To(corev1.ProtocolUDP),
		}}
	}

	currEndpointSlices := []*discoveryv1.EndpointSlice{
		makeTestEndpointSlice("ns1", "svc1", 1, initEndpointsPorts),
		makeTestEndpointSlice("ns1", "svc1", 2, initEndpointsPorts),
	}

	fp := newFakeProxier(corev1.IPv4Protocol, time.Time{})

	for _, epSlice := range currEndpointSlices {
		fp.addEndpointSlice(epSlice)
	}
	fp.endpointsMap.Update(fp.endpointsChanges)

	// only delete the first endpoint slice
	fp.deleteEndpointSlice(currEndpointSlices[0])

	fp.endpointsMap.Update(fp.endpointsChanges)

	if len(fp.endpointsChanges.endpointSliceCache.trackerByServiceMap) != 1 {
		t.Errorf("expected: endpointSliceCache to have one entries, got: %v", fp.endpointsChanges.endpointSliceCache.trackerByServiceMap)
	}
}
