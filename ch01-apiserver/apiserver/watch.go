package apiserver

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"net/http"
	"strconv"
	"time"

	"kubik/ch01-apiserver/api/metav1"
	"kubik/ch01-apiserver/api/scheme"
	"kubik/ch01-apiserver/apiserver/printers"
	"kubik/ch01-apiserver/apiserver/protobuf"
	"kubik/ch01-apiserver/storage"
)

// Watch: `GET ...?watch=true` keeps the response open and writes one JSON
// WatchEvent per line — ADDED, MODIFIED, DELETED, BOOKMARK or ERROR — as
// objects change. This is how every controller, the scheduler and the kubelet
// learn about changes without polling, and what `kubectl get -w` prints.
//
// resourceVersion says where to start:
//   - unset or "0": first an ADDED event for every existing object, then changes;
//   - N: every change after revision N (410 Gone, as an ERROR event, when
//     storage no longer has that history).

// bookmarkInterval: how often a watch that allows bookmarks gets one.
var bookmarkInterval = time.Minute

type watchEncoder struct {
	q         *request
	s         *Server
	w         http.ResponseWriter
	flusher   http.Flusher
	table     bool
	sentTable bool
	protobuf  bool // protobuf frames (watchFrame), not JSON lines
	batching  bool // more events are waiting: write without flushing
}

func (e *watchEncoder) send(eventType string, obj any) error {
	var raw []byte
	var err error
	if mo, ok := obj.(metav1.Object); ok && e.table && eventType != metav1.Bookmark {
		t, terr := e.s.table(e.q, []metav1.Object{mo}, metav1.ListMeta{ResourceVersion: mo.GetObjectMeta().ResourceVersion}, e.sentTable)
		if terr != nil {
			return terr
		}
		e.sentTable = true
		raw, err = json.Marshal(t)
	} else if t, ok := obj.(typed); ok && e.protobuf {
		return e.write(watchFrame(eventType, t))
	} else {
		raw, err = json.Marshal(obj)
	}
	if err != nil {
		return err
	}
	return e.write(watchLine(eventType, raw))
}

// watchFrame is one event of a protobuf watch stream, as upstream's
// protobuf stream serializer frames it: a 4-byte length, then a
// metav1.WatchEvent whose object is the enveloped object.
func watchFrame(eventType string, obj typed) []byte {
	raw, err := protobuf.Marshal(obj)
	if err != nil {
		st := ErrInternal(err).Status
		eventType, obj = metav1.Error, &st
		raw, _ = protobuf.Marshal(obj)
	}
	tm := obj.GetTypeMeta()
	return protobuf.AppendWatchEvent(nil, eventType, protobuf.EncodeEnvelope(tm.APIVersion, tm.Kind, raw))
}

// watchLine is the JSON of metav1.WatchEvent{Type, Object: raw} and a
// newline, written out by hand: json.Marshal would scan and copy the
// already compact raw object once more.
func watchLine(eventType string, raw []byte) []byte {
	line := make([]byte, 0, len(raw)+len(eventType)+24)
	line = append(line, `{"type":`...)
	line = strconv.AppendQuote(line, eventType)
	line = append(line, `,"object":`...)
	line = append(line, raw...)
	return append(line, "}\n"...)
}

// write writes one event and flushes it to the client, unless more events
// are already waiting (e.batching): then the flush comes after the last of
// them, as upstream's serveWatch flushes only when its channel is empty. A
// burst of events then leaves in a few large writes instead of one HTTP/2
// frame and one wake-up of the connection per event per watcher.
func (e *watchEncoder) write(line []byte) error {
	if _, err := e.w.Write(line); err != nil {
		return err
	}
	if !e.batching {
		e.flusher.Flush()
	}
	return nil
}

// sendShared writes an event as plain JSON or as a protobuf frame, encoded
// once per storage event and format and shared by every watcher of the
// resource that receives the same event (see storage.EventCache; with a nil
// cache it encodes as send does).
func (e *watchEncoder) sendShared(cache *storage.EventCache, eventType string, obj metav1.Object) error {
	line, err := cache.Get(watchLineKey{e.q.res, eventType, e.protobuf}, func() (any, error) {
		if e.protobuf {
			return watchFrame(eventType, obj), nil
		}
		raw, err := json.Marshal(obj)
		if err != nil {
			return nil, err
		}
		return watchLine(eventType, raw), nil
	})
	if err != nil {
		return err
	}
	return e.write(line.([]byte))
}

