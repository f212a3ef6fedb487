// Package storagetest is the conformance suite of storage.Interface: the
// behaviour the apiserver relies on, checked the same way on every
// implementation. ch01 runs it on the in-memory store, ch02 on etcd:
//
//	func TestConformance(t *testing.T) {
//		storagetest.RunConformance(t, func(t *testing.T) storage.Interface {
//			return storage.NewMemory(0)
//		})
//	}
//
// The cases use revisions only relative to each other (etcd starts at 1, the
// memory store at 0; etcd may advance by more than one between writes of
// different clients), never absolute numbers.
package storagetest

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"math/rand/v2"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"kubik/ch01-apiserver/storage"
)

// Compactor is implemented by stores whose history can be dropped on demand
// (storage.Memory, etcd). The suite uses it to check ErrCompacted; a store
// without it skips those cases.
type Compactor interface {
	// Compact drops the history up to and including rev.
	Compact(ctx context.Context, rev int64) error
}

// eventTimeout bounds every wait for a watch event; quietPeriod is how long
// the suite listens to be sure no (further) event comes.
const (
	eventTimeout = 10 * time.Second
	quietPeriod  = 100 * time.Millisecond
)

// RunConformance runs every case as a subtest. newStore must return an empty
// store that nobody else writes to; the suite closes it when the subtest ends.
func RunConformance(t *testing.T, newStore func(t *testing.T) storage.Interface) {
	cases := []struct {
		name string
		run  func(t *testing.T, s storage.Interface)
	}{
		{"Create", testCreate},
		{"Get", testGet},
		{"ValuesAreCopies", testValuesAreCopies},
		{"Update", testUpdate},
		{"Delete", testDelete},
		{"DeleteExpectedRevision", testDeleteExpectedRevision},
		{"CurrentRevision", testCurrentRevision},
		{"ListPrefix", testListPrefix},
		{"ListLimit", testListLimit},
		{"ListPagination", testListPagination},
		{"ListAtRevision", testListAtRevision},
		{"ListFutureRevision", testListFutureRevision},
		{"ListHistory", testListHistory},
		{"WatchFromNow", testWatchFromNow},
		{"WatchFromRevision", testWatchFromRevision},
		{"WatchPrevAndIsCreate", testWatchPrevAndIsCreate},
		{"WatchPrefix", testWatchPrefix},
		{"WatchCancel", testWatchCancel},
		{"Compacted", testCompacted},
		{"ConcurrentUpdates", testConcurrentUpdates},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s := newStore(t)
			t.Cleanup(func() { s.Close() })
			c.run(t, s)
		})
	}
}

func testCreate(t *testing.T, s storage.Interface) {
	ctx := context.Background()
	r1 := mustCreate(t, s, "/registry/pods/default/a", "a1")
	r2 := mustCreate(t, s, "/registry/pods/default/b", "b1")
	if r2 <= r1 {
		t.Errorf("second create got revision %d, want more than the first's %d", r2, r1)
	}
	if _, err := s.Create(ctx, "/registry/pods/default/a", []byte("again")); !errors.Is(err, storage.ErrKeyExists) {
		t.Errorf("create of an existing key: err = %v, want ErrKeyExists", err)
	}
	// The refused create changed nothing.
	kv := mustGet(t, s, "/registry/pods/default/a")
	if string(kv.Value) != "a1" || kv.ModRevision != r1 {
		t.Errorf("after a refused create: %q at %d, want %q at %d", kv.Value, kv.ModRevision, "a1", r1)
	}
	if cur := mustCurrent(t, s); cur != r2 {
		t.Errorf("CurrentRevision after a refused create = %d, want %d", cur, r2)
	}
}

func testGet(t *testing.T, s storage.Interface) {
	ctx := context.Background()
	if _, err := s.Get(ctx, "/registry/pods/default/missing"); !errors.Is(err, storage.ErrNotFound) {
		t.Errorf("get of a missing key: err = %v, want ErrNotFound", err)
	}
	r1 := mustCreate(t, s, "/registry/pods/default/a", "v1")
	kv := mustGet(t, s, "/registry/pods/default/a")
	if kv.Key != "/registry/pods/default/a" || string(kv.Value) != "v1" || kv.CreateRevision != r1 || kv.ModRevision != r1 {
		t.Errorf("get after create = %+v, want value v1, CreateRevision = ModRevision = %d", kvString(kv), r1)
	}
	r2 := mustUpdate(t, s, "/registry/pods/default/a", "v2", r1)
	kv = mustGet(t, s, "/registry/pods/default/a")
	if string(kv.Value) != "v2" || kv.CreateRevision != r1 || kv.ModRevision != r2 {
		t.Errorf("get after update = %s, want value v2, CreateRevision %d, ModRevision %d", kvString(kv), r1, r2)
	}
	// A key is not a prefix: the parent "directory" does not exist.
	if _, err := s.Get(ctx, "/registry/pods/default"); !errors.Is(err, storage.ErrNotFound) {
		t.Errorf("get of a key's prefix: err = %v, want ErrNotFound", err)
	}
}

