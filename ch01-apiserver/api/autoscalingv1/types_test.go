package autoscalingv1

import (
	"os"
	"testing"

	"kubik/internal/apitest"
)

func TestScaleRoundTrip(t *testing.T) {
	doc, err := os.ReadFile("testdata/scale-nginx.json")
	if err != nil {
		t.Fatal(err)
	}
	var s Scale
	apitest.RoundTrip(t, doc, &s)
	if s.Spec.Replicas != 2 || s.Status.Replicas != 2 || s.Status.Selector != "app=nginx" {
		t.Errorf("decoded %+v", s)
	}
}
