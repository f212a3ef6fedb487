package validation

import (
	"kubik/ch01-apiserver/api/admissionregistrationv1"
	"kubik/ch01-apiserver/api/apiregistrationv1"
	"kubik/ch01-apiserver/api/appsv1"
	"kubik/ch01-apiserver/api/autoscalingv1"
	"kubik/ch01-apiserver/api/autoscalingv2"
	"kubik/ch01-apiserver/api/batchv1"
	"kubik/ch01-apiserver/api/certificatesv1"
	"kubik/ch01-apiserver/api/coordinationv1"
	"kubik/ch01-apiserver/api/corev1"
	"kubik/ch01-apiserver/api/discoveryv1"
	"kubik/ch01-apiserver/api/flowcontrolv1"
	"kubik/ch01-apiserver/api/metav1"
	"kubik/ch01-apiserver/api/networkingv1"
	"kubik/ch01-apiserver/api/nodev1"
	"kubik/ch01-apiserver/api/policyv1"
	"kubik/ch01-apiserver/api/resourcev1"
	"kubik/ch01-apiserver/api/schedulingv1"
	"kubik/ch01-apiserver/api/storagev1"
	"kubik/ch01-apiserver/apiserver/validation/field"
)

// Validate checks obj before it is stored. old is nil on create and the
// stored object on update (it must be of the same kind). Kinds without rules
// of their own get the generic metadata checks. Call it after defaulting.
func Validate(obj, old metav1.Object) field.ErrorList {
	if old == nil {
		return validateCreate(obj)
	}
	return ValidateSubresource(obj, old, "")
}