// testValuesAreCopies: the store keeps its own copy of what it is given and
// hands out copies, so no caller can change stored state behind its back.
func testValuesAreCopies(t *testing.T, s storage.Interface) {
	ctx := context.Background()
	in := []byte("original")
	if _, err := s.Create(ctx, "/registry/configmaps/default/c", in); err != nil {
		t.Fatal(err)
	}
	copy(in, "XXXXXXXX")
	kv := mustGet(t, s, "/registry/configmaps/default/c")
	if string(kv.Value) != "original" {
		t.Fatalf("changing the caller's slice after Create changed the stored value to %q", kv.Value)
	}
	copy(kv.Value, "YYYYYYYY")
	if kv := mustGet(t, s, "/registry/configmaps/default/c"); string(kv.Value) != "original" {
		t.Errorf("changing a slice returned by Get changed the stored value to %q", kv.Value)
	}
	l := mustList(t, s, "/registry/configmaps/", storage.ListOptions{})
	copy(l.KVs[0].Value, "ZZZZZZZZ")
	if kv := mustGet(t, s, "/registry/configmaps/default/c"); string(kv.Value) != "original" {
		t.Errorf("changing a slice returned by List changed the stored value to %q", kv.Value)
	}
}

func testUpdate(t *testing.T, s storage.Interface) {
	ctx := context.Background()
	key := "/registry/configmaps/default/c"
	if _, err := s.Update(ctx, key, []byte("v"), 1); !errors.Is(err, storage.ErrNotFound) {
		t.Errorf("update of a missing key: err = %v, want ErrNotFound", err)
	}
	r1 := mustCreate(t, s, key, "v1")
	r2 := mustUpdate(t, s, key, "v2", r1)
	if r2 <= r1 {
		t.Errorf("update got revision %d, want more than the create's %d", r2, r1)
	}
	// r1 is stale now: the write must be refused and change nothing.
	if _, err := s.Update(ctx, key, []byte("lost"), r1); !errors.Is(err, storage.ErrConflict) {
		t.Errorf("update with a stale revision: err = %v, want ErrConflict", err)
	}
	if _, err := s.Update(ctx, key, []byte("lost"), r2+100); !errors.Is(err, storage.ErrConflict) {
		t.Errorf("update with a future revision: err = %v, want ErrConflict", err)
	}
	kv := mustGet(t, s, key)
	if string(kv.Value) != "v2" || kv.ModRevision != r2 {
		t.Errorf("after refused updates: %s, want v2 at %d", kvString(kv), r2)
	}
	if cur := mustCurrent(t, s); cur != r2 {
		t.Errorf("CurrentRevision after refused updates = %d, want %d", cur, r2)
	}
	// Writing the same bytes again is still a write with a new revision.
	r3 := mustUpdate(t, s, key, "v2", r2)
	if r3 <= r2 {
		t.Errorf("update with the same value got revision %d, want more than %d", r3, r2)
	}
}

func testDelete(t *testing.T, s storage.Interface) {
	ctx := context.Background()
	key := "/registry/pods/default/a"
	if _, _, err := s.Delete(ctx, key, 0); !errors.Is(err, storage.ErrNotFound) {
		t.Errorf("delete of a missing key: err = %v, want ErrNotFound", err)
	}
	r1 := mustCreate(t, s, key, "v1")
	r2 := mustUpdate(t, s, key, "v2", r1)
	prev, rev, err := s.Delete(ctx, key, 0)
	if err != nil {
		t.Fatalf("delete: %v", err)
	}
	if prev.Key != key || string(prev.Value) != "v2" || prev.CreateRevision != r1 || prev.ModRevision != r2 {
		t.Errorf("delete returned %s, want the deleted value v2 (created %d, modified %d)", kvString(prev), r1, r2)
	}
	if rev <= r2 {
		t.Errorf("delete got revision %d, want more than %d", rev, r2)
	}
	if cur := mustCurrent(t, s); cur != rev {
		t.Errorf("CurrentRevision after delete = %d, want the delete's %d", cur, rev)
	}
	if _, err := s.Get(ctx, key); !errors.Is(err, storage.ErrNotFound) {
		t.Errorf("get after delete: err = %v, want ErrNotFound", err)
	}
	if _, _, err := s.Delete(ctx, key, 0); !errors.Is(err, storage.ErrNotFound) {
		t.Errorf("second delete: err = %v, want ErrNotFound", err)
	}
	// The key can be created again, as a new key.
	r4 := mustCreate(t, s, key, "v3")
	if kv := mustGet(t, s, key); kv.CreateRevision != r4 || kv.ModRevision != r4 {
		t.Errorf("re-created key: %s, want created and modified at %d", kvString(kv), r4)
	}
}

