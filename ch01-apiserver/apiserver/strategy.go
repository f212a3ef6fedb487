package apiserver

import (
	"crypto/rand"
	"fmt"
	"reflect"

	apiextensionsv1 "kubik/ch01-apiserver/api/apiextensionsv1"
	"kubik/ch01-apiserver/api/autoscalingv1"
	"kubik/ch01-apiserver/api/autoscalingv2"
	"kubik/ch01-apiserver/api/batchv1"
	"kubik/ch01-apiserver/api/certificatesv1"
	"kubik/ch01-apiserver/api/corev1"
	"kubik/ch01-apiserver/api/metav1"
	"kubik/ch01-apiserver/api/scheme"
	"kubik/ch01-apiserver/apiserver/apiextensions"
	"kubik/ch01-apiserver/apiserver/auth"
	"kubik/ch01-apiserver/apiserver/defaults"
	"kubik/ch01-apiserver/apiserver/validation"
	"kubik/ch01-apiserver/apiserver/validation/field"
)

// Upstream gives every resource a "strategy" (pkg/registry/<group>/<kind>/strategy.go)
// that prepares objects for create and update. The parts users can see are here.

// newUID returns a random (version 4) UUID.
func newUID() string {
	b := make([]byte, 16)
	rand.Read(b)
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	return fmt.Sprintf("%x-%x-%x-%x-%x", b[0:4], b[4:6], b[6:8], b[8:10], b[10:16])
}

// hasStatusSubresource: for these kinds the main resource ignores status
// changes and /status ignores everything else.
func hasStatusSubresource(res *scheme.Resource) bool { return res.Subresource("status") != nil }

// prepareForCreate sets what the server owns on a new object: uid,
// creationTimestamp, generation, and a status the client may not choose.
func prepareForCreate(res *scheme.Resource, obj metav1.Object, user *auth.UserInfo) {
	meta := obj.GetObjectMeta()
	meta.UID = newUID()
	meta.CreationTimestamp = metav1.Now()
	meta.DeletionTimestamp = nil
	meta.DeletionGracePeriodSeconds = nil
	meta.SelfLink = ""
	meta.Generation = 0
	if res.Generation {
		meta.Generation = 1
	}
	// Nodes keep the status their kubelet registers them with; for the other
	// kinds with a status subresource, the status starts empty.
	if hasStatusSubresource(res) && res.Resource != "nodes" {
		if st := reflect.ValueOf(obj).Elem().FieldByName("Status"); st.IsValid() && st.CanSet() {
			st.Set(reflect.Zero(st.Type()))
		}
	}
	switch o := obj.(type) {
	case *apiextensionsv1.CustomResourceDefinition:
		prepareCRDForCreate(o)
	case *apiextensions.Unstructured:
		prepareCustomForCreate(res, o)
	case *corev1.Pod:
		defaults.PreparePodForCreate(o)
	case *corev1.Namespace:
		defaults.PrepareNamespaceForCreate(o)
	case *batchv1.Job:
		generateJobSelector(o)
	case *corev1.PersistentVolume:
		o.Status.Phase = corev1.VolumePending
	case *corev1.PersistentVolumeClaim:
		o.Status.Phase = corev1.ClaimPending
	case *certificatesv1.CertificateSigningRequest:
		prepareCSRForCreate(o, user)
	}
}

// generateJobSelector gives a Job without manualSelector the selector and
// pod labels that tie its pods to it by uid, as upstream's Job strategy does.
func generateJobSelector(job *batchv1.Job) {
	if job.Spec.ManualSelector != nil && *job.Spec.ManualSelector {
		return
	}
	labels := map[string]string{
		batchv1.ControllerUidLabel:       job.UID,
		batchv1.JobNameLabel:             job.Name,
		batchv1.LegacyControllerUidLabel: job.UID,
		batchv1.LegacyJobNameLabel:       job.Name,
	}
	tmpl := &job.Spec.Template.ObjectMeta
	if tmpl.Labels == nil {
		tmpl.Labels = map[string]string{}
	}
	for k, v := range labels {
		if _, ok := tmpl.Labels[k]; !ok {
			tmpl.Labels[k] = v
		}
	}
	if job.Spec.Selector == nil {
		job.Spec.Selector = &metav1.LabelSelector{MatchLabels: map[string]string{batchv1.ControllerUidLabel: job.UID}}
	}
}

