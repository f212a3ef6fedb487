package apiserver

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"

	apiextensionsv1 "kubik/ch01-apiserver/api/apiextensionsv1"
	"kubik/ch01-apiserver/api/autoscalingv1"
	"kubik/ch01-apiserver/api/metav1"
	"kubik/ch01-apiserver/api/scheme"
	"kubik/ch01-apiserver/apiserver/apiextensions"
	"kubik/ch01-apiserver/apiserver/serializer"
	"kubik/ch01-apiserver/apiserver/validation"
	"kubik/ch01-apiserver/apiserver/validation/field"
)

// Custom resources: where the generic REST code meets the CRDs. A served
// custom resource is a scheme.Resource like any other, but it comes from
// this server's registry (s.crds, filled by the controllers in
// crdcontrollers.go) instead of the static table, its objects are
// apiextensions.Unstructured, and its schema takes the place of a Go type:
// pruning and defaulting when a body is decoded, validation before it is
// stored, Table columns from additionalPrinterColumns. Upstream:
// apiextensions-apiserver's customresource_handler.go and
// pkg/registry/customresource.

var crdResource = scheme.Lookup(apiextensionsv1.GroupName, "v1", "customresourcedefinitions")

// lookupResource finds a built-in resource, then a custom one.
func (s *Server) lookupResource(group, version, resource string) *scheme.Resource {
	if r := scheme.Lookup(group, version, resource); r != nil {
		return r
	}
	return s.crds.Lookup(group, version, resource)
}

// allResources is the static table followed by the served custom resources.
func (s *Server) allResources() []*scheme.Resource {
	custom := s.crds.Resources()
	if len(custom) == 0 {
		return scheme.Resources
	}
	return append(append(make([]*scheme.Resource, 0, len(scheme.Resources)+len(custom)), scheme.Resources...), custom...)
}

// checkCustomRequest refuses what upstream's handler refuses before any
// verb runs: creates while the CRD is terminating, protobuf bodies.
func (s *Server) checkCustomRequest(q *request) error {
	cr := q.custom
	if cr == nil {
		return nil
	}
	// Kubik calls no conversion webhooks: a version other than the storage
	// version of such a CRD fails as a webhook that cannot be reached fails upstream.
	if c := cr.CRD.Spec.Conversion; c != nil && c.Strategy == apiextensionsv1.WebhookConverter {
		if storage := apiextensionsv1.StorageVersion(cr.CRD); q.res.Version != storage {
			return ErrInternal(fmt.Errorf("conversion webhook for %s/%s, Kind=%s failed: webhook conversion is not supported by this apiserver",
				q.res.Group, storage, q.res.Kind))
		}
	}
	if cr.Version.Deprecated {
		warning := fmt.Sprintf("%s/%s %s is deprecated", q.res.Group, q.res.Version, q.res.Kind)
		if w := cr.Version.DeprecationWarning; w != nil {
			warning = *w
		}
		addWarning(q.w, warning)
	}
	if ct, _ := bodyType(q.r); ct == mediaProtobuf && (q.info.Verb == "create" || q.info.Verb == "update") {
		return ErrUnsupportedMediaType(ct, []string{mediaJSON, mediaYAML})
	}
	if q.info.Verb == "patch" && patchType(q.r) == patchStrategic {
		return ErrUnsupportedMediaType(patchStrategic, []string{patchJSON, patchMerge, patchApply})
	}
	return nil
}

// checkCustomCreate refuses new objects of a CRD that is being deleted.
func checkCustomCreate(q *request, obj metav1.Object) error {
	if q.custom == nil || !apiextensionsv1.IsCRDConditionTrue(q.custom.CRD, apiextensionsv1.Terminating) {
		return nil
	}
	return ErrForbidden(q.res.Group, q.res.Resource, q.res.GroupResource(), obj.GetObjectMeta().Name,
		errors.New("create not allowed while custom resource definition is terminating"))
}

// decodeCustom finishes decoding a custom object: the embedded
// resources' kinds, pruning (the pruned paths are strict decoding errors)
// and defaulting.
func (s *Server) decodeCustom(cr *apiextensions.Served, data []byte, u *apiextensions.Unstructured) (serializer.StrictErrors, error) {
	var strict serializer.StrictErrors
	if raw, err := apiextensions.DecodeObject(data); err == nil {
		if md, ok := raw["metadata"].(map[string]any); ok {
			for _, f := range apiextensions.UnknownMetadataFields(md, "metadata.") {
				strict = append(strict, fmt.Sprintf("unknown field %q", f))
			}
		}
	}
	if errs := apiextensions.ValidateEmbeddedTypes(u.Object, cr.Schema); len(errs) > 0 {
		return nil, fmt.Errorf("%s", validation.AggregateMessage(errs))
	}
	for _, f := range apiextensions.Prune(u.Object, cr.Schema) {
		strict = append(strict, fmt.Sprintf("unknown field %q", f))
	}
	apiextensions.Default(u.Object, cr.Schema)
	return strict, nil
}

// prepareCustomForCreate: no status from the client when /status exists.
func prepareCustomForCreate(res *scheme.Resource, u *apiextensions.Unstructured) {
	if hasStatusSubresource(res) {
		delete(u.Object, "status")
	}
}

