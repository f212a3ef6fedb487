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
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"

	"kubik/ch01-apiserver/api/metav1"
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
func NewRequirement(key string, op Operator, values []string) (Requirement, error) {
	var errs fieldErrors
	if err := validateLabelKey(key, "key"); err != nil {
		errs = append(errs, err)
	}
	switch op {
	case In, NotIn:
		if len(values) == 0 {
			errs = append(errs, invalid("values", values, "for 'in', 'notin' operators, values set can't be empty"))
		}
	case Equals, DoubleEquals, NotEquals:
		if len(values) != 1 {
			errs = append(errs, invalid("values", values, "exact-match compatibility requires one single value"))
		}
	case Exists, DoesNotExist:
		if len(values) != 0 {
			errs = append(errs, invalid("values", values, "values set must be empty for exists and does not exist"))
		}
	case GreaterThan, LessThan:
		if len(values) != 1 {
			errs = append(errs, invalid("values", values, "for 'Gt', 'Lt' operators, exactly one value is required"))
		}
		for i, v := range values {
			if _, err := strconv.ParseInt(v, 10, 64); err != nil {
				errs = append(errs, invalid(fmt.Sprintf("values[%d]", i), v, "for 'Gt', 'Lt' operators, the value must be an integer"))
			}
		}
	default:
		errs = append(errs, notSupported("operator", string(op), append(slices.Clone(binaryOperators), string(Exists), string(DoesNotExist))))
	}
	for i, v := range values {
		if msgs := isLabelValue(v); len(msgs) != 0 {
			errs = append(errs, invalid(fmt.Sprintf("values[%d][%s]", i, key), v, strings.Join(msgs, "; ")))
		}
	}
	return Requirement{Key: key, Operator: op, Values: values}, errs.aggregate()
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

// Label key and value syntax (upstream k8s.io/apimachinery/pkg/api/validate/content).

const (
	labelKeyFmt       = "([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]"
	labelKeyErrMsg    = "must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character"
	labelValueFmt     = "(" + labelKeyFmt + ")?"
	labelValueErrMsg  = "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character"
	dns1123LabelFmt   = "[a-z0-9]([-a-z0-9]*[a-z0-9])?"
	dns1123SubFmt     = dns1123LabelFmt + "(\\." + dns1123LabelFmt + ")*"
	dns1123SubErrMsg  = "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character"
	labelMaxLength    = 63
	subdomainMaxLenth = 253
)

var (
	labelKeyRegexp   = regexp.MustCompile("^" + labelKeyFmt + "$")
	labelValueRegexp = regexp.MustCompile("^" + labelValueFmt + "$")
	dns1123SubRegexp = regexp.MustCompile("^" + dns1123SubFmt + "$")
)

// regexError words a syntax error with examples, as upstream's RegexError.
func regexError(msg, re string, examples ...string) string {
	msg += " (e.g. "
	for i, e := range examples {
		if i > 0 {
			msg += " or "
		}
		msg += "'" + e + "', "
	}
	return msg + "regex used for validation is '" + re + "')"
}

func maxLenError(n int) string { return fmt.Sprintf("must be no more than %d bytes", n) }

// isLabelKey checks "[prefix/]name": an optional DNS subdomain prefix and a
// name of at most 63 characters.
func isLabelKey(value string) []string {
	var errs []string
	parts := strings.Split(value, "/")
	var name string
	switch len(parts) {
	case 1:
		name = parts[0]
	case 2:
		prefix := parts[0]
		name = parts[1]
		if prefix == "" {
			errs = append(errs, "prefix part must be non-empty")
		} else {
			if len(prefix) > subdomainMaxLenth {
				errs = append(errs, "prefix part "+maxLenError(subdomainMaxLenth))
			}
			if !dns1123SubRegexp.MatchString(prefix) {
				errs = append(errs, "prefix part "+regexError(dns1123SubErrMsg, dns1123SubFmt, "example.com"))
			}
		}
	default:
		return []string{"a valid label key " + regexError(labelKeyErrMsg, labelKeyFmt, "MyName", "my.name", "123-abc") +
			" with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')"}
	}
	if name == "" {
		errs = append(errs, "name part must be non-empty")
	} else if len(name) > labelMaxLength {
		errs = append(errs, "name part "+maxLenError(labelMaxLength))
	}
	if !labelKeyRegexp.MatchString(name) {
		errs = append(errs, "name part "+regexError(labelKeyErrMsg, labelKeyFmt, "MyName", "my.name", "123-abc"))
	}
	return errs
}

// isLabelValue checks a label value: empty, or at most 63 characters of
// the label-key alphabet.
func isLabelValue(value string) []string {
	var errs []string
	if len(value) > labelMaxLength {
		errs = append(errs, maxLenError(labelMaxLength))
	}
	if !labelValueRegexp.MatchString(value) {
		errs = append(errs, regexError(labelValueErrMsg, labelValueFmt, "MyValue", "my_value", "12345"))
	}
	return errs
}

// validateLabelKey returns the field error for a bad key at path.
func validateLabelKey(key, path string) error {
	if msgs := isLabelKey(key); len(msgs) != 0 {
		return invalid(path, key, strings.Join(msgs, "; "))
	}
	return nil
}

// Field errors, worded like upstream's field.Error so the messages match
// character for character ("values[0][app]: Invalid value: \"-x\": ...").

type fieldError struct {
	path   string
	kind   string // "Invalid value", "Unsupported value"
	value  any
	detail string
}

func invalid(path string, value any, detail string) *fieldError {
	return &fieldError{path: path, kind: "Invalid value", value: value, detail: detail}
}

func notSupported(path string, value string, valid []string) *fieldError {
	quoted := make([]string, len(valid))
	for i, v := range valid {
		quoted[i] = strconv.Quote(v)
	}
	return &fieldError{path: path, kind: "Unsupported value", value: value, detail: "supported values: " + strings.Join(quoted, ", ")}
}

func (e *fieldError) Error() string {
	var v string
	switch t := e.value.(type) {
	case string:
		v = strconv.Quote(t)
	default:
		b, _ := json.Marshal(t)
		v = string(b)
	}
	s := fmt.Sprintf("%s: %s: %s", e.path, e.kind, v)
	if e.detail != "" {
		s += ": " + e.detail
	}
	return s
}

// fieldErrors aggregates like upstream's utilerrors.Aggregate: one error is
// printed as is, several as "[a, b]" without duplicates.
type fieldErrors []error

func (errs fieldErrors) aggregate() error {
	if len(errs) == 0 {
		return nil
	}
	return errs
}

func (errs fieldErrors) Error() string {
	if len(errs) == 1 {
		return errs[0].Error()
	}
	var msgs []string
	for _, e := range errs {
		if m := e.Error(); !slices.Contains(msgs, m) {
			msgs = append(msgs, m)
		}
	}
	if len(msgs) == 1 {
		return msgs[0]
	}
	return "[" + strings.Join(msgs, ", ") + "]"
}
