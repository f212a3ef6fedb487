package endpoint

import (
	"context"
	"encoding/json"
	"fmt"
	"sort"

	"kubik/ch01-apiserver/api/corev1"
	"kubik/ch01-apiserver/api/metav1"
	"kubik/ch03-scheduler/clientgo/rest"
	"kubik/ch03-scheduler/clientgo/tools/cache"
	"kubik/ch04-controllers/controller/endpointutil"
)

// maxCapacity is the most addresses an Endpoints object holds; beyond it
// the rest are dropped and the object is annotated over-capacity.
const maxCapacity = 1000

const (
	// EndpointsOverCapacity is the annotation of truncated Endpoints.
	EndpointsOverCapacity = "endpoints.kubernetes.io/over-capacity"
	// LabelIsHeadlessService marks the Endpoints of a headless Service.
	LabelIsHeadlessService = "service.kubernetes.io/headless"
)

// syncService writes the Endpoints of one Service. Upstream:
// Controller.syncService.
func (c *EndpointController) syncService(ctx context.Context, key string) error {
	ns, name := cache.SplitMetaNamespaceKey(key)
	svc, ok := c.services.GetStore().Get(ns, name)
	if !ok {
		// The Service is gone: so are its Endpoints (the garbage collector
		// would too, but they carry no ownerReference, as upstream).
		err := rest.Delete[corev1.Endpoints](ctx, c.client, ns, name, nil)
		if rest.IsNotFound(err) {
			return nil
		}
		return err
	}
	if svc.Spec.Type == corev1.ServiceTypeExternalName || svc.Spec.Selector == nil {
		return nil // not ours (default/kubernetes: the apiserver's)
	}
	pods := endpointutil.SelectedPods(svc, c.pods.GetStore().ByIndex(cache.NamespaceIndex, ns))
	subsets := BuildSubsets(svc, pods)
	total := 0
	for _, s := range subsets {
		total += len(s.Addresses) + len(s.NotReadyAddresses)
	}

	cur, exists := c.endpoints.GetStore().Get(ns, name)
	want := &corev1.Endpoints{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns}}
	if exists {
		want = metav1.DeepCopy(cur)
	}
	want.Subsets = subsets
	want.Labels = copyLabels(svc.Labels)
	want.Labels[LabelManagedBy] = ControllerName
	if svc.Spec.ClusterIP == corev1.ClusterIPNone {
		want.Labels[LabelIsHeadlessService] = ""
	}
	if want.Annotations == nil {
		want.Annotations = map[string]string{}
	}
	delete(want.Annotations, EndpointsOverCapacity)
	if total > maxCapacity {
		want.Annotations[EndpointsOverCapacity] = "truncated"
	}
	if exists && equalJSON(cur.Subsets, want.Subsets) && equalJSON(cur.Labels, want.Labels) &&
		cur.Annotations[EndpointsOverCapacity] == want.Annotations[EndpointsOverCapacity] {
		return nil // nothing to write; the trigger time only changes with a write
	}
	if t := endpointutil.LastChangeTriggerTime(svc, pods); t != "" {
		want.Annotations[endpointutil.EndpointsLastChangeTriggerTime] = t
	}
	var err error
	if exists {
		_, err = rest.Update(ctx, c.client, want)
	} else {
		_, err = rest.Create(ctx, c.client, want)
		if rest.IsAlreadyExists(err) {
			return fmt.Errorf("endpoints %s exist but are not in the cache yet", key) // retried
		}
	}
	if err == nil {
		c.log.Info("endpoints updated", "service", key, "addresses", total)
	}
	return err
}

// BuildSubsets turns the selected pods into Endpoints subsets (see the
// package comment).
func BuildSubsets(svc *corev1.Service, pods []*corev1.Pod) []corev1.EndpointSubset {
	var subsets []corev1.EndpointSubset
	n := 0
	for _, p := range pods {
		if !endpointutil.ShouldPodBeInEndpoints(p, svc.Spec.PublishNotReadyAddresses) {
			continue
		}
		if n >= maxCapacity {
			break
		}
		n++
		nodeName := p.Spec.NodeName
		addr := corev1.EndpointAddress{IP: p.Status.PodIP, TargetRef: endpointutil.PodRef(p),
			Hostname: endpointutil.PodHostname(p, svc)}
		if nodeName != "" {
			addr.NodeName = &nodeName
		}
		ready := svc.Spec.PublishNotReadyAddresses || endpointutil.IsPodReady(p)
		if len(svc.Spec.Ports) == 0 {
			// A headless Service without ports: addresses only.
			if svc.Spec.ClusterIP == corev1.ClusterIPNone {
				subsets = append(subsets, subset(addr, ready, nil))
			}
			continue
		}
		for i := range svc.Spec.Ports {
			sp := &svc.Spec.Ports[i]
			port, err := endpointutil.FindPort(p, sp)
			if err != nil {
				continue // this pod does not have the named port
			}
			subsets = append(subsets, subset(addr, ready, []corev1.EndpointPort{{Name: sp.Name, Port: port,
				Protocol: sp.Protocol, AppProtocol: sp.AppProtocol}}))
		}
	}
	return RepackSubsets(subsets)
}

