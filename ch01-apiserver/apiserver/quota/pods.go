package quota

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"kubik/ch01-apiserver/api/corev1"
	"kubik/ch01-apiserver/apiserver/defaults"
	"kubik/ch01-apiserver/apiserver/selection"
	"kubik/ch01-apiserver/apiserver/validation"
)

var podObjectCountName = ObjectCountQuotaResourceNameFor("pods")

// podResources are the quota names of a pod's usage besides the prefixed
// ones (podResourcePrefixes) and extended resources.
var podResources = []corev1.ResourceName{
	podObjectCountName,
	corev1.ResourceCPU, corev1.ResourceMemory, corev1.ResourceEphemeralStorage,
	corev1.ResourceRequestsCPU, corev1.ResourceRequestsMemory, corev1.ResourceRequestsEphemeralStorage,
	corev1.ResourceLimitsCPU, corev1.ResourceLimitsMemory, corev1.ResourceLimitsEphemeralStorage,
	corev1.ResourcePods,
}

var podResourcePrefixes = []string{corev1.ResourceHugePagesPrefix, corev1.ResourceRequestsHugePagesPrefix}

// validationSet: when a quota restricts one of these, every container must
// set it (a backward-compatibility rule upstream keeps for cpu and memory
// only).
var validationSet = []corev1.ResourceName{
	corev1.ResourceCPU, corev1.ResourceMemory, corev1.ResourceRequestsCPU,
	corev1.ResourceRequestsMemory, corev1.ResourceLimitsCPU, corev1.ResourceLimitsMemory,
}

// isExtendedResourceNameForQuota: requests.<extended resource>, the only
// quota name of an extended resource (they cannot be overcommitted).
func isExtendedResourceNameForQuota(name corev1.ResourceName) bool {
	return !validation.IsNativeResource(name) && strings.HasPrefix(string(name), corev1.DefaultResourceRequestsPrefix)
}

// NewPodEvaluator measures pods; now is the clock QuotaV1Pod reads.
func NewPodEvaluator(list ListFuncByNamespace[corev1.Pod], now func() time.Time) Evaluator {
	return &genericEvaluator[corev1.Pod]{groupResource: "pods", list: list,
		matches: func(n corev1.ResourceName) bool {
			return slices.Contains(podResources, n) || containsPrefix(podResourcePrefixes, n) || isExtendedResourceNameForQuota(n)
		},
		usage:        func(p *corev1.Pod) corev1.ResourceList { return PodUsageFunc(p, now()) },
		matchesScope: podMatchesScopeFunc,
		constraints:  podConstraints,
	}
}

func containsPrefix(prefixes []string, name corev1.ResourceName) bool {
	for _, p := range prefixes {
		if strings.HasPrefix(string(name), p) {
			return true
		}
	}
	return false
}

// podConstraints is the pod evaluator's Constraints: every container and
// init container sets the cpu and memory names the quota restricts.
func podConstraints(required []corev1.ResourceName, pod *corev1.Pod) error {
	missing := map[corev1.ResourceName][]string{}
	check := func(c *corev1.Container) {
		have := podComputeUsageHelper(c.Resources.Requests, c.Resources.Limits)
		for _, r := range required {
			if _, ok := have[r]; !ok && slices.Contains(validationSet, r) && !slices.Contains(missing[r], c.Name) {
				missing[r] = append(missing[r], c.Name)
			}
		}
	}
	for i := range pod.Spec.Containers {
		check(&pod.Spec.Containers[i])
	}
	for i := range pod.Spec.InitContainers {
		check(&pod.Spec.InitContainers[i])
	}
	if len(missing) == 0 {
		return nil
	}
	names := make([]corev1.ResourceName, 0, len(missing))
	for r := range missing {
		names = append(names, r)
	}
	slices.Sort(names)
	msgs := make([]string, len(names))
	for i, r := range names {
		containers := missing[r]
		slices.Sort(containers)
		msgs[i] = fmt.Sprintf("%s for: %s", r, strings.Join(containers, ","))
	}
	return fmt.Errorf("must specify %s", strings.Join(msgs, "; "))
}

// PodUsageFunc is a pod's usage: its count always (count/pods tracks every
// pod in storage), and while QuotaV1Pod holds "pods" and its requests and
// limits too.
func PodUsageFunc(pod *corev1.Pod, now time.Time) corev1.ResourceList {
	result := corev1.ResourceList{podObjectCountName: one()}
	if !QuotaV1Pod(pod, now) {
		return result
	}
	return Add(result, podComputeUsageHelper(PodRequests(pod), PodLimits(pod)))
}

// QuotaV1Pod: a pod is charged unless it is terminal or stuck terminating
// past its grace period (a lost node).
func QuotaV1Pod(pod *corev1.Pod, now time.Time) bool {
	if pod.Status.Phase == corev1.PodFailed || pod.Status.Phase == corev1.PodSucceeded {
		return false
	}
	if pod.DeletionTimestamp != nil && pod.DeletionGracePeriodSeconds != nil {
		grace := time.Duration(*pod.DeletionGracePeriodSeconds) * time.Second
		if now.After(pod.DeletionTimestamp.Add(grace)) {
			return false
		}
	}
	return true
}

