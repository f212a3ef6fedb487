package apiextensions

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"math"
	"net"
	"net/netip"
	"reflect"
	"regexp"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	apiextensionsv1 "kubik/ch01-apiserver/api/apiextensionsv1"
	"kubik/ch01-apiserver/apiserver/validation/field"
)

// Validation of a custom object's values against its version's schema:
// upstream's pkg/apiserver/validation, which runs kube-openapi's
// go-openapi-derived validator and turns its errors into field errors.
// The messages are that validator's ("spec.replicas in body should be
// less than or equal to 10").

// ValidateValues checks obj (without apiVersion, kind and metadata at the
// root) against s.
func ValidateValues(obj map[string]any, s *apiextensionsv1.JSONSchemaProps) field.ErrorList {
	v := &valueValidator{}
	v.object(obj, s, nil, 0, true)
	return v.errs
}

type valueValidator struct {
	errs field.ErrorList
}

func (v *valueValidator) add(e *field.Error) { v.errs = append(v.errs, e) }

// pathOf builds a field.Path from the steps; nil is the root.
func childPath(p *field.Path, name string) *field.Path {
	if p == nil {
		return field.NewPath(name)
	}
	return p.Child(name)
}

func (v *valueValidator) value(x any, s *apiextensionsv1.JSONSchemaProps, p *field.Path, depth int) {
	if s == nil || depth > maxSchemaDepth {
		return
	}
	ps := "<root>"
	if p != nil {
		ps = p.String()
	}
	if x == nil {
		if s.Nullable || s.Type == "" {
			return
		}
		v.add(field.Invalid(p, "null", fmt.Sprintf("%s in body must be of type %s: %q", ps, s.Type, "null")))
		return
	}
	actual := jsonType(x)
	if s.XIntOrString {
		if actual != "integer" && actual != "string" {
			v.add(field.Invalid(p, actual, fmt.Sprintf("%s in body must be of type integer,string: %q", ps, actual)))
			v.junctors(x, s, p, depth) // go-openapi runs them after a type error too
			return
		}
	} else if s.Type != "" && s.Type != actual && !(s.Type == "number" && actual == "integer") {
		v.add(field.Invalid(p, actual, fmt.Sprintf("%s in body must be of type %s: %q", ps, s.Type, actual)))
		v.junctors(x, s, p, depth)
		return
	}
	if len(s.Enum) > 0 {
		ok := false
		allowed := make([]string, 0, len(s.Enum))
		for _, e := range s.Enum {
			ev := e.Value()
			if equalJSON(ev, x) {
				ok = true
			}
			allowed = append(allowed, printJSONValue(ev))
		}
		if !ok {
			v.add(field.NotSupported(p, x, allowed))
		}
	}
	switch t := x.(type) {
	case map[string]any:
		v.object(t, s, p, depth, false)
	case []any:
		v.array(t, s, p, ps, depth)
	case string:
		v.str(t, s, p, ps)
	case json.Number:
		v.number(t, s, p, ps)
	}
	v.junctors(x, s, p, depth)
}

func (v *valueValidator) object(m map[string]any, s *apiextensionsv1.JSONSchemaProps, p *field.Path, depth int, root bool) {
	for _, k := range sortedKeys(m) {
		if root && (k == "apiVersion" || k == "kind" || k == "metadata") {
			continue
		}
		if prop, ok := s.Properties[k]; ok {
			v.value(m[k], &prop, childPath(p, k), depth+1)
		} else if ap := s.AdditionalProperties; ap != nil && ap.Schema != nil {
			v.value(m[k], ap.Schema, childPath(p, k), depth+1)
		}
	}
	for _, r := range s.Required {
		if _, ok := m[r]; !ok {
			v.add(field.Required(childPath(p, r), ""))
		}
	}
	if s.XEmbeddedResource {
		for _, k := range []string{"apiVersion", "kind"} {
			if x, ok := m[k]; !ok || x == "" {
				v.add(field.Required(childPath(p, k), ""))
			}
		}
	}
	if s.MaxProperties != nil && int64(len(m)) > *s.MaxProperties {
		v.add(field.TooMany(p, len(m), int(*s.MaxProperties)))
	}
	if s.MinProperties != nil && int64(len(m)) < *s.MinProperties {
		v.add(field.Invalid(p, len(m), fmt.Sprintf("%s in body should have at least %d properties", pathString(p), *s.MinProperties)))
	}
}

func pathString(p *field.Path) string {
	if p == nil {
		return "<root>"
	}
	return p.String()
}

