package selection

import (
	"bytes"
	"fmt"
	"slices"
	"strings"
)

// FieldRequirement is one term of a field selector: field = value or
// field != value.
type FieldRequirement struct {
	Field string
	// Operator is Equals, DoubleEquals or NotEquals.
	Operator Operator
	Value    string
}

// FieldSelector is an AND of field terms. The zero value selects everything.
type FieldSelector struct {
	terms []FieldRequirement
}

// Requirements returns the terms in their parsed (sorted) order.
func (s FieldSelector) Requirements() []FieldRequirement { return s.terms }

// Empty tells whether the selector places no restriction.
func (s FieldSelector) Empty() bool { return len(s.terms) == 0 }

// Matches evaluates the selector against an object's selectable fields. A
// field the object does not have reads as "", as upstream's fields.Set.Get.
func (s FieldSelector) Matches(fields map[string]string) bool {
	for _, t := range s.terms {
		equal := fields[t.Field] == t.Value
		if equal == (t.Operator == NotEquals) {
			return false
		}
	}
	return true
}

// String prints "field=value,field!=value" with values escaped; "==" is
// printed as "=", as upstream does.
func (s FieldSelector) String() string {
	parts := make([]string, 0, len(s.terms))
	for _, t := range s.terms {
		op := "="
		if t.Operator == NotEquals {
			op = "!="
		}
		parts = append(parts, t.Field+op+EscapeValue(t.Value))
	}
	return strings.Join(parts, ",")
}

// RequiresExactMatch returns the value a "field=value" term pins, if any
// (the watch of one object uses metadata.name=NAME).
func (s FieldSelector) RequiresExactMatch(field string) (string, bool) {
	for _, t := range s.terms {
		if t.Field == field && t.Operator != NotEquals {
			return t.Value, true
		}
	}
	return "", false
}

// OneTermEqualSelector returns the selector "field=value".
func OneTermEqualSelector(field, value string) FieldSelector {
	return FieldSelector{terms: []FieldRequirement{{Field: field, Operator: Equals, Value: value}}}
}

// ParseFieldSelector parses "f1=v1,f2!=v2,f3==v3". In values, "\", ","
// and "=" are escaped with a backslash. Terms are sorted as strings before
// parsing, which fixes the order String prints. Empty terms are skipped.
func ParseFieldSelector(selector string) (FieldSelector, error) {
	parts := splitTerms(selector)
	slices.Sort(parts)
	var terms []FieldRequirement
	for _, part := range parts {
		if part == "" {
			continue
		}
		field, op, value, ok := splitTerm(part)
		if !ok {
			return FieldSelector{}, fmt.Errorf("invalid selector: '%s'; can't understand '%s'", selector, part)
		}
		unescaped, err := UnescapeValue(value)
		if err != nil {
			return FieldSelector{}, err
		}
		if field == "" && unescaped == "" {
			continue // upstream turns "=" into "everything"
		}
		terms = append(terms, FieldRequirement{Field: field, Operator: op, Value: unescaped})
	}
	return FieldSelector{terms: terms}, nil
}

// splitTerms splits at commas that are not escaped.
func splitTerms(selector string) []string {
	if selector == "" {
		return nil
	}
	var terms []string
	start := 0
	escaped := false
	for i, c := range selector {
		switch {
		case escaped:
			escaped = false
		case c == '\\':
			escaped = true
		case c == ',':
			terms = append(terms, selector[start:i])
			start = i + 1
		}
	}
	return append(terms, selector[start:])
}

// splitTerm cuts a term at its first operator; "!=" and "==" are tried
// before "=" at each position.
func splitTerm(term string) (field string, op Operator, value string, ok bool) {
	for i := range term {
		rest := term[i:]
		for _, candidate := range []Operator{NotEquals, DoubleEquals, Equals} {
			if strings.HasPrefix(rest, string(candidate)) {
				return term[:i], candidate, term[i+len(candidate):], true
			}
		}
	}
	return "", "", "", false
}

var valueEscaper = strings.NewReplacer(`\`, `\\`, `,`, `\,`, `=`, `\=`)

// EscapeValue escapes a field selector value so that it can be embedded in
// a selector string.
func EscapeValue(s string) string { return valueEscaper.Replace(s) }

// UnescapeValue reverses EscapeValue. An unknown escape or an unescaped ","
// or "=" is an error with upstream's wording (the rune is printed as a
// number, as upstream's %v of a rune does).
func UnescapeValue(s string) (string, error) {
	if !strings.ContainsAny(s, `\,=`) {
		return s, nil
	}
	var out bytes.Buffer
	escaped := false
	for _, c := range s {
		if escaped {
			switch c {
			case '\\', ',', '=':
				out.WriteRune(c)
			default:
				return "", fmt.Errorf("invalid field selector: invalid escape sequence: %s", string([]rune{'\\', c}))
			}
			escaped = false
			continue
		}
		switch c {
		case '\\':
			escaped = true
		case ',', '=':
			return "", fmt.Errorf("invalid field selector: unescaped character in value: %v", c)
		default:
			out.WriteRune(c)
		}
	}
	if escaped {
		return "", fmt.Errorf("invalid field selector: invalid escape sequence: %s", `\`)
	}
	return out.String(), nil
}
