package validation

import (
	"strings"

	"kubik/ch01-apiserver/api/rbacv1"
	"kubik/ch01-apiserver/apiserver/validation/field"
)

// RBAC objects (upstream pkg/apis/rbac/validation). Their names may contain
// ":" ("system:node"), so they are path segments, not DNS names.

// IsValidPathSegmentName is upstream's path.IsValidPathSegmentName.
func IsValidPathSegmentName(name string) []string {
	switch name {
	case ".", "..":
		return []string{"may not be '" + name + "'"}
	}
	var msgs []string
	for _, illegal := range []string{"/", "%"} {
		if strings.Contains(name, illegal) {
			msgs = append(msgs, "may not contain '"+illegal+"'")
		}
	}
	return msgs
}

func rbacName(name string, prefix bool) []string { return IsValidPathSegmentName(name) }

func validatePolicyRules(rules []rbacv1.PolicyRule, namespaced bool, path *field.Path) field.ErrorList {
	var errs field.ErrorList
	for i, r := range rules {
		p := path.Index(i)
		if len(r.Verbs) == 0 {
			errs = append(errs, field.Required(p.Child("verbs"), "verbs must contain at least one value"))
		}
		if len(r.NonResourceURLs) > 0 {
			if namespaced {
				errs = append(errs, field.Invalid(p.Child("nonResourceURLs"), r.NonResourceURLs, "namespaced rules cannot apply to non-resource URLs"))
			}
			if len(r.APIGroups) > 0 || len(r.Resources) > 0 || len(r.ResourceNames) > 0 {
				errs = append(errs, field.Invalid(p.Child("nonResourceURLs"), r.NonResourceURLs, "rules cannot apply to both regular resources and non-resource URLs"))
			}
			continue
		}
		if len(r.APIGroups) == 0 {
			errs = append(errs, field.Required(p.Child("apiGroups"), "resource rules must supply at least one api group"))
		}
		if len(r.Resources) == 0 {
			errs = append(errs, field.Required(p.Child("resources"), "resource rules must supply at least one resource"))
		}
	}
	return errs
}

func validateRoleRef(ref rbacv1.RoleRef, kinds []string, path *field.Path) field.ErrorList {
	var errs field.ErrorList
	if ref.APIGroup != rbacv1.GroupName {
		errs = append(errs, field.NotSupported(path.Child("apiGroup"), ref.APIGroup, []string{rbacv1.GroupName}))
	}
	supported := false
	for _, k := range kinds {
		supported = supported || k == ref.Kind
	}
	if !supported {
		errs = append(errs, field.NotSupported(path.Child("kind"), ref.Kind, kinds))
	}
	if ref.Name == "" {
		errs = append(errs, field.Required(path.Child("name"), ""))
	} else {
		for _, msg := range IsValidPathSegmentName(ref.Name) {
			errs = append(errs, field.Invalid(path.Child("name"), ref.Name, msg))
		}
	}
	return errs
}

func validateSubjects(subjects []rbacv1.Subject, namespaced bool, path *field.Path) field.ErrorList {
	var errs field.ErrorList
	for i, s := range subjects {
		p := path.Index(i)
		if s.Name == "" {
			errs = append(errs, field.Required(p.Child("name"), ""))
		}
		switch s.Kind {
		case rbacv1.ServiceAccountKind:
			if s.APIGroup != "" {
				errs = append(errs, field.NotSupported(p.Child("apiGroup"), s.APIGroup, []string{""}))
			}
			if !namespaced && s.Namespace == "" {
				errs = append(errs, field.Required(p.Child("namespace"), ""))
			}
		case rbacv1.UserKind, rbacv1.GroupKind:
			if s.APIGroup != rbacv1.GroupName {
				errs = append(errs, field.NotSupported(p.Child("apiGroup"), s.APIGroup, []string{rbacv1.GroupName}))
			}
		default:
			errs = append(errs, field.NotSupported(p.Child("kind"), s.Kind, []string{rbacv1.ServiceAccountKind, rbacv1.UserKind, rbacv1.GroupKind}))
		}
	}
	return errs
}

func validateRBAC(obj any) (field.ErrorList, bool) {
	meta := field.NewPath("metadata")
	switch o := obj.(type) {
	case *rbacv1.Role:
		errs := ValidateObjectMeta(&o.ObjectMeta, true, rbacName, meta)
		return append(errs, validatePolicyRules(o.Rules, true, field.NewPath("rules"))...), true
	case *rbacv1.ClusterRole:
		errs := ValidateObjectMeta(&o.ObjectMeta, false, rbacName, meta)
		return append(errs, validatePolicyRules(o.Rules, false, field.NewPath("rules"))...), true
	case *rbacv1.RoleBinding:
		errs := ValidateObjectMeta(&o.ObjectMeta, true, rbacName, meta)
		errs = append(errs, validateRoleRef(o.RoleRef, []string{"Role", "ClusterRole"}, field.NewPath("roleRef"))...)
		return append(errs, validateSubjects(o.Subjects, true, field.NewPath("subjects"))...), true
	case *rbacv1.ClusterRoleBinding:
		errs := ValidateObjectMeta(&o.ObjectMeta, false, rbacName, meta)
		errs = append(errs, validateRoleRef(o.RoleRef, []string{"ClusterRole"}, field.NewPath("roleRef"))...)
		return append(errs, validateSubjects(o.Subjects, false, field.NewPath("subjects"))...), true
	}
	return nil, false
}

// validateRoleRefUpdate: a binding's roleRef cannot change (delete and recreate it).
func validateRoleRefUpdate(obj, old any) field.ErrorList {
	var ref, oldRef rbacv1.RoleRef
	switch o := obj.(type) {
	case *rbacv1.RoleBinding:
		ref, oldRef = o.RoleRef, old.(*rbacv1.RoleBinding).RoleRef
	case *rbacv1.ClusterRoleBinding:
		ref, oldRef = o.RoleRef, old.(*rbacv1.ClusterRoleBinding).RoleRef
	default:
		return nil
	}
	if ref != oldRef {
		return field.ErrorList{field.Invalid(field.NewPath("roleRef"), ref, "cannot change roleRef")}
	}
	return nil
}
