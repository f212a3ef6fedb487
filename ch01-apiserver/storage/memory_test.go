package storage_test

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"kubik/ch01-apiserver/storage"
	"kubik/internal/storagetest"
)

func TestMemoryConformance(t *testing.T) {
	storagetest.RunConformance(t, func(t *testing.T) storage.Interface {
		return storage.NewMemory(0)
	})
}

var _ storagetest.Compactor = (*storage.Memory)(nil)

// TestMemoryHistoryLimit: the memory store keeps only the last historyLen
// events, so a watch or list older than that is ErrCompacted — the 410 Gone
// a client answers with a fresh list.
func TestMemoryHistoryLimit(t *testing.T) {
	ctx := context.Background()
	m := storage.NewMemory(8)
	defer m.Close()
	var revs []int64
	for i := range 20 {
		rev, err := m.Create(ctx, fmt.Sprintf("/registry/pods/default/p%02d", i), []byte("v"))
		if err != nil {
			t.Fatal(err)
		}
		revs = append(revs, rev)
	}
	if _, err := m.Watch(ctx, "/registry/pods/", revs[0]); !errors.Is(err, storage.ErrCompacted) {
		t.Errorf("watch from the first of 20 revisions with a history of 8: err = %v, want ErrCompacted", err)
	}
	if _, err := m.List(ctx, "/registry/pods/", storage.ListOptions{Revision: revs[0]}); !errors.Is(err, storage.ErrCompacted) {
		t.Errorf("list at the first of 20 revisions with a history of 8: err = %v, want ErrCompacted", err)
	}
	// The last few revisions are still there.
	recent := revs[len(revs)-5]
	l, err := m.List(ctx, "/registry/pods/", storage.ListOptions{Revision: recent})
	if err != nil || len(l.KVs) != 16 {
		t.Errorf("list at a recent revision: %d keys, err = %v; want 16", len(l.KVs), err)
	}
	wctx, cancel := context.WithCancel(ctx)
	defer cancel()
	w, err := m.Watch(wctx, "/registry/pods/", recent)
	if err != nil {
		t.Fatalf("watch from a recent revision: %v", err)
	}
	for _, want := range revs[len(revs)-4:] {
		if ev := <-w; ev.KV.ModRevision != want {
			t.Fatalf("replayed event at %d, want %d", ev.KV.ModRevision, want)
		}
	}
}

// TestMemoryCompactErrors: compacting the future or what is already gone is
// refused, as etcd refuses it.
func TestMemoryCompactErrors(t *testing.T) {
	ctx := context.Background()
	m := storage.NewMemory(0)
	defer m.Close()
	rev, _ := m.Create(ctx, "/a", []byte("v"))
	m.Create(ctx, "/b", []byte("v"))
	if err := m.Compact(ctx, rev+10); !errors.Is(err, storage.ErrFutureRevision) {
		t.Errorf("Compact of a future revision: err = %v, want ErrFutureRevision", err)
	}
	if err := m.Compact(ctx, rev); err != nil {
		t.Fatalf("Compact(%d): %v", rev, err)
	}
	if err := m.Compact(ctx, rev); !errors.Is(err, storage.ErrCompacted) {
		t.Errorf("Compact of a compacted revision: err = %v, want ErrCompacted", err)
	}
}
