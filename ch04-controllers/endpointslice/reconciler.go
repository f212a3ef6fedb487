package endpointslice

import (
	"context"
	"encoding/json"
	"maps"
	"net/netip"
	"sort"

	"kubik/ch01-apiserver/api/corev1"
	"kubik/ch01-apiserver/api/discoveryv1"
	"kubik/ch01-apiserver/api/metav1"
	"kubik/ch03-scheduler/clientgo/rest"
	"kubik/ch03-scheduler/clientgo/tools/cache"
	"kubik/ch04-controllers/controller"
	"kubik/ch04-controllers/controller/endpointutil"
)

// LabelIsHeadlessService marks the slices of a headless Service.
const LabelIsHeadlessService = "service.kubernetes.io/headless"

// syncService reconciles the slices of one Service. Upstream:
// Controller.syncService + reconciler.Reconcile.
func (c *EndpointSliceController) syncService(ctx context.Context, key string) error {
	ns, name := cache.SplitMetaNamespaceKey(key)
	existing := c.slices.GetStore().ByIndex(indexByService, key)
	sort.Slice(existing, func(i, j int) bool { return existing[i].Name < existing[j].Name })
	svc, ok := c.services.GetStore().Get(ns, name)
	if !ok {
		// Gone: its slices go with it (the garbage collector would also
		// delete them through their ownerReference).
		for _, s := range existing {
			if err := rest.Delete[discoveryv1.EndpointSlice](ctx, c.client, s.Namespace, s.Name, nil); err != nil && !rest.IsNotFound(err) {
				return err
			}
		}
		c.tracker.forget(key)
		return nil
	}
	if c.tracker.stale(key, existing) {
		return errStaleCache
	}
	if svc.Spec.Selector == nil || svc.Spec.Type == corev1.ServiceTypeExternalName {
		return nil
	}
	pods := endpointutil.SelectedPods(svc, c.pods.GetStore().ByIndex(cache.NamespaceIndex, ns))
	groups := c.desiredGroups(svc, pods)

	// The slices wanted: each group cut into chunks of MaxEndpointsPerSlice.
	type wanted struct {
		ports     []discoveryv1.EndpointPort
		endpoints []discoveryv1.Endpoint
	}
	var want []wanted
	for _, g := range groups {
		for i := 0; i < len(g.endpoints); i += c.MaxEndpointsPerSlice {
			want = append(want, wanted{g.ports, g.endpoints[i:min(i+c.MaxEndpointsPerSlice, len(g.endpoints))]})
		}
	}
	if len(want) == 0 {
		// The placeholder: no ports, no endpoints. Upstream builds it with an
		// empty list, which its protobuf storage gives back as null; ours
		// stores JSON, so nil keeps "endpoints": null on the wire as there.
		want = append(want, wanted{nil, nil})
	}

	// Reuse existing slices: first a slice that already holds exactly a
	// wanted chunk (so a sync that changes nothing writes nothing, whatever
	// order the slices' generated names sort in), then any slice with the
	// same ports. Upstream goes further and keeps each endpoint in the
	// slice that holds it.
	used := map[string]bool{}
	pick := func(w wanted, exact bool) *discoveryv1.EndpointSlice {
		for _, s := range existing {
			if !used[s.Name] && equalJSON(s.Ports, w.ports) && (!exact || equalJSON(s.Endpoints, w.endpoints)) {
				used[s.Name] = true
				return s
			}
		}
		return nil
	}
	reused := make([]*discoveryv1.EndpointSlice, len(want))
	for i, w := range want {
		reused[i] = pick(w, true)
	}
	for i, w := range want {
		if reused[i] == nil {
			reused[i] = pick(w, false)
		}
	}
	trigger := endpointutil.LastChangeTriggerTime(svc, pods)
	var toWrite []*discoveryv1.EndpointSlice
	for i, w := range want {
		s := c.newSlice(svc)
		if old := reused[i]; old != nil {
			s = metav1.DeepCopy(old)
		}
		s.Ports, s.Endpoints = w.ports, w.endpoints
		s.Labels = c.labels(svc, s.Labels)
		toWrite = append(toWrite, s)
	}
	for _, s := range toWrite {
		if s.Name != "" {
			if old, _ := c.slices.GetStore().Get(s.Namespace, s.Name); old != nil && equalJSON(old.Endpoints, s.Endpoints) &&
				equalJSON(old.Ports, s.Ports) && maps.Equal(old.Labels, s.Labels) {
				continue
			}
		}
		if s.Annotations == nil {
			s.Annotations = map[string]string{}
		}
		if trigger != "" {
			s.Annotations[endpointutil.EndpointsLastChangeTriggerTime] = trigger
		}
		var written *discoveryv1.EndpointSlice
		var err error
		if s.Name == "" {
			written, err = rest.Create(ctx, c.client, s)
		} else {
			written, err = rest.Update(ctx, c.client, s)
		}
		if err != nil {
			return err
		}
		c.tracker.wrote(key, written.Name, written.ResourceVersion)
	}
	for _, s := range existing {
		if !used[s.Name] {
			if err := rest.Delete[discoveryv1.EndpointSlice](ctx, c.client, s.Namespace, s.Name, nil); err != nil && !rest.IsNotFound(err) {
				return err
			}
			c.tracker.wrote(key, s.Name, "")
		}
	}
	return nil
}

