package validation

import (
	"fmt"
	"math"
	"reflect"
	"strings"

	"kubik/ch01-apiserver/api/corev1"
	"kubik/ch01-apiserver/api/storagev1"
	"kubik/ch01-apiserver/apiserver/validation/field"
)

// storage.k8s.io/v1 validation. Upstream: pkg/apis/storage/validation and
// the Validate/ValidateUpdate of pkg/registry/storage/*/strategy.go, which
// decide which of its functions run on create and on update.

// Upstream's size limits.
const (
	maxProvisionerParameterSize   = 256 * (1 << 10) // 256 kB
	maxProvisionerParameterLen    = 512
	maxAttachedVolumeMetadataSize = 256 * (1 << 10) // 256 kB
	maxVolumeErrorMessageSize     = 1024
	csiNodeIDLongerMaxLength      = 256 // the CSINode strategy allows long node IDs
)

// validateCSIDriverName is upstream's apivalidation.ValidateCSIDriverName:
// a DNS subdomain of at most 63 characters, compared in lower case.
func validateCSIDriverName(name string, fldPath *field.Path) field.ErrorList {
	if name == "" {
		return field.ErrorList{field.Required(fldPath, "")}
	}
	var errs field.ErrorList
	if len(name) > 63 {
		errs = append(errs, field.TooLong(fldPath, "", 63))
	}
	for _, msg := range IsDNS1123Subdomain(strings.ToLower(name)) {
		errs = append(errs, field.Invalid(fldPath, name, msg))
	}
	return errs
}

// --- StorageClass ---

func validateStorageClass(sc *storagev1.StorageClass) field.ErrorList {
	errs := ValidateObjectMeta(&sc.ObjectMeta, false, NameIsDNSSubdomain, field.NewPath("metadata"))
	errs = append(errs, validateProvisioner(sc.Provisioner, field.NewPath("provisioner"))...)
	errs = append(errs, validateStorageParameters(sc.Parameters, field.NewPath("parameters"))...)
	if p := sc.ReclaimPolicy; p != nil && *p != "" && *p != corev1.PersistentVolumeReclaimDelete && *p != corev1.PersistentVolumeReclaimRetain {
		errs = append(errs, field.NotSupported(field.NewPath("reclaimPolicy"), *p,
			[]corev1.PersistentVolumeReclaimPolicy{corev1.PersistentVolumeReclaimDelete, corev1.PersistentVolumeReclaimRetain}))
	}
	switch m := sc.VolumeBindingMode; {
	case m == nil:
		errs = append(errs, field.Required(field.NewPath("volumeBindingMode"), ""))
	case *m != storagev1.VolumeBindingImmediate && *m != storagev1.VolumeBindingWaitForFirstConsumer:
		errs = append(errs, field.NotSupported(field.NewPath("volumeBindingMode"), *m,
			[]storagev1.VolumeBindingMode{storagev1.VolumeBindingImmediate, storagev1.VolumeBindingWaitForFirstConsumer}))
	}
	for i, term := range sc.AllowedTopologies {
		errs = append(errs, validateTopologySelectorTerm(term, field.NewPath("allowedTopologies").Index(i))...)
	}
	return errs
}

// validateStorageClassUpdate is ValidateStorageClassUpdate: what the
// provisioner was given when it created the class's volumes cannot change.
func validateStorageClassUpdate(sc, old *storagev1.StorageClass) field.ErrorList {
	var errs field.ErrorList
	if !reflect.DeepEqual(old.Parameters, sc.Parameters) {
		errs = append(errs, field.Forbidden(field.NewPath("parameters"), "updates to parameters are forbidden."))
	}
	if sc.Provisioner != old.Provisioner {
		errs = append(errs, field.Forbidden(field.NewPath("provisioner"), "updates to provisioner are forbidden."))
	}
	if sc.ReclaimPolicy != nil && old.ReclaimPolicy != nil && *sc.ReclaimPolicy != *old.ReclaimPolicy {
		errs = append(errs, field.Forbidden(field.NewPath("reclaimPolicy"), "updates to reclaimPolicy are forbidden."))
	}
	return append(errs, ValidateImmutableField(sc.VolumeBindingMode, old.VolumeBindingMode, field.NewPath("volumeBindingMode"))...)
}

