// Package selection implements the two query languages of a list or watch:
// label selectors (?labelSelector=app=web,tier in (a,b)) and field selectors
// (?fieldSelector=spec.nodeName=node-1), plus the table of fields each kind
// can be selected by.
//
// Upstream: k8s.io/apimachinery/pkg/labels/selector.go, pkg/fields/selector.go,
// and the GetAttrs/ToSelectableFields functions of pkg/registry/*/strategy.go.
// The grammar, the normal form printed by String and every error message are
// upstream's, because the apiserver hands the messages to kubectl verbatim
// (400 BadRequest).
package selection

import (
	"errors"
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"

	"kubik/ch01-apiserver/api/metav1"
	"kubik/ch01-apiserver/apiserver/validation"
	"kubik/ch01-apiserver/apiserver/validation/field"
)

// Operator is the relation of a label requirement. The spellings are
// upstream's selection.Operator values; they show up in error messages.
type Operator string

const (
	DoesNotExist Operator = "!"
	Equals       Operator = "="
	DoubleEquals Operator = "=="
	In           Operator = "in"
	NotEquals    Operator = "!="
	NotIn        Operator = "notin"
	Exists       Operator = "exists"
	GreaterThan  Operator = "gt"
	LessThan     Operator = "lt"
)

// binaryOperators is the list an error names when a key is followed by
// something that is not an operator.
var binaryOperators = []string{
	string(In), string(NotIn),
	string(Equals), string(DoubleEquals), string(NotEquals),
	string(GreaterThan), string(LessThan),
}

// Requirement is one "key operator values" term of a label selector.
type Requirement struct {
	Key      string
	Operator Operator
	// Values are sorted and unique when parsed from a string; upstream keeps
	// the order of a structured selector's values and so do we.
	Values []string
}

// LabelSelector is an AND of requirements, sorted by key. The zero value
// selects everything.
type LabelSelector struct {
	requirements []Requirement
	// nothing marks the selector of a nil *metav1.LabelSelector, which
	// matches no object at all.
	nothing bool
}

// Everything returns the selector that matches every object.
func Everything() LabelSelector { return LabelSelector{} }

// Nothing returns the selector that matches no object.
func Nothing() LabelSelector { return LabelSelector{nothing: true} }

// Requirements returns the terms of the selector, sorted by key.
func (s LabelSelector) Requirements() []Requirement { return s.requirements }

// Empty tells whether the selector places no restriction on labels.
func (s LabelSelector) Empty() bool { return !s.nothing && len(s.requirements) == 0 }

// Matches tells whether labels satisfy every requirement.
func (s LabelSelector) Matches(labels map[string]string) bool {
	if s.nothing {
		return false
	}
	for _, r := range s.requirements {
		if !r.Matches(labels) {
			return false
		}
	}
	return true
}

// String is the normal form: requirements sorted by key, joined with ",".
func (s LabelSelector) String() string {
	parts := make([]string, 0, len(s.requirements))
	for _, r := range s.requirements {
		parts = append(parts, r.String())
	}
	return strings.Join(parts, ",")
}

// RequiresExactMatch returns the value a selector pins key to, if any
// (used to narrow a list to one namespace or one name).
func (s LabelSelector) RequiresExactMatch(key string) (string, bool) {
	for _, r := range s.requirements {
		if r.Key != key {
			continue
		}
		switch r.Operator {
		case Equals, DoubleEquals, In:
			if len(r.Values) == 1 {
				return r.Values[0], true
			}
		}
		return "", false
	}
	return "", false
}

// Matches applies one requirement. NotIn and != also match when the label
// is missing; gt and lt need an integer label value.
func (r Requirement) Matches(labels map[string]string) bool {
	value, exists := labels[r.Key]
	switch r.Operator {
	case In, Equals, DoubleEquals:
		return exists && slices.Contains(r.Values, value)
	case NotIn, NotEquals:
		return !exists || !slices.Contains(r.Values, value)
	case Exists:
		return exists
	case DoesNotExist:
		return !exists
	case GreaterThan, LessThan:
		if !exists || len(r.Values) != 1 {
			return false
		}
		have, err := strconv.ParseInt(value, 10, 64)
		if err != nil {
			return false
		}
		want, err := strconv.ParseInt(r.Values[0], 10, 64)
		if err != nil {
			return false
		}
		if r.Operator == GreaterThan {
			return have > want
		}
		return have < want
	}
	return false
}

// String prints the requirement as the query syntax: "!a", "a", "a=b",
// "a in (x,y)", "a>1". Values of a set are printed sorted.
func (r Requirement) String() string {
	var sb strings.Builder
	if r.Operator == DoesNotExist {
		sb.WriteString("!")
	}
	sb.WriteString(r.Key)
	switch r.Operator {
	case Exists, DoesNotExist:
		return sb.String()
	case Equals, DoubleEquals, NotEquals:
		sb.WriteString(string(r.Operator))
	case In, NotIn:
		sb.WriteString(" " + string(r.Operator) + " (")
	case GreaterThan:
		sb.WriteString(">")
	case LessThan:
		sb.WriteString("<")
	}
	values := r.Values
	if !sort.StringsAreSorted(values) {
		values = slices.Sorted(slices.Values(values))
	}
	sb.WriteString(strings.Join(values, ","))
	if r.Operator == In || r.Operator == NotIn {
		sb.WriteString(")")
	}
	return sb.String()
}

