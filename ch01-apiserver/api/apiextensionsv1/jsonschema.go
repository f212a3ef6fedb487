package apiextensionsv1

import (
	"bytes"
	"encoding/json"
	"errors"
)

// JSONSchemaProps is a JSON-Schema following Specification Draft 4
// (http://json-schema.org/), the OpenAPI v3 subset Kubernetes accepts, plus
// the x-kubernetes-* extensions.
type JSONSchemaProps struct {
	ID                     string                     `json:"id,omitempty" protobuf:"bytes,1,opt,name=id"`
	Schema                 JSONSchemaURL              `json:"$schema,omitempty" protobuf:"bytes,2,opt,name=schema"`
	Ref                    *string                    `json:"$ref,omitempty" protobuf:"bytes,3,opt,name=ref"`
	Description            string                     `json:"description,omitempty" protobuf:"bytes,4,opt,name=description"`
	Type                   string                     `json:"type,omitempty" protobuf:"bytes,5,opt,name=type"`
	Format                 string                     `json:"format,omitempty" protobuf:"bytes,6,opt,name=format"`
	Title                  string                     `json:"title,omitempty" protobuf:"bytes,7,opt,name=title"`
	Default                *JSON                      `json:"default,omitempty" protobuf:"bytes,8,opt,name=default"`
	Maximum                *float64                   `json:"maximum,omitempty" protobuf:"bytes,9,opt,name=maximum"`
	ExclusiveMaximum       bool                       `json:"exclusiveMaximum,omitempty" protobuf:"bytes,10,opt,name=exclusiveMaximum"`
	Minimum                *float64                   `json:"minimum,omitempty" protobuf:"bytes,11,opt,name=minimum"`
	ExclusiveMinimum       bool                       `json:"exclusiveMinimum,omitempty" protobuf:"bytes,12,opt,name=exclusiveMinimum"`
	MaxLength              *int64                     `json:"maxLength,omitempty" protobuf:"bytes,13,opt,name=maxLength"`
	MinLength              *int64                     `json:"minLength,omitempty" protobuf:"bytes,14,opt,name=minLength"`
	Pattern                string                     `json:"pattern,omitempty" protobuf:"bytes,15,opt,name=pattern"`
	MaxItems               *int64                     `json:"maxItems,omitempty" protobuf:"bytes,16,opt,name=maxItems"`
	MinItems               *int64                     `json:"minItems,omitempty" protobuf:"bytes,17,opt,name=minItems"`
	UniqueItems            bool                       `json:"uniqueItems,omitempty" protobuf:"bytes,18,opt,name=uniqueItems"`
	MultipleOf             *float64                   `json:"multipleOf,omitempty" protobuf:"bytes,19,opt,name=multipleOf"`
	Enum                   []JSON                     `json:"enum,omitempty" protobuf:"bytes,20,rep,name=enum"`
	MaxProperties          *int64                     `json:"maxProperties,omitempty" protobuf:"bytes,21,opt,name=maxProperties"`
	MinProperties          *int64                     `json:"minProperties,omitempty" protobuf:"bytes,22,opt,name=minProperties"`
	Required               []string                   `json:"required,omitempty" protobuf:"bytes,23,rep,name=required"`
	Items                  *JSONSchemaPropsOrArray    `json:"items,omitempty" protobuf:"bytes,24,opt,name=items"`
	AllOf                  []JSONSchemaProps          `json:"allOf,omitempty" protobuf:"bytes,25,rep,name=allOf"`
	OneOf                  []JSONSchemaProps          `json:"oneOf,omitempty" protobuf:"bytes,26,rep,name=oneOf"`
	AnyOf                  []JSONSchemaProps          `json:"anyOf,omitempty" protobuf:"bytes,27,rep,name=anyOf"`
	Not                    *JSONSchemaProps           `json:"not,omitempty" protobuf:"bytes,28,opt,name=not"`
	Properties             map[string]JSONSchemaProps `json:"properties,omitempty" protobuf:"bytes,29,rep,name=properties"`
	AdditionalProperties   *JSONSchemaPropsOrBool     `json:"additionalProperties,omitempty" protobuf:"bytes,30,opt,name=additionalProperties"`
	PatternProperties      map[string]JSONSchemaProps `json:"patternProperties,omitempty" protobuf:"bytes,31,rep,name=patternProperties"`
	Dependencies           JSONSchemaDependencies     `json:"dependencies,omitempty" protobuf:"bytes,32,opt,name=dependencies"`
	AdditionalItems        *JSONSchemaPropsOrBool     `json:"additionalItems,omitempty" protobuf:"bytes,33,opt,name=additionalItems"`
	Definitions            JSONSchemaDefinitions      `json:"definitions,omitempty" protobuf:"bytes,34,opt,name=definitions"`
	ExternalDocs           *ExternalDocumentation     `json:"externalDocs,omitempty" protobuf:"bytes,35,opt,name=externalDocs"`
	Example                *JSON                      `json:"example,omitempty" protobuf:"bytes,36,opt,name=example"`
	Nullable               bool                       `json:"nullable,omitempty" protobuf:"bytes,37,opt,name=nullable"`
	XPreserveUnknownFields *bool                      `json:"x-kubernetes-preserve-unknown-fields,omitempty" protobuf:"bytes,38,opt,name=xKubernetesPreserveUnknownFields"`
	XEmbeddedResource      bool                       `json:"x-kubernetes-embedded-resource,omitempty" protobuf:"bytes,39,opt,name=xKubernetesEmbeddedResource"`
	XIntOrString           bool                       `json:"x-kubernetes-int-or-string,omitempty" protobuf:"bytes,40,opt,name=xKubernetesIntOrString"`
	XListMapKeys           []string                   `json:"x-kubernetes-list-map-keys,omitempty" protobuf:"bytes,41,rep,name=xKubernetesListMapKeys"`
	XListType              *string                    `json:"x-kubernetes-list-type,omitempty" protobuf:"bytes,42,opt,name=xKubernetesListType"`
	XMapType               *string                    `json:"x-kubernetes-map-type,omitempty" protobuf:"bytes,43,opt,name=xKubernetesMapType"`
	XValidations           []ValidationRule           `json:"x-kubernetes-validations,omitempty" patchStrategy:"merge" patchMergeKey:"rule" protobuf:"bytes,44,rep,name=xKubernetesValidations"`
}

