// Command bench-scheduler measures chapter 3's scheduler against upstream
// kube-scheduler v1.35.4, side by side (`make bench-scheduler`).
//
// For every node count (-nodes 100,1000,5000) and every scheduler (ours:
// ch03-scheduler/cmd/kube-scheduler; upstream's binary from -ref-bin, with
// --kube-api-qps=10000 --kube-api-burst=10000), each as its own process,
// one after the other so they never share the CPU:
//
//  1. a fresh etcd (Debian's binary) and a fresh apiserver on it;
//  2. N Node objects, created Ready and untainted by the administrator (no
//     kubelet runs), each with its Lease in kube-node-lease; one goroutine
//     of this program PUTs every Lease with a new renewTime every 10 s, one
//     after the other, for the whole run (the load kubelets' heartbeats put
//     on the apiserver);
//  3. phase 1, throughput: -pods pending pods (100m CPU, 128Mi each) are
//     created before the scheduler starts; then the scheduler process
//     starts. pods/s = pods / (time from the process's start until this
//     program's watch has seen the last pod bound); per-pod latency = when
//     the watch saw the pod bound minus the scheduler's start (so p50 is
//     about half the run: it says how evenly the binds are spread, and
//     includes the scheduler's start-up: listing and watching);
//  4. phase 2, latency: with the scheduler idle again, -steady-pods pods are
//     created at -steady-rate pods/s; latency = when the watch saw the pod
//     bound minus when its POST was sent.
//
// Which apiserver (-apiserver): upstream's kube-scheduler waits for the
// caches of every resource its plugins look at before it schedules
// anything, so it runs against ours only if ours serves them all. "auto"
// (the default) checks Kubik's discovery for them and uses Kubik's
// apiserver (the ch02 binary) when they are all there; otherwise it prints
// which are missing and runs both schedulers against upstream
// kube-apiserver v1.35.4 from -ref-bin.
package main

import (
	"cmp"
	"context"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"time"

	"kubik/internal/testenv"
)

var (
	nodesFlag     = flag.String("nodes", "100,1000,5000", "comma-separated node counts")
	podsFlag      = flag.Int("pods", 5000, "phase 1: pending pods created before the scheduler starts")
	steadyPods    = flag.Int("steady-pods", 500, "phase 2: pods created at -steady-rate after phase 1 (0: no phase 2)")
	steadyRate    = flag.Float64("steady-rate", 50, "phase 2: pods created per second")
	schedulers    = flag.String("schedulers", "kubik,upstream", "which schedulers to run: kubik, upstream")
	apiserverFlag = flag.String("apiserver", "auto", "kubik, upstream, or auto: kubik if it serves what upstream's kube-scheduler lists, else upstream")
	refBin        = flag.String("ref-bin", ".kubik/ref/bin", "directory with upstream kube-apiserver and kube-scheduler (make ref-build)")
	etcdBin       = flag.String("etcd", "etcd", "etcd binary")
	timeout       = flag.Duration("timeout", 10*time.Minute, "longest wait for a phase's pods to be bound")
	cpuprofileDir = flag.String("cpuprofile-dir", "", "our scheduler writes a CPU profile kubik-scheduler-<nodes>-<run>.pprof here")
	kubikSched    = flag.String("kubik-scheduler", "", "a prebuilt ch03-scheduler/cmd/kube-scheduler binary to run as ours (empty: go build it)")
	reps          = flag.Int("reps", 1, "runs of each scheduler at each node count, taking turns going first; the median is shown")
	keep          = flag.Bool("keep", false, "keep the temporary directory (logs, data) and print its path")
)

func main() { testenv.BenchMain("bench-scheduler", run) }

// binaries are the programs this benchmark starts.
type binaries struct {
	etcd, kubikAPIServer, upstreamAPIServer string
	kubikScheduler, upstreamScheduler       string
}

