//go:build linux

package main_test

import (
	"os"
	"testing"

	"kubik/internal/testenv"
)

// TestMain stops the shared cluster and removes the binaries and images the
// tests built.
func TestMain(m *testing.M) {
	code := m.Run()
	stopSharedCluster()
	testenv.RemoveBuilt()
	os.Exit(code)
}
