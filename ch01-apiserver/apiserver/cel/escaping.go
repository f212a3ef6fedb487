package cel

import (
	"regexp"
	"strings"
)

// celReservedSymbols are CEL's reserved words: a property with one of
// these names is reached as __name__ (self.__namespace__).
var celReservedSymbols = map[string]bool{
	"true": true, "false": true, "null": true, "in": true,
	"as": true, "break": true, "const": true, "continue": true, "else": true,
	"for": true, "function": true, "if": true, "import": true, "let": true,
	"loop": true, "package": true, "namespace": true, "return": true,
	"var": true, "void": true, "while": true,
}

var expandMatcher = regexp.MustCompile(`(__|[-./])`)

var identMatcher = regexp.MustCompile(`^[_a-zA-Z][_a-zA-Z0-9]*$`)

// Escape turns a property name into the CEL identifier rules use for it,
// as upstream's escaping.go: reserved words become __word__; "__", ".",
// "-" and "/" become __underscores__, __dot__, __dash__ and __slash__.
// ok is false when the name has other characters an identifier cannot
// hold: rules cannot reach that property by name.
func Escape(name string) (string, bool) {
	if celReservedSymbols[name] {
		return "__" + name + "__", true
	}
	escaped := expandMatcher.ReplaceAllStringFunc(name, func(s string) string {
		switch s {
		case "__":
			return "__underscores__"
		case ".":
			return "__dot__"
		case "-":
			return "__dash__"
		default:
			return "__slash__"
		}
	})
	if !identMatcher.MatchString(escaped) {
		return "", false
	}
	return escaped, true
}

// Unescape is the inverse of Escape, for names Escape produced.
func Unescape(escaped string) string {
	if strings.HasPrefix(escaped, "__") && strings.HasSuffix(escaped, "__") && celReservedSymbols[escaped[2:len(escaped)-2]] {
		return escaped[2 : len(escaped)-2]
	}
	r := strings.NewReplacer("__underscores__", "__", "__dot__", ".", "__dash__", "-", "__slash__", "/")
	return r.Replace(escaped)
}
