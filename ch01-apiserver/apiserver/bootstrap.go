package apiserver

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"slices"
	"strings"
	"sync"
	"time"

	"kubik/ch01-apiserver/api/corev1"
	"kubik/ch01-apiserver/api/discoveryv1"
	"kubik/ch01-apiserver/api/intstr"
	"kubik/ch01-apiserver/api/metav1"
	"kubik/ch01-apiserver/api/networkingv1"
	"kubik/ch01-apiserver/api/schedulingv1"
	"kubik/ch01-apiserver/api/scheme"
	"kubik/ch01-apiserver/apiserver/auth"
	"kubik/ch01-apiserver/apiserver/auth/rbac/bootstrappolicy"
)

// Bootstrap creates what a real apiserver creates for itself at start (its
// "post-start hooks"): the four system namespaces, the two system
// PriorityClasses, the bootstrap RBAC roles and bindings, the default
// ServiceCIDR "kubernetes" (Ready), and the "kubernetes" Service in "default"
// with the Endpoints/EndpointSlice that point at this apiserver (see
// EndpointReconciler). Existing objects are left alone, so several
// apiservers and restarts are fine.
func (s *Server) Bootstrap(ctx context.Context) error {
	for _, name := range []string{"default", "kube-system", "kube-public", "kube-node-lease"} {
		if err := s.ensure(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name}}); err != nil {
			return err
		}
	}
	for _, pc := range schedulingv1.SystemPriorityClasses() {
		if err := s.ensure(ctx, pc); err != nil {
			return err
		}
	}
	// The RBAC bootstrap policy: cluster-admin for system:masters, discovery
	// for everyone, the component roles (auth/rbac/bootstrappolicy).
	for _, role := range bootstrappolicy.ClusterRoles() {
		if err := s.ensure(ctx, role); err != nil {
			return err
		}
	}
	for _, b := range bootstrappolicy.ClusterRoleBindings() {
		if err := s.ensure(ctx, b); err != nil {
			return err
		}
	}
	for _, role := range bootstrappolicy.NamespaceRoles() {
		if err := s.ensure(ctx, role); err != nil {
			return err
		}
	}
	for _, b := range bootstrappolicy.NamespaceRoleBindings() {
		if err := s.ensure(ctx, b); err != nil {
			return err
		}
	}
	// What extension apiservers read to trust this one's clients
	// (aggregator.go).
	if err := s.ensureAuthenticationConfigMap(ctx); err != nil {
		return err
	}
	if err := s.bootstrapFlowControl(ctx); err != nil {
		return fmt.Errorf("creating the API Priority and Fairness objects: %w", err)
	}
	if err := s.upgradeIPAddresses(ctx); err != nil {
		return fmt.Errorf("upgrading the stored ClusterIPs: %w", err)
	}
	if err := s.ensureDefaultServiceCIDR(ctx); err != nil {
		return err
	}
	port := int32(s.cfg.SecurePort)
	svc := &corev1.Service{
		ObjectMeta: metav1.ObjectMeta{Name: "kubernetes", Namespace: "default",
			Labels: map[string]string{"component": "apiserver", "provider": "kubernetes"}},
		Spec: corev1.ServiceSpec{
			Type:      corev1.ServiceTypeClusterIP,
			ClusterIP: s.ipAlloc.FirstIP().String(),
			Ports: []corev1.ServicePort{{Name: "https", Protocol: corev1.ProtocolTCP, Port: 443,
				TargetPort: intstr.FromInt(int(port))}},
			SessionAffinity: corev1.ServiceAffinityNone,
		},
	}
	if err := s.ensure(ctx, svc); err != nil {
		return err
	}
	// The Endpoints and EndpointSlice say where the apiserver really is:
	// this apiserver's own address, or — with a configured
	// EndpointReconciler — every apiserver's.
	return s.reconcileEndpointsAtStart(ctx)
}

