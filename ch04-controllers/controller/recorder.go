package controller

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"kubik/ch01-apiserver/api/corev1"
	"kubik/ch01-apiserver/api/metav1"
	"kubik/ch03-scheduler/client"
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
// firstTimestamp/lastTimestamp/count as `kubectl describe` shows them. The
// same event again (same object, type, reason and message) within
// aggregateWindow is not a new Event: its count grows (a PATCH), as
// upstream's EventCorrelator does. Writes happen in the background.
type Recorder struct {
	c         *client.Client
	component string
	log       *slog.Logger
	ch        chan *corev1.Event

	mu   sync.Mutex
	seen map[string]*corev1.Event // the same event's key -> what was written
}

const aggregateWindow = 10 * time.Minute

// NewRecorder makes the recorder of component; Run must be running for its
// events to be written.
func NewRecorder(c *client.Client, component string, log *slog.Logger) *Recorder {
	return &Recorder{c: c, component: component, log: log, ch: make(chan *corev1.Event, 1000), seen: map[string]*corev1.Event{}}
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
	select {
	case r.ch <- e:
	default:
		r.log.Warn("event dropped: too many pending", "reason", reason, "object", obj.Namespace+"/"+obj.Name)
	}
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

func (r *Recorder) write(ctx context.Context, e *corev1.Event) error {
	o := e.InvolvedObject
	key := e.Source.Component + "|" + o.Kind + "|" + o.Namespace + "|" + o.Name + "|" + o.UID + "|" + e.Type + "|" + e.Reason + "|" + e.Message
	r.mu.Lock()
	prev := r.seen[key]
	for k, old := range r.seen {
		if time.Since(old.LastTimestamp.Time) > aggregateWindow {
			delete(r.seen, k)
		}
	}
	r.mu.Unlock()
	if prev != nil && time.Since(prev.LastTimestamp.Time) <= aggregateWindow {
		prev.Count++
		prev.LastTimestamp = e.LastTimestamp
		patch, _ := json.Marshal(map[string]any{"count": prev.Count, "lastTimestamp": prev.LastTimestamp})
		_, err := client.Patch[corev1.Event](ctx, r.c, prev.Namespace, prev.Name, client.StrategicMergePatchType, patch, "")
		if err == nil || !client.IsNotFound(err) {
			return err
		}
		// Expired (events live an hour): write a new one.
	}
	created, err := client.Create(ctx, r.c, e)
	if err != nil {
		return err
	}
	r.mu.Lock()
	r.seen[key] = created
	r.mu.Unlock()
	return nil
}
