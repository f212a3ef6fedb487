package apiextensions

import (
	"encoding/json"
	"fmt"
	"math"
	"strings"

	"kubik/ch01-apiserver/api/autoscalingv1"
	"kubik/ch01-apiserver/api/metav1"
	"kubik/ch01-apiserver/apiserver/validation/field"
)

// The scale subresource and selectable fields read and write a custom
// object through simple JSON paths (".spec.replicas"), as upstream's
// unstructured.NestedInt64 and friends do, with their error texts.

func splitPath(p string) []string { return strings.Split(strings.TrimPrefix(p, "."), ".") }

// nestedInt64 reads an integer; a missing field is (0, false, nil).
func nestedInt64(obj map[string]any, path string) (int64, bool, error) {
	fields := splitPath(path)
	var cur any = obj
	for i, f := range fields {
		m, ok := cur.(map[string]any)
		if !ok {
			return 0, false, fmt.Errorf("%s accessor error: %v is of the type %s, expected map[string]interface{}", path, printJSONValue(cur), goType(cur))
		}
		v, found := m[f]
		if !found {
			return 0, false, nil
		}
		if i == len(fields)-1 {
			n, ok := v.(json.Number)
			if !ok || !isInteger(n) {
				return 0, false, fmt.Errorf("%s accessor error: %v is of the type %s, expected int64", path, printJSONValue(v), goType(v))
			}
			i64, _ := n.Int64()
			return i64, true, nil
		}
		cur = v
	}
	return 0, false, nil
}

func nestedString(obj map[string]any, path string) (string, bool, error) {
	v, found := NestedField(obj, splitPath(path)...)
	if !found || v == nil {
		return "", false, nil
	}
	s, ok := v.(string)
	if !ok {
		return "", false, fmt.Errorf("%s accessor error: %v is of the type %s, expected string", path, printJSONValue(v), goType(v))
	}
	return s, true, nil
}

// ScaleOf is the autoscaling/v1 Scale of u (upstream's scaleFromCustomResource).
func (s *Served) ScaleOf(u *Unstructured) (*autoscalingv1.Scale, error) {
	sc := s.Version.Subresources.Scale
	spec, _, err := nestedInt64(u.Object, sc.SpecReplicasPath)
	if err != nil {
		return nil, err
	}
	status, _, err := nestedInt64(u.Object, sc.StatusReplicasPath)
	if err != nil {
		return nil, err
	}
	selector := ""
	if sc.LabelSelectorPath != nil {
		if selector, _, err = nestedString(u.Object, *sc.LabelSelectorPath); err != nil {
			return nil, err
		}
	}
	out := &autoscalingv1.Scale{
		TypeMeta: metav1.TypeMeta{Kind: "Scale", APIVersion: "autoscaling/v1"},
		ObjectMeta: metav1.ObjectMeta{Name: u.Name, Namespace: u.Namespace, UID: u.UID,
			ResourceVersion: u.ResourceVersion, CreationTimestamp: u.CreationTimestamp},
	}
	out.Spec.Replicas = int32(spec)
	out.Status.Replicas = int32(status)
	out.Status.Selector = selector
	return out, nil
}

// SetSpecReplicas writes the replicas at specReplicasPath.
func (s *Served) SetSpecReplicas(u *Unstructured, n int32) error {
	if u.Object == nil {
		u.Object = map[string]any{}
	}
	return SetNestedField(u.Object, json.Number(fmt.Sprint(n)), splitPath(s.Version.Subresources.Scale.SpecReplicasPath)...)
}

// ValidateScale checks the values behind the scale paths (upstream's
// validateScaleSpec / validateScaleStatus): status is checked only on
// updates of the status.
func (s *Served) ValidateScale(u *Unstructured, status bool) field.ErrorList {
	if s.Version.Subresources == nil || s.Version.Subresources.Scale == nil {
		return nil
	}
	sc := s.Version.Subresources.Scale
	var errs field.ErrorList
	check := func(path string) {
		n, _, err := nestedInt64(u.Object, path)
		p := field.NewPath(path)
		switch {
		case err != nil:
			errs = append(errs, field.Invalid(p, n, err.Error()))
		case n < 0:
			errs = append(errs, field.Invalid(p, n, "should be a non-negative integer"))
		case n > math.MaxInt32:
			errs = append(errs, field.Invalid(p, n, fmt.Sprintf("should be less than or equal to %v", math.MaxInt32)))
		}
	}
	if !status {
		check(sc.SpecReplicasPath)
		return errs
	}
	check(sc.StatusReplicasPath)
	if sc.LabelSelectorPath != nil {
		if _, _, err := nestedString(u.Object, *sc.LabelSelectorPath); err != nil {
			errs = append(errs, field.Invalid(field.NewPath(*sc.LabelSelectorPath), "", err.Error()))
		}
	}
	return errs
}

// SelectableFields is the field set field selectors match: metadata.name,
// metadata.namespace and the version's selectableFields (their values as
// strings; a missing field is "").
func (s *Served) SelectableFields(u *Unstructured) map[string]string {
	set := map[string]string{"metadata.name": u.Name}
	if u.Namespace != "" {
		set["metadata.namespace"] = u.Namespace
	}
	for _, f := range s.Version.SelectableFields {
		v, _ := NestedField(u.Object, splitPath(f.JSONPath)...)
		switch v.(type) {
		case map[string]any, []any:
			v = nil
		}
		set[strings.TrimPrefix(f.JSONPath, ".")] = printJSONValue(v)
	}
	return set
}

// HasSelectableField reports whether field selectors may use name.
func (s *Served) HasSelectableField(name string) bool {
	if name == "metadata.name" || name == "metadata.namespace" {
		return true
	}
	for _, f := range s.Version.SelectableFields {
		if strings.TrimPrefix(f.JSONPath, ".") == name {
			return true
		}
	}
	return false
}