// validateProvisioner: required, and a qualified name in lower case.
func validateProvisioner(provisioner string, fldPath *field.Path) field.ErrorList {
	if provisioner == "" {
		return field.ErrorList{field.Required(fldPath, "")}
	}
	return validateQualifiedName(strings.ToLower(provisioner), fldPath)
}

// validateStorageParameters is validateParameters with allowEmpty: keys
// non-empty, at most 512 of them and 256 kB in all.
func validateStorageParameters(params map[string]string, fldPath *field.Path) field.ErrorList {
	if len(params) > maxProvisionerParameterLen {
		return field.ErrorList{field.TooLong(fldPath, "", maxProvisionerParameterLen)}
	}
	var errs field.ErrorList
	size := 0
	for _, k := range sortedKeys(params) {
		if k == "" {
			errs = append(errs, field.Invalid(fldPath, k, "field can not be empty."))
		}
		size += len(k) + len(params[k])
	}
	if size > maxProvisionerParameterSize {
		errs = append(errs, field.TooLong(fldPath, "", maxProvisionerParameterSize))
	}
	return errs
}

// validateTopologySelectorTerm is core's ValidateTopologySelectorTerm: each
// expression has a valid key, at least one value, and no repeats.
func validateTopologySelectorTerm(term corev1.TopologySelectorTerm, fldPath *field.Path) field.ErrorList {
	var errs field.ErrorList
	keys := map[string]bool{}
	for i, req := range term.MatchLabelExpressions {
		idx := fldPath.Child("matchLabelExpressions").Index(i)
		if len(req.Values) == 0 {
			errs = append(errs, field.Required(idx.Child("values"), ""))
		}
		seen := map[string]bool{}
		for j, v := range req.Values {
			if seen[v] {
				errs = append(errs, field.Duplicate(idx.Child("values").Index(j), v))
			}
			seen[v] = true
		}
		errs = append(errs, ValidateLabelName(req.Key, idx.Child("key"))...)
		if keys[req.Key] {
			errs = append(errs, field.Duplicate(idx.Child("key"), req.Key))
		}
		keys[req.Key] = true
	}
	return errs
}

// --- CSIDriver ---

func validateCSIDriver(d *storagev1.CSIDriver) field.ErrorList {
	errs := ValidateObjectMeta(&d.ObjectMeta, false, NameIsDNSSubdomain, field.NewPath("metadata"))
	return append(errs, validateCSIDriverSpec(&d.Spec, field.NewPath("spec"))...)
}

// validateCSIDriverUpdate: the spec is checked again, and whether the driver
// needs attaching and which volume kinds it serves cannot change (the
// "attachedRequired" path is upstream's spelling).
func validateCSIDriverUpdate(d, old *storagev1.CSIDriver) field.ErrorList {
	errs := validateCSIDriverSpec(&d.Spec, field.NewPath("spec"))
	errs = append(errs, ValidateImmutableField(d.Spec.AttachRequired, old.Spec.AttachRequired, field.NewPath("spec", "attachedRequired"))...)
	return append(errs, ValidateImmutableField(d.Spec.VolumeLifecycleModes, old.Spec.VolumeLifecycleModes, field.NewPath("spec", "volumeLifecycleModes"))...)
}

