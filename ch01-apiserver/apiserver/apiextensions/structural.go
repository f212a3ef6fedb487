package apiextensions

import (
	"fmt"
	"regexp"
	"sort"

	apiextensionsv1 "kubik/ch01-apiserver/api/apiextensionsv1"
	"kubik/ch01-apiserver/apiserver/validation/field"
)

// A structural schema (KEP-1002, required for apiextensions.k8s.io/v1) says
// the type of every field it specifies outside of allOf/anyOf/oneOf/not,
// so the apiserver can prune and default without guessing. Upstream:
// pkg/apiserver/schema/validation.go (ValidateStructural) and the checks of
// ValidateCustomResourceDefinitionOpenAPISchema. We check the
// JSONSchemaProps directly instead of converting it to a Structural first.

type level int

const (
	rootLevel level = iota
	itemLevel
	fieldLevel
)

// ValidateSchema checks a version's openAPIV3Schema: the structural rules
// (their errors sorted, as upstream sorts them), then the rules every CRD
// schema follows.
func ValidateSchema(s *apiextensionsv1.JSONSchemaProps, fldPath *field.Path) field.ErrorList {
	std := validateOpenAPISchema(s, fldPath)
	if hasUnconvertible(s, 0) {
		return std // upstream cannot even build the structural schema
	}
	structural := validateStructural(s, rootLevel, fldPath)
	sort.SliceStable(structural, func(i, j int) bool { return structural[i].Error() < structural[j].Error() })
	if len(structural) == 0 && len(std) == 0 {
		return validateCELRules(s, fldPath)
	}
	return append(structural, std...)
}

// hasUnconvertible reports $ref or items given as an array anywhere.
func hasUnconvertible(s *apiextensionsv1.JSONSchemaProps, depth int) bool {
	if s == nil || depth > maxSchemaDepth {
		return false
	}
	if s.Ref != nil || (s.Items != nil && len(s.Items.JSONSchemas) > 0) {
		return true
	}
	found := false
	eachChild(s, func(_ *field.Path, c *apiextensionsv1.JSONSchemaProps) {
		found = found || hasUnconvertible(c, depth+1)
	}, field.NewPath(""))
	return found
}

// maxSchemaDepth bounds every walk of a schema.
const maxSchemaDepth = 64

// eachChild calls fn for every sub-schema with its path.
func eachChild(s *apiextensionsv1.JSONSchemaProps, fn func(*field.Path, *apiextensionsv1.JSONSchemaProps), p *field.Path) {
	if s.Items != nil {
		if s.Items.Schema != nil {
			fn(p.Child("items"), s.Items.Schema)
		}
		for i := range s.Items.JSONSchemas {
			fn(p.Child("items").Index(i), &s.Items.JSONSchemas[i])
		}
	}
	for _, k := range sortedSchemaKeys(s.Properties) {
		c := s.Properties[k]
		fn(p.Child("properties").Key(k), &c)
	}
	if s.AdditionalProperties != nil && s.AdditionalProperties.Schema != nil {
		fn(p.Child("additionalProperties"), s.AdditionalProperties.Schema)
	}
	for _, k := range sortedSchemaKeys(s.PatternProperties) {
		c := s.PatternProperties[k]
		fn(p.Child("patternProperties").Key(k), &c)
	}
	if s.AdditionalItems != nil && s.AdditionalItems.Schema != nil {
		fn(p.Child("additionalItems"), s.AdditionalItems.Schema)
	}
	if s.Not != nil {
		fn(p.Child("not"), s.Not)
	}
	for i := range s.AllOf {
		fn(p.Child("allOf").Index(i), &s.AllOf[i])
	}
	for i := range s.OneOf {
		fn(p.Child("oneOf").Index(i), &s.OneOf[i])
	}
	for i := range s.AnyOf {
		fn(p.Child("anyOf").Index(i), &s.AnyOf[i])
	}
	for _, k := range sortedSchemaKeys(s.Definitions) {
		c := s.Definitions[k]
		fn(p.Child("definitions").Key(k), &c)
	}
}

