package apiextensions

import (
	apiextensionsv1 "kubik/ch01-apiserver/api/apiextensionsv1"
	apiservercel "kubik/ch01-apiserver/apiserver/cel"
)

// celSchema adapts a JSONSchemaProps to the schema CEL typing and cost
// estimation read. At the root and on embedded resources, apiVersion,
// kind and metadata (name and generateName) are there whether the schema
// lists them or not, as upstream's WithTypeAndObjectMeta adds them.
type celSchema struct {
	s        *apiextensionsv1.JSONSchemaProps
	withMeta bool
}

func newCELSchema(s *apiextensionsv1.JSONSchemaProps, root bool) *celSchema {
	if s == nil {
		return nil
	}
	return &celSchema{s: s, withMeta: root || s.XEmbeddedResource}
}

// asSchema avoids a typed nil in the interface.
func asSchema(c *celSchema) apiservercel.Schema {
	if c == nil {
		return nil
	}
	return c
}

func (c *celSchema) Type() string   { return c.s.Type }
func (c *celSchema) Format() string { return c.s.Format }
func (c *celSchema) Nullable() bool { return c.s.Nullable }

func (c *celSchema) Items() apiservercel.Schema {
	if c.s.Items == nil {
		return nil
	}
	return asSchema(newCELSchema(c.s.Items.Schema, false))
}

var (
	stringSchema   = apiextensionsv1.JSONSchemaProps{Type: "string"}
	metadataSchema = apiextensionsv1.JSONSchemaProps{Type: "object", Properties: map[string]apiextensionsv1.JSONSchemaProps{
		"name": stringSchema, "generateName": stringSchema,
	}}
)

func (c *celSchema) Properties() map[string]apiservercel.Schema {
	if len(c.s.Properties) == 0 && !c.withMeta {
		return nil
	}
	out := make(map[string]apiservercel.Schema, len(c.s.Properties)+3)
	for k := range c.s.Properties {
		p := c.s.Properties[k]
		out[k] = newCELSchema(&p, false)
	}
	if c.withMeta {
		for k, p := range map[string]*apiextensionsv1.JSONSchemaProps{"apiVersion": &stringSchema, "kind": &stringSchema, "metadata": &metadataSchema} {
			if _, ok := out[k]; !ok {
				out[k] = newCELSchema(p, false)
			}
		}
	}
	return out
}

func (c *celSchema) AdditionalProperties() apiservercel.Schema {
	if c.s.AdditionalProperties == nil {
		return nil
	}
	return asSchema(newCELSchema(c.s.AdditionalProperties.Schema, false))
}

func (c *celSchema) IsXIntOrString() bool      { return c.s.XIntOrString }
func (c *celSchema) IsXEmbeddedResource() bool { return c.s.XEmbeddedResource }
func (c *celSchema) IsXPreserveUnknownFields() bool {
	return c.s.XPreserveUnknownFields != nil && *c.s.XPreserveUnknownFields
}
func (c *celSchema) MaxLength() *int64     { return c.s.MaxLength }
func (c *celSchema) MaxItems() *int64      { return c.s.MaxItems }
func (c *celSchema) MaxProperties() *int64 { return c.s.MaxProperties }
