package nodev1

import (
	"os"
	"testing"

	"kubik/internal/apitest"
)

// Recorded from a real v1.35 apiserver.
func TestRuntimeClassRoundTrip(t *testing.T) {
	doc, err := os.ReadFile("testdata/runtimeclass-gvisor.json")
	if err != nil {
		t.Fatal(err)
	}
	var rc RuntimeClass
	apitest.RoundTrip(t, doc, &rc)
	if rc.Handler != "runsc" || rc.Overhead == nil || rc.Scheduling.NodeSelector["sandbox"] != "true" {
		t.Errorf("decoded %+v", rc)
	}
}
