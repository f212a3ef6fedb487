// Command bench-cni measures chapter 6's pod network (`make bench-cni`, as
// root), in three parts, each printing its own table:
//
//  1. CNI ADD and DEL latency of kubik-cni against upstream's reference
//     plugins (bridge + host-local, Debian's build in /usr/lib/cni) the way
//     containerd's CRI plugin runs them: through libcni, from a node network
//     namespace, one fresh pod netns per ADD. Both run interleaved in the
//     same scratch node netns, each with its own bridge and subnet, and the
//     same features: a gateway on the bridge, a default route in the pod,
//     hairpin mode, no masquerade (cni.go).
//  2. Pod startup latency as upstream's SLI defines it — from a pod's
//     creationTimestamp to the moment the kubelet reports all its containers
//     running, seen through a watch — on chapter 6's cluster of three nodes
//     against chapter 5's single node (startup.go).
//  3. Pod-to-pod TCP throughput and round-trip latency: two pods on one
//     node, on two nodes with host-gw routes, and on two nodes over VXLAN.
//     The measuring program is this one, started inside each pod's network
//     namespace (netperf.go).
//
// It builds what it runs (the ch05 and ch06 binaries, kubik-cni, the
// images), starts every cluster in a temporary directory on a node network
// of its own (-node-cidr, not the 10.240.0.0/24 of `make ch06-run`), and
// stops each with SIGTERM, checking that nothing of it is left.
//
//	go run ./ch06-cni/cmd/bench-cni -n 100
//	go run ./ch06-cni/cmd/bench-cni -parts startup,throughput -pods 30
package main

import (
	"context"
	"flag"
	"fmt"
	"log/slog"
	"os"
	"runtime"
	"slices"
	"strings"
	"time"

	"kubik/internal/testenv"
)

var logger = slog.New(slog.NewTextHandler(os.Stderr, nil)).With("component", "bench-cni")

var (
	parts    = flag.String("parts", "cni,startup,throughput", "which parts to run (comma-separated: cni, startup, throughput)")
	n        = flag.Int("n", 100, "cni: ADD+DEL cycles per plugin")
	warmup   = flag.Int("warmup", 3, "cni: unmeasured cycles per plugin first (the first ADD creates the bridge)")
	refBin   = flag.String("ref-bin", "/usr/lib/cni", "cni: directory with the reference bridge and host-local plugins")
	ourBin   = flag.String("bin", "", "cni: kubik-cni binary (default: go build ./ch06-cni/cmd/kubik-cni)")
	pods     = flag.Int("pods", 30, "startup: pods created per cluster")
	rate     = flag.Float64("rate", 2, "startup: pods created per second")
	seconds  = flag.Duration("duration", 3*time.Second, "throughput: how long each TCP stream runs")
	repeats  = flag.Int("repeats", 3, "throughput: streams per pair of pods (the median is reported)")
	pings    = flag.Int("pings", 2000, "throughput: request-response round trips per pair of pods")
	nodeCIDR = flag.String("node-cidr", "10.240.5.0/24", "the node network of the benchmark's chapter 6 clusters")
	keep     = flag.Bool("keep", false, "keep the temporary directory (logs, data) and print its path")
)

func main() {
	testenv.BenchMain("bench-cni", run)
}

func run(ctx context.Context) error {
	if os.Geteuid() != 0 {
		return fmt.Errorf("needs root: creates network namespaces, bridges, veths and containers")
	}
	want := strings.Split(*parts, ",")
	for _, p := range want {
		if !slices.Contains([]string{"cni", "startup", "throughput"}, p) {
			return fmt.Errorf("-parts: unknown part %q", p)
		}
	}
	began := time.Now()
	fmt.Printf("machine: %d CPUs, load average %s (other work on the machine shares the CPUs)\n", runtime.NumCPU(), loadavg())
	if slices.Contains(want, "cni") {
		fmt.Println("\n== part 1: CNI ADD+DEL latency")
		if err := runCNI(*n, *warmup, *refBin, *ourBin); err != nil {
			return err
		}
	}
	if !slices.Contains(want, "startup") && !slices.Contains(want, "throughput") {
		return nil
	}
	tmp, cleanup, err := testenv.WorkDir("kubik-bench-cni-", *keep)
	if err != nil {
		return err
	}
	defer cleanup()
	b, err := newBench(ctx, tmp)
	if err != nil {
		return err
	}
	var startup []startupRow
	var perf []perfRow
	if slices.Contains(want, "startup") {
		fmt.Println("\n== part 2: pod startup latency, chapter 5's single node")
		rows, err := b.startupOnCh05(ctx)
		if err != nil {
			return err
		}
		startup = append(startup, rows...)
	}
	// Chapter 6 with host-gw serves both parts; VXLAN only the third. The
	// nodes exec the plugin as a link to the chapter's program; a second
	// cluster gives them the kubik-cni binary (--cni-plugin) instead.
	fmt.Println("\n== chapter 6, 3 nodes, host-gw")
	rows, prows, err := b.onCh06(ctx, "hostgw", "host-gw", "host-gw", slices.Contains(want, "startup"), slices.Contains(want, "throughput"))
	if err != nil {
		return err
	}
	startup, perf = append(startup, rows...), append(perf, prows...)
	if slices.Contains(want, "startup") {
		fmt.Println("\n== chapter 6, 3 nodes, host-gw, --cni-plugin (the kubik-cni binary)")
		rows, _, err := b.onCh06(ctx, "plugin", "host-gw, --cni-plugin", "host-gw", true, false, "--cni-plugin="+b.kubikCNI)
		if err != nil {
			return err
		}
		startup = append(startup, rows...)
	}
	if slices.Contains(want, "throughput") {
		fmt.Println("\n== chapter 6, 3 nodes, VXLAN")
		_, prows, err := b.onCh06(ctx, "vxlan", "vxlan", "vxlan", false, true)
		if err != nil {
			return err
		}
		perf = append(perf, prows...)
	}
	if len(startup) > 0 {
		printStartup(startup)
	}
	if len(perf) > 0 {
		printPerf(perf)
	}
	fmt.Printf("\nwhole benchmark: %v, load average now %s\n", time.Since(began).Round(time.Second), loadavg())
	return nil
}

func loadavg() string {
	data, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "?"
	}
	f := strings.Fields(string(data))
	if len(f) < 3 {
		return "?"
	}
	return strings.Join(f[:3], " ")
}
