package apiserver

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"reflect"

	"kubik/ch01-apiserver/api/appsv1"
	"kubik/ch01-apiserver/api/autoscalingv1"
	"kubik/ch01-apiserver/api/corev1"
	"kubik/ch01-apiserver/api/metav1"
	"kubik/ch01-apiserver/api/scheme"
	"kubik/ch01-apiserver/apiserver/apiextensions"
	"kubik/ch01-apiserver/apiserver/selection"
	"kubik/ch01-apiserver/storage"
)

// Kinds that are only ever request bodies of subresources.
var (
	bindingKind = &scheme.Resource{Version: "v1", Resource: "bindings", Kind: "Binding",
		New: func() metav1.Object { return &corev1.Binding{} }}
	scaleKind = &scheme.Resource{Group: "autoscaling", Version: "v1", Resource: "scale", Kind: "Scale",
		New: func() metav1.Object { return &autoscalingv1.Scale{} }}
)

// scaleFrom is the autoscaling/v1 Scale view of a Deployment, ReplicaSet,
// StatefulSet or ReplicationController: what `kubectl scale` and autoscalers read and write.
func scaleFrom(obj metav1.Object) (*autoscalingv1.Scale, error) {
	var replicas, current int32
	var sel *metav1.LabelSelector
	switch o := obj.(type) {
	case *appsv1.Deployment:
		replicas, current, sel = deref(o.Spec.Replicas), o.Status.Replicas, o.Spec.Selector
	case *appsv1.ReplicaSet:
		replicas, current, sel = deref(o.Spec.Replicas), o.Status.Replicas, o.Spec.Selector
	case *appsv1.StatefulSet:
		replicas, current, sel = deref(o.Spec.Replicas), o.Status.Replicas, o.Spec.Selector
	case *corev1.ReplicationController:
		// An equality-only selector, as a map.
		replicas, current, sel = deref(o.Spec.Replicas), o.Status.Replicas, &metav1.LabelSelector{MatchLabels: o.Spec.Selector}
	default:
		return nil, methodNotAllowed()
	}
	selector, err := selection.FromLabelSelector(sel)
	if err != nil {
		return nil, ErrInternal(err)
	}
	m := obj.GetObjectMeta()
	sc := &autoscalingv1.Scale{
		TypeMeta: metav1.TypeMeta{Kind: "Scale", APIVersion: "autoscaling/v1"},
		ObjectMeta: metav1.ObjectMeta{Name: m.Name, Namespace: m.Namespace, UID: m.UID,
			ResourceVersion: m.ResourceVersion, CreationTimestamp: m.CreationTimestamp},
	}
	sc.Spec.Replicas = replicas
	sc.Status.Replicas = current
	sc.Status.Selector = selector.String()
	return sc, nil
}

func deref(p *int32) int32 {
	if p == nil {
		return 0
	}
	return *p
}

// setReplicas writes spec.replicas of a scalable object.
func setReplicas(obj metav1.Object, n int32) {
	switch o := obj.(type) {
	case *appsv1.Deployment:
		o.Spec.Replicas = &n
	case *appsv1.ReplicaSet:
		o.Spec.Replicas = &n
	case *appsv1.StatefulSet:
		o.Spec.Replicas = &n
	case *corev1.ReplicationController:
		o.Spec.Replicas = &n
	}
}

// handleScaleUpdate: PUT (patchBody == nil) or PATCH of .../scale.
func (s *Server) handleScaleUpdate(ctx context.Context, q *request, patchBody []byte) error {
	var desired *autoscalingv1.Scale
	if patchBody == nil {
		obj, err := s.decodeBody(q, scaleKind)
		if err != nil {
			return err
		}
		desired = obj.(*autoscalingv1.Scale)
	}
	updated, _, err := s.update(ctx, q, q.info.Name, "scale", func(old metav1.Object) (metav1.Object, error) {
		cur, err := s.scaleOf(q, old)
		if err != nil {
			return nil, err
		}
		want := desired
		if patchBody != nil {
			curJSON, _ := json.Marshal(cur)
			patched, err := s.applyPatch(q, curJSON, patchBody, reflect.TypeOf(autoscalingv1.Scale{}))
			if err != nil {
				return nil, err
			}
			obj, err := s.decodeJSON(q, scaleKind, patched, &autoscalingv1.Scale{})
			if err != nil {
				return nil, err
			}
			want = obj.(*autoscalingv1.Scale)
			if want.ResourceVersion == cur.ResourceVersion {
				want.ResourceVersion = "" // the patch did not ask for a precondition
			}
		}
		if want.Name != q.info.Name {
			return nil, ErrBadRequest(fmt.Sprintf("the name of the object (%s) does not match the name on the URL (%s)", want.Name, q.info.Name))
		}
		if want.Spec.Replicas < 0 {
			return nil, ErrInvalid("autoscaling", "Scale", want.Name, []metav1.StatusCause{{Type: metav1.CauseTypeFieldValueInvalid,
				Message: fmt.Sprintf("Invalid value: %d: must be greater than or equal to 0", want.Spec.Replicas), Field: "spec.replicas"}},
				fmt.Sprintf("spec.replicas: Invalid value: %d: must be greater than or equal to 0", want.Spec.Replicas))
		}
		if err := s.setScaleReplicas(q, old, want.Spec.Replicas); err != nil {
			return nil, err
		}
		old.GetObjectMeta().ResourceVersion = want.ResourceVersion
		return old, nil
	}, false)
	if err != nil {
		return err
	}
	sc, err := s.scaleOf(q, updated)
	if err != nil {
		return err
	}
	q.write(http.StatusOK, sc)
	return nil
}