// prepareCustomForUpdate is upstream's customresource strategy: /status
// changes only the status, the main resource everything but the status
// (when /status exists); any change outside metadata bumps the generation.
func prepareCustomForUpdate(res *scheme.Resource, u, old *apiextensions.Unstructured, subresource string) {
	statusEnabled := hasStatusSubresource(res)
	switch {
	case subresource == "status":
		status, ok := u.Object["status"]
		rv, managed := u.ResourceVersion, u.ManagedFields
		cp := metav1.DeepCopyObject(old).(*apiextensions.Unstructured)
		*u = *cp
		u.ResourceVersion, u.ManagedFields = rv, managed
		if ok {
			u.Object["status"] = status
		} else {
			delete(u.Object, "status")
		}
		return
	case statusEnabled:
		if st, ok := old.Object["status"]; ok {
			u.Object["status"] = apiextensions.DeepCopyJSON(st)
		} else {
			delete(u.Object, "status")
		}
	}
	a, _ := json.Marshal(u.Object)
	b, _ := json.Marshal(old.Object)
	if string(a) != string(b) {
		u.Generation = old.Generation + 1
	}
}

// validateExtensions validates CRDs and custom objects; ok is false for other kinds.
func (s *Server) validateExtensions(res *scheme.Resource, obj, old metav1.Object, subresource string) (field.ErrorList, bool) {
	switch o := obj.(type) {
	case *apiextensionsv1.CustomResourceDefinition:
		switch {
		case old == nil:
			return apiextensions.ValidateCustomResourceDefinition(o), true
		case subresource == "status":
			return apiextensions.ValidateCustomResourceDefinitionStatusUpdate(o, old.(*apiextensionsv1.CustomResourceDefinition)), true
		}
		return apiextensions.ValidateCustomResourceDefinitionUpdate(o, old.(*apiextensionsv1.CustomResourceDefinition)), true
	case *apiextensions.Unstructured:
		cr := s.crds.Served(res)
		if cr == nil {
			return nil, true
		}
		var errs field.ErrorList
		if old == nil {
			errs = validation.ValidateObjectMeta(&o.ObjectMeta, res.Namespaced, validation.NameIsDNSSubdomain, field.NewPath("metadata"))
		} else {
			errs = validation.ValidateObjectMetaUpdate(&o.ObjectMeta, old.GetObjectMeta(), field.NewPath("metadata"))
		}
		errs = append(errs, apiextensions.ValidateValues(o.Object, cr.Schema)...)
		if cr.CEL != nil {
			var oldU *apiextensions.Unstructured
			if old != nil {
				oldU, _ = old.(*apiextensions.Unstructured)
			}
			errs = append(errs, cr.CEL.ValidateObject(errs, o, oldU)...)
		}
		errs = append(errs, cr.ValidateScale(o, subresource == "status")...)
		return errs, true
	}
	return nil, false
}

// prepareCRDForCreate: defaults, and the storage version recorded as stored.
func prepareCRDForCreate(crd *apiextensionsv1.CustomResourceDefinition) {
	apiextensions.SetDefaults(crd)
	crd.Status = apiextensionsv1.CustomResourceDefinitionStatus{}
	if v := apiextensionsv1.StorageVersion(crd); v != "" {
		crd.Status.StoredVersions = []string{v}
	}
}

// prepareCRDForUpdate: a new storage version joins status.storedVersions.
func prepareCRDForUpdate(crd *apiextensionsv1.CustomResourceDefinition) {
	if v := apiextensionsv1.StorageVersion(crd); v != "" && !slices.Contains(crd.Status.StoredVersions, v) {
		crd.Status.StoredVersions = append(crd.Status.StoredVersions, v)
	}
}

// customTable renders the Table of a custom resource (ok false for other kinds).
func (s *Server) customTable(q *request, objs []metav1.Object, listMeta metav1.ListMeta, noHeaders bool) (*metav1.Table, bool, error) {
	cr := q.custom
	if cr == nil {
		return nil, false, nil
	}
	t, err := cr.Table(objs, listMeta, q.query("includeObject"), noHeaders)
	if err != nil {
		return nil, true, ErrInternal(err)
	}
	return t, true, nil
}

// customFieldSelector checks a field selector against the CRD's selectable
// fields and returns the matcher (nil for other kinds).
func customFieldSelector(q *request, opts *listOptions) (func(metav1.Object) map[string]string, error) {
	cr := q.custom
	for _, r := range opts.Fields.Requirements() {
		if !cr.HasSelectableField(r.Field) {
			return nil, ErrBadRequest("field label not supported: " + r.Field)
		}
	}
	return func(o metav1.Object) map[string]string {
		if u, ok := o.(*apiextensions.Unstructured); ok {
			return cr.SelectableFields(u)
		}
		return nil
	}, nil
}

// customScale serves GET .../scale of a custom resource.
func (s *Server) customScale(cr *apiextensions.Served, obj metav1.Object) (*autoscalingv1.Scale, error) {
	sc, err := cr.ScaleOf(obj.(*apiextensions.Unstructured))
	if err != nil {
		return nil, ErrInternal(err)
	}
	return sc, nil
}

// startCRDDeletion is the CRD registry's Delete: the first delete sets the
// deletion timestamp, the cleanup finalizer and the Terminating condition;
// the finalizer controller then deletes every custom object and the CRD.
func startCRDDeletion(crd *apiextensionsv1.CustomResourceDefinition) {
	if !slices.Contains(crd.Finalizers, apiextensionsv1.CustomResourceCleanupFinalizer) {
		crd.Finalizers = append(crd.Finalizers, apiextensionsv1.CustomResourceCleanupFinalizer)
	}
	apiextensionsv1.SetCRDCondition(crd, apiextensionsv1.CustomResourceDefinitionCondition{
		Type: apiextensionsv1.Terminating, Status: apiextensionsv1.ConditionTrue, Reason: "InstanceDeletionPending",
		Message: "CustomResourceDefinition marked for deletion; CustomResource deletion will begin soon",
	})
}
