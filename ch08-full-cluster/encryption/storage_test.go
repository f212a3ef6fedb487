package encryption

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"kubik/ch01-apiserver/storage"
)

func newTestStore(t *testing.T, config string) (*Store, storage.Interface) {
	t.Helper()
	ts, err := mustParse(t, config).Transformers()
	if err != nil {
		t.Fatal(err)
	}
	mem := storage.NewMemory(0)
	t.Cleanup(func() { mem.Close() })
	return NewStore(mem, ts, nil), mem
}

var secretsCBC = `
kind: EncryptionConfiguration
apiVersion: apiserver.config.k8s.io/v1
resources:
- resources: [secrets]
  providers:
  - aescbc: {keys: [{name: key1, secret: ` + b64(32, 'k') + `}]}
  - identity: {}
`

// TestStoreTransformsConfiguredKeys: a Secret is encrypted beneath and
// plain above, on every path (create, get, list, update, watch, delete);
// a ConfigMap passes as it is.
func TestStoreTransformsConfiguredKeys(t *testing.T) {
	s, raw := newTestStore(t, secretsCBC)
	ctx := context.Background()
	if got := s.Prefixes(); len(got) != 1 || got[0] != "/registry/secrets/" {
		t.Fatalf("prefixes %v", got)
	}
	w, err := s.Watch(ctx, "/registry/secrets/", 0)
	if err != nil {
		t.Fatal(err)
	}
	const key, value = "/registry/secrets/default/x", `{"kind":"Secret","data":{"a":"YQ=="}}`
	rev, err := s.Create(ctx, key, []byte(value))
	if err != nil {
		t.Fatal(err)
	}
	stored, err := raw.Get(ctx, key)
	if err != nil || !strings.HasPrefix(string(stored.Value), "k8s:enc:aescbc:v1:key1:") || strings.Contains(string(stored.Value), "Secret") {
		t.Fatalf("beneath: %q %v", stored.Value, err)
	}
	if kv, err := s.Get(ctx, key); err != nil || string(kv.Value) != value {
		t.Fatalf("get: %q %v", kv.Value, err)
	}
	if l, err := s.List(ctx, "/registry/secrets/", storage.ListOptions{}); err != nil || len(l.KVs) != 1 || string(l.KVs[0].Value) != value {
		t.Fatalf("list: %+v %v", l, err)
	}
	const value2 = `{"kind":"Secret","data":{"a":"Yg=="}}`
	if _, err := s.Update(ctx, key, []byte(value2), rev); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{value, value2} {
		select {
		case ev := <-w:
			if string(ev.KV.Value) != want {
				t.Fatalf("watch: %q, want %q", ev.KV.Value, want)
			}
			if want == value2 && (ev.Prev == nil || string(ev.Prev.Value) != value) {
				t.Fatalf("watch prev: %+v", ev.Prev)
			}
		case <-time.After(30 * time.Second):
			t.Fatal("no watch event")
		}
	}
	if kv, _, err := s.Delete(ctx, key, 0); err != nil || string(kv.Value) != value2 {
		t.Fatalf("delete: %q %v", kv.Value, err)
	}

	const cm = `{"kind":"ConfigMap"}`
	if _, err := s.Create(ctx, "/registry/configmaps/default/c", []byte(cm)); err != nil {
		t.Fatal(err)
	}
	if kv, err := raw.Get(ctx, "/registry/configmaps/default/c"); err != nil || string(kv.Value) != cm {
		t.Fatalf("configmap beneath: %q %v", kv.Value, err)
	}
}

// TestStoreAuthenticatesKey: with aesgcm a value moved to another key
// does not decrypt; a value that cannot be read fails get and list with
// the key named.
func TestStoreAuthenticatesKey(t *testing.T) {
	s, raw := newTestStore(t, `
kind: EncryptionConfiguration
apiVersion: apiserver.config.k8s.io/v1
resources:
- resources: [secrets]
  providers: [{aesgcm: {keys: [{name: key1, secret: `+b64(32, 'g')+`}]}}]
`)
	ctx := context.Background()
	if _, err := s.Create(ctx, "/registry/secrets/default/a", []byte(`{"kind":"Secret"}`)); err != nil {
		t.Fatal(err)
	}
	kv, _ := raw.Get(ctx, "/registry/secrets/default/a")
	if _, err := raw.Create(ctx, "/registry/secrets/default/b", kv.Value); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Get(ctx, "/registry/secrets/default/b"); err == nil || !strings.Contains(err.Error(), `unable to transform key "/registry/secrets/default/b"`) {
		t.Fatalf("moved value: %v", err)
	}
	if _, err := s.List(ctx, "/registry/secrets/", storage.ListOptions{}); err == nil {
		t.Fatal("list with an unreadable value succeeded")
	}
	if _, err := s.Get(ctx, "/registry/secrets/default/missing"); !errors.Is(err, storage.ErrNotFound) {
		t.Fatalf("missing: %v", err)
	}
}

// TestStoreWatchEndsOnUnreadable: a watch that meets a value it cannot
// decrypt ends (its channel closes) instead of skipping it.
func TestStoreWatchEndsOnUnreadable(t *testing.T) {
	s, raw := newTestStore(t, secretsCBC[:strings.Index(secretsCBC, "  - identity")])
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	w, err := s.Watch(ctx, "/registry/secrets/", 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := raw.Create(ctx, "/registry/secrets/default/plain", []byte(`{}`)); err != nil {
		t.Fatal(err)
	}
	select {
	case ev, ok := <-w:
		if ok {
			t.Fatalf("got an event for an unreadable value: %+v", ev)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("the watch did not end")
	}
}
