package defaults

import (
	"kubik/ch01-apiserver/api/corev1"
	"kubik/ch01-apiserver/api/metav1"
	"kubik/ch01-apiserver/api/resource"
)

// PreparePodForCreate is what the pod registry does to every new pod before
// validation (upstream's podStrategy.PrepareForCreate): the client's status is
// thrown away, the pod starts Pending with its QoS class computed, generation
// starts at 1, and a pod held by scheduling gates says so in a PodScheduled
// condition.
func PreparePodForCreate(pod *corev1.Pod) {
	pod.Generation = 1
	pod.Status = corev1.PodStatus{
		Phase:    corev1.PodPending,
		QOSClass: GetPodQOS(pod),
	}
	if len(pod.Spec.SchedulingGates) > 0 {
		pod.Status.Conditions = append(pod.Status.Conditions, corev1.PodCondition{
			Type:    corev1.PodScheduled,
			Status:  corev1.ConditionFalse,
			Reason:  corev1.PodReasonSchedulingGated,
			Message: "Scheduling is blocked due to non-empty scheduling gates",
		})
	}
}

// PrepareNamespaceForCreate is the namespace registry's PrepareForCreate: a
// new namespace is Active and carries the "kubernetes" finalizer, which the
// namespace controller removes once everything in it is deleted.
func PrepareNamespaceForCreate(ns *corev1.Namespace) {
	ns.Status = corev1.NamespaceStatus{Phase: corev1.NamespaceActive}
	for _, f := range ns.Spec.Finalizers {
		if f == corev1.FinalizerKubernetes {
			return
		}
	}
	ns.Spec.Finalizers = append(ns.Spec.Finalizers, corev1.FinalizerKubernetes)
}

// GetPodQOS computes the pod's quality-of-service class (upstream's
// qos.ComputePodQOS), from CPU and memory only:
//   - BestEffort: no container requests or limits anything;
//   - Guaranteed: every container limits both CPU and memory and requests
//     equal limits;
//   - Burstable: everything else.
//
// With pod-level resources (spec.resources) those decide instead.
func GetPodQOS(pod *corev1.Pod) corev1.PodQOSClass {
	requests := corev1.ResourceList{}
	limits := corev1.ResourceList{}
	guaranteed := true

	add := func(list corev1.ResourceList, name corev1.ResourceName, q resource.Quantity) {
		sum, ok := list[name]
		if !ok {
			list[name] = q.DeepCopy()
			return
		}
		sum.Add(q)
		list[name] = sum
	}
	// collect adds the positive CPU and memory amounts of one set of
	// requirements and says whether both CPU and memory are limited.
	collect := func(r *corev1.ResourceRequirements) {
		for name, q := range r.Requests {
			if isQOSResource(name) && q.Sign() > 0 {
				add(requests, name, q)
			}
		}
		limited := map[corev1.ResourceName]bool{}
		for name, q := range r.Limits {
			if isQOSResource(name) && q.Sign() > 0 {
				limited[name] = true
				add(limits, name, q)
			}
		}
		if !limited[corev1.ResourceCPU] || !limited[corev1.ResourceMemory] {
			guaranteed = false
		}
	}

	if pod.Spec.Resources != nil {
		collect(pod.Spec.Resources)
	} else {
		for i := range pod.Spec.Containers {
			collect(&pod.Spec.Containers[i].Resources)
		}
		for i := range pod.Spec.InitContainers {
			collect(&pod.Spec.InitContainers[i].Resources)
		}
	}

	if len(requests) == 0 && len(limits) == 0 {
		return corev1.PodQOSBestEffort
	}
	if guaranteed {
		for name, req := range requests {
			if lim, ok := limits[name]; !ok || lim.Cmp(req) != 0 {
				guaranteed = false
				break
			}
		}
	}
	if guaranteed && len(requests) == len(limits) {
		return corev1.PodQOSGuaranteed
	}
	return corev1.PodQOSBurstable
}

func isQOSResource(name corev1.ResourceName) bool {
	return name == corev1.ResourceCPU || name == corev1.ResourceMemory
}

// compile-time check that metav1 stays the home of Object.
var _ metav1.Object = (*corev1.Pod)(nil)
