package apiextensions

import (
	"context"
	"fmt"
	"reflect"
	"strings"

	"github.com/google/cel-go/common/types"
	"github.com/google/cel-go/common/types/ref"

	apiextensionsv1 "kubik/ch01-apiserver/api/apiextensionsv1"
	apiservercel "kubik/ch01-apiserver/apiserver/cel"
	"kubik/ch01-apiserver/apiserver/validation/field"
)

// Evaluation of x-kubernetes-validations on custom objects: upstream's
// pkg/apiserver/schema/cel/validation.go. A CELValidator is built once per
// served version; Validate runs each node's rules with self bound to the
// node's value and, on updates, oldSelf to the value at the same place in
// the old object, found through object fields, map keys and the keys of
// x-kubernetes-list-type=map lists (or equal items of sets). Rules using
// oldSelf are skipped where there is no old value, unless they set
// optionalOldSelf.

// CELValidator holds the compiled rules of one schema node and the
// validators of the descendants that have rules.
type CELValidator struct {
	schema     *apiextensionsv1.JSONSchemaProps
	cel        *celSchema
	rules      []ruleCompilation
	fieldPaths []string // normalized fieldPath of each rule ("" when none)
	properties map[string]*CELValidator
	items      *CELValidator
	values     *CELValidator // additionalProperties
}

// NewCELValidator compiles the rules of a structural schema; nil when the
// schema has none (or does not compile: the CRD was refused then).
func NewCELValidator(s *apiextensionsv1.JSONSchemaProps) *CELValidator {
	return newCELValidator(s, true, 0)
}

func newCELValidator(s *apiextensionsv1.JSONSchemaProps, root bool, depth int) *CELValidator {
	if s == nil || depth > maxSchemaDepth {
		return nil
	}
	v := &CELValidator{schema: s, cel: newCELSchema(s, root)}
	found := false
	if len(s.XValidations) > 0 {
		rules, err := compileRules(s, root)
		if err != nil {
			return nil
		}
		v.rules = rules
		v.fieldPaths = make([]string, len(rules))
		for i, r := range s.XValidations {
			if r.FieldPath != "" {
				v.fieldPaths[i], _ = validFieldPath(r.FieldPath, s)
			}
		}
		found = true
	}
	for k := range s.Properties {
		p := s.Properties[k]
		if c := newCELValidator(&p, false, depth+1); c != nil {
			if v.properties == nil {
				v.properties = map[string]*CELValidator{}
			}
			v.properties[k] = c
			found = true
		}
	}
	if s.Items != nil {
		if v.items = newCELValidator(s.Items.Schema, false, depth+1); v.items != nil {
			found = true
		}
	}
	if s.AdditionalProperties != nil {
		if v.values = newCELValidator(s.AdditionalProperties.Schema, false, depth+1); v.values != nil {
			found = true
		}
	}
	if !found {
		return nil
	}
	return v
}

// Validate runs the rules on obj (the whole custom object as decoded JSON,
// apiVersion, kind and metadata included) and old (nil on create).
func (v *CELValidator) Validate(ctx context.Context, obj, old map[string]any) field.ErrorList {
	if v == nil {
		return nil
	}
	budget := int64(apiservercel.RuntimeCELCostBudget)
	var oldValue any
	if old != nil {
		oldValue = rootValue(old)
	}
	errs, _ := v.validate(ctx, nil, rootValue(obj), oldValue, old != nil, budget, 0)
	return errs
}

// rootValue keeps of metadata only what root rules may see: name and
// generateName.
func rootValue(obj map[string]any) map[string]any {
	out := make(map[string]any, len(obj))
	for k, x := range obj {
		out[k] = x
	}
	if md, ok := obj["metadata"].(map[string]any); ok {
		m := map[string]any{}
		for _, k := range []string{"name", "generateName"} {
			if x, ok := md[k]; ok {
				m[k] = x
			}
		}
		out["metadata"] = m
	}
	return out
}

