package plugins

import (
	"maps"

	"kubik/ch01-apiserver/api/appsv1"
	"kubik/ch01-apiserver/api/corev1"
	"kubik/ch01-apiserver/api/metav1"
	"kubik/ch01-apiserver/apiserver/selection"
)

// systemDefaultConstraints are the spreading rules upstream's default
// profile gives every pod that has none of its own (the plugin's
// "List" defaulting type, DefaultConstraints empty): at most 3 more pods
// of the same set per node and 5 per zone than elsewhere — soft rules,
// only for scoring. "The same set" is what DefaultSelector finds.
// Upstream: framework/plugins/podtopologyspread/plugin.go.
var systemDefaultConstraints = []corev1.TopologySpreadConstraint{
	{TopologyKey: corev1.LabelHostname, WhenUnsatisfiable: corev1.ScheduleAnyway, MaxSkew: 3},
	{TopologyKey: corev1.LabelTopologyZone, WhenUnsatisfiable: corev1.ScheduleAnyway, MaxSkew: 5},
}

// Listers give the plugin the objects that group pods into sets:
// Services by their selector, and the pod's controlling
// ReplicationController, ReplicaSet or StatefulSet. The scheduler fills
// them from its informers.
type Listers struct {
	Services              func(namespace string) []*corev1.Service
	ReplicationController func(namespace, name string) (*corev1.ReplicationController, bool)
	ReplicaSet            func(namespace, name string) (*appsv1.ReplicaSet, bool)
	StatefulSet           func(namespace, name string) (*appsv1.StatefulSet, bool)
}

// DefaultSelector selects the pods of pod's "set": the union of the
// selectors of the Services that select it and of its controller.
// Upstream: pkg/scheduler/framework/plugins/helper/spread.go.
func (l *Listers) DefaultSelector(pod *corev1.Pod) (selection.LabelSelector, error) {
	sel := &metav1.LabelSelector{MatchLabels: map[string]string{}}
	// The Services and controllers all select this pod, so their labels
	// cannot conflict: merging is safe.
	for _, svc := range l.Services(pod.Namespace) {
		// A nil selector selects nothing; an empty one, everything.
		if svc.Spec.Selector != nil && selection.SelectorFromSet(svc.Spec.Selector).Matches(pod.Labels) {
			maps.Copy(sel.MatchLabels, svc.Spec.Selector)
		}
	}
	if ref := metav1.GetControllerOf(&pod.ObjectMeta); ref != nil {
		var owner *metav1.LabelSelector
		switch {
		case ref.APIVersion == "v1" && ref.Kind == "ReplicationController":
			if rc, ok := l.ReplicationController(pod.Namespace, ref.Name); ok {
				owner = &metav1.LabelSelector{MatchLabels: rc.Spec.Selector}
			}
		case ref.APIVersion == "apps/v1" && ref.Kind == "ReplicaSet":
			if rs, ok := l.ReplicaSet(pod.Namespace, ref.Name); ok {
				owner = rs.Spec.Selector
			}
		case ref.APIVersion == "apps/v1" && ref.Kind == "StatefulSet":
			if ss, ok := l.StatefulSet(pod.Namespace, ref.Name); ok {
				owner = ss.Spec.Selector
			}
		}
		if owner != nil {
			maps.Copy(sel.MatchLabels, owner.MatchLabels)
			sel.MatchExpressions = append(sel.MatchExpressions, owner.MatchExpressions...)
		}
	}
	return selection.FromLabelSelector(sel)
}
