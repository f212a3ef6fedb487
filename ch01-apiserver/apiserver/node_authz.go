package apiserver

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"reflect"
	"sort"
	"strings"

	"kubik/ch01-apiserver/api/authenticationv1"
	"kubik/ch01-apiserver/api/coordinationv1"
	"kubik/ch01-apiserver/api/corev1"
	"kubik/ch01-apiserver/api/metav1"
	"kubik/ch01-apiserver/api/rbacv1"
	"kubik/ch01-apiserver/api/scheme"
	"kubik/ch01-apiserver/apiserver/selection"
)

// The Node authorizer and the NodeRestriction admission plugin.
//
// Every kubelet needs to read secrets and config maps (for its pods' volumes
// and environment), write its Node and its pods' status. With RBAC alone
// that means "every kubelet may read every secret": one compromised node
// reads the whole cluster. The Node authorizer narrows each kubelet (user
// system:node:<name> in group system:nodes) down to what its own pods use:
//
//   - its own Node object, its own Lease in kube-node-lease;
//   - pods bound to it (spec.nodeName), and lists of pods only with
//     fieldSelector spec.nodeName=<itself>;
//   - secrets, configmaps, PVCs (and their PVs) and service-account tokens
//     that those pods reference;
//   - everything else through the static system:node rules (events, services...).
//
// What the authorizer cannot see (the body of a create or update) the
// NodeRestriction admission plugin checks: a kubelet may only create mirror
// pods bound to itself, update the status of its own pods, modify its own
// Node (not its taints, not restricted labels), and so on.
// Upstream: plugin/pkg/auth/authorizer/node and plugin/pkg/admission/noderestriction.
//
// Simplified: upstream keeps a graph of pods, secrets, volumes and nodes,
// fed by informers, and answers from memory. Kubik asks storage at request
// time: a pod by name, or the pods of one namespace, filtered by
// spec.nodeName. Same answers, more reads.

// NodeIdentity returns the node name of a kubelet's identity.
func NodeIdentity(u *UserInfo) (string, bool) {
	if u == nil || !contains(u.Groups, GroupNodes) || !strings.HasPrefix(u.Name, NodeUserPrefix) {
		return "", false
	}
	return strings.TrimPrefix(u.Name, NodeUserPrefix), true
}

type nodeAuthorizer struct{ s *Server }

func (z *nodeAuthorizer) RulesFor(_ context.Context, u *UserInfo, _ string) ([]rbacv1.PolicyRule, bool, error) {
	if _, ok := NodeIdentity(u); ok {
		return nil, true, errors.New("node authorizer does not support user rule resolution")
	}
	return nil, false, nil
}

func (z *nodeAuthorizer) Authorize(ctx context.Context, a *Attributes) (Decision, string, error) {
	node, ok := NodeIdentity(a.User)
	if !ok {
		return DecisionNoOpinion, "", nil
	}
	if node == "" {
		return DecisionNoOpinion, fmt.Sprintf("unknown node for user %q", a.User.Name), nil
	}
	if a.IsResourceRequest {
		switch {
		case a.APIGroup == "" && a.Resource == "secrets":
			return z.readNamespaced(ctx, node, a)
		case a.APIGroup == "" && a.Resource == "configmaps":
			return z.readNamespaced(ctx, node, a)
		case a.APIGroup == "" && a.Resource == "persistentvolumeclaims":
			if a.Subresource == "status" {
				if a.Verb != "update" && a.Verb != "patch" {
					return DecisionNoOpinion, "can only get/update/patch this type", nil
				}
				return z.related(ctx, node, a)
			}
			return z.get(ctx, node, a)
		case a.APIGroup == "" && a.Resource == "persistentvolumes":
			return z.get(ctx, node, a)
		case a.APIGroup == "" && a.Resource == "serviceaccounts":
			if a.Verb != "create" || a.Name == "" {
				return DecisionNoOpinion, "can only create tokens for individual service accounts", nil
			}
			if a.Subresource != "token" {
				return DecisionNoOpinion, "can only create token subresource of serviceaccount", nil
			}
			return z.related(ctx, node, a)
		case a.APIGroup == "coordination.k8s.io" && a.Resource == "leases":
			return authorizeLease(node, a)
		case a.APIGroup == "" && a.Resource == "nodes":
			return authorizeNode(node, a)
		case a.APIGroup == "" && a.Resource == "pods":
			return z.authorizePod(ctx, node, a)
		}
	}
	if RulesAllow(a, NodeRules()...) {
		return DecisionAllow, "", nil
	}
	return DecisionNoOpinion, "", nil
}