func (v *CELValidator) validate(ctx context.Context, p *field.Path, x, old any, hasOld bool, budget int64, depth int) (field.ErrorList, int64) {
	if v == nil || x == nil || depth > maxSchemaDepth {
		return nil, budget
	}
	var errs field.ErrorList
	errs, budget = v.validateRules(ctx, p, x, old, hasOld, budget)
	if budget < 0 {
		return errs, budget
	}
	var more field.ErrorList
	switch val := x.(type) {
	case map[string]any:
		oldMap, _ := old.(map[string]any)
		for _, k := range sortedKeys(val) {
			// Object fields are children (spec.a), map entries keys (labels[a]).
			c, cp := v.properties[k], childPath(p, k)
			if _, declared := v.schema.Properties[k]; !declared {
				c, cp = v.values, keyPath(p, k)
			}
			if c == nil {
				continue
			}
			o, ok := oldMap[k]
			more, budget = c.validate(ctx, cp, val[k], o, hasOld && ok, budget, depth+1)
			errs = append(errs, more...)
			if budget < 0 {
				return errs, budget
			}
		}
	case []any:
		if v.items == nil {
			break
		}
		oldList, _ := old.([]any)
		for i, item := range val {
			o, ok := v.correlate(item, oldList)
			more, budget = v.items.validate(ctx, indexPath(p, i), item, o, hasOld && ok, budget, depth+1)
			errs = append(errs, more...)
			if budget < 0 {
				return errs, budget
			}
		}
	}
	return errs, budget
}

// correlate finds the old item a list item is the new version of: the
// one with the same map keys in a list-type map, an equal one in a set;
// none in an atomic list.
func (v *CELValidator) correlate(item any, old []any) (any, bool) {
	if old == nil || v.schema.XListType == nil {
		return nil, false
	}
	switch *v.schema.XListType {
	case "map":
		m, ok := item.(map[string]any)
		if !ok {
			return nil, false
		}
		for _, o := range old {
			om, ok := o.(map[string]any)
			if !ok {
				continue
			}
			same := true
			for _, k := range v.schema.XListMapKeys {
				if !reflect.DeepEqual(m[k], om[k]) {
					same = false
					break
				}
			}
			if same {
				return o, true
			}
		}
	case "set":
		for _, o := range old {
			if reflect.DeepEqual(item, o) {
				return o, true
			}
		}
	}
	return nil, false
}

func (v *CELValidator) validateRules(ctx context.Context, p *field.Path, x, old any, hasOld bool, budget int64) (field.ErrorList, int64) {
	if len(v.rules) == 0 {
		return nil, budget
	}
	var errs field.ErrorList
	typ := v.schema.Type
	// The values are converted for CEL here, node by node: the walk
	// above reads the JSON as decoded, with unescaped member names.
	self := types.DefaultTypeAdapter.NativeToValue(apiservercel.NativeValue(x, v.cel))
	var oldSelf ref.Val
	if hasOld && old != nil {
		oldSelf = types.DefaultTypeAdapter.NativeToValue(apiservercel.NativeValue(old, v.cel))
	}
	for i, r := range v.rules {
		if r.Program == nil {
			continue
		}
		optional := r.Rule.OptionalOldSelf != nil && *r.Rule.OptionalOldSelf
		if r.UsesOldSelf && oldSelf == nil && !optional {
			continue // a transition rule without an old value
		}
		vars := map[string]any{ScopedVarName: self}
		switch {
		case optional && oldSelf == nil:
			vars[OldScopedVarName] = types.OptionalNone
		case optional:
			vars[OldScopedVarName] = types.OptionalOf(oldSelf)
		case oldSelf != nil:
			vars[OldScopedVarName] = oldSelf
		}
		result, details, err := r.Program.ContextEval(ctx, vars)
		if details != nil && details.ActualCost() != nil {
			budget -= int64(*details.ActualCost())
		}
		if budget < 0 {
			errs = append(errs, field.Invalid(p, typ, "validation failed due to running out of cost budget, no further validation rules will be run"))
			return errs, -1
		}
		if err != nil {
			msg := err.Error()
			switch {
			case strings.HasPrefix(msg, "no such overload"):
				errs = append(errs, field.Invalid(p, typ, fmt.Sprintf("'%v': call arguments did not match a supported operator, function or macro signature for rule: %v", err, ruleErrorString(r.Rule))))
			case strings.HasPrefix(msg, "operation cancelled: actual cost limit exceeded"):
				errs = append(errs, field.Invalid(p, typ, fmt.Sprintf("'%v': no further validation rules will be run due to call cost exceeds limit for rule: %v", err, ruleErrorString(r.Rule))))
				return errs, -1
			default:
				errs = append(errs, field.Invalid(p, typ, fmt.Sprintf("%v evaluating rule: %v", err, ruleErrorString(r.Rule))))
			}
			continue
		}
		if result == types.True {
			continue
		}
		fp := p
		if v.fieldPaths[i] != "" {
			fp = childPath(p, v.fieldPaths[i])
		}
		detail, shown := ruleMessageOrDefault(r.Rule), display(x)
		if r.MessageExpression != nil {
			var msg string
			var ok bool
			msg, ok, budget = evalMessageExpression(ctx, r, vars, budget)
			if budget < 0 {
				errs = append(errs, field.Invalid(p, typ, "validation failed due to running out of cost budget, no further validation rules will be run"))
				return errs, -1
			}
			if ok {
				// the message is expected to embed the value if it wants it
				detail, shown = msg, nil
			}
		}
		errs = append(errs, fieldErrorForReason(fp, shown, detail, r.Rule.Reason))
	}
	return errs, budget
}

