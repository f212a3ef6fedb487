package webhook

import (
	"context"
	"io"
	"log/slog"
	"testing"
	"time"

	"kubik/ch01-apiserver/storage"
)

// The Source follows the configurations in storage through its watch.
func TestSourceFollowsStorage(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	store := storage.NewMemory(100)
	t.Cleanup(func() { store.Close() })
	if _, err := store.Create(ctx, ValidatingPrefix+"b", []byte(`{"webhooks":[{"name":"b1.x.y"},{"name":"b2.x.y"}]}`)); err != nil {
		t.Fatal(err)
	}
	s := NewSource(store, slog.New(slog.NewTextHandler(io.Discard, nil)))
	if err := s.Start(ctx); err != nil {
		t.Fatal(err)
	}
	names := func(mutating bool) string {
		out := ""
		for _, h := range s.hooks(mutating) {
			out += h.uid + " "
		}
		return out
	}
	if got := names(false); got != "b/b1.x.y/0 b/b2.x.y/1 " {
		t.Fatalf("after the first list: %q", got)
	}
	store.Create(ctx, ValidatingPrefix+"a", []byte(`{"webhooks":[{"name":"a1.x.y","failurePolicy":"Ignore"}]}`))
	store.Create(ctx, MutatingPrefix+"m", []byte(`{"webhooks":[{"name":"m1.x.y","reinvocationPolicy":"IfNeeded"}]}`))
	waitFor(t, func() bool {
		return names(false) == "a/a1.x.y/0 b/b1.x.y/0 b/b2.x.y/1 " && names(true) == "m/m1.x.y/0 "
	})
	if h := s.hooks(false)[0]; h.failurePolicy != "Ignore" || h.timeoutSeconds != 10 || h.matchPolicy != "Equivalent" {
		t.Errorf("hook a1: %+v", h)
	}
	if _, _, err := store.Delete(ctx, ValidatingPrefix+"b", 0); err != nil {
		t.Fatal(err)
	}
	waitFor(t, func() bool { return names(false) == "a/a1.x.y/0 " && s.HasWebhooks() })
}

func waitFor(t *testing.T, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatal("condition not met")
		}
		time.Sleep(10 * time.Millisecond)
	}
}