func subset(a corev1.EndpointAddress, ready bool, ports []corev1.EndpointPort) corev1.EndpointSubset {
	if ready {
		return corev1.EndpointSubset{Addresses: []corev1.EndpointAddress{a}, Ports: ports}
	}
	return corev1.EndpointSubset{NotReadyAddresses: []corev1.EndpointAddress{a}, Ports: ports}
}

// RepackSubsets merges subsets so that each address appears once per port
// and addresses with the same set of ports share one subset; the result is
// sorted, so equal inputs give byte-equal objects. Upstream:
// pkg/api/v1/endpoints.RepackSubsets.
func RepackSubsets(subsets []corev1.EndpointSubset) []corev1.EndpointSubset {
	type addrKey struct{ ip, uid string }
	addrs := map[addrKey]*corev1.EndpointAddress{}
	ready := map[addrKey]bool{}
	ports := map[addrKey]map[corev1.EndpointPort]bool{}
	key := func(a *corev1.EndpointAddress) addrKey {
		k := addrKey{ip: a.IP}
		if a.TargetRef != nil {
			k.uid = a.TargetRef.UID
		}
		return k
	}
	add := func(a corev1.EndpointAddress, isReady bool, ps []corev1.EndpointPort) {
		k := key(&a)
		if _, ok := addrs[k]; !ok {
			addrs[k] = &a
			ports[k] = map[corev1.EndpointPort]bool{}
		}
		ready[k] = isReady
		for _, p := range ps {
			p.AppProtocol = nil // compared by value below; put back from the first seen
			ports[k][p] = true
		}
	}
	appProto := map[corev1.EndpointPort]*string{}
	for _, s := range subsets {
		for _, p := range s.Ports {
			q := p
			q.AppProtocol = nil
			if _, ok := appProto[q]; !ok {
				appProto[q] = p.AppProtocol
			}
		}
		for _, a := range s.Addresses {
			add(a, true, s.Ports)
		}
		for _, a := range s.NotReadyAddresses {
			add(a, false, s.Ports)
		}
	}
	// Group the addresses by their port set.
	type group struct {
		ports           []corev1.EndpointPort
		ready, notReady []corev1.EndpointAddress
	}
	groups := map[string]*group{}
	var order []string
	for k, a := range addrs {
		var ps []corev1.EndpointPort
		for p := range ports[k] {
			p.AppProtocol = appProto[p]
			ps = append(ps, p)
		}
		sort.Slice(ps, func(i, j int) bool {
			if ps[i].Name != ps[j].Name {
				return ps[i].Name < ps[j].Name
			}
			return ps[i].Port < ps[j].Port
		})
		gk, _ := json.Marshal(ps)
		g, ok := groups[string(gk)]
		if !ok {
			g = &group{ports: ps}
			groups[string(gk)] = g
			order = append(order, string(gk))
		}
		if ready[k] {
			g.ready = append(g.ready, *a)
		} else {
			g.notReady = append(g.notReady, *a)
		}
	}
	sort.Strings(order)
	byIP := func(as []corev1.EndpointAddress) {
		sort.Slice(as, func(i, j int) bool {
			if as[i].IP != as[j].IP {
				return as[i].IP < as[j].IP
			}
			return as[i].TargetRef != nil && as[j].TargetRef != nil && as[i].TargetRef.UID < as[j].TargetRef.UID
		})
	}
	var out []corev1.EndpointSubset
	for _, k := range order {
		g := groups[k]
		byIP(g.ready)
		byIP(g.notReady)
		out = append(out, corev1.EndpointSubset{Addresses: g.ready, NotReadyAddresses: g.notReady, Ports: g.ports})
	}
	return out
}

func equalJSON(a, b any) bool {
	x, _ := json.Marshal(a)
	y, _ := json.Marshal(b)
	return string(x) == string(y)
}
