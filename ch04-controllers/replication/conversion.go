package replication

import (
	"context"

	"kubik/ch01-apiserver/api/appsv1"
	"kubik/ch01-apiserver/api/corev1"
	"kubik/ch01-apiserver/api/metav1"
	"kubik/ch03-scheduler/clientgo/rest"
	"kubik/ch03-scheduler/clientgo/tools/cache"
)

// informerAdapter is the replicaset.Source of ReplicationControllers: the
// shared informer and the client, converting each object to a ReplicaSet
// on the way in and back on the way out. Upstream: informerAdapter,
// clientsetAdapter.
type informerAdapter struct {
	client   *rest.Client
	informer *cache.Informer[corev1.ReplicationController, *corev1.ReplicationController]
}

func (a informerAdapter) Get(namespace, name string) (*appsv1.ReplicaSet, bool) {
	rc, ok := a.informer.GetStore().Get(namespace, name)
	if !ok {
		return nil, false
	}
	return convertRCtoRS(rc), true
}

func (a informerAdapter) List(namespace string) []*appsv1.ReplicaSet {
	rcs := a.informer.GetStore().ByIndex(cache.NamespaceIndex, namespace)
	out := make([]*appsv1.ReplicaSet, len(rcs))
	for i, rc := range rcs {
		out[i] = convertRCtoRS(rc)
	}
	return out
}

func (a informerAdapter) HasSynced() bool { return a.informer.HasSynced() }

// AddEventHandler converts the informer's events for h. Upstream:
// conversionEventHandler.
func (a informerAdapter) AddEventHandler(h cache.ResourceEventHandlerFuncs[appsv1.ReplicaSet]) {
	a.informer.AddEventHandler(cache.ResourceEventHandlerFuncs[corev1.ReplicationController]{
		AddFunc:    func(rc *corev1.ReplicationController) { h.OnAdd(convertRCtoRS(rc), false) },
		UpdateFunc: func(old, cur *corev1.ReplicationController) { h.OnUpdate(convertRCtoRS(old), convertRCtoRS(cur)) },
		DeleteFunc: func(rc *corev1.ReplicationController) { h.OnDelete(convertRCtoRS(rc)) },
	})
}

func (a informerAdapter) Fetch(ctx context.Context, namespace, name string) (*appsv1.ReplicaSet, error) {
	rc, err := rest.Get[corev1.ReplicationController](ctx, a.client, namespace, name)
	if err != nil {
		return nil, err
	}
	return convertRCtoRS(rc), nil
}

func (a informerAdapter) UpdateStatus(ctx context.Context, rs *appsv1.ReplicaSet) (*appsv1.ReplicaSet, error) {
	rc, err := rest.UpdateStatus(ctx, a.client, convertRStoRC(rs))
	if err != nil {
		return nil, err
	}
	return convertRCtoRS(rc), nil
}

// convertRCtoRS sees rc as a ReplicaSet: its selector as matchLabels, its
// template (nil: empty) as the template. The result shares rc's maps and
// slices: the controller copies before it changes anything.
// Upstream: Convert_v1_ReplicationController_to_apps_ReplicaSet.
func convertRCtoRS(rc *corev1.ReplicationController) *appsv1.ReplicaSet {
	rs := &appsv1.ReplicaSet{TypeMeta: metav1.TypeMeta{APIVersion: "apps/v1", Kind: "ReplicaSet"}, ObjectMeta: rc.ObjectMeta}
	rs.Spec.Replicas = rc.Spec.Replicas
	rs.Spec.MinReadySeconds = rc.Spec.MinReadySeconds
	if rc.Spec.Selector != nil {
		rs.Spec.Selector = &metav1.LabelSelector{MatchLabels: rc.Spec.Selector}
	}
	if rc.Spec.Template != nil {
		rs.Spec.Template = *rc.Spec.Template
	}
	s := rc.Status
	rs.Status = appsv1.ReplicaSetStatus{Replicas: s.Replicas, FullyLabeledReplicas: s.FullyLabeledReplicas,
		ReadyReplicas: s.ReadyReplicas, AvailableReplicas: s.AvailableReplicas, ObservedGeneration: s.ObservedGeneration}
	for _, c := range s.Conditions {
		rs.Status.Conditions = append(rs.Status.Conditions, appsv1.ReplicaSetCondition{Type: appsv1.ReplicaSetConditionType(c.Type),
			Status: c.Status, LastTransitionTime: c.LastTransitionTime, Reason: c.Reason, Message: c.Message})
	}
	return rs
}

// convertRStoRC is the way back (terminatingReplicas has no place in a
// ReplicationController). Upstream: Convert_apps_ReplicaSet_to_v1_ReplicationController.
func convertRStoRC(rs *appsv1.ReplicaSet) *corev1.ReplicationController {
	rc := &corev1.ReplicationController{TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "ReplicationController"}, ObjectMeta: rs.ObjectMeta}
	rc.Spec.Replicas = rs.Spec.Replicas
	rc.Spec.MinReadySeconds = rs.Spec.MinReadySeconds
	if rs.Spec.Selector != nil {
		rc.Spec.Selector = rs.Spec.Selector.MatchLabels
	}
	tmpl := rs.Spec.Template
	rc.Spec.Template = &tmpl
	s := rs.Status
	rc.Status = corev1.ReplicationControllerStatus{Replicas: s.Replicas, FullyLabeledReplicas: s.FullyLabeledReplicas,
		ReadyReplicas: s.ReadyReplicas, AvailableReplicas: s.AvailableReplicas, ObservedGeneration: s.ObservedGeneration}
	for _, c := range s.Conditions {
		rc.Status.Conditions = append(rc.Status.Conditions, corev1.ReplicationControllerCondition{Type: corev1.ReplicationControllerConditionType(c.Type),
			Status: c.Status, LastTransitionTime: c.LastTransitionTime, Reason: c.Reason, Message: c.Message})
	}
	return rc
}
