package autoscalingv2

import (
	"os"
	"testing"

	"kubik/internal/apitest"
)

// Recorded from a real v1.35 apiserver: an autoscaler with three kinds of
// metric, a behavior, current metrics and a condition.
func TestHorizontalPodAutoscalerRoundTrip(t *testing.T) {
	doc, err := os.ReadFile("testdata/hpa-custom.v2.json")
	if err != nil {
		t.Fatal(err)
	}
	var hpa HorizontalPodAutoscaler
	apitest.RoundTrip(t, doc, &hpa)
	if len(hpa.Spec.Metrics) != 3 || hpa.Spec.Behavior == nil || len(hpa.Status.Conditions) != 1 {
		t.Errorf("decoded %+v", hpa)
	}
}