// scaleOf is obj's Scale: a built-in kind's replicas and selector, or a
// custom resource's, at the paths its CRD names.
func (s *Server) scaleOf(q *request, obj metav1.Object) (*autoscalingv1.Scale, error) {
	if q.custom != nil {
		return s.customScale(q.custom, obj)
	}
	return scaleFrom(obj)
}

// setScaleReplicas writes the replicas of a scale update into obj.
func (s *Server) setScaleReplicas(q *request, obj metav1.Object, n int32) error {
	if q.custom != nil {
		if err := q.custom.SetSpecReplicas(obj.(*apiextensions.Unstructured), n); err != nil {
			return ErrInternal(err)
		}
		return nil
	}
	setReplicas(obj, n)
	return nil
}

// handleBinding: POST pods/<name>/binding, how the scheduler assigns a pod to
// a node. The pod gets spec.nodeName and the PodScheduled=True condition.
func (s *Server) handleBinding(ctx context.Context, q *request) error {
	obj, err := s.decodeBody(q, bindingKind)
	if err != nil {
		return err
	}
	b := obj.(*corev1.Binding)
	if b.Name == "" {
		b.Name = q.info.Name
	}
	if b.Namespace == "" {
		b.Namespace = q.info.Namespace
	}
	if b.Name != q.info.Name || b.Namespace != q.info.Namespace {
		return ErrBadRequest("name in URL does not match name in Binding object")
	}
	if b.Target.Kind != "" && b.Target.Kind != "Node" {
		return ErrInvalid("", "Binding", b.Name, []metav1.StatusCause{{Type: metav1.CauseTypeFieldValueNotSupported,
			Message: fmt.Sprintf("Unsupported value: %q: supported values: \"Node\"", b.Target.Kind), Field: "target.kind"}},
			fmt.Sprintf("target.kind: Unsupported value: %q: supported values: \"Node\"", b.Target.Kind))
	}
	if b.Target.Name == "" {
		return ErrInvalid("", "Binding", b.Name, []metav1.StatusCause{{Type: metav1.CauseTypeFieldValueRequired,
			Message: "Required value", Field: "target.name"}}, "target.name: Required value")
	}
	if err := s.assignPod(ctx, q, b); err != nil {
		return err
	}
	q.write(http.StatusCreated, &metav1.Status{TypeMeta: metav1.TypeMeta{Kind: "Status", APIVersion: "v1"},
		Status: metav1.StatusSuccess, Code: http.StatusCreated})
	return nil
}

