package scheduler

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"kubik/ch01-apiserver/api/corev1"
	"kubik/ch01-apiserver/api/eventsv1"
	"kubik/ch01-apiserver/api/metav1"
	"kubik/ch03-scheduler/clientgo/rest"
)

// Recorder writes events.k8s.io/v1 Events about pods, as upstream's
// scheduler does (reportingController default-scheduler). The same event
// repeated within 6 minutes is not written again: its series.count grows
// (kubectl shows "x3 over 2m"). Events are written in the background, up to
// maxEventWriters at once (upstream's broadcaster: a goroutine per event),
// so a slow apiserver never holds up scheduling; the client's rate limit
// (the events client's, separate from the binds') paces the writes.
// Upstream: client-go/tools/events.
type Recorder struct {
	c          *rest.Client
	controller string
	instance   string
	log        *slog.Logger

	// pending: events not written yet, in order. Not bounded: a burst of
	// thousands of bindings makes thousands of events, and none is lost.
	pmu     sync.Mutex
	pcond   *sync.Cond
	pending []*eventsv1.Event
	closed  bool

	mu     sync.Mutex
	series map[string]*eventsv1.Event // isomorphic key -> the event written
}

func NewRecorder(c *rest.Client, controller, instance string, log *slog.Logger) *Recorder {
	r := &Recorder{c: c, controller: controller, instance: instance, log: log, series: map[string]*eventsv1.Event{}}
	r.pcond = sync.NewCond(&r.pmu)
	return r
}

// Eventf records an event about regarding: eventType Normal or Warning,
// reason (Scheduled, FailedScheduling, Preempted), action (Binding,
// Scheduling, Preempting); related (may be nil) is a second pod involved,
// the preemptor of a victim. Upstream: events.EventRecorder.Eventf.
func (r *Recorder) Eventf(regarding, related *corev1.Pod, eventType, reason, action, format string, args ...any) {
	now := metav1.NowMicro()
	e := &eventsv1.Event{
		TypeMeta: metav1.TypeMeta{APIVersion: "events.k8s.io/v1", Kind: "Event"},
		ObjectMeta: metav1.ObjectMeta{Namespace: regarding.Namespace,
			Name: fmt.Sprintf("%v.%x", regarding.Name, now.UnixNano())},
		EventTime: now, ReportingController: r.controller, ReportingInstance: r.instance,
		Action: action, Reason: reason, Type: eventType,
		Regarding: podReference(regarding),
		Note:      truncate(fmt.Sprintf(format, args...), 1024),
	}
	if related != nil {
		ref := podReference(related)
		e.Related = &ref
	}
	r.pmu.Lock()
	r.pending = append(r.pending, e)
	r.pmu.Unlock()
	r.pcond.Signal()
}

// next waits for a pending event; nil once the recorder is closed.
func (r *Recorder) next() *eventsv1.Event {
	r.pmu.Lock()
	defer r.pmu.Unlock()
	for len(r.pending) == 0 && !r.closed {
		r.pcond.Wait()
	}
	if r.closed {
		return nil
	}
	e := r.pending[0]
	r.pending[0] = nil
	r.pending = r.pending[1:]
	return e
}

func podReference(pod *corev1.Pod) corev1.ObjectReference {
	return corev1.ObjectReference{Kind: "Pod", APIVersion: "v1", Namespace: pod.Namespace, Name: pod.Name,
		UID: pod.UID, ResourceVersion: pod.ResourceVersion}
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n-3] + "..."
}

// Run writes the events with maxEventWriters goroutines until ctx ends,
// and forgets series older than the window every minute.
func (r *Recorder) Run(ctx context.Context) {
	for range maxEventWriters {
		go func() {
			for e := r.next(); e != nil; e = r.next() {
				if err := r.write(ctx, e); err != nil && ctx.Err() == nil {
					r.log.Warn("cannot write event", "reason", e.Reason, "err", err)
				}
			}
		}()
	}
	expire := time.NewTicker(time.Minute)
	defer expire.Stop()
	for {
		select {
		case <-ctx.Done():
			r.pmu.Lock()
			r.closed = true
			r.pmu.Unlock()
			r.pcond.Broadcast()
			return
		case <-expire.C:
			r.expireSeries()
		}
	}
}

func (r *Recorder) expireSeries() {
	r.mu.Lock()
	defer r.mu.Unlock()
	for key, old := range r.series {
		if time.Since(lastSeen(old)) > seriesWindow {
			delete(r.series, key)
		}
	}
}

const seriesWindow = 6 * time.Minute

// maxEventWriters bounds the writes in flight: thousands at once (a burst
// of bindings) would open extra connections to the apiserver once one
// HTTP/2 connection's streams are used up, and cost more than they save.
const maxEventWriters = 64

func (r *Recorder) write(ctx context.Context, e *eventsv1.Event) error {
	k := string(e.Regarding.UID) + "|" + e.Action + "|" + e.Reason + "|" + e.Type + "|" + e.Note
	// Under the lock, count this occurrence into the series (a copy: other
	// writers may be reading the previous one).
	r.mu.Lock()
	prev, ok := r.series[k]
	if ok && time.Since(lastSeen(prev)) <= seriesWindow {
		count := int32(2)
		if prev.Series != nil {
			count = prev.Series.Count + 1
		}
		next := *prev
		next.Series = &eventsv1.EventSeries{Count: count, LastObservedTime: e.EventTime}
		r.series[k], prev = &next, &next
	} else {
		ok = false
	}
	r.mu.Unlock()
	if ok {
		patch, _ := json.Marshal(map[string]any{"series": prev.Series})
		_, err := rest.Patch[eventsv1.Event](ctx, r.c, prev.Namespace, prev.Name, rest.MergePatchType, patch, "")
		if err == nil || !rest.IsNotFound(err) {
			return err
		}
		// The event expired (events live an hour): write a new one.
	}
	// The event is remembered as sent (its name is ours); the stored copy
	// the apiserver answers with is not needed.
	if err := rest.CreateWithoutResult(ctx, r.c, e); err != nil {
		return err
	}
	r.mu.Lock()
	r.series[k] = e
	r.mu.Unlock()
	return nil
}

func lastSeen(e *eventsv1.Event) time.Time {
	if e.Series != nil {
		return e.Series.LastObservedTime.Time
	}
	return e.EventTime.Time
}
