package labtest

import (
	"errors"
	"fmt"
	"regexp"
	"strings"
	"unicode/utf8"
)

// placeholders maps each placeholder name to the pattern it matches.
var placeholders = map[string]string{
	"AGE":    `(?:\d+[smhdy]){1,2}|<invalid>`,
	"UID":    `[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}`,
	"RV":     `\d+`,
	"N":      `\d+`,
	"TIME":   `\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d+)?(?:Z|[+-]\d{2}:\d{2})`,
	"HASH":   `[bcdfghjklmnpqrstvwxz2456789]{1,10}`, // rand.SafeEncodeString of a uint32
	"SUFFIX": `[bcdfghjklmnpqrstvwxz2456789]{5}`,
	"IP":     `\d{1,3}(?:\.\d{1,3}){3}|[0-9a-fA-F]{0,4}(?::[0-9a-fA-F]{0,4}){2,7}`,
	"PORT":   `\d{1,5}`,
	"ANY":    `\S+`,
}

var placeholderRE = regexp.MustCompile(`<([A-Z]+)>`)

// ellipsis is an expected line that matches any number of actual lines.
const ellipsis = "..."

// expectedLine is one line of expected output, ready to match actual lines.
type expectedLine struct {
	text string         // as written, trailing spaces removed
	re   *regexp.Regexp // nil: compare text exactly
	skip bool           // the "..." line
}

func (e expectedLine) matches(actual string) bool {
	if e.re != nil {
		return e.re.MatchString(actual)
	}
	return e.text == actual
}

// compileExpected turns expected output into matchers: exact lines if it
// has no placeholder, word-by-word patterns otherwise (see the package doc).
func compileExpected(expected string) ([]expectedLine, error) {
	if !utf8.ValidString(expected) {
		return nil, errors.New("expected output is not valid UTF-8")
	}
	lines := splitLines(expected)
	wordwise := false
	for _, m := range placeholderRE.FindAllStringSubmatch(expected, -1) {
		if _, ok := placeholders[m[1]]; !ok {
			return nil, fmt.Errorf("unknown placeholder %s", m[0])
		}
		wordwise = true
	}
	out := make([]expectedLine, len(lines))
	for i, l := range lines {
		out[i] = expectedLine{text: l, skip: l == ellipsis}
		if wordwise && !out[i].skip {
			re, err := wordPattern(l)
			if err != nil {
				return nil, err
			}
			out[i].re = re
		}
	}
	return out, nil
}

// wordPattern matches lines with the same indentation and the same words,
// with placeholders replaced by their patterns, whatever the spacing between
// the words.
func wordPattern(line string) (*regexp.Regexp, error) {
	rest := strings.TrimLeft(line, " \t")
	indent := line[:len(line)-len(rest)]
	words := strings.Fields(rest)
	for i, w := range words {
		var b strings.Builder
		last := 0
		for _, m := range placeholderRE.FindAllStringSubmatchIndex(w, -1) {
			b.WriteString(regexp.QuoteMeta(w[last:m[0]]))
			b.WriteString("(?:" + placeholders[w[m[2]:m[3]]] + ")")
			last = m[1]
		}
		b.WriteString(regexp.QuoteMeta(w[last:]))
		words[i] = b.String()
	}
	return regexp.Compile("^" + regexp.QuoteMeta(indent) + strings.Join(words, `[ \t]+`) + "$")
}

// Match compares a command's actual output with the expected output from
// the doc. It returns ok and, when they differ, a unified-style diff:
// "-" lines are expected, "+" lines actual, " " lines matched.
func Match(expected, actual string) (diff string, ok bool, err error) {
	exp, err := compileExpected(expected)
	if err != nil {
		return "", false, err
	}
	act := splitLines(actual)
	ops := align(exp, act)
	ok = true
	var b strings.Builder
	for _, op := range ops {
		if op.kind != ' ' {
			ok = false
		}
		fmt.Fprintf(&b, "%c%s\n", op.kind, op.text)
	}
	if ok {
		return "", true, nil
	}
	return b.String(), false, nil
}

type diffOp struct {
	kind byte // ' ', '-' or '+'
	text string
}

// align finds the cheapest way to line up expected and actual lines and
// returns it as a diff. It is the classic edit-distance table: a missing, an
// extra or a replaced line costs 1 (a replaced line is shown as a "-" line
// right above its "+" line), and an "..." line may absorb any number of
// actual lines for free.
func align(exp []expectedLine, act []string) []diffOp {
	n, m := len(exp), len(act)
	// cost[i][j]: cheapest alignment of exp[i:] with act[j:].
	cost := make([][]int, n+1)
	for i := range cost {
		cost[i] = make([]int, m+1)
	}
	for i := n; i >= 0; i-- {
		for j := m; j >= 0; j-- {
			switch {
			case i == n:
				cost[i][j] = m - j
			case exp[i].skip:
				cost[i][j] = cost[i+1][j]
				if j < m {
					cost[i][j] = min(cost[i][j], cost[i][j+1])
				}
			default:
				c := 1 + cost[i+1][j]
				if j < m {
					c = min(c, 1+cost[i][j+1])
					if exp[i].matches(act[j]) {
						c = min(c, cost[i+1][j+1])
					} else {
						c = min(c, 1+cost[i+1][j+1])
					}
				}
				cost[i][j] = c
			}
		}
	}

	var ops []diffOp
	i, j := 0, 0
	for i < n || j < m {
		switch {
		case i == n:
			ops = append(ops, diffOp{'+', act[j]})
			j++
		case exp[i].skip:
			if j < m && cost[i][j] == cost[i][j+1] {
				j++ // absorbed by "..."
			} else {
				ops = append(ops, diffOp{' ', ellipsis})
				i++
			}
		case j < m && exp[i].matches(act[j]) && cost[i][j] == cost[i+1][j+1]:
			ops = append(ops, diffOp{' ', act[j]})
			i, j = i+1, j+1
		case j < m && !exp[i].matches(act[j]) && cost[i][j] == 1+cost[i+1][j+1]:
			ops = append(ops, diffOp{'-', exp[i].text}, diffOp{'+', act[j]})
			i, j = i+1, j+1
		case cost[i][j] == 1+cost[i+1][j]:
			ops = append(ops, diffOp{'-', exp[i].text})
			i++
		default:
			ops = append(ops, diffOp{'+', act[j]})
			j++
		}
	}
	return ops
}

// splitLines splits output into lines without trailing spaces, dropping
// trailing empty lines: the parts of output a reader cannot see.
func splitLines(s string) []string {
	s = strings.TrimRight(strings.ReplaceAll(s, "\r\n", "\n"), " \t\n")
	if s == "" {
		return nil
	}
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		lines[i] = strings.TrimRight(l, " \t")
	}
	return lines
}
