package openapi

import (
	"encoding/json"
	"math"

	"google.golang.org/protobuf/encoding/protowire"
)

// Field numbers of gnostic's openapi_v2 Schema message and its helpers
// (OpenAPIv2.proto).
const (
	definitionsAdditional = 1 // Definitions.additional_properties: repeated NamedSchema

	schemaRef                  = 1
	schemaFormat               = 2
	schemaTitle                = 3
	schemaDescription          = 4
	schemaMaximum              = 7
	schemaExclusiveMaximum     = 8
	schemaMinimum              = 9
	schemaExclusiveMinimum     = 10
	schemaMaxLength            = 11
	schemaMinLength            = 12
	schemaPattern              = 13
	schemaMaxItems             = 14
	schemaMinItems             = 15
	schemaUniqueItems          = 16
	schemaMaxProperties        = 17
	schemaMinProperties        = 18
	schemaRequired             = 19
	schemaEnum                 = 20
	schemaAdditionalProperties = 21
	schemaType                 = 22
	schemaItems                = 23
	schemaAllOf                = 24
	schemaProperties           = 25
	schemaVendorExtension      = 31

	additionalPropertiesSchema  = 1 // AdditionalPropertiesItem.schema
	additionalPropertiesBoolean = 2 // AdditionalPropertiesItem.boolean
	typeItemValue               = 1 // TypeItem.value
	itemsItemSchema             = 1 // ItemsItem.schema
	propertiesAdditional        = 1 // Properties.additional_properties: repeated NamedSchema
)

// encodeV2Schema writes one JSON schema (decoded into maps) as a gnostic
// Schema message. Vendor extensions (x-*) become Any values holding their
// YAML (JSON is YAML) text. depth bounds the recursion.
func encodeV2Schema(s map[string]any, depth int) []byte {
	var b []byte
	str := func(num protowire.Number, key string) {
		if v, ok := s[key].(string); ok && v != "" {
			b = appendString(b, num, v)
		}
	}
	double := func(num protowire.Number, key string) {
		if v, ok := s[key].(float64); ok {
			b = protowire.AppendTag(b, num, protowire.Fixed64Type)
			b = protowire.AppendFixed64(b, math.Float64bits(v))
		}
	}
	integer := func(num protowire.Number, key string) {
		if v, ok := s[key].(float64); ok {
			b = protowire.AppendTag(b, num, protowire.VarintType)
			b = protowire.AppendVarint(b, uint64(int64(v)))
		}
	}
	boolean := func(num protowire.Number, key string) {
		if isTrue(s[key]) {
			b = protowire.AppendTag(b, num, protowire.VarintType)
			b = protowire.AppendVarint(b, 1)
		}
	}
	str(schemaRef, "$ref")
	str(schemaFormat, "format")
	str(schemaTitle, "title")
	str(schemaDescription, "description")
	double(schemaMaximum, "maximum")
	boolean(schemaExclusiveMaximum, "exclusiveMaximum")
	double(schemaMinimum, "minimum")
	boolean(schemaExclusiveMinimum, "exclusiveMinimum")
	integer(schemaMaxLength, "maxLength")
	integer(schemaMinLength, "minLength")
	str(schemaPattern, "pattern")
	integer(schemaMaxItems, "maxItems")
	integer(schemaMinItems, "minItems")
	boolean(schemaUniqueItems, "uniqueItems")
	integer(schemaMaxProperties, "maxProperties")
	integer(schemaMinProperties, "minProperties")
	if req, ok := s["required"].([]any); ok {
		for _, f := range req {
			if name, ok := f.(string); ok {
				b = appendString(b, schemaRequired, name)
			}
		}
	}
	if enum, ok := s["enum"].([]any); ok {
		for _, v := range enum {
			b = appendMessage(b, schemaEnum, appendString(nil, anyYAML, string(mustJSON(v))))
		}
	}
	if t, ok := s["type"].(string); ok && t != "" {
		b = appendMessage(b, schemaType, appendString(nil, typeItemValue, t))
	}
	if depth < maxSchemaDepth {
		switch ap := s["additionalProperties"].(type) {
		case map[string]any:
			b = appendMessage(b, schemaAdditionalProperties,
				appendMessage(nil, additionalPropertiesSchema, encodeV2Schema(ap, depth+1)))
		case bool:
			v := uint64(0)
			if ap {
				v = 1
			}
			item := protowire.AppendTag(nil, additionalPropertiesBoolean, protowire.VarintType)
			b = appendMessage(b, schemaAdditionalProperties, protowire.AppendVarint(item, v))
		}
		if items, ok := s["items"].(map[string]any); ok {
			b = appendMessage(b, schemaItems, appendMessage(nil, itemsItemSchema, encodeV2Schema(items, depth+1)))
		}
		if all, ok := s["allOf"].([]any); ok {
			for _, a := range all {
				if m, ok := a.(map[string]any); ok {
					b = appendMessage(b, schemaAllOf, encodeV2Schema(m, depth+1))
				}
			}
		}
		if props, ok := s["properties"].(map[string]any); ok {
			var p []byte
			for _, name := range sortedKeys(props) {
				m, _ := props[name].(map[string]any)
				var named []byte
				named = appendString(named, namedName, name)
				named = appendMessage(named, namedValue, encodeV2Schema(m, depth+1))
				p = appendMessage(p, propertiesAdditional, named)
			}
			b = appendMessage(b, schemaProperties, p)
		}
	}
	for _, key := range sortedKeys(s) {
		if len(key) < 2 || key[:2] != "x-" {
			continue
		}
		raw, err := json.Marshal(s[key])
		if err != nil {
			continue
		}
		var ext []byte
		ext = appendString(ext, namedName, key)
		ext = appendMessage(ext, namedValue, appendString(nil, anyYAML, string(raw)))
		b = appendMessage(b, schemaVendorExtension, ext)
	}
	return b
}
