package validation

import (
	"maps"

	"kubik/ch01-apiserver/api/corev1"
	"kubik/ch01-apiserver/api/metav1"
	"kubik/ch01-apiserver/apiserver/defaults"
	"kubik/ch01-apiserver/apiserver/validation/field"
)

// validatePodResize is upstream's ValidatePodResize, for an update through
// pods/<name>/resize (the strategy has already put back everything but the
// containers' resources and resize policies): the pod must stay valid and
// keep its QoS class; only the cpu and memory requests and limits of the
// regular containers and the sidecars (restartable init containers) may
// change, and none may be removed.
func validatePodResize(pod, old *corev1.Pod) field.ErrorList {
	errs := ValidateObjectMetaUpdate(&pod.ObjectMeta, &old.ObjectMeta, field.NewPath("metadata"))
	spec := field.NewPath("spec")
	errs = append(errs, ValidatePodSpec(&pod.Spec, spec)...)

	// InPlacePodLevelResourcesVerticalScaling is alpha in v1.35, off.
	if hasPodLevelResources(old) || hasPodLevelResources(pod) {
		return field.ErrorList{field.Forbidden(field.NewPath(""),
			"resize of pods with pod-level resources is forbidden when InPlacePodLevelResourcesVerticalScalingEnabled feature gate is disabled")}
	}
	if _, ok := old.Annotations[corev1.MirrorPodAnnotationKey]; ok {
		return field.ErrorList{field.Forbidden(field.NewPath(""), "static pods cannot be resized")}
	}
	if old.Spec.OS != nil && old.Spec.OS.Name == corev1.Windows {
		return field.ErrorList{field.Forbidden(field.NewPath(""), "windows pods cannot be resized")}
	}

	oldQOS := old.Status.QOSClass
	if oldQOS == "" {
		oldQOS = defaults.GetPodQOS(old)
	}
	if oldQOS != defaults.GetPodQOS(pod) {
		errs = append(errs, field.Invalid(spec, pod.Status.QOSClass, "Pod QOS Class may not change as a result of resizing"))
	}
	if !resizeSupported(old) {
		errs = append(errs, field.Forbidden(spec, "Pod running on node without support for resize"))
	}
	if len(pod.Spec.Containers) != len(old.Spec.Containers) || len(pod.Spec.InitContainers) != len(old.Spec.InitContainers) {
		return errs // the strategy keeps the stored containers: cannot happen through the API
	}

	for i, c := range old.Spec.InitContainers {
		if isRestartable(&c) {
			errs = append(errs, validateContainerResize(&pod.Spec.InitContainers[i].Resources, &c.Resources,
				spec.Child("initContainers").Index(i).Child("resources"))...)
		}
	}
	for i, c := range old.Spec.Containers {
		errs = append(errs, validateContainerResize(&pod.Spec.Containers[i].Resources, &c.Resources,
			spec.Child("containers").Index(i).Child("resources"))...)
	}

	// Put the old cpu and memory amounts back: whatever still differs is a
	// forbidden change.
	munged := metav1.DeepCopy(&pod.Spec)
	for i := range munged.Containers {
		keepOldCPUMemory(&munged.Containers[i], &old.Spec.Containers[i])
		if !semanticEqual(munged.Containers[i], old.Spec.Containers[i]) {
			errs = append(errs, field.Forbidden(spec, "only cpu and memory resources are mutable"))
		}
	}
	for i := range munged.InitContainers {
		c := &munged.InitContainers[i]
		switch {
		case isRestartable(c):
			keepOldCPUMemory(c, &old.Spec.InitContainers[i])
			if !semanticEqual(*c, old.Spec.InitContainers[i]) {
				errs = append(errs, field.Forbidden(spec, "only cpu and memory resources for sidecar containers are mutable"))
			}
		case !semanticEqual(*c, old.Spec.InitContainers[i]):
			errs = append(errs, field.Forbidden(spec, "resources for non-sidecar init containers are immutable"))
		}
	}
	if len(errs) > 0 {
		return errs
	}
	if !semanticEqual(munged, &old.Spec) {
		errs = append(errs, field.Forbidden(spec, "only cpu and memory resources are mutable"))
	}
	return errs
}