func validateCSIDriverSpec(s *storagev1.CSIDriverSpec, fldPath *field.Path) field.ErrorList {
	var errs field.ErrorList
	// The booleans are defaulted, so they are missing only when a client
	// removed them on update.
	for _, b := range []struct {
		name string
		v    *bool
	}{{"attachedRequired", s.AttachRequired}, {"podInfoOnMount", s.PodInfoOnMount}, {"storageCapacity", s.StorageCapacity}} {
		if b.v == nil {
			errs = append(errs, field.Required(fldPath.Child(b.name), ""))
		}
	}
	if p := s.FSGroupPolicy; p != nil && *p != storagev1.FileFSGroupPolicy && *p != storagev1.NoneFSGroupPolicy && *p != storagev1.ReadWriteOnceWithFSTypeFSGroupPolicy {
		errs = append(errs, field.NotSupported(fldPath.Child("fsGroupPolicy"), *p,
			[]storagev1.FSGroupPolicy{storagev1.FileFSGroupPolicy, storagev1.NoneFSGroupPolicy, storagev1.ReadWriteOnceWithFSTypeFSGroupPolicy}))
	}
	errs = append(errs, validateTokenRequests(s.TokenRequests, fldPath.Child("tokenRequests"))...)
	for _, m := range s.VolumeLifecycleModes {
		if m != storagev1.VolumeLifecyclePersistent && m != storagev1.VolumeLifecycleEphemeral {
			errs = append(errs, field.NotSupported(fldPath.Child("volumeLifecycleModes"), m,
				[]storagev1.VolumeLifecycleMode{storagev1.VolumeLifecyclePersistent, storagev1.VolumeLifecycleEphemeral}))
		}
	}
	if s.SELinuxMount == nil {
		errs = append(errs, field.Required(fldPath.Child("seLinuxMount"), ""))
	}
	if p := s.NodeAllocatableUpdatePeriodSeconds; p != nil && *p < 10 {
		errs = append(errs, field.Invalid(fldPath.Child("nodeAllocatableUpdatePeriodSeconds"), *p, "must be greater than or equal to 10 seconds"))
	}
	if s.ServiceAccountTokenInSecrets != nil && len(s.TokenRequests) == 0 {
		errs = append(errs, field.Invalid(fldPath.Child("serviceAccountTokenInSecrets"), *s.ServiceAccountTokenInSecrets,
			"serviceAccountTokenInSecrets is set but no tokenRequests are specified"))
	}
	return errs
}

// validateTokenRequests: one request per audience, each valid 10 minutes to 2^32 seconds.
func validateTokenRequests(reqs []storagev1.TokenRequest, fldPath *field.Path) field.ErrorList {
	var errs field.ErrorList
	audiences := map[string]bool{}
	for i, r := range reqs {
		path := fldPath.Index(i)
		if audiences[r.Audience] {
			errs = append(errs, field.Duplicate(path.Child("audience"), r.Audience))
			continue
		}
		audiences[r.Audience] = true
		if r.ExpirationSeconds == nil {
			continue
		}
		if *r.ExpirationSeconds < 600 {
			errs = append(errs, field.Invalid(path.Child("expirationSeconds"), *r.ExpirationSeconds, "may not specify a duration less than 10 minutes"))
		}
		if *r.ExpirationSeconds > 1<<32 {
			errs = append(errs, field.Invalid(path.Child("expirationSeconds"), *r.ExpirationSeconds, "may not specify a duration larger than 2^32 seconds"))
		}
	}
	return errs
}

// --- CSINode ---

// validateCSINode: the name is the node's, and every driver is listed once
// with a node ID and valid topology keys.
func validateCSINode(n *storagev1.CSINode) field.ErrorList {
	errs := ValidateObjectMeta(&n.ObjectMeta, false, NameIsDNSSubdomain, field.NewPath("metadata"))
	names := map[string]bool{}
	for i, d := range n.Spec.Drivers {
		path := field.NewPath("spec", "drivers").Index(i)
		errs = append(errs, validateCSIDriverName(d.Name, path.Child("name"))...)
		if d.NodeID == "" {
			errs = append(errs, field.Required(path.Child("nodeID"), ""))
		}
		if len(d.NodeID) > csiNodeIDLongerMaxLength {
			errs = append(errs, field.Invalid(path.Child("nodeID"), d.NodeID, fmt.Sprintf("must be %d characters or less", csiNodeIDLongerMaxLength)))
		}
		if d.Allocatable != nil && d.Allocatable.Count != nil {
			errs = append(errs, ValidateNonnegativeField(int64(*d.Allocatable.Count), path.Child("allocatable", "count"))...)
		}
		if names[d.Name] {
			errs = append(errs, field.Duplicate(path.Child("name"), d.Name))
		}
		names[d.Name] = true
		keys := map[string]bool{}
		for _, k := range d.TopologyKeys {
			if k == "" {
				errs = append(errs, field.Required(path, ""))
			}
			if keys[k] {
				errs = append(errs, field.Duplicate(path, k))
			}
			keys[k] = true
			errs = append(errs, validateQualifiedName(k, path)...)
		}
	}
	return errs
}

