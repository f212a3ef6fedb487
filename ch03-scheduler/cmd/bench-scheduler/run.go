package main

import (
	"context"
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"

	"kubik/ch01-apiserver/api/eventsv1"
	"kubik/ch03-scheduler/clientgo/rest"
	"kubik/internal/testenv"
)

// runResult is one scheduler's numbers at one node count.
type runResult struct {
	err error

	// Phase 1.
	bound            int
	firstBind, total time.Duration // after the scheduler's start
	rate             float64       // pods bound per second, start → last bind
	p50, p99         time.Duration // start → bind seen
	minPerNode       int
	maxPerNode       int
	// CPU used during phase 1 (from /proc/<pid>/stat).
	schedCPU, apiCPU, etcdCPU time.Duration
	// ... and by this program (its watch, lease renewals): shared work
	// that competes with the others for the same cores.
	benchCPU time.Duration
	// The apiserver's requests during phase 1 (kube-apiserver's
	// /metrics; the benchmark's own watch and lease renewals included).
	requests string

	// Phase 2.
	steadyBound          int
	steadyP50, steadyP99 time.Duration // POST sent → bind seen

	// Scheduled events the scheduler wrote (the last is counted
	// after phase 2).
	scheduledEvents int

	renewals, renewErrors, rounds int64
	longestRound                  time.Duration
}

// runOne measures scheduler which at n nodes on a fresh control plane in dir.
func runOne(ctx context.Context, apiserver, which string, n, rep int, bins binaries, dir string) *runResult {
	r := &runResult{}
	r.err = r.measure(ctx, apiserver, which, n, rep, bins, dir)
	return r
}

