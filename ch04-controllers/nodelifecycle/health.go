package nodelifecycle

import (
	"context"
	"errors"
	"time"

	"kubik/ch01-apiserver/api/corev1"
	"kubik/ch01-apiserver/api/metav1"
	"kubik/ch03-scheduler/clientgo/rest"
)

// Condition reasons and messages written when a kubelet goes silent, as upstream.
const (
	reasonNodeStatusUnknown       = "NodeStatusUnknown"
	messageNodeStatusUnknown      = "Kubelet stopped posting node status."
	reasonNodeStatusNeverUpdated  = "NodeStatusNeverUpdated"
	messageNodeStatusNeverUpdated = "Kubelet never posted node status."
)

// monitorNodeHealth checks every node once. Upstream: monitorNodeHealth.
func (c *NodeLifecycleController) monitorNodeHealth(ctx context.Context) error {
	var errs []error
	for _, n := range c.nodes.GetStore().List() {
		c.mu.Lock()
		isNew := !c.knownNodes[n.Name]
		c.knownNodes[n.Name] = true
		retry := c.nodesToRetry[n.Name]
		c.mu.Unlock()
		if isNew {
			c.recorder.Eventf(nodeRef(n), corev1.EventTypeNormal, "RegisteredNode", "Node %s event: Registered Node %s in Controller", n.Name, n.Name)
		}
		node := metav1.DeepCopy(n)
		observedReady, currentReady, err := c.tryUpdateNodeHealth(ctx, node)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		if currentReady == nil {
			continue
		}
		wentDown := currentReady.Status != corev1.ConditionTrue && observedReady.Status == corev1.ConditionTrue
		if wentDown {
			c.recorder.Eventf(nodeRef(node), corev1.EventTypeNormal, "NodeNotReady", "Node %s status is now: %s", node.Name, "NodeNotReady")
		}
		if wentDown || (retry && currentReady.Status != corev1.ConditionTrue) {
			err := c.markPodsNotReady(ctx, node.Name)
			c.mu.Lock()
			c.nodesToRetry[node.Name] = err != nil
			c.mu.Unlock()
			if err != nil {
				errs = append(errs, err)
			}
		}
	}
	return errors.Join(errs...)
}

