package apiextensions

import (
	"encoding/json"
	"fmt"
	"reflect"
	"strings"

	apiextensionsv1 "kubik/ch01-apiserver/api/apiextensionsv1"
	"kubik/ch01-apiserver/apiserver/validation"
	"kubik/ch01-apiserver/apiserver/validation/field"
)

// Validation of CustomResourceDefinitions, upstream's
// pkg/apis/apiextensions/validation/validation.go. Upstream validates the
// internal type, in which a schema (subresources, printer columns) shared
// by every version sits at spec.validation (spec.subresources,
// spec.additionalPrinterColumns) instead of under each version: the field
// paths of the errors say so, and so do ours (schemaPath).

// SetDefaults is upstream's SetDefaults_CustomResourceDefinition (v1): the
// singular name, the list kind and the conversion strategy.
func SetDefaults(crd *apiextensionsv1.CustomResourceDefinition) {
	n := &crd.Spec.Names
	if n.Singular == "" {
		n.Singular = strings.ToLower(n.Kind)
	}
	if n.ListKind == "" && n.Kind != "" {
		n.ListKind = n.Kind + "List"
	}
	if crd.Spec.Conversion == nil {
		crd.Spec.Conversion = &apiextensionsv1.CustomResourceConversion{Strategy: apiextensionsv1.NoneConverter}
	}
	if w := crd.Spec.Conversion.Webhook; w != nil && w.ClientConfig != nil && w.ClientConfig.Service != nil && w.ClientConfig.Service.Port == nil {
		port := int32(443)
		w.ClientConfig.Service.Port = &port
	}
}

// ValidateCustomResourceDefinition validates a new CRD.
func ValidateCustomResourceDefinition(crd *apiextensionsv1.CustomResourceDefinition) field.ErrorList {
	nameFn := func(name string, prefix bool) []string {
		errs := validation.NameIsDNSSubdomain(name, prefix)
		if name != crd.Spec.Names.Plural+"."+crd.Spec.Group {
			errs = append(errs, `must be spec.names.plural+"."+spec.group`)
		}
		return errs
	}
	errs := validation.ValidateObjectMeta(&crd.ObjectMeta, false, nameFn, field.NewPath("metadata"))
	errs = append(errs, validateAPIApproval(crd)...)
	errs = append(errs, validateSpec(&crd.Spec, field.NewPath("spec"))...)
	errs = append(errs, validateStatus(&crd.Status, field.NewPath("status"))...)
	errs = append(errs, validateStoredVersions(crd.Status.StoredVersions, crd.Spec.Versions, field.NewPath("status", "storedVersions"))...)
	return errs
}

// ValidateCustomResourceDefinitionUpdate validates an update of the main resource.
func ValidateCustomResourceDefinitionUpdate(crd, old *apiextensionsv1.CustomResourceDefinition) field.ErrorList {
	errs := validation.ValidateObjectMetaUpdate(&crd.ObjectMeta, &old.ObjectMeta, field.NewPath("metadata"))
	if len(validateAPIApproval(old)) == 0 { // upstream: only when the old object passed
		errs = append(errs, validateAPIApproval(crd)...)
	}
	spec := field.NewPath("spec")
	errs = append(errs, validateSpec(&crd.Spec, spec)...)
	if apiextensionsv1.IsCRDConditionTrue(old, apiextensionsv1.Established) {
		// these affect the storage and cannot be changed therefore
		errs = append(errs, validation.ValidateImmutableField(crd.Spec.Scope, old.Spec.Scope, spec.Child("scope"))...)
		errs = append(errs, validation.ValidateImmutableField(crd.Spec.Names.Kind, old.Spec.Names.Kind, spec.Child("names", "kind"))...)
	}
	// these affect the resource name, which is always immutable
	errs = append(errs, validation.ValidateImmutableField(crd.Spec.Group, old.Spec.Group, spec.Child("group"))...)
	errs = append(errs, validation.ValidateImmutableField(crd.Spec.Names.Plural, old.Spec.Names.Plural, spec.Child("names", "plural"))...)
	errs = append(errs, validateStatus(&crd.Status, field.NewPath("status"))...)
	errs = append(errs, validateStoredVersions(crd.Status.StoredVersions, crd.Spec.Versions, field.NewPath("status", "storedVersions"))...)
	return errs
}

// ValidateCustomResourceDefinitionStatusUpdate validates an update through /status.
func ValidateCustomResourceDefinitionStatusUpdate(crd, old *apiextensionsv1.CustomResourceDefinition) field.ErrorList {
	errs := validation.ValidateObjectMetaUpdate(&crd.ObjectMeta, &old.ObjectMeta, field.NewPath("metadata"))
	errs = append(errs, validateStatus(&crd.Status, field.NewPath("status"))...)
	errs = append(errs, validateStoredVersions(crd.Status.StoredVersions, crd.Spec.Versions, field.NewPath("status", "storedVersions"))...)
	return errs
}

