package validation

import (
	"fmt"
	"reflect"
	"sort"
	"strings"

	"kubik/ch01-apiserver/api/metav1"
	"kubik/ch01-apiserver/apiserver/validation/field"
)

// FieldImmutableErrorMsg is the detail of every "cannot change" error.
const FieldImmutableErrorMsg = "field is immutable"

// IsNegativeErrorMsg is the detail for a negative count or duration.
const IsNegativeErrorMsg = "must be greater than or equal to 0"

// TotalAnnotationSizeLimitB caps the sum of annotation keys and values.
const TotalAnnotationSizeLimitB = 256 * (1 << 10)

// sortedKeys makes map validation report errors in a stable order.
func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// ValidateObjectMeta checks the metadata of a new object: a name (or a
// generateName), the namespace for namespaced kinds only, labels,
// annotations, owner references and finalizers.
func ValidateObjectMeta(meta *metav1.ObjectMeta, namespaced bool, nameFn func(string, bool) []string, fldPath *field.Path) field.ErrorList {
	var errs field.ErrorList
	if meta.GenerateName != "" {
		for _, msg := range nameFn(meta.GenerateName, true) {
			errs = append(errs, field.Invalid(fldPath.Child("generateName"), meta.GenerateName, msg))
		}
	}
	if meta.Name == "" {
		errs = append(errs, field.Required(fldPath.Child("name"), "name or generateName is required"))
	} else {
		for _, msg := range nameFn(meta.Name, false) {
			errs = append(errs, field.Invalid(fldPath.Child("name"), meta.Name, msg))
		}
	}
	if namespaced {
		if meta.Namespace == "" {
			errs = append(errs, field.Required(fldPath.Child("namespace"), ""))
		} else {
			for _, msg := range NameIsDNSLabel(meta.Namespace, false) {
				errs = append(errs, field.Invalid(fldPath.Child("namespace"), meta.Namespace, msg))
			}
		}
	} else if meta.Namespace != "" {
		errs = append(errs, field.Forbidden(fldPath.Child("namespace"), "not allowed on this type"))
	}
	errs = append(errs, ValidateNonnegativeField(meta.Generation, fldPath.Child("generation"))...)
	errs = append(errs, ValidateLabels(meta.Labels, fldPath.Child("labels"))...)
	errs = append(errs, ValidateAnnotations(meta.Annotations, fldPath.Child("annotations"))...)
	errs = append(errs, validateOwnerReferences(meta.OwnerReferences, fldPath.Child("ownerReferences"))...)
	errs = append(errs, validateFinalizers(meta.Finalizers, fldPath.Child("finalizers"))...)
	errs = append(errs, validateManagedFields(meta.ManagedFields, fldPath.Child("managedFields"))...)
	return errs
}

// ValidateObjectMetaUpdate checks metadata changes: identity fields are
// immutable, an update names the resourceVersion it read, and a deleting
// object may gain no finalizers.
func ValidateObjectMetaUpdate(newMeta, oldMeta *metav1.ObjectMeta, fldPath *field.Path) field.ErrorList {
	var errs field.ErrorList
	if oldMeta.DeletionTimestamp != nil {
		old := map[string]bool{}
		for _, f := range oldMeta.Finalizers {
			old[f] = true
		}
		var extra []string
		for _, f := range newMeta.Finalizers {
			if !old[f] {
				extra = append(extra, f)
			}
		}
		if len(extra) > 0 {
			sort.Strings(extra)
			errs = append(errs, field.Forbidden(fldPath.Child("finalizers"),
				fmt.Sprintf("no new finalizers can be added if the object is being deleted, found new finalizers %#v", extra)))
		}
	}
	if newMeta.ResourceVersion == "" {
		errs = append(errs, field.Invalid(fldPath.Child("resourceVersion"), newMeta.ResourceVersion, "must be specified for an update"))
	}
	if newMeta.Generation < oldMeta.Generation {
		errs = append(errs, field.Invalid(fldPath.Child("generation"), newMeta.Generation, "must not be decremented"))
	}
	errs = append(errs, ValidateImmutableField(newMeta.Name, oldMeta.Name, fldPath.Child("name"))...)
	errs = append(errs, ValidateImmutableField(newMeta.Namespace, oldMeta.Namespace, fldPath.Child("namespace"))...)
	errs = append(errs, ValidateImmutableField(newMeta.UID, oldMeta.UID, fldPath.Child("uid"))...)
	errs = append(errs, ValidateImmutableField(newMeta.CreationTimestamp, oldMeta.CreationTimestamp, fldPath.Child("creationTimestamp"))...)
	errs = append(errs, ValidateImmutableField(newMeta.DeletionTimestamp, oldMeta.DeletionTimestamp, fldPath.Child("deletionTimestamp"))...)
	errs = append(errs, ValidateImmutableField(newMeta.DeletionGracePeriodSeconds, oldMeta.DeletionGracePeriodSeconds, fldPath.Child("deletionGracePeriodSeconds"))...)
	errs = append(errs, ValidateLabels(newMeta.Labels, fldPath.Child("labels"))...)
	errs = append(errs, ValidateAnnotations(newMeta.Annotations, fldPath.Child("annotations"))...)
	errs = append(errs, validateOwnerReferences(newMeta.OwnerReferences, fldPath.Child("ownerReferences"))...)
	errs = append(errs, validateManagedFields(newMeta.ManagedFields, fldPath.Child("managedFields"))...)
	return errs
}

