package client

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"

	"kubik/ch01-apiserver/api/metav1"
	"kubik/ch01-apiserver/api/scheme"
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

// Watch opens GET ...?watch=true and decodes its newline-delimited
// WatchEvent JSON into typed events. An error to open it (403, 400, ...)
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
	resp, err := c.send(ctx, Request{Method: http.MethodGet, Path: p, Query: q})
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
	go w.receive(ctx, resp.Body)
	return w, nil
}

// receive decodes events until the stream ends.
func (w *Watcher[T]) receive(ctx context.Context, body io.ReadCloser) {
	defer close(w.done)
	defer close(w.events)
	defer body.Close()
	dec := json.NewDecoder(body)
	for {
		var we metav1.WatchEvent
		if err := dec.Decode(&we); err != nil {
			if ctx.Err() == nil && !errors.Is(err, io.EOF) && !errors.Is(err, io.ErrUnexpectedEOF) {
				w.deliver(ctx, Event[T]{Type: metav1.Error, Err: fmt.Errorf("watch stream: %w", err)})
			}
			return
		}
		ev := Event[T]{Type: we.Type}
		switch we.Type {
		case metav1.Error:
			var st metav1.Status
			if err := json.Unmarshal(we.Object, &st); err != nil {
				ev.Err = fmt.Errorf("watch stream: undecodable ERROR event: %w", err)
			} else {
				ev.Err = &StatusError{ErrStatus: st}
			}
		case metav1.Added, metav1.Modified, metav1.Deleted, metav1.Bookmark:
			ev.Object = new(T)
			if err := json.Unmarshal(we.Object, ev.Object); err != nil {
				ev = Event[T]{Type: metav1.Error, Err: fmt.Errorf("watch stream: decoding a %s event: %w", we.Type, err)}
			}
		default:
			ev = Event[T]{Type: metav1.Error, Err: fmt.Errorf("watch stream: unknown event type %q", we.Type)}
		}
		if !w.deliver(ctx, ev) {
			return
		}
	}
}

func (w *Watcher[T]) deliver(ctx context.Context, ev Event[T]) bool {
	select {
	case w.events <- ev:
		return true
	case <-ctx.Done():
		return false
	}
}
