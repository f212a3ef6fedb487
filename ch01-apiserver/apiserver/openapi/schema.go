package openapi

import (
	"encoding/json"
	"reflect"
	"regexp"
	"strings"

	"kubik/ch01-apiserver/api/appsv1"
	"kubik/ch01-apiserver/api/intstr"
	"kubik/ch01-apiserver/api/metav1"
	"kubik/ch01-apiserver/api/resource"
)

// Schema is the subset of an OpenAPI schema object our documents use.
// Field order is the order of the JSON output.
type Schema struct {
	Description          string             `json:"description,omitempty"`
	Type                 string             `json:"type,omitempty"`
	Format               string             `json:"format,omitempty"`
	Ref                  string             `json:"$ref,omitempty"`
	AllOf                []*Schema          `json:"allOf,omitempty"`
	OneOf                []*Schema          `json:"oneOf,omitempty"`
	Default              json.RawMessage    `json:"default,omitempty"`
	Items                *Schema            `json:"items,omitempty"`
	Properties           map[string]*Schema `json:"properties,omitempty"`
	AdditionalProperties *Schema            `json:"additionalProperties,omitempty"`
	Required             []string           `json:"required,omitempty"`

	GroupVersionKind      []GroupVersionKind `json:"x-kubernetes-group-version-kind,omitempty"`
	ListMapKeys           []string           `json:"x-kubernetes-list-map-keys,omitempty"`
	ListType              string             `json:"x-kubernetes-list-type,omitempty"`
	PatchMergeKey         string             `json:"x-kubernetes-patch-merge-key,omitempty"`
	PatchStrategy         string             `json:"x-kubernetes-patch-strategy,omitempty"`
	PreserveUnknownFields bool               `json:"x-kubernetes-preserve-unknown-fields,omitempty"`
	UniqueItems           bool               `json:"uniqueItems,omitempty"`
}

// GroupVersionKind is the value of x-kubernetes-group-version-kind.
type GroupVersionKind struct {
	Group   string `json:"group"`
	Kind    string `json:"kind"`
	Version string `json:"version"`
}

var (
	emptyObject = json.RawMessage(`{}`)

	timeType      = reflect.TypeFor[metav1.Time]()
	microTimeType = reflect.TypeFor[metav1.MicroTime]()
	durationType  = reflect.TypeFor[metav1.Duration]()
	fieldsV1Type  = reflect.TypeFor[metav1.FieldsV1]()
	quantityType  = reflect.TypeFor[resource.Quantity]()
	intOrStrType  = reflect.TypeFor[intstr.IntOrString]()
	rawJSONType   = reflect.TypeFor[json.RawMessage]()
	// rawExtType is our runtime.RawExtension (ControllerRevision.data, DRA's
	// opaque parameters): upstream's schema is a free-form object.
	rawExtType = reflect.TypeFor[appsv1.RawExtension]()
)

// versionedPackage matches our per-group-version package names: corev1, appsv1, autoscalingv2beta1.
var versionedPackage = regexp.MustCompile(`^([a-z]+?)(v[0-9]+(?:(?:alpha|beta)[0-9]+)?)$`)

// definitionName is upstream's name of the schema of t: the Go package path
// of the upstream type, reversed domain first. corev1.Pod is
// io.k8s.api.core.v1.Pod; metav1.ObjectMeta is
// io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta.
func definitionName(t reflect.Type) string {
	if t == rawJSONType || t == rawExtType {
		return "io.k8s.apimachinery.pkg.runtime.RawExtension"
	}
	pkg := t.PkgPath()
	pkg = pkg[strings.LastIndex(pkg, "/")+1:]
	switch pkg {
	case "metav1":
		return "io.k8s.apimachinery.pkg.apis.meta.v1." + t.Name()
	case "resource":
		return "io.k8s.apimachinery.pkg.api.resource." + t.Name()
	case "intstr":
		return "io.k8s.apimachinery.pkg.util.intstr." + t.Name()
	}
	if m := versionedPackage.FindStringSubmatch(pkg); m != nil {
		return "io.k8s.api." + m[1] + "." + m[2] + "." + t.Name()
	}
	return "io.k8s.kubik." + pkg + "." + t.Name()
}

