package kubelet

import (
	"testing"

	"kubik/ch01-apiserver/api/corev1"
)

func TestTerminationGracePeriod(t *testing.T) {
	i64 := func(v int64) *int64 { return &v }
	c := corev1.Container{LivenessProbe: &corev1.Probe{TerminationGracePeriodSeconds: i64(5)}}
	pod := &corev1.Pod{Spec: corev1.PodSpec{TerminationGracePeriodSeconds: i64(30)}}
	if g := terminationGracePeriod(pod, c, reasonLivenessProbe); g != 5 {
		t.Errorf("liveness kill: %d, want the probe's 5", g)
	}
	if g := terminationGracePeriod(pod, c, reasonFailedPostStartHook); g != 30 {
		t.Errorf("postStart kill: %d, want the pod's 30", g)
	}
	pod.DeletionGracePeriodSeconds = i64(7)
	if g := terminationGracePeriod(pod, c, reasonLivenessProbe); g != 7 {
		t.Errorf("deleting: %d, want the deletion's 7", g)
	}
}
