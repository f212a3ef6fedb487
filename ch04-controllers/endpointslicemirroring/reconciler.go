package endpointslicemirroring

import (
	"context"
	"encoding/json"
	"maps"
	"net/netip"

	"kubik/ch01-apiserver/api/corev1"
	"kubik/ch01-apiserver/api/discoveryv1"
	"kubik/ch01-apiserver/api/metav1"
	"kubik/ch03-scheduler/clientgo/rest"
	"kubik/ch04-controllers/controller"
)

// lastAppliedAnnotation and lastChangeTriggerTime are the Endpoints
// annotations a slice does not copy.
const (
	lastAppliedAnnotation = "kubectl.kubernetes.io/last-applied-configuration"
	lastChangeTriggerTime = "endpoints.kubernetes.io/last-change-trigger-time"
)

// desiredSlice is one slice wanted: one subset's ports and its addresses
// of one family.
type desiredSlice struct {
	addressType discoveryv1.AddressType
	ports       []discoveryv1.EndpointPort
	endpoints   []discoveryv1.Endpoint
}

// desiredSlices turns the Endpoints' subsets into slices. Upstream:
// reconciler.reconcile's desiredState.
func desiredSlices(ep *corev1.Endpoints) []desiredSlice {
	var out []desiredSlice
	for _, subset := range ep.Subsets {
		ports := make([]discoveryv1.EndpointPort, 0, len(subset.Ports))
		for _, p := range subset.Ports {
			name, port, protocol := p.Name, p.Port, p.Protocol
			ports = append(ports, discoveryv1.EndpointPort{Name: &name, Port: &port, Protocol: &protocol, AppProtocol: p.AppProtocol})
		}
		byType := map[discoveryv1.AddressType][]discoveryv1.Endpoint{}
		var order []discoveryv1.AddressType
		add := func(a corev1.EndpointAddress, ready bool) {
			ip, err := netip.ParseAddr(a.IP)
			if err != nil {
				return // not an IP address: not mirrored
			}
			t := discoveryv1.AddressTypeIPv4
			if ip.Is6() && !ip.Is4In6() {
				t = discoveryv1.AddressTypeIPv6
			}
			if _, seen := byType[t]; !seen {
				order = append(order, t)
			}
			byType[t] = append(byType[t], addressToEndpoint(a, ready))
		}
		for _, a := range subset.Addresses {
			add(a, true)
		}
		for _, a := range subset.NotReadyAddresses {
			add(a, false)
		}
		for _, t := range order {
			out = append(out, desiredSlice{addressType: t, ports: ports, endpoints: byType[t]})
		}
	}
	return out
}

// addressToEndpoint: the address, its readiness (only that condition is
// known), hostname, node and target. Upstream: addressToEndpoint.
func addressToEndpoint(a corev1.EndpointAddress, ready bool) discoveryv1.Endpoint {
	e := discoveryv1.Endpoint{Addresses: []string{a.IP}, Conditions: discoveryv1.EndpointConditions{Ready: &ready},
		TargetRef: a.TargetRef, NodeName: a.NodeName}
	if a.Hostname != "" {
		h := a.Hostname
		e.Hostname = &h
	}
	return e
}

// sliceMeta are the labels and annotations every mirrored slice of ep
// carries.
func sliceMeta(ep *corev1.Endpoints) (labels, annotations map[string]string) {
	labels = maps.Clone(ep.Labels)
	if labels == nil {
		labels = map[string]string{}
	}
	labels[discoveryv1.LabelServiceName] = ep.Name
	labels[discoveryv1.LabelManagedBy] = ControllerName
	annotations = map[string]string{}
	for k, v := range ep.Annotations {
		if k != lastAppliedAnnotation && k != lastChangeTriggerTime {
			annotations[k] = v
		}
	}
	return labels, annotations
}

// reconcile makes the existing mirrored slices the desired ones: a slice
// already right is kept as it is, one of the same address type is
// rewritten, the missing ones created, the surplus deleted.
func (c *Controller) reconcile(ctx context.Context, key string, ep *corev1.Endpoints, existing []*discoveryv1.EndpointSlice) error {
	labels, annotations := sliceMeta(ep)
	want := desiredSlices(ep)
	used := map[string]bool{}
	matches := func(s *discoveryv1.EndpointSlice, d desiredSlice, exact bool) bool {
		if used[s.Name] || s.AddressType != d.addressType {
			return false
		}
		return !exact || equalJSON(s.Ports, d.ports) && equalJSON(s.Endpoints, d.endpoints) &&
			maps.Equal(s.Labels, labels) && equalAnnotations(s.Annotations, annotations) && ownedBy(s, ep)
	}
	var todo []desiredSlice
	for _, d := range want {
		found := false
		for _, s := range existing {
			if matches(s, d, true) {
				used[s.Name], found = true, true
				break
			}
		}
		if !found {
			todo = append(todo, d)
		}
	}
	for _, d := range todo {
		var reuse *discoveryv1.EndpointSlice
		for _, s := range existing {
			if matches(s, d, false) {
				reuse = s
				used[s.Name] = true
				break
			}
		}
		if reuse != nil {
			s := metav1.DeepCopy(reuse)
			s.Labels, s.Annotations, s.Ports, s.Endpoints = labels, annotations, d.ports, d.endpoints
			s.OwnerReferences = []metav1.OwnerReference{controller.NewControllerRef(&ep.ObjectMeta, "v1", "Endpoints")}
			if _, err := rest.Update(ctx, c.client, s); err != nil {
				return err
			}
			continue
		}
		s := &discoveryv1.EndpointSlice{
			ObjectMeta: metav1.ObjectMeta{Namespace: ep.Namespace, GenerateName: slicePrefix(ep.Name), Labels: labels, Annotations: annotations,
				OwnerReferences: []metav1.OwnerReference{controller.NewControllerRef(&ep.ObjectMeta, "v1", "Endpoints")}},
			AddressType: d.addressType, Ports: d.ports, Endpoints: d.endpoints,
		}
		created, err := rest.Create(ctx, c.client, s)
		if err != nil {
			return err
		}
		c.wrote(key, created.Name, true)
	}
	var surplus []*discoveryv1.EndpointSlice
	for _, s := range existing {
		if !used[s.Name] {
			surplus = append(surplus, s)
		}
	}
	return c.deleteSlices(ctx, key, surplus)
}

// slicePrefix is the generateName of a Service's slices: its name and a
// dash, cut so that the generated suffix fits. Upstream: getEndpointSlicePrefix.
func slicePrefix(name string) string {
	prefix := name + "-"
	if len(prefix) > 58 {
		prefix = prefix[:58]
	}
	return prefix
}

func ownedBy(s *discoveryv1.EndpointSlice, ep *corev1.Endpoints) bool {
	ref := metav1.GetControllerOf(&s.ObjectMeta)
	return ref != nil && ref.UID == ep.UID
}

// equalAnnotations: nil and empty are the same.
func equalAnnotations(a, b map[string]string) bool {
	return len(a) == 0 && len(b) == 0 || maps.Equal(a, b)
}

func equalJSON(a, b any) bool {
	x, err1 := json.Marshal(a)
	y, err2 := json.Marshal(b)
	return err1 == nil && err2 == nil && string(x) == string(y)
}
