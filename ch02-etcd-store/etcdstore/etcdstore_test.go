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
	deadline := time.Now().Add(10 * time.Second)
	for {
		_, err := s.List(ctx, "/registry/configmaps/", storage.ListOptions{Revision: first})
		if errors.Is(err, storage.ErrCompacted) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		if time.Now().After(deadline) {
			t.Fatalf("revision %d still readable after 10s of compaction every 100ms", first)
		}
		time.Sleep(50 * time.Millisecond)
	}
	// The latest state is untouched.
	kv, err := s.Get(ctx, "/registry/configmaps/default/c")
	if err != nil || string(kv.Value) != "v2" {
		t.Fatalf("after compaction: %q, %v; want v2", kv.Value, err)
	}
}

// TestUnavailable: with etcd gone, every call fails within the call timeout
// with ErrUnavailable (the apiserver's 504), and works again once etcd is back.
func TestUnavailable(t *testing.T) {
	dir := t.TempDir()
	ep, stop, err := etcdstore.StartEmbedded(context.Background(), dir, quiet)
	if err != nil {
		t.Fatal(err)
	}
	s := newStore(t, etcdstore.Config{Endpoints: []string{ep}, CallTimeout: 500 * time.Millisecond})
	defer s.Close()
	ctx := context.Background()
	if _, err := s.Create(ctx, "/registry/pods/default/a", []byte("v")); err != nil {
		t.Fatal(err)
	}
	stop()

	start := time.Now()
	_, err = s.Get(ctx, "/registry/pods/default/a")
	if !errors.Is(err, storage.ErrUnavailable) {
		t.Errorf("get with etcd stopped: err = %v, want ErrUnavailable", err)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("get with etcd stopped took %v, want about the 0.5s call timeout", d)
	}
	if err := s.Check(ctx); !errors.Is(err, storage.ErrUnavailable) {
		t.Errorf("Check with etcd stopped: %v, want ErrUnavailable", err)
	}
	if _, err := s.Create(ctx, "/registry/pods/default/b", []byte("v")); !errors.Is(err, storage.ErrUnavailable) {
		t.Errorf("create with etcd stopped: err = %v, want ErrUnavailable", err)
	}
	if _, err := s.Watch(ctx, "/registry/pods/", 0); !errors.Is(err, storage.ErrUnavailable) {
		t.Errorf("watch with etcd stopped: err = %v, want ErrUnavailable", err)
	}
}
