package apiserver

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"reflect"

	"kubik/ch01-apiserver/api/appsv1"
	"kubik/ch01-apiserver/api/autoscalingv1"
	"kubik/ch01-apiserver/api/corev1"
	"kubik/ch01-apiserver/api/metav1"
	"kubik/ch01-apiserver/api/scheme"
	"kubik/ch01-apiserver/apiserver/selection"
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
		cur, err := scaleFrom(old)
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
		setReplicas(old, want.Spec.Replicas)
		old.GetObjectMeta().ResourceVersion = want.ResourceVersion
		return old, nil
	}, false)
	if err != nil {
		return err
	}
	sc, err := scaleFrom(updated)
	if err != nil {
		return err
	}
	writeJSON(q.w, http.StatusOK, sc)
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
	bindingErr := func(msg string) error {
		return ErrConflict("", "pods/binding", "pods/binding", b.Name, fmt.Errorf("%s", msg))
	}
	_, _, err = s.update(ctx, q, b.Name, "binding", func(old metav1.Object) (metav1.Object, error) {
		pod := old.(*corev1.Pod)
		if pod.DeletionTimestamp != nil {
			return nil, bindingErr(fmt.Sprintf("pod %s is being deleted, cannot be assigned to a host", pod.Name))
		}
		if pod.Spec.NodeName != "" {
			return nil, bindingErr(fmt.Sprintf("pod %s is already assigned to node %q", pod.Name, pod.Spec.NodeName))
		}
		pod.Spec.NodeName = b.Target.Name
		for k, v := range b.Annotations {
			if pod.Annotations == nil {
				pod.Annotations = map[string]string{}
			}
			pod.Annotations[k] = v
		}
		setPodCondition(pod, corev1.PodCondition{Type: corev1.PodScheduled, Status: corev1.ConditionTrue,
			LastTransitionTime: metav1.Now(), ObservedGeneration: pod.Generation})
		pod.ResourceVersion = ""
		return pod, nil
	}, false)
	if err != nil {
		return err
	}
	writeJSON(q.w, http.StatusCreated, metav1.Status{TypeMeta: metav1.TypeMeta{Kind: "Status", APIVersion: "v1"},
		Status: metav1.StatusSuccess, Code: http.StatusCreated})
	return nil
}

func setPodCondition(pod *corev1.Pod, c corev1.PodCondition) {
	for i := range pod.Status.Conditions {
		if pod.Status.Conditions[i].Type == c.Type {
			pod.Status.Conditions[i] = c
			return
		}
	}
	pod.Status.Conditions = append(pod.Status.Conditions, c)
}
