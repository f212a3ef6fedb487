package apiserver

import (
	"bufio"
	"context"
	"net"
	"net/http"
	"runtime"
	"strconv"
	"sync"

	"kubik/ch01-apiserver/api/metav1"
	"kubik/ch01-apiserver/api/scheme"
	"kubik/ch01-apiserver/apiserver/protobuf"
	"kubik/ch01-apiserver/storage"
)

// A list in protobuf is upstream's typed list message (PodList, ...):
// ListMeta metadata = 1, repeated items = 2, in the envelope. The stored
// values are JSON, so each item is decoded into its Go type and encoded in
// protobuf; the decoded object is dropped at once and only its protobuf
// bytes are kept, one piece per item, until the answer is written through
// a 64 KiB buffer (as the JSON fast path in listjson.go writes its pieces).
//
// Decoding the stored JSON is almost all of that cost, so the pieces are
// also kept in the server's protobufItems cache by key and revision: a
// stored object never changes without a new revision, and informers list
// the same objects again and again. Upstream's LIST with
// resourceVersion=0 answers from its watch cache's decoded objects; this
// cache keeps their encoded form instead, which is smaller.

// writeListProtobuf answers a list in protobuf straight from storage.
// Without selectors every stored item is in the answer, so the items are
// encoded together (encodeItemsProtobuf); with selectors each is decoded
// to be matched first.
func (s *Server) writeListProtobuf(ctx context.Context, q *request, opts listOptions) error {
	res := q.res
	var items net.Buffers
	size := 0
	var kvs []storage.KeyValue
	everything := opts.Labels.Empty() && opts.Fields.Empty()
	listMeta, err := s.listStored(ctx, res, q.info.Namespace, opts, func(kv storage.KeyValue) (bool, error) {
		if everything {
			kvs = append(kvs, kv)
			return true, nil
		}
		obj, err := decodeFromStorage(res, kv)
		if err != nil {
			return false, ErrInternal(err)
		}
		if !opts.matches(obj) {
			return false, nil
		}
		piece, ok := s.protobufItems.get(res, kv)
		if !ok {
			if piece, err = itemPiece(obj); err != nil {
				return false, err
			}
			s.protobufItems.put(res, kv, piece)
		}
		items, size = append(items, piece), size+len(piece)
		return true, nil
	})
	if err != nil {
		return err
	}
	if everything {
		if items, size, err = s.encodeItemsProtobuf(res, kvs); err != nil {
			return err
		}
	}
	return writeListPieces(q, listMeta, items, size)
}

// encodeItemsProtobuf answers stored items from the cache, and decodes and
// encodes the rest by one worker per CPU, each on its own run of them,
// keeping their order: the piece of item i is items[i].
func (s *Server) encodeItemsProtobuf(res *scheme.Resource, kvs []storage.KeyValue) (net.Buffers, int, error) {
	items := make(net.Buffers, len(kvs))
	missing := s.protobufItems.lookup(res, kvs, items)
	workers := min(runtime.GOMAXPROCS(0), (len(missing)+63)/64) // a few items are not worth a goroutine
	errs := make([]error, workers)
	var wg sync.WaitGroup
	for w := range workers {
		lo, hi := w*len(missing)/workers, (w+1)*len(missing)/workers
		wg.Go(func() {
			for _, i := range missing[lo:hi] {
				obj, err := decodeFromStorage(res, kvs[i])
				if err != nil {
					errs[w] = ErrInternal(err)
					return
				}
				if items[i], err = itemPiece(obj); err != nil {
					errs[w] = err
					return
				}
			}
		})
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return nil, 0, err
		}
	}
	s.protobufItems.putMissing(res, kvs, items, missing)
	size := 0
	for _, piece := range items {
		size += len(piece)
	}
	return items, size, nil
}

// writeItemsProtobuf answers a list of decoded objects in protobuf.
func writeItemsProtobuf(q *request, listMeta metav1.ListMeta, objs []metav1.Object) {
	items := make(net.Buffers, 0, len(objs))
	size := 0
	for _, obj := range objs {
		piece, err := itemPiece(obj)
		if err != nil {
			writeStatus(q.w, q.r, err)
			return
		}
		items, size = append(items, piece), size+len(piece)
	}
	if err := writeListPieces(q, listMeta, items, size); err != nil {
		writeStatus(q.w, q.r, err)
	}
}

