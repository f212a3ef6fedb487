package apiserver

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"reflect"
	"sort"

	"kubik/ch01-apiserver/api/corev1"
	"kubik/ch01-apiserver/api/networkingv1"
	"kubik/ch01-apiserver/api/nodev1"
	"kubik/ch01-apiserver/api/scheme"
)

// Two more admission plugins upstream enables by default, both about a
// "class" an object names:
//
//   - DefaultIngressClass: a new Ingress that names no class gets the
//     IngressClass annotated ingressclass.kubernetes.io/is-default-class=true
//     (the newest one when there are several).
//   - RuntimeClass: a new pod's runtimeClassName must exist; the class's
//     overhead becomes the pod's spec.overhead and its scheduling constraints
//     are merged into the pod's nodeSelector and tolerations.

// admitDefaultIngressClass is upstream's DefaultIngressClass plugin (Admit, on create).
func (s *Server) admitDefaultIngressClass(ctx context.Context, ing *networkingv1.Ingress) error {
	if ing.Spec.IngressClassName != nil {
		return nil
	}
	if _, ok := ing.Annotations[networkingv1.AnnotationIngressClass]; ok {
		return nil
	}
	items, _, err := s.list(ctx, scheme.Lookup("networking.k8s.io", "v1", "ingressclasses"), "", listOptions{ResourceVersion: "0"})
	if err != nil {
		return err
	}
	var defaults []*networkingv1.IngressClass
	for _, it := range items {
		if ic := it.(*networkingv1.IngressClass); ic.Annotations[networkingv1.AnnotationIsDefaultIngressClass] == "true" {
			defaults = append(defaults, ic)
		}
	}
	if len(defaults) == 0 {
		return nil
	}
	// Newest first; equal timestamps by name.
	sort.Slice(defaults, func(i, j int) bool {
		ti, tj := defaults[i].CreationTimestamp.Time, defaults[j].CreationTimestamp.Time
		if ti.Equal(tj) {
			return defaults[i].Name < defaults[j].Name
		}
		return ti.After(tj)
	})
	name := defaults[0].Name
	ing.Spec.IngressClassName = &name
	return nil
}

// admitRuntimeClass is upstream's RuntimeClass plugin (Admit and Validate, on pod create).
func (s *Server) admitRuntimeClass(ctx context.Context, res *scheme.Resource, pod *corev1.Pod) error {
	forbid := func(format string, args ...any) error {
		return ErrForbidden(res.Group, res.Resource, res.GroupResource(), pod.Name, fmt.Errorf(format, args...))
	}
	var rc *nodev1.RuntimeClass
	if pod.Spec.RuntimeClassName != nil {
		obj, err := s.getForAdmission(ctx, scheme.Lookup("node.k8s.io", "v1", "runtimeclasses"), "", *pod.Spec.RuntimeClassName)
		if err != nil {
			var se *StatusError
			if errors.As(err, &se) && se.Status.Code == http.StatusNotFound {
				return forbid("pod rejected: RuntimeClass %q not found", *pod.Spec.RuntimeClassName)
			}
			return err
		}
		rc = obj.(*nodev1.RuntimeClass)
	}
	if rc == nil || rc.Overhead == nil {
		if pod.Spec.Overhead != nil {
			return forbid("pod rejected: Pod Overhead set without corresponding RuntimeClass defined Overhead")
		}
	} else {
		if pod.Spec.Overhead != nil && !sameResourceList(pod.Spec.Overhead, rc.Overhead.PodFixed) {
			return forbid("pod rejected: Pod's Overhead doesn't match RuntimeClass's defined Overhead")
		}
		pod.Spec.Overhead = copyResourceList(rc.Overhead.PodFixed)
	}
	if rc == nil || rc.Scheduling == nil {
		return nil
	}
	if len(rc.Scheduling.NodeSelector) > 0 {
		merged := map[string]string{}
		for k, v := range pod.Spec.NodeSelector {
			merged[k] = v
		}
		for k, v := range rc.Scheduling.NodeSelector {
			if pv, ok := merged[k]; ok && pv != v {
				return forbid("conflict: runtimeClass.scheduling.nodeSelector[%s] = %s; pod.spec.nodeSelector[%s] = %s", k, v, k, pv)
			}
			merged[k] = v
		}
		pod.Spec.NodeSelector = merged
	}
	pod.Spec.Tolerations = mergeTolerations(pod.Spec.Tolerations, rc.Scheduling.Tolerations)
	return nil
}

func sameResourceList(a, b corev1.ResourceList) bool {
	if len(a) != len(b) {
		return false
	}
	for name, q := range a {
		other, ok := b[name]
		if !ok || q.Cmp(other) != 0 {
			return false
		}
	}
	return true
}

func copyResourceList(in corev1.ResourceList) corev1.ResourceList {
	out := make(corev1.ResourceList, len(in))
	for k, v := range in {
		out[k] = v
	}
	return out
}

// mergeTolerations is upstream's tolerations.MergeTolerations: the pod's
// tolerations and the class's, without those another one already covers
// (of two equal ones the first stays).
func mergeTolerations(first, second []corev1.Toleration) []corev1.Toleration {
	all := append(append([]corev1.Toleration(nil), first...), second...)
	var merged []corev1.Toleration
next:
	for i, t := range all {
		for _, m := range merged {
			if isSuperset(m, t) {
				continue next
			}
		}
		for _, later := range all[i+1:] {
			if !reflect.DeepEqual(t, later) && isSuperset(later, t) {
				continue next
			}
		}
		merged = append(merged, t)
	}
	return merged
}

// isSuperset: ss tolerates every taint t tolerates.
func isSuperset(ss, t corev1.Toleration) bool {
	if reflect.DeepEqual(t, ss) {
		return true
	}
	if t.Key != ss.Key && (ss.Key != "" || ss.Operator != corev1.TolerationOpExists) {
		return false
	}
	if t.Effect != ss.Effect && ss.Effect != "" {
		return false
	}
	if ss.Effect == corev1.TaintEffectNoExecute && ss.TolerationSeconds != nil {
		if t.TolerationSeconds == nil || *t.TolerationSeconds > *ss.TolerationSeconds {
			return false
		}
	}
	switch ss.Operator {
	case corev1.TolerationOpEqual, "":
		return t.Operator == corev1.TolerationOpEqual && t.Value == ss.Value
	case corev1.TolerationOpExists:
		return true
	}
	return false
}