func sortedSchemaKeys(m map[string]apiextensionsv1.JSONSchemaProps) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// validateOpenAPISchema: the rules of ValidateCustomResourceDefinitionOpenAPISchema
// and of the OpenAPI v3 subset Kubernetes accepts.
func validateOpenAPISchema(s *apiextensionsv1.JSONSchemaProps, fldPath *field.Path) field.ErrorList {
	var errs field.ErrorList
	var walk func(s *apiextensionsv1.JSONSchemaProps, p *field.Path, depth int)
	walk = func(s *apiextensionsv1.JSONSchemaProps, p *field.Path, depth int) {
		if depth > maxSchemaDepth {
			errs = append(errs, field.Invalid(p, "", fmt.Sprintf("must not be nested more than %d levels", maxSchemaDepth)))
			return
		}
		if s.Default != nil && s.Default.Raw == nil {
			s.Default = nil
		}
		if s.Ref != nil {
			errs = append(errs, field.Forbidden(p.Child("$ref"), "$ref is not supported"))
		}
		if s.ID != "" {
			errs = append(errs, field.Forbidden(p.Child("id"), "id is not supported"))
		}
		if s.Schema != "" {
			errs = append(errs, field.Forbidden(p.Child("$schema"), "$schema is not supported"))
		}
		if len(s.Definitions) > 0 {
			errs = append(errs, field.Forbidden(p.Child("definitions"), "definitions is not supported"))
		}
		if len(s.Dependencies) > 0 {
			errs = append(errs, field.Forbidden(p.Child("dependencies"), "dependencies is not supported"))
		}
		if s.AdditionalItems != nil {
			errs = append(errs, field.Forbidden(p.Child("additionalItems"), "additionalItems is not supported"))
		}
		if len(s.PatternProperties) > 0 {
			errs = append(errs, field.Forbidden(p.Child("patternProperties"), "patternProperties is not supported"))
		}
		if s.Items != nil && len(s.Items.JSONSchemas) > 0 {
			errs = append(errs, field.Forbidden(p.Child("items"), "items must be a schema object and not an array"))
		}
		if s.XPreserveUnknownFields != nil && !*s.XPreserveUnknownFields {
			errs = append(errs, field.Invalid(p.Child("x-kubernetes-preserve-unknown-fields"), false, "must be true or undefined"))
		}
		if s.UniqueItems {
			errs = append(errs, field.Forbidden(p.Child("uniqueItems"), "uniqueItems cannot be set to true since the runtime complexity becomes quadratic"))
		}
		if s.AdditionalProperties != nil && len(s.Properties) != 0 && (!s.AdditionalProperties.Allows || s.AdditionalProperties.Schema != nil) {
			errs = append(errs, field.Forbidden(p.Child("additionalProperties"), "additionalProperties and properties are mutual exclusive"))
		}
		errs = append(errs, validateListType(s, p)...)
		eachChild(s, func(cp *field.Path, c *apiextensionsv1.JSONSchemaProps) { walk(c, cp, depth+1) }, p)
	}
	walk(s, fldPath, 0)
	return errs
}