func testDeleteExpectedRevision(t *testing.T, s storage.Interface) {
	ctx := context.Background()
	key := "/registry/pods/default/a"
	r1 := mustCreate(t, s, key, "v1")
	r2 := mustUpdate(t, s, key, "v2", r1)
	if _, _, err := s.Delete(ctx, key, r1); !errors.Is(err, storage.ErrConflict) {
		t.Errorf("delete with a stale revision: err = %v, want ErrConflict", err)
	}
	if kv := mustGet(t, s, key); string(kv.Value) != "v2" {
		t.Errorf("a refused delete changed the value to %q", kv.Value)
	}
	if cur := mustCurrent(t, s); cur != r2 {
		t.Errorf("CurrentRevision after a refused delete = %d, want %d", cur, r2)
	}
	prev, rev, err := s.Delete(ctx, key, r2)
	if err != nil {
		t.Fatalf("delete with the current revision: %v", err)
	}
	if string(prev.Value) != "v2" || prev.ModRevision != r2 || rev <= r2 {
		t.Errorf("delete returned %s at %d, want v2 (modified %d) and a revision after it", kvString(prev), rev, r2)
	}
	if _, _, err := s.Delete(ctx, key, r2); !errors.Is(err, storage.ErrNotFound) {
		t.Errorf("delete with a revision of a deleted key: err = %v, want ErrNotFound", err)
	}
}

func testCurrentRevision(t *testing.T, s storage.Interface) {
	ctx := context.Background()
	start := mustCurrent(t, s)
	r1 := mustCreate(t, s, "/registry/pods/default/a", "v1")
	if r1 <= start {
		t.Errorf("create got revision %d, want more than the starting %d", r1, start)
	}
	if cur := mustCurrent(t, s); cur != r1 {
		t.Errorf("CurrentRevision after create = %d, want %d", cur, r1)
	}
	// Reads and failed writes do not move the revision.
	mustGet(t, s, "/registry/pods/default/a")
	mustList(t, s, "/registry/", storage.ListOptions{})
	s.Create(ctx, "/registry/pods/default/a", []byte("dup"))
	s.Update(ctx, "/registry/pods/default/a", []byte("stale"), r1-1)
	if cur := mustCurrent(t, s); cur != r1 {
		t.Errorf("CurrentRevision after reads and failed writes = %d, want %d", cur, r1)
	}
	r2 := mustUpdate(t, s, "/registry/pods/default/a", "v2", r1)
	if cur := mustCurrent(t, s); cur != r2 {
		t.Errorf("CurrentRevision after update = %d, want %d", cur, r2)
	}
}

func testListPrefix(t *testing.T, s storage.Interface) {
	// Created out of order: the list comes back sorted by key.
	for _, k := range []string{
		"/registry/pods/default/c",
		"/registry/pods/default2/x",
		"/registry/pods/default/a",
		"/registry/pods/kube-system/p",
		"/registry/pods/default/b",
		"/registry/pods/default",
		"/registry/podsx/default/a",
		"/registry/services/specs/default/a",
	} {
		mustCreate(t, s, k, "v:"+k)
	}
	cur := mustCurrent(t, s)
	l := mustList(t, s, "/registry/pods/default/", storage.ListOptions{})
	wantKeys(t, "list /registry/pods/default/", l, "/registry/pods/default/a", "/registry/pods/default/b", "/registry/pods/default/c")
	if l.More || l.Revision != cur {
		t.Errorf("list: More = %v, Revision = %d; want false, %d", l.More, l.Revision, cur)
	}
	for _, kv := range l.KVs {
		if string(kv.Value) != "v:"+kv.Key {
			t.Errorf("list: %s has value %q", kv.Key, kv.Value)
		}
	}
	l = mustList(t, s, "/registry/pods/", storage.ListOptions{})
	wantKeys(t, "list /registry/pods/", l, "/registry/pods/default", "/registry/pods/default/a", "/registry/pods/default/b",
		"/registry/pods/default/c", "/registry/pods/default2/x", "/registry/pods/kube-system/p")
	l = mustList(t, s, "/registry/nodes/", storage.ListOptions{})
	wantKeys(t, "list of an empty prefix", l)
	if l.Revision != cur {
		t.Errorf("list of an empty prefix: Revision = %d, want %d", l.Revision, cur)
	}
}