// validateCSINodeUpdate: a driver entry that stays may change only its
// allocatable count (MutableCSINodeAllocatableCount is on in 1.35).
func validateCSINodeUpdate(n, old *storagev1.CSINode) field.ErrorList {
	var errs field.ErrorList
	for _, od := range old.Spec.Drivers {
		for _, nd := range n.Spec.Drivers {
			if od.Name == nd.Name {
				od.Allocatable, nd.Allocatable = nil, nil // copies: the objects are untouched
				errs = append(errs, ValidateImmutableField(nd, od, field.NewPath("spec", "drivers"))...)
			}
		}
	}
	return errs
}

// --- CSIStorageCapacity ---

func validateCSIStorageCapacity(c *storagev1.CSIStorageCapacity) field.ErrorList {
	errs := ValidateObjectMeta(&c.ObjectMeta, true, NameIsDNSSubdomain, field.NewPath("metadata"))
	errs = append(errs, ValidateLabelSelector(c.NodeTopology, field.NewPath("nodeTopology"))...)
	for _, msg := range NameIsDNSSubdomain(c.StorageClassName, false) {
		errs = append(errs, field.Invalid(field.NewPath("storageClassName"), c.StorageClassName, msg))
	}
	if c.Capacity != nil && c.Capacity.Sign() < 0 {
		errs = append(errs, field.Invalid(field.NewPath("capacity"), c.Capacity.String(), IsNegativeErrorMsg))
	}
	return errs
}

// validateCSIStorageCapacityUpdate: the inputs of the CSI GetCapacity call are immutable.
func validateCSIStorageCapacityUpdate(c, old *storagev1.CSIStorageCapacity) field.ErrorList {
	var errs field.ErrorList
	if !semanticEqual(c.NodeTopology, old.NodeTopology) {
		errs = append(errs, field.Invalid(field.NewPath("nodeTopology"), c.NodeTopology, FieldImmutableErrorMsg))
	}
	if c.StorageClassName != old.StorageClassName {
		errs = append(errs, field.Invalid(field.NewPath("storageClassName"), c.StorageClassName, FieldImmutableErrorMsg))
	}
	return errs
}

// --- VolumeAttachment ---

// validateVolumeAttachment is ValidateVolumeAttachment (create and update).
// The inline volume spec itself is not validated here.
func validateVolumeAttachment(va *storagev1.VolumeAttachment) field.ErrorList {
	errs := ValidateObjectMeta(&va.ObjectMeta, false, NameIsDNSSubdomain, field.NewPath("metadata"))
	spec := field.NewPath("spec")
	if va.Spec.Attacher == "" {
		errs = append(errs, field.Required(spec.Child("attacher"), ""))
	}
	src, source := va.Spec.Source, spec.Child("source")
	switch {
	case src.InlineVolumeSpec == nil && src.PersistentVolumeName == nil:
		errs = append(errs, field.Required(source, "must specify exactly one of inlineVolumeSpec and persistentVolumeName"))
	case src.InlineVolumeSpec != nil && src.PersistentVolumeName != nil:
		errs = append(errs, field.Forbidden(source, "must specify exactly one of inlineVolumeSpec and persistentVolumeName"))
	case src.PersistentVolumeName != nil && *src.PersistentVolumeName == "":
		errs = append(errs, field.Required(source.Child("persistentVolumeName"), "must specify non empty persistentVolumeName"))
	}
	for _, msg := range NameIsDNSSubdomain(va.Spec.NodeName, false) {
		errs = append(errs, field.Invalid(spec.Child("nodeName"), va.Spec.NodeName, msg))
	}
	status := field.NewPath("status")
	size := 0
	for k, v := range va.Status.AttachmentMetadata {
		size += len(k) + len(v)
	}
	if size > maxAttachedVolumeMetadataSize {
		errs = append(errs, field.TooLong(status.Child("attachmentMetadata"), "", maxAttachedVolumeMetadataSize))
	}
	for _, ve := range []struct {
		name string
		e    *storagev1.VolumeError
	}{{"attachError", va.Status.AttachError}, {"detachError", va.Status.DetachError}} {
		name, e := ve.name, ve.e
		if e == nil {
			continue
		}
		if len(e.Message) > maxVolumeErrorMessageSize {
			// Upstream reports the metadata limit here, not the message limit.
			errs = append(errs, field.TooLong(status.Child(name, "message"), "", maxAttachedVolumeMetadataSize))
		}
		if e.ErrorCode != nil && *e.ErrorCode < 0 {
			errs = append(errs, field.Invalid(status.Child(name, "errorCode"), *e.ErrorCode, InclusiveRangeError(0, math.MaxInt32)))
		}
	}
	return errs
}