// ValidateSubresource validates an update through subresource ("" for the
// main resource, "status", "approval", ...). Only CertificateSigningRequests
// have rules that differ per subresource (what /status and /approval may
// change); every other kind is validated as by Validate.
func ValidateSubresource(obj, old metav1.Object, subresource string) field.ErrorList {
	meta := ValidateObjectMetaUpdate(obj.GetObjectMeta(), old.GetObjectMeta(), field.NewPath("metadata"))
	switch o := obj.(type) {
	case *certificatesv1.CertificateSigningRequest:
		return append(validateCertificateSigningRequestUpdate(o, old.(*certificatesv1.CertificateSigningRequest), subresource), meta...)
	case *corev1.Pod:
		if subresource == "resize" {
			return validatePodResize(o, old.(*corev1.Pod))
		}
		if subresource == "ephemeralcontainers" {
			return ValidatePodEphemeralContainersUpdate(o, old.(*corev1.Pod))
		}
		return validatePodUpdate(o, old.(*corev1.Pod))
	case *corev1.Service:
		return validateServiceUpdate(o, old.(*corev1.Service))
	case *corev1.ConfigMap:
		return validateConfigMapUpdate(o, old.(*corev1.ConfigMap))
	case *corev1.Secret:
		return validateSecretUpdate(o, old.(*corev1.Secret))
	case *appsv1.Deployment:
		o2 := old.(*appsv1.Deployment)
		meta = append(meta, validateDeployment(o)...)
		return append(meta, ValidateImmutableField(o.Spec.Selector, o2.Spec.Selector, field.NewPath("spec", "selector"))...)
	case *appsv1.ReplicaSet:
		o2 := old.(*appsv1.ReplicaSet)
		meta = append(meta, validateReplicaSet(o)...)
		return append(meta, ValidateImmutableField(o.Spec.Selector, o2.Spec.Selector, field.NewPath("spec", "selector"))...)
	case *appsv1.DaemonSet:
		o2 := old.(*appsv1.DaemonSet)
		meta = append(meta, validateDaemonSet(o)...)
		return append(meta, ValidateImmutableField(o.Spec.Selector, o2.Spec.Selector, field.NewPath("spec", "selector"))...)
	case *appsv1.ControllerRevision:
		return append(meta, validateControllerRevisionUpdate(o, old.(*appsv1.ControllerRevision))...)
	case *appsv1.StatefulSet:
		meta = append(meta, validateStatefulSet(o)...)
		return append(meta, validateStatefulSetUpdate(o, old.(*appsv1.StatefulSet))...)
	case *batchv1.Job:
		meta = append(meta, validateJob(o)...)
		return append(meta, validateJobUpdate(o, old.(*batchv1.Job))...)
	case *admissionregistrationv1.ValidatingWebhookConfiguration:
		return append(meta, validateValidatingWebhookConfiguration(o)...)
	case *apiregistrationv1.APIService:
		if subresource == "status" {
			return append(meta, validateAPIServiceStatus(&o.Status)...)
		}
		return append(meta, apiServiceUpdateErrors(validateAPIService(o))...)
	case *admissionregistrationv1.MutatingWebhookConfiguration:
		return append(meta, validateMutatingWebhookConfiguration(o)...)
	case *admissionregistrationv1.ValidatingAdmissionPolicy:
		if subresource == "status" {
			return meta
		}
		return append(meta, withoutMetadata(validateValidatingAdmissionPolicy(o))...)
	case *admissionregistrationv1.ValidatingAdmissionPolicyBinding:
		return append(meta, withoutMetadata(validateValidatingAdmissionPolicyBinding(o))...)
	case *schedulingv1.PriorityClass:
		meta = append(meta, validatePriorityClass(o)...)
		return append(meta, validatePriorityClassUpdate(o, old.(*schedulingv1.PriorityClass))...)
	case *resourcev1.ResourceClaim:
		return append(meta, validateResourceClaimUpdate(o, old.(*resourcev1.ResourceClaim))...)
	case *resourcev1.ResourceClaimTemplate:
		return append(meta, validateImmutableInternal(o.Spec, old.(*resourcev1.ResourceClaimTemplate).Spec, field.NewPath("spec"))...)
	case *resourcev1.ResourceSlice:
		return append(meta, validateResourceSliceUpdate(o, old.(*resourcev1.ResourceSlice))...)
	case *storagev1.StorageClass:
		meta = append(meta, validateStorageClass(o)...)
		return append(meta, validateStorageClassUpdate(o, old.(*storagev1.StorageClass))...)
	case *storagev1.CSIDriver:
		return append(meta, validateCSIDriverUpdate(o, old.(*storagev1.CSIDriver))...)
	case *storagev1.CSINode:
		meta = append(meta, validateCSINode(o)...)
		return append(meta, validateCSINodeUpdate(o, old.(*storagev1.CSINode))...)
	case *storagev1.CSIStorageCapacity:
		meta = append(meta, validateCSIStorageCapacity(o)...)
		return append(meta, validateCSIStorageCapacityUpdate(o, old.(*storagev1.CSIStorageCapacity))...)
	case *storagev1.VolumeAttachment:
		return append(meta, validateVolumeAttachmentUpdate(o, old.(*storagev1.VolumeAttachment))...)
	case *storagev1.VolumeAttributesClass:
		meta = append(meta, withoutMetadata(validateVolumeAttributesClass(o))...)
		return append(meta, validateVolumeAttributesClassUpdate(o, old.(*storagev1.VolumeAttributesClass))...)
	case *autoscalingv2.HorizontalPodAutoscaler:
		return append(meta, validateHorizontalPodAutoscaler(o, old.(*autoscalingv2.HorizontalPodAutoscaler))...)
	case *autoscalingv1.HorizontalPodAutoscaler:
		return append(meta, validateHorizontalPodAutoscaler(autoscalingv1.ToV2(o), autoscalingv1.ToV2(old.(*autoscalingv1.HorizontalPodAutoscaler)))...)
	case *networkingv1.Ingress:
		o2 := old.(*networkingv1.Ingress)
		meta = append(meta, withoutMetadata(validateIngress(o, o2))...)
		return append(meta, validateIngressStatus(&o.Status, &o2.Status)...)
	case *networkingv1.ServiceCIDR:
		return append(meta, validateServiceCIDRUpdate(o, old.(*networkingv1.ServiceCIDR))...)
	case *networkingv1.IPAddress:
		return append(meta, validateIPAddressUpdate(o, old.(*networkingv1.IPAddress))...)
	case *networkingv1.IngressClass:
		meta = append(meta, ValidateImmutableField(o.Spec.Controller, old.(*networkingv1.IngressClass).Spec.Controller, field.NewPath("spec", "controller"))...)
		return append(meta, validateIngressClass(o)...)
	case *corev1.ResourceQuota:
		return append(meta, validateResourceQuotaUpdate(o, old.(*corev1.ResourceQuota))...)
	case *flowcontrolv1.FlowSchema:
		return append(meta, withoutMetadata(validateFlowSchema(o))...)
	case *flowcontrolv1.PriorityLevelConfiguration:
		return append(meta, withoutMetadata(validatePriorityLevelConfiguration(o))...)
	case *nodev1.RuntimeClass:
		meta = append(meta, withoutMetadata(validateRuntimeClass(o))...)
		return append(meta, validateRuntimeClassUpdate(o, old.(*nodev1.RuntimeClass))...)
	case *discoveryv1.EndpointSlice:
		meta = append(meta, validateEndpointSlice(o)...)
		return append(meta, ValidateImmutableField(o.AddressType, old.(*discoveryv1.EndpointSlice).AddressType, field.NewPath("addressType"))...)
	}
	meta = append(meta, validateRoleRefUpdate(obj, old)...)
	// The other kinds validate the new object as on create, without the
	// metadata part already checked above.
	return append(meta, withoutMetadata(validateCreate(obj))...)
}

func withoutMetadata(errs field.ErrorList) field.ErrorList {
	var out field.ErrorList
	for _, e := range errs {
		if len(e.Field) >= 8 && e.Field[:8] == "metadata" {
			continue
		}
		out = append(out, e)
	}
	return out
}