// goName is "corev1.PodSpec", the key of the descriptions map.
func goName(t reflect.Type) string {
	pkg := t.PkgPath()
	return pkg[strings.LastIndex(pkg, "/")+1:] + "." + t.Name()
}

// builder collects the definitions reachable from a set of kinds.
type builder struct {
	v2   bool // v2 references are {$ref: "#/definitions/..."}; v3 are "#/components/schemas/..."
	defs map[string]*Schema
	gvks map[reflect.Type][]GroupVersionKind
}

func newBuilder(v2 bool, gvks map[reflect.Type][]GroupVersionKind) *builder {
	return &builder{v2: v2, defs: map[string]*Schema{}, gvks: gvks}
}

func (b *builder) refPrefix() string {
	if b.v2 {
		return "#/definitions/"
	}
	return "#/components/schemas/"
}

// ref returns a reference to the definition of the named type t, defining it
// (and everything it references) on first use.
func (b *builder) ref(t reflect.Type) string {
	name := definitionName(t)
	if _, ok := b.defs[name]; !ok {
		b.defs[name] = nil // placeholder: breaks cycles
		b.defs[name] = b.definition(t)
	}
	return b.refPrefix() + name
}

// definition is the schema of the named type t itself.
func (b *builder) definition(t reflect.Type) *Schema {
	desc := describe(goName(t))
	switch t {
	case timeType, microTimeType:
		return &Schema{Description: desc, Type: "string", Format: "date-time"}
	case durationType:
		return &Schema{Description: desc, Type: "string"}
	case fieldsV1Type, rawJSONType:
		return &Schema{Description: desc, Type: "object"}
	case quantityType:
		if b.v2 {
			return &Schema{Description: desc, Type: "string"}
		}
		return &Schema{Description: desc, OneOf: []*Schema{{Type: "string"}, {Type: "number"}}}
	case intOrStrType:
		if b.v2 {
			return &Schema{Description: desc, Type: "string", Format: "int-or-string"}
		}
		return &Schema{Description: desc, OneOf: []*Schema{{Type: "integer"}, {Type: "string"}}, Format: "int-or-string"}
	}
	s := &Schema{Description: desc, Type: "object", Properties: map[string]*Schema{}, GroupVersionKind: b.gvks[t]}
	b.addFields(s, t)
	if len(s.Properties) == 0 {
		s.Properties = nil
	}
	return s
}

// addFields adds the JSON fields of struct t to s, flattening inlined embedded structs.
func (b *builder) addFields(s *Schema, t reflect.Type) {
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		if !f.IsExported() {
			continue
		}
		tag := f.Tag.Get("json")
		if tag == "-" {
			continue
		}
		name, opts, _ := strings.Cut(tag, ",")
		if f.Anonymous && (name == "" || strings.Contains(opts, "inline")) {
			ft := f.Type
			if ft.Kind() == reflect.Pointer {
				ft = ft.Elem()
			}
			if ft.Kind() == reflect.Struct {
				b.addFields(s, ft)
				continue
			}
		}
		if name == "" {
			name = f.Name
		}
		omitempty := strings.Contains(opts, "omitempty") || strings.Contains(opts, "omitzero")
		p := b.fieldSchema(f.Type, !omitempty)
		p.Description = describe(goName(t) + "." + f.Name)
		p.PatchStrategy = f.Tag.Get("patchStrategy")
		p.PatchMergeKey = f.Tag.Get("patchMergeKey")
		if lt, ok := listTypes[goName(t)+"."+f.Name]; ok {
			p.ListType, p.ListMapKeys = lt.listType, lt.keys
		}
		wrapRef(p)
		s.Properties[name] = p
		if !omitempty && name != "metadata" && f.Type.Kind() != reflect.Pointer {
			s.Required = append(s.Required, name)
		}
	}
}

// wrapRef moves a reference with siblings into allOf, as upstream's v3
// documents do: in OpenAPI 3.0, the siblings of a $ref are ignored.
func wrapRef(s *Schema) {
	if s.Ref != "" && !strings.HasPrefix(s.Ref, "#/definitions/") && (s.Description != "" || s.Default != nil) {
		s.AllOf = []*Schema{{Ref: s.Ref}}
		s.Ref = ""
	}
}

