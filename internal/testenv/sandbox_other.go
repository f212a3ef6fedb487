//go:build !linux

package testenv

import (
	"context"
	"errors"
	"net"
	"testing"
)

// Sandbox needs Linux network namespaces; elsewhere NewSandbox skips.
type Sandbox struct{ Name string }

// NewSandbox skips the test: network namespaces are Linux's.
func NewSandbox(t testing.TB) *Sandbox {
	t.Skip("the network sandbox needs Linux")
	return nil
}

func (s *Sandbox) Wrap(argv ...string) []string { return argv }

func (s *Sandbox) DialContext(ctx context.Context, network, addr string) (net.Conn, error) {
	return nil, errors.New("no network sandbox on this system")
}

func (s *Sandbox) Probe(t testing.TB) string { return "" }

func (s *Sandbox) Destinations(t testing.TB) []string { return nil }