// ValidateImmutableField reports "field is immutable" when a value changed.
func ValidateImmutableField(newVal, oldVal any, fldPath *field.Path) field.ErrorList {
	if semanticEqual(newVal, oldVal) {
		return nil
	}
	return field.ErrorList{field.Invalid(fldPath, newVal, FieldImmutableErrorMsg)}
}

// semanticEqual is DeepEqual except that an empty slice or map equals nil
// and quantities compare by value, through their JSON form.
func semanticEqual(a, b any) bool {
	if reflect.DeepEqual(a, b) {
		return true
	}
	ja, errA := jsonOf(a)
	jb, errB := jsonOf(b)
	return errA == nil && errB == nil && ja == jb
}

// ValidateNonnegativeField reports a negative number.
func ValidateNonnegativeField(value int64, fldPath *field.Path) field.ErrorList {
	if value < 0 {
		return field.ErrorList{field.Invalid(fldPath, value, IsNegativeErrorMsg)}
	}
	return nil
}

// ValidateLabels checks label keys and values.
func ValidateLabels(labels map[string]string, fldPath *field.Path) field.ErrorList {
	var errs field.ErrorList
	for _, k := range sortedKeys(labels) {
		errs = append(errs, ValidateLabelName(k, fldPath)...)
		errs = append(errs, validateLabelValue(labels[k], fldPath)...)
	}
	return errs
}

// ValidateLabelName checks one label key: a qualified name.
func ValidateLabelName(name string, fldPath *field.Path) field.ErrorList {
	return validateQualifiedName(name, fldPath)
}

// validateQualifiedName is upstream's apivalidation.ValidateQualifiedName
// ("prefix/name", as label keys, StorageClass provisioners, ...).
func validateQualifiedName(value string, fldPath *field.Path) field.ErrorList {
	var errs field.ErrorList
	for _, msg := range IsQualifiedName(value) {
		errs = append(errs, field.Invalid(fldPath, value, msg))
	}
	return errs
}

func validateLabelValue(value string, fldPath *field.Path) field.ErrorList {
	var errs field.ErrorList
	for _, msg := range IsValidLabelValue(value) {
		errs = append(errs, field.Invalid(fldPath, value, msg))
	}
	return errs
}

// ValidateAnnotations checks annotation keys (case-insensitively, as
// qualified names) and their total size.
func ValidateAnnotations(annotations map[string]string, fldPath *field.Path) field.ErrorList {
	var errs field.ErrorList
	total := 0
	for _, k := range sortedKeys(annotations) {
		for _, msg := range IsQualifiedName(strings.ToLower(k)) {
			errs = append(errs, field.Invalid(fldPath, k, msg))
		}
		total += len(k) + len(annotations[k])
	}
	if total > TotalAnnotationSizeLimitB {
		errs = append(errs, field.TooLong(fldPath, "", TotalAnnotationSizeLimitB))
	}
	return errs
}

