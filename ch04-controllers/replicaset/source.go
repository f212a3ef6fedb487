package replicaset

import (
	"context"

	"kubik/ch01-apiserver/api/appsv1"
	"kubik/ch03-scheduler/clientgo/rest"
	"kubik/ch03-scheduler/clientgo/tools/cache"
)

// Source is where the controller reads and writes the objects it controls,
// seen as ReplicaSets: the ReplicaSets themselves, or another kind
// converted on the way in and out (package replication's
// ReplicationControllers). Upstream: NewBaseController's rsInformer and
// kubeClient, which pkg/controller/replication wraps in adapters.
type Source interface {
	// Get and List read the informer's cache (List: one namespace).
	Get(namespace, name string) (*appsv1.ReplicaSet, bool)
	List(namespace string) []*appsv1.ReplicaSet
	HasSynced() bool
	AddEventHandler(h cache.ResourceEventHandlerFuncs[appsv1.ReplicaSet])
	// Fetch and UpdateStatus go to the apiserver.
	Fetch(ctx context.Context, namespace, name string) (*appsv1.ReplicaSet, error)
	UpdateStatus(ctx context.Context, rs *appsv1.ReplicaSet) (*appsv1.ReplicaSet, error)
}

// GroupVersionKind names the kind a controller built by NewBaseController
// controls: its pods' ownerReferences and its events' involvedObject.
type GroupVersionKind struct{ APIVersion, Kind string }

// controllerKind is the ReplicaSet's.
var controllerKind = GroupVersionKind{APIVersion: "apps/v1", Kind: "ReplicaSet"}

// informerSource is the Source of ReplicaSets: the shared informer and the
// client.
type informerSource struct {
	client   *rest.Client
	informer *cache.Informer[appsv1.ReplicaSet, *appsv1.ReplicaSet]
}

func (s informerSource) Get(namespace, name string) (*appsv1.ReplicaSet, bool) {
	return s.informer.GetStore().Get(namespace, name)
}

func (s informerSource) List(namespace string) []*appsv1.ReplicaSet {
	return s.informer.GetStore().ByIndex(cache.NamespaceIndex, namespace)
}

func (s informerSource) HasSynced() bool { return s.informer.HasSynced() }

func (s informerSource) AddEventHandler(h cache.ResourceEventHandlerFuncs[appsv1.ReplicaSet]) {
	s.informer.AddEventHandler(h)
}

func (s informerSource) Fetch(ctx context.Context, namespace, name string) (*appsv1.ReplicaSet, error) {
	return rest.Get[appsv1.ReplicaSet](ctx, s.client, namespace, name)
}

func (s informerSource) UpdateStatus(ctx context.Context, rs *appsv1.ReplicaSet) (*appsv1.ReplicaSet, error) {
	return rest.UpdateStatus(ctx, s.client, rs)
}