func testListLimit(t *testing.T, s storage.Interface) {
	for i := range 5 {
		mustCreate(t, s, fmt.Sprintf("/registry/pods/default/p%d", i), "v")
	}
	mustCreate(t, s, "/registry/pods/other/q", "v")
	l := mustList(t, s, "/registry/pods/default/", storage.ListOptions{Limit: 2})
	wantKeys(t, "limit 2", l, "/registry/pods/default/p0", "/registry/pods/default/p1")
	if !l.More || l.Remaining != 3 {
		t.Errorf("limit 2 of 5: More = %v, Remaining = %d; want true, 3", l.More, l.Remaining)
	}
	l = mustList(t, s, "/registry/pods/default/", storage.ListOptions{Limit: 5})
	if len(l.KVs) != 5 || l.More {
		t.Errorf("limit 5 of 5: %d keys, More = %v; want 5, false", len(l.KVs), l.More)
	}
	l = mustList(t, s, "/registry/pods/default/", storage.ListOptions{Limit: 100})
	if len(l.KVs) != 5 || l.More {
		t.Errorf("limit 100 of 5: %d keys, More = %v; want 5, false", len(l.KVs), l.More)
	}
}

// testListPagination reads a prefix page by page the way the apiserver does:
// every page at the revision of the first, continuing after the last key,
// while the store keeps changing in between.
func testListPagination(t *testing.T, s storage.Interface) {
	ctx := context.Background()
	var want []string
	for i := range 7 {
		k := fmt.Sprintf("/registry/pods/default/p%02d", i)
		mustCreate(t, s, k, "v")
		want = append(want, k)
	}
	mustCreate(t, s, "/registry/pods/default2/p00", "v")

	var got []string
	opts := storage.ListOptions{Limit: 3}
	for page := 0; ; page++ {
		l := mustList(t, s, "/registry/pods/default/", opts)
		for _, kv := range l.KVs {
			got = append(got, kv.Key)
		}
		if page == 0 {
			// Changes after the first page must not show in the later ones.
			mustCreate(t, s, "/registry/pods/default/p03a", "new")
			if _, _, err := s.Delete(ctx, "/registry/pods/default/p05", 0); err != nil {
				t.Fatal(err)
			}
		}
		wantRemaining := int64(len(want) - len(got))
		if l.More != (wantRemaining > 0) || (l.More && l.Remaining != wantRemaining) {
			t.Errorf("page %d: More = %v, Remaining = %d; want %d remaining", page, l.More, l.Remaining, wantRemaining)
		}
		if !l.More || page > len(want) {
			break
		}
		opts.Revision = l.Revision
		opts.StartAfter = l.KVs[len(l.KVs)-1].Key
	}
	if !slices.Equal(got, want) {
		t.Errorf("pages = %q, want %q", got, want)
	}
}

// testListAtRevision: a list at an older revision is a consistent snapshot:
// later creates, updates and deletes are invisible in it.
func testListAtRevision(t *testing.T, s storage.Interface) {
	ctx := context.Background()
	ra := mustCreate(t, s, "/registry/pods/default/a", "a1")
	mustCreate(t, s, "/registry/pods/default/b", "b1")
	rc := mustCreate(t, s, "/registry/pods/default/c", "c1")
	old := mustCurrent(t, s)

	mustCreate(t, s, "/registry/pods/default/d", "d1")                         // a later create
	if _, _, err := s.Delete(ctx, "/registry/pods/default/a", 0); err != nil { // a later delete
		t.Fatal(err)
	}
	mustUpdate(t, s, "/registry/pods/default/c", "c2", rc) // a later update
	mustCreate(t, s, "/registry/pods/default/a", "a2")     // and the deleted key back again

	l := mustList(t, s, "/registry/pods/default/", storage.ListOptions{Revision: old})
	wantKeys(t, "list at the older revision", l, "/registry/pods/default/a", "/registry/pods/default/b", "/registry/pods/default/c")
	if l.Revision != old {
		t.Errorf("list at %d: Revision = %d", old, l.Revision)
	}
	for _, kv := range l.KVs {
		want := kv.Key[len(kv.Key)-1:] + "1"
		if string(kv.Value) != want {
			t.Errorf("list at %d: %s = %q, want %q", old, kv.Key, kv.Value, want)
		}
		if kv.ModRevision > old {
			t.Errorf("list at %d: %s has ModRevision %d, from the future", old, kv.Key, kv.ModRevision)
		}
	}
	if len(l.KVs) > 0 && l.KVs[0].CreateRevision != ra {
		t.Errorf("list at %d: a was created at %d, got CreateRevision %d", old, ra, l.KVs[0].CreateRevision)
	}
	// Paginated reads at the older revision.
	l = mustList(t, s, "/registry/pods/default/", storage.ListOptions{Revision: old, Limit: 1, StartAfter: "/registry/pods/default/a"})
	wantKeys(t, "page after a at the older revision", l, "/registry/pods/default/b")
	if !l.More || l.Remaining != 1 {
		t.Errorf("page at the older revision: More = %v, Remaining = %d; want true, 1", l.More, l.Remaining)
	}
	// The latest state, for contrast.
	l = mustList(t, s, "/registry/pods/default/", storage.ListOptions{})
	wantKeys(t, "latest list", l, "/registry/pods/default/a", "/registry/pods/default/b",
		"/registry/pods/default/c", "/registry/pods/default/d")
	// Revision equal to the current one is the latest state.
	cur := mustCurrent(t, s)
	l = mustList(t, s, "/registry/pods/default/", storage.ListOptions{Revision: cur})
	if len(l.KVs) != 4 || l.Revision != cur {
		t.Errorf("list at the current revision %d: %d keys at %d, want 4 at %d", cur, len(l.KVs), l.Revision, cur)
	}
}