// ValidateLabelSelector checks a structured selector.
func ValidateLabelSelector(ps *metav1.LabelSelector, fldPath *field.Path) field.ErrorList {
	if ps == nil {
		return nil
	}
	errs := ValidateLabels(ps.MatchLabels, fldPath.Child("matchLabels"))
	for i, expr := range ps.MatchExpressions {
		p := fldPath.Child("matchExpressions").Index(i)
		switch expr.Operator {
		case metav1.LabelSelectorOpIn, metav1.LabelSelectorOpNotIn:
			if len(expr.Values) == 0 {
				errs = append(errs, field.Required(p.Child("values"), "must be specified when `operator` is 'In' or 'NotIn'"))
			}
		case metav1.LabelSelectorOpExists, metav1.LabelSelectorOpDoesNotExist:
			if len(expr.Values) > 0 {
				errs = append(errs, field.Forbidden(p.Child("values"), "may not be specified when `operator` is 'Exists' or 'DoesNotExist'"))
			}
		default:
			errs = append(errs, field.Invalid(p.Child("operator"), expr.Operator, "not a valid selector operator"))
		}
		errs = append(errs, ValidateLabelName(expr.Key, p.Child("key"))...)
		for j, v := range expr.Values {
			errs = append(errs, validateLabelValue(v, p.Child("values").Index(j))...)
		}
	}
	return errs
}

// selectorMatches tells whether labels satisfy the selector (an empty
// selector matches everything).
func selectorMatches(s *metav1.LabelSelector, labels map[string]string) bool {
	if s == nil {
		return false
	}
	for k, v := range s.MatchLabels {
		if got, ok := labels[k]; !ok || got != v {
			return false
		}
	}
	for _, e := range s.MatchExpressions {
		val, has := labels[e.Key]
		in := false
		for _, v := range e.Values {
			if v == val {
				in = true
			}
		}
		switch e.Operator {
		case metav1.LabelSelectorOpIn:
			if !has || !in {
				return false
			}
		case metav1.LabelSelectorOpNotIn:
			if has && in {
				return false
			}
		case metav1.LabelSelectorOpExists:
			if !has {
				return false
			}
		case metav1.LabelSelectorOpDoesNotExist:
			if has {
				return false
			}
		}
	}
	return true
}

func validateOwnerReferences(refs []metav1.OwnerReference, fldPath *field.Path) field.ErrorList {
	var errs field.ErrorList
	firstController := ""
	for _, ref := range refs {
		version := ref.APIVersion
		if i := strings.LastIndex(version, "/"); i >= 0 {
			version = version[i+1:]
		}
		if version == "" {
			errs = append(errs, field.Invalid(fldPath.Child("apiVersion"), ref.APIVersion, "version must not be empty"))
		}
		if ref.Kind == "" {
			errs = append(errs, field.Invalid(fldPath.Child("kind"), ref.Kind, "must not be empty"))
		}
		if ref.Name == "" {
			errs = append(errs, field.Invalid(fldPath.Child("name"), ref.Name, "must not be empty"))
		}
		if ref.UID == "" {
			errs = append(errs, field.Invalid(fldPath.Child("uid"), ref.UID, "must not be empty"))
		}
		if ref.APIVersion == "v1" && ref.Kind == "Event" {
			errs = append(errs, field.Invalid(fldPath, ref, "/v1, Kind=Event is disallowed from being an owner"))
		}
		if ref.Controller != nil && *ref.Controller {
			name := ref.Kind + "/" + ref.Name
			if firstController != "" {
				errs = append(errs, field.Invalid(fldPath, refs, fmt.Sprintf(
					"Only one reference can have Controller set to true. Found \"true\" in references for %v and %v", firstController, name)))
			} else {
				firstController = name
			}
		}
	}
	return errs
}

func validateFinalizers(finalizers []string, fldPath *field.Path) field.ErrorList {
	var errs field.ErrorList
	orphan, foreground := false, false
	for _, f := range finalizers {
		for _, msg := range IsQualifiedName(f) {
			errs = append(errs, field.Invalid(fldPath, f, msg))
		}
		orphan = orphan || f == metav1.FinalizerOrphanDependents
		foreground = foreground || f == metav1.FinalizerDeleteDependents
	}
	if orphan && foreground {
		errs = append(errs, field.Invalid(fldPath, finalizers, fmt.Sprintf("finalizer %s and %s cannot be both set",
			metav1.FinalizerOrphanDependents, metav1.FinalizerDeleteDependents)))
	}
	return errs
}

func validateManagedFields(entries []metav1.ManagedFieldsEntry, fldPath *field.Path) field.ErrorList {
	var errs field.ErrorList
	for i, e := range entries {
		p := fldPath.Index(i)
		if e.Operation != "Apply" && e.Operation != "Update" {
			errs = append(errs, field.Invalid(p.Child("operation"), e.Operation, "must be `Apply` or `Update`"))
		}
		if e.FieldsType != "" && e.FieldsType != "FieldsV1" {
			errs = append(errs, field.Invalid(p.Child("fieldsType"), e.FieldsType, "must be `FieldsV1`"))
		}
	}
	return errs
}
