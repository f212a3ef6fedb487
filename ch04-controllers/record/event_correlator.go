package record

import (
	"fmt"
	"strings"
	"sync"
	"time"

	"kubik/ch01-apiserver/api/corev1"
	"kubik/ch01-apiserver/api/metav1"
)

// eventCorrelator decides what an event becomes before it is written, as
// client-go's record.EventCorrelator does for every controller:
//
//  1. Aggregation: more than 10 events about one object with the same
//     type and reason but different messages within 10 minutes ("Created
//     pod: web-1", "Created pod: web-2", ...) become one Event whose
//     message starts "(combined from similar events): ".
//  2. Deduplication: the same event again (or the aggregate again) is not
//     a new object; the existing one's count and lastTimestamp grow.
//  3. Spam filter: per source and object, a token bucket of 25 writes,
//     refilled by one every 5 minutes; beyond that events are dropped.
//
// So a 1000-replica ReplicaSet writes a few dozen Event objects, not a
// thousand. Upstream: k8s.io/client-go/tools/record/events_cache.go.
type eventCorrelator struct {
	mu         sync.Mutex
	now        func() time.Time
	aggregates map[string]*aggregateRecord
	observed   map[string]*observedEvent
	spam       map[string]*spamBucket
}

// Upstream's defaults.
const (
	aggregateMaxEvents = 10
	aggregateInterval  = 600 * time.Second
	spamBurst          = 25
	spamRefill         = 300 * time.Second // one token per
	observedTTL        = time.Hour         // events live an hour in the apiserver
)

type aggregateRecord struct {
	localKeys map[string]bool // the messages seen
	last      time.Time
}

type observedEvent struct {
	name  string
	count int32
	first metav1.Time
	last  time.Time
}

type spamBucket struct {
	tokens float64
	last   time.Time
}

func newEventCorrelator(now func() time.Time) *eventCorrelator {
	return &eventCorrelator{now: now, aggregates: map[string]*aggregateRecord{},
		observed: map[string]*observedEvent{}, spam: map[string]*spamBucket{}}
}

// correlate returns the event to write (a new one, or the existing one with
// a higher count: update), or skip when the spam filter drops it.
func (c *eventCorrelator) correlate(e *corev1.Event) (out *corev1.Event, update, skip bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	now := c.now()

	// 1. Aggregation by reason.
	key := eventKey(e)
	aggKey := aggregateKey(e)
	rec := c.aggregates[aggKey]
	if rec == nil || now.Sub(rec.last) > aggregateInterval {
		rec = &aggregateRecord{localKeys: map[string]bool{}}
		c.aggregates[aggKey] = rec
	}
	rec.localKeys[e.Message] = true
	rec.last = now
	out = e
	if len(rec.localKeys) >= aggregateMaxEvents {
		for k := range rec.localKeys { // keep the set from growing
			delete(rec.localKeys, k)
			break
		}
		t := metav1.NewTime(now)
		out = &corev1.Event{
			TypeMeta: e.TypeMeta,
			ObjectMeta: metav1.ObjectMeta{Namespace: e.Namespace,
				Name: fmt.Sprintf("%v.%x", e.InvolvedObject.Name, now.UnixNano())},
			InvolvedObject: e.InvolvedObject, Reason: e.Reason, Type: e.Type, Source: e.Source,
			Message:        "(combined from similar events): " + e.Message,
			FirstTimestamp: t, LastTimestamp: t, Count: 1,
			ReportingController: e.ReportingController,
		}
		key = aggKey
	}

	// 2. Deduplication: an event seen before is the same object, counted.
	if obs := c.observed[key]; obs != nil && now.Sub(obs.last) < observedTTL {
		o := *out
		o.Name, o.FirstTimestamp, o.Count = obs.name, obs.first, obs.count+1
		out, update = &o, true
		obs.count, obs.last = o.Count, now
	} else {
		c.observed[key] = &observedEvent{name: out.Name, count: 1, first: out.FirstTimestamp, last: now}
	}

	// 3. Spam filter per source and object.
	b := c.spam[spamKey(out)]
	if b == nil {
		b = &spamBucket{tokens: spamBurst, last: now}
		c.spam[spamKey(out)] = b
	}
	b.tokens = min(spamBurst, b.tokens+now.Sub(b.last).Seconds()/spamRefill.Seconds())
	b.last = now
	if b.tokens < 1 {
		return out, update, true
	}
	b.tokens--
	return out, update, false
}

// expire forgets what no longer matters, so the maps do not grow forever.
func (c *eventCorrelator) expire() {
	c.mu.Lock()
	defer c.mu.Unlock()
	now := c.now()
	for k, r := range c.aggregates {
		if now.Sub(r.last) > aggregateInterval {
			delete(c.aggregates, k)
		}
	}
	for k, o := range c.observed {
		if now.Sub(o.last) > observedTTL {
			delete(c.observed, k)
		}
	}
	for k, b := range c.spam {
		if now.Sub(b.last) > spamBurst*spamRefill { // full again
			delete(c.spam, k)
		}
	}
}

func objectKey(e *corev1.Event) []string {
	o := e.InvolvedObject
	return []string{e.Source.Component, e.Source.Host, o.Kind, o.Namespace, o.Name, o.UID, o.APIVersion}
}

// eventKey: the same event (upstream: getEventKey).
func eventKey(e *corev1.Event) string {
	o := e.InvolvedObject
	return strings.Join([]string{e.Source.Component, e.Source.Host, o.Kind, o.Namespace, o.Name, o.FieldPath,
		o.UID, o.APIVersion, e.Type, e.Reason, e.Message}, "")
}

// aggregateKey: similar events, whatever the message (upstream:
// EventAggregatorByReasonFunc).
func aggregateKey(e *corev1.Event) string {
	return strings.Join(append(objectKey(e), e.Type, e.Reason, e.ReportingController, e.ReportingInstance), "")
}

// spamKey: events from one source about one object (upstream: getSpamKey).
func spamKey(e *corev1.Event) string {
	return strings.Join(append(objectKey(e), e.Type), "")
}