// testListHistory checks lists at every past revision against a model: a
// few hundred random creates, updates and deletes in three neighbouring
// prefixes, then a list of each prefix at each revision.
func testListHistory(t *testing.T, s storage.Interface) {
	ctx := context.Background()
	rnd := rand.New(rand.NewPCG(1, 2))
	prefixes := []string{"/registry/pods/a/", "/registry/pods/a1/", "/registry/pods/b/"}
	type snapshot struct {
		rev int64
		kvs map[string]storage.KeyValue
	}
	model := map[string]storage.KeyValue{}
	var history []snapshot
	for i := range 300 {
		key := prefixes[rnd.IntN(len(prefixes))] + fmt.Sprintf("k%d", rnd.IntN(8))
		value := fmt.Sprintf("v%d", i)
		old, exists := model[key]
		var rev int64
		var err error
		switch {
		case !exists:
			rev, err = s.Create(ctx, key, []byte(value))
			model[key] = storage.KeyValue{Key: key, Value: []byte(value), CreateRevision: rev, ModRevision: rev}
		case rnd.IntN(3) == 0:
			_, rev, err = s.Delete(ctx, key, old.ModRevision)
			delete(model, key)
		default:
			rev, err = s.Update(ctx, key, []byte(value), old.ModRevision)
			model[key] = storage.KeyValue{Key: key, Value: []byte(value), CreateRevision: old.CreateRevision, ModRevision: rev}
		}
		if err != nil {
			t.Fatalf("operation %d on %s: %v", i, key, err)
		}
		history = append(history, snapshot{rev, maps.Clone(model)})
	}
	for _, snap := range history {
		for _, prefix := range prefixes {
			l := mustList(t, s, prefix, storage.ListOptions{Revision: snap.rev})
			var want []storage.KeyValue
			for _, k := range slices.Sorted(maps.Keys(snap.kvs)) {
				if strings.HasPrefix(k, prefix) {
					want = append(want, snap.kvs[k])
				}
			}
			if len(l.KVs) != len(want) {
				t.Fatalf("list %s at %d: %d keys, want %d", prefix, snap.rev, len(l.KVs), len(want))
			}
			for i, kv := range l.KVs {
				w := want[i]
				if kv.Key != w.Key || string(kv.Value) != string(w.Value) || kv.CreateRevision != w.CreateRevision || kv.ModRevision != w.ModRevision {
					t.Fatalf("list %s at %d: item %d = %s, want %s", prefix, snap.rev, i, kvString(kv), kvString(w))
				}
			}
		}
	}
}

func testListFutureRevision(t *testing.T, s storage.Interface) {
	mustCreate(t, s, "/registry/pods/default/a", "v")
	cur := mustCurrent(t, s)
	_, err := s.List(context.Background(), "/registry/pods/", storage.ListOptions{Revision: cur + 100})
	if !errors.Is(err, storage.ErrFutureRevision) {
		t.Errorf("list at a future revision: err = %v, want ErrFutureRevision", err)
	}
}

func testWatchFromNow(t *testing.T, s storage.Interface) {
	mustCreate(t, s, "/registry/pods/default/old", "v")
	w := mustWatch(t, s, "/registry/pods/", 0)
	r := mustCreate(t, s, "/registry/pods/default/new", "v")
	ev := nextEvent(t, w)
	if ev.KV.Key != "/registry/pods/default/new" || ev.KV.ModRevision != r || !ev.IsCreate() {
		t.Errorf("watch from now: first event %s, want the create of new at %d", evString(ev), r)
	}
	noEvent(t, w)
}

