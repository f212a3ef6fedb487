// Package expansion expands the $(VAR) references of a container's
// command, args and env values, as upstream's
// third_party/forked/golang/expansion does: $(VAR) becomes VAR's value
// when the mapping knows VAR, $$ is a literal $ (so $$(VAR) stays
// $(VAR)), and a reference to an undefined variable is left as it is.
// The shell's $VAR is not touched: it is the shell's.
package expansion

import (
	"strings"
	"unicode/utf8"
)

// MappingFuncFor returns a mapping for Expand that looks a name up in each
// context in turn and keeps $(name) when none has it.
func MappingFuncFor(context ...map[string]string) func(string) string {
	return func(name string) string {
		for _, vars := range context {
			if v, ok := vars[name]; ok {
				return v
			}
		}
		return "$(" + name + ")"
	}
}

// Expand replaces the $(VAR) references of input using mapping.
func Expand(input string, mapping func(string) string) string {
	var buf strings.Builder
	checkpoint := 0
	for cursor := 0; cursor < len(input); cursor++ {
		if input[cursor] == '$' && cursor+1 < len(input) {
			buf.WriteString(input[checkpoint:cursor])
			read, isVar, advance := tryReadVariableName(input[cursor+1:])
			if isVar {
				buf.WriteString(mapping(read))
			} else {
				buf.WriteString(read)
			}
			cursor += advance
			checkpoint = cursor + 1
		}
	}
	return buf.String() + input[checkpoint:]
}

// tryReadVariableName reads what follows a '$': the name of a complete
// $(name) reference (isVar), or the text to copy as it is; and how many
// bytes it consumed.
func tryReadVariableName(input string) (string, bool, int) {
	r, size := utf8.DecodeRuneInString(input)
	switch r {
	case '$': // $$: an escaped operator
		return input[0:size], false, size
	case '(':
		for i := 1; i < len(input); i++ {
			if input[i] == ')' {
				return input[1:i], true, i + 1
			}
		}
		return "$(", false, 1 // incomplete: copied as it is
	default: // $ not followed by ( : not ours
		return "$" + string(r), false, size
	}
}
