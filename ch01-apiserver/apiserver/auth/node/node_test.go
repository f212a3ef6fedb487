package node

import (
	"context"
	"testing"

	"kubik/ch01-apiserver/api/corev1"
	"kubik/ch01-apiserver/api/metav1"
	"kubik/ch01-apiserver/apiserver/auth"
	"kubik/ch01-apiserver/apiserver/auth/rbac/bootstrappolicy"
)

// objects is a fixed set of pods and claims, as the apiserver's registry
// would answer for them.
type objects struct {
	pods []*corev1.Pod
	pvcs []*corev1.PersistentVolumeClaim
}

func (o *objects) GetPod(_ context.Context, namespace, name string) (*corev1.Pod, error) {
	for _, p := range o.pods {
		if p.Namespace == namespace && p.Name == name {
			return p, nil
		}
	}
	return nil, nil
}

func (o *objects) ListPodsOnNode(_ context.Context, namespace, node string) ([]*corev1.Pod, error) {
	var out []*corev1.Pod
	for _, p := range o.pods {
		if (namespace == "" || p.Namespace == namespace) && p.Spec.NodeName == node {
			out = append(out, p)
		}
	}
	return out, nil
}

func (o *objects) ListPersistentVolumeClaims(context.Context) ([]*corev1.PersistentVolumeClaim, error) {
	return o.pvcs, nil
}

// testAuthorizer is a Node authorizer, with the bootstrap policy's
// system:node rules, over objs (pods and claims).
func testAuthorizer(objs ...metav1.Object) (*Authorizer, context.Context) {
	o := &objects{}
	for _, obj := range objs {
		switch x := obj.(type) {
		case *corev1.Pod:
			o.pods = append(o.pods, x)
		case *corev1.PersistentVolumeClaim:
			o.pvcs = append(o.pvcs, x)
		}
	}
	return NewAuthorizer(o, bootstrappolicy.NodeRules()), context.Background()
}

func TestNodeAuthorizer(t *testing.T) {
	z, ctx := testAuthorizer(
		&corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "mine", Namespace: "default"}, Spec: corev1.PodSpec{NodeName: "node-1",
			Containers: []corev1.Container{{Name: "c", Image: "busybox", EnvFrom: []corev1.EnvFromSource{{ConfigMapRef: &corev1.ConfigMapEnvSource{LocalObjectReference: corev1.LocalObjectReference{Name: "cfg-mine"}}}}}},
			Volumes:    []corev1.Volume{{Name: "s", VolumeSource: corev1.VolumeSource{Secret: &corev1.SecretVolumeSource{SecretName: "secret-mine"}}}}}},
		&corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "theirs", Namespace: "default"}, Spec: corev1.PodSpec{NodeName: "node-2",
			Containers: []corev1.Container{{Name: "c", Image: "busybox"}},
			Volumes:    []corev1.Volume{{Name: "s", VolumeSource: corev1.VolumeSource{Secret: &corev1.SecretVolumeSource{SecretName: "secret-theirs"}}}}}},
	)
	node1 := &auth.UserInfo{Name: "system:node:node-1", Groups: []string{auth.GroupNodes, auth.GroupAuthenticated}}
	notNode := &auth.UserInfo{Name: "system:node:node-1", Groups: []string{auth.GroupAuthenticated}} // right name, wrong group
	r := func(verb, group, resource, sub, ns, name string) *auth.Attributes {
		return &auth.Attributes{User: node1, Verb: verb, IsResourceRequest: true, APIGroup: group, Resource: resource, Subresource: sub, Namespace: ns, Name: name}
	}
	tests := []struct {
		a      *auth.Attributes
		allow  bool
		reason string
	}{
		{r("get", "", "pods", "", "default", "mine"), true, ""},
		{r("get", "", "pods", "", "default", "theirs"), false, "no relationship found between node 'node-1' and this object"},
		{r("list", "", "pods", "", "", ""), false, "can only list/watch pods with spec.nodeName field selector"},
		{&auth.Attributes{User: node1, Verb: "watch", IsResourceRequest: true, Resource: "pods", FieldSelector: "spec.nodeName=node-1"}, true, ""},
		{&auth.Attributes{User: node1, Verb: "list", IsResourceRequest: true, Resource: "pods", FieldSelector: "spec.nodeName=node-2"}, false, "can only list/watch pods with spec.nodeName field selector"},
		{r("update", "", "pods", "status", "default", "theirs"), true, ""}, // NodeRestriction refuses it
		{r("update", "", "pods", "", "default", "mine"), false, ""},
		{r("get", "", "secrets", "", "default", "secret-mine"), true, ""},
		{r("get", "", "secrets", "", "default", "secret-theirs"), false, "no relationship found between node 'node-1' and this object"},
		{r("list", "", "secrets", "", "default", ""), false, "No Object name found"},
		{r("get", "", "configmaps", "", "default", "cfg-mine"), true, ""},
		{r("update", "", "secrets", "", "default", "secret-mine"), false, "can only read resources of this type"},
		{r("get", "", "nodes", "", "", "node-1"), true, ""},
		{r("get", "", "nodes", "", "", "node-2"), false, "node 'node-1' cannot read 'node-2', only its own Node object"},
		{r("list", "", "nodes", "", "", ""), false, "node 'node-1' cannot read all nodes, only its own Node object"},
		{r("update", "coordination.k8s.io", "leases", "", "kube-node-lease", "node-1"), true, ""},
		{r("update", "coordination.k8s.io", "leases", "", "kube-node-lease", "node-2"), false, "can only access node lease with the same name as the requesting node"},
		{r("get", "coordination.k8s.io", "leases", "", "default", "node-1"), false, `can only access leases in the "kube-node-lease" system namespace`},
		{r("create", "", "events", "", "default", ""), true, ""},
		{r("list", "", "services", "", "", ""), true, ""},
		{r("delete", "apps", "deployments", "", "default", "x"), false, ""},
		{&auth.Attributes{User: notNode, Verb: "get", IsResourceRequest: true, Resource: "pods", Namespace: "default", Name: "mine"}, false, ""},
	}
	for _, tc := range tests {
		d, reason, err := z.Authorize(ctx, tc.a)
		if err != nil {
			t.Fatalf("%+v: %v", *tc.a, err)
		}
		if (d == auth.DecisionAllow) != tc.allow || reason != tc.reason {
			t.Errorf("%s %s/%s %s/%s (fieldSelector %q): allowed=%v reason=%q, want %v %q",
				tc.a.Verb, tc.a.Resource, tc.a.Subresource, tc.a.Namespace, tc.a.Name, tc.a.FieldSelector, d == auth.DecisionAllow, reason, tc.allow, tc.reason)
		}
	}
}
