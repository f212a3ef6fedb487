package validation

import (
	"strings"
	"testing"
)

// TestCompileMatchCondition: a matchCondition must compile in the
// admission environment and be a bool, with upstream's messages.
func TestCompileMatchCondition(t *testing.T) {
	for expr, want := range map[string]string{
		`object.metadata.name == 'x'`: "",
		`request.dryRun`:              "must evaluate to bool but got dyn",
		`'x'`:                         "must evaluate to bool but got string",
		`nope == 1`:                   "compilation failed: ERROR: <input>:1:1: undeclared reference to 'nope'",
	} {
		got := compileMatchCondition(expr)
		if !strings.HasPrefix(got, want) || (want == "" && got != "") {
			t.Errorf("%s: %q, want %q", expr, got, want)
		}
	}
}
