package client

import (
	"context"
	"io"
	"strings"
	"testing"

	"kubik/ch01-apiserver/api/corev1"
	"kubik/ch01-apiserver/api/metav1"
)

// receive decodes each event in one pass; an ERROR event's object is a
// Status, not a T.
func TestReceiveDecodesEvents(t *testing.T) {
	stream := `{"type":"ADDED","object":{"kind":"Pod","apiVersion":"v1","metadata":{"name":"a","resourceVersion":"5"},"spec":{"nodeName":"n1"}}}
{"type":"BOOKMARK","object":{"kind":"Pod","apiVersion":"v1","metadata":{"resourceVersion":"7"}}}
{"type":"ERROR","object":{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"too old resource version: 5 (9)","reason":"Expired","code":410}}
{"object":{"kind":"Status","apiVersion":"v1","status":"Failure","message":"internal","code":500},"type":"ERROR"}
{"type":"SURPRISE","object":{}}
`
	w := &Watcher[corev1.Pod]{events: make(chan Event[corev1.Pod]), done: make(chan struct{})}
	go w.receive(context.Background(), io.NopCloser(strings.NewReader(stream)))
	var got []Event[corev1.Pod]
	for ev := range w.events {
		got = append(got, ev)
	}
	if len(got) != 5 {
		t.Fatalf("got %d events: %+v", len(got), got)
	}
	if got[0].Type != metav1.Added || got[0].Object.Name != "a" || got[0].Object.Spec.NodeName != "n1" || got[0].Object.ResourceVersion != "5" {
		t.Errorf("ADDED: %+v", got[0])
	}
	if got[1].Type != metav1.Bookmark || got[1].Object.ResourceVersion != "7" {
		t.Errorf("BOOKMARK: %+v", got[1])
	}
	if got[2].Type != metav1.Error || !IsGone(got[2].Err) || got[2].Err.Error() != "too old resource version: 5 (9)" || got[2].Object != nil {
		t.Errorf("ERROR 410: %+v", got[2])
	}
	// "object" before "type": nothing says the object is a Status when it
	// is read; the event is still an error.
	if got[3].Type != metav1.Error || got[3].Err == nil || got[3].Object != nil {
		t.Errorf("ERROR, object first: %+v", got[3])
	}
	if got[4].Type != metav1.Error || got[4].Err == nil || got[4].Err.Error() != `watch stream: unknown event type "SURPRISE"` {
		t.Errorf("unknown type: %+v", got[4])
	}
}