// assignPod is upstream's BindingREST.setPodNodeAndMetadata: the pod is
// rewritten in storage directly (a GuaranteedUpdate), not as an update of
// the pod — no admission, validation or field manager sees that write, and
// the pod is decoded once. The binding's uid and resourceVersion, when set
// (upstream's scheduler sends the pod's uid), are preconditions.
//
// Like upstream's Cacher.GuaranteedUpdate it starts from the pod in the
// watch cache, sparing a read from etcd per binding. That copy may be a
// moment old: the write is conditional on its revision, and a failed write
// or a refusal decided on it is tried again from etcd.
func (s *Server) assignPod(ctx context.Context, q *request, b *corev1.Binding) error {
	res := q.res
	key := storageKey(res, b.Namespace, b.Name)
	cache, _ := s.cfg.Storage.(storage.CachedGetter)
	for attempt := 0; ; attempt++ {
		var kv storage.KeyValue
		fromCache := false
		if attempt == 0 && cache != nil && !q.dryRun() {
			kv, fromCache = cache.GetCached(key)
		}
		if !fromCache {
			var err error
			if kv, err = s.cfg.Storage.Get(ctx, key); err != nil {
				return conflictOrStorage(res, b.Name, err)
			}
		}
		obj, err := decodeFromStorage(res, kv)
		if err != nil {
			return ErrInternal(err)
		}
		pod := obj.(*corev1.Pod)
		if err := setPodNodeAndMetadata(res, key, pod, b); err != nil {
			if fromCache {
				continue // decided on the cached copy: ask etcd
			}
			return err
		}
		data, err := encodeForStorage(res, pod)
		if err != nil {
			return ErrInternal(err)
		}
		if len(data) > s.cfg.MaxObjectBytes {
			return ErrRequestEntityTooLarge(fmt.Sprintf("limit is %d", s.cfg.MaxObjectBytes))
		}
		if q.dryRun() {
			return nil
		}
		if _, err := s.cfg.Storage.Update(ctx, key, data, kv.ModRevision); err != nil {
			if (errors.Is(err, storage.ErrConflict) || errors.Is(err, storage.ErrNotFound)) && attempt < 10 {
				continue // written or deleted in between (or the cached copy was old): read it again
			}
			return conflictOrStorage(res, b.Name, err)
		}
		return nil
	}
}

// setPodNodeAndMetadata checks that pod may be bound as b asks, and binds
// it: spec.nodeName, PodScheduled=True, b's annotations and labels.
func setPodNodeAndMetadata(res *scheme.Resource, key string, pod *corev1.Pod, b *corev1.Binding) error {
	bindingErr := func(format string, args ...any) error {
		return ErrConflict("", "pods/binding", "pods/binding", b.Name, fmt.Errorf(format, args...))
	}
	preconditionErr := func(format string, args ...any) error {
		return ErrConflict("", res.Resource, res.GroupResource(), b.Name, fmt.Errorf(
			"StorageError: invalid object, Code: 4, Key: %s, ResourceVersion: 0, AdditionalErrorMsg: %s", key, fmt.Sprintf(format, args...)))
	}
	if b.UID != "" && b.UID != pod.UID {
		return preconditionErr("Precondition failed: UID in precondition: %v, UID in object meta: %v", b.UID, pod.UID)
	}
	if b.ResourceVersion != "" && b.ResourceVersion != pod.ResourceVersion {
		return preconditionErr("Precondition failed: ResourceVersion in precondition: %v, ResourceVersion in object meta: %v",
			b.ResourceVersion, pod.ResourceVersion)
	}
	if pod.DeletionTimestamp != nil {
		return bindingErr("pod %s is being deleted, cannot be assigned to a host", pod.Name)
	}
	if pod.Spec.NodeName != "" {
		return bindingErr("pod %s is already assigned to node %q", pod.Name, pod.Spec.NodeName)
	}
	if len(pod.Spec.SchedulingGates) != 0 {
		return bindingErr("pod %s has non-empty .spec.schedulingGates", pod.Name)
	}
	pod.Spec.NodeName = b.Target.Name
	pod.Status.NominatedNodeName = "" // ClearingNominatedNodeNameAfterBinding, beta and on in 1.35
	if pod.Annotations == nil {
		pod.Annotations = map[string]string{}
	}
	for k, v := range b.Annotations {
		pod.Annotations[k] = v
	}
	if len(b.Labels) > 0 { // PodTopologyLabelsAdmission, beta and on in 1.35: the binding's labels overwrite the pod's
		if pod.Labels == nil {
			pod.Labels = map[string]string{}
		}
		for k, v := range b.Labels {
			pod.Labels[k] = v
		}
	}
	updatePodCondition(&pod.Status, corev1.PodCondition{Type: corev1.PodScheduled, Status: corev1.ConditionTrue})
	return nil
}

// updatePodCondition is upstream's podutil.UpdatePodCondition: the
// condition is added or replaced, and its lastTransitionTime moves only
// when its status changes.
func updatePodCondition(status *corev1.PodStatus, c corev1.PodCondition) {
	c.LastTransitionTime = metav1.Now()
	for i := range status.Conditions {
		if status.Conditions[i].Type == c.Type {
			if status.Conditions[i].Status == c.Status {
				c.LastTransitionTime = status.Conditions[i].LastTransitionTime
			}
			status.Conditions[i] = c
			return
		}
	}
	status.Conditions = append(status.Conditions, c)
}
