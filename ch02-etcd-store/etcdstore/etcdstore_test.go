package etcdstore_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"sync/atomic"
	"testing"
	"time"

	"kubik/ch01-apiserver/storage"
	"kubik/ch02-etcd-store/etcdstore"
	"kubik/internal/etcdtest"
	"kubik/internal/storagetest"
	"kubik/internal/testenv"
)

// One embedded etcd serves the whole test binary; every store gets its own
// key prefix, so the cases never see each other's keys.
var (
	endpoint string
	prefixN  atomic.Int64
	quiet    = slog.New(slog.NewTextHandler(io.Discard, nil))
)

var _ storagetest.Compactor = (*etcdstore.Store)(nil)

func TestMain(m *testing.M) { etcdtest.Main(m, &endpoint) }

func newStore(t *testing.T, cfg etcdstore.Config) *etcdstore.Store {
	t.Helper()
	if cfg.Endpoints == nil {
		cfg.Endpoints = []string{endpoint}
	}
	if cfg.Prefix == "" {
		cfg.Prefix = fmt.Sprintf("/test-%d", prefixN.Add(1))
	}
	cfg.Logger = quiet
	s, err := etcdstore.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func TestConformance(t *testing.T) {
	storagetest.RunConformance(t, func(t *testing.T) storage.Interface {
		return newStore(t, etcdstore.Config{})
	})
}

// TestKeysAndValuesAsGiven: without a prefix, etcd holds exactly the
// apiserver's key and bytes — what `etcdctl get` shows.
func TestKeysAndValuesAsGiven(t *testing.T) {
	ctx := context.Background()
	s, err := etcdstore.New(etcdstore.Config{Endpoints: []string{endpoint}, Logger: quiet})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	key, value := "/registry/pods/keys-test/web", `{"kind":"Pod","apiVersion":"v1"}`
	rev, err := s.Create(ctx, key, []byte(value))
	if err != nil {
		t.Fatal(err)
	}
	resp, err := s.Client().Get(ctx, key)
	if err != nil {
		t.Fatal(err)
	}
	if len(resp.Kvs) != 1 || string(resp.Kvs[0].Value) != value || resp.Kvs[0].ModRevision != rev {
		t.Fatalf("etcd has %v, want %s at %d", resp.Kvs, value, rev)
	}
	if _, _, err := s.Delete(ctx, key, 0); err != nil {
		t.Fatal(err)
	}
}

// TestCompactor: each round compacts to the revision the previous round saw.
func TestCompactor(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	s := newStore(t, etcdstore.Config{})
	defer s.Close()
	first, err := s.Create(ctx, "/registry/configmaps/default/c", []byte("v1"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Update(ctx, "/registry/configmaps/default/c", []byte("v2"), first); err != nil {
		t.Fatal(err)
	}
	go s.RunCompactor(ctx, 100*time.Millisecond)
	testenv.Eventually(t, fmt.Sprintf("revision %d compacted (compaction every 100ms)", first), time.Minute, func() (string, bool) {
		_, err := s.List(ctx, "/registry/configmaps/", storage.ListOptions{Revision: first})
		if err != nil && !errors.Is(err, storage.ErrCompacted) {
			t.Fatal(err)
		}
		return fmt.Sprintf("list at %d: %v", first, err), errors.Is(err, storage.ErrCompacted)
	})
	// The latest state is untouched.
	kv, err := s.Get(ctx, "/registry/configmaps/default/c")
	if err != nil || string(kv.Value) != "v2" {
		t.Fatalf("after compaction: %q, %v; want v2", kv.Value, err)
	}
}

// TestUnavailable: with etcd gone, every call fails with ErrUnavailable (the
// apiserver's 504), ended by the store's call timeout before the request's
// own deadline.
func TestUnavailable(t *testing.T) {
	dir := t.TempDir()
	ep, stop, err := etcdstore.StartEmbedded(context.Background(), dir, quiet)
	if err != nil {
		t.Fatal(err)
	}
	s := newStore(t, etcdstore.Config{Endpoints: []string{ep}, CallTimeout: 500 * time.Millisecond})
	defer s.Close()
	if _, err := s.Create(context.Background(), "/registry/pods/default/a", []byte("v")); err != nil {
		t.Fatal(err)
	}
	stop()

	// The request's own deadline is the apiserver's default --request-timeout,
	// a minute: an etcd client left to it would hang until then. Every call
	// must end before it, on the store's deadline: ErrUnavailable caused by
	// context.DeadlineExceeded while the caller's context is still live.
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	endedByCallTimeout := func(what string, err error) {
		t.Helper()
		if !errors.Is(err, storage.ErrUnavailable) || !errors.Is(err, context.DeadlineExceeded) || ctx.Err() != nil {
			t.Errorf("%s with etcd stopped: err = %v, the request's context: %v; want ErrUnavailable from the store's call timeout",
				what, err, ctx.Err())
		}
	}
	_, err = s.Get(ctx, "/registry/pods/default/a")
	endedByCallTimeout("get", err)
	endedByCallTimeout("Check", s.Check(ctx))
	_, err = s.Create(ctx, "/registry/pods/default/b", []byte("v"))
	endedByCallTimeout("create", err)
	_, err = s.Watch(ctx, "/registry/pods/", 0)
	endedByCallTimeout("watch", err)
}
