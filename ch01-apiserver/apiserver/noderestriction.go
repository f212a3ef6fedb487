package apiserver

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"sort"
	"strings"

	"kubik/ch01-apiserver/api/authenticationv1"
	"kubik/ch01-apiserver/api/coordinationv1"
	"kubik/ch01-apiserver/api/corev1"
	"kubik/ch01-apiserver/api/metav1"
	"kubik/ch01-apiserver/api/scheme"
	"kubik/ch01-apiserver/apiserver/auth"
)

// The NodeRestriction admission plugin: what the Node authorizer
// (auth/node) cannot see, because it is in the body of a create or update,
// is checked here. A kubelet may only create mirror pods bound to itself,
// update the status of its own pods, modify its own Node (not its taints,
// not restricted labels) and Lease, delete its own pods, and ask for tokens
// bound to its own pods. Upstream: plugin/pkg/admission/noderestriction.

const mirrorPodAnnotation = "kubernetes.io/config.mirror"

// admitNodeRestriction limits what a kubelet may write (create and update;
// old == nil on create). Deletes are checked by admitNodeDelete.
func (s *Server) admitNodeRestriction(ctx context.Context, q *request, obj, old metav1.Object) error {
	node, ok := auth.NodeIdentity(q.user)
	if !ok {
		return nil
	}
	res := q.res
	meta := obj.GetObjectMeta()
	forbid := func(format string, args ...any) error {
		return ErrForbidden(res.Group, res.Resource, res.GroupResource(), meta.Name, fmt.Errorf(format, args...))
	}
	switch o := obj.(type) {
	case *corev1.Pod:
		switch {
		case old == nil:
			if _, mirror := o.Annotations[mirrorPodAnnotation]; !mirror {
				return forbid("pod does not have %q annotation, node %q can only create mirror pods", mirrorPodAnnotation, node)
			}
			if o.Spec.NodeName != node {
				return forbid("node %q can only create pods with spec.nodeName set to itself", node)
			}
		case q.info.Subresource == "status":
			oldPod := old.(*corev1.Pod)
			if oldPod.Spec.NodeName != node {
				return forbid("node %q can only update pod status for pods with spec.nodeName set to itself", node)
			}
			if !reflect.DeepEqual(oldPod.Labels, o.Labels) {
				return forbid("node %q cannot update labels through pod status", node)
			}
		default:
			return forbid("unexpected operation %q", "UPDATE")
		}
	case *corev1.Node:
		if meta.Name != node {
			return forbid("node %q is not allowed to modify node %q", node, meta.Name)
		}
		var oldNode *corev1.Node
		var oldLabels map[string]string
		if old != nil {
			oldNode = old.(*corev1.Node)
			oldLabels = oldNode.Labels
		}
		if old == nil && o.Spec.ConfigSource != nil {
			return forbid("node %q is not allowed to create pods with a non-nil configSource", node)
		}
		if oldNode != nil && !reflect.DeepEqual(o.Spec.Taints, oldNode.Spec.Taints) {
			return forbid("node %q is not allowed to modify taints", node)
		}
		if bad := forbiddenNodeLabels(o.Labels, oldLabels); len(bad) > 0 {
			if old == nil {
				return forbid("node %q is not allowed to set the following labels: %s", node, strings.Join(bad, ", "))
			}
			return forbid("is not allowed to modify labels: %s", strings.Join(bad, ", "))
		}
	case *coordinationv1.Lease:
		if meta.Namespace != corev1.NamespaceNodeLease {
			return forbid("can only access leases in the %q system namespace", corev1.NamespaceNodeLease)
		}
		if meta.Name != node {
			return forbid("can only access node lease with the same name as the requesting node")
		}
	}
	return nil
}