// maxMessageLength bounds what a messageExpression may produce.
const maxMessageLength = 5000

// evalMessageExpression returns the message, or ok false when it failed,
// was empty, too long or had line breaks (the rule's message is used then).
func evalMessageExpression(ctx context.Context, r ruleCompilation, vars map[string]any, budget int64) (string, bool, int64) {
	result, details, err := r.MessageExpression.ContextEval(ctx, vars)
	if details != nil && details.ActualCost() != nil {
		budget -= int64(*details.ActualCost())
	}
	if err != nil {
		return "", false, budget
	}
	s, ok := result.(types.String)
	if !ok || strings.TrimSpace(string(s)) == "" || len(s) > maxMessageLength || hasNewlines(string(s)) {
		return "", false, budget
	}
	return strings.TrimSpace(string(s)), true, budget
}

func ruleMessageOrDefault(r apiextensionsv1.ValidationRule) string {
	if len(r.Message) == 0 {
		return "failed rule: " + ruleErrorString(r)
	}
	return strings.TrimSpace(r.Message)
}

func ruleErrorString(r apiextensionsv1.ValidationRule) string {
	if len(r.Message) > 0 {
		return strings.TrimSpace(r.Message)
	}
	return strings.TrimSpace(r.Rule)
}

// display is the value a failed rule's error shows: scalars as they are,
// nothing (nil) for objects, maps and lists.
func display(x any) any {
	switch x.(type) {
	case map[string]any, []any:
		return nil
	}
	return x
}

// fieldErrorForReason is the error a failed rule makes, of the type its
// reason names (Invalid when none); a nil value is not printed.
func fieldErrorForReason(p *field.Path, value any, detail string, reason *string) *field.Error {
	r := ""
	if reason != nil {
		r = *reason
	}
	switch r {
	case "FieldValueForbidden":
		return field.Forbidden(p, detail)
	case "FieldValueRequired":
		return field.Required(p, detail)
	case "FieldValueDuplicate":
		return field.Duplicate(p, value)
	}
	if value == nil {
		return invalidWithoutValue(p, detail)
	}
	return field.Invalid(p, value, detail)
}

// invalidWithoutValue is an "Invalid value: <detail>" error that does not
// print the value, upstream's field.Invalid with field.OmitValueType{}.
func invalidWithoutValue(p *field.Path, detail string) *field.Error {
	return field.Invalid(p, field.OmitValueType{}, detail)
}

func keyPath(p *field.Path, k string) *field.Path {
	if p == nil {
		return field.NewPath("").Key(k)
	}
	return p.Key(k)
}

func indexPath(p *field.Path, i int) *field.Path {
	if p == nil {
		return field.NewPath("").Index(i)
	}
	return p.Index(i)
}

// ValidateObject runs the rules on a custom object being written (old is
// nil on create). errs are the schema's errors so far: when one is a
// type error the rules are not run, as upstream's hasBlockingErr says.
func (v *CELValidator) ValidateObject(errs field.ErrorList, obj, old *Unstructured) field.ErrorList {
	if v == nil {
		return nil
	}
	for _, e := range errs {
		if e.Type == field.ErrorTypeNotSupported || e.Type == field.ErrorTypeTypeInvalid || strings.Contains(e.Detail, " must be of type ") {
			return field.ErrorList{field.Invalid(nil, "null", "some validation rules were not checked because the object was invalid; correct the existing errors to complete validation")}
		}
	}
	var oldObj map[string]any
	if old != nil {
		oldObj = celObject(old)
	}
	return v.Validate(context.Background(), celObject(obj), oldObj)
}

// celObject is the object as root rules see it.
func celObject(u *Unstructured) map[string]any {
	out := make(map[string]any, len(u.Object)+3)
	for k, x := range u.Object {
		out[k] = x
	}
	out["apiVersion"] = u.APIVersion
	out["kind"] = u.Kind
	md := map[string]any{}
	if u.Name != "" {
		md["name"] = u.Name
	}
	if u.GenerateName != "" {
		md["generateName"] = u.GenerateName
	}
	out["metadata"] = md
	return out
}
