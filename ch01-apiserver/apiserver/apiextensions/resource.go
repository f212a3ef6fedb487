package apiextensions

import (
	"reflect"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"

	apiextensionsv1 "kubik/ch01-apiserver/api/apiextensionsv1"
	"kubik/ch01-apiserver/api/metav1"
	"kubik/ch01-apiserver/api/scheme"
)

// Served is one served version of an Established CRD: the scheme.Resource
// the generic REST code works with, and what that code asks of the CRD
// (schema, printer columns, selectable fields). Upstream keeps the same
// per-version information in customresource_handler.go's crdInfo.
type Served struct {
	CRD      *apiextensionsv1.CustomResourceDefinition
	Version  apiextensionsv1.CustomResourceDefinitionVersion
	Resource *scheme.Resource
	// Schema is this version's openAPIV3Schema (never nil: an empty schema
	// with x-kubernetes-preserve-unknown-fields when the CRD has none).
	Schema *apiextensionsv1.JSONSchemaProps
	// CEL runs the schema's x-kubernetes-validations rules (nil when it
	// has none), compiled once here rather than on every write.
	CEL *CELValidator

	applyType reflect.Type // built by BuildServed (applyshape.go)
	// servesStored: this version is the storage version and its defaults
	// are found by decoding only the members in defaulted, the top-level
	// members whose schema has defaults (StoredServable).
	servesStored bool
	defaulted    map[string]bool
}

// ServesStored reports whether objects of this version can be served as
// they are stored, when StoredServable says so of each.
func (s *Served) ServesStored() bool { return s.servesStored }

// StoredServable reports whether a stored object of the storage version,
// as it is, is what a read of this version serves: reading defaults it
// again, and the defaults, applied when it was written, change nothing
// (they do when the schema got a default later). Only the members whose
// schema has defaults are decoded. False when unsure.
func (s *Served) StoredServable(value []byte) bool {
	if !s.servesStored {
		return false
	}
	if len(s.defaulted) == 0 {
		return true
	}
	obj := make(map[string]any, len(s.defaulted))
	ok := scanMembers(value, func(key string, raw []byte) bool {
		if !s.defaulted[key] {
			return true
		}
		v, err := decodeJSONValue(raw)
		if err != nil {
			return false
		}
		obj[key] = v
		return true
	})
	return ok && !defaultValue(obj, s.Schema, 0)
}

// scanMembers calls f with each member of the JSON object data, its key
// (as written: escaped keys are not unescaped, and match nothing) and its
// raw value, without decoding the values; false when data is not an
// object it can read or f says stop. One pass over data, no recursion.
func scanMembers(data []byte, f func(key string, raw []byte) bool) bool {
	i := skipSpace(data, 0)
	if i >= len(data) || data[i] != '{' {
		return false
	}
	i = skipSpace(data, i+1)
	if i < len(data) && data[i] == '}' {
		return true
	}
	for i < len(data) {
		if data[i] != '"' {
			return false
		}
		end := endOfValue(data, i)
		if end < 0 {
			return false
		}
		key := string(data[i+1 : end-1])
		if strings.IndexByte(key, '\\') >= 0 {
			return false // an escaped key: decode the whole object instead
		}
		i = skipSpace(data, end)
		if i >= len(data) || data[i] != ':' {
			return false
		}
		start := skipSpace(data, i+1)
		end = endOfValue(data, start)
		if end < 0 || !f(key, data[start:end]) {
			return false
		}
		i = skipSpace(data, end)
		if i >= len(data) {
			return false
		}
		switch data[i] {
		case '}':
			return true
		case ',':
			i = skipSpace(data, i+1)
		default:
			return false
		}
	}
	return false
}

func skipSpace(data []byte, i int) int {
	for i < len(data) && (data[i] == ' ' || data[i] == '\t' || data[i] == '\n' || data[i] == '\r') {
		i++
	}
	return i
}