func validateListType(s *apiextensionsv1.JSONSchemaProps, p *field.Path) field.ErrorList {
	var errs field.ErrorList
	if s.XListType != nil {
		lt := *s.XListType
		switch lt {
		case "atomic", "set", "map":
		default:
			errs = append(errs, field.NotSupported(p.Child("x-kubernetes-list-type"), lt, []string{"atomic", "set", "map"}))
		}
		if s.Type != "array" {
			errs = append(errs, field.Invalid(p.Child("type"), s.Type, "must be array if x-kubernetes-list-type is specified"))
		}
		if lt == "map" && len(s.XListMapKeys) == 0 {
			errs = append(errs, field.Required(p.Child("x-kubernetes-list-map-keys"), "must not be empty if x-kubernetes-list-type is map"))
		}
	}
	if len(s.XListMapKeys) > 0 && (s.XListType == nil || *s.XListType != "map") {
		errs = append(errs, field.Forbidden(p.Child("x-kubernetes-list-map-keys"), `must only be used if x-kubernetes-list-type is "map"`))
	}
	if s.XMapType != nil && *s.XMapType != "granular" && *s.XMapType != "atomic" {
		errs = append(errs, field.NotSupported(p.Child("x-kubernetes-map-type"), *s.XMapType, []string{"granular", "atomic"}))
	}
	return errs
}

// validateStructural is upstream's validateStructuralInvariants.
func validateStructural(s *apiextensionsv1.JSONSchemaProps, lvl level, fldPath *field.Path) field.ErrorList {
	if s == nil {
		return nil
	}
	var errs field.ErrorList
	if s.Type == "array" && (s.Items == nil || s.Items.Schema == nil) {
		errs = append(errs, field.Required(fldPath.Child("items"), "must be specified"))
	}
	if s.Items != nil && s.Items.Schema != nil {
		errs = append(errs, validateStructural(s.Items.Schema, itemLevel, fldPath.Child("items"))...)
	}
	for _, k := range sortedSchemaKeys(s.Properties) {
		c := s.Properties[k]
		errs = append(errs, validateStructural(&c, fieldLevel, fldPath.Child("properties").Key(k))...)
	}
	if s.AdditionalProperties != nil {
		if lvl == rootLevel {
			errs = append(errs, field.Forbidden(fldPath.Child("additionalProperties"), "must not be used at the root"))
		}
		if s.AdditionalProperties.Schema != nil {
			errs = append(errs, validateStructural(s.AdditionalProperties.Schema, fieldLevel, fldPath.Child("additionalProperties"))...)
		}
	}
	preserve := s.XPreserveUnknownFields != nil && *s.XPreserveUnknownFields
	if s.XIntOrString && preserve {
		errs = append(errs, field.Invalid(fldPath.Child("x-kubernetes-preserve-unknown-fields"), true, "must be false if x-kubernetes-int-or-string is true"))
	}
	if s.XIntOrString && s.XEmbeddedResource {
		errs = append(errs, field.Invalid(fldPath.Child("x-kubernetes-embedded-resource"), true, "must be false if x-kubernetes-int-or-string is true"))
	}
	errs = append(errs, validateValueValidation(s, isIntOrStringAnyOf(s.AnyOf), len(s.AllOf) > 0 && isIntOrStringAnyOf(s.AllOf[0].AnyOf), fldPath)...)

	checkMetadata := lvl == rootLevel || s.XEmbeddedResource
	switch {
	case s.XEmbeddedResource && s.Type != "object":
		if s.Type == "" {
			errs = append(errs, field.Required(fldPath.Child("type"), "must be object if x-kubernetes-embedded-resource is true"))
		} else {
			errs = append(errs, field.Invalid(fldPath.Child("type"), s.Type, "must be object if x-kubernetes-embedded-resource is true"))
		}
	case s.Type == "" && !s.XIntOrString && !preserve:
		switch lvl {
		case rootLevel:
			errs = append(errs, field.Required(fldPath.Child("type"), "must not be empty at the root"))
		case itemLevel:
			errs = append(errs, field.Required(fldPath.Child("type"), "must not be empty for specified array items"))
		case fieldLevel:
			errs = append(errs, field.Required(fldPath.Child("type"), "must not be empty for specified object fields"))
		}
	}
	if s.XEmbeddedResource && s.AdditionalProperties != nil {
		errs = append(errs, field.Forbidden(fldPath.Child("additionalProperties"), "must not be used if x-kubernetes-embedded-resource is set"))
	}
	if lvl == rootLevel && s.Type != "" && s.Type != "object" {
		errs = append(errs, field.Invalid(fldPath.Child("type"), s.Type, "must be object at the root"))
	}
	if kind, ok := s.Properties["kind"]; ok && checkMetadata && kind.Type != "string" {
		errs = append(errs, field.Invalid(fldPath.Child("properties").Key("kind").Child("type"), kind.Type, "must be string"))
	}
	if av, ok := s.Properties["apiVersion"]; ok && checkMetadata && av.Type != "string" {
		errs = append(errs, field.Invalid(fldPath.Child("properties").Key("apiVersion").Child("type"), av.Type, "must be string"))
	}
	if md, ok := s.Properties["metadata"]; ok {
		mp := fldPath.Child("properties").Key("metadata")
		if checkMetadata && md.Type != "object" {
			errs = append(errs, field.Invalid(mp.Child("type"), md.Type, "must be object"))
		}
		if lvl == rootLevel && !onlyNameAndGenerateName(md) {
			errs = append(errs, field.Forbidden(mp, "must not specify anything other than name and generateName, but metadata is implicitly specified"))
		}
	}
	if s.XEmbeddedResource && !preserve && len(s.Properties) == 0 {
		errs = append(errs, field.Required(fldPath.Child("properties"), "must not be empty if x-kubernetes-embedded-resource is true without x-kubernetes-preserve-unknown-fields"))
	}
	if s.Pattern != "" {
		if _, err := regexp.Compile(s.Pattern); err != nil {
			errs = append(errs, field.Invalid(fldPath.Child("pattern"), s.Pattern, fmt.Sprintf("must be a valid regular expression, but isn't: %v", err)))
		}
	}
	return errs
}