// ensureDefaultServiceCIDR is upstream's default-servicecidr controller at
// start: the ServiceCIDR "kubernetes" holds --service-cluster-ip-range and
// is Ready.
func (s *Server) ensureDefaultServiceCIDR(ctx context.Context) error {
	const name = "kubernetes"
	if err := s.ensure(ctx, &networkingv1.ServiceCIDR{ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec: networkingv1.ServiceCIDRSpec{CIDRs: []string{s.ipAlloc.prefix.String()}}}); err != nil {
		return err
	}
	res := scheme.Lookup(networkingv1.GroupName, "v1", "servicecidrs")
	q := s.selfRequest(ctx, res, "update", "", name)
	q.info.Subresource = "status"
	_, _, err := s.update(ctx, q, name, "status", func(old metav1.Object) (metav1.Object, error) {
		sc := old.(*networkingv1.ServiceCIDR)
		for _, c := range sc.Status.Conditions {
			if c.Type == networkingv1.ServiceCIDRConditionReady {
				return sc, nil
			}
		}
		sc.Status.Conditions = append(sc.Status.Conditions, metav1.Condition{Type: networkingv1.ServiceCIDRConditionReady,
			Status: "True", LastTransitionTime: metav1.Now(), Message: "Kubernetes default Service CIDR is ready"})
		return sc, nil
	}, false)
	if err != nil {
		return fmt.Errorf("setting the default ServiceCIDR ready: %w", err)
	}
	return nil
}

// ensure creates obj through the normal create path unless it exists.
func (s *Server) ensure(ctx context.Context, obj metav1.Object) error {
	return s.ensureAs(ctx, "kube-apiserver", obj)
}

// ensureAs is ensure with the field manager the object is created by.
func (s *Server) ensureAs(ctx context.Context, manager string, obj metav1.Object) error {
	res := resourceOf(obj)
	if res == nil {
		return fmt.Errorf("no resource for %T", obj)
	}
	meta := obj.GetObjectMeta()
	if _, err := s.getObject(ctx, res, meta.Namespace, meta.Name); err == nil {
		return nil
	}
	_, err := s.create(ctx, s.selfRequestAs(ctx, manager, res, "create", meta.Namespace, meta.Name), obj)
	var se *StatusError
	if errors.As(err, &se) && se.Status.Code == http.StatusConflict {
		return nil // another apiserver was faster
	}
	if err != nil {
		return fmt.Errorf("creating %s %s/%s: %w", res.Kind, meta.Namespace, meta.Name, err)
	}
	s.log.Info("created", "kind", res.Kind, "namespace", meta.Namespace, "name", meta.Name)
	return nil
}

// resourceOf is the served resource whose objects are of obj's type.
func resourceOf(obj metav1.Object) *scheme.Resource {
	for _, r := range scheme.Resources {
		if fmt.Sprintf("%T", r.New()) == fmt.Sprintf("%T", obj) {
			return r
		}
	}
	return nil
}

// selfRequest is a request of the apiserver to itself, as
// system:apiserver in system:masters: what its post-start hooks and
// controllers write with.
func (s *Server) selfRequest(ctx context.Context, res *scheme.Resource, verb, namespace, name string) *request {
	return s.selfRequestAs(ctx, "kube-apiserver", res, verb, namespace, name)
}

// selfRequestAs is selfRequest recorded under another field manager.
func (s *Server) selfRequestAs(ctx context.Context, manager string, res *scheme.Resource, verb, namespace, name string) *request {
	method := map[string]string{"create": http.MethodPost, "update": http.MethodPut}[verb]
	r, _ := http.NewRequestWithContext(ctx, method, "/", nil)
	r.Header.Set("User-Agent", manager)
	return &request{w: httptest.NewRecorder(), r: r, res: res,
		info: &RequestInfo{Verb: verb, Namespace: namespace, Name: name},
		user: &auth.UserInfo{Name: "system:apiserver", Groups: []string{auth.GroupMasters}}}
}

// EndpointReconciler keeps the "kubernetes" Service's Endpoints and
// EndpointSlice listing the apiservers that serve the cluster. Every
// apiserver calls ReconcileEndpoints with its own address at start and
// then every DefaultEndpointReconcilerInterval, and RemoveEndpoints once
// when it shuts down, after StopReconciling. Upstream:
// pkg/controlplane/reconcilers.EndpointReconciler (single-stack here: one
// address per apiserver).
type EndpointReconciler interface {
	ReconcileEndpoints(ctx context.Context, ip netip.Addr, ports []corev1.EndpointPort, reconcilePorts bool) error
	RemoveEndpoints(ctx context.Context, ip netip.Addr, ports []corev1.EndpointPort) error
	StopReconciling()
}