// validateContainerResize: requests and limits may change, not disappear.
func validateContainerResize(r, old *corev1.ResourceRequirements, fldPath *field.Path) field.ErrorList {
	var errs field.ErrorList
	if resourcesRemoved(r.Requests, old.Requests) {
		errs = append(errs, field.Forbidden(fldPath.Child("requests"), "resource requests cannot be removed"))
	}
	if resourcesRemoved(r.Limits, old.Limits) {
		errs = append(errs, field.Forbidden(fldPath.Child("limits"), "resource limits cannot be removed"))
	}
	return errs
}

func resourcesRemoved(list, old corev1.ResourceList) bool {
	for name := range old {
		if _, ok := list[name]; !ok {
			return true
		}
	}
	return false
}

// keepOldCPUMemory sets the container's cpu and memory requests and limits
// to the old container's (upstream's dropCPUMemoryResourcesFromContainer).
func keepOldCPUMemory(c, old *corev1.Container) {
	keep := func(list, oldList corev1.ResourceList) corev1.ResourceList {
		if oldList == nil {
			return nil
		}
		out := maps.Clone(list)
		if out == nil {
			out = corev1.ResourceList{}
		}
		for _, name := range []corev1.ResourceName{corev1.ResourceCPU, corev1.ResourceMemory} {
			delete(out, name)
			if q, ok := oldList[name]; ok {
				out[name] = q
			}
		}
		return out
	}
	c.Resources = corev1.ResourceRequirements{Limits: keep(c.Resources.Limits, old.Resources.Limits),
		Requests: keep(c.Resources.Requests, old.Resources.Requests)}
}

// resizeSupported is isPodResizeRequestSupported: a node that reports no
// resources for a running container predates in-place resize. Without a
// running container nothing is known, and the resize is allowed.
func resizeSupported(pod *corev1.Pod) bool {
	for _, cs := range pod.Status.ContainerStatuses {
		if cs.State.Running != nil {
			return cs.Resources != nil
		}
	}
	return true
}

func hasPodLevelResources(pod *corev1.Pod) bool {
	r := pod.Spec.Resources
	return r != nil && len(r.Requests)+len(r.Limits) > 0
}

func isRestartable(c *corev1.Container) bool {
	return c.RestartPolicy != nil && *c.RestartPolicy == corev1.ContainerRestartPolicyAlways
}

// validateResizePolicies checks every container's resizePolicy (upstream's
// validateResizePolicy): cpu or memory, each once, NotRequired or
// RestartContainer, and only NotRequired in a pod that never restarts.
func validateResizePolicies(spec *corev1.PodSpec, fldPath *field.Path) field.ErrorList {
	var errs field.ErrorList
	for _, list := range []struct {
		name       string
		containers []corev1.Container
	}{{"initContainers", spec.InitContainers}, {"containers", spec.Containers}} {
		for i, c := range list.containers {
			p := fldPath.Child(list.name).Index(i).Child("resizePolicy")
			seen := map[corev1.ResourceName]bool{}
			for j, rp := range c.ResizePolicy {
				if seen[rp.ResourceName] {
					errs = append(errs, field.Duplicate(p.Index(j), rp.ResourceName))
				}
				seen[rp.ResourceName] = true
				switch rp.ResourceName {
				case corev1.ResourceCPU, corev1.ResourceMemory:
				case "":
					errs = append(errs, field.Required(p, ""))
				default:
					errs = append(errs, field.NotSupported(p, rp.ResourceName, []string{"cpu", "memory"}))
				}
				switch rp.RestartPolicy {
				case corev1.NotRequired, corev1.RestartContainer:
				case "":
					errs = append(errs, field.Required(p, ""))
				default:
					errs = append(errs, field.NotSupported(p, rp.RestartPolicy, []string{"NotRequired", "RestartContainer"}))
				}
				if spec.RestartPolicy == corev1.RestartPolicyNever && rp.RestartPolicy != corev1.NotRequired {
					errs = append(errs, field.Invalid(p, rp.RestartPolicy, "must be 'NotRequired' when `restartPolicy` is 'Never'"))
				}
			}
		}
	}
	return errs
}
