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
	"kubik/ch03-scheduler/client"
)

// Recorder writes events.k8s.io/v1 Events about pods, as upstream's
// scheduler does (reportingController default-scheduler). The same event
// repeated within 6 minutes is not written again: its series.count grows
// (kubectl shows "x3 over 2m"). Writes happen in the background, so a slow
// apiserver never holds up scheduling. Upstream: client-go/tools/events.
type Recorder struct {
	c          *client.Client
	controller string
	instance   string
	log        *slog.Logger
	ch         chan *eventsv1.Event

	mu     sync.Mutex
	series map[string]*eventsv1.Event // isomorphic key -> the event written
}

func NewRecorder(c *client.Client, controller, instance string, log *slog.Logger) *Recorder {
	return &Recorder{c: c, controller: controller, instance: instance, log: log,
		ch: make(chan *eventsv1.Event, 1000), series: map[string]*eventsv1.Event{}}
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
	select {
	case r.ch <- e:
	default:
		r.log.Warn("event dropped: too many pending", "reason", reason, "pod", regarding.Namespace+"/"+regarding.Name)
	}
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

// Run writes the events until ctx ends.
func (r *Recorder) Run(ctx context.Context) {
	for {
		select {
		case <-ctx.Done():
			return
		case e := <-r.ch:
			if err := r.write(ctx, e); err != nil && ctx.Err() == nil {
				r.log.Warn("cannot write event", "reason", e.Reason, "err", err)
			}
		}
	}
}

const seriesWindow = 6 * time.Minute

func (r *Recorder) write(ctx context.Context, e *eventsv1.Event) error {
	k := string(e.Regarding.UID) + "|" + e.Action + "|" + e.Reason + "|" + e.Type + "|" + e.Note
	r.mu.Lock()
	prev, ok := r.series[k]
	for key, old := range r.series { // forget old ones
		if time.Since(lastSeen(old)) > seriesWindow {
			delete(r.series, key)
		}
	}
	r.mu.Unlock()
	if ok && time.Since(lastSeen(prev)) <= seriesWindow {
		count := int32(2)
		if prev.Series != nil {
			count = prev.Series.Count + 1
		}
		prev.Series = &eventsv1.EventSeries{Count: count, LastObservedTime: e.EventTime}
		patch, _ := json.Marshal(map[string]any{"series": prev.Series})
		_, err := client.Patch[eventsv1.Event](ctx, r.c, prev.Namespace, prev.Name, client.MergePatchType, patch, "")
		if err == nil || !client.IsNotFound(err) {
			return err
		}
		// The event expired (events live an hour): write a new one.
	}
	created, err := client.Create(ctx, r.c, e)
	if err != nil {
		return err
	}
	r.mu.Lock()
	r.series[k] = created
	r.mu.Unlock()
	return nil
}

func lastSeen(e *eventsv1.Event) time.Time {
	if e.Series != nil {
		return e.Series.LastObservedTime.Time
	}
	return e.EventTime.Time
}