// prepareForUpdate keeps what a client cannot change through this endpoint.
func prepareForUpdate(res *scheme.Resource, obj, old metav1.Object, subresource string) {
	meta, oldMeta := obj.GetObjectMeta(), old.GetObjectMeta()
	meta.UID = oldMeta.UID
	meta.CreationTimestamp = oldMeta.CreationTimestamp
	meta.DeletionTimestamp = oldMeta.DeletionTimestamp
	meta.DeletionGracePeriodSeconds = oldMeta.DeletionGracePeriodSeconds
	meta.Generation = oldMeta.Generation
	meta.SelfLink = ""
	if meta.ManagedFields == nil {
		meta.ManagedFields = oldMeta.ManagedFields
	}
	if u, ok := obj.(*apiextensions.Unstructured); ok {
		prepareCustomForUpdate(res, u, old.(*apiextensions.Unstructured), subresource)
		return
	}
	if crd, ok := obj.(*apiextensionsv1.CustomResourceDefinition); ok && subresource == "" {
		apiextensions.SetDefaults(crd)
		defer prepareCRDForUpdate(crd)
	}
	if csr, ok := obj.(*certificatesv1.CertificateSigningRequest); ok {
		if subresource == "status" {
			meta.OwnerReferences = oldMeta.OwnerReferences
			meta.Finalizers = oldMeta.Finalizers
		}
		prepareCSRForUpdate(csr, old.(*certificatesv1.CertificateSigningRequest), subresource)
		return
	}
	if svc, ok := obj.(*corev1.Service); ok && subresource == "" {
		dropTypeDependentFields(svc, old.(*corev1.Service))
	}
	nv, ov := reflect.ValueOf(obj).Elem(), reflect.ValueOf(old).Elem()
	switch subresource {
	case "status":
		// Only the status changes (and labels/annotations, as upstream allows).
		if f := nv.FieldByName("Spec"); f.IsValid() {
			f.Set(ov.FieldByName("Spec"))
		}
		meta.OwnerReferences = oldMeta.OwnerReferences
		meta.Finalizers = oldMeta.Finalizers
		if hpa, ok := obj.(*autoscalingv1.HorizontalPodAutoscaler); ok {
			keepRoundTripAnnotations(hpa, old.(*autoscalingv1.HorizontalPodAutoscaler), autoscalingv2.MetricSpecsAnnotation, autoscalingv2.BehaviorSpecsAnnotation)
		}
	case "resize":
		prepareResize(obj.(*corev1.Pod), old.(*corev1.Pod))
	case "ephemeralcontainers":
		prepareEphemeralContainers(obj.(*corev1.Pod), old.(*corev1.Pod))
	case "finalize":
		ns, oldNS := obj.(*corev1.Namespace), old.(*corev1.Namespace)
		fin := ns.Spec.Finalizers
		*ns = *oldNS
		ns.Spec.Finalizers = fin
		ns.ObjectMeta.ResourceVersion = meta.ResourceVersion
	default:
		if svc, ok := obj.(*corev1.Service); ok {
			keepAllocatedValues(svc, old.(*corev1.Service))
		}
		if hasStatusSubresource(res) {
			if f := nv.FieldByName("Status"); f.IsValid() {
				f.Set(ov.FieldByName("Status"))
			}
		}
		if hpa, ok := obj.(*autoscalingv1.HorizontalPodAutoscaler); ok {
			keepRoundTripAnnotations(hpa, old.(*autoscalingv1.HorizontalPodAutoscaler), autoscalingv2.MetricStatusesAnnotation, autoscalingv2.HorizontalPodAutoscalerConditionsAnnotation)
		}
		if (res.Generation || res.GenerationOnSpecChange) && !sameSpec(obj, old) {
			meta.Generation = oldMeta.Generation + 1
		}
	}
}

// validate runs the kind's validation; field errors become a 422 Invalid.
func (s *Server) validate(res *scheme.Resource, obj, old metav1.Object, subresource string) error {
	var errs field.ErrorList
	if ext, ok := s.validateExtensions(res, obj, old, subresource); ok {
		errs = ext
	} else if old == nil {
		errs = validation.Validate(obj, nil)
	} else {
		errs = validation.ValidateSubresource(obj, old, subresource)
	}
	if len(errs) == 0 {
		return nil
	}
	return ErrInvalid(res.Group, res.Kind, obj.GetObjectMeta().Name, validation.ToStatusCauses(errs), validation.AggregateMessage(errs))
}

// keepAllocatedValues: an update that leaves out clusterIP (kubectl apply
// does, since the manifest never had one) keeps the allocated one.
func keepAllocatedValues(svc, old *corev1.Service) {
	if svc.Spec.Type == corev1.ServiceTypeExternalName {
		return
	}
	if svc.Spec.ClusterIP == "" && len(svc.Spec.ClusterIPs) == 0 {
		svc.Spec.ClusterIP, svc.Spec.ClusterIPs = old.Spec.ClusterIP, old.Spec.ClusterIPs
	}
	if len(svc.Spec.IPFamilies) == 0 {
		svc.Spec.IPFamilies = old.Spec.IPFamilies
	}
	if svc.Spec.IPFamilyPolicy == nil {
		svc.Spec.IPFamilyPolicy = old.Spec.IPFamilyPolicy
	}
}

// keepRoundTripAnnotations: an autoscaling/v1 HorizontalPodAutoscaler
// carries the v2 fields it lacks in annotations, part of them spec (the
// metrics, the behavior), part status (the current metrics, the
// conditions). An update through one endpoint keeps the other part's
// annotations as stored, as upstream keeps the other part of its
// internal object.
func keepRoundTripAnnotations(hpa, old *autoscalingv1.HorizontalPodAutoscaler, keys ...string) {
	annotations := make(map[string]string, len(hpa.Annotations))
	for k, v := range hpa.Annotations {
		annotations[k] = v
	}
	for _, k := range keys {
		delete(annotations, k)
		if v, ok := old.Annotations[k]; ok {
			annotations[k] = v
		}
	}
	if len(annotations) == 0 {
		annotations = nil
	}
	hpa.Annotations = annotations
}
