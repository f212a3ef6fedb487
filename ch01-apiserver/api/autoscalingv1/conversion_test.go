package autoscalingv1

import (
	"encoding/json"
	"os"
	"reflect"
	"testing"

	v2 "kubik/ch01-apiserver/api/autoscalingv2"
	"kubik/internal/apitest"
)

// The same object read from a real v1.35 apiserver in both versions: v1
// carries what it has no fields for (the other metrics, the behavior, the
// current metrics, the conditions) in annotations, byte for byte as
// upstream writes them, and converting back gives the v2 object again.
func TestConversionMatchesUpstream(t *testing.T) {
	v1doc, err := os.ReadFile("testdata/hpa-custom.v1.json")
	if err != nil {
		t.Fatal(err)
	}
	v2doc, err := os.ReadFile("testdata/hpa-custom.v2.json")
	if err != nil {
		t.Fatal(err)
	}
	var old HorizontalPodAutoscaler
	apitest.RoundTrip(t, v1doc, &old)
	var stored v2.HorizontalPodAutoscaler
	apitest.RoundTrip(t, v2doc, &stored)

	jsonEqual(t, "FromV2", FromV2(&stored), v1doc)
	jsonEqual(t, "ToV2", ToV2(&old), v2doc)
}

func jsonEqual(t *testing.T, what string, got any, want []byte) {
	t.Helper()
	b, err := json.Marshal(got)
	if err != nil {
		t.Fatal(err)
	}
	var g, w any
	json.Unmarshal(b, &g)
	json.Unmarshal(want, &w)
	if !reflect.DeepEqual(g, w) {
		t.Errorf("%s:\n got %s\nwant %s", what, b, want)
	}
}

// An autoscaling/v1 object without a target gets v2's default metric, and
// a CPU target is the one metric v1 has a field for.
func TestConversionCPUTarget(t *testing.T) {
	in := &HorizontalPodAutoscaler{Spec: HorizontalPodAutoscalerSpec{MaxReplicas: 3}}
	out := ToV2(in)
	if len(out.Spec.Metrics) != 1 || *out.Spec.Metrics[0].Resource.Target.AverageUtilization != v2.DefaultCPUUtilization {
		t.Fatalf("ToV2 without a target: %+v", out.Spec.Metrics)
	}
	back := FromV2(out)
	if back.Spec.TargetCPUUtilizationPercentage == nil || *back.Spec.TargetCPUUtilizationPercentage != 80 || len(back.Annotations) != 0 {
		t.Fatalf("FromV2: %+v %v", back.Spec, back.Annotations)
	}
}