// NewRequirement validates a requirement the way upstream's
// labels.NewRequirement does: a valid key, the number of values each
// operator needs, integers for gt/lt and valid label values. All problems
// are reported together.
func NewRequirement(key string, op Operator, vals []string) (Requirement, error) {
	var errs field.ErrorList
	values := field.NewPath("values")
	errs = append(errs, validateLabelKey(key, field.NewPath("key"))...)
	switch op {
	case In, NotIn:
		if len(vals) == 0 {
			errs = append(errs, field.Invalid(values, vals, "for 'in', 'notin' operators, values set can't be empty"))
		}
	case Equals, DoubleEquals, NotEquals:
		if len(vals) != 1 {
			errs = append(errs, field.Invalid(values, vals, "exact-match compatibility requires one single value"))
		}
	case Exists, DoesNotExist:
		if len(vals) != 0 {
			errs = append(errs, field.Invalid(values, vals, "values set must be empty for exists and does not exist"))
		}
	case GreaterThan, LessThan:
		if len(vals) != 1 {
			errs = append(errs, field.Invalid(values, vals, "for 'Gt', 'Lt' operators, exactly one value is required"))
		}
		for i, v := range vals {
			if _, err := strconv.ParseInt(v, 10, 64); err != nil {
				errs = append(errs, field.Invalid(values.Index(i), v, "for 'Gt', 'Lt' operators, the value must be an integer"))
			}
		}
	default:
		errs = append(errs, field.NotSupported(field.NewPath("operator"), string(op), append(slices.Clone(binaryOperators), string(Exists), string(DoesNotExist))))
	}
	for i, v := range vals {
		for _, msg := range validation.IsValidLabelValue(v) {
			errs = append(errs, field.Invalid(values.Index(i).Key(key), v, msg))
		}
	}
	if len(errs) > 0 {
		return Requirement{}, errors.New(validation.AggregateMessage(errs))
	}
	return Requirement{Key: key, Operator: op, Values: vals}, nil
}

// FromLabelSelector turns the structured selector of a Deployment,
// ReplicaSet, Job, ... into a LabelSelector, like upstream's
// metav1.LabelSelectorAsSelector: nil selects nothing, an empty selector
// selects everything.
func FromLabelSelector(ps *metav1.LabelSelector) (LabelSelector, error) {
	if ps == nil {
		return Nothing(), nil
	}
	if len(ps.MatchLabels)+len(ps.MatchExpressions) == 0 {
		return Everything(), nil
	}
	reqs := make([]Requirement, 0, len(ps.MatchLabels)+len(ps.MatchExpressions))
	for k, v := range ps.MatchLabels {
		r, err := NewRequirement(k, Equals, []string{v})
		if err != nil {
			return LabelSelector{}, err
		}
		reqs = append(reqs, r)
	}
	for _, expr := range ps.MatchExpressions {
		var op Operator
		switch expr.Operator {
		case metav1.LabelSelectorOpIn:
			op = In
		case metav1.LabelSelectorOpNotIn:
			op = NotIn
		case metav1.LabelSelectorOpExists:
			op = Exists
		case metav1.LabelSelectorOpDoesNotExist:
			op = DoesNotExist
		default:
			return LabelSelector{}, fmt.Errorf("%q is not a valid label selector operator", expr.Operator)
		}
		r, err := NewRequirement(expr.Key, op, slices.Clone(expr.Values))
		if err != nil {
			return LabelSelector{}, err
		}
		reqs = append(reqs, r)
	}
	sortByKey(reqs)
	return LabelSelector{requirements: reqs}, nil
}

// SelectorFromSet returns the selector "k1=v1,k2=v2" of a plain map, such as
// a Service's or ReplicationController's spec.selector. An empty map
// selects everything.
func SelectorFromSet(set map[string]string) LabelSelector {
	reqs := make([]Requirement, 0, len(set))
	for k, v := range set {
		reqs = append(reqs, Requirement{Key: k, Operator: Equals, Values: []string{v}})
	}
	sortByKey(reqs)
	return LabelSelector{requirements: reqs}
}

// FormatLabelSelector prints a structured selector the way kubectl and the
// Table printers do (upstream metav1.FormatLabelSelector): "<none>" for an
// empty one, "<error>" for one that cannot be converted.
func FormatLabelSelector(ps *metav1.LabelSelector) string {
	sel, err := FromLabelSelector(ps)
	if err != nil {
		return "<error>"
	}
	s := sel.String()
	if s == "" {
		return "<none>"
	}
	return s
}

// sortByKey keeps requirements in upstream's deterministic order. The sort
// is stable: two requirements on the same key keep their written order.
func sortByKey(reqs []Requirement) {
	sort.SliceStable(reqs, func(i, j int) bool { return reqs[i].Key < reqs[j].Key })
}

// validateLabelKey checks a label key with upstream's rules and messages.
func validateLabelKey(key string, path *field.Path) field.ErrorList {
	var errs field.ErrorList
	for _, msg := range validation.IsQualifiedName(key) {
		errs = append(errs, field.Invalid(path, key, msg))
	}
	return errs
}