// get: only "get" of one object related to the node.
func (z *nodeAuthorizer) get(ctx context.Context, node string, a *Attributes) (Decision, string, error) {
	if a.Verb != "get" {
		return DecisionNoOpinion, "can only get individual resources of this type", nil
	}
	if a.Subresource != "" {
		return DecisionNoOpinion, "cannot get subresource", nil
	}
	return z.related(ctx, node, a)
}

// readNamespaced: get, list or watch of one named object related to the node.
func (z *nodeAuthorizer) readNamespaced(ctx context.Context, node string, a *Attributes) (Decision, string, error) {
	switch a.Verb {
	case "get", "list", "watch":
	default:
		return DecisionNoOpinion, "can only read resources of this type", nil
	}
	if a.Subresource != "" {
		return DecisionNoOpinion, "cannot read subresource", nil
	}
	if a.Namespace == "" {
		return DecisionNoOpinion, "can only read namespaced object of this type", nil
	}
	return z.related(ctx, node, a)
}

// related allows a when the named object is used by a pod bound to node.
func (z *nodeAuthorizer) related(ctx context.Context, node string, a *Attributes) (Decision, string, error) {
	if a.Name == "" {
		return DecisionNoOpinion, "No Object name found", nil
	}
	ok, err := z.s.nodeUses(ctx, node, a.Resource, a.Namespace, a.Name)
	if err != nil {
		return DecisionNoOpinion, "", err
	}
	if !ok {
		return DecisionNoOpinion, fmt.Sprintf("no relationship found between node '%s' and this object", node), nil
	}
	return DecisionAllow, "", nil
}

func authorizeLease(node string, a *Attributes) (Decision, string, error) {
	switch a.Verb {
	case "get", "create", "update", "patch", "delete":
	default:
		return DecisionNoOpinion, "can only get, create, update, patch, or delete a node lease", nil
	}
	if a.Namespace != corev1.NamespaceNodeLease {
		return DecisionNoOpinion, fmt.Sprintf("can only access leases in the %q system namespace", corev1.NamespaceNodeLease), nil
	}
	if a.Verb != "create" && a.Name != node {
		return DecisionNoOpinion, "can only access node lease with the same name as the requesting node", nil
	}
	return DecisionAllow, "", nil
}

func authorizeNode(node string, a *Attributes) (Decision, string, error) {
	switch a.Subresource {
	case "":
		switch a.Verb {
		case "create", "update", "patch":
			return DecisionAllow, "", nil // NodeRestriction checks the name
		case "get", "list", "watch":
			switch a.Name {
			case node:
				return DecisionAllow, "", nil
			case "":
				return DecisionNoOpinion, fmt.Sprintf("node '%s' cannot read all nodes, only its own Node object", node), nil
			default:
				return DecisionNoOpinion, fmt.Sprintf("node '%s' cannot read '%s', only its own Node object", node, a.Name), nil
			}
		}
	case "status":
		if a.Verb == "update" || a.Verb == "patch" {
			return DecisionAllow, "", nil
		}
	}
	return DecisionNoOpinion, "", nil
}

func (z *nodeAuthorizer) authorizePod(ctx context.Context, node string, a *Attributes) (Decision, string, error) {
	switch a.Subresource {
	case "":
		switch a.Verb {
		case "get":
			return z.get(ctx, node, a)
		case "list", "watch":
			if sel, err := selection.ParseFieldSelector(a.FieldSelector); err == nil {
				if v, ok := sel.RequiresExactMatch("spec.nodeName"); ok && v == node {
					return DecisionAllow, "", nil
				}
			}
			if a.Name != "" {
				return z.related(ctx, node, a)
			}
			return DecisionNoOpinion, "can only list/watch pods with spec.nodeName field selector", nil
		case "create", "delete":
			return DecisionAllow, "", nil // mirror pods; NodeRestriction checks them
		}
	case "status":
		if a.Verb == "update" || a.Verb == "patch" {
			return DecisionAllow, "", nil
		}
	case "eviction":
		if a.Verb == "create" {
			return DecisionAllow, "", nil
		}
	}
	return DecisionNoOpinion, "", nil
}