func run(ctx context.Context) error {
	var nodeCounts []int
	for _, s := range strings.Split(*nodesFlag, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(s))
		if err != nil || n <= 0 {
			return fmt.Errorf("-nodes %q: want positive integers", *nodesFlag)
		}
		nodeCounts = append(nodeCounts, n)
	}
	scheds := strings.Split(*schedulers, ",")
	for _, s := range scheds {
		if s != "kubik" && s != "upstream" {
			return fmt.Errorf("-schedulers: unknown %q (kubik, upstream)", s)
		}
	}
	tmp, cleanup, err := testenv.WorkDir("kubik-bench-scheduler-", *keep)
	if err != nil {
		return err
	}
	defer cleanup()

	// The binaries.
	var bins binaries
	if bins.etcd, err = exec.LookPath(*etcdBin); err != nil {
		return fmt.Errorf("etcd not found (Debian: apt-get install etcd-server): %w", err)
	}
	builds := []struct {
		pkg string
		out *string
	}{{"kubik/ch02-etcd-store", &bins.kubikAPIServer}}
	if bins.kubikScheduler = *kubikSched; bins.kubikScheduler == "" {
		builds = append(builds, struct {
			pkg string
			out *string
		}{"kubik/ch03-scheduler/cmd/kube-scheduler", &bins.kubikScheduler})
	}
	for _, b := range builds {
		*b.out = filepath.Join(tmp, "bin", path.Base(b.pkg))
		fmt.Printf("building %s ...\n", b.pkg)
		if out, err := exec.CommandContext(ctx, "go", "build", "-o", *b.out, b.pkg).CombinedOutput(); err != nil {
			return fmt.Errorf("go build %s: %v\n%s", b.pkg, err, out)
		}
	}
	upstreamVersion := ""
	if v, err := os.ReadFile(filepath.Join(*refBin, "kube-scheduler.version")); err == nil {
		upstreamVersion = strings.TrimSpace(string(v))
	}
	for _, b := range []struct {
		name string
		out  *string
	}{{"kube-apiserver", &bins.upstreamAPIServer}, {"kube-scheduler", &bins.upstreamScheduler}} {
		p := filepath.Join(*refBin, b.name)
		if _, err := os.Stat(p); err == nil {
			*b.out = p
		}
	}
	if bins.upstreamScheduler == "" && slices.Contains(scheds, "upstream") {
		fmt.Printf("upstream kube-scheduler is not built (%s): run `make ref-build`; measuring Kubik only\n", *refBin)
		scheds = slices.DeleteFunc(scheds, func(s string) bool { return s == "upstream" })
	}
	if len(scheds) == 0 {
		return fmt.Errorf("no scheduler to run")
	}

	// Which apiserver.
	setup, err := chooseAPIServer(ctx, tmp, bins, slices.Contains(scheds, "upstream"))
	if err != nil {
		return err
	}

	load, _ := os.ReadFile("/proc/loadavg")
	fmt.Printf("\nmachine: %d CPUs, load average %s", runtime.NumCPU(), strings.Join(strings.Fields(string(load))[:3], " "))
	fmt.Printf("; etcd %s; upstream %s\n", etcdVersion(bins.etcd), upstreamVersion)
	fmt.Printf("setup: both schedulers against %s, a fresh one (and a fresh etcd) for every run\n", setupName(setup))
	fmt.Printf("nodes: created Ready and untainted by the admin (no kubelets); their Leases in kube-node-lease renewed every 10s\n" +
		"  by one goroutine of this program (a PUT each, one after another)\n")
	ours := "built from ch03-scheduler/cmd/kube-scheduler; its client has scheduler.Run's rate limit (client.DefaultQPS, DefaultBurst)"
	if *kubikSched != "" {
		ours = *kubikSched
	}
	fmt.Printf("ours: kube-scheduler --leader-elect=false --kube-api-qps=10000 --kube-api-burst=10000 --log-level=warn (%s)\n", ours)
	fmt.Printf("upstream: kube-scheduler --leader-elect=false --kube-api-qps=10000 --kube-api-burst=10000 (-v=0)\n")

	// Every run of one scheduler at one node count, in order; with -reps
	// the schedulers take turns going first.
	runs := map[string]map[int][]*runResult{}
	for _, n := range nodeCounts {
		for rep := range *reps {
			order := slices.Clone(scheds)
			if rep%2 == 1 {
				slices.Reverse(order)
			}
			for _, s := range order {
				fmt.Printf("\n== %s scheduler, %d nodes, run %d of %d\n", s, n, rep+1, *reps)
				dir := filepath.Join(tmp, fmt.Sprintf("%s-%d-%d", s, n, rep))
				if err := os.MkdirAll(dir, 0o755); err != nil {
					return err
				}
				r := runOne(ctx, setup, s, n, rep, bins, dir)
				if ctx.Err() != nil {
					return ctx.Err()
				}
				r.print()
				if runs[s] == nil {
					runs[s] = map[int][]*runResult{}
				}
				runs[s][n] = append(runs[s][n], r)
			}
		}
	}
	// The table shows each one's median run by pods/s.
	results := map[string]map[int]*runResult{}
	for s, byNodes := range runs {
		results[s] = map[int]*runResult{}
		for n, rs := range byNodes {
			sorted := slices.Clone(rs)
			slices.SortFunc(sorted, func(a, b *runResult) int { return cmp.Compare(a.rate, b.rate) })
			results[s][n] = sorted[len(sorted)/2]
		}
	}
	printTable(setup, nodeCounts, scheds, results)
	if *reps > 1 {
		fmt.Println("\npods/s of every run (the table shows the median):")
		for _, n := range nodeCounts {
			for _, s := range scheds {
				var rates []string
				for _, r := range runs[s][n] {
					rates = append(rates, fmt.Sprintf("%.0f", r.rate))
				}
				fmt.Printf("  %5d nodes %-8s %s\n", n, label(s), strings.Join(rates, " "))
			}
		}
	}
	return nil
}