func (r *runResult) measure(ctx context.Context, apiserver, which string, n, rep int, bins binaries, dir string) error {
	cp, err := startControlPlane(ctx, apiserver, dir, bins)
	if err != nil {
		return err
	}
	defer cp.stop()
	admin, err := newClient(cp.adminKubeconfig, "bench-scheduler")
	if err != nil {
		return err
	}
	if err := setupNamespace(ctx, admin); err != nil {
		return err
	}

	t := time.Now()
	leases, err := createNodes(ctx, admin, n, nodeCapacity(n, *podsFlag+*steadyPods))
	if err != nil {
		return err
	}
	fmt.Printf("  %d nodes and their leases created in %v\n", n, time.Since(t).Round(time.Millisecond))
	rctx, stopRenewing := context.WithCancel(ctx)
	renewer := renewLeases(rctx, admin, leases)
	defer func() {
		stopRenewing()
		<-renewer.done
		r.renewals, r.renewErrors, r.rounds = renewer.renewals.Load(), renewer.errors.Load(), renewer.rounds.Load()
		r.longestRound = time.Duration(renewer.longestRound.Load())
	}()

	t = time.Now()
	if err := createPods(ctx, admin, "pod", *podsFlag); err != nil {
		return err
	}
	fmt.Printf("  %d pending pods created in %v\n", *podsFlag, time.Since(t).Round(time.Millisecond))
	wctx, stopWatching := context.WithCancel(ctx)
	defer stopWatching() // before the apiserver stops
	bw, err := watchBindings(wctx, admin)
	if err != nil {
		return err
	}

	// Phase 1.
	reqs0 := requestCounts(ctx, cp.adminKubeconfig)
	cpu0 := cpuOf(cp.apiserver, cp.etcd)
	bench0 := testenv.CPUTime(os.Getpid())
	start := time.Now()
	sched, err := startScheduler(which, dir, n, rep, cp, bins)
	if err != nil {
		return err
	}
	defer sched.Stop(15 * time.Second)
	names := podNames("pod", *podsFlag)
	r.bound, err = bw.wait(ctx, names, sched, *timeout)
	cpu1 := cpuOf(cp.apiserver, cp.etcd, sched)
	r.apiCPU, r.etcdCPU, r.schedCPU = cpu1[0]-cpu0[0], cpu1[1]-cpu0[1], cpu1[2]
	r.benchCPU = testenv.CPUTime(os.Getpid()) - bench0
	if reqs0 != nil {
		r.requests = requestDelta(reqs0, requestCounts(ctx, cp.adminKubeconfig), 50)
	}
	bs := bw.get(names)
	if len(bs) > 0 {
		lat := make([]time.Duration, len(bs))
		perNode := map[string]int{}
		for i, b := range bs {
			lat[i] = b.at.Sub(start)
			perNode[b.node]++
		}
		slices.Sort(lat)
		r.firstBind, r.total = lat[0], lat[len(lat)-1]
		r.p50, r.p99 = percentile(lat, 50), percentile(lat, 99)
		r.rate = float64(len(bs)) / r.total.Seconds()
		r.minPerNode = len(bs)
		for i := range n {
			r.minPerNode = min(r.minPerNode, perNode[nodeName(i)])
			r.maxPerNode = max(r.maxPerNode, perNode[nodeName(i)])
		}
	}
	if err != nil {
		return fmt.Errorf("phase 1: %w (scheduler log: %s)", err, sched.LogPath)
	}

	// Phase 2.
	if *steadyPods > 0 {
		sent, err := createPodsAtRate(ctx, admin, "steady", *steadyPods, *steadyRate)
		if err != nil {
			return err
		}
		names := podNames("steady", *steadyPods)
		r.steadyBound, err = bw.wait(ctx, names, sched, *timeout)
		var lat []time.Duration
		bw.mu.Lock()
		for _, name := range names {
			if b, ok := bw.bound[name]; ok {
				lat = append(lat, b.at.Sub(sent[name]))
			}
		}
		bw.mu.Unlock()
		slices.Sort(lat)
		r.steadyP50, r.steadyP99 = percentile(lat, 50), percentile(lat, 99)
		if err != nil {
			return fmt.Errorf("phase 2: %w (scheduler log: %s)", err, sched.LogPath)
		}
	}
	// Events are written in the background: give them a moment, then count.
	time.Sleep(2 * time.Second)
	events, err := rest.List[eventsv1.Event](ctx, admin, benchNamespace, rest.ListOptions{})
	if err != nil {
		return err
	}
	for _, e := range events.Items {
		if e.Reason == "Scheduled" {
			r.scheduledEvents++
		}
	}
	sched.Stop(15 * time.Second)
	if which == "kubik" {
		if log, _ := os.ReadFile(sched.LogPath); len(log) > 0 {
			lines := strings.Split(strings.TrimSpace(string(log)), "\n")
			fmt.Printf("  our scheduler logged %d lines at warn or above (%s), the first: %.200s\n", len(lines), sched.LogPath, lines[0])
		}
	}
	return nil
}

func (r *runResult) print() {
	if r.err != nil {
		fmt.Printf("  ERROR: %v\n", r.err)
	}
	if r.bound > 0 {
		fmt.Printf("  phase 1: %d/%d pods bound, the first %v and the last %v after the scheduler's start: %.0f pods/s; "+
			"start→bind p50 %v p99 %v; pods per node %d..%d\n",
			r.bound, *podsFlag, r.firstBind.Round(time.Millisecond), r.total.Round(time.Millisecond), r.rate,
			r.p50.Round(time.Millisecond), r.p99.Round(time.Millisecond), r.minPerNode, r.maxPerNode)
		fmt.Printf("  phase 1 CPU: scheduler %.1fs, apiserver %.1fs, etcd %.1fs, this program %.1fs (%.1f ms of scheduler CPU per pod)\n",
			r.schedCPU.Seconds(), r.apiCPU.Seconds(), r.etcdCPU.Seconds(), r.benchCPU.Seconds(), float64(r.schedCPU.Milliseconds())/float64(r.bound))
		if r.requests != "" {
			fmt.Printf("  phase 1 requests (apiserver_request_total, at least 50): %s\n", r.requests)
		}
	}
	if r.steadyBound > 0 {
		fmt.Printf("  phase 2: %d/%d pods created at %.0f/s bound, POST→bind p50 %v p99 %v\n",
			r.steadyBound, *steadyPods, *steadyRate, r.steadyP50.Round(time.Millisecond), r.steadyP99.Round(time.Millisecond))
	}
	if r.scheduledEvents > 0 {
		fmt.Printf("  Scheduled events written: %d for %d pods\n", r.scheduledEvents, r.bound+r.steadyBound)
	}
	fmt.Printf("  leases: %d renewals in %d full rounds (longest %v), %d errors\n",
		r.renewals, r.rounds, r.longestRound.Round(time.Millisecond), r.renewErrors)
}

