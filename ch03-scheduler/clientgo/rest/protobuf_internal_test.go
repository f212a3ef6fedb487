package rest

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"testing"

	"kubik/ch01-apiserver/api/corev1"
	"kubik/ch01-apiserver/api/metav1"
	"kubik/ch01-apiserver/apiserver/apiextensions"
)

// Answers a v1.35 kube-apiserver wrote in protobuf, recorded with the same
// answers in JSON.
const recorded = "../../../ch01-apiserver/apiserver/testdata/protobuf/"

func readRecorded(t *testing.T, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(recorded + name)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestDecodeProtobufAnswers: an object, a list and a Status error in
// upstream's protobuf decode to what their JSON decodes to.
func TestDecodeProtobufAnswers(t *testing.T) {
	const pb = "application/vnd.kubernetes.protobuf"
	fromPB, fromJSON := &corev1.Pod{}, &corev1.Pod{}
	if err := decodeAnswer(pb, readRecorded(t, "pod.pb"), fromPB); err != nil {
		t.Fatal(err)
	}
	if err := decodeAnswer("application/json", readRecorded(t, "pod.json"), fromJSON); err != nil {
		t.Fatal(err)
	}
	sameJSON(t, "pod", fromPB, fromJSON)

	listPB, listJSON := &ObjectList[corev1.ConfigMap]{}, &ObjectList[corev1.ConfigMap]{}
	if err := decodeAnswer(pb, readRecorded(t, "configmaplist.pb"), listPB); err != nil {
		t.Fatal(err)
	}
	if err := decodeAnswer("application/json", readRecorded(t, "configmaplist.json"), listJSON); err != nil {
		t.Fatal(err)
	}
	sameJSON(t, "list", listPB, listJSON)

	resp := func(ct string) *http.Response {
		return &http.Response{StatusCode: http.StatusNotFound, Header: http.Header{"Content-Type": {ct}}}
	}
	errPB := statusErrorFromResponse(resp(pb), readRecorded(t, "status-notfound.pb"))
	errJSON := statusErrorFromResponse(resp("application/json"), readRecorded(t, "status-notfound.json"))
	sameJSON(t, "not found", errPB.ErrStatus, errJSON.ErrStatus)
	if !IsNotFound(errPB) || errPB.Error() != `pods "nope" not found` {
		t.Errorf("not found: %v", errPB)
	}

	// Our API types are asked for in protobuf first; what has no protobuf
	// form in JSON.
	for out, want := range map[any]string{
		&corev1.Pod{}:                   AcceptProtobuf,
		&metav1.PartialObjectMetadata{}: AcceptProtobuf,
		&apiextensions.Unstructured{}:   "application/json",
		&map[string]any{}:               "application/json",
		nil:                             "application/json",
	} {
		if got := acceptFor(out); got != want {
			t.Errorf("acceptFor(%T) = %q, want %q", out, got, want)
		}
	}
}

// TestReceiveProtobuf: upstream's protobuf watch frames decode to the
// events of its JSON stream.
func TestReceiveProtobuf(t *testing.T) {
	w := &Watcher[corev1.ConfigMap]{events: make(chan Event[corev1.ConfigMap]), done: make(chan struct{})}
	go w.receiveProtobuf(context.Background(), io.NopCloser(bytes.NewReader(readRecorded(t, "watch-configmap.pb"))))
	var got []Event[corev1.ConfigMap]
	for ev := range w.events {
		got = append(got, ev)
	}
	var want struct {
		Type   string           `json:"type"`
		Object corev1.ConfigMap `json:"object"`
	}
	if err := json.Unmarshal(readRecorded(t, "watch-configmap.json"), &want); err != nil {
		t.Fatal(err)
	}
	if len(got) != 1 || got[0].Type != want.Type || got[0].Err != nil {
		t.Fatalf("events: %+v", got)
	}
	sameJSON(t, "event", got[0].Object, &want.Object)

	// A frame longer than the bound ends the stream with an ERROR event.
	w = &Watcher[corev1.ConfigMap]{events: make(chan Event[corev1.ConfigMap]), done: make(chan struct{})}
	go w.receiveProtobuf(context.Background(), io.NopCloser(bytes.NewReader([]byte{0xff, 0xff, 0xff, 0xff})))
	got = nil
	for ev := range w.events {
		got = append(got, ev)
	}
	if len(got) != 1 || got[0].Type != metav1.Error || got[0].Err.Error() != "watch stream: an event of 4294967295 bytes, more than 16777216" {
		t.Errorf("oversized frame: %+v", got)
	}
}

func sameJSON(t *testing.T, what string, got, want any) {
	t.Helper()
	a, err := json.Marshal(got)
	if err != nil {
		t.Fatal(err)
	}
	b, err := json.Marshal(want)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(a, b) {
		t.Errorf("%s from protobuf:\n%s\nfrom JSON:\n%s", what, a, b)
	}
}
