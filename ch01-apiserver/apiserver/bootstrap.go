package apiserver

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/netip"

	"kubik/ch01-apiserver/api/corev1"
	"kubik/ch01-apiserver/api/discoveryv1"
	"kubik/ch01-apiserver/api/intstr"
	"kubik/ch01-apiserver/api/metav1"
	"kubik/ch01-apiserver/api/schedulingv1"
	"kubik/ch01-apiserver/api/scheme"
	"kubik/ch01-apiserver/apiserver/auth"
	"kubik/ch01-apiserver/apiserver/auth/rbac/bootstrappolicy"
)

// Bootstrap creates what a real apiserver creates for itself at start (its
// "post-start hooks"): the four system namespaces, the two system
// PriorityClasses, the bootstrap RBAC roles and bindings, and the "kubernetes" Service in "default" with the
// Endpoints/EndpointSlice that point at this apiserver. Existing objects are
// left alone, so several apiservers and restarts are fine.
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
	// The Endpoints and EndpointSlice say where the apiserver really is. A
	// loopback address is useless to pods (and invalid in Endpoints), so
	// upstream's endpoint reconciler fails on it; we say so once.
	if ip, err := netip.ParseAddr(s.cfg.AdvertiseAddress); err != nil || ip.IsLoopback() || ip.IsUnspecified() {
		s.log.Warn("not publishing the kubernetes Service's endpoints: the advertise address is a loopback address; set --advertise-address to an address pods can reach",
			"advertiseAddress", s.cfg.AdvertiseAddress)
		return nil
	}
	ep := &corev1.Endpoints{
		ObjectMeta: metav1.ObjectMeta{Name: "kubernetes", Namespace: "default",
			Labels: map[string]string{"endpointslice.kubernetes.io/skip-mirror": "true"}},
		Subsets: []corev1.EndpointSubset{{
			Addresses: []corev1.EndpointAddress{{IP: s.cfg.AdvertiseAddress}},
			Ports:     []corev1.EndpointPort{{Name: "https", Port: port, Protocol: corev1.ProtocolTCP}},
		}},
	}
	if err := s.ensure(ctx, ep); err != nil {
		return err
	}
	ready := true
	name, proto := "https", corev1.ProtocolTCP
	slice := &discoveryv1.EndpointSlice{
		ObjectMeta: metav1.ObjectMeta{Name: "kubernetes", Namespace: "default",
			Labels: map[string]string{discoveryv1.LabelServiceName: "kubernetes"}},
		AddressType: discoveryv1.AddressTypeIPv4,
		Endpoints:   []discoveryv1.Endpoint{{Addresses: []string{s.cfg.AdvertiseAddress}, Conditions: discoveryv1.EndpointConditions{Ready: &ready}}},
		Ports:       []discoveryv1.EndpointPort{{Name: &name, Port: &port, Protocol: &proto}},
	}
	return s.ensure(ctx, slice)
}

// ensure creates obj through the normal create path unless it exists.
func (s *Server) ensure(ctx context.Context, obj metav1.Object) error {
	var res *scheme.Resource
	for _, r := range scheme.Resources {
		if fmt.Sprintf("%T", r.New()) == fmt.Sprintf("%T", obj) {
			res = r
			break
		}
	}
	if res == nil {
		return fmt.Errorf("no resource for %T", obj)
	}
	meta := obj.GetObjectMeta()
	if _, err := s.getObject(ctx, res, meta.Namespace, meta.Name); err == nil {
		return nil
	}
	r, _ := http.NewRequestWithContext(ctx, http.MethodPost, "/", nil)
	r.Header.Set("User-Agent", "kube-apiserver")
	q := &request{w: httptest.NewRecorder(), r: r, res: res,
		info: &RequestInfo{Verb: "create", Namespace: meta.Namespace}, user: &auth.UserInfo{Name: "system:apiserver", Groups: []string{auth.GroupMasters}}}
	_, err := s.create(ctx, q, obj)
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
