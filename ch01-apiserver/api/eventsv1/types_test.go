package eventsv1

import (
	"bytes"
	"encoding/json"
	"os"
	"reflect"
	"testing"

	"kubik/ch01-apiserver/api/corev1"
)

// sameJSON reports whether two documents are equal as JSON values.
func sameJSON(t *testing.T, a, b []byte) bool {
	t.Helper()
	var x, y any
	if err := json.Unmarshal(a, &x); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &y); err != nil {
		t.Fatal(err)
	}
	return reflect.DeepEqual(x, y)
}

func decodeStrict(t *testing.T, b []byte, v any) {
	t.Helper()
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		t.Fatal(err)
	}
}

// coreEvents reads the core/v1 events a real server listed.
func coreEvents(t *testing.T) []corev1.Event {
	in, err := os.ReadFile("testdata/events-list.json")
	if err != nil {
		t.Fatal(err)
	}
	var list corev1.EventList
	decodeStrict(t, in, &list)
	if len(list.Items) == 0 {
		t.Fatal("no events in the fixture")
	}
	return list.Items
}

func TestCoreRoundTrip(t *testing.T) {
	for _, ce := range coreEvents(t) {
		ce.APIVersion, ce.Kind = "v1", "Event"
		want, _ := json.Marshal(&ce)

		ev := FromCore(&ce)
		if ev.APIVersion != "events.k8s.io/v1" || ev.Kind != "Event" {
			t.Errorf("TypeMeta = %+v", ev.TypeMeta)
		}
		// Through JSON, as the server stores and serves it.
		b, err := json.Marshal(ev)
		if err != nil {
			t.Fatal(err)
		}
		var back Event
		decodeStrict(t, b, &back)

		got, _ := json.Marshal(ToCore(&back))
		if !sameJSON(t, want, got) {
			t.Errorf("round trip changed the event:\nwant %s\n got %s", want, got)
		}
	}
}

func TestFromCoreFieldNames(t *testing.T) {
	ce := coreEvents(t)[0]
	b, _ := json.Marshal(FromCore(&ce))
	var m map[string]any
	json.Unmarshal(b, &m)
	want := map[string]any{
		"apiVersion":               "events.k8s.io/v1",
		"kind":                     "Event",
		"eventTime":                nil,
		"reason":                   "Pulled",
		"note":                     `Container image "nginx:1.25" already present on machine`,
		"type":                     "Normal",
		"reportingController":      "kubelet",
		"reportingInstance":        "node-1",
		"deprecatedSource":         map[string]any{"component": "kubelet", "host": "node-1"},
		"deprecatedFirstTimestamp": "2026-11-30T02:14:21Z",
		"deprecatedLastTimestamp":  "2026-11-30T02:14:21Z",
		"deprecatedCount":          float64(1),
	}
	for k, v := range want {
		if !reflect.DeepEqual(m[k], v) {
			t.Errorf("%s = %#v, want %#v", k, m[k], v)
		}
	}
	reg, _ := m["regarding"].(map[string]any)
	if reg["kind"] != "Pod" || reg["name"] != "web" || reg["fieldPath"] != "spec.containers{nginx}" {
		t.Errorf("regarding = %v", m["regarding"])
	}
	for _, k := range []string{"involvedObject", "message", "source", "count", "reportingComponent"} {
		if _, ok := m[k]; ok {
			t.Errorf("core field %q in events.k8s.io/v1 JSON", k)
		}
	}
}

func TestSeriesRoundTrip(t *testing.T) {
	in := `{"kind":"Event","apiVersion":"events.k8s.io/v1","metadata":{"name":"x.1","namespace":"default"},
		"eventTime":"2026-11-30T02:14:21.123456Z","series":{"count":5,"lastObservedTime":"2026-11-30T02:15:00.000001Z"},
		"reportingController":"kubernetes.io/kubelet","reportingInstance":"kubelet-node-1","action":"Pulling","reason":"Pulling",
		"regarding":{"kind":"Pod","namespace":"default","name":"web"},"related":{"kind":"Node","name":"node-1"},
		"note":"pulling","type":"Normal","deprecatedSource":{},"deprecatedFirstTimestamp":null,"deprecatedLastTimestamp":null}`
	var ev Event
	decodeStrict(t, []byte(in), &ev)
	ce := ToCore(&ev)
	if ce.Series == nil || ce.Series.Count != 5 || ce.Message != "pulling" || ce.ReportingController != "kubernetes.io/kubelet" {
		t.Errorf("ToCore = %+v", ce)
	}
	out, _ := json.Marshal(FromCore(ce))
	if !sameJSON(t, []byte(in), out) {
		t.Errorf("round trip:\nwant %s\n got %s", in, out)
	}
}
