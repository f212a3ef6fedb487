package cache

import "kubik/ch03-scheduler/clientgo/rest"

// NamespaceIndex indexes an informer's objects by namespace, so that a
// reader lists the objects of one namespace without going through all.
// Upstream: cache.NamespaceIndex and MetaNamespaceIndexFunc.
const NamespaceIndex = "namespace"

// AddNamespaceIndex adds NamespaceIndex to inf (adding it twice is harmless).
func AddNamespaceIndex[T any, PT rest.Object[T]](inf *Informer[T, PT]) {
	inf.AddIndexers(Indexers[T]{NamespaceIndex: func(o *T) []string {
		return []string{PT(o).GetObjectMeta().Namespace}
	}})
}
