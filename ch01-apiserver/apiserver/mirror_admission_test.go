package apiserver

import (
	"context"
	"testing"

	"kubik/ch01-apiserver/api/corev1"
	"kubik/ch01-apiserver/api/metav1"
)

// TestMirrorPodServiceAccountAdmission: a kubelet's mirror pod keeps its
// spec (no ServiceAccount, no token volume), and may not reference a
// ServiceAccount or Secrets, as upstream's ServiceAccount plugin says.
func TestMirrorPodServiceAccountAdmission(t *testing.T) {
	s := testServer(t)
	ctx := context.Background()
	mustEnsure(t, s, &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: "default", Namespace: "default"}})
	mirror := func() *corev1.Pod {
		return &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "web-node-1", Namespace: "default",
			Annotations: map[string]string{"kubernetes.io/config.mirror": "abc"}},
			Spec: corev1.PodSpec{NodeName: "node-1", Containers: []corev1.Container{{Name: "web", Image: "busybox"}}}}
	}
	pod := mirror()
	if err := s.admitServiceAccount(ctx, pod); err != nil {
		t.Fatal(err)
	}
	if pod.Spec.ServiceAccountName != "" || len(pod.Spec.Volumes) != 0 || len(pod.Spec.Containers[0].VolumeMounts) != 0 {
		t.Errorf("mirror pod changed: serviceAccountName %q volumes %v", pod.Spec.ServiceAccountName, pod.Spec.Volumes)
	}

	withSA := mirror()
	withSA.Spec.ServiceAccountName = "default"
	withSecret := mirror()
	withSecret.Spec.Containers[0].EnvFrom = []corev1.EnvFromSource{{SecretRef: &corev1.SecretEnvSource{LocalObjectReference: corev1.LocalObjectReference{Name: "s"}}}}
	withToken := mirror()
	withToken.Spec.Volumes = []corev1.Volume{{Name: "t", VolumeSource: corev1.VolumeSource{Projected: &corev1.ProjectedVolumeSource{
		Sources: []corev1.VolumeProjection{{ServiceAccountToken: &corev1.ServiceAccountTokenProjection{Path: "token"}}}}}}}
	for want, p := range map[string]*corev1.Pod{
		`pods "web-node-1" is forbidden: a mirror pod may not reference service accounts`:                 withSA,
		`pods "web-node-1" is forbidden: a mirror pod may not reference secrets`:                          withSecret,
		`pods "web-node-1" is forbidden: a mirror pod may not use ServiceAccountToken volume projections`: withToken,
	} {
		if err := s.admitServiceAccount(ctx, p); err == nil || err.Error() != want {
			t.Errorf("got %v, want %s", err, want)
		}
	}

	// Any other pod still gets the namespace's default ServiceAccount.
	plain := mirror()
	delete(plain.Annotations, "kubernetes.io/config.mirror")
	if err := s.admitServiceAccount(ctx, plain); err != nil || plain.Spec.ServiceAccountName != "default" {
		t.Errorf("plain pod: %v, serviceAccountName %q", err, plain.Spec.ServiceAccountName)
	}
}
