package cluster7

import (
	"context"
	_ "embed"
	"encoding/json"
	"fmt"
	"strings"

	"kubik/ch01-apiserver/api/appsv1"
	"kubik/ch01-apiserver/api/corev1"
	"kubik/ch01-apiserver/api/metav1"
	"kubik/ch01-apiserver/api/networkingv1"
	"kubik/ch01-apiserver/api/rbacv1"
	"kubik/ch01-apiserver/apiserver/serializer"
	"kubik/ch03-scheduler/clientgo/rest"
)

// corednsManifests are the cluster DNS's objects (coredns.yaml).
//
//go:embed coredns.yaml
var corednsManifests string

// EnsureDNS creates the cluster DNS's objects that do not exist yet, with
// replicas pods, as kubeadm's addon phase does after the control plane is
// up. A second start on the same data dir finds them and changes nothing.
func EnsureDNS(ctx context.Context, admin *rest.Client, replicas int) error {
	return ensureAddon(ctx, admin, "coredns.yaml", corednsManifests, replicas)
}

// ingressManifests are the ingress controller's objects (ingress.yaml).
//
//go:embed ingress.yaml
var ingressManifests string

// EnsureIngress creates the ingress controller's objects that do not
// exist yet, with replicas pods: what `kubectl apply -f` of
// ingress-nginx's manifest does on a fresh cluster.
func EnsureIngress(ctx context.Context, admin *rest.Client, replicas int) error {
	return ensureAddon(ctx, admin, "ingress.yaml", ingressManifests, replicas)
}

// ensureAddon creates each object of an addon's manifests (documents
// separated by ---) unless it exists; its Deployment gets replicas pods.
func ensureAddon(ctx context.Context, admin *rest.Client, file, manifests string, replicas int) error {
	for _, doc := range strings.Split(manifests, "\n---\n") {
		data, err := serializer.YAMLToJSON([]byte(doc))
		if err != nil {
			return err
		}
		var tm metav1.TypeMeta
		if err := json.Unmarshal(data, &tm); err != nil {
			return err
		}
		switch tm.Kind {
		case "Namespace":
			err = create[corev1.Namespace](ctx, admin, data, nil)
		case "ServiceAccount":
			err = create[corev1.ServiceAccount](ctx, admin, data, nil)
		case "ClusterRole":
			err = create[rbacv1.ClusterRole](ctx, admin, data, nil)
		case "ClusterRoleBinding":
			err = create[rbacv1.ClusterRoleBinding](ctx, admin, data, nil)
		case "Role":
			err = create[rbacv1.Role](ctx, admin, data, nil)
		case "RoleBinding":
			err = create[rbacv1.RoleBinding](ctx, admin, data, nil)
		case "Deployment":
			err = create(ctx, admin, data, func(d *appsv1.Deployment) {
				n := int32(replicas)
				d.Spec.Replicas = &n
			})
		case "Service":
			err = create[corev1.Service](ctx, admin, data, nil)
		case "IngressClass":
			err = create[networkingv1.IngressClass](ctx, admin, data, nil)
		default:
			err = fmt.Errorf("%s: unexpected kind %q", file, tm.Kind)
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// create decodes a manifest into T, lets edit change it, and creates it
// unless it exists.
func create[T any, PT rest.Object[T]](ctx context.Context, c *rest.Client, data []byte, edit func(PT)) error {
	obj := new(T)
	if err := json.Unmarshal(data, obj); err != nil {
		return err
	}
	if edit != nil {
		edit(obj)
	}
	if _, err := rest.Create[T, PT](ctx, c, obj); err != nil && !rest.IsAlreadyExists(err) {
		m := PT(obj).GetObjectMeta()
		return fmt.Errorf("creating %s/%s: %w", m.Namespace, m.Name, err)
	}
	return nil
}