// endOfValue returns the index just after the JSON value starting at i
// (-1 when it does not end): strings, objects and arrays by their
// delimiters, anything else up to the next delimiter. The value itself is
// checked later by whoever decodes it.
func endOfValue(data []byte, i int) int {
	if i >= len(data) {
		return -1
	}
	depth := 0
	for j := i; j < len(data); j++ {
		switch c := data[j]; c {
		case '"':
			for j++; j < len(data) && data[j] != '"'; j++ {
				if data[j] == '\\' {
					j++
				}
			}
			if j >= len(data) {
				return -1
			}
			if depth == 0 {
				return j + 1
			}
		case '{', '[':
			depth++
		case '}', ']':
			if depth == 0 {
				return j // the end of a scalar right before the enclosing object's end
			}
			depth--
			if depth == 0 {
				return j + 1
			}
		case ',', ' ', '\t', '\n', '\r':
			if depth == 0 {
				return j
			}
		}
	}
	if depth == 0 && len(data) > i {
		return len(data)
	}
	return -1
}

// Registry is one apiserver's set of custom resources. It is per Server,
// not global: several apiservers run in one test process, each with the
// CRDs of its own storage.
type Registry struct {
	mu     sync.RWMutex
	byCRD  map[string][]*Served // CRD name → its served versions
	byRes  map[*scheme.Resource]*Served
	sorted []*scheme.Resource // groups by name, versions by priority
}

// NewRegistry returns an empty registry.
func NewRegistry() *Registry {
	return &Registry{byCRD: map[string][]*Served{}, byRes: map[*scheme.Resource]*Served{}}
}

// Set serves crd's served versions (replacing what was served for it).
func (r *Registry) Set(crd *apiextensionsv1.CustomResourceDefinition) {
	served := BuildServed(crd)
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, s := range r.byCRD[crd.Name] {
		delete(r.byRes, s.Resource)
	}
	r.byCRD[crd.Name] = served
	for _, s := range served {
		r.byRes[s.Resource] = s
	}
	r.resort()
}

// Remove stops serving the CRD's resources.
func (r *Registry) Remove(name string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, s := range r.byCRD[name] {
		delete(r.byRes, s.Resource)
	}
	delete(r.byCRD, name)
	r.resort()
}

func (r *Registry) resort() {
	r.sorted = r.sorted[:0:0]
	for _, list := range r.byCRD {
		for _, s := range list {
			r.sorted = append(r.sorted, s.Resource)
		}
	}
	sort.SliceStable(r.sorted, func(i, j int) bool {
		a, b := r.sorted[i], r.sorted[j]
		if a.Group != b.Group {
			return a.Group < b.Group
		}
		if a.Version != b.Version {
			return CompareKubeAwareVersionStrings(a.Version, b.Version) > 0
		}
		return a.Resource < b.Resource
	})
}

// Lookup finds a served custom resource (nil if none).
func (r *Registry) Lookup(group, version, resource string) *scheme.Resource {
	r.mu.RLock()
	defer r.mu.RUnlock()
	for _, res := range r.sorted {
		if res.Group == group && res.Version == version && res.Resource == resource {
			return res
		}
	}
	return nil
}

// Served returns what the registry knows about res (nil: a built-in kind).
func (r *Registry) Served(res *scheme.Resource) *Served {
	if r == nil {
		return nil
	}
	r.mu.RLock()
	defer r.mu.RUnlock()
	return r.byRes[res]
}

// Resources lists the served custom resources, groups sorted by name,
// each group's versions by upstream's version priority.
func (r *Registry) Resources() []*scheme.Resource {
	r.mu.RLock()
	defer r.mu.RUnlock()
	return append([]*scheme.Resource(nil), r.sorted...)
}