// EndpointReconcilerFunc builds a reconciler over the adapter the server
// gives it: Config.EndpointReconciler. Upstream builds its adapter from a
// loopback client before the server exists; here the server hands over
// its own write path.
type EndpointReconcilerFunc func(*EndpointsAdapter) EndpointReconciler

// DefaultEndpointReconcilerInterval is how often a configured reconciler
// runs (upstream's DefaultEndpointReconcilerInterval).
const DefaultEndpointReconcilerInterval = 10 * time.Second

// reconcileEndpointsAtStart publishes this apiserver's endpoints. Without
// a configured reconciler that is Kubik's single-server way: the objects
// are created once with this apiserver's address and left alone after;
// a failure fails the start. With one, as upstream's kubernetesservice
// controller starts: a lease this address left behind (a crash) is
// removed, then it reconciles; failures are logged and retried by the
// loop Serve runs (runEndpointReconciler).
func (s *Server) reconcileEndpointsAtStart(ctx context.Context) error {
	ip, ports, ok := s.endpointAddress()
	if !ok {
		s.log.Warn("not publishing the kubernetes Service's endpoints: the advertise address is a loopback address; set --advertise-address to an address pods can reach",
			"advertiseAddress", s.cfg.AdvertiseAddress)
		return nil
	}
	if s.cfg.EndpointReconciler == nil {
		return singleServerReconciler{s.EndpointsAdapter()}.ReconcileEndpoints(ctx, ip, ports, true)
	}
	r := s.endpointReconciler()
	if err := r.RemoveEndpoints(ctx, ip, ports); err == nil {
		s.log.Info("removed the endpoints a previous run of this apiserver left", "ip", ip.String())
	}
	if err := r.ReconcileEndpoints(ctx, ip, ports, true); err != nil {
		s.log.Error("reconciling the kubernetes Service's endpoints", "err", err)
	}
	return nil
}

// endpointAddress is the address and port this apiserver publishes; ok is
// false for a loopback address, which is useless to pods (and invalid in
// Endpoints) — upstream's endpoint reconciler fails on it; we say so once
// at start and publish nothing.
func (s *Server) endpointAddress() (ip netip.Addr, ports []corev1.EndpointPort, ok bool) {
	ip, err := netip.ParseAddr(s.cfg.AdvertiseAddress)
	if err != nil || ip.IsLoopback() || ip.IsUnspecified() {
		return netip.Addr{}, nil, false
	}
	return ip, []corev1.EndpointPort{{Name: "https", Port: int32(s.cfg.SecurePort), Protocol: corev1.ProtocolTCP}}, true
}

// endpointReconciler is the configured reconciler, built once.
func (s *Server) endpointReconciler() EndpointReconciler {
	s.endpoints.once.Do(func() { s.endpoints.r = s.cfg.EndpointReconciler(s.EndpointsAdapter()) })
	return s.endpoints.r
}

// endpointLoop is the state of a configured reconciler's loop.
type endpointLoop struct {
	once sync.Once
	r    EndpointReconciler
}

// runEndpointReconciler runs a configured reconciler every interval until
// ctx ends or stop is called; stop then takes this apiserver out of the
// endpoints (StopReconciling, RemoveEndpoints) and returns once that is
// done, or after twice the interval (etcd may be gone), as upstream's
// pre-shutdown hook does. Without a configured reconciler it does nothing.
func (s *Server) runEndpointReconciler(ctx context.Context) (stop func()) {
	if s.cfg.EndpointReconciler == nil {
		return func() {}
	}
	ip, ports, ok := s.endpointAddress()
	if !ok {
		return func() {}
	}
	r := s.endpointReconciler()
	loopCtx, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() {
		defer close(done)
		t := time.NewTicker(DefaultEndpointReconcilerInterval)
		defer t.Stop()
		for {
			select {
			case <-loopCtx.Done():
				return
			case <-t.C:
			}
			if err := r.ReconcileEndpoints(loopCtx, ip, ports, false); err != nil && loopCtx.Err() == nil {
				s.log.Error("reconciling the kubernetes Service's endpoints", "err", err)
			}
		}
	}()
	var once sync.Once
	return func() {
		once.Do(func() {
			cancel()
			<-done
			r.StopReconciling()
			rctx, rcancel := context.WithTimeout(context.WithoutCancel(ctx), 2*DefaultEndpointReconcilerInterval)
			defer rcancel()
			if err := r.RemoveEndpoints(rctx, ip, ports); err != nil {
				s.log.Error("removing this apiserver from the kubernetes Service's endpoints", "err", err)
				return
			}
			s.log.Info("removed this apiserver from the kubernetes Service's endpoints", "ip", ip.String())
		})
	}
}

