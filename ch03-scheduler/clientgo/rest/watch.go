package rest

import (
	"bufio"
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"

	"kubik/ch01-apiserver/api/metav1"
	"kubik/ch01-apiserver/api/scheme"
	"kubik/ch01-apiserver/apiserver/protobuf"
)

// Event is one change a watch reports.
type Event[T any] struct {
	// Type is ADDED, MODIFIED, DELETED, BOOKMARK or ERROR (metav1.Added, ...).
	Type string
	// Object is the object after the change (before deletion for DELETED).
	// A BOOKMARK's object carries only metadata.resourceVersion (and the
	// k8s.io/initial-events-end annotation after a streaming list). Nil for
	// ERROR.
	Object *T
	// Err is set for ERROR: a *StatusError; IsGone(Err) means the
	// resourceVersion is too old and the caller must list again. It is also
	// set, with Type ERROR, when the stream cannot be decoded.
	Err error
}

// Watcher is an open watch. Upstream: k8s.io/apimachinery/pkg/watch.Interface.
type Watcher[T any] struct {
	events chan Event[T]
	cancel context.CancelFunc
	done   chan struct{}
}

// ResultChan delivers the events; it is closed when the watch ends: the
// apiserver's timeout, a broken connection, ctx's end or Stop.
func (w *Watcher[T]) ResultChan() <-chan Event[T] { return w.events }

// Stop ends the watch and waits for the stream to be closed.
func (w *Watcher[T]) Stop() {
	w.cancel()
	<-w.done
}

// Watch opens GET ...?watch=true and decodes its events, protobuf frames
// or newline-delimited WatchEvent JSON, into typed events. An error to open it (403, 400, ...)
// is returned here; an expired resourceVersion comes as an ERROR event with
// a 410 (or, from some servers, as a 410 here): check with IsGone.
func Watch[T any, PT Object[T]](ctx context.Context, c *Client, namespace string, opts ListOptions) (*Watcher[T], error) {
	p, err := pathFor[T](namespace, "", "")
	if err != nil {
		return nil, err
	}
	return watchPath[T](ctx, c, p, opts)
}

// WatchResource watches resource r, decoding its objects into T (see
// ListResource).
func WatchResource[T any, PT Object[T]](ctx context.Context, c *Client, r *scheme.Resource, namespace string, opts ListOptions) (*Watcher[T], error) {
	return watchPath[T](ctx, c, ResourcePath(r, namespace, "", ""), opts)
}

func watchPath[T any](ctx context.Context, c *Client, p string, opts ListOptions) (*Watcher[T], error) {
	q := opts.query()
	q.Set("watch", "true")
	ctx, cancel := context.WithCancel(ctx)
	resp, err := c.send(ctx, Request{Method: http.MethodGet, Path: p, Query: q, Accept: acceptFor(new(T))})
	if err != nil {
		cancel()
		return nil, err
	}
	if resp.StatusCode != http.StatusOK {
		data, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		cancel()
		return nil, statusErrorFromResponse(resp, data)
	}
	w := &Watcher[T]{events: make(chan Event[T]), cancel: cancel, done: make(chan struct{})}
	if ct, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type")); ct == protobuf.ContentType {
		go w.receiveProtobuf(ctx, resp.Body)
	} else {
		go w.receive(ctx, resp.Body)
	}
	return w, nil
}

// maxFrame bounds one event of a protobuf watch stream: an object is at
// most etcd's 1.5 MiB, and its event is not much more.
const maxFrame = 16 << 20

// receiveProtobuf decodes a protobuf watch stream until it ends: each event
// a 4-byte big-endian length, then a metav1.WatchEvent whose object is the
// enveloped object (upstream's LengthDelimitedFramer).
func (w *Watcher[T]) receiveProtobuf(ctx context.Context, body io.ReadCloser) {
	defer close(w.done)
	defer close(w.events)
	defer body.Close()
	r := bufio.NewReaderSize(body, 64<<10)
	var frame []byte
	for {
		var size [4]byte
		if _, err := io.ReadFull(r, size[:]); err != nil {
			if ctx.Err() == nil && !errors.Is(err, io.EOF) && !errors.Is(err, io.ErrUnexpectedEOF) {
				w.deliver(ctx, Event[T]{Type: metav1.Error, Err: fmt.Errorf("watch stream: %w", err)})
			}
			return
		}
		n := binary.BigEndian.Uint32(size[:])
		if n > maxFrame {
			w.deliver(ctx, Event[T]{Type: metav1.Error, Err: fmt.Errorf("watch stream: an event of %d bytes, more than %d", n, maxFrame)})
			return
		}
		if cap(frame) < int(n) {
			frame = make([]byte, n)
		}
		frame = frame[:n]
		if _, err := io.ReadFull(r, frame); err != nil {
			if ctx.Err() == nil {
				w.deliver(ctx, Event[T]{Type: metav1.Error, Err: fmt.Errorf("watch stream: %w", err)})
			}
			return
		}
		if !w.deliver(ctx, decodeFrame[T](frame)) {
			return
		}
	}
}