func validateStoredVersions(stored []string, versions []apiextensionsv1.CustomResourceDefinitionVersion, fldPath *field.Path) field.ErrorList {
	if len(stored) == 0 {
		return field.ErrorList{field.Invalid(fldPath, nil, "must have at least one stored version")}
	}
	var errs field.ErrorList
	for i, v := range stored {
		found := false
		for _, sv := range versions {
			if sv.Name == v {
				found = true
			}
		}
		if !found {
			errs = append(errs, field.Invalid(fldPath.Index(i), v, "must appear in spec.versions"))
		}
	}
	return errs
}

// internalVersion is how upstream's error messages print a version: the
// internal Go type marshalled with its Go field names.
type internalVersion struct {
	Name                     string
	Served                   bool
	Storage                  bool
	Deprecated               bool
	DeprecationWarning       *string
	Schema                   any
	Subresources             any
	AdditionalPrinterColumns any
	SelectableFields         any
}

type internalVersions []internalVersion

func (v internalVersions) MarshalJSON() ([]byte, error) { return json.Marshal([]internalVersion(v)) }

func versionsValue(versions []apiextensionsv1.CustomResourceDefinitionVersion) internalVersions {
	shared := sharedSchema(versions)
	out := internalVersions{}
	for _, v := range versions {
		iv := internalVersion{Name: v.Name, Served: v.Served, Storage: v.Storage, Deprecated: v.Deprecated, DeprecationWarning: v.DeprecationWarning}
		if !shared && v.Schema != nil {
			iv.Schema = v.Schema
		}
		out = append(out, iv)
	}
	return out
}

// sharedSchema: every version has the same schema (upstream's internal
// type then keeps one, at spec.validation).
func sharedSchema(versions []apiextensionsv1.CustomResourceDefinitionVersion) bool {
	if len(versions) == 0 {
		return false
	}
	for _, v := range versions[1:] {
		if !reflect.DeepEqual(v.Schema, versions[0].Schema) {
			return false
		}
	}
	return versions[0].Schema != nil
}

// schemaPath is where upstream reports the errors of version i's schema.
func schemaPath(spec *apiextensionsv1.CustomResourceDefinitionSpec, fldPath *field.Path, i int) *field.Path {
	if sharedSchema(spec.Versions) {
		return fldPath.Child("validation", "openAPIV3Schema")
	}
	return fldPath.Child("versions").Index(i).Child("schema", "openAPIV3Schema")
}

func validateSpec(spec *apiextensionsv1.CustomResourceDefinitionSpec, fldPath *field.Path) field.ErrorList {
	var errs field.ErrorList
	switch {
	case spec.Group == "":
		errs = append(errs, field.Required(fldPath.Child("group"), ""))
	case len(validation.IsDNS1123Subdomain(spec.Group)) > 0:
		errs = append(errs, field.Invalid(fldPath.Child("group"), spec.Group, strings.Join(validation.IsDNS1123Subdomain(spec.Group), ",")))
	case len(strings.Split(spec.Group, ".")) < 2:
		errs = append(errs, field.Invalid(fldPath.Child("group"), spec.Group, "should be a domain with at least one dot"))
	}
	switch spec.Scope {
	case "":
		errs = append(errs, field.Required(fldPath.Child("scope"), ""))
	case apiextensionsv1.ClusterScoped, apiextensionsv1.NamespaceScoped:
	default:
		errs = append(errs, field.NotSupported(fldPath.Child("scope"), spec.Scope, []string{"Cluster", "Namespaced"}))
	}
	// v1 requires a schema for every version.
	for i, v := range spec.Versions {
		if v.Schema == nil || v.Schema.OpenAPIV3Schema == nil {
			errs = append(errs, field.Required(fldPath.Child("versions").Index(i).Child("schema", "openAPIV3Schema"), ""))
		}
	}
	storage := 0
	seen := map[string]bool{}
	unique := true
	for i, v := range spec.Versions {
		if v.Storage {
			storage++
		}
		if seen[v.Name] {
			unique = false
		}
		seen[v.Name] = true
		if e := validation.IsDNS1035Label(v.Name); len(e) > 0 {
			errs = append(errs, field.Invalid(fldPath.Child("versions").Index(i).Child("name"), v.Name, strings.Join(e, ",")))
		}
	}
	if !unique {
		errs = append(errs, field.Invalid(fldPath.Child("versions"), versionsValue(spec.Versions), "must contain unique version names"))
	}
	if storage != 1 {
		errs = append(errs, field.Invalid(fldPath.Child("versions"), versionsValue(spec.Versions), "must have exactly one version marked as storage version"))
	}
	if len(spec.Versions) > 0 {
		// the internal spec.version is the first version's name
		if e := validation.IsDNS1035Label(spec.Versions[0].Name); len(e) > 0 {
			errs = append(errs, field.Invalid(fldPath.Child("version"), spec.Versions[0].Name, strings.Join(e, ",")))
		}
	}
	if spec.Names.Plural == "" {
		errs = append(errs, field.Required(fldPath.Child("names", "plural"), ""))
	}
	if spec.Names.Singular == "" {
		errs = append(errs, field.Required(fldPath.Child("names", "singular"), ""))
	}
	if spec.Names.Kind == "" {
		errs = append(errs, field.Required(fldPath.Child("names", "kind"), ""))
	}
	if spec.Names.ListKind == "" {
		errs = append(errs, field.Required(fldPath.Child("names", "listKind"), ""))
	}
	errs = append(errs, validateNames(&spec.Names, fldPath.Child("names"))...)

	shared := sharedSchema(spec.Versions)
	for i, v := range spec.Versions {
		vp := fldPath.Child("versions").Index(i)
		if v.Schema != nil && v.Schema.OpenAPIV3Schema != nil && (!shared || i == 0) {
			errs = append(errs, ValidateSchema(v.Schema.OpenAPIV3Schema, schemaPath(spec, fldPath, i))...)
		}
		errs = append(errs, validateSubresources(v.Subresources, vp.Child("subresources"))...)
		errs = append(errs, validateColumns(v.AdditionalPrinterColumns, vp.Child("additionalPrinterColumns"))...)
		errs = append(errs, validateSelectableFields(v, vp.Child("selectableFields"))...)
	}
	if spec.PreserveUnknownFields {
		errs = append(errs, field.Invalid(fldPath.Child("preserveUnknownFields"), true, "cannot set to true, set x-kubernetes-preserve-unknown-fields to true in spec.versions[*].schema instead"))
	}
	errs = append(errs, validateConversion(spec, fldPath.Child("conversion"))...)
	return errs
}

