package apiserver

import (
	"context"
	"testing"
	"time"

	"kubik/ch01-apiserver/api/corev1"
	"kubik/ch01-apiserver/api/metav1"
	"kubik/ch01-apiserver/api/rbacv1"
	"kubik/ch01-apiserver/api/resource"
	"kubik/ch01-apiserver/api/scheme"
	"kubik/ch01-apiserver/apiserver/auth"
	"kubik/ch01-apiserver/apiserver/auth/serviceaccount"
)

// TestAuthObjects: what the auth packages read comes from storage — the
// pods bound to a node and the claims they use (Node authorizer), the RBAC
// objects, the objects a ServiceAccount token is bound to — and the
// server's chain of Node,RBAC answers from them.
func TestAuthObjects(t *testing.T) {
	s := testServer(t)
	ctx := context.Background()
	mustEnsure(t, s,
		&corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "other"}},
		&corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: "robot", Namespace: "default"}},
		&corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "mine", Namespace: "default"}, Spec: corev1.PodSpec{NodeName: "node-1",
			Containers: []corev1.Container{{Name: "c", Image: "busybox"}},
			Volumes: []corev1.Volume{{Name: "s", VolumeSource: corev1.VolumeSource{Secret: &corev1.SecretVolumeSource{SecretName: "secret-mine"}}},
				{Name: "data", VolumeSource: corev1.VolumeSource{PersistentVolumeClaim: &corev1.PersistentVolumeClaimVolumeSource{ClaimName: "claim"}}}}}},
		&corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "elsewhere", Namespace: "other"}, Spec: corev1.PodSpec{NodeName: "node-1",
			Containers: []corev1.Container{{Name: "c", Image: "busybox"}}}},
		&corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "theirs", Namespace: "default"}, Spec: corev1.PodSpec{NodeName: "node-2",
			Containers: []corev1.Container{{Name: "c", Image: "busybox"}}}},
		&corev1.PersistentVolumeClaim{ObjectMeta: metav1.ObjectMeta{Name: "claim", Namespace: "default"}, Spec: claimSpec("pv-1")},
	)

	nodes := nodeObjects{s}
	if pod, err := nodes.GetPod(ctx, "default", "gone"); pod != nil || err != nil {
		t.Errorf("missing pod: %v, %v; want nil, nil", pod, err)
	}
	pods, err := nodes.ListPodsOnNode(ctx, "default", "node-1")
	if err != nil || len(pods) != 1 || pods[0].Name != "mine" {
		t.Errorf("pods of node-1 in default: %v %v", pods, err)
	}
	if pods, err := nodes.ListPodsOnNode(ctx, "", "node-1"); err != nil || len(pods) != 2 {
		t.Errorf("pods of node-1 in every namespace: %d %v", len(pods), err)
	}
	if pvcs, err := nodes.ListPersistentVolumeClaims(ctx); err != nil || len(pvcs) != 1 || pvcs[0].Spec.VolumeName != "pv-1" {
		t.Errorf("claims: %v %v", pvcs, err)
	}
	if _, err := (tokenObjects{s}).GetPod(ctx, "default", "gone"); err == nil || err.Error() != `pods "gone" not found` {
		t.Errorf("token's missing pod: %v", err)
	}
	roles, err := rbacObjects{s}.List(ctx, scheme.Lookup(rbacv1.GroupName, "v1", "clusterroles"))
	if err != nil || len(roles) == 0 {
		t.Errorf("clusterroles: %d %v", len(roles), err)
	}

	node1 := &auth.UserInfo{Name: "system:node:node-1", Groups: []string{auth.GroupNodes, auth.GroupAuthenticated}}
	for _, tc := range []struct {
		resource, namespace, name string
		allow                     bool
	}{
		{"secrets", "default", "secret-mine", true},
		{"persistentvolumes", "", "pv-1", true},
		{"pods", "default", "theirs", false},
	} {
		a := &auth.Attributes{User: node1, Verb: "get", IsResourceRequest: true, Resource: tc.resource, Namespace: tc.namespace, Name: tc.name}
		if d, reason, err := s.authorizer.Authorize(ctx, a); (d == auth.DecisionAllow) != tc.allow || err != nil {
			t.Errorf("node-1 get %s %s/%s: %v %q %v, want allowed=%v", tc.resource, tc.namespace, tc.name, d, reason, err, tc.allow)
		}
	}

	obj, _ := s.getObject(ctx, coreResource("serviceaccounts"), "default", "robot")
	sa := obj.(*corev1.ServiceAccount)
	bound, _, err := s.saTokens.Issue(sa, s.saTokens.Audiences, time.Hour, &serviceaccount.Ref{Name: "gone", UID: "x"}, nil, nil, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.tokens.Authenticate(ctx, bound, nil); err == nil || err.Error() != `pods "gone" is bound to this token: pods "gone" not found` {
		t.Errorf("token bound to a missing pod: %v", err)
	}
}

func claimSpec(volumeName string) corev1.PersistentVolumeClaimSpec {
	return corev1.PersistentVolumeClaimSpec{VolumeName: volumeName, AccessModes: []corev1.PersistentVolumeAccessMode{corev1.ReadWriteOnce},
		Resources: corev1.VolumeResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceStorage: resource.MustParse("1Gi")}}}
}
