package main

import (
	"context"
	"os"
	"strings"
	"testing"
	"time"
)

// TestBenchDirectSmall runs the in-process benchmark with a few Services
// in both modes.
func TestBenchDirectSmall(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("needs root")
	}
	for _, mode := range []string{"iptables", "nftables"} {
		if err := benchDirect(mode, 10); err != nil {
			t.Fatalf("%s: %v", mode, err)
		}
	}
}

// TestSideBySideSmall runs the side-by-side benchmark with 20 Services,
// ours only (and upstream's if it is built), one round, a short DNS load
// from loopback and from a pod: every measurement comes out, and the
// report prints it.
func TestSideBySideSmall(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("needs root")
	}
	if testing.Short() {
		t.Skip("builds and runs the apiserver, kube-proxy and kube-dns")
	}
	*rounds, *resyncCount, *dnsSeconds = 1, 1, time.Second
	upstream := "../../../.kubik/ref/bin/kube-proxy"
	if _, err := os.Stat(upstream); err != nil {
		upstream = ""
	}
	results, dns, err := sideBySide(context.Background(), t.TempDir(), []int{20}, []string{"iptables", "nftables"}, upstream)
	if err != nil {
		t.Fatal(err)
	}
	var report strings.Builder
	printReport(&report, results, dns, upstream != "")
	t.Log(report.String())
	for _, r := range results {
		if r.err != nil || r.start <= 0 || r.oneChange <= 0 || r.resync <= 0 || r.rules <= 0 {
			t.Errorf("%s %s: %+v", r.who, r.mode, r)
		}
	}
	// From loopback and from a pod through our kube-proxy.
	if len(dns) != 2 {
		t.Fatalf("DNS loads: %+v", dns)
	}
	for _, d := range dns {
		if d.err != nil || d.queries == 0 {
			t.Errorf("DNS load from %s: %+v", d.from, d)
		}
	}
}