type endpointGroup struct {
	ports     []discoveryv1.EndpointPort
	endpoints []discoveryv1.Endpoint
}

// desiredGroups is the wanted endpoints, grouped by port list, sorted.
func (c *EndpointSliceController) desiredGroups(svc *corev1.Service, pods []*corev1.Pod) []*endpointGroup {
	groups := map[string]*endpointGroup{}
	var keys []string
	for _, p := range pods {
		// Terminating pods are kept, with terminating=true.
		if !endpointutil.ShouldPodBeInEndpoints(p, true) {
			continue
		}
		ip := ipv4Of(p)
		if ip == "" {
			continue
		}
		var ports []discoveryv1.EndpointPort
		for i := range svc.Spec.Ports {
			sp := &svc.Spec.Ports[i]
			n, err := endpointutil.FindPort(p, sp)
			if err != nil {
				continue
			}
			name, proto := sp.Name, sp.Protocol
			ports = append(ports, discoveryv1.EndpointPort{Name: &name, Port: &n, Protocol: &proto, AppProtocol: sp.AppProtocol})
		}
		if len(ports) == 0 && len(svc.Spec.Ports) > 0 {
			continue
		}
		k, _ := json.Marshal(ports)
		g, ok := groups[string(k)]
		if !ok {
			g = &endpointGroup{ports: ports}
			groups[string(k)] = g
			keys = append(keys, string(k))
		}
		g.endpoints = append(g.endpoints, c.podToEndpoint(p, svc, ip))
	}
	sort.Strings(keys)
	var out []*endpointGroup
	for _, k := range keys {
		g := groups[k]
		sort.Slice(g.endpoints, func(i, j int) bool { return g.endpoints[i].Addresses[0] < g.endpoints[j].Addresses[0] })
		out = append(out, g)
	}
	return out
}

// podToEndpoint is one pod as an endpoint. Upstream: podToEndpoint.
func (c *EndpointSliceController) podToEndpoint(p *corev1.Pod, svc *corev1.Service, ip string) discoveryv1.Endpoint {
	serving := endpointutil.IsPodReady(p)
	terminating := p.DeletionTimestamp != nil
	// For compatibility, "ready" is never true for a terminating pod,
	// unless publishNotReadyAddresses is set.
	ready := svc.Spec.PublishNotReadyAddresses || (serving && !terminating)
	ep := discoveryv1.Endpoint{Addresses: []string{ip},
		Conditions: discoveryv1.EndpointConditions{Ready: &ready, Serving: &serving, Terminating: &terminating},
		TargetRef:  endpointutil.PodRef(p)}
	if p.Spec.NodeName != "" {
		nodeName := p.Spec.NodeName
		ep.NodeName = &nodeName
		if n, ok := c.nodes.GetStore().Get("", nodeName); ok {
			if zone, ok := n.Labels[corev1.LabelTopologyZone]; ok {
				ep.Zone = &zone
			}
		}
	}
	if h := endpointutil.PodHostname(p, svc); h != "" {
		ep.Hostname = &h
	}
	return ep
}

func ipv4Of(p *corev1.Pod) string {
	cands := []string{p.Status.PodIP}
	for _, ip := range p.Status.PodIPs {
		cands = append(cands, ip.IP)
	}
	for _, s := range cands {
		if a, err := netip.ParseAddr(s); err == nil && a.Is4() {
			return s
		}
	}
	return ""
}

func (c *EndpointSliceController) newSlice(svc *corev1.Service) *discoveryv1.EndpointSlice {
	ref := controller.NewControllerRef(&svc.ObjectMeta, "v1", "Service")
	return &discoveryv1.EndpointSlice{
		ObjectMeta: metav1.ObjectMeta{GenerateName: svc.Name + "-", Namespace: svc.Namespace,
			OwnerReferences: []metav1.OwnerReference{ref}},
		AddressType: discoveryv1.AddressTypeIPv4,
	}
}

// labels: the Service's labels plus the controller's own.
func (c *EndpointSliceController) labels(svc *corev1.Service, _ map[string]string) map[string]string {
	l := maps.Clone(svc.Labels)
	if l == nil {
		l = map[string]string{}
	}
	l[discoveryv1.LabelServiceName] = svc.Name
	l[discoveryv1.LabelManagedBy] = ControllerName
	if svc.Spec.ClusterIP == corev1.ClusterIPNone {
		l[LabelIsHeadlessService] = ""
	}
	return l
}

func equalJSON(a, b any) bool {
	x, _ := json.Marshal(a)
	y, _ := json.Marshal(b)
	return string(x) == string(y)
}