func printTable(apiserver string, nodeCounts []int, scheds []string, results map[string]map[int]*runResult) {
	fmt.Printf("\nsetup: both schedulers against %s\n", setupName(apiserver))
	fmt.Printf("phase 1: %d pods pending before the scheduler starts; pods/s = %d / (scheduler start → last bind seen);\n"+
		"  latency = scheduler start → bind seen on a watch\n", *podsFlag, *podsFlag)
	if *steadyPods > 0 {
		fmt.Printf("phase 2: %d pods created at %.0f/s afterwards; latency = POST sent → bind seen on a watch\n", *steadyPods, *steadyRate)
	}
	both := len(scheds) == 2
	cell := func(s string, n int, f func(r *runResult) string) string {
		r := results[s][n]
		if r == nil {
			return "-"
		}
		v := f(r)
		if r.err != nil {
			v += "!"
		}
		return v
	}
	header := []string{"nodes"}
	for _, s := range scheds {
		header = append(header, label(s)+" pods/s")
	}
	if both {
		header = append(header, "ratio")
	}
	for _, s := range scheds {
		header = append(header, label(s)+" p50/p99 s")
	}
	if *steadyPods > 0 {
		for _, s := range scheds {
			header = append(header, label(s)+" steady p50/p99 ms")
		}
	}
	rows := [][]string{header}
	for _, n := range nodeCounts {
		row := []string{strconv.Itoa(n)}
		for _, s := range scheds {
			row = append(row, cell(s, n, func(r *runResult) string { return fmt.Sprintf("%.0f", r.rate) }))
		}
		if both {
			ours, theirs := results["kubik"][n], results["upstream"][n]
			if ours != nil && theirs != nil && theirs.rate > 0 {
				row = append(row, fmt.Sprintf("%.2fx", ours.rate/theirs.rate))
			} else {
				row = append(row, "-")
			}
		}
		for _, s := range scheds {
			row = append(row, cell(s, n, func(r *runResult) string {
				return fmt.Sprintf("%.1f/%.1f", r.p50.Seconds(), r.p99.Seconds())
			}))
		}
		if *steadyPods > 0 {
			for _, s := range scheds {
				row = append(row, cell(s, n, func(r *runResult) string {
					return fmt.Sprintf("%d/%d", r.steadyP50.Milliseconds(), r.steadyP99.Milliseconds())
				}))
			}
		}
		rows = append(rows, row)
	}
	widths := make([]int, len(header))
	for _, row := range rows {
		for i, c := range row {
			widths[i] = max(widths[i], len(c))
		}
	}
	fmt.Println()
	for _, row := range rows {
		for i, c := range row {
			if i > 0 {
				fmt.Print(" | ")
			}
			fmt.Printf("%*s", widths[i], c)
		}
		fmt.Println()
	}
	fmt.Println("ratio = ours / upstream pods per second (target ≥ 1.5x); ! = the run failed or timed out (see above)")
}

func label(s string) string {
	if s == "kubik" {
		return "ours"
	}
	return s
}

func percentile(sorted []time.Duration, p int) time.Duration {
	if len(sorted) == 0 {
		return 0
	}
	return sorted[min(len(sorted)-1, len(sorted)*p/100)]
}

// cpuOf reads the CPU time (user + system) each process has used so far.
func cpuOf(ps ...*testenv.Proc) []time.Duration {
	out := make([]time.Duration, len(ps))
	for i, p := range ps {
		out[i] = testenv.CPUTime(p.Cmd.Process.Pid)
	}
	return out
}
