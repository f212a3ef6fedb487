// Package corev1 holds the kinds of the core API group, version v1 ("apiVersion: v1"): Pod, Node, Service,
// Endpoints, Namespace, ConfigMap, Secret, Event, ServiceAccount, PersistentVolume(Claim) and the types they are
// built from.
//
// Upstream: k8s.io/api/core/v1, trimmed to what Kubik needs through chapter 8. Type names, field names, JSON
// names, omitempty choices, value-vs-pointer shapes, protobuf field numbers and patchStrategy/patchMergeKey tags
// are upstream's, because they decide the bytes on the wire: what kubectl sends, what "kubectl get -o yaml"
// prints, how strategic merge patch merges lists, how protobuf request bodies decode. Left out: the in-tree
// cloud volume plugins (gcePersistentDisk, awsElasticBlockStore, rbd, ...), Windows security options, dynamic
// resource allocation claims on pods, and ReplicationController/ComponentStatus.
//
// Files: types.go (Pod, containers, volumes), node.go, service.go (Service, Endpoints), persistentvolume.go,
// other.go (Namespace, ConfigMap, Secret, Event, ServiceAccount, LimitRange, ResourceQuota), list.go (the
// <Kind>List types), constants.go (well-known labels, taints, annotations and other names).
package corev1
