package plugins

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"kubik/ch01-apiserver/api/corev1"
	"kubik/ch01-apiserver/api/metav1"
	"kubik/ch03-scheduler/clientgo/rest"
	"kubik/ch03-scheduler/scheduler/framework"
)

// prepareCandidateAsync, in a goroutine, clears the nomination of the
// lower-priority pods nominated to the candidate's node (they may no longer
// fit there, and cleared they are retried elsewhere at once), then evicts
// the victims not already being deleted; with no such victim it does
// nothing. Upstream: Evaluator.prepareCandidateAsync.
//
// The pod is "preempting" until the last victim's deletion is asked for:
// that deletion is the event that brings the pod back to the queue, so
// PreEnqueue must let it in by then. A failed call activates the pod, which
// otherwise might wait for a deletion that never happens.
func (pl *DefaultPreemption) prepareCandidateAsync(c *Candidate, pod *corev1.Pod) {
	var victims []*corev1.Pod
	for _, v := range c.Victims {
		if v.DeletionTimestamp == nil { // graceful deletion already started: nothing to ask
			victims = append(victims, v)
		}
	}
	if len(victims) == 0 {
		return
	}
	preemptPod := pl.PreemptPod
	if preemptPod == nil {
		preemptPod = pl.preemptPod
	}
	pl.setPreempting(pod.UID, true)
	pl.running.Add(1)
	go func() {
		defer pl.running.Done()
		// Not the cycle's context: the evictions outlive the cycle.
		ctx := context.Background()
		log := pl.fw.Logger()
		failed := false
		if err := pl.clearNominatedNodeName(ctx, getLowerPriorityNominatedPods(pl.fw, pod, c.Name)); err != nil {
			// Not critical: the pods are retried anyway.
			log.Error("Cannot clear 'NominatedNodeName' field", "err", err)
		}
		last := len(victims) - 1
		for _, victim := range victims[:last] {
			if err := preemptPod(ctx, c, pod, victim); err != nil {
				failed = true
			}
		}
		pl.setPreempting(pod.UID, false)
		if err := preemptPod(ctx, c, pod, victims[last]); err != nil {
			failed = true
		}
		if failed {
			log.Error("Error occurred during async preemption", "preemptor", key(pod), "node", c.Name)
			if pl.Activate != nil {
				pl.Activate(pod)
			}
		}
	}()
}

// waitForEvictions waits until every eviction goroutine has finished.
func (pl *DefaultPreemption) waitForEvictions() { pl.running.Wait() }

// preemptPod evicts one victim: the condition DisruptionTarget (so that
// its controller and its user know why it goes), a graceful delete, and
// the event "Preempted". A victim already gone is no error.
// Upstream: the Evaluator's PreemptPod.
func (pl *DefaultPreemption) preemptPod(ctx context.Context, c *Candidate, preemptor, victim *corev1.Pod) error {
	cs := pl.fw.ClientSet()
	if cs == nil {
		return errors.New("preemption: no client to evict pods with")
	}
	log := pl.fw.Logger()
	cond := corev1.PodCondition{
		Type:               corev1.DisruptionTarget,
		ObservedGeneration: victim.Generation,
		Status:             corev1.ConditionTrue,
		Reason:             corev1.PodReasonPreemptionByScheduler,
		Message:            fmt.Sprintf("%s: preempting to accommodate a higher priority pod", preemptor.Spec.SchedulerName),
		LastTransitionTime: metav1.Now(),
	}
	if !hasCondition(victim, cond) {
		patch, _ := json.Marshal(map[string]any{"status": map[string]any{"conditions": []corev1.PodCondition{cond}}})
		_, err := rest.Patch[corev1.Pod](ctx, cs, victim.Namespace, victim.Name, rest.StrategicMergePatchType, patch, "status")
		if rest.IsNotFound(err) {
			log.Info("Victim Pod is already deleted", "preemptor", key(preemptor), "victim", key(victim), "node", c.Name)
			return nil
		}
		if err != nil {
			log.Error("Could not add DisruptionTarget condition due to preemption", "preemptor", key(preemptor), "victim", key(victim), "err", err)
			return err
		}
	}
	// A graceful delete with the pod's own grace period (upstream's empty
	// DeleteOptions); the kubelet finishes it.
	err := rest.Delete[corev1.Pod](ctx, cs, victim.Namespace, victim.Name, &metav1.DeleteOptions{})
	if rest.IsNotFound(err) {
		log.Info("Victim Pod is already deleted", "preemptor", key(preemptor), "victim", key(victim), "node", c.Name)
		return nil
	}
	if err != nil {
		log.Error("Tried to preempted pod", "pod", key(victim), "preemptor", key(preemptor), "err", err)
		return err
	}
	log.Info("Preemptor Pod preempted victim Pod", "preemptor", key(preemptor), "victim", key(victim), "node", c.Name)
	if r := pl.fw.EventRecorder(); r != nil {
		r.Eventf(victim, preemptor, "Normal", "Preempted", "Preempting", "Preempted by pod %v on node %v", preemptor.UID, c.Name)
	}
	return nil
}

// hasCondition: the pod already has cond (same type, status, reason,
// message).
func hasCondition(pod *corev1.Pod, cond corev1.PodCondition) bool {
	for _, c := range pod.Status.Conditions {
		if c.Type == cond.Type {
			return c.Status == cond.Status && c.Reason == cond.Reason && c.Message == cond.Message
		}
	}
	return false
}

// getLowerPriorityNominatedPods: the pods nominated to nodeName with a
// priority lower than pod's.
func getLowerPriorityNominatedPods(fw *framework.Framework, pod *corev1.Pod, nodeName string) []*corev1.Pod {
	var out []*corev1.Pod
	for _, p := range fw.NominatedPodsForNode(nodeName) {
		if framework.PodPriority(p) < framework.PodPriority(pod) {
			out = append(out, p)
		}
	}
	return out
}

// clearNominatedNodeName removes status.nominatedNodeName from pods (the
// nominator follows when the informer reports the change).
func (pl *DefaultPreemption) clearNominatedNodeName(ctx context.Context, pods []*corev1.Pod) error {
	var errs []error
	for _, p := range pods {
		if p.Status.NominatedNodeName == "" {
			continue
		}
		if pl.fw.ClientSet() == nil {
			return errors.New("no client")
		}
		patch := []byte(`{"status":{"nominatedNodeName":null}}`)
		if _, err := rest.Patch[corev1.Pod](ctx, pl.fw.ClientSet(), p.Namespace, p.Name, rest.StrategicMergePatchType, patch, "status"); err != nil && !rest.IsNotFound(err) {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

func key(p *corev1.Pod) string { return p.Namespace + "/" + p.Name }