// validateVolumeAttachmentV1 is ValidateVolumeAttachmentV1, the stricter
// checks of newly created v1 attachments: the attacher is a CSI driver name
// and the volume name a valid PersistentVolume name.
func validateVolumeAttachmentV1(va *storagev1.VolumeAttachment) field.ErrorList {
	errs := validateCSIDriverName(va.Spec.Attacher, field.NewPath("spec.attacher"))
	if pv := va.Spec.Source.PersistentVolumeName; pv != nil {
		for _, msg := range NameIsDNSSubdomain(*pv, false) {
			errs = append(errs, field.Invalid(field.NewPath("spec.source.persistentVolumeName"), *pv, msg))
		}
	}
	return errs
}

// validateVolumeAttachmentUpdate: the spec is read-only; only status changes.
func validateVolumeAttachmentUpdate(va, old *storagev1.VolumeAttachment) field.ErrorList {
	errs := validateVolumeAttachment(va)
	if !semanticEqual(va.Spec, old.Spec) {
		errs = append(errs, field.Invalid(field.NewPath("spec"), va.Spec, FieldImmutableErrorMsg))
	}
	return errs
}

// --- VolumeAttributesClass ---

// validateVolumeAttributesClass is ValidateVolumeAttributesClass: the
// driver is named as a StorageClass's provisioner is, and the parameters
// follow a StorageClass's rules but may not be empty.
func validateVolumeAttributesClass(vac *storagev1.VolumeAttributesClass) field.ErrorList {
	errs := ValidateObjectMeta(&vac.ObjectMeta, false, NameIsDNSSubdomain, field.NewPath("metadata"))
	errs = append(errs, validateProvisioner(vac.DriverName, field.NewPath("driverName"))...)
	errs = append(errs, validateStorageParameters(vac.Parameters, field.NewPath("parameters"))...)
	if len(vac.Parameters) == 0 {
		errs = append(errs, field.Required(field.NewPath("parameters"), "must contain at least one key/value pair"))
	}
	return errs
}

// validateVolumeAttributesClassUpdate is ValidateVolumeAttributesClassUpdate:
// the volumes made with the class were given its driver and parameters, so
// neither may change.
func validateVolumeAttributesClassUpdate(vac, old *storagev1.VolumeAttributesClass) field.ErrorList {
	var errs field.ErrorList
	if vac.DriverName != old.DriverName {
		errs = append(errs, field.Forbidden(field.NewPath("driverName"), "updates to driverName are forbidden."))
	}
	if !reflect.DeepEqual(vac.Parameters, old.Parameters) && (len(vac.Parameters) > 0 || len(old.Parameters) > 0) {
		errs = append(errs, field.Forbidden(field.NewPath("parameters"), "updates to parameters are forbidden."))
	}
	return errs
}