// tryUpdateNodeHealth updates what the controller saw of node and, after a
// silence longer than the grace period, writes its conditions as Unknown.
// It returns the Ready condition as read and as it is now. Upstream: the
// same name.
func (c *NodeLifecycleController) tryUpdateNodeHealth(ctx context.Context, node *corev1.Node) (observed corev1.NodeCondition, current *corev1.NodeCondition, err error) {
	now := c.opts.Clock.Now()
	c.mu.Lock()
	health := c.nodeHealthMap[node.Name]
	c.mu.Unlock()
	var gracePeriod time.Duration
	current = getCondition(&node.Status, corev1.NodeReady)
	if current == nil {
		// Never posted: pretend it did when it was created, with the startup grace period.
		gracePeriod = c.opts.NodeStartupGracePeriod
		observed = corev1.NodeCondition{Type: corev1.NodeReady, Status: corev1.ConditionUnknown,
			LastHeartbeatTime: node.CreationTimestamp, LastTransitionTime: node.CreationTimestamp}
		if health == nil {
			health = &nodeHealthData{probeTimestamp: node.CreationTimestamp.Time, readyTransitionTimestamp: node.CreationTimestamp.Time}
		}
	} else {
		gracePeriod = c.opts.NodeMonitorGracePeriod
		observed = *current
	}
	// Did the status change since we last looked? Then the kubelet is alive.
	var saved *corev1.NodeCondition
	if health != nil && health.status != nil {
		saved = getCondition(health.status, corev1.NodeReady)
	}
	switch {
	case health == nil:
		health = &nodeHealthData{probeTimestamp: now, readyTransitionTimestamp: now}
	case saved == nil && current != nil, saved != nil && current == nil:
		health.probeTimestamp, health.readyTransitionTimestamp = now, now
	case saved != nil && current != nil && !saved.LastHeartbeatTime.Equal(current.LastHeartbeatTime.Time):
		if !saved.LastTransitionTime.Equal(current.LastTransitionTime.Time) {
			health.readyTransitionTimestamp = now
		}
		health.probeTimestamp = now
	}
	health.status = &node.Status
	// A renewed Lease is the cheap heartbeat.
	if l, ok := c.leases.GetStore().Get(corev1.NamespaceNodeLease, node.Name); ok && l.Spec.RenewTime != nil {
		if health.lease == nil || health.lease.Spec.RenewTime == nil || health.lease.Spec.RenewTime.Before(l.Spec.RenewTime.Time) {
			health.lease = l
			health.probeTimestamp = now
		}
	}
	c.mu.Lock()
	c.nodeHealthMap[node.Name] = health
	c.mu.Unlock()

	if !now.After(health.probeTimestamp.Add(gracePeriod)) {
		return observed, current, nil
	}
	// Silent for too long: every kubelet-owned condition becomes Unknown.
	changed := false
	nowTime := metav1.NewTime(now)
	for _, t := range []corev1.NodeConditionType{corev1.NodeReady, corev1.NodeMemoryPressure, corev1.NodeDiskPressure, corev1.NodePIDPressure} {
		cond := getCondition(&node.Status, t)
		switch {
		case cond == nil:
			node.Status.Conditions = append(node.Status.Conditions, corev1.NodeCondition{Type: t, Status: corev1.ConditionUnknown,
				Reason: reasonNodeStatusNeverUpdated, Message: messageNodeStatusNeverUpdated,
				LastHeartbeatTime: node.CreationTimestamp, LastTransitionTime: nowTime})
			changed = true
		case cond.Status != corev1.ConditionUnknown:
			cond.Status, cond.Reason, cond.Message, cond.LastTransitionTime = corev1.ConditionUnknown,
				reasonNodeStatusUnknown, messageNodeStatusUnknown, nowTime
			changed = true
		}
	}
	current = getCondition(&node.Status, corev1.NodeReady)
	if !changed {
		return observed, current, nil
	}
	updated, err := rest.UpdateStatus(ctx, c.client, node)
	if err != nil {
		return observed, nil, err
	}
	c.log.Info("node stopped posting status: conditions set to Unknown", "node", node.Name, "gracePeriod", gracePeriod)
	c.mu.Lock()
	c.nodeHealthMap[node.Name] = &nodeHealthData{status: &updated.Status, probeTimestamp: health.probeTimestamp,
		readyTransitionTimestamp: now, lease: health.lease}
	c.mu.Unlock()
	return observed, current, nil
}

// markPodsNotReady sets the Ready condition of the node's pods to False.
// Upstream: controllerutil.MarkPodsNotReady.
func (c *NodeLifecycleController) markPodsNotReady(ctx context.Context, nodeName string) error {
	var errs []error
	for _, p := range c.pods.GetStore().ByIndex(indexByNodeName, nodeName) {
		ready := -1
		for i, cond := range p.Status.Conditions {
			if cond.Type == corev1.PodReady && cond.Status == corev1.ConditionTrue {
				ready = i
			}
		}
		if ready < 0 || p.Spec.NodeName != nodeName {
			continue
		}
		pod := metav1.DeepCopy(p)
		pod.Status.Conditions[ready].Status = corev1.ConditionFalse
		pod.Status.Conditions[ready].LastTransitionTime = metav1.NewTime(c.opts.Clock.Now())
		if _, err := rest.UpdateStatus(ctx, c.client, pod); err != nil && !rest.IsNotFound(err) {
			errs = append(errs, err)
			continue
		}
		c.log.Info("marked pod not ready: its node is not ready", "pod", pod.Namespace+"/"+pod.Name, "node", nodeName)
	}
	return errors.Join(errs...)
}

func getCondition(st *corev1.NodeStatus, t corev1.NodeConditionType) *corev1.NodeCondition {
	for i := range st.Conditions {
		if st.Conditions[i].Type == t {
			return &st.Conditions[i]
		}
	}
	return nil
}