// itemPiece is one list item: its field tag and length, then the object's
// protobuf bytes.
func itemPiece(obj metav1.Object) ([]byte, error) {
	raw, err := protobuf.Marshal(obj)
	if err != nil {
		return nil, ErrInternal(err)
	}
	piece := protobuf.AppendListItemHead(make([]byte, 0, 6+len(raw)), len(raw))
	return append(piece, raw...), nil
}

// writeListPieces writes the envelope around ListMeta and the items.
func writeListPieces(q *request, listMeta metav1.ListMeta, items net.Buffers, itemsSize int) error {
	meta, err := protobuf.AppendListMeta(nil, &listMeta)
	if err != nil {
		return ErrInternal(err)
	}
	rawLen := len(meta) + itemsSize
	head := protobuf.AppendEnvelopeHead(nil, q.res.GroupVersion(), q.res.ListKind(), rawLen)
	tail := protobuf.EnvelopeTail()
	h := q.w.Header()
	h.Set("Content-Type", mediaProtobuf)
	h.Set("Cache-Control", "no-cache, private")
	h.Set("Content-Length", strconv.Itoa(len(head)+rawLen+len(tail)))
	q.w.WriteHeader(http.StatusOK)
	w := bufio.NewWriterSize(q.w, 64<<10)
	w.Write(head)
	w.Write(meta)
	items.WriteTo(w)
	w.Write(tail)
	w.Flush()
	return nil
}

// protobufItems keeps list items' protobuf pieces by resource and key, with
// the revision they were encoded at. A key's stored value changes only with
// a new revision, so a piece is good for as long as the revision it was
// encoded at is the one listed. It holds at most 2×protobufItemsBytes: when
// the current generation is full it becomes the previous one and the
// previous one is dropped; a piece found in the previous generation moves
// back to the current one. Deleted keys so leave with their generation
// without being tracked.
type protobufItems struct {
	mu        sync.Mutex
	cur, prev map[protobufItemKey]protobufItem
	curBytes  int
}

type protobufItemKey struct {
	res *scheme.Resource // the served version's resource: its encoding
	key string
}

type protobufItem struct {
	rev   int64
	piece []byte
}

const protobufItemsBytes = 64 << 20

// get returns kv's piece when it is cached at kv's revision.
func (c *protobufItems) get(res *scheme.Resource, kv storage.KeyValue) ([]byte, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.getLocked(protobufItemKey{res, kv.Key}, kv.ModRevision)
}

// lookup fills items[i] for every kvs[i] that is cached and returns the
// indexes of the others.
func (c *protobufItems) lookup(res *scheme.Resource, kvs []storage.KeyValue, items [][]byte) (missing []int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for i, kv := range kvs {
		piece, ok := c.getLocked(protobufItemKey{res, kv.Key}, kv.ModRevision)
		if !ok {
			missing = append(missing, i)
			continue
		}
		items[i] = piece
	}
	return missing
}

func (c *protobufItems) getLocked(k protobufItemKey, rev int64) ([]byte, bool) {
	if it, ok := c.cur[k]; ok && it.rev == rev {
		return it.piece, true
	}
	if it, ok := c.prev[k]; ok && it.rev == rev {
		delete(c.prev, k)
		c.putLocked(k, it)
		return it.piece, true
	}
	return nil, false
}

// put keeps piece as kv's.
func (c *protobufItems) put(res *scheme.Resource, kv storage.KeyValue, piece []byte) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.putLocked(protobufItemKey{res, kv.Key}, protobufItem{kv.ModRevision, piece})
}

// putMissing keeps the pieces lookup did not find.
func (c *protobufItems) putMissing(res *scheme.Resource, kvs []storage.KeyValue, items [][]byte, missing []int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, i := range missing {
		c.putLocked(protobufItemKey{res, kvs[i].Key}, protobufItem{kvs[i].ModRevision, items[i]})
	}
}

func (c *protobufItems) putLocked(k protobufItemKey, it protobufItem) {
	if len(it.piece) > protobufItemsBytes/64 { // a huge object would push out many small ones
		return
	}
	if c.curBytes+len(it.piece) > protobufItemsBytes {
		c.prev, c.cur, c.curBytes = c.cur, nil, 0
	}
	if c.cur == nil {
		c.cur = map[protobufItemKey]protobufItem{}
	}
	if old, ok := c.cur[k]; ok {
		c.curBytes -= len(old.piece)
	}
	c.cur[k] = it
	c.curBytes += len(it.piece)
}
