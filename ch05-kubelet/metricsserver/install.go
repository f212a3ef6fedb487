package metricsserver

// What the official manifest (metrics-server's components.yaml) installs,
// written by the cluster's installer: the service account and RBAC, the
// Service, and the APIService that makes the apiserver proxy
// metrics.k8s.io to it. The Service has no selector — the metrics server
// is not a pod here but a process beside the control plane — so its
// EndpointSlice is written too, with the address it listens on.

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"net/netip"

	"kubik/ch01-apiserver/api/corev1"
	"kubik/ch01-apiserver/api/discoveryv1"
	"kubik/ch01-apiserver/api/intstr"
	"kubik/ch01-apiserver/api/metav1"
	"kubik/ch01-apiserver/api/rbacv1"
	"kubik/ch01-apiserver/pki"
	"kubik/ch03-scheduler/clientgo/rest"
)

// Names of the installed objects, as the official manifest.
const (
	Namespace      = "kube-system"
	Name           = "metrics-server"
	APIServiceName = Version + "." + Group
	// ServiceHost is the name the apiserver verifies the serving
	// certificate against.
	ServiceHost = Name + "." + Namespace + ".svc"
	// managedBy marks the EndpointSlice as ours, not the endpointslice
	// controller's.
	managedBy = "metrics-server.kubik.io"
)

// UserIdentity is the metrics server's identity: its service account.
var UserIdentity = pki.Identity{User: Identity, Groups: []string{"system:serviceaccounts", "system:serviceaccounts:" + Namespace}}

// ServingHosts are the names and address the serving certificate is for.
func ServingHosts(ip string) []string {
	return []string{Name, Name + "." + Namespace, ServiceHost, ServiceHost + ".cluster.local", ip}
}

// ErrLoopback is why a loopback address cannot be registered: upstream's
// EndpointSlice validation refuses it.
var ErrLoopback = fmt.Errorf("an EndpointSlice address may not be in the loopback range (127.0.0.0/8, ::1/128)")

// Install writes the objects for a metrics server listening at addr, its
// certificate signed by the CA of caBundle (PEM). A loopback addr gets
// neither the EndpointSlice nor the APIService, and ErrLoopback.
func Install(ctx context.Context, admin *rest.Client, addr *net.TCPAddr, caBundle []byte) error {
	labels := map[string]string{"k8s-app": Name}
	sa := Name
	objs := []func() error{
		create(ctx, admin, &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: sa, Namespace: Namespace, Labels: labels}}),
		create(ctx, admin, &rbacv1.ClusterRole{
			ObjectMeta: metav1.ObjectMeta{Name: "system:aggregated-metrics-reader", Labels: map[string]string{
				"k8s-app": Name, "rbac.authorization.k8s.io/aggregate-to-admin": "true",
				"rbac.authorization.k8s.io/aggregate-to-edit": "true", "rbac.authorization.k8s.io/aggregate-to-view": "true"}},
			Rules: []rbacv1.PolicyRule{{APIGroups: []string{Group}, Resources: []string{"pods", "nodes"}, Verbs: []string{"get", "list", "watch"}}}}),
		create(ctx, admin, &rbacv1.ClusterRole{
			ObjectMeta: metav1.ObjectMeta{Name: "system:metrics-server", Labels: labels},
			Rules: []rbacv1.PolicyRule{
				{APIGroups: []string{""}, Resources: []string{"nodes/metrics"}, Verbs: []string{"get"}},
				{APIGroups: []string{""}, Resources: []string{"pods", "nodes"}, Verbs: []string{"get", "list", "watch"}}}}),
		create(ctx, admin, &rbacv1.RoleBinding{
			ObjectMeta: metav1.ObjectMeta{Name: "metrics-server-auth-reader", Namespace: Namespace, Labels: labels},
			RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "Role", Name: "extension-apiserver-authentication-reader"},
			Subjects:   []rbacv1.Subject{{Kind: "ServiceAccount", Name: sa, Namespace: Namespace}}}),
		create(ctx, admin, &rbacv1.ClusterRoleBinding{
			ObjectMeta: metav1.ObjectMeta{Name: "metrics-server:system:auth-delegator", Labels: labels},
			RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: "system:auth-delegator"},
			Subjects:   []rbacv1.Subject{{Kind: "ServiceAccount", Name: sa, Namespace: Namespace}}}),
		create(ctx, admin, &rbacv1.ClusterRoleBinding{
			ObjectMeta: metav1.ObjectMeta{Name: "system:metrics-server", Labels: labels},
			RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: "system:metrics-server"},
			Subjects:   []rbacv1.Subject{{Kind: "ServiceAccount", Name: sa, Namespace: Namespace}}}),
		create(ctx, admin, &corev1.Service{ObjectMeta: metav1.ObjectMeta{Name: Name, Namespace: Namespace, Labels: labels},
			Spec: corev1.ServiceSpec{Ports: []corev1.ServicePort{{Name: "https", Port: 443, Protocol: corev1.ProtocolTCP,
				TargetPort: intstr.FromInt(addr.Port)}}}}),
	}
	for _, f := range objs {
		if err := f(); err != nil {
			return err
		}
	}
	// Without an endpoint the APIService would be registered unavailable,
	// and every client's discovery would report metrics.k8s.io failing.
	ip, _ := netip.AddrFromSlice(addr.IP)
	if ip = ip.Unmap(); ip.IsLoopback() {
		return ErrLoopback
	}
	if err := ensureEndpointSlice(ctx, admin, ip.String(), int32(addr.Port), labels); err != nil {
		return err
	}
	return ensureAPIService(ctx, admin, caBundle)
}

