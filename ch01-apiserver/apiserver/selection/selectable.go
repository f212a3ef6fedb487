package selection

import (
	"fmt"
	"strconv"
	"strings"

	"kubik/ch01-apiserver/api/appsv1"
	"kubik/ch01-apiserver/api/batchv1"
	"kubik/ch01-apiserver/api/certificatesv1"
	"kubik/ch01-apiserver/api/corev1"
	"kubik/ch01-apiserver/api/eventsv1"
	"kubik/ch01-apiserver/api/metav1"
	"kubik/ch01-apiserver/api/resourcev1"
)

// SelectableFields returns the fields a field selector can test on obj, as
// upstream's GetAttrs/ToSelectableFields in pkg/registry/*/strategy.go:
// metadata.name for every kind, metadata.namespace for namespaced objects,
// and a few fields per kind.
func SelectableFields(obj metav1.Object) map[string]string {
	meta := obj.GetObjectMeta()
	set := map[string]string{"metadata.name": meta.Name}
	if meta.Namespace != "" {
		set["metadata.namespace"] = meta.Namespace
	}
	// events.k8s.io Events live in the core Event storage and are selected
	// by the core field names.
	if ev, ok := obj.(*eventsv1.Event); ok {
		obj = eventsv1.ToCore(ev)
	}
	switch o := obj.(type) {
	case *corev1.Pod:
		set["spec.nodeName"] = o.Spec.NodeName
		set["spec.restartPolicy"] = string(o.Spec.RestartPolicy)
		set["spec.schedulerName"] = o.Spec.SchedulerName
		set["spec.serviceAccountName"] = o.Spec.ServiceAccountName
		set["spec.hostNetwork"] = strconv.FormatBool(o.Spec.HostNetwork)
		set["status.phase"] = string(o.Status.Phase)
		// Upstream reads the primary IP from podIPs; status.podIPs is an
		// accepted label without a value of its own.
		podIP := o.Status.PodIP
		if len(o.Status.PodIPs) > 0 {
			podIP = o.Status.PodIPs[0].IP
		}
		set["status.podIP"] = podIP
		set["status.nominatedNodeName"] = o.Status.NominatedNodeName
	case *corev1.Node:
		set["spec.unschedulable"] = strconv.FormatBool(o.Spec.Unschedulable)
	case *corev1.Namespace:
		set["status.phase"] = string(o.Status.Phase)
	case *corev1.Secret:
		set["type"] = string(o.Type)
	case *corev1.Service:
		set["spec.clusterIP"] = o.Spec.ClusterIP
		set["spec.type"] = string(o.Spec.Type)
	case *corev1.Event:
		source := o.Source.Component
		if source == "" {
			source = o.ReportingController
		}
		set["involvedObject.kind"] = o.InvolvedObject.Kind
		set["involvedObject.namespace"] = o.InvolvedObject.Namespace
		set["involvedObject.name"] = o.InvolvedObject.Name
		set["involvedObject.uid"] = string(o.InvolvedObject.UID)
		set["involvedObject.apiVersion"] = o.InvolvedObject.APIVersion
		set["involvedObject.resourceVersion"] = o.InvolvedObject.ResourceVersion
		set["involvedObject.fieldPath"] = o.InvolvedObject.FieldPath
		set["reason"] = o.Reason
		set["reportingComponent"] = o.ReportingController
		set["source"] = source
		set["type"] = o.Type
	case *appsv1.ReplicaSet:
		set["status.replicas"] = strconv.Itoa(int(o.Status.Replicas))
	case *batchv1.Job:
		set["status.successful"] = strconv.Itoa(int(o.Status.Succeeded))
	case *certificatesv1.CertificateSigningRequest:
		set["spec.signerName"] = o.Spec.SignerName
	case *resourcev1.ResourceSlice:
		set["spec.nodeName"] = ""
		if o.Spec.NodeName != nil {
			set["spec.nodeName"] = *o.Spec.NodeName
		}
		set["spec.driver"] = o.Spec.Driver
	}
	return set
}