// admitNodeTokenRequest: a kubelet's TokenRequest must be bound to a pod on it.
func (s *Server) admitNodeTokenRequest(ctx context.Context, q *request, tr *authenticationv1.TokenRequest) error {
	node, ok := auth.NodeIdentity(q.user)
	if !ok {
		return nil
	}
	forbid := func(msg string) error {
		return ErrForbidden("", "serviceaccounts", "serviceaccounts", q.info.Name, errors.New(msg))
	}
	ref := tr.Spec.BoundObjectRef
	if ref == nil || ref.APIVersion != "v1" || ref.Kind != "Pod" || ref.Name == "" {
		return forbid("node requested token not bound to a pod")
	}
	if ref.UID == "" {
		return forbid("node requested token with a pod binding without a uid")
	}
	obj, err := s.getObject(ctx, scheme.Lookup("", "v1", "pods"), q.info.Namespace, ref.Name)
	if err != nil {
		return err
	}
	pod := obj.(*corev1.Pod)
	if ref.UID != pod.UID {
		return forbid(fmt.Sprintf("the UID in the bound object reference (%s) does not match the UID in record. The object might have been deleted and then recreated", ref.UID))
	}
	if pod.Spec.NodeName != node {
		return forbid("node requested token bound to a pod scheduled on a different node")
	}
	return nil
}

// admitNodeDelete: a kubelet deletes only pods bound to itself (and its own Node and Lease).
func (s *Server) admitNodeDelete(ctx context.Context, q *request, namespace, name string) error {
	node, ok := auth.NodeIdentity(q.user)
	if !ok {
		return nil
	}
	res := q.res
	switch {
	case res.Group == "" && res.Resource == "pods":
		obj, err := s.getObject(ctx, res, namespace, name)
		if err != nil {
			return err
		}
		if obj.(*corev1.Pod).Spec.NodeName != node {
			return ErrForbidden("", "pods", "pods", name, fmt.Errorf("node %q can only delete pods with spec.nodeName set to itself", node))
		}
	case res.Group == "" && res.Resource == "nodes" && name != node:
		return ErrForbidden("", "nodes", "nodes", name, fmt.Errorf("node %q is not allowed to modify node %q", node, name))
	}
	return nil
}

// forbiddenNodeLabels: labels a kubelet may not add, change or remove — the
// node-restriction.kubernetes.io/ prefix and unknown kubernetes.io / k8s.io labels.
func forbiddenNodeLabels(labels, old map[string]string) []string {
	modified := map[string]bool{}
	for k, v := range labels {
		if ov, ok := old[k]; !ok || ov != v {
			modified[k] = true
		}
	}
	for k, v := range old {
		if nv, ok := labels[k]; !ok || nv != v {
			modified[k] = true
		}
	}
	var bad []string
	for k := range modified {
		ns, _, found := strings.Cut(k, "/")
		if !found {
			ns = ""
		}
		if ns == "node-restriction.kubernetes.io" || strings.HasSuffix(ns, ".node-restriction.kubernetes.io") {
			bad = append(bad, k)
			continue
		}
		kube := ns == "kubernetes.io" || strings.HasSuffix(ns, ".kubernetes.io") || ns == "k8s.io" || strings.HasSuffix(ns, ".k8s.io")
		if kube && !isKubeletLabel(k) {
			bad = append(bad, k)
		}
	}
	sort.Strings(bad)
	return bad
}

// isKubeletLabel: the labels a kubelet sets on its Node itself (upstream kubeletapis.IsKubeletLabel).
func isKubeletLabel(key string) bool {
	switch key {
	case "kubernetes.io/hostname", "topology.kubernetes.io/zone", "topology.kubernetes.io/region",
		"failure-domain.beta.kubernetes.io/zone", "failure-domain.beta.kubernetes.io/region",
		"beta.kubernetes.io/instance-type", "node.kubernetes.io/instance-type",
		"kubernetes.io/os", "kubernetes.io/arch", "beta.kubernetes.io/os", "beta.kubernetes.io/arch",
		"node.kubernetes.io/windows-build":
		return true
	}
	ns, _, _ := strings.Cut(key, "/")
	return ns == "kubelet.kubernetes.io" || strings.HasSuffix(ns, ".kubelet.kubernetes.io") ||
		ns == "node.kubernetes.io" || strings.HasSuffix(ns, ".node.kubernetes.io")
}
