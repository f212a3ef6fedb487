package apiserver

import (
	"fmt"
	"testing"

	"kubik/ch01-apiserver/api/scheme"
	"kubik/ch01-apiserver/storage"
)

// TestProtobufItemsBounded: the cache of encoded list items never holds
// more than two generations' worth of bytes, a piece read keeps its place
// across a rotation, and a piece is only answered for its own revision.
func TestProtobufItemsBounded(t *testing.T) {
	var c protobufItems
	res := &scheme.Resource{}
	piece := make([]byte, 64<<10)
	hot := storage.KeyValue{Key: "/registry/pods/ns/hot", ModRevision: 7}
	c.put(res, hot, piece)
	n := 4 * protobufItemsBytes / len(piece)
	for i := range n {
		c.put(res, storage.KeyValue{Key: fmt.Sprintf("/registry/pods/ns/p-%d", i), ModRevision: int64(i + 10)}, piece)
		if _, ok := c.get(res, hot); !ok {
			t.Fatalf("after %d puts: the piece read on every put was dropped", i)
		}
		held := c.curBytes
		for _, it := range c.prev {
			held += len(it.piece)
		}
		if held > 2*protobufItemsBytes {
			t.Fatalf("after %d puts: %d bytes held, bound %d", i, held, 2*protobufItemsBytes)
		}
	}
	if _, ok := c.get(res, storage.KeyValue{Key: "/registry/pods/ns/p-0", ModRevision: 10}); ok {
		t.Errorf("the first of %d pieces is still held", n)
	}
	if _, ok := c.get(res, storage.KeyValue{Key: hot.Key, ModRevision: 8}); ok {
		t.Error("a piece answered for a newer revision of its key")
	}
	if _, ok := c.get(&scheme.Resource{}, hot); ok {
		t.Error("a piece answered for another resource")
	}
	huge := make([]byte, protobufItemsBytes/32)
	c.put(res, storage.KeyValue{Key: "/registry/pods/ns/huge", ModRevision: 99}, huge)
	if _, ok := c.get(res, storage.KeyValue{Key: "/registry/pods/ns/huge", ModRevision: 99}); ok {
		t.Error("a piece larger than 1/64 of a generation was kept")
	}
}
