package daemonset

import (
	"kubik/ch01-apiserver/api/metav1"
	"slices"

	"kubik/ch01-apiserver/api/appsv1"
	"kubik/ch01-apiserver/api/corev1"
	"kubik/ch01-apiserver/api/intstr"
	"kubik/ch03-scheduler/scheduler/plugins"
)

// AddOrUpdateDaemonPodTolerations adds the tolerations every daemon pod
// has, so a DaemonSet keeps its pods on nodes that are not ready,
// unreachable, under pressure or cordoned. Upstream: the same name in
// util/daemonset_util.go.
func AddOrUpdateDaemonPodTolerations(spec *corev1.PodSpec) {
	add := func(key string, effect corev1.TaintEffect) {
		t := corev1.Toleration{Key: key, Operator: corev1.TolerationOpExists, Effect: effect}
		if !slices.ContainsFunc(spec.Tolerations, func(x corev1.Toleration) bool { return x.MatchToleration(&t) }) {
			spec.Tolerations = append(spec.Tolerations, t)
		}
	}
	add(corev1.TaintNodeNotReady, corev1.TaintEffectNoExecute)
	add(corev1.TaintNodeUnreachable, corev1.TaintEffectNoExecute)
	add(corev1.TaintNodeDiskPressure, corev1.TaintEffectNoSchedule)
	add(corev1.TaintNodeMemoryPressure, corev1.TaintEffectNoSchedule)
	add(corev1.TaintNodePIDPressure, corev1.TaintEffectNoSchedule)
	add(corev1.TaintNodeUnschedulable, corev1.TaintEffectNoSchedule)
	if spec.HostNetwork {
		add(corev1.TaintNodeNetworkUnavailable, corev1.TaintEffectNoSchedule)
	}
}

// ReplaceDaemonSetPodNodeNameNodeAffinity makes the pod's required node
// affinity "metadata.name In [nodename]" (its label terms were already
// checked by the controller). Upstream: the same name.
func ReplaceDaemonSetPodNodeNameNodeAffinity(affinity *corev1.Affinity, nodename string) *corev1.Affinity {
	term := corev1.NodeSelectorTerm{MatchFields: []corev1.NodeSelectorRequirement{
		{Key: "metadata.name", Operator: corev1.NodeSelectorOpIn, Values: []string{nodename}}}}
	if affinity == nil {
		affinity = &corev1.Affinity{}
	}
	if affinity.NodeAffinity == nil {
		affinity.NodeAffinity = &corev1.NodeAffinity{}
	}
	affinity.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution = &corev1.NodeSelector{NodeSelectorTerms: []corev1.NodeSelectorTerm{term}}
	return affinity
}

// GetTargetNodeName is the node a daemon pod is for: spec.nodeName once
// bound, else the node of its metadata.name affinity. Upstream: the same name.
func GetTargetNodeName(p *corev1.Pod) string {
	if p.Spec.NodeName != "" {
		return p.Spec.NodeName
	}
	if a := p.Spec.Affinity; a != nil && a.NodeAffinity != nil && a.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution != nil {
		for _, t := range a.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution.NodeSelectorTerms {
			for _, f := range t.MatchFields {
				if f.Key == "metadata.name" && f.Operator == corev1.NodeSelectorOpIn && len(f.Values) == 1 {
					return f.Values[0]
				}
			}
		}
	}
	return ""
}

// NodeShouldRunDaemonPod: shouldRun — a daemon pod should be started on
// node; shouldContinueRunning — an existing one may stay (NoSchedule taints
// added later do not evict). Upstream: the same name.
func NodeShouldRunDaemonPod(node *corev1.Node, ds *appsv1.DaemonSet) (shouldRun, shouldContinueRunning bool) {
	pod := &corev1.Pod{Spec: *metav1.DeepCopy(&ds.Spec.Template.Spec)}
	AddOrUpdateDaemonPodTolerations(&pod.Spec)
	if pod.Spec.NodeName != "" && pod.Spec.NodeName != node.Name {
		return false, false
	}
	if !plugins.RequiredNodeAffinityMatches(pod, node) {
		return false, false
	}
	untolerated := func(effects ...corev1.TaintEffect) bool {
		for i := range node.Spec.Taints {
			t := &node.Spec.Taints[i]
			if !slices.Contains(effects, t.Effect) {
				continue
			}
			if !slices.ContainsFunc(pod.Spec.Tolerations, func(tol corev1.Toleration) bool { return tol.ToleratesTaint(t) }) {
				return true
			}
		}
		return false
	}
	return !untolerated(corev1.TaintEffectNoSchedule, corev1.TaintEffectNoExecute), !untolerated(corev1.TaintEffectNoExecute)
}

// scaledValue resolves an int-or-percent of total (percentages rounded up
// when roundUp). Upstream: intstr.GetScaledValueFromIntOrPercent.
func scaledValue(v *intstr.IntOrString, total int, roundUp bool, def int) int {
	if v == nil {
		return def
	}
	if v.Type == intstr.Int {
		return int(v.IntVal)
	}
	s := v.StrVal
	if len(s) == 0 || s[len(s)-1] != '%' {
		return def
	}
	pct := 0
	for _, ch := range s[:len(s)-1] {
		if ch < '0' || ch > '9' {
			return def
		}
		pct = pct*10 + int(ch-'0')
	}
	if roundUp {
		return (pct*total + 99) / 100
	}
	return pct * total / 100
}