// fieldSchema is the schema of a value of type t: inline for scalars, arrays
// and maps, a reference for named structs. Non-pointer values get upstream's
// defaults (a struct {}, a required string "").
func (b *builder) fieldSchema(t reflect.Type, required bool) *Schema {
	pointer := t.Kind() == reflect.Pointer
	if pointer {
		t = t.Elem()
	}
	switch {
	case t == rawJSONType:
		return &Schema{Ref: b.ref(t)}
	case t.Kind() == reflect.Struct:
		s := &Schema{Ref: b.ref(t)}
		if !pointer && t != timeType && t != microTimeType {
			s.Default = emptyObject
		}
		return s
	case t.Kind() == reflect.Slice && t.Elem().Kind() == reflect.Uint8:
		return &Schema{Type: "string", Format: "byte"}
	case t.Kind() == reflect.Slice:
		items := b.fieldSchema(t.Elem(), true)
		wrapRef(items)
		return &Schema{Type: "array", Items: items}
	case t.Kind() == reflect.Map:
		values := b.fieldSchema(t.Elem(), true)
		wrapRef(values)
		return &Schema{Type: "object", AdditionalProperties: values}
	case t.Kind() == reflect.Interface:
		return &Schema{Type: "object", PreserveUnknownFields: true}
	}
	s := scalarSchema(t)
	if required && !pointer {
		switch s.Type {
		case "string":
			s.Default = json.RawMessage(`""`)
		case "integer", "number":
			s.Default = json.RawMessage(`0`)
		case "boolean":
			s.Default = json.RawMessage(`false`)
		}
	}
	return s
}

// scalarSchema maps Go kinds to OpenAPI types, as openapi-gen does.
func scalarSchema(t reflect.Type) *Schema {
	switch t.Kind() {
	case reflect.Bool:
		return &Schema{Type: "boolean"}
	case reflect.Int64, reflect.Uint64:
		return &Schema{Type: "integer", Format: "int64"}
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32:
		return &Schema{Type: "integer", Format: "int32"}
	case reflect.Float64:
		return &Schema{Type: "number", Format: "double"}
	case reflect.Float32:
		return &Schema{Type: "number", Format: "float"}
	}
	return &Schema{Type: "string"}
}

// listType is an x-kubernetes-list-type marker upstream puts on a field.
type listType struct {
	listType string
	keys     []string
}

// listTypes holds the markers of the best-known lists (upstream writes them
// as +listType comments, which our types do not carry).
var listTypes = map[string]listType{
	"corev1.Container.Ports":          {"map", []string{"containerPort", "protocol"}},
	"corev1.ServiceSpec.Ports":        {"map", []string{"port", "protocol"}},
	"corev1.PodSpec.Containers":       {"map", []string{"name"}},
	"corev1.PodSpec.InitContainers":   {"map", []string{"name"}},
	"corev1.PodSpec.Volumes":          {"map", []string{"name"}},
	"corev1.Container.Env":            {"map", []string{"name"}},
	"corev1.Container.VolumeMounts":   {"map", []string{"mountPath"}},
	"metav1.ObjectMeta.Finalizers":    {"set", nil},
	"metav1.ObjectMeta.ManagedFields": {"atomic", nil},
}

// describe returns the doc comment of a Go type or field ("corev1.Pod",
// "corev1.Pod.Spec"), falling back to upstream's text where ours has none.
func describe(key string) string {
	if d, ok := descriptions[key]; ok {
		return d
	}
	return fallbackDescriptions[key]
}

var fallbackDescriptions = map[string]string{
	"metav1.TypeMeta.APIVersion": "APIVersion defines the versioned schema of this representation of an object. Servers should convert recognized schemas to the latest internal value, and may reject unrecognized values. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#resources",
	"metav1.TypeMeta.Kind":       "Kind is a string value representing the REST resource this object represents. Servers may infer this from the endpoint the client submits requests to. Cannot be updated. In CamelCase. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#types-kinds",
}
