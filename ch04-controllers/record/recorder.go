package record

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"time"

	"kubik/ch01-apiserver/api/corev1"
	"kubik/ch01-apiserver/api/metav1"
	"kubik/ch03-scheduler/clientgo/rest"
)

// ObjectRef names the object an event is about (involvedObject).
type ObjectRef = corev1.ObjectReference

// RefFor is the reference to an object of kind (apiVersion "apps/v1",
// kind "ReplicaSet") for events.
func RefFor(m *metav1.ObjectMeta, apiVersion, kind string) ObjectRef {
	return ObjectRef{APIVersion: apiVersion, Kind: kind, Namespace: m.Namespace, Name: m.Name,
		UID: m.UID, ResourceVersion: m.ResourceVersion}
}

// Recorder writes core/v1 Events, as kube-controller-manager's controllers
// do (client-go's record.EventRecorder, not the events.k8s.io/v1 one the
// scheduler uses): source.component and reportingComponent are the
// controller's name ("replicaset-controller", "deployment-controller"),
// firstTimestamp/lastTimestamp/count as `kubectl describe` shows them.
// Before it is written, each event goes through the eventCorrelator:
// similar events are combined, repeated ones counted, floods dropped.
// Writes happen in the background, in order.
type Recorder struct {
	c          *rest.Client
	component  string
	log        *slog.Logger
	ch         chan eventWrite
	correlator *eventCorrelator
}

// eventWrite is one write: a new Event, or a new count for an existing one.
type eventWrite struct {
	event  *corev1.Event
	update bool
}

// NewRecorder makes the recorder of component; Run must be running for its
// events to be written.
func NewRecorder(c *rest.Client, component string, log *slog.Logger) *Recorder {
	return &Recorder{c: c, component: component, log: log, ch: make(chan eventWrite, 1000),
		correlator: newEventCorrelator(time.Now)}
}

// Eventf records an event about obj: eventType Normal or Warning, reason
// (SuccessfulCreate, ScalingReplicaSet), and a message.
func (r *Recorder) Eventf(obj ObjectRef, eventType, reason, format string, args ...any) {
	if r == nil {
		return
	}
	now := metav1.Now()
	e := &corev1.Event{
		TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "Event"},
		ObjectMeta: metav1.ObjectMeta{Namespace: obj.Namespace,
			Name: fmt.Sprintf("%v.%x", obj.Name, time.Now().UnixNano())},
		InvolvedObject: obj, Reason: reason, Message: fmt.Sprintf(format, args...), Type: eventType,
		Source:         corev1.EventSource{Component: r.component},
		FirstTimestamp: now, LastTimestamp: now, Count: 1,
		ReportingController: r.component,
	}
	if e.Namespace == "" {
		e.Namespace = "default"
	}
	e, update, skip := r.correlator.correlate(e)
	if skip {
		return // the spam filter: too many events about this object lately
	}
	select {
	case r.ch <- eventWrite{e, update}:
	default:
		r.log.Warn("event dropped: too many pending", "reason", reason, "object", obj.Namespace+"/"+obj.Name)
	}
}

// Run writes the events until ctx ends.
func (r *Recorder) Run(ctx context.Context) {
	expire := time.NewTicker(time.Minute)
	defer expire.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-expire.C:
			r.correlator.expire()
		case w := <-r.ch:
			if err := r.write(ctx, w); err != nil && ctx.Err() == nil {
				r.log.Warn("cannot write event", "reason", w.event.Reason, "err", err)
			}
		}
	}
}

// write creates the Event, or patches the count, lastTimestamp and message
// of the one written before (created anew if it expired meanwhile).
func (r *Recorder) write(ctx context.Context, w eventWrite) error {
	e := w.event
	if w.update {
		patch, _ := json.Marshal(map[string]any{"count": e.Count, "lastTimestamp": e.LastTimestamp, "message": e.Message})
		_, err := rest.Patch[corev1.Event](ctx, r.c, e.Namespace, e.Name, rest.StrategicMergePatchType, patch, "")
		if err == nil || !rest.IsNotFound(err) {
			return err
		}
	}
	_, err := rest.Create(ctx, r.c, e)
	return err
}