func validateConversion(spec *apiextensionsv1.CustomResourceDefinitionSpec, fldPath *field.Path) field.ErrorList {
	c := spec.Conversion
	if c == nil {
		return nil
	}
	switch c.Strategy {
	case apiextensionsv1.NoneConverter:
		if c.Webhook != nil {
			return field.ErrorList{field.Forbidden(fldPath.Child("webhook"), "should not be set when strategy is not set to Webhook")}
		}
	case apiextensionsv1.WebhookConverter:
		if c.Webhook == nil || c.Webhook.ClientConfig == nil {
			return field.ErrorList{field.Required(fldPath.Child("webhook", "clientConfig"), "required when strategy is set to Webhook")}
		}
	case "":
		return field.ErrorList{field.Required(fldPath.Child("strategy"), "")}
	default:
		return field.ErrorList{field.NotSupported(fldPath.Child("strategy"), c.Strategy, []string{"None", "Webhook"})}
	}
	return nil
}

func validateStatus(st *apiextensionsv1.CustomResourceDefinitionStatus, fldPath *field.Path) field.ErrorList {
	return validateNames(&st.AcceptedNames, fldPath.Child("acceptedNames"))
}

func validateNames(n *apiextensionsv1.CustomResourceDefinitionNames, fldPath *field.Path) field.ErrorList {
	var errs field.ErrorList
	dns := func(v string) string { return strings.Join(validation.IsDNS1035Label(v), ",") }
	if e := dns(n.Plural); n.Plural != "" && e != "" {
		errs = append(errs, field.Invalid(fldPath.Child("plural"), n.Plural, e))
	}
	if e := dns(n.Singular); n.Singular != "" && e != "" {
		errs = append(errs, field.Invalid(fldPath.Child("singular"), n.Singular, e))
	}
	if e := dns(strings.ToLower(n.Kind)); n.Kind != "" && e != "" {
		errs = append(errs, field.Invalid(fldPath.Child("kind"), n.Kind, "may have mixed case, but should otherwise match: "+e))
	}
	if e := dns(strings.ToLower(n.ListKind)); n.ListKind != "" && e != "" {
		errs = append(errs, field.Invalid(fldPath.Child("listKind"), n.ListKind, "may have mixed case, but should otherwise match: "+e))
	}
	for i, s := range n.ShortNames {
		if e := dns(s); e != "" {
			errs = append(errs, field.Invalid(fldPath.Child("shortNames").Index(i), s, e))
		}
	}
	if n.Kind != "" && n.Kind == n.ListKind {
		errs = append(errs, field.Invalid(fldPath.Child("listKind"), n.ListKind, "kind and listKind may not be the same"))
	}
	for i, c := range n.Categories {
		if e := dns(c); e != "" {
			errs = append(errs, field.Invalid(fldPath.Child("categories").Index(i), c, e))
		}
	}
	return errs
}

