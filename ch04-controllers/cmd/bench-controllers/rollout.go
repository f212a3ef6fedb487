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

// deploymentName is the Deployment both phases measure, in "default".
const deploymentName = "big"

// newDeployment is what `kubectl create deployment big --image=nginx
// --replicas=N` sends.
func newDeployment(replicas int32) *appsv1.Deployment {
	labels := map[string]string{"app": deploymentName}
	return &appsv1.Deployment{
		TypeMeta:   metav1.TypeMeta{APIVersion: "apps/v1", Kind: "Deployment"},
		ObjectMeta: metav1.ObjectMeta{Name: deploymentName, Namespace: "default", Labels: labels},
		Spec: appsv1.DeploymentSpec{
			Replicas: &replicas,
			Selector: &metav1.LabelSelector{MatchLabels: labels},
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: labels},
				Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "nginx", Image: "nginx"}}},
			},
		},
	}
}

// setImagePatch is the strategic merge patch of `kubectl set image
// deployment/big nginx=nginx:1.27`.
const setImagePatch = `{"spec":{"template":{"spec":{"containers":[{"name":"nginx","image":"nginx:1.27"}]}}}}`

// milestones of one phase, as durations since the phase's request was sent.
type milestones struct {
	created time.Duration // status shows every replica created (T1: replicas; T2: updatedReplicas)
	done    time.Duration // the phase's end condition (available; rollout complete)
}

// pollInterval is how often the Deployment is read while waiting.
const pollInterval = 100 * time.Millisecond

// waitFor reads the object "default"/name every pollInterval from start
// until done says the phase is over, noting when created first holds.
func waitFor[T any, PT rest.Object[T]](ctx context.Context, c *rest.Client, name string, start time.Time, timeout time.Duration,
	created, done func(d *T) bool, describe func(d *T) string) (milestones, error) {
	var m milestones
	var last *T
	deadline := start.Add(timeout)
	lastState, changed := "", time.Now()
	for {
		d, err := rest.Get[T, PT](ctx, c, "default", name)
		now := time.Since(start)
		if err == nil {
			last = d
			if state := describe(d); state != lastState {
				lastState, changed = state, time.Now()
				if *trace {
					fmt.Printf("    %7.3fs %s\n", now.Seconds(), state)
				}
			} else if time.Since(changed) > *stall {
				return m, fmt.Errorf("stalled: status unchanged for %v: %s", *stall, state)
			}
			if m.created == 0 && created(d) {
				m.created = now
			}
			if done(d) {
				if m.created == 0 {
					m.created = now
				}
				m.done = now
				return m, nil
			}
		}
		if time.Now().After(deadline) || ctx.Err() != nil {
			state := "never read"
			if last != nil {
				state = describe(last)
			}
			return m, fmt.Errorf("not done after %v: %s", timeout, state)
		}
		time.Sleep(pollInterval)
	}
}

// available is T1's end: every replica available and Available=True.
func available(n int32) func(d *appsv1.Deployment) bool {
	return func(d *appsv1.Deployment) bool {
		return d.Status.ObservedGeneration >= d.Generation && d.Status.AvailableReplicas == n &&
			condition(d, appsv1.DeploymentAvailable) == corev1.ConditionTrue
	}
}

// rolledOut is T2's end, as `kubectl rollout status` decides it: the
// controller saw the new template, every replica is updated, no old one is
// left, and every updated one is available.
func rolledOut(n int32) func(d *appsv1.Deployment) bool {
	return func(d *appsv1.Deployment) bool {
		s := d.Status
		return s.ObservedGeneration >= d.Generation && s.UpdatedReplicas == n && s.Replicas == n &&
			s.AvailableReplicas == n
	}
}

func condition(d *appsv1.Deployment, t appsv1.DeploymentConditionType) corev1.ConditionStatus {
	for _, c := range d.Status.Conditions {
		if c.Type == t {
			return c.Status
		}
	}
	return ""
}

func describe(d *appsv1.Deployment) string {
	s := d.Status
	return fmt.Sprintf("generation %d observed %d, replicas %d updated %d ready %d available %d, Available=%s Progressing=%s",
		d.Generation, s.ObservedGeneration, s.Replicas, s.UpdatedReplicas, s.ReadyReplicas, s.AvailableReplicas,
		condition(d, appsv1.DeploymentAvailable), condition(d, appsv1.DeploymentProgressing))
}

// createDeployment is phase T1: POST the Deployment, wait until it is
// Available with every replica.
func createDeployment(ctx context.Context, c *rest.Client, n int32, timeout time.Duration) (milestones, error) {
	start := time.Now()
	if _, err := rest.Create(ctx, c, newDeployment(n)); err != nil {
		return milestones{}, err
	}
	return waitFor(ctx, c, deploymentName, start, timeout,
		func(d *appsv1.Deployment) bool { return d.Status.Replicas == n }, available(n), describe)
}

// setImage is phase T2: PATCH the image, wait until the rollout completes.
func setImage(ctx context.Context, c *rest.Client, n int32, timeout time.Duration) (milestones, error) {
	start := time.Now()
	if _, err := rest.Patch[appsv1.Deployment](ctx, c, "default", deploymentName, rest.StrategicMergePatchType,
		[]byte(setImagePatch), ""); err != nil {
		return milestones{}, err
	}
	return waitFor(ctx, c, deploymentName, start, timeout,
		func(d *appsv1.Deployment) bool {
			return d.Status.ObservedGeneration >= d.Generation && d.Status.UpdatedReplicas == n
		}, rolledOut(n), describe)
}