// fieldLabels lists, per resource, the field labels upstream registers with
// AddFieldLabelConversionFunc (pkg/apis/*/v1/conversion.go). Resources
// that are not listed accept only metadata.name and metadata.namespace.
// The key is the plural resource, qualified with its group when not core.
var fieldLabels = map[string][]string{
	"pods": {
		"metadata.name", "metadata.namespace",
		"spec.nodeName", "spec.restartPolicy", "spec.schedulerName", "spec.serviceAccountName", "spec.hostNetwork",
		"status.phase", "status.podIP", "status.podIPs", "status.nominatedNodeName",
	},
	"nodes":                  {"metadata.name", "spec.unschedulable"},
	"replicationcontrollers": {"metadata.name", "metadata.namespace", "status.replicas"},
	"events": {
		"involvedObject.kind", "involvedObject.namespace", "involvedObject.name", "involvedObject.uid",
		"involvedObject.apiVersion", "involvedObject.resourceVersion", "involvedObject.fieldPath",
		"reason", "reportingComponent", "source", "type", "metadata.namespace", "metadata.name",
	},
	"namespaces":       {"status.phase", "metadata.name"},
	"secrets":          {"type", "metadata.namespace", "metadata.name"},
	"services":         {"metadata.namespace", "metadata.name", "spec.clusterIP", "spec.type"},
	"replicasets.apps": {"metadata.name", "metadata.namespace", "status.replicas"},
	"jobs.batch":       {"metadata.name", "metadata.namespace", "status.successful"},
	"certificatesigningrequests.certificates.k8s.io": {"metadata.name", "spec.signerName"},
	// A kubelet's DRA plugin lists the slices of its node and driver.
	"resourceslices.resource.k8s.io": {"metadata.name", "spec.nodeName", "spec.driver"},
}

// fieldLabelKinds: resources whose unsupported-field error names the kind,
// as their conversion funcs word it upstream.
var fieldLabelKinds = map[string]string{
	"resourceslices.resource.k8s.io": "resource.k8s.io/v1, Kind=ResourceSlice",
}

// eventsV1Labels maps the events.k8s.io names of Event fields to the core
// names the shared Event storage is filtered by.
var eventsV1Labels = map[string]string{
	"regarding.kind":            "involvedObject.kind",
	"regarding.namespace":       "involvedObject.namespace",
	"regarding.name":            "involvedObject.name",
	"regarding.uid":             "involvedObject.uid",
	"regarding.apiVersion":      "involvedObject.apiVersion",
	"regarding.resourceVersion": "involvedObject.resourceVersion",
	"regarding.fieldPath":       "involvedObject.fieldPath",
	"reportingController":       "reportingComponent",
}

// ConvertFieldSelector checks every field of sel against what resource
// supports and rewrites legacy names (spec.host of pods is spec.nodeName;
// events.k8s.io names map to core Event fields). resource is the plural
// name, with ".group" for a non-core group ("replicasets.apps"). The error
// is upstream's, for a 400 BadRequest.
func ConvertFieldSelector(resource string, sel FieldSelector) (FieldSelector, error) {
	out := FieldSelector{terms: make([]FieldRequirement, 0, len(sel.terms))}
	for _, t := range sel.terms {
		field, err := convertFieldLabel(resource, t.Field)
		if err != nil {
			return FieldSelector{}, err
		}
		t.Field = field
		out.terms = append(out.terms, t)
	}
	return out, nil
}

// ValidateFieldSelector reports the first field sel uses that resource does
// not support, e.g. "field label not supported: spec.foo" for pods.
func ValidateFieldSelector(resource string, sel FieldSelector) error {
	_, err := ConvertFieldSelector(resource, sel)
	return err
}

func convertFieldLabel(resource, label string) (string, error) {
	if resource == "pods" && label == "spec.host" {
		return "spec.nodeName", nil // old v1 clients
	}
	if resource == "events.events.k8s.io" {
		if core, ok := eventsV1Labels[label]; ok {
			return core, nil
		}
		resource = "events"
	}
	allowed, ok := fieldLabels[strings.TrimSuffix(resource, ".core")]
	if !ok {
		// runtime.DefaultMetaV1FieldSelectorConversion
		if label == "metadata.name" || label == "metadata.namespace" {
			return label, nil
		}
		return "", fmt.Errorf("%q is not a known field selector: only %q, %q", label, "metadata.name", "metadata.namespace")
	}
	for _, a := range allowed {
		if a == label {
			return label, nil
		}
	}
	if kind, ok := fieldLabelKinds[resource]; ok {
		return "", fmt.Errorf("field label not supported for %s: %s", kind, label)
	}
	return "", fmt.Errorf("field label not supported: %s", label)
}