// singleServerReconciler is Kubik's default: the Endpoints and
// EndpointSlice are created with this apiserver's address when missing and
// never changed after (one apiserver, or several that do not mind the
// first one's address being published).
type singleServerReconciler struct{ a *EndpointsAdapter }

func (r singleServerReconciler) ReconcileEndpoints(ctx context.Context, ip netip.Addr, ports []corev1.EndpointPort, _ bool) error {
	if err := r.a.s.ensure(ctx, r.a.endpoints(nil, []string{ip.String()}, ports, true)); err != nil {
		return err
	}
	return r.a.s.ensure(ctx, r.a.endpointSlice(nil, []string{ip.String()}, ports, true))
}

func (singleServerReconciler) RemoveEndpoints(context.Context, netip.Addr, []corev1.EndpointPort) error {
	return nil
}

func (singleServerReconciler) StopReconciling() {}

// EndpointsAdapter reads and writes the "kubernetes" Service's Endpoints
// and EndpointSlice through the apiserver's own write path (admission,
// validation, storage) as system:apiserver. Upstream:
// pkg/controlplane/reconcilers.EndpointsAdapter.
type EndpointsAdapter struct{ s *Server }

// EndpointsAdapter is the adapter over this server.
func (s *Server) EndpointsAdapter() *EndpointsAdapter { return &EndpointsAdapter{s: s} }

// kubernetesService names the Service, its Endpoints and its EndpointSlice,
// in namespaceDefault.
const (
	kubernetesService = "kubernetes"
	namespaceDefault  = "default"
)

// Sync makes the Endpoints and the EndpointSlice list exactly ips (in
// lexical order), with ports when reconcilePorts or when they have none.
// A write that loses a race with another apiserver (409 Conflict, 409
// AlreadyExists) is tried again on what that one wrote.
func (a *EndpointsAdapter) Sync(ctx context.Context, ips []string, ports []corev1.EndpointPort, reconcilePorts bool) error {
	ips = slices.Compact(slices.Sorted(slices.Values(ips)))
	if err := retryOnConflict(func() error {
		cur, err := a.get(ctx, &corev1.Endpoints{})
		if err != nil {
			return err
		}
		var old *corev1.Endpoints
		if cur != nil {
			old = cur.(*corev1.Endpoints)
		}
		want := a.endpoints(old, ips, ports, reconcilePorts)
		if old != nil && sameJSON(old.Subsets, want.Subsets) && sameJSON(old.Labels, want.Labels) {
			return nil
		}
		a.s.log.Info("resetting the kubernetes Service's endpoints", "ips", strings.Join(ips, ","))
		return a.write(ctx, want, old != nil)
	}); err != nil {
		return err
	}
	return retryOnConflict(func() error {
		cur, err := a.get(ctx, &discoveryv1.EndpointSlice{})
		if err != nil {
			return err
		}
		var old *discoveryv1.EndpointSlice
		if cur != nil {
			old = cur.(*discoveryv1.EndpointSlice)
		}
		want := a.endpointSlice(old, ips, ports, reconcilePorts)
		if old != nil && sameJSON(old.Endpoints, want.Endpoints) && sameJSON(old.Ports, want.Ports) &&
			sameJSON(old.Labels, want.Labels) && old.AddressType == want.AddressType {
			return nil
		}
		return a.write(ctx, want, old != nil)
	})
}

// get reads the object of like's kind named "kubernetes" in "default"
// (nil when there is none).
func (a *EndpointsAdapter) get(ctx context.Context, like metav1.Object) (metav1.Object, error) {
	obj, err := a.s.getObject(ctx, resourceOf(like), namespaceDefault, kubernetesService)
	var se *StatusError
	if errors.As(err, &se) && se.Status.Code == http.StatusNotFound {
		return nil, nil
	}
	return obj, err
}