func create[T any, PT rest.Object[T]](ctx context.Context, c *rest.Client, obj PT) func() error {
	return func() error {
		if _, err := rest.Create[T, PT](ctx, c, obj); err != nil && !rest.IsAlreadyExists(err) {
			return fmt.Errorf("create %T %s: %w", obj, obj.GetObjectMeta().Name, err)
		}
		return nil
	}
}

// ensureEndpointSlice writes the slice that points the Service at ip:port.
func ensureEndpointSlice(ctx context.Context, c *rest.Client, ip string, port int32, labels map[string]string) error {
	ready, name, proto := true, "https", corev1.ProtocolTCP
	want := discoveryv1.EndpointSlice{
		ObjectMeta: metav1.ObjectMeta{Name: Name, Namespace: Namespace, Labels: map[string]string{
			"k8s-app": labels["k8s-app"], discoveryv1.LabelServiceName: Name, discoveryv1.LabelManagedBy: managedBy}},
		AddressType: discoveryv1.AddressTypeIPv4,
		Endpoints:   []discoveryv1.Endpoint{{Addresses: []string{ip}, Conditions: discoveryv1.EndpointConditions{Ready: &ready}}},
		Ports:       []discoveryv1.EndpointPort{{Name: &name, Protocol: &proto, Port: &port}},
	}
	_, err := rest.Create(ctx, c, &want)
	if !rest.IsAlreadyExists(err) {
		return err
	}
	cur, err := rest.Get[discoveryv1.EndpointSlice](ctx, c, Namespace, Name)
	if err != nil {
		return err
	}
	cur.Labels, cur.AddressType, cur.Endpoints, cur.Ports = want.Labels, want.AddressType, want.Endpoints, want.Ports
	_, err = rest.Update(ctx, c, cur)
	return err
}

// ensureAPIService registers v1beta1.metrics.k8s.io (written as JSON: the
// apiserver may not serve apiregistration.k8s.io, and then the group
// stays unreachable).
func ensureAPIService(ctx context.Context, c *rest.Client, caBundle []byte) error {
	svc := map[string]any{
		"apiVersion": "apiregistration.k8s.io/v1", "kind": "APIService",
		"metadata": map[string]any{"name": APIServiceName, "labels": map[string]string{"k8s-app": Name}},
		"spec": map[string]any{
			"service":              map[string]any{"name": Name, "namespace": Namespace, "port": 443},
			"group":                Group,
			"version":              Version,
			"caBundle":             caBundle,
			"groupPriorityMinimum": 100,
			"versionPriority":      100,
		},
	}
	body, err := json.Marshal(svc)
	if err != nil {
		return err
	}
	err = c.Do(ctx, rest.Request{Method: http.MethodPost, Path: "/apis/apiregistration.k8s.io/v1/apiservices", Body: body}, nil)
	if err == nil || rest.IsAlreadyExists(err) {
		return nil
	}
	return fmt.Errorf("register APIService %s: %w", APIServiceName, err)
}
