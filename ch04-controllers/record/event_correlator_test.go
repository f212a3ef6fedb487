package record

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"kubik/ch01-apiserver/api/corev1"
	"kubik/ch01-apiserver/api/metav1"
)

func testEvent(name, reason, msg string, now time.Time) *corev1.Event {
	t := metav1.NewTime(now)
	return &corev1.Event{
		ObjectMeta:     metav1.ObjectMeta{Namespace: "default", Name: fmt.Sprintf("%s.%x", name, now.UnixNano())},
		InvolvedObject: corev1.ObjectReference{Kind: "ReplicaSet", Namespace: "default", Name: name, UID: "uid-" + name, APIVersion: "apps/v1"},
		Reason:         reason, Message: msg, Type: "Normal",
		Source:         corev1.EventSource{Component: "replicaset-controller"},
		FirstTimestamp: t, LastTimestamp: t, Count: 1, ReportingController: "replicaset-controller",
	}
}

// A ReplicaSet creating 100 pods, as upstream's correlator sees it: the
// first 9 distinct messages are Events of their own, the 10th on become one
// "(combined from similar events)" Event whose count grows, and after 25
// writes the spam filter drops the rest until its bucket refills.
func TestEventCorrelatorCreatesManyPods(t *testing.T) {
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	c := newEventCorrelator(func() time.Time { return now })
	var created, updated, skipped int
	var aggregate *corev1.Event
	for i := range 100 {
		out, update, skip := c.correlate(testEvent("web", "SuccessfulCreate", fmt.Sprintf("Created pod: web-%d", i), now))
		switch {
		case skip:
			skipped++
		case update:
			updated++
			aggregate = out
		default:
			created++
		}
		now = now.Add(time.Millisecond)
	}
	if created != 10 || updated != 15 || skipped != 75 {
		t.Errorf("created %d updated %d skipped %d, want 10 15 75", created, updated, skipped)
	}
	if aggregate == nil || !strings.HasPrefix(aggregate.Message, "(combined from similar events): Created pod: web-") || aggregate.Count != 16 {
		t.Errorf("aggregate event: %+v", aggregate)
	}

	// Five minutes later: one more token.
	now = now.Add(spamRefill)
	if _, _, skip := c.correlate(testEvent("web", "SuccessfulCreate", "Created pod: web-x", now)); skip {
		t.Error("no token after 5 minutes")
	}
	if _, _, skip := c.correlate(testEvent("web", "SuccessfulCreate", "Created pod: web-y", now)); !skip {
		t.Error("a second event got through on one token")
	}

	// Another object has its own bucket and its own aggregation.
	if out, update, skip := c.correlate(testEvent("api", "SuccessfulCreate", "Created pod: api-1", now)); skip || update || out.Message != "Created pod: api-1" {
		t.Errorf("another object: %q update %v skip %v", out.Message, update, skip)
	}
}

// The same event repeated is one Event with a growing count.
func TestEventCorrelatorCountsRepeats(t *testing.T) {
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	c := newEventCorrelator(func() time.Time { return now })
	first, update, _ := c.correlate(testEvent("web", "FailedCreate", "quota exceeded", now))
	if update || first.Count != 1 {
		t.Fatalf("first: update %v count %d", update, first.Count)
	}
	now = now.Add(time.Minute)
	again, update, _ := c.correlate(testEvent("web", "FailedCreate", "quota exceeded", now))
	if !update || again.Name != first.Name || again.Count != 2 || !again.FirstTimestamp.Equal(first.FirstTimestamp.Time) {
		t.Errorf("repeat: update %v name %s count %d first %v", update, again.Name, again.Count, again.FirstTimestamp)
	}
}
