package node

import (
	"testing"

	"kubik/ch01-apiserver/api/corev1"
	"kubik/ch01-apiserver/api/metav1"
	"kubik/ch01-apiserver/api/resource"
	"kubik/ch01-apiserver/apiserver/auth"
)

// TestNodeAuthorizerVolumes: what chapter 5's kubelet reads to set up a
// pod's volumes — the ConfigMaps and Secrets of projected volumes (every
// pod's kube-api-access-xxxxx has kube-root-ca.crt), the PVC and the PV
// bound to it, a TokenRequest for the pod's service account — is allowed
// for the pod's node only.
func TestNodeAuthorizerVolumes(t *testing.T) {
	z, ctx := testAuthorizer(
		&corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "mine", Namespace: "default"}, Spec: corev1.PodSpec{NodeName: "node-1",
			ServiceAccountName: "default", Containers: []corev1.Container{{Name: "c", Image: "busybox"}},
			Volumes: []corev1.Volume{
				{Name: "kube-api-access-abcde", VolumeSource: corev1.VolumeSource{Projected: &corev1.ProjectedVolumeSource{Sources: []corev1.VolumeProjection{
					{ServiceAccountToken: &corev1.ServiceAccountTokenProjection{Path: "token"}},
					{ConfigMap: &corev1.ConfigMapProjection{LocalObjectReference: corev1.LocalObjectReference{Name: "kube-root-ca.crt"}}},
					{Secret: &corev1.SecretProjection{LocalObjectReference: corev1.LocalObjectReference{Name: "projected-secret"}}},
				}}}},
				{Name: "data", VolumeSource: corev1.VolumeSource{PersistentVolumeClaim: &corev1.PersistentVolumeClaimVolumeSource{ClaimName: "claim"}}},
			}}},
		&corev1.PersistentVolumeClaim{ObjectMeta: metav1.ObjectMeta{Name: "claim", Namespace: "default"}, Spec: claimSpec("pv-1")},
		&corev1.PersistentVolumeClaim{ObjectMeta: metav1.ObjectMeta{Name: "other-claim", Namespace: "default"}, Spec: claimSpec("pv-2")},
	)
	node1 := &auth.UserInfo{Name: "system:node:node-1", Groups: []string{auth.GroupNodes, auth.GroupAuthenticated}}
	node2 := &auth.UserInfo{Name: "system:node:node-2", Groups: []string{auth.GroupNodes, auth.GroupAuthenticated}}
	r := func(u *auth.UserInfo, verb, resource, sub, ns, name string) *auth.Attributes {
		return &auth.Attributes{User: u, Verb: verb, IsResourceRequest: true, Resource: resource, Subresource: sub, Namespace: ns, Name: name}
	}
	for _, tc := range []struct {
		a     *auth.Attributes
		allow bool
	}{
		{r(node1, "get", "configmaps", "", "default", "kube-root-ca.crt"), true},
		{r(node2, "get", "configmaps", "", "default", "kube-root-ca.crt"), false},
		{r(node1, "get", "secrets", "", "default", "projected-secret"), true},
		{r(node1, "get", "persistentvolumeclaims", "", "default", "claim"), true},
		{r(node1, "get", "persistentvolumeclaims", "", "default", "other-claim"), false},
		{r(node1, "get", "persistentvolumes", "", "", "pv-1"), true},
		{r(node1, "get", "persistentvolumes", "", "", "pv-2"), false},
		{r(node2, "get", "persistentvolumes", "", "", "pv-1"), false},
		{r(node1, "create", "serviceaccounts", "token", "default", "default"), true},
		{r(node1, "create", "serviceaccounts", "token", "default", "robot"), false},
		{r(node2, "create", "serviceaccounts", "token", "default", "default"), false},
	} {
		d, reason, err := z.Authorize(ctx, tc.a)
		if err != nil {
			t.Fatal(err)
		}
		if (d == auth.DecisionAllow) != tc.allow {
			t.Errorf("%s: %s %s/%s %s/%s: allowed=%v (%s), want %v", tc.a.User.Name, tc.a.Verb, tc.a.Resource, tc.a.Subresource,
				tc.a.Namespace, tc.a.Name, d == auth.DecisionAllow, reason, tc.allow)
		}
	}
}

func claimSpec(volumeName string) corev1.PersistentVolumeClaimSpec {
	return corev1.PersistentVolumeClaimSpec{VolumeName: volumeName, AccessModes: []corev1.PersistentVolumeAccessMode{corev1.ReadWriteOnce},
		Resources: corev1.VolumeResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceStorage: resource.MustParse("1Gi")}}}
}
