// Package replication is the ReplicationController controller: the
// ReplicaSet controller run on ReplicationControllers, seen as ReplicaSets
// (conversion.go), as if a ReplicationController were an older version of
// the ReplicaSet — which it is, with an equality-only selector. Its pods'
// ownerReferences and its events name the ReplicationController; its events
// come from "replication-controller".
//
//	kubectl create -f rc.yaml; kubectl scale rc web --replicas=3
//
// Upstream: pkg/controller/replication (replication_controller.go,
// conversion.go).
package replication

import (
	"kubik/ch01-apiserver/api/corev1"
	"kubik/ch03-scheduler/clientgo/tools/cache"
	"kubik/ch04-controllers/controller"
	"kubik/ch04-controllers/replicaset"
)

// ControllerName is the event source of the ReplicationController
// controller.
const ControllerName = "replication-controller"

// controllerKind is what its pods' ownerReferences name.
var controllerKind = replicaset.GroupVersionKind{APIVersion: "v1", Kind: "ReplicationController"}

// ReplicationManager is the controller of ReplicationControllers (upstream's
// name, to tell it from the API kind).
type ReplicationManager struct {
	*replicaset.ReplicaSetController
}

// NewReplicationManager asks for the ReplicationController and Pod
// informers and builds the ReplicaSet controller on them.
func NewReplicationManager(cc *controller.ControllerContext) (*ReplicationManager, error) {
	rcInformer := controller.InformerFor[corev1.ReplicationController](cc.Informers)
	cache.AddNamespaceIndex(rcInformer)
	src := informerAdapter{client: cc.Client, informer: rcInformer}
	return &ReplicationManager{replicaset.NewBaseController(cc, src, controllerKind, "replicationcontroller", ControllerName)}, nil
}
