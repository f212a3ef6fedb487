// Package clienttest starts a real chapter 1 apiserver in-process for the
// tests of the components that talk to it, and issues kubeconfigs for their
// identities. Nothing is faked: requests go over HTTPS through
// authentication, RBAC and the Node authorizer. A RecordingClient also
// records the actions a client took (verb, resource, subresource,
// namespace, name), for the tests that check what a controller wrote, as
// upstream's tests do with a fake clientset.
package clienttest

import (
	"context"
	"log/slog"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"kubik/ch01-apiserver/app"
	"kubik/ch01-apiserver/pki"
	"kubik/ch01-apiserver/storage"
	"kubik/ch03-scheduler/clientgo/rest"
)

// Env is one running apiserver.
type Env struct {
	*app.Cluster
	Dir   string
	Store storage.Interface
}

// Start runs an apiserver on store (storage.NewMemory(0) when nil) with its
// --data-dir in a temporary directory; it stops when the test ends.
func Start(t testing.TB, store storage.Interface) *Env {
	t.Helper()
	return StartWithOptions(t, store, nil)
}

// StartWithOptions is Start with the apiserver's options changed by modify
// first (chapter 4's garbage collector tests set EnableGarbageCollector).
func StartWithOptions(t testing.TB, store storage.Interface, modify func(*app.Options)) *Env {
	t.Helper()
	if store == nil {
		store = storage.NewMemory(0)
	}
	dir := t.TempDir()
	opts := &app.Options{DataDir: dir, SecurePort: 0, BindAddress: "127.0.0.1",
		ServiceClusterIPRange: "10.96.0.0/12", ServiceNodePortRange: "30000-32767",
		MinRequestTimeout: 1800, RequestTimeout: time.Minute, LogLevel: "error"}
	if modify != nil {
		modify(opts)
	}
	ctx, cancel := context.WithCancel(context.Background())
	c, _, err := app.Start(ctx, opts, store, slog.New(slog.DiscardHandler), nil)
	if err != nil {
		cancel()
		t.Fatal(err)
	}
	t.Cleanup(cancel)
	return &Env{Cluster: c, Dir: dir, Store: store}
}

// Kubeconfig issues a client certificate for id and returns the path of a
// kubeconfig that uses it.
func (e *Env) Kubeconfig(t testing.TB, id pki.Identity) string {
	t.Helper()
	path := filepath.Join(e.Dir, strings.ReplaceAll(id.User, ":", "-")+".kubeconfig")
	if err := e.CA.WriteIdentityKubeconfig(path, e.URL, id); err != nil {
		t.Fatal(err)
	}
	return path
}

// Client returns a client acting as id, without a client-side rate limit.
func (e *Env) Client(t testing.TB, id pki.Identity) *rest.Client {
	t.Helper()
	k, err := pki.LoadKubeconfig(e.Kubeconfig(t, id))
	if err != nil {
		t.Fatal(err)
	}
	c, err := rest.NewForConfig(rest.Config{Kubeconfig: k, UserAgent: "clienttest", QPS: -1})
	if err != nil {
		t.Fatal(err)
	}
	return c
}