func testWatchFromRevision(t *testing.T, s storage.Interface) {
	ctx := context.Background()
	r0 := mustCreate(t, s, "/registry/pods/default/a", "a1")
	r1 := mustUpdate(t, s, "/registry/pods/default/a", "a2", r0)
	r2 := mustCreate(t, s, "/registry/pods/default/b", "b1")
	_, r3, err := s.Delete(ctx, "/registry/pods/default/a", 0)
	if err != nil {
		t.Fatal(err)
	}
	// From r0: everything after it, in order; then live events.
	w := mustWatch(t, s, "/registry/pods/", r0)
	r4 := mustCreate(t, s, "/registry/pods/default/c", "c1")
	want := []struct {
		typ storage.EventType
		key string
		rev int64
	}{
		{storage.EventPut, "/registry/pods/default/a", r1},
		{storage.EventPut, "/registry/pods/default/b", r2},
		{storage.EventDelete, "/registry/pods/default/a", r3},
		{storage.EventPut, "/registry/pods/default/c", r4},
	}
	for i, wv := range want {
		ev := nextEvent(t, w)
		if ev.Type != wv.typ || ev.KV.Key != wv.key || ev.KV.ModRevision != wv.rev {
			t.Fatalf("event %d = %s, want type %d on %s at %d", i, evString(ev), wv.typ, wv.key, wv.rev)
		}
	}
	noEvent(t, w)
	// From the current revision: nothing to replay.
	cur := mustCurrent(t, s)
	w2 := mustWatch(t, s, "/registry/pods/", cur)
	noEvent(t, w2)
}

func testWatchPrevAndIsCreate(t *testing.T, s storage.Interface) {
	ctx := context.Background()
	key := "/registry/configmaps/default/c"
	w := mustWatch(t, s, "/registry/configmaps/", 0)
	r1 := mustCreate(t, s, key, "v1")
	r2 := mustUpdate(t, s, key, "v2", r1)
	_, r3, err := s.Delete(ctx, key, 0)
	if err != nil {
		t.Fatal(err)
	}
	r4 := mustCreate(t, s, key, "v3")

	ev := nextEvent(t, w) // create
	if ev.Type != storage.EventPut || !ev.IsCreate() || ev.Prev != nil || string(ev.KV.Value) != "v1" ||
		ev.KV.CreateRevision != r1 || ev.KV.ModRevision != r1 {
		t.Errorf("create event = %s, want a create of v1 at %d without Prev", evString(ev), r1)
	}
	ev = nextEvent(t, w) // update
	if ev.Type != storage.EventPut || ev.IsCreate() || string(ev.KV.Value) != "v2" ||
		ev.KV.CreateRevision != r1 || ev.KV.ModRevision != r2 {
		t.Errorf("update event = %s, want a modification to v2 at %d", evString(ev), r2)
	}
	if ev.Prev == nil || string(ev.Prev.Value) != "v1" || ev.Prev.ModRevision != r1 {
		t.Errorf("update event Prev = %v, want v1 at %d", kvPtrString(ev.Prev), r1)
	}
	ev = nextEvent(t, w) // delete
	if ev.Type != storage.EventDelete || ev.IsCreate() || ev.KV.Key != key || len(ev.KV.Value) != 0 || ev.KV.ModRevision != r3 {
		t.Errorf("delete event = %s, want a delete of %s at %d without a value", evString(ev), key, r3)
	}
	if ev.Prev == nil || string(ev.Prev.Value) != "v2" || ev.Prev.ModRevision != r2 || ev.Prev.CreateRevision != r1 {
		t.Errorf("delete event Prev = %v, want v2 (created %d, modified %d)", kvPtrString(ev.Prev), r1, r2)
	}
	ev = nextEvent(t, w) // re-create
	if ev.Type != storage.EventPut || !ev.IsCreate() || ev.Prev != nil || ev.KV.ModRevision != r4 {
		t.Errorf("re-create event = %s, want a create at %d without Prev", evString(ev), r4)
	}
}