func setupName(apiserver string) string {
	if apiserver == "kubik" {
		return "Kubik's apiserver (ch02 binary on etcd)"
	}
	return "upstream kube-apiserver v1.35.4 on etcd"
}

// chooseAPIServer resolves -apiserver.
func chooseAPIServer(ctx context.Context, tmp string, bins binaries, withUpstream bool) (string, error) {
	switch *apiserverFlag {
	case "kubik", "upstream":
	case "auto":
		if !withUpstream {
			return "kubik", nil
		}
	default:
		return "", fmt.Errorf("-apiserver %q: kubik, upstream or auto", *apiserverFlag)
	}
	if withUpstream && *apiserverFlag != "upstream" {
		dir := filepath.Join(tmp, "probe")
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return "", err
		}
		cp, err := startControlPlane(ctx, "kubik", dir, bins)
		if err != nil {
			return "", err
		}
		c, err := newClient(cp.adminKubeconfig, "bench-scheduler")
		var missing []string
		if err == nil {
			missing, err = missingForUpstreamScheduler(ctx, c)
		}
		cp.stop()
		if err != nil {
			return "", err
		}
		if len(missing) == 0 {
			return "kubik", nil
		}
		fmt.Printf("\nupstream kube-scheduler cannot run against Kubik's apiserver yet: it waits for the caches of\n"+
			"  %s,\n  which Kubik does not serve\n", strings.Join(missing, ", "))
		if *apiserverFlag == "kubik" {
			fmt.Println("  -apiserver=kubik: running it anyway (expect it to bind nothing)")
			return "kubik", nil
		}
	}
	if bins.upstreamAPIServer == "" {
		return "", fmt.Errorf("upstream kube-apiserver is not built (%s): run `make ref-build`", *refBin)
	}
	return "upstream", nil
}

func startScheduler(which, dir string, nodes, rep int, cp *controlPlane, bins binaries) (*testenv.Proc, error) {
	logPath := filepath.Join(dir, "scheduler.log")
	if which == "kubik" {
		args := []string{"--kubeconfig", cp.schedKubeconfig, "--leader-elect=false", "--log-level", "warn",
			"--kube-api-qps=10000", "--kube-api-burst=10000"}
		if *cpuprofileDir != "" {
			abs, err := filepath.Abs(filepath.Join(*cpuprofileDir, fmt.Sprintf("kubik-scheduler-%d-%d.pprof", nodes, rep+1)))
			if err != nil {
				return nil, err
			}
			args = append(args, "--cpuprofile", abs)
		}
		return testenv.Spawn("kube-scheduler (kubik)", logPath, bins.kubikScheduler, args...)
	}
	sk := cp.schedKubeconfig
	return testenv.Spawn("kube-scheduler (upstream)", logPath, bins.upstreamScheduler,
		"--kubeconfig", sk, "--authentication-kubeconfig", sk, "--authorization-kubeconfig", sk,
		"--bind-address", "127.0.0.1", "--secure-port", "0", "--leader-elect=false",
		"--kube-api-qps=10000", "--kube-api-burst=10000")
}
