// Command bench-proxy measures chapter 7's kube-proxy against upstream
// kube-proxy v1.35.4, side by side on the same kind of node, and the
// cluster DNS server (`make bench-proxy`).
//
// For every Service count (-services 100,1000,5000,10000; 2 endpoints
// each), created through a chapter 1 apiserver this program starts, and for
// every mode (-mode iptables, nftables or both), each proxier — ours
// (ch07-kube-proxy/cmd/kube-proxy) and upstream's (kube-proxy from
// -ref-bin) — runs as its own process, one after the other so they never
// share the CPU, in a fresh network namespace that looks like a node to it
// (lo, an eth0 with the node's address, nothing connected), with the same
// flags, against the same apiserver objects:
//
//   - start: from the process's start until its first sync is in the
//     kernel (listing N Services and EndpointSlices, then a full sync), and
//     that sync's own duration;
//   - one change: one EndpointSlice's endpoint is replaced through the
//     apiserver; the time from the request until the proxier's sync of it
//     has finished (kube-proxy's metric of its last sync), and the sync's
//     duration (the rest is the watch reaching the proxier), averaged over
//     -rounds;
//   - full resync: the Node's topology label changes, which makes both
//     proxiers rewrite every rule (upstream's OnTopologyChange); the sync's
//     duration, the median of -resyncs;
//   - rules: the rules the kernel holds (iptables: `-A` lines of
//     iptables-save; nftables: lines of `nft list table ip kube-proxy`).
//
// The times come from the proxiers' own metrics
// (kubeproxy_sync_proxy_rules_duration_seconds,
// kubeproxy_sync_proxy_rules_last_timestamp_seconds) read at
// 127.0.0.1:10249 inside the node's namespace. Then our DNS server
// (ch07-kube-proxy/cmd/kube-dns, on this machine's loopback, watching the
// same apiserver) answers -dns-seconds of A queries for random Services
// from -dns-clients concurrent clients: queries/s, p50, p99; and the same
// load again from a pod's network namespace to the Service address
// 10.96.0.10, through our kube-proxy (dnspod.go; -dns-from).
//
// -direct runs the older in-process benchmark instead (our proxiers only,
// no apiserver, with -cpuprofile). The program needs root; it removes the
// namespaces and processes it made.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"kubik/internal/testenv"
)

var (
	modeFlag     = flag.String("mode", "both", "iptables, nftables or both")
	servicesFlag = flag.String("services", "100,1000,5000,10000", "comma-separated Service counts (2 endpoints each)")
	refBin       = flag.String("ref-bin", ".kubik/ref/bin", "directory with upstream kube-proxy (make ref-build); without it only ours runs")
	reps         = flag.Int("reps", 1, "runs of each proxier per mode and Service count, ours and upstream's in turn (each measurement: the median)")
	rounds       = flag.Int("rounds", 5, "one-change syncs measured per proxier, averaged")
	resyncCount  = flag.Int("resyncs", 3, "full resyncs measured per proxier (the median is reported)")
	dnsSeconds   = flag.Duration("dns-seconds", 5*time.Second, "how long the DNS load runs at each Service count (0: none)")
	dnsClients   = flag.Int("dns-clients", 16, "concurrent DNS clients")
	dnsFrom      = flag.String("dns-from", "both", "where the DNS load comes from: loopback (the server on this machine's loopback), pod (a pod's namespace, through our kube-proxy to 10.96.0.10) or both")
	keep         = flag.Bool("keep", false, "keep the work directory (logs) and print its path")
	direct       = flag.Bool("direct", false, "run the in-process benchmark of our proxiers only (no apiserver, no upstream)")
	cpuProfile   = flag.String("cpuprofile", "", "with -direct: write a CPU profile of the one-change syncs to this file")
)

func main() {
	testenv.BenchMain("bench-proxy", run)
}

func run(ctx context.Context) error {
	if os.Geteuid() != 0 {
		return errors.New("needs root: it creates network namespaces and runs kube-proxy in them")
	}
	counts, err := parseCounts(*servicesFlag)
	if err != nil {
		return err
	}
	modes := []string{*modeFlag}
	switch *modeFlag {
	case "both":
		modes = []string{"iptables", "nftables"}
	case "iptables", "nftables":
	default:
		return fmt.Errorf("-mode %q: iptables, nftables or both", *modeFlag)
	}
	switch *dnsFrom {
	case "loopback", "pod", "both":
	default:
		return fmt.Errorf("-dns-from %q: loopback, pod or both", *dnsFrom)
	}
	if *direct {
		profilePath = *cpuProfile
		for _, m := range modes {
			for _, n := range counts {
				if err := benchDirect(m, n); err != nil {
					return err
				}
			}
		}
		return nil
	}
	upstream := filepath.Join(*refBin, "kube-proxy")
	if _, err := os.Stat(upstream); err != nil {
		fmt.Printf("upstream kube-proxy not found at %s (make ref-build): measuring ours only\n\n", upstream)
		upstream = ""
	}
	dir, cleanup, err := testenv.WorkDir("kubik-bench-proxy-", *keep)
	if err != nil {
		return err
	}
	defer cleanup()
	results, dnsResults, err := sideBySide(ctx, dir, counts, modes, upstream)
	printReport(os.Stdout, results, dnsResults, upstream != "")
	return err
}

func parseCounts(s string) ([]int, error) {
	var counts []int
	for _, f := range strings.Split(s, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || n <= 0 || n > 40000 {
			return nil, fmt.Errorf("bad Service count %q (1 to 40000)", f)
		}
		if len(counts) > 0 && n <= counts[len(counts)-1] {
			return nil, fmt.Errorf("-services must grow: %s", s)
		}
		counts = append(counts, n)
	}
	return counts, nil
}