// decodeFrame turns one protobuf watch event into a typed event. A frame
// that cannot be decoded is an ERROR event; the stream goes on.
func decodeFrame[T any](frame []byte) Event[T] {
	eventType, object, err := protobuf.DecodeWatchEvent(frame)
	if err != nil {
		return Event[T]{Type: metav1.Error, Err: fmt.Errorf("watch stream: %w", err)}
	}
	switch eventType {
	case metav1.Error:
		st := &metav1.Status{}
		if err := decodeAnswer(protobuf.ContentType, object, st); err != nil || st.Code == 0 {
			return Event[T]{Type: metav1.Error, Err: errors.New("watch stream: an ERROR event without a Status")}
		}
		return Event[T]{Type: metav1.Error, Err: &StatusError{ErrStatus: *st}}
	case metav1.Added, metav1.Modified, metav1.Deleted, metav1.Bookmark:
		obj := new(T)
		if err := decodeAnswer(protobuf.ContentType, object, obj); err != nil {
			return Event[T]{Type: metav1.Error, Err: fmt.Errorf("watch stream: decoding a %s event: %w", eventType, err)}
		}
		return Event[T]{Type: eventType, Object: obj}
	}
	return Event[T]{Type: metav1.Error, Err: fmt.Errorf("watch stream: unknown event type %q", eventType)}
}

// receive decodes events until the stream ends.
func (w *Watcher[T]) receive(ctx context.Context, body io.ReadCloser) {
	defer close(w.done)
	defer close(w.events)
	defer body.Close()
	dec := json.NewDecoder(body)
	for {
		obj := new(T)
		we := watchEvent{Object: obj}
		we.Type.object = &we.Object
		err := dec.Decode(&we)
		var typeErr *json.UnmarshalTypeError
		if err != nil && !errors.As(err, &typeErr) {
			if ctx.Err() == nil && !errors.Is(err, io.EOF) && !errors.Is(err, io.ErrUnexpectedEOF) {
				w.deliver(ctx, Event[T]{Type: metav1.Error, Err: fmt.Errorf("watch stream: %w", err)})
			}
			return
		}
		ev := Event[T]{Type: we.Type.name}
		switch {
		case err != nil && we.Type.name != metav1.Error:
			// A value of the wrong type: this event is lost, the stream
			// (read to the event's end) goes on.
			ev = Event[T]{Type: metav1.Error, Err: fmt.Errorf("watch stream: decoding a %s event: %w", we.Type.name, err)}
		case we.Type.name == metav1.Error:
			st, _ := we.Object.(*metav1.Status)
			if st == nil || st.Code == 0 {
				ev.Err = errors.New("watch stream: an ERROR event without a Status")
			} else {
				ev.Err = &StatusError{ErrStatus: *st}
			}
		case we.Type.name == metav1.Added, we.Type.name == metav1.Modified, we.Type.name == metav1.Deleted, we.Type.name == metav1.Bookmark:
			ev.Object = obj
		default:
			ev = Event[T]{Type: metav1.Error, Err: fmt.Errorf("watch stream: unknown event type %q", we.Type.name)}
		}
		if !w.deliver(ctx, ev) {
			return
		}
	}
}

// watchEvent is metav1.WatchEvent decoded in one pass, straight into the
// watched type: Object holds a *T, and encoding/json decodes into the
// pointer an interface field already holds. An ERROR event carries a
// Status instead; "type" comes before "object" on the wire (as upstream's
// apiserver writes it), so when the type is read, Object is switched to a
// *metav1.Status before the object is. (Decoding the object as
// json.RawMessage first, then again into T, reads every event three
// times; this reads it once.)
type watchEvent struct {
	Type   watchEventType `json:"type"`
	Object any            `json:"object"`
}

type watchEventType struct {
	name   string
	object *any // the event's Object
}

func (t *watchEventType) UnmarshalJSON(b []byte) error {
	if err := json.Unmarshal(b, &t.name); err != nil {
		return err
	}
	if t.name == metav1.Error {
		*t.object = new(metav1.Status)
	}
	return nil
}

func (w *Watcher[T]) deliver(ctx context.Context, ev Event[T]) bool {
	select {
	case w.events <- ev:
		return true
	case <-ctx.Done():
		return false
	}
}