// BuildServed builds the served versions of crd, sorted by version priority.
func BuildServed(crd *apiextensionsv1.CustomResourceDefinition) []*Served {
	names := crd.Status.AcceptedNames
	if names.Plural == "" {
		names = crd.Spec.Names
	}
	storage := apiextensionsv1.StorageVersion(crd)
	var out []*Served
	for _, v := range crd.Spec.Versions {
		if !v.Served {
			continue
		}
		s := &Served{CRD: crd, Version: v, servesStored: v.Name == storage}
		if v.Schema != nil && v.Schema.OpenAPIV3Schema != nil {
			s.Schema = v.Schema.OpenAPIV3Schema
		} else {
			t := true
			s.Schema = &apiextensionsv1.JSONSchemaProps{Type: "object", XPreserveUnknownFields: &t}
		}
		s.CEL = NewCELValidator(s.Schema)
		s.defaulted = map[string]bool{}
		for k, p := range s.Schema.Properties {
			if hasDefaults(&p, 1) {
				s.defaulted[k] = true
			}
		}
		if ap := s.Schema.AdditionalProperties; ap != nil && hasDefaults(ap.Schema, 1) {
			s.servesStored = false // any member may be defaulted
		}
		res := &scheme.Resource{
			Group: crd.Spec.Group, Version: v.Name, Resource: names.Plural, Singular: names.Singular, Kind: names.Kind,
			Namespaced: crd.Spec.Scope == apiextensionsv1.NamespaceScoped, ShortNames: names.ShortNames, Categories: names.Categories,
			Verbs: scheme.AllVerbs, StoragePrefix: crd.Spec.Group + "/" + names.Plural, Generation: true,
			New: func() metav1.Object { return &Unstructured{} },
		}
		if sub := v.Subresources; sub != nil {
			if sub.Status != nil {
				res.Subresources = append(res.Subresources, scheme.Subresource{Name: "status", Kind: names.Kind, Verbs: scheme.SubresourceRW})
			}
			if sub.Scale != nil {
				res.Subresources = append(res.Subresources, scheme.Subresource{Name: "scale", Group: "autoscaling", Version: "v1", Kind: "Scale", Verbs: scheme.SubresourceRW})
			}
		}
		// Every version is stored as the storage version (conversion "None":
		// only apiVersion changes); reads are defaulted with the served
		// version's schema, as upstream defaults on read.
		schema := s.Schema
		res.Storage = &scheme.StorageConversion{
			New: func() metav1.Object { return &Unstructured{} }, APIVersion: crd.Spec.Group + "/" + storage, Kind: names.Kind,
			ToStorage: func(o metav1.Object) metav1.Object {
				u := *o.(*Unstructured)
				return &u
			},
			FromStorage: func(o metav1.Object) metav1.Object {
				u := o.(*Unstructured)
				Default(u.Object, schema)
				return u
			},
		}
		if v.Name == storage && !hasDefaults(schema, 0) {
			res.Storage = nil // stored as served, nothing to default: lists stream the stored bytes
		}
		s.Resource = res
		s.applyType = buildApplyType(s.Schema)
		out = append(out, s)
	}
	sort.SliceStable(out, func(i, j int) bool {
		return CompareKubeAwareVersionStrings(out[i].Version.Name, out[j].Version.Name) > 0
	})
	return out
}

var kubeVersion = regexp.MustCompile(`^v([\d]+)(?:(alpha|beta)([\d]+))?$`)

// CompareKubeAwareVersionStrings orders versions as upstream's discovery
// does: GA before beta before alpha, higher numbers first, then the
// versions that do not look like Kubernetes versions, by name. It
// returns >0 when v1 has the higher priority.
func CompareKubeAwareVersionStrings(v1, v2 string) int {
	if v1 == v2 {
		return 0
	}
	m1, m2 := kubeVersion.FindStringSubmatch(v1), kubeVersion.FindStringSubmatch(v2)
	switch {
	case m1 == nil && m2 == nil:
		if v1 < v2 {
			return 1
		}
		return -1
	case m1 == nil:
		return -1
	case m2 == nil:
		return 1
	}
	rank := func(m []string) int {
		switch m[2] {
		case "":
			return 2
		case "beta":
			return 1
		}
		return 0
	}
	if r1, r2 := rank(m1), rank(m2); r1 != r2 {
		return r1 - r2
	}
	a, _ := strconv.Atoi(m1[1])
	b, _ := strconv.Atoi(m2[1])
	if a != b {
		return a - b
	}
	a, _ = strconv.Atoi(m1[3])
	b, _ = strconv.Atoi(m2[3])
	return a - b
}

// hasDefaults reports whether any field of s has a default.
func hasDefaults(s *apiextensionsv1.JSONSchemaProps, depth int) bool {
	if s == nil || depth > maxSchemaDepth {
		return false
	}
	if s.Default != nil {
		return true
	}
	for _, p := range s.Properties {
		if hasDefaults(&p, depth+1) {
			return true
		}
	}
	if s.Items != nil && hasDefaults(s.Items.Schema, depth+1) {
		return true
	}
	return s.AdditionalProperties != nil && hasDefaults(s.AdditionalProperties.Schema, depth+1)
}