func testWatchPrefix(t *testing.T, s storage.Interface) {
	w := mustWatch(t, s, "/registry/pods/default/", 0)
	first := mustCreate(t, s, "/registry/pods/default2/x", "v")
	mustCreate(t, s, "/registry/pods/kube-system/y", "v")
	mustCreate(t, s, "/registry/pods/default", "v")
	mustCreate(t, s, "/registry/configmaps/default/z", "v")
	r := mustCreate(t, s, "/registry/pods/default/a", "v")
	ev := nextEvent(t, w)
	if ev.KV.Key != "/registry/pods/default/a" || ev.KV.ModRevision != r {
		t.Errorf("watch of /registry/pods/default/: got %s, want only /registry/pods/default/a", evString(ev))
	}
	noEvent(t, w)
	// Replay filters by prefix too.
	w2 := mustWatch(t, s, "/registry/pods/default/", first)
	ev = nextEvent(t, w2)
	if ev.KV.Key != "/registry/pods/default/a" {
		t.Errorf("replayed watch of /registry/pods/default/: got %s, want only /registry/pods/default/a", evString(ev))
	}
	noEvent(t, w2)
}

func testWatchCancel(t *testing.T, s storage.Interface) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	w, err := s.Watch(ctx, "/registry/pods/", 0)
	if err != nil {
		t.Fatal(err)
	}
	mustCreate(t, s, "/registry/pods/default/a", "v")
	nextEvent(t, w)
	cancel()
	deadline := time.After(eventTimeout)
	for {
		select {
		case _, ok := <-w:
			if !ok {
				// Writes after the watch is gone still work.
				mustCreate(t, s, "/registry/pods/default/b", "v")
				return
			}
		case <-deadline:
			t.Fatalf("the watch channel is still open %v after its context was cancelled", eventTimeout)
		}
	}
}

// testCompacted: history that is gone is ErrCompacted for lists and watches
// (the apiserver answers 410 Gone), while the latest state stays readable.
func testCompacted(t *testing.T, s storage.Interface) {
	c, ok := s.(Compactor)
	if !ok {
		t.Skip("the store does not implement storagetest.Compactor")
	}
	ctx := context.Background()
	r1 := mustCreate(t, s, "/registry/pods/default/a", "v1")
	r2 := mustUpdate(t, s, "/registry/pods/default/a", "v2", r1)
	r3 := mustUpdate(t, s, "/registry/pods/default/a", "v3", r2)
	r4 := mustCreate(t, s, "/registry/pods/default/b", "v1")
	if err := c.Compact(ctx, r3); err != nil {
		t.Fatalf("Compact(%d): %v", r3, err)
	}
	if _, err := s.Watch(ctx, "/registry/pods/", r1); !errors.Is(err, storage.ErrCompacted) {
		t.Errorf("watch from %d after compacting at %d: err = %v, want ErrCompacted", r1, r3, err)
	}
	if _, err := s.List(ctx, "/registry/pods/", storage.ListOptions{Revision: r1}); !errors.Is(err, storage.ErrCompacted) {
		t.Errorf("list at %d after compacting at %d: err = %v, want ErrCompacted", r1, r3, err)
	}
	// The compacted revision itself is still readable.
	l := mustList(t, s, "/registry/pods/", storage.ListOptions{Revision: r3})
	wantKeys(t, "list at the compacted revision", l, "/registry/pods/default/a")
	// Watching after the compacted revision replays what is left.
	w := mustWatch(t, s, "/registry/pods/", r3)
	if ev := nextEvent(t, w); ev.KV.Key != "/registry/pods/default/b" || ev.KV.ModRevision != r4 {
		t.Errorf("watch from %d: got %s, want the create of b at %d", r3, evString(ev), r4)
	}
	// The latest state and new watches are untouched.
	l = mustList(t, s, "/registry/pods/", storage.ListOptions{})
	wantKeys(t, "latest list after compaction", l, "/registry/pods/default/a", "/registry/pods/default/b")
	w = mustWatch(t, s, "/registry/pods/", 0)
	r5 := mustUpdate(t, s, "/registry/pods/default/a", "v4", r3)
	if ev := nextEvent(t, w); ev.KV.ModRevision != r5 || ev.Prev == nil || string(ev.Prev.Value) != "v3" {
		t.Errorf("watch after compaction: got %s, want the update at %d with Prev v3", evString(ev), r5)
	}
}