func (v *valueValidator) array(l []any, s *apiextensionsv1.JSONSchemaProps, p *field.Path, ps string, depth int) {
	if s.MaxItems != nil && int64(len(l)) > *s.MaxItems {
		v.add(field.TooMany(p, len(l), int(*s.MaxItems)))
	}
	if s.MinItems != nil && int64(len(l)) < *s.MinItems {
		v.add(field.Invalid(p, len(l), fmt.Sprintf("%s in body should have at least %d items", ps, *s.MinItems)))
	}
	if s.XListType != nil && (*s.XListType == "set" || *s.XListType == "map") {
		v.listUniqueness(l, s, p)
	}
	if s.Items != nil && s.Items.Schema != nil {
		for i, e := range l {
			v.value(e, s.Items.Schema, p.Index(i), depth+1)
		}
	}
}

// listUniqueness: a set has no duplicates, a map list no two items with the same keys.
func (v *valueValidator) listUniqueness(l []any, s *apiextensionsv1.JSONSchemaProps, p *field.Path) {
	seen := map[string]bool{}
	for i, e := range l {
		key := e
		if *s.XListType == "map" {
			m, ok := e.(map[string]any)
			if !ok {
				continue
			}
			k := map[string]any{}
			for _, name := range s.XListMapKeys {
				k[name] = m[name]
			}
			key = k
		}
		b, _ := json.Marshal(key)
		if seen[string(b)] {
			v.add(field.Duplicate(p.Index(i), key))
		}
		seen[string(b)] = true
	}
}

var regexpCache sync.Map // pattern → *regexp.Regexp

func (v *valueValidator) str(x string, s *apiextensionsv1.JSONSchemaProps, p *field.Path, ps string) {
	n := int64(utf8.RuneCountInString(x))
	if s.MaxLength != nil && n > *s.MaxLength {
		v.add(field.TooLong(p, x, int(*s.MaxLength)))
		return // go-openapi's string validator stops at the first failed check
	}
	if s.MinLength != nil && n < *s.MinLength {
		v.add(field.Invalid(p, x, fmt.Sprintf("%s in body should be at least %d chars long", ps, *s.MinLength)))
		return
	}
	if s.Pattern != "" {
		re, ok := regexpCache.Load(s.Pattern)
		if !ok {
			compiled, err := regexp.Compile(s.Pattern)
			if err == nil {
				re, _ = regexpCache.LoadOrStore(s.Pattern, compiled)
			}
		}
		if r, ok := re.(*regexp.Regexp); ok && !r.MatchString(x) {
			v.add(field.Invalid(p, x, fmt.Sprintf("%s in body should match '%s'", ps, s.Pattern)))
		}
	}
	if s.Format != "" && !validFormat(s.Format, x) {
		v.add(field.Invalid(p, x, fmt.Sprintf("%s in body must be of type %s: %q", ps, s.Format, x)))
	}
}

func (v *valueValidator) number(x json.Number, s *apiextensionsv1.JSONSchemaProps, p *field.Path, ps string) {
	f, err := x.Float64()
	if err != nil {
		return
	}
	num := func(d float64) string { return strings.TrimSuffix(fmt.Sprintf("%v", d), ".0") }
	if s.Maximum != nil {
		if s.ExclusiveMaximum && f >= *s.Maximum {
			v.add(field.Invalid(p, x, fmt.Sprintf("%s in body should be less than %s", ps, num(*s.Maximum))))
		} else if f > *s.Maximum {
			v.add(field.Invalid(p, x, fmt.Sprintf("%s in body should be less than or equal to %s", ps, num(*s.Maximum))))
		}
	}
	if s.Minimum != nil {
		if s.ExclusiveMinimum && f <= *s.Minimum {
			v.add(field.Invalid(p, x, fmt.Sprintf("%s in body should be greater than %s", ps, num(*s.Minimum))))
		} else if f < *s.Minimum {
			v.add(field.Invalid(p, x, fmt.Sprintf("%s in body should be greater than or equal to %s", ps, num(*s.Minimum))))
		}
	}
	if s.MultipleOf != nil && *s.MultipleOf != 0 {
		if q := f / *s.MultipleOf; q != math.Trunc(q) {
			v.add(field.Invalid(p, x, fmt.Sprintf("%s in body should be a multiple of %s", ps, num(*s.MultipleOf))))
		}
	}
}

