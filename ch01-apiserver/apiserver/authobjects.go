package apiserver

import (
	"context"
	"errors"
	"net/http"

	"kubik/ch01-apiserver/api/corev1"
	"kubik/ch01-apiserver/api/metav1"
	"kubik/ch01-apiserver/api/scheme"
	"kubik/ch01-apiserver/apiserver/auth/node"
	"kubik/ch01-apiserver/apiserver/auth/rbac"
	"kubik/ch01-apiserver/apiserver/auth/serviceaccount"
	"kubik/ch01-apiserver/apiserver/selection"
	"kubik/ch01-apiserver/storage"
)

// The auth packages decide; the apiserver reads for them. Each reads objects
// through a small interface, answered here from the registry (store.go);
// upstream hands them informers' listers. newAuth (server.go) wires them.

var (
	_ rbac.Objects          = rbacObjects{}
	_ node.Objects          = nodeObjects{}
	_ serviceaccount.Getter = tokenObjects{}
)

// rbacObjects: the four RBAC resources, for the RBAC authorizer's snapshot.
type rbacObjects struct{ s *Server }

func (o rbacObjects) List(ctx context.Context, res *scheme.Resource) ([]metav1.Object, error) {
	items, _, err := o.s.list(ctx, res, "", listOptions{})
	return items, err
}

func (o rbacObjects) Watch(ctx context.Context, res *scheme.Resource) (<-chan storage.Event, error) {
	return o.s.cfg.Storage.Watch(ctx, storagePrefix(res, ""), 0)
}

// nodeObjects: pods and claims, for the Node authorizer.
type nodeObjects struct{ s *Server }

func coreResource(resource string) *scheme.Resource { return scheme.Lookup("", "v1", resource) }

func (o nodeObjects) GetPod(ctx context.Context, namespace, name string) (*corev1.Pod, error) {
	obj, err := o.s.getObject(ctx, coreResource("pods"), namespace, name)
	if err != nil {
		return nil, ignoreNotFound(err)
	}
	return obj.(*corev1.Pod), nil
}

func (o nodeObjects) ListPodsOnNode(ctx context.Context, namespace, nodeName string) ([]*corev1.Pod, error) {
	sel, _ := selection.ParseFieldSelector("spec.nodeName=" + selection.EscapeValue(nodeName))
	items, _, err := o.s.list(ctx, coreResource("pods"), namespace, listOptions{Fields: sel})
	if err != nil {
		return nil, err
	}
	pods := make([]*corev1.Pod, 0, len(items))
	for _, it := range items {
		pods = append(pods, it.(*corev1.Pod))
	}
	return pods, nil
}

func (o nodeObjects) ListPersistentVolumeClaims(ctx context.Context) ([]*corev1.PersistentVolumeClaim, error) {
	items, _, err := o.s.list(ctx, coreResource("persistentvolumeclaims"), "", listOptions{})
	if err != nil {
		return nil, err
	}
	pvcs := make([]*corev1.PersistentVolumeClaim, 0, len(items))
	for _, it := range items {
		pvcs = append(pvcs, it.(*corev1.PersistentVolumeClaim))
	}
	return pvcs, nil
}

func ignoreNotFound(err error) error {
	var se *StatusError
	if errors.As(err, &se) && se.Status.Code == http.StatusNotFound {
		return nil
	}
	return err
}

// tokenObjects: what a ServiceAccount token names; a missing object is
// the registry's 404 (`pods "x" not found`).
type tokenObjects struct{ s *Server }

func (o tokenObjects) GetServiceAccount(ctx context.Context, namespace, name string) (*corev1.ServiceAccount, error) {
	obj, err := o.s.getObject(ctx, coreResource("serviceaccounts"), namespace, name)
	if err != nil {
		return nil, err
	}
	return obj.(*corev1.ServiceAccount), nil
}

func (o tokenObjects) GetPod(ctx context.Context, namespace, name string) (*corev1.Pod, error) {
	obj, err := o.s.getObject(ctx, coreResource("pods"), namespace, name)
	if err != nil {
		return nil, err
	}
	return obj.(*corev1.Pod), nil
}

func (o tokenObjects) GetSecret(ctx context.Context, namespace, name string) (*corev1.Secret, error) {
	obj, err := o.s.getObject(ctx, coreResource("secrets"), namespace, name)
	if err != nil {
		return nil, err
	}
	return obj.(*corev1.Secret), nil
}

func (o tokenObjects) GetNode(ctx context.Context, name string) (*corev1.Node, error) {
	obj, err := o.s.getObject(ctx, coreResource("nodes"), "", name)
	if err != nil {
		return nil, err
	}
	return obj.(*corev1.Node), nil
}