func validateSubresources(sub *apiextensionsv1.CustomResourceSubresources, fldPath *field.Path) field.ErrorList {
	if sub == nil || sub.Scale == nil {
		return nil
	}
	var errs field.ErrorList
	sp := fldPath.Child("scale")
	check := func(p string, child string, statusOnly bool) {
		switch {
		case p == "":
			errs = append(errs, field.Required(sp.Child(child), ""))
		case !isSimpleJSONPath(p):
			errs = append(errs, field.Invalid(sp.Child(child), p, "must be a valid JSON path"))
		case statusOnly && !strings.HasPrefix(p, ".status."):
			errs = append(errs, field.Invalid(sp.Child(child), p, "should be a json path under .status"))
		case !statusOnly && !strings.HasPrefix(p, ".spec."):
			errs = append(errs, field.Invalid(sp.Child(child), p, "should be a json path under .spec"))
		}
	}
	check(sub.Scale.SpecReplicasPath, "specReplicasPath", false)
	check(sub.Scale.StatusReplicasPath, "statusReplicasPath", true)
	if p := sub.Scale.LabelSelectorPath; p != nil && *p != "" {
		if !isSimpleJSONPath(*p) {
			errs = append(errs, field.Invalid(sp.Child("labelSelectorPath"), *p, "must be a valid JSON path"))
		} else if !strings.HasPrefix(*p, ".spec.") && !strings.HasPrefix(*p, ".status.") {
			errs = append(errs, field.Invalid(sp.Child("labelSelectorPath"), *p, "should be a json path under either .spec or .status"))
		}
	}
	return errs
}

// isSimpleJSONPath: ".a.b.c", what scale paths and selectable fields may be.
func isSimpleJSONPath(p string) bool {
	if !strings.HasPrefix(p, ".") || len(p) < 2 {
		return false
	}
	for _, part := range strings.Split(p[1:], ".") {
		if part == "" || strings.ContainsAny(part, "[]*@?()'\"") {
			return false
		}
	}
	return true
}

var columnTypes = []string{"boolean", "date", "integer", "number", "string"}

func validateColumns(cols []apiextensionsv1.CustomResourceColumnDefinition, fldPath *field.Path) field.ErrorList {
	var errs field.ErrorList
	for i, c := range cols {
		p := fldPath.Index(i)
		if c.Name == "" {
			errs = append(errs, field.Required(p.Child("name"), ""))
		}
		if c.Type == "" {
			errs = append(errs, field.Required(p.Child("type"), "must not be empty"))
		} else if !contains(columnTypes, c.Type) {
			errs = append(errs, field.NotSupported(p.Child("type"), c.Type, columnTypes))
		}
		if c.Format != "" && !contains([]string{"byte", "date", "date-time", "double", "float", "int32", "int64", "name", "password"}, c.Format) {
			errs = append(errs, field.NotSupported(p.Child("format"), c.Format, []string{"int32", "int64", "float", "double", "byte", "date", "date-time", "password"}))
		}
		if c.JSONPath == "" {
			errs = append(errs, field.Required(p.Child("jsonPath"), ""))
		} else if _, err := parseJSONPath(c.JSONPath); err != nil {
			errs = append(errs, field.Invalid(p.Child("jsonPath"), c.JSONPath, fmt.Sprintf("must be a simple json path starting with .: %v", err)))
		}
	}
	return errs
}

func validateSelectableFields(v apiextensionsv1.CustomResourceDefinitionVersion, fldPath *field.Path) field.ErrorList {
	var errs field.ErrorList
	seen := map[string]bool{}
	for i, f := range v.SelectableFields {
		p := fldPath.Index(i).Child("jsonPath")
		switch {
		case f.JSONPath == "":
			errs = append(errs, field.Required(p, ""))
		case !isSimpleJSONPath(f.JSONPath):
			errs = append(errs, field.Invalid(p, f.JSONPath, "must be a simple json path starting with ."))
		case f.JSONPath == ".metadata.name" || f.JSONPath == ".metadata.namespace" || strings.HasPrefix(f.JSONPath, ".metadata."):
			errs = append(errs, field.Invalid(p, f.JSONPath, "is an invalid path: must not select metadata"))
		case seen[f.JSONPath]:
			errs = append(errs, field.Duplicate(p, f.JSONPath))
		}
		seen[f.JSONPath] = true
	}
	if len(v.SelectableFields) > 8 {
		errs = append(errs, field.TooMany(fldPath, len(v.SelectableFields), 8))
	}
	return errs
}

func contains(list []string, v string) bool {
	for _, x := range list {
		if x == v {
			return true
		}
	}
	return false
}