// ValidationRule describes a CEL validation rule (accepted and stored; not evaluated here).
type ValidationRule struct {
	Rule              string  `json:"rule" protobuf:"bytes,1,opt,name=rule"`
	Message           string  `json:"message,omitempty" protobuf:"bytes,2,opt,name=message"`
	MessageExpression string  `json:"messageExpression,omitempty" protobuf:"bytes,3,opt,name=messageExpression"`
	Reason            *string `json:"reason,omitempty" protobuf:"bytes,4,opt,name=reason"`
	FieldPath         string  `json:"fieldPath,omitempty" protobuf:"bytes,5,opt,name=fieldPath"`
	OptionalOldSelf   *bool   `json:"optionalOldSelf,omitempty" protobuf:"bytes,6,opt,name=optionalOldSelf"`
}

// JSONSchemaURL represents a schema url.
type JSONSchemaURL string

// JSONSchemaDefinitions contains the models explicitly defined in this spec.
type JSONSchemaDefinitions map[string]JSONSchemaProps

// JSONSchemaDependencies represent a dependencies property.
type JSONSchemaDependencies map[string]JSONSchemaPropsOrStringArray

// ExternalDocumentation allows referencing an external resource for extended documentation.
type ExternalDocumentation struct {
	Description string `json:"description,omitempty" protobuf:"bytes,1,opt,name=description"`
	URL         string `json:"url,omitempty" protobuf:"bytes,2,opt,name=url"`
}

// JSON is any JSON value: a default, an enum member, an example.
type JSON struct {
	Raw []byte `json:"-" protobuf:"bytes,1,opt,name=raw"`
}

// MarshalJSON writes the raw value ("null" when empty).
func (j JSON) MarshalJSON() ([]byte, error) {
	if len(j.Raw) == 0 {
		return []byte("null"), nil
	}
	return j.Raw, nil
}

// UnmarshalJSON keeps the raw value.
func (j *JSON) UnmarshalJSON(data []byte) error {
	if !bytes.Equal(data, []byte("null")) {
		j.Raw = append(j.Raw[:0], data...)
	}
	return nil
}