// bookmark is an object of the watched kind carrying only a resourceVersion.
func (e *watchEncoder) bookmark(rv int64, initialEventsEnd bool) error {
	b := e.q.res.New()
	setTypeMeta(e.q.res, b)
	m := b.GetObjectMeta()
	m.ResourceVersion = strconv.FormatInt(rv, 10)
	if initialEventsEnd {
		m.Annotations = map[string]string{metav1.InitialEventsAnnotationKey: "true"}
	}
	return e.send(metav1.Bookmark, b)
}

func (s *Server) serveWatch(q *request) {
	opts, err := parseListOptions(q)
	if err != nil {
		writeStatus(q.w, q.r, err)
		return
	}
	flusher, ok := q.w.(http.Flusher)
	if !ok {
		writeStatus(q.w, q.r, ErrInternal(errors.New("streaming unsupported")))
		return
	}
	timeout := time.Duration(opts.TimeoutSeconds) * time.Second
	if timeout == 0 {
		timeout = s.cfg.MinRequestTimeout + time.Duration(rand.Int64N(int64(s.cfg.MinRequestTimeout)))
	}
	if timeout < 0 {
		// Upstream's watch timer fires at once: an empty stream, closed.
		q.w.Header().Set("Content-Type", watchContentType(q))
		q.w.Header().Set("Cache-Control", "no-cache, private")
		q.w.WriteHeader(http.StatusOK)
		return
	}
	ctx, cancel := context.WithTimeout(q.r.Context(), timeout)
	defer cancel()

	res := q.res
	prefix := storagePrefix(res, q.info.Namespace)
	var startRev int64
	var initial []metav1.Object
	sendInitial := opts.ResourceVersion == "" || opts.ResourceVersion == "0"
	if opts.SendInitialEvents != nil {
		sendInitial = *opts.SendInitialEvents
	}
	if sendInitial {
		lo := opts
		lo.Limit, lo.Continue = 0, ""
		lo.ResourceVersionMatch = "" // "0" stays: any state will do, a watch cache may answer
		items, lm, err := s.list(ctx, res, q.info.Namespace, lo)
		if err != nil {
			writeStatus(q.w, q.r, err)
			return
		}
		initial = items
		startRev, _ = strconv.ParseInt(lm.ResourceVersion, 10, 64)
	} else {
		if startRev, err = parseRV(opts.ResourceVersion); err != nil {
			writeStatus(q.w, q.r, ErrBadRequest(err.Error()))
			return
		}
	}
	events, err := s.cfg.Storage.Watch(ctx, prefix, startRev)

	q.w.Header().Set("Content-Type", watchContentType(q))
	q.w.Header().Set("Cache-Control", "no-cache, private")
	q.w.Header().Set("Transfer-Encoding", "chunked")
	q.w.WriteHeader(http.StatusOK)
	enc := &watchEncoder{q: q, s: s, w: q.w, flusher: flusher, table: !q.protobuf && wantsTable(q.r), protobuf: q.protobuf}
	flusher.Flush()

	if err != nil {
		cur, _ := s.cfg.Storage.CurrentRevision(ctx)
		var st *StatusError
		if errors.Is(err, storage.ErrCompacted) {
			st = ErrGone(fmt.Sprintf("too old resource version: %d (%d)", startRev, cur))
		} else if errors.Is(err, storage.ErrFutureRevision) {
			st = ErrTooLargeResourceVersion(startRev, cur)
		} else {
			st = asStatus(storageError(err))
		}
		enc.send(metav1.Error, &st.Status)
		return
	}
	for _, obj := range initial {
		if enc.send(metav1.Added, obj) != nil {
			return
		}
	}
	if opts.SendInitialEvents != nil && *opts.SendInitialEvents && opts.AllowBookmarks {
		if enc.bookmark(startRev, true) != nil {
			return
		}
	}

	var ticks <-chan time.Time
	if opts.AllowBookmarks {
		t := time.NewTicker(bookmarkInterval)
		defer t.Stop()
		ticks = t.C
	}
	lastRev := startRev
	for {
		select {
		case <-ctx.Done():
			return
		case <-ticks:
			if enc.bookmark(lastRev, false) != nil {
				return
			}
		case ev, ok := <-events:
			if !ok {
				return
			}
			// This event and every one already waiting behind it, then one flush.
			enc.batching = true
			for {
				lastRev = ev.KV.ModRevision
				if err := s.sendEvent(enc, &opts, ev); err != nil {
					return
				}
				waiting := false
				select {
				case ev, ok = <-events:
					waiting = true
				default:
				}
				if !waiting {
					break
				}
				if !ok { // the storage ended the watch
					enc.flusher.Flush()
					return
				}
			}
			enc.batching = false
			enc.flusher.Flush()
		}
	}
}

