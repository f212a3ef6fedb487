package main

import (
	"os"
	"testing"
)

// TestBenchSmall runs the benchmark with a few Services in both modes.
func TestBenchSmall(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("needs root")
	}
	for _, mode := range []string{"iptables", "nftables"} {
		if err := bench(mode, 10); err != nil {
			t.Fatalf("%s: %v", mode, err)
		}
	}
}