// Value decodes the raw value (nil when empty or invalid).
func (j *JSON) Value() any {
	if j == nil || len(j.Raw) == 0 {
		return nil
	}
	var v any
	if json.Unmarshal(j.Raw, &v) != nil {
		return nil
	}
	return v
}

// JSONSchemaPropsOrArray represents a value that can either be a JSONSchemaProps
// or an array of JSONSchemaProps. Mainly here for serialization purposes.
type JSONSchemaPropsOrArray struct {
	Schema      *JSONSchemaProps  `protobuf:"bytes,1,opt,name=schema"`
	JSONSchemas []JSONSchemaProps `protobuf:"bytes,2,rep,name=jSONSchemas"`
}

// MarshalJSON writes the schema or the array.
func (s JSONSchemaPropsOrArray) MarshalJSON() ([]byte, error) {
	if len(s.JSONSchemas) > 0 {
		return json.Marshal(s.JSONSchemas)
	}
	return json.Marshal(s.Schema)
}

// UnmarshalJSON reads a schema object or an array of them.
func (s *JSONSchemaPropsOrArray) UnmarshalJSON(data []byte) error {
	*s = JSONSchemaPropsOrArray{}
	data = bytes.TrimSpace(data)
	switch {
	case len(data) > 0 && data[0] == '{':
		s.Schema = &JSONSchemaProps{}
		return json.Unmarshal(data, s.Schema)
	case len(data) > 0 && data[0] == '[':
		return json.Unmarshal(data, &s.JSONSchemas)
	case bytes.Equal(data, []byte("null")):
		return nil
	}
	return errors.New("JSONSchemaPropsOrArray: expected an object or an array")
}

// JSONSchemaPropsOrBool represents JSONSchemaProps or a boolean value.
// Defaults to true for the boolean property.
type JSONSchemaPropsOrBool struct {
	Allows bool             `protobuf:"varint,1,opt,name=allows"`
	Schema *JSONSchemaProps `protobuf:"bytes,2,opt,name=schema"`
}

// MarshalJSON writes the schema, or the boolean when there is none.
func (s JSONSchemaPropsOrBool) MarshalJSON() ([]byte, error) {
	if s.Schema != nil {
		return json.Marshal(s.Schema)
	}
	return json.Marshal(s.Allows)
}

// UnmarshalJSON reads a schema object (Allows: true) or a boolean.
func (s *JSONSchemaPropsOrBool) UnmarshalJSON(data []byte) error {
	*s = JSONSchemaPropsOrBool{}
	data = bytes.TrimSpace(data)
	switch {
	case len(data) > 0 && data[0] == '{':
		s.Allows, s.Schema = true, &JSONSchemaProps{}
		return json.Unmarshal(data, s.Schema)
	case bytes.Equal(data, []byte("true")):
		s.Allows = true
		return nil
	case bytes.Equal(data, []byte("false")), bytes.Equal(data, []byte("null")):
		return nil
	}
	return errors.New("JSONSchemaPropsOrBool: expected an object or a boolean")
}

// JSONSchemaPropsOrStringArray represents a JSONSchemaProps or a string array.
type JSONSchemaPropsOrStringArray struct {
	Schema   *JSONSchemaProps `protobuf:"bytes,1,opt,name=schema"`
	Property []string         `protobuf:"bytes,2,rep,name=property"`
}

// MarshalJSON writes the array or the schema.
func (s JSONSchemaPropsOrStringArray) MarshalJSON() ([]byte, error) {
	if len(s.Property) > 0 {
		return json.Marshal(s.Property)
	}
	return json.Marshal(s.Schema)
}

// UnmarshalJSON reads a schema object or an array of strings.
func (s *JSONSchemaPropsOrStringArray) UnmarshalJSON(data []byte) error {
	*s = JSONSchemaPropsOrStringArray{}
	data = bytes.TrimSpace(data)
	switch {
	case len(data) > 0 && data[0] == '{':
		s.Schema = &JSONSchemaProps{}
		return json.Unmarshal(data, s.Schema)
	case len(data) > 0 && data[0] == '[':
		return json.Unmarshal(data, &s.Property)
	case bytes.Equal(data, []byte("null")):
		return nil
	}
	return errors.New("JSONSchemaPropsOrStringArray: expected an object or an array")
}