// write creates obj, or updates it conditionally on the resourceVersion it
// was read at.
func (a *EndpointsAdapter) write(ctx context.Context, obj metav1.Object, exists bool) error {
	res := resourceOf(obj)
	if !exists {
		_, err := a.s.create(ctx, a.s.selfRequest(ctx, res, "create", namespaceDefault, kubernetesService), obj)
		return err
	}
	_, _, err := a.s.update(ctx, a.s.selfRequest(ctx, res, "update", namespaceDefault, kubernetesService), kubernetesService, "",
		func(metav1.Object) (metav1.Object, error) { return obj, nil }, false)
	return err
}

// endpoints is cur (or a new Endpoints) made to list ips: upstream's
// updateEndpoints.
func (a *EndpointsAdapter) endpoints(cur *corev1.Endpoints, ips []string, ports []corev1.EndpointPort, reconcilePorts bool) *corev1.Endpoints {
	ep := &corev1.Endpoints{ObjectMeta: metav1.ObjectMeta{Name: kubernetesService, Namespace: namespaceDefault}}
	if cur != nil {
		ep = cloneJSON(cur)
	}
	ep.Labels = map[string]string{discoveryv1.LabelSkipMirror: "true"}
	if len(ep.Subsets) != 1 {
		ep.Subsets = make([]corev1.EndpointSubset, 1)
	}
	ep.Subsets[0].Addresses = make([]corev1.EndpointAddress, len(ips))
	for i, ip := range ips {
		ep.Subsets[0].Addresses[i] = corev1.EndpointAddress{IP: ip}
	}
	if len(ep.Subsets[0].Ports) == 0 || (reconcilePorts && !sameJSON(ep.Subsets[0].Ports, ports)) {
		ep.Subsets[0].Ports = ports
	}
	return ep
}

// endpointSlice is cur (or a new EndpointSlice) made to list ips:
// upstream's updateEndpointSlice.
func (a *EndpointsAdapter) endpointSlice(cur *discoveryv1.EndpointSlice, ips []string, ports []corev1.EndpointPort, reconcilePorts bool) *discoveryv1.EndpointSlice {
	slice := &discoveryv1.EndpointSlice{ObjectMeta: metav1.ObjectMeta{Name: kubernetesService, Namespace: namespaceDefault}}
	if cur != nil {
		slice = cloneJSON(cur)
	}
	slice.Labels = map[string]string{discoveryv1.LabelServiceName: kubernetesService}
	slice.AddressType = discoveryv1.AddressTypeIPv4
	if a.s.ipAlloc.FirstIP().Is6() {
		slice.AddressType = discoveryv1.AddressTypeIPv6
	}
	slice.Endpoints = make([]discoveryv1.Endpoint, len(ips))
	for i, ip := range ips {
		ready := true
		slice.Endpoints[i] = discoveryv1.Endpoint{Addresses: []string{ip}, Conditions: discoveryv1.EndpointConditions{Ready: &ready}}
	}
	slicePorts := make([]discoveryv1.EndpointPort, len(ports))
	for i := range ports {
		slicePorts[i] = discoveryv1.EndpointPort{Name: &ports[i].Name, Port: &ports[i].Port, Protocol: &ports[i].Protocol}
	}
	if len(slice.Ports) == 0 || (reconcilePorts && !sameJSON(slice.Ports, slicePorts)) {
		slice.Ports = slicePorts
	}
	return slice
}

// retryOnConflict runs f again, a few times, while it loses a race with
// another writer (upstream: retry.OnError with isRetriableError).
func retryOnConflict(f func() error) error {
	var err error
	for attempt := 0; attempt < 5; attempt++ {
		if err = f(); err == nil {
			return nil
		}
		var se *StatusError
		if !errors.As(err, &se) || se.Status.Code != http.StatusConflict {
			return err
		}
		time.Sleep(time.Duration(10<<attempt) * time.Millisecond)
	}
	return err
}

// cloneJSON is a deep copy of v, through its JSON.
func cloneJSON[T any](v *T) *T {
	data, err := json.Marshal(v)
	out := new(T)
	if err == nil && json.Unmarshal(data, out) == nil {
		return out
	}
	return v
}

// sameJSON compares two values as their JSON (what is stored), so that a
// nil and an empty list, or defaulted fields, do not look like a change.
func sameJSON(a, b any) bool {
	x, err1 := json.Marshal(a)
	y, err2 := json.Marshal(b)
	return err1 == nil && err2 == nil && string(x) == string(y)
}
