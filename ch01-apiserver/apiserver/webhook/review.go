package webhook

import (
	"fmt"

	"kubik/ch01-apiserver/api/admissionv1"
	"kubik/ch01-apiserver/api/metav1"
)

// newReview builds the AdmissionReview v1 sent for one invocation
// (upstream's request.CreateV1AdmissionReview).
func newReview(uid string, a *Attributes, inv *invocation) *admissionv1.AdmissionReview {
	req := &admissionv1.AdmissionRequest{
		UID:                uid,
		Kind:               a.Kind,
		Resource:           inv.resource,
		SubResource:        a.Subresource,
		RequestKind:        &admissionv1.GroupVersionKind{Group: a.Kind.Group, Version: a.Kind.Version, Kind: a.Kind.Kind},
		RequestResource:    &admissionv1.GroupVersionResource{Group: a.Resource.Group, Version: a.Resource.Version, Resource: a.Resource.Resource},
		RequestSubResource: a.Subresource,
		Name:               a.Name,
		Namespace:          a.Namespace,
		Operation:          a.Operation,
		UserInfo:           a.UserInfo,
		Object:             a.Object,
		OldObject:          a.OldObject,
		Options:            a.Options,
	}
	dryRun := a.DryRun
	req.DryRun = &dryRun
	return &admissionv1.AdmissionReview{
		TypeMeta: metav1.TypeMeta{APIVersion: admissionv1.SchemeGroupVersion, Kind: "AdmissionReview"},
		Request:  req,
	}
}

// verifyResponse is upstream's request.VerifyAdmissionResponse for v1.
func verifyResponse(uid string, mutating bool, r *admissionv1.AdmissionReview) (*admissionv1.AdmissionResponse, error) {
	if r.Response == nil {
		return nil, fmt.Errorf("webhook response was absent")
	}
	if r.Response.UID != uid {
		return nil, fmt.Errorf("expected response.uid=%q, got %q", uid, r.Response.UID)
	}
	if r.APIVersion != admissionv1.SchemeGroupVersion || r.Kind != "AdmissionReview" {
		return nil, fmt.Errorf("expected webhook response of admission.k8s.io/v1, Kind=AdmissionReview, got %s", gvkString(r.APIVersion, r.Kind))
	}
	patchType := ""
	if r.Response.PatchType != nil {
		patchType = string(*r.Response.PatchType)
	}
	if patchType != "" {
		if !mutating {
			return nil, fmt.Errorf("validating webhook may not return response.patchType")
		}
		if patchType != string(admissionv1.PatchTypeJSONPatch) {
			return nil, fmt.Errorf("invalid response.patchType %q", patchType)
		}
	} else if len(r.Response.Patch) > 0 {
		if !mutating {
			return nil, fmt.Errorf("validating webhook may not return response.patch")
		}
		return nil, fmt.Errorf("webhook returned response.patch but not response.patchType")
	}
	return r.Response, nil
}

// gvkString is upstream's schema.GroupVersionKind.String ("/, Kind=" when empty).
func gvkString(apiVersion, kind string) string {
	group, version := "", apiVersion
	for i := 0; i < len(apiVersion); i++ {
		if apiVersion[i] == '/' {
			group, version = apiVersion[:i], apiVersion[i+1:]
			break
		}
	}
	return group + "/" + version + ", Kind=" + kind
}
