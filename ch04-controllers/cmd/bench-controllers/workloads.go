package main

import (
	"context"
	"fmt"
	"time"

	"kubik/ch01-apiserver/api/appsv1"
	"kubik/ch01-apiserver/api/corev1"
	"kubik/ch01-apiserver/api/metav1"
	"kubik/ch03-scheduler/clientgo/rest"
)

// The StatefulSet and ReplicationController cases, after the Deployment's
// (the Deployment's pods stay: no garbage collector runs).

const (
	statefulSetName = "web"
	rcName          = "rc-big"
)

// newStatefulSet is a StatefulSet of n pods, OrderedReady (the default:
// pod i+1 is created once pod i is Running and Ready) and RollingUpdate.
func newStatefulSet(n int32) *appsv1.StatefulSet {
	labels := map[string]string{"app": statefulSetName}
	return &appsv1.StatefulSet{
		TypeMeta:   metav1.TypeMeta{APIVersion: "apps/v1", Kind: "StatefulSet"},
		ObjectMeta: metav1.ObjectMeta{Name: statefulSetName, Namespace: "default", Labels: labels},
		Spec: appsv1.StatefulSetSpec{
			Replicas:            &n,
			Selector:            &metav1.LabelSelector{MatchLabels: labels},
			ServiceName:         statefulSetName,
			PodManagementPolicy: appsv1.OrderedReadyPodManagement,
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: labels},
				Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "nginx", Image: "nginx"}}},
			},
		},
	}
}

// newReplicationController is what `kubectl create -f` of a
// ReplicationController of n nginx pods sends.
func newReplicationController(n int32) *corev1.ReplicationController {
	labels := map[string]string{"app": rcName}
	return &corev1.ReplicationController{
		TypeMeta:   metav1.TypeMeta{APIVersion: "v1", Kind: "ReplicationController"},
		ObjectMeta: metav1.ObjectMeta{Name: rcName, Namespace: "default", Labels: labels},
		Spec: corev1.ReplicationControllerSpec{
			Replicas: &n,
			Selector: labels,
			Template: &corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: labels},
				Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "nginx", Image: "nginx"}}},
			},
		},
	}
}

// stsReady is T3's end: the controller saw the StatefulSet and all n pods
// are Ready (OrderedReady created them one after the other).
func stsReady(n int32) func(s *appsv1.StatefulSet) bool {
	return func(s *appsv1.StatefulSet) bool {
		return s.Status.ObservedGeneration >= s.Generation && s.Status.Replicas == n && s.Status.ReadyReplicas == n &&
			s.Status.AvailableReplicas == n
	}
}

// stsRolledOut is T4's end as `kubectl rollout status sts/web` decides it:
// generation observed, every replica ready, every pod at updateRevision and
// currentRevision caught up with it.
func stsRolledOut(n int32) func(s *appsv1.StatefulSet) bool {
	return func(s *appsv1.StatefulSet) bool {
		st := s.Status
		return st.ObservedGeneration >= s.Generation && st.ReadyReplicas == n && st.UpdatedReplicas == n &&
			st.UpdateRevision != "" && st.CurrentRevision == st.UpdateRevision
	}
}

func describeSTS(s *appsv1.StatefulSet) string {
	st := s.Status
	return fmt.Sprintf("generation %d observed %d, replicas %d ready %d available %d current %d updated %d, revisions %s/%s",
		s.Generation, st.ObservedGeneration, st.Replicas, st.ReadyReplicas, st.AvailableReplicas, st.CurrentReplicas,
		st.UpdatedReplicas, st.CurrentRevision, st.UpdateRevision)
}

// createStatefulSet is phase T3: POST the StatefulSet, wait until all n
// pods are Ready; "created" is when its status first counts n pods.
func createStatefulSet(ctx context.Context, c *rest.Client, n int32, timeout time.Duration) (milestones, error) {
	start := time.Now()
	if _, err := rest.Create(ctx, c, newStatefulSet(n)); err != nil {
		return milestones{}, err
	}
	return waitFor(ctx, c, statefulSetName, start, timeout,
		func(s *appsv1.StatefulSet) bool { return s.Status.Replicas == n }, stsReady(n), describeSTS)
}

// rollStatefulSet is phase T4: `kubectl set image sts/web nginx=nginx:1.27`;
// the controller replaces the pods from the highest ordinal down, one at a
// time, each after the one before is Ready again.
func rollStatefulSet(ctx context.Context, c *rest.Client, n int32, timeout time.Duration) (milestones, error) {
	start := time.Now()
	if _, err := rest.Patch[appsv1.StatefulSet](ctx, c, "default", statefulSetName, rest.StrategicMergePatchType,
		[]byte(setImagePatch), ""); err != nil {
		return milestones{}, err
	}
	return waitFor(ctx, c, statefulSetName, start, timeout,
		func(s *appsv1.StatefulSet) bool {
			return s.Status.ObservedGeneration >= s.Generation && s.Status.UpdatedReplicas == n
		}, stsRolledOut(n), describeSTS)
}

func describeRC(rc *corev1.ReplicationController) string {
	st := rc.Status
	return fmt.Sprintf("generation %d observed %d, replicas %d ready %d available %d",
		rc.Generation, st.ObservedGeneration, st.Replicas, st.ReadyReplicas, st.AvailableReplicas)
}

// createReplicationController is phase T5: POST the ReplicationController,
// wait until all n pods are Running and Ready (readyReplicas = n).
func createReplicationController(ctx context.Context, c *rest.Client, n int32, timeout time.Duration) (milestones, error) {
	start := time.Now()
	if _, err := rest.Create(ctx, c, newReplicationController(n)); err != nil {
		return milestones{}, err
	}
	return waitFor(ctx, c, rcName, start, timeout,
		func(rc *corev1.ReplicationController) bool { return rc.Status.Replicas == n },
		func(rc *corev1.ReplicationController) bool {
			return rc.Status.ObservedGeneration >= rc.Generation && rc.Status.Replicas == n &&
				rc.Status.ReadyReplicas == n && rc.Status.AvailableReplicas == n
		}, describeRC)
}
