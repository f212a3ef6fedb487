// Package endpointutil holds what the Endpoints and EndpointSlice
// controllers share: which pods a Service selects, which of them belong in
// its endpoints, the port a service port means on one pod (a named
// targetPort may differ from pod to pod), and the trigger-time annotation.
//
// Upstream: pkg/controller/util/endpoint (controller_utils.go,
// trigger_time_tracker.go) and staging endpointslice/util.
package endpointutil

import (
	"fmt"
	"time"

	"kubik/ch01-apiserver/api/corev1"
	"kubik/ch01-apiserver/api/intstr"
	"kubik/ch01-apiserver/apiserver/selection"
	"kubik/ch03-scheduler/clientgo/tools/cache"
)

// EndpointsLastChangeTriggerTime is the annotation telling when the change
// that caused this Endpoints/EndpointSlice write happened (a pod turning
// ready, a Service created): network programming latency is measured from
// it. Upstream: v1.EndpointsLastChangeTriggerTime.
const EndpointsLastChangeTriggerTime = "endpoints.kubernetes.io/last-change-trigger-time"

// SelectedPods returns the pods (of the Service's namespace) its selector matches.
func SelectedPods(svc *corev1.Service, pods []*corev1.Pod) []*corev1.Pod {
	sel := selection.SelectorFromSet(svc.Spec.Selector)
	var out []*corev1.Pod
	for _, p := range pods {
		if p.Namespace == svc.Namespace && sel.Matches(p.Labels) {
			out = append(out, p)
		}
	}
	return out
}

// ShouldPodBeInEndpoints: the pod has an IP and has not finished; a pod
// being deleted stays only if includeTerminating. Upstream: the same name.
func ShouldPodBeInEndpoints(p *corev1.Pod, includeTerminating bool) bool {
	if p.Status.Phase == corev1.PodSucceeded || p.Status.Phase == corev1.PodFailed {
		return false
	}
	if p.Status.PodIP == "" && len(p.Status.PodIPs) == 0 {
		return false
	}
	return includeTerminating || p.DeletionTimestamp == nil
}

// IsPodReady: the pod's Ready condition is True.
func IsPodReady(p *corev1.Pod) bool {
	for _, c := range p.Status.Conditions {
		if c.Type == corev1.PodReady {
			return c.Status == corev1.ConditionTrue
		}
	}
	return false
}

// FindPort is the number a service port's targetPort means on pod: a
// number as is, a name looked up in the pod's container ports. Upstream:
// podutil.FindPort.
func FindPort(p *corev1.Pod, sp *corev1.ServicePort) (int32, error) {
	tp := sp.TargetPort
	switch {
	case tp.Type == intstr.String && tp.StrVal != "":
		for _, c := range p.Spec.Containers {
			for _, port := range c.Ports {
				if port.Name == tp.StrVal && port.Protocol == sp.Protocol {
					return port.ContainerPort, nil
				}
			}
		}
		return 0, fmt.Errorf("no suitable port for manifest: %s", p.UID)
	case tp.Type == intstr.Int && tp.IntVal != 0:
		return tp.IntVal, nil
	}
	return sp.Port, nil // targetPort unset: the port itself
}

// PodHostname is the hostname an endpoint gets: the pod's spec.hostname
// when its subdomain is the Service's name (StatefulSet pods behind a
// headless Service).
func PodHostname(p *corev1.Pod, svc *corev1.Service) string {
	if p.Spec.Hostname != "" && p.Spec.Subdomain == svc.Name && svc.Namespace == p.Namespace {
		return p.Spec.Hostname
	}
	return ""
}

// LastChangeTriggerTime is the latest change that affects the Service's
// endpoints: its creation, or a selected pod becoming (not) ready.
// Upstream's TriggerTimeTracker remembers the changes between two syncs;
// the times it reports are these same ones.
func LastChangeTriggerTime(svc *corev1.Service, pods []*corev1.Pod) string {
	t := svc.CreationTimestamp.Time
	for _, p := range pods {
		for _, c := range p.Status.Conditions {
			if c.Type == corev1.PodReady && c.LastTransitionTime.After(t) {
				t = c.LastTransitionTime.Time
			}
		}
		if p.CreationTimestamp.After(t) {
			t = p.CreationTimestamp.Time
		}
	}
	if t.IsZero() {
		return ""
	}
	return t.UTC().Format(time.RFC3339Nano)
}

// PodRef is an endpoint's targetRef.
func PodRef(p *corev1.Pod) *corev1.ObjectReference {
	return &corev1.ObjectReference{Kind: "Pod", Namespace: p.Namespace, Name: p.Name, UID: p.UID}
}

// PodServiceMemberships are the keys of the Services in services that
// select p now or selected it before (old, nil for a new pod): the Services
// whose endpoints a change of p may change. Upstream:
// endpointutil.GetPodServiceMemberships.
func PodServiceMemberships(services *cache.Store[corev1.Service], p, old *corev1.Pod) []string {
	var keys []string
	for _, s := range services.ByIndex(cache.NamespaceIndex, p.Namespace) {
		if s.Spec.Selector == nil {
			continue
		}
		sel := selection.SelectorFromSet(s.Spec.Selector)
		if sel.Matches(p.Labels) || (old != nil && sel.Matches(old.Labels)) {
			keys = append(keys, cache.MetaNamespaceKeyFunc(s))
		}
	}
	return keys
}