// onlyNameAndGenerateName: the root's metadata schema may say nothing but
// its type and the schemas of name and generateName.
func onlyNameAndGenerateName(md apiextensionsv1.JSONSchemaProps) bool {
	for k := range md.Properties {
		if k != "name" && k != "generateName" {
			return false
		}
	}
	md.Properties, md.Type, md.Default = nil, "", nil
	return isZeroSchema(md)
}

func isZeroSchema(s apiextensionsv1.JSONSchemaProps) bool {
	b, _ := jsonMarshal(s)
	return string(b) == "{}"
}

func isIntOrStringAnyOf(list []apiextensionsv1.JSONSchemaProps) bool {
	return len(list) == 2 && list[0].Type == "integer" && list[1].Type == "string" &&
		isZeroSchema(withoutType(list[0])) && isZeroSchema(withoutType(list[1]))
}

func withoutType(s apiextensionsv1.JSONSchemaProps) apiextensionsv1.JSONSchemaProps {
	s.Type = ""
	return s
}

// validateValueValidation checks the allOf/anyOf/oneOf/not of a structural node.
func validateValueValidation(s *apiextensionsv1.JSONSchemaProps, skipAnyOf, skipFirstAllOfAnyOf bool, fldPath *field.Path) field.ErrorList {
	var errs field.ErrorList
	if !skipAnyOf {
		for i := range s.AnyOf {
			errs = append(errs, validateNested(&s.AnyOf[i], false, fldPath.Child("anyOf").Index(i), 0)...)
		}
	}
	for i := range s.AllOf {
		errs = append(errs, validateNested(&s.AllOf[i], skipFirstAllOfAnyOf && i == 0, fldPath.Child("allOf").Index(i), 0)...)
	}
	for i := range s.OneOf {
		errs = append(errs, validateNested(&s.OneOf[i], false, fldPath.Child("oneOf").Index(i), 0)...)
	}
	if s.Not != nil {
		errs = append(errs, validateNested(s.Not, false, fldPath.Child("not"), 0)...)
	}
	return errs
}

