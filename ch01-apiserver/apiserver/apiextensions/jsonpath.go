package apiextensions

import (
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// The JSONPath subset printer columns use (upstream evaluates them with
// k8s.io/client-go/util/jsonpath): fields (.spec.replicas, ['a.b']), list
// indexes ([0], [-1]), every element ([*]) and equality filters
// ([?(@.type=="Ready")]). Paths are short; evaluation visits each value at
// most once per step.

type pathStep struct {
	field  string // a member name
	index  *int   // [n]
	all    bool   // [*]
	filter *pathFilter
}

type pathFilter struct {
	path  []pathStep
	value string // compared with the value printed as a string
}

const maxJSONPathLen = 512

func parseJSONPath(p string) ([]pathStep, error) {
	if len(p) > maxJSONPathLen {
		return nil, fmt.Errorf("longer than %d characters", maxJSONPathLen)
	}
	p = strings.TrimSpace(p)
	if strings.HasPrefix(p, "{") && strings.HasSuffix(p, "}") {
		p = p[1 : len(p)-1]
	}
	if !strings.HasPrefix(p, ".") && !strings.HasPrefix(p, "[") {
		return nil, errors.New("must start with .")
	}
	return parseSteps(p, 0)
}

func parseSteps(p string, depth int) ([]pathStep, error) {
	if depth > 4 {
		return nil, errors.New("filters nested too deep")
	}
	var steps []pathStep
	for len(p) > 0 {
		switch p[0] {
		case '.':
			p = p[1:]
			end := strings.IndexAny(p, ".[")
			if end < 0 {
				end = len(p)
			}
			name := p[:end]
			if name == "" {
				return nil, errors.New("empty field name")
			}
			if name == "*" {
				steps = append(steps, pathStep{all: true})
			} else {
				steps = append(steps, pathStep{field: name})
			}
			p = p[end:]
		case '[':
			end := matchingBracket(p)
			if end < 0 {
				return nil, errors.New("unclosed [")
			}
			inner := strings.TrimSpace(p[1:end])
			p = p[end+1:]
			switch {
			case inner == "*":
				steps = append(steps, pathStep{all: true})
			case strings.HasPrefix(inner, "'") && strings.HasSuffix(inner, "'") && len(inner) >= 2:
				steps = append(steps, pathStep{field: inner[1 : len(inner)-1]})
			case strings.HasPrefix(inner, "?(") && strings.HasSuffix(inner, ")"):
				f, err := parseFilter(inner[2:len(inner)-1], depth)
				if err != nil {
					return nil, err
				}
				steps = append(steps, pathStep{filter: f})
			default:
				n, err := strconv.Atoi(inner)
				if err != nil {
					return nil, fmt.Errorf("unsupported subscript %q", inner)
				}
				steps = append(steps, pathStep{index: &n})
			}
		default:
			return nil, fmt.Errorf("unexpected %q", p[0])
		}
	}
	return steps, nil
}

func matchingBracket(p string) int {
	depth := 0
	inQuote := byte(0)
	for i := 0; i < len(p); i++ {
		c := p[i]
		switch {
		case inQuote != 0:
			if c == inQuote {
				inQuote = 0
			}
		case c == '"' || c == '\'':
			inQuote = c
		case c == '[':
			depth++
		case c == ']':
			depth--
			if depth == 0 {
				return i
			}
		}
	}
	return -1
}

func parseFilter(expr string, depth int) (*pathFilter, error) {
	left, right, ok := strings.Cut(expr, "==")
	if !ok {
		return nil, errors.New("only == filters are supported")
	}
	left, right = strings.TrimSpace(left), strings.TrimSpace(right)
	if !strings.HasPrefix(left, "@") {
		return nil, errors.New("a filter must start with @")
	}
	steps, err := parseSteps(left[1:], depth+1)
	if err != nil {
		return nil, err
	}
	if len(right) >= 2 && (right[0] == '"' || right[0] == '\'') && right[len(right)-1] == right[0] {
		right = right[1 : len(right)-1]
	}
	return &pathFilter{path: steps, value: right}, nil
}

// evalJSONPath returns every value the path selects in obj.
func evalJSONPath(steps []pathStep, obj any) []any {
	cur := []any{obj}
	for _, st := range steps {
		var next []any
		for _, v := range cur {
			switch {
			case st.field != "":
				if m, ok := v.(map[string]any); ok {
					if x, ok := m[st.field]; ok {
						next = append(next, x)
					}
				}
			case st.index != nil:
				if l, ok := v.([]any); ok {
					i := *st.index
					if i < 0 {
						i += len(l)
					}
					if i >= 0 && i < len(l) {
						next = append(next, l[i])
					}
				}
			case st.all:
				switch x := v.(type) {
				case []any:
					next = append(next, x...)
				case map[string]any:
					for _, k := range sortedKeys(x) {
						next = append(next, x[k])
					}
				}
			case st.filter != nil:
				if l, ok := v.([]any); ok {
					for _, e := range l {
						for _, r := range evalJSONPath(st.filter.path, e) {
							if printJSONValue(r) == st.filter.value {
								next = append(next, e)
								break
							}
						}
					}
				}
			}
		}
		cur = next
	}
	return cur
}

// printJSONValue prints a value as the jsonpath template does.
func printJSONValue(v any) string {
	switch x := v.(type) {
	case string:
		return x
	case json.Number:
		return x.String()
	case nil:
		return ""
	case map[string]any, []any:
		b, _ := json.Marshal(x)
		return string(b)
	}
	return fmt.Sprint(v)
}
