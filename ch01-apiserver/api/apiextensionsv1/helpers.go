package apiextensionsv1

import "kubik/ch01-apiserver/api/metav1"

// FindCRDCondition returns the condition of type t, or nil.
func FindCRDCondition(crd *CustomResourceDefinition, t CustomResourceDefinitionConditionType) *CustomResourceDefinitionCondition {
	for i := range crd.Status.Conditions {
		if crd.Status.Conditions[i].Type == t {
			return &crd.Status.Conditions[i]
		}
	}
	return nil
}

// IsCRDConditionTrue reports whether the condition of type t is True.
func IsCRDConditionTrue(crd *CustomResourceDefinition, t CustomResourceDefinitionConditionType) bool {
	c := FindCRDCondition(crd, t)
	return c != nil && c.Status == ConditionTrue
}

// SetCRDCondition sets or replaces the condition of its type; the
// transition time changes only when the status does (upstream's helper).
func SetCRDCondition(crd *CustomResourceDefinition, c CustomResourceDefinitionCondition) {
	existing := FindCRDCondition(crd, c.Type)
	if existing == nil {
		c.LastTransitionTime = metav1.Now()
		crd.Status.Conditions = append(crd.Status.Conditions, c)
		return
	}
	if existing.Status != c.Status || existing.LastTransitionTime.IsZero() {
		c.LastTransitionTime = metav1.Now()
	} else {
		c.LastTransitionTime = existing.LastTransitionTime
	}
	*existing = c
}

// RemoveCRDCondition drops the condition of type t.
func RemoveCRDCondition(crd *CustomResourceDefinition, t CustomResourceDefinitionConditionType) {
	out := crd.Status.Conditions[:0:0]
	for _, c := range crd.Status.Conditions {
		if c.Type != t {
			out = append(out, c)
		}
	}
	crd.Status.Conditions = out
}

// StorageVersion is the name of the version with storage: true ("" if none).
func StorageVersion(crd *CustomResourceDefinition) string {
	for _, v := range crd.Spec.Versions {
		if v.Storage {
			return v.Name
		}
	}
	return ""
}

// HasServedCRDVersion reports whether version is served.
func HasServedCRDVersion(crd *CustomResourceDefinition, version string) bool {
	for _, v := range crd.Spec.Versions {
		if v.Name == version {
			return v.Served
		}
	}
	return false
}