// validateNested is upstream's validateNestedValueValidation: below a
// logic junctor only value validations may appear, no types, defaults or
// extensions.
func validateNested(s *apiextensionsv1.JSONSchemaProps, skipAnyOf bool, fldPath *field.Path, depth int) field.ErrorList {
	if s == nil || depth > maxSchemaDepth {
		return nil
	}
	var errs field.ErrorList
	if !skipAnyOf {
		for i := range s.AnyOf {
			errs = append(errs, validateNested(&s.AnyOf[i], false, fldPath.Child("anyOf").Index(i), depth+1)...)
		}
	}
	for i := range s.AllOf {
		errs = append(errs, validateNested(&s.AllOf[i], false, fldPath.Child("allOf").Index(i), depth+1)...)
	}
	for i := range s.OneOf {
		errs = append(errs, validateNested(&s.OneOf[i], false, fldPath.Child("oneOf").Index(i), depth+1)...)
	}
	if s.Not != nil {
		errs = append(errs, validateNested(s.Not, false, fldPath.Child("not"), depth+1)...)
	}
	if s.Items != nil && s.Items.Schema != nil {
		errs = append(errs, validateNested(s.Items.Schema, false, fldPath.Child("items"), depth+1)...)
	}
	for _, k := range sortedSchemaKeys(s.Properties) {
		c := s.Properties[k]
		errs = append(errs, validateNested(&c, false, fldPath.Child("properties").Key(k), depth+1)...)
	}
	if s.Type != "" {
		errs = append(errs, field.Forbidden(fldPath.Child("type"), "must be empty to be structural"))
	}
	if s.AdditionalProperties != nil {
		errs = append(errs, field.Forbidden(fldPath.Child("additionalProperties"), "must be undefined to be structural"))
	}
	if s.Default != nil {
		errs = append(errs, field.Forbidden(fldPath.Child("default"), "must be undefined to be structural"))
	}
	if s.Title != "" {
		errs = append(errs, field.Forbidden(fldPath.Child("title"), "must be empty to be structural"))
	}
	if s.Description != "" {
		errs = append(errs, field.Forbidden(fldPath.Child("description"), "must be empty to be structural"))
	}
	if s.Nullable {
		errs = append(errs, field.Forbidden(fldPath.Child("nullable"), "must be false to be structural"))
	}
	if s.ExternalDocs != nil {
		errs = append(errs, field.Forbidden(fldPath.Child("externalDocs"), "must be undefined to be structural"))
	}
	if s.XPreserveUnknownFields != nil && *s.XPreserveUnknownFields {
		errs = append(errs, field.Forbidden(fldPath.Child("x-kubernetes-preserve-unknown-fields"), "must be false to be structural"))
	}
	if s.XEmbeddedResource {
		errs = append(errs, field.Forbidden(fldPath.Child("x-kubernetes-embedded-resource"), "must be false to be structural"))
	}
	if s.XIntOrString {
		errs = append(errs, field.Forbidden(fldPath.Child("x-kubernetes-int-or-string"), "must be false to be structural"))
	}
	if len(s.XListMapKeys) > 0 {
		errs = append(errs, field.Forbidden(fldPath.Child("x-kubernetes-list-map-keys"), "must be empty to be structural"))
	}
	if s.XListType != nil {
		errs = append(errs, field.Forbidden(fldPath.Child("x-kubernetes-list-type"), "must be undefined to be structural"))
	}
	if s.XMapType != nil {
		errs = append(errs, field.Forbidden(fldPath.Child("x-kubernetes-map-type"), "must be undefined to be structural"))
	}
	if len(s.XValidations) > 0 {
		errs = append(errs, field.Forbidden(fldPath.Child("x-kubernetes-validations"), "must be empty to be structural"))
	}
	if _, ok := s.Properties["metadata"]; ok {
		errs = append(errs, field.Forbidden(fldPath.Child("properties").Key("metadata"), "must not be specified in a nested context"))
	}
	return errs
}