func validateCreate(obj metav1.Object) field.ErrorList {
	if errs, ok := validateRBAC(obj); ok {
		return errs
	}
	switch o := obj.(type) {
	case *corev1.Pod:
		return validatePod(o)
	case *corev1.Service:
		return validateService(o)
	case *corev1.ConfigMap:
		return validateConfigMap(o)
	case *corev1.Secret:
		return validateSecret(o)
	case *corev1.Namespace:
		return validateNamespace(o)
	case *corev1.Node:
		return validateNode(o)
	case *corev1.Endpoints:
		return validateEndpoints(o)
	case *corev1.ServiceAccount:
		return validateServiceAccount(o)
	case *corev1.PersistentVolume:
		return validatePersistentVolume(o)
	case *corev1.PersistentVolumeClaim:
		return validatePersistentVolumeClaim(o)
	case *corev1.Event:
		return validateEvent(o)
	case *corev1.ReplicationController:
		return validateReplicationController(o)
	case *policyv1.PodDisruptionBudget:
		return validatePodDisruptionBudget(o)
	case *corev1.LimitRange:
		return validateLimitRange(o)
	case *corev1.ResourceQuota:
		return validateResourceQuota(o)
	case *corev1.PodTemplate:
		errs := ValidateObjectMeta(&o.ObjectMeta, true, NameIsDNSSubdomain, field.NewPath("metadata"))
		return append(errs, ValidatePodTemplateSpec(&o.Template, field.NewPath("template"))...)
	case *appsv1.Deployment:
		return validateDeployment(o)
	case *appsv1.ReplicaSet:
		return validateReplicaSet(o)
	case *appsv1.DaemonSet:
		return validateDaemonSet(o)
	case *appsv1.StatefulSet:
		return validateStatefulSet(o)
	case *appsv1.ControllerRevision:
		return validateControllerRevision(o)
	case *batchv1.Job:
		return validateJob(o)
	case *batchv1.CronJob:
		return validateCronJob(o)
	case *coordinationv1.Lease:
		return validateLease(o)
	case *discoveryv1.EndpointSlice:
		return validateEndpointSlice(o)
	case *schedulingv1.PriorityClass:
		return validatePriorityClass(o)
	case *admissionregistrationv1.ValidatingWebhookConfiguration:
		return validateValidatingWebhookConfiguration(o)
	case *apiregistrationv1.APIService:
		return validateAPIService(o)
	case *admissionregistrationv1.MutatingWebhookConfiguration:
		return validateMutatingWebhookConfiguration(o)
	case *admissionregistrationv1.ValidatingAdmissionPolicy:
		return validateValidatingAdmissionPolicy(o)
	case *admissionregistrationv1.ValidatingAdmissionPolicyBinding:
		return validateValidatingAdmissionPolicyBinding(o)
	case *resourcev1.DeviceClass:
		return validateDeviceClass(o)
	case *resourcev1.ResourceClaim:
		return validateResourceClaim(o)
	case *resourcev1.ResourceClaimTemplate:
		return validateResourceClaimTemplate(o)
	case *resourcev1.ResourceSlice:
		return validateResourceSlice(o)
	case *storagev1.StorageClass:
		return validateStorageClass(o)
	case *storagev1.CSIDriver:
		return validateCSIDriver(o)
	case *storagev1.CSINode:
		return validateCSINode(o)
	case *storagev1.CSIStorageCapacity:
		return validateCSIStorageCapacity(o)
	case *storagev1.VolumeAttachment:
		return append(validateVolumeAttachment(o), validateVolumeAttachmentV1(o)...)
	case *storagev1.VolumeAttributesClass:
		return validateVolumeAttributesClass(o)
	case *autoscalingv2.HorizontalPodAutoscaler:
		return validateHorizontalPodAutoscaler(o, nil)
	case *autoscalingv1.HorizontalPodAutoscaler:
		return validateHorizontalPodAutoscaler(autoscalingv1.ToV2(o), nil)
	case *networkingv1.Ingress:
		return validateIngress(o, nil)
	case *networkingv1.IngressClass:
		return validateIngressClass(o)
	case *networkingv1.NetworkPolicy:
		return validateNetworkPolicy(o)
	case *networkingv1.ServiceCIDR:
		return validateServiceCIDR(o)
	case *networkingv1.IPAddress:
		return validateIPAddress(o)
	case *flowcontrolv1.FlowSchema:
		return validateFlowSchema(o)
	case *flowcontrolv1.PriorityLevelConfiguration:
		return validatePriorityLevelConfiguration(o)
	case *nodev1.RuntimeClass:
		return validateRuntimeClass(o)
	case *certificatesv1.CertificateSigningRequest:
		return validateCertificateSigningRequest(o, csrOptions{})
	}
	// Unknown kinds: generic metadata only; the caller knows the scope.
	m := obj.GetObjectMeta()
	return ValidateObjectMeta(m, m.Namespace != "", NameIsDNSSubdomain, field.NewPath("metadata"))
}
