package garbagecollector

import (
	"fmt"

	"kubik/ch01-apiserver/api/metav1"
)

// objectReference is a node's identity: the coordinates an ownerReference
// uses (apiVersion, kind, name, uid) plus the namespace. Upstream: graph.go.
type objectReference struct {
	APIVersion, Kind, Name, UID string
	Namespace                   string
}

// String is upstream's format, used in the OwnerRefInvalidNamespace event.
func (r objectReference) String() string {
	return fmt.Sprintf("[%s/%s, namespace: %s, name: %s, uid: %s]", r.APIVersion, r.Kind, r.Namespace, r.Name, r.UID)
}

func ownerReferenceCoordinates(ref metav1.OwnerReference) objectReference {
	return objectReference{APIVersion: ref.APIVersion, Kind: ref.Kind, Name: ref.Name, UID: ref.UID}
}

// node is one object in the graph. Its fields are guarded by the graph's
// lock (GraphBuilder.mu). Upstream: graph.go.
type node struct {
	identity objectReference
	// dependents are the nodes whose ownerReferences name this one.
	dependents map[*node]struct{}
	// deletingDependents: the object is being deleted with the
	// foregroundDeletion finalizer; it goes once its blocking dependents are gone.
	deletingDependents bool
	// beingDeleted: the object has a deletionTimestamp.
	beingDeleted bool
	// virtual: the node was made up because a dependent names it as an
	// owner, and no informer has reported the object itself (yet). The
	// workers look it up at the apiserver: if it does not exist, a "virtual
	// delete" removes it and its dependents are collected.
	virtual bool
	// owners are the object's ownerReferences as last observed.
	owners []metav1.OwnerReference
}

func (n *node) isObserved() bool { return !n.virtual }

// blockingDependents are the dependents whose ownerReference to n says
// blockOwnerDeletion: a foreground deletion of n waits for them.
func (n *node) blockingDependents() []*node {
	var out []*node
	for dep := range n.dependents {
		for _, o := range dep.owners {
			if o.UID == n.identity.UID && o.BlockOwnerDeletion != nil && *o.BlockOwnerDeletion {
				out = append(out, dep)
				break
			}
		}
	}
	return out
}

func (n *node) dependentsList() []*node {
	out := make([]*node, 0, len(n.dependents))
	for d := range n.dependents {
		out = append(out, d)
	}
	return out
}