// nodeUses answers the graph question "is there a path from this object to
// the node?" by reading storage: the pods of the namespace bound to node and
// what they reference.
func (s *Server) nodeUses(ctx context.Context, node, resource, namespace, name string) (bool, error) {
	podsRes := scheme.Lookup("", "v1", "pods")
	if resource == "pods" {
		obj, err := s.getObject(ctx, podsRes, namespace, name)
		if err != nil {
			return false, ignoreNotFound(err)
		}
		return obj.(*corev1.Pod).Spec.NodeName == node, nil
	}
	if resource == "persistentvolumes" { // node <- pod <- pvc <- pv
		pvcRes := scheme.Lookup("", "v1", "persistentvolumeclaims")
		pvcs, _, err := s.list(ctx, pvcRes, "", listOptions{})
		if err != nil {
			return false, err
		}
		for _, it := range pvcs {
			pvc := it.(*corev1.PersistentVolumeClaim)
			if pvc.Spec.VolumeName != name {
				continue
			}
			if ok, err := s.nodeUses(ctx, node, "persistentvolumeclaims", pvc.Namespace, pvc.Name); ok || err != nil {
				return ok, err
			}
		}
		return false, nil
	}
	sel, _ := selection.ParseFieldSelector("spec.nodeName=" + selection.EscapeValue(node))
	pods, _, err := s.list(ctx, podsRes, namespace, listOptions{Fields: sel})
	if err != nil {
		return false, err
	}
	for _, it := range pods {
		pod := it.(*corev1.Pod)
		if pod.Spec.NodeName != node {
			continue
		}
		refs := podReferences(pod)
		if contains(refs[resource], name) {
			return true, nil
		}
	}
	return false, nil
}

func ignoreNotFound(err error) error {
	var se *StatusError
	if errors.As(err, &se) && se.Status.Code == http.StatusNotFound {
		return nil
	}
	return err
}

// podReferences lists, by resource, the objects a pod uses.
func podReferences(pod *corev1.Pod) map[string][]string {
	refs := map[string][]string{}
	add := func(resource, name string) {
		if name != "" {
			refs[resource] = append(refs[resource], name)
		}
	}
	add("serviceaccounts", pod.Spec.ServiceAccountName)
	for _, s := range pod.Spec.ImagePullSecrets {
		add("secrets", s.Name)
	}
	for _, v := range pod.Spec.Volumes {
		if v.Secret != nil {
			add("secrets", v.Secret.SecretName)
		}
		if v.ConfigMap != nil {
			add("configmaps", v.ConfigMap.Name)
		}
		if v.PersistentVolumeClaim != nil {
			add("persistentvolumeclaims", v.PersistentVolumeClaim.ClaimName)
		}
		if v.Ephemeral != nil {
			add("persistentvolumeclaims", corev1.EphemeralVolumeClaimName(pod, &v))
		}
		if v.Projected != nil {
			for _, p := range v.Projected.Sources {
				if p.Secret != nil {
					add("secrets", p.Secret.Name)
				}
				if p.ConfigMap != nil {
					add("configmaps", p.ConfigMap.Name)
				}
			}
		}
	}
	envs := func(env []corev1.EnvVar, from []corev1.EnvFromSource) {
		for _, e := range env {
			if e.ValueFrom != nil && e.ValueFrom.SecretKeyRef != nil {
				add("secrets", e.ValueFrom.SecretKeyRef.Name)
			}
			if e.ValueFrom != nil && e.ValueFrom.ConfigMapKeyRef != nil {
				add("configmaps", e.ValueFrom.ConfigMapKeyRef.Name)
			}
		}
		for _, f := range from {
			if f.SecretRef != nil {
				add("secrets", f.SecretRef.Name)
			}
			if f.ConfigMapRef != nil {
				add("configmaps", f.ConfigMapRef.Name)
			}
		}
	}
	for _, c := range append(append([]corev1.Container(nil), pod.Spec.InitContainers...), pod.Spec.Containers...) {
		envs(c.Env, c.EnvFrom)
	}
	for _, c := range pod.Spec.EphemeralContainers {
		envs(c.Env, c.EnvFrom)
	}
	return refs
}

// ---- NodeRestriction admission ----

const mirrorPodAnnotation = "kubernetes.io/config.mirror"

// admitNodeRestriction limits what a kubelet may write (create and update;
// old == nil on create). Deletes are checked by admitNodeDelete.
func (s *Server) admitNodeRestriction(ctx context.Context, q *request, obj, old metav1.Object) error {
	node, ok := NodeIdentity(q.user)
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
	node, ok := NodeIdentity(q.user)
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
	node, ok := NodeIdentity(q.user)
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