// testConcurrentUpdates: 50 clients increment one counter 20 times each with
// read-modify-write, retrying on ErrConflict. Optimistic concurrency must not
// lose a single increment, and a watcher sees every write once, in order.
func testConcurrentUpdates(t *testing.T, s storage.Interface) {
	const workers, increments = 50, 20
	ctx := context.Background()
	key := "/registry/configmaps/default/counter"
	mustCreate(t, s, key, "0")
	w := mustWatch(t, s, key, 0)

	var wg sync.WaitGroup
	var mu sync.Mutex
	var conflicts int
	errs := make(chan error, workers)
	for range workers {
		wg.Go(func() {
			for range increments {
				for {
					kv, err := s.Get(ctx, key)
					if err != nil {
						errs <- err
						return
					}
					n, err := strconv.Atoi(string(kv.Value))
					if err != nil {
						errs <- err
						return
					}
					runtime.Gosched() // let others write in between: that is the race being tested
					_, err = s.Update(ctx, key, []byte(strconv.Itoa(n+1)), kv.ModRevision)
					if errors.Is(err, storage.ErrConflict) {
						mu.Lock()
						conflicts++
						mu.Unlock()
						continue
					}
					if err != nil {
						errs <- err
						return
					}
					break
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatalf("worker: %v", err)
	}
	const want = workers * increments
	if kv := mustGet(t, s, key); string(kv.Value) != strconv.Itoa(want) {
		t.Fatalf("counter = %s after %d increments: lost updates", kv.Value, want)
	}
	t.Logf("%d increments, %d conflicts retried", want, conflicts)
	var last int64
	for i := 1; i <= want; i++ {
		ev := nextEvent(t, w)
		if string(ev.KV.Value) != strconv.Itoa(i) || ev.KV.ModRevision <= last {
			t.Fatalf("watch event %d = %s, want value %d after revision %d", i, evString(ev), i, last)
		}
		last = ev.KV.ModRevision
	}
}

// Helpers. Each fails the test on an unexpected error.

func mustCreate(t *testing.T, s storage.Interface, key, value string) int64 {
	t.Helper()
	rev, err := s.Create(context.Background(), key, []byte(value))
	if err != nil {
		t.Fatalf("create %s: %v", key, err)
	}
	return rev
}

func mustUpdate(t *testing.T, s storage.Interface, key, value string, expected int64) int64 {
	t.Helper()
	rev, err := s.Update(context.Background(), key, []byte(value), expected)
	if err != nil {
		t.Fatalf("update %s at %d: %v", key, expected, err)
	}
	return rev
}

func mustGet(t *testing.T, s storage.Interface, key string) storage.KeyValue {
	t.Helper()
	kv, err := s.Get(context.Background(), key)
	if err != nil {
		t.Fatalf("get %s: %v", key, err)
	}
	return kv
}

func mustList(t *testing.T, s storage.Interface, prefix string, opts storage.ListOptions) storage.ListResult {
	t.Helper()
	l, err := s.List(context.Background(), prefix, opts)
	if err != nil {
		t.Fatalf("list %s %+v: %v", prefix, opts, err)
	}
	return l
}

func mustCurrent(t *testing.T, s storage.Interface) int64 {
	t.Helper()
	rev, err := s.CurrentRevision(context.Background())
	if err != nil {
		t.Fatalf("CurrentRevision: %v", err)
	}
	return rev
}

// mustWatch starts a watch that ends with the test.
func mustWatch(t *testing.T, s storage.Interface, prefix string, from int64) <-chan storage.Event {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	w, err := s.Watch(ctx, prefix, from)
	if err != nil {
		t.Fatalf("watch %s from %d: %v", prefix, from, err)
	}
	return w
}

func nextEvent(t *testing.T, w <-chan storage.Event) storage.Event {
	t.Helper()
	select {
	case ev, ok := <-w:
		if !ok {
			t.Fatal("the watch channel closed while an event was expected")
		}
		return ev
	case <-time.After(eventTimeout):
		t.Fatalf("no watch event within %v", eventTimeout)
	}
	return storage.Event{}
}

func noEvent(t *testing.T, w <-chan storage.Event) {
	t.Helper()
	select {
	case ev, ok := <-w:
		if ok {
			t.Errorf("unexpected watch event %s", evString(ev))
		} else {
			t.Errorf("the watch channel closed unexpectedly")
		}
	case <-time.After(quietPeriod):
	}
}

func wantKeys(t *testing.T, what string, l storage.ListResult, keys ...string) {
	t.Helper()
	got := make([]string, len(l.KVs))
	for i, kv := range l.KVs {
		got[i] = kv.Key
	}
	if !slices.Equal(got, keys) {
		t.Errorf("%s: keys %q, want %q", what, got, keys)
	}
}

func kvString(kv storage.KeyValue) string {
	return fmt.Sprintf("{%s = %q created %d modified %d}", kv.Key, kv.Value, kv.CreateRevision, kv.ModRevision)
}

func kvPtrString(kv *storage.KeyValue) string {
	if kv == nil {
		return "nil"
	}
	return kvString(*kv)
}

func evString(ev storage.Event) string {
	typ := "PUT"
	if ev.Type == storage.EventDelete {
		typ = "DELETE"
	}
	return fmt.Sprintf("%s %s prev %s", typ, kvString(ev.KV), kvPtrString(ev.Prev))
}
