package controller

import (
	"kubik/ch03-scheduler/client"
	"kubik/ch03-scheduler/informer"
)

// NamespaceIndex indexes a shared informer's objects by namespace, so a
// controller lists the pods of one namespace without going through all.
// Upstream: cache.NamespaceIndex.
const NamespaceIndex = "namespace"

// AddNamespaceIndex adds NamespaceIndex to inf (adding it twice is harmless).
func AddNamespaceIndex[T any, PT client.Object[T]](inf *informer.Informer[T, PT]) {
	inf.AddIndexers(informer.Indexers[T]{NamespaceIndex: func(o *T) []string {
		return []string{PT(o).GetObjectMeta().Namespace}
	}})
}
