package quota

import (
	"slices"
	"strings"

	"kubik/ch01-apiserver/api/corev1"
	"kubik/ch01-apiserver/api/resource"
)

// storageClassSuffix makes a claim quota name per storage class:
// <class>.storageclass.storage.k8s.io/<resource>.
const storageClassSuffix = ".storageclass.storage.k8s.io/"

var pvcObjectCountName = ObjectCountQuotaResourceNameFor("persistentvolumeclaims")

// pvcResources are the claim quota names, alone or per storage class.
var pvcResources = []corev1.ResourceName{corev1.ResourcePersistentVolumeClaims, corev1.ResourceRequestsStorage}

// V1ResourceByStorageClass is the quota name of resourceName for the
// claims of storageClass.
func V1ResourceByStorageClass(storageClass string, resourceName corev1.ResourceName) corev1.ResourceName {
	return corev1.ResourceName(storageClass + storageClassSuffix + string(resourceName))
}

// NewPersistentVolumeClaimEvaluator measures claims: their count and
// storage, in total and per storage class; the VolumeAttributesClass scope
// selects them.
func NewPersistentVolumeClaimEvaluator(list ListFuncByNamespace[corev1.PersistentVolumeClaim]) Evaluator {
	return &genericEvaluator[corev1.PersistentVolumeClaim]{groupResource: "persistentvolumeclaims", list: list,
		matches: func(n corev1.ResourceName) bool {
			if n == pvcObjectCountName || slices.Contains(pvcResources, n) {
				return true
			}
			for _, r := range pvcResources {
				if strings.HasSuffix(string(n), storageClassSuffix+string(r)) {
					return true
				}
			}
			return false
		},
		usage:        PersistentVolumeClaimUsageFunc,
		matchesScope: pvcMatchesScopeFunc,
	}
}

// PersistentVolumeClaimUsageFunc is a claim's usage (upstream:
// pvcEvaluator.Usage): one claim, and its storage — the request, or the
// allocated size if larger, rounded up to whole bytes — in total and for
// its storage class.
func PersistentVolumeClaimUsageFunc(pvc *corev1.PersistentVolumeClaim) corev1.ResourceList {
	result := corev1.ResourceList{corev1.ResourcePersistentVolumeClaims: one(), pvcObjectCountName: one()}
	class := getPersistentVolumeClaimClass(pvc)
	if class != "" {
		result[V1ResourceByStorageClass(class, corev1.ResourcePersistentVolumeClaims)] = one()
	}
	if storage := storageUsage(pvc); storage != nil {
		result[corev1.ResourceRequestsStorage] = *storage
		if class != "" {
			result[V1ResourceByStorageClass(class, corev1.ResourceRequestsStorage)] = *storage
		}
	}
	return result
}

// getPersistentVolumeClaimClass is the beta annotation's class, else
// spec.storageClassName. Upstream: storagehelpers.GetPersistentVolumeClaimClass.
func getPersistentVolumeClaimClass(pvc *corev1.PersistentVolumeClaim) string {
	if class, ok := pvc.Annotations[corev1.BetaStorageClassAnnotation]; ok {
		return class
	}
	if pvc.Spec.StorageClassName != nil {
		return *pvc.Spec.StorageClassName
	}
	return ""
}

// storageUsage is upstream's getStorageUsage: nil without a request.
func storageUsage(pvc *corev1.PersistentVolumeClaim) *resource.Quantity {
	roundUp := func(q resource.Quantity) *resource.Quantity {
		r := q.DeepCopy()
		r.RoundUp(0)
		return &r
	}
	req, ok := pvc.Spec.Resources.Requests[corev1.ResourceStorage]
	if !ok {
		return nil
	}
	result := roundUp(req)
	if allocated, ok := pvc.Status.AllocatedResources[corev1.ResourceStorage]; ok && allocated.Cmp(*result) > 0 {
		result = roundUp(allocated)
	}
	return result
}

// pvcMatchesScopeFunc: only the VolumeAttributesClass scope selects
// claims, by the classes the claim names in its spec and status.
func pvcMatchesScopeFunc(sel corev1.ScopedResourceSelectorRequirement, pvc *corev1.PersistentVolumeClaim) bool {
	if sel.ScopeName != corev1.ResourceQuotaScopeVolumeAttributesClass {
		return false
	}
	names := referencedVolumeAttributesClassNames(pvc)
	if sel.Operator == corev1.ScopeSelectorOpExists {
		return len(names) > 0
	}
	req, err := scopedResourceSelectorRequirementAsRequirement(sel)
	if err != nil {
		return false
	}
	if len(names) == 0 {
		return req.Matches(nil)
	}
	for _, n := range names {
		if req.Matches(map[string]string{string(corev1.ResourceQuotaScopeVolumeAttributesClass): n}) {
			return true
		}
	}
	return false
}

// referencedVolumeAttributesClassNames: spec.volumeAttributesClassName,
// status.currentVolumeAttributesClassName and the target of a modification
// in progress.
func referencedVolumeAttributesClassNames(pvc *corev1.PersistentVolumeClaim) []string {
	var names []string
	add := func(n string) {
		if n != "" && !slices.Contains(names, n) {
			names = append(names, n)
		}
	}
	if pvc.Spec.VolumeAttributesClassName != nil {
		add(*pvc.Spec.VolumeAttributesClassName)
	}
	if pvc.Status.CurrentVolumeAttributesClassName != nil {
		add(*pvc.Status.CurrentVolumeAttributesClassName)
	}
	if pvc.Status.ModifyVolumeStatus != nil {
		add(pvc.Status.ModifyVolumeStatus.TargetVolumeAttributesClassName)
	}
	return names
}
