// Package etcdtest gives a test binary one embedded etcd: call Main from
// TestMain; every test then talks to the endpoint it returns.
package etcdtest

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"
	"testing"

	"kubik/ch02-etcd-store/etcdstore"
)

// Main starts an embedded etcd in a temporary directory, stores its client
// URL in *endpoint, runs the tests and exits with their code after removing
// etcd and its data.
func Main(m *testing.M, endpoint *string) {
	dir, err := os.MkdirTemp("", "kubik-etcdtest-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	ep, stop, err := etcdstore.StartEmbedded(context.Background(), dir, slog.New(slog.NewTextHandler(io.Discard, nil)))
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.RemoveAll(dir)
		os.Exit(1)
	}
	*endpoint = ep
	code := m.Run()
	stop()
	os.RemoveAll(dir)
	os.Exit(code)
}