// junctors: allOf, anyOf, oneOf and not. go-openapi reports a failed
// junctor without a field ("<nil>"), naming the path in the message; a
// failed anyOf adds the errors of its first alternative.
func (v *valueValidator) junctors(x any, s *apiextensionsv1.JSONSchemaProps, p *field.Path, depth int) {
	for i := range s.AllOf {
		v.value(x, &s.AllOf[i], p, depth+1)
	}
	try := func(sub *apiextensionsv1.JSONSchemaProps) field.ErrorList {
		w := &valueValidator{}
		w.value(x, sub, p, depth+1)
		return w.errs
	}
	junctor := func(detail string) *field.Error {
		return &field.Error{Type: field.ErrorTypeInvalid, Field: "<nil>", BadValue: "", Detail: fmt.Sprintf("%q %s", pathString(p), detail)}
	}
	if len(s.AnyOf) > 0 {
		var first field.ErrorList
		ok := false
		for i := range s.AnyOf {
			errs := try(&s.AnyOf[i])
			if len(errs) == 0 {
				ok = true
				break
			}
			if i == 0 {
				first = errs
			}
		}
		if !ok {
			v.add(junctor("must validate at least one schema (anyOf)"))
			v.errs = append(v.errs, first...)
		}
	}
	if len(s.OneOf) > 0 {
		n := 0
		for i := range s.OneOf {
			if len(try(&s.OneOf[i])) == 0 {
				n++
			}
		}
		switch {
		case n == 0:
			v.add(junctor("must validate one and only one schema (oneOf)"))
		case n > 1:
			v.add(junctor(fmt.Sprintf("must validate one and only one schema (oneOf). Found %d valid alternatives", n)))
		}
	}
	if s.Not != nil && len(try(s.Not)) == 0 {
		v.add(junctor("must not validate the schema (not)"))
	}
}

func equalJSON(a, b any) bool {
	an, aok := a.(json.Number)
	bn, bok := b.(json.Number)
	if aok && bok {
		af, _ := an.Float64()
		bf, _ := bn.Float64()
		return af == bf
	}
	return reflect.DeepEqual(a, b)
}

var (
	uuidRE  = regexp.MustCompile(`^(?i)[0-9a-f]{8}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{12}$`)
	emailRE = regexp.MustCompile(`^[^@\s]+@[^@\s]+$`)
	hostRE  = regexp.MustCompile(`^(?i)[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$`)
)

// validFormat checks the formats upstream's validator knows; unknown
// formats are not checked, as upstream.
func validFormat(format, s string) bool {
	switch format {
	case "date-time":
		_, err := time.Parse(time.RFC3339Nano, s)
		return err == nil
	case "date":
		_, err := time.Parse("2006-01-02", s)
		return err == nil
	case "byte":
		_, err := base64.StdEncoding.DecodeString(s)
		return err == nil
	case "uuid":
		return uuidRE.MatchString(s)
	case "email":
		return emailRE.MatchString(s)
	case "hostname":
		return len(s) <= 255 && hostRE.MatchString(s)
	case "ipv4":
		a, err := netip.ParseAddr(s)
		return err == nil && a.Is4()
	case "ipv6":
		a, err := netip.ParseAddr(s)
		return err == nil && a.Is6()
	case "cidr":
		_, _, err := net.ParseCIDR(s)
		return err == nil
	case "mac":
		_, err := net.ParseMAC(s)
		return err == nil
	case "duration":
		_, err := time.ParseDuration(s)
		return err == nil
	}
	return true
}

// ValidateEmbeddedTypes checks what decoding checks in embedded resources
// (x-kubernetes-embedded-resource): apiVersion and kind are strings and
// metadata an object; upstream reports these as decoding errors (400).
func ValidateEmbeddedTypes(obj map[string]any, s *apiextensionsv1.JSONSchemaProps) field.ErrorList {
	var errs field.ErrorList
	var walk func(x any, s *apiextensionsv1.JSONSchemaProps, p *field.Path, depth int)
	walk = func(x any, s *apiextensionsv1.JSONSchemaProps, p *field.Path, depth int) {
		if s == nil || depth > maxSchemaDepth {
			return
		}
		switch t := x.(type) {
		case map[string]any:
			if s.XEmbeddedResource && p != nil {
				for _, k := range []string{"apiVersion", "kind"} {
					if v, ok := t[k]; ok && v != nil {
						if _, isString := v.(string); !isString {
							errs = append(errs, field.Invalid(p.Child(k), v, "must be a string"))
						}
					}
				}
				if v, ok := t["metadata"]; ok && v != nil {
					if _, isMap := v.(map[string]any); !isMap {
						errs = append(errs, field.Invalid(p.Child("metadata"), v, "must be an object"))
					}
				}
			}
			for _, k := range sortedKeys(t) {
				if prop, ok := s.Properties[k]; ok {
					walk(t[k], &prop, childPath(p, k), depth+1)
				} else if ap := s.AdditionalProperties; ap != nil && ap.Schema != nil {
					walk(t[k], ap.Schema, childPath(p, k), depth+1)
				}
			}
		case []any:
			if s.Items != nil && s.Items.Schema != nil && p != nil {
				for i, e := range t {
					walk(e, s.Items.Schema, p.Index(i), depth+1)
				}
			}
		}
	}
	walk(obj, s, nil, 0)
	return errs
}
