package apiserver

import (
	"net/http/httptest"
	"strings"
	"testing"
)

// A Warning header quotes its text as upstream's net.NewWarningHeader:
// only " and \ are escaped; a text with control characters is dropped.
func TestAddWarning(t *testing.T) {
	w := httptest.NewRecorder()
	addWarning(w, `failed expression: object.spec.replicas <= 5 && "x" \ y`)
	addWarning(w, "two\nlines")
	got := strings.Join(w.Header().Values("Warning"), "|")
	want := `299 - "failed expression: object.spec.replicas <= 5 && \"x\" \\ y"`
	if got != want {
		t.Fatalf("Warning headers %s, want %s", got, want)
	}
}