// sendEvent writes one storage event to a watcher, as its selectors see it
// (convertEvent); an event that is not for it writes nothing. An error is
// the end of the watch: an ERROR event has been sent, or the client is gone.
func (s *Server) sendEvent(enc *watchEncoder, opts *listOptions, ev storage.Event) error {
	eventType, obj, err := s.convertEvent(enc.q, opts, ev, !enc.table)
	if err != nil {
		enc.batching = false
		enc.send(metav1.Error, &asStatus(err).Status)
		return err
	}
	if eventType == "" {
		return nil
	}
	if enc.table {
		return enc.send(eventType, obj)
	}
	return enc.sendShared(ev.Cache, eventType, obj)
}

// convertEvent turns a storage event into a watch event for this watcher's
// selectors: an object that starts matching is ADDED, one that stops matching
// is DELETED (with its previous content at the new resourceVersion) — as
// upstream's cacher does. "" means: not for this watcher.
//
// With shared, the decoded objects are kept in the event's storage.EventCache
// (when a watch cache set one), so watchers of the same event decode it once;
// they are then read-only. A Table watcher passes false: printing changes them.
func (s *Server) convertEvent(q *request, opts *listOptions, ev storage.Event, shared bool) (string, metav1.Object, error) {
	res := q.res
	cache := ev.Cache
	if !shared {
		cache = nil // a nil cache decodes every time
	}
	var cur, prev metav1.Object
	if ev.Type == storage.EventPut {
		v, err := cache.Get(decodedKey{res, false}, func() (any, error) { return decodeFromStorage(res, ev.KV) })
		if err != nil {
			return "", nil, err
		}
		cur = v.(metav1.Object)
	}
	// The previous value tells whether an object left the watcher's
	// selection (a MODIFIED that becomes DELETED); without selectors every
	// object is selected, so it is needed only for a deletion.
	everything := opts.Labels.Empty() && opts.Fields.Empty()
	if ev.Prev != nil && (cur == nil || !everything) {
		v, err := cache.Get(decodedKey{res, true}, func() (any, error) {
			o, err := decodeFromStorage(res, *ev.Prev)
			if err != nil {
				return nil, err
			}
			// As a DELETED event shows it: the previous content at the new resourceVersion.
			o.GetObjectMeta().ResourceVersion = strconv.FormatInt(ev.KV.ModRevision, 10)
			return o, nil
		})
		if err != nil {
			return "", nil, err
		}
		prev = v.(metav1.Object)
	}
	curPasses := cur != nil && opts.matches(cur)
	prevPasses := prev != nil && opts.matches(prev)
	if everything && cur != nil {
		prevPasses = ev.Prev != nil // selected before too: MODIFIED, not ADDED
	}
	switch {
	case curPasses && !prevPasses:
		return metav1.Added, cur, nil
	case curPasses && prevPasses:
		return metav1.Modified, cur, nil
	case !curPasses && prevPasses:
		return metav1.Deleted, prev, nil
	}
	return "", nil, nil
}

// Keys of what watchers share in a storage.EventCache: the object decoded as
// res (prev: the value before the change), and the JSON line of an event type.
type decodedKey struct {
	res  *scheme.Resource
	prev bool
}

type watchLineKey struct {
	res       *scheme.Resource
	eventType string
	protobuf  bool
}

// watchContentType is upstream's: a JSON stream is application/json, any
// other format says ;stream=watch.
func watchContentType(q *request) string {
	if q.protobuf {
		return mediaProtobuf + ";stream=watch"
	}
	return mediaJSON
}

// table renders objects as the Table kubectl get prints.
func (s *Server) table(q *request, objs []metav1.Object, listMeta metav1.ListMeta, noHeaders bool) (*metav1.Table, error) {
	for _, o := range objs {
		setTypeMeta(q.res, o)
	}
	if t, ok, err := s.customTable(q, objs, listMeta, noHeaders); ok {
		return t, err
	}
	include := q.query("includeObject")
	t, err := printers.TableForList(q.res.New(), objs, listMeta, printers.Options{IncludeObject: include, NoHeaders: noHeaders})
	if err != nil {
		return nil, ErrInternal(err)
	}
	t.TypeMeta = metav1.TypeMeta{Kind: "Table", APIVersion: "meta.k8s.io/v1"}
	return t, nil
}
