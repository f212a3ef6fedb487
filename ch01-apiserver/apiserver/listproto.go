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

// writeListProtobuf answers a list in protobuf straight from storage.
// Without selectors every stored item is in the answer, so the items are
// decoded and encoded by one worker per CPU, each on its own run of them:
// that work is almost all of a protobuf list's cost.
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
		if items, size, err = appendItemProtobuf(items, size, obj); err != nil {
			return false, err
		}
		return true, nil
	})
	if err != nil {
		return err
	}
	if everything {
		if items, size, err = encodeItemsProtobuf(res, kvs); err != nil {
			return err
		}
	}
	return writeListPieces(q, listMeta, items, size)
}

// encodeItemsProtobuf decodes and encodes stored items in parallel, keeping
// their order: the pieces of item i are items[2i] and items[2i+1].
func encodeItemsProtobuf(res *scheme.Resource, kvs []storage.KeyValue) (net.Buffers, int, error) {
	items := make(net.Buffers, 2*len(kvs))
	workers := min(runtime.GOMAXPROCS(0), (len(kvs)+63)/64) // a few items are not worth a goroutine
	sizes := make([]int, workers)
	errs := make([]error, workers)
	var wg sync.WaitGroup
	for w := range workers {
		lo, hi := w*len(kvs)/workers, (w+1)*len(kvs)/workers
		wg.Go(func() {
			for i := lo; i < hi; i++ {
				obj, err := decodeFromStorage(res, kvs[i])
				if err != nil {
					errs[w] = ErrInternal(err)
					return
				}
				head, raw, err := itemPieces(obj)
				if err != nil {
					errs[w] = err
					return
				}
				items[2*i], items[2*i+1] = head, raw
				sizes[w] += len(head) + len(raw)
			}
		})
	}
	wg.Wait()
	size := 0
	for w := range workers {
		if errs[w] != nil {
			return nil, 0, errs[w]
		}
		size += sizes[w]
	}
	return items, size, nil
}

// writeItemsProtobuf answers a list of decoded objects in protobuf.
func writeItemsProtobuf(q *request, listMeta metav1.ListMeta, objs []metav1.Object) {
	var items net.Buffers
	size := 0
	var err error
	for _, obj := range objs {
		if items, size, err = appendItemProtobuf(items, size, obj); err != nil {
			writeStatus(q.w, q.r, err)
			return
		}
	}
	if err := writeListPieces(q, listMeta, items, size); err != nil {
		writeStatus(q.w, q.r, err)
	}
}

// appendItemProtobuf appends one list item's pieces (itemPieces).
func appendItemProtobuf(items net.Buffers, size int, obj metav1.Object) (net.Buffers, int, error) {
	head, raw, err := itemPieces(obj)
	if err != nil {
		return items, size, err
	}
	return append(items, head, raw), size + len(head) + len(raw), nil
}

// itemPieces is one list item: its field tag and length, and the object's
// protobuf bytes.
func itemPieces(obj metav1.Object) (head, raw []byte, err error) {
	if raw, err = protobuf.Marshal(obj); err != nil {
		return nil, nil, ErrInternal(err)
	}
	return protobuf.AppendListItemHead(make([]byte, 0, 6), len(raw)), raw, nil
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