// podComputeUsageHelper names requests and limits as quota resources.
func podComputeUsageHelper(requests, limits corev1.ResourceList) corev1.ResourceList {
	result := corev1.ResourceList{corev1.ResourcePods: one()}
	for _, r := range []corev1.ResourceName{corev1.ResourceCPU, corev1.ResourceMemory, corev1.ResourceEphemeralStorage} {
		if q, ok := requests[r]; ok {
			result[r] = q
			result[corev1.DefaultResourceRequestsPrefix+r] = q
		}
		if q, ok := limits[r]; ok {
			result["limits."+r] = q
		}
	}
	for r, q := range requests {
		if strings.HasPrefix(string(r), corev1.ResourceHugePagesPrefix) {
			result[r] = q
			result[corev1.DefaultResourceRequestsPrefix+r] = q
		}
		if validation.IsExtendedResourceName(r) {
			result[corev1.DefaultResourceRequestsPrefix+r] = q
		}
	}
	return result
}

// podMatchesScopeFunc reports whether a pod matches a scope requirement.
func podMatchesScopeFunc(sel corev1.ScopedResourceSelectorRequirement, pod *corev1.Pod) bool {
	switch sel.ScopeName {
	case corev1.ResourceQuotaScopeTerminating:
		return isTerminating(pod)
	case corev1.ResourceQuotaScopeNotTerminating:
		return !isTerminating(pod)
	case corev1.ResourceQuotaScopeBestEffort:
		return isBestEffort(pod)
	case corev1.ResourceQuotaScopeNotBestEffort:
		return !isBestEffort(pod)
	case corev1.ResourceQuotaScopePriorityClass:
		if sel.Operator == corev1.ScopeSelectorOpExists {
			return pod.Spec.PriorityClassName != ""
		}
		return podMatchesSelector(pod, sel)
	case corev1.ResourceQuotaScopeCrossNamespacePodAffinity:
		return usesCrossNamespacePodAffinity(pod)
	}
	return false
}

// podMatchesSelector matches the requirement as a label selector against
// {PriorityClass: <class>}, a set without the key for a pod without a
// class (so DoesNotExist and NotIn match such a pod, In does not).
func podMatchesSelector(pod *corev1.Pod, sel corev1.ScopedResourceSelectorRequirement) bool {
	req, err := scopedResourceSelectorRequirementAsRequirement(sel)
	if err != nil {
		return false
	}
	var labels map[string]string
	if pod.Spec.PriorityClassName != "" {
		labels = map[string]string{string(corev1.ResourceQuotaScopePriorityClass): pod.Spec.PriorityClassName}
	}
	return req.Matches(labels)
}

// scopedResourceSelectorRequirementAsRequirement is upstream's
// helper.ScopedResourceSelectorRequirementsAsSelector.
func scopedResourceSelectorRequirementAsRequirement(sel corev1.ScopedResourceSelectorRequirement) (selection.Requirement, error) {
	op, ok := map[corev1.ScopeSelectorOperator]selection.Operator{
		corev1.ScopeSelectorOpIn: selection.In, corev1.ScopeSelectorOpNotIn: selection.NotIn,
		corev1.ScopeSelectorOpExists: selection.Exists, corev1.ScopeSelectorOpDoesNotExist: selection.DoesNotExist}[sel.Operator]
	if !ok {
		return selection.Requirement{}, fmt.Errorf("%q is not a valid scope selector operator", sel.Operator)
	}
	return selection.NewRequirement(string(sel.ScopeName), op, sel.Values)
}

func isTerminating(pod *corev1.Pod) bool {
	return pod.Spec.ActiveDeadlineSeconds != nil && *pod.Spec.ActiveDeadlineSeconds >= 0
}

// isBestEffort: the pod's QoS class (qos.GetPodQOS: status.qosClass when
// set) is BestEffort.
func isBestEffort(pod *corev1.Pod) bool {
	if pod.Status.QOSClass != "" {
		return pod.Status.QOSClass == corev1.PodQOSBestEffort
	}
	return defaults.GetPodQOS(pod) == corev1.PodQOSBestEffort
}

// usesCrossNamespacePodAffinity: an affinity or anti-affinity term, required
// or preferred, names namespaces or selects them.
func usesCrossNamespacePodAffinity(pod *corev1.Pod) bool {
	a := pod.Spec.Affinity
	if a == nil {
		return false
	}
	var terms []corev1.PodAffinityTerm
	if a.PodAffinity != nil {
		terms = append(terms, a.PodAffinity.RequiredDuringSchedulingIgnoredDuringExecution...)
		for _, w := range a.PodAffinity.PreferredDuringSchedulingIgnoredDuringExecution {
			terms = append(terms, w.PodAffinityTerm)
		}
	}
	if a.PodAntiAffinity != nil {
		terms = append(terms, a.PodAntiAffinity.RequiredDuringSchedulingIgnoredDuringExecution...)
		for _, w := range a.PodAntiAffinity.PreferredDuringSchedulingIgnoredDuringExecution {
			terms = append(terms, w.PodAffinityTerm)
		}
	}
	for _, t := range terms {
		if len(t.Namespaces) > 0 || t.NamespaceSelector != nil {
			return true
		}
	}
	return false
}
