// Command bench-controllers measures chapter 4's kube-controller-manager
// against upstream kube-controller-manager v1.35.4, side by side (`make
// bench-controllers`).
//
// For every controller manager (ours: ch04-controllers/cmd/kube-controller-manager;
// upstream's binary from -ref-bin), one after the other so they never share
// the CPU, on a fresh cluster each time:
//
//  1. the chapter 3 binary (Kubik's apiserver on an embedded etcd, our
//     kube-scheduler, -nodes hollow nodes of 110 pods each, the not-ready
//     taint stand-in) in one process, --leader-elect=false; the benchmark
//     waits until every node is Ready and untainted;
//  2. the controller manager under test as its own process, identity
//     system:kube-controller-manager,
//     --controllers=deployment,replicaset,statefulset,replicationcontroller
//     --leader-elect=false --kube-api-qps=10000 --kube-api-burst=10000
//     (so client-side rate limits do not decide the result); a 1-replica
//     Deployment "warmup" becoming available says it is up (its informers
//     synced) — that time is printed, not compared;
//  3. T1: POST the Deployment "big" (what `kubectl create deployment big
//     --image=nginx --replicas=N` sends) until status.availableReplicas=N
//     and Available=True;
//  4. T2: PATCH its image (what `kubectl set image deployment/big
//     nginx=nginx:1.27` sends) until the rollout completes as `kubectl
//     rollout status` decides: observedGeneration current and
//     updatedReplicas = replicas = availableReplicas = N;
//  5. T3: POST the StatefulSet "web" of -sts-replicas pods (OrderedReady:
//     pod i+1 only once pod i is Ready) until readyReplicas =
//     availableReplicas = M;
//  6. T4: PATCH its image until `kubectl rollout status sts/web` would
//     say done: updatedReplicas = readyReplicas = M and currentRevision =
//     updateRevision (RollingUpdate replaces the pods one at a time, from
//     the highest ordinal down);
//  7. T5: POST the ReplicationController "rc-big" of -rc-replicas pods
//     until readyReplicas = availableReplicas = R.
//
// Upstream's manager also gets --secure-port=0 (no serving, hence no
// authentication/authorization kubeconfigs) and
// --use-service-account-credentials=false (one identity for every
// controller); it talks protobuf, its default (-upstream-content-type).
//
// The object under test is read every 100 ms (-trace prints every change); "created" is when its status
// first counts all its pods (T1, T3, T5) or all its updated pods (T2, T4). Both managers' pods go through
// the same scheduler and hollow nodes, so T1 and T2 include their work.
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
	"strings"
	"time"

	"kubik/internal/testenv"
)

var (
	replicasFlag = flag.Int("replicas", 1000, "replicas of the Deployment")
	stsReplicas  = flag.Int("sts-replicas", 100, "replicas of the StatefulSet (T3, T4; 0 skips them)")
	rcReplicas   = flag.Int("rc-replicas", 0, "replicas of the ReplicationController (T5; default -replicas, -1 skips it)")
	nodesFlag    = flag.Int("nodes", 100, "hollow nodes (110 pods each)")
	managers     = flag.String("controller-managers", "kubik,upstream", "which controller managers to run: kubik, upstream")
	refBin       = flag.String("ref-bin", ".kubik/ref/bin", "directory with upstream kube-controller-manager (make ref-build)")
	timeout      = flag.Duration("timeout", 10*time.Minute, "longest wait for each phase")
	upstreamV    = flag.Int("upstream-v", 0, "upstream's log verbosity (-v); 2 logs its controllers' retried sync errors")
	stall        = flag.Duration("stall", time.Minute, "a phase fails when the Deployment's status has not changed for this long")
	contentType  = flag.String("upstream-content-type", "application/vnd.kubernetes.protobuf",
		"upstream's --kube-api-content-type")
	reps       = flag.Int("reps", 1, "runs of each controller manager, taking turns going first; the median T1+T2 is shown")
	cpuprofile = flag.String("cpuprofile-dir", "", "our controller manager writes a CPU profile kubik-kcm-<run>.pprof here")
	trace      = flag.Bool("trace", false, "print every change of the Deployment's status while waiting")
	keep       = flag.Bool("keep", false, "keep the temporary directory (logs, data) and print its path")
)

// binaries are the programs this benchmark starts.
type binaries struct {
	cluster, kubikKCM, upstreamKCM string
	upstreamVersion                string
}

func main() { testenv.BenchMain("bench-controllers", run) }

func run(ctx context.Context) error {
	began := time.Now()
	kcms := strings.Split(*managers, ",")
	for _, s := range kcms {
		if s != "kubik" && s != "upstream" {
			return fmt.Errorf("-controller-managers: unknown %q (kubik, upstream)", s)
		}
	}
	if *replicasFlag <= 0 || *nodesFlag <= 0 {
		return fmt.Errorf("-replicas and -nodes must be positive")
	}
	if *rcReplicas == 0 {
		*rcReplicas = *replicasFlag
	}
	// The Deployment's pods (up to 125% during its rolling update) stay
	// while the StatefulSet's and the ReplicationController's are made.
	if need := *replicasFlag*5/4 + max(*stsReplicas, 0) + 1 + max(*rcReplicas, 0); need > 110**nodesFlag {
		return fmt.Errorf("-replicas %d, -sts-replicas %d, -rc-replicas %d: up to %d pods do not fit on %d nodes of 110 pods",
			*replicasFlag, *stsReplicas, *rcReplicas, need, *nodesFlag)
	}
	tmp, cleanup, err := testenv.WorkDir("kubik-bench-controllers-", *keep)
	if err != nil {
		return err
	}
	defer cleanup()

	bins, err := build(ctx, tmp)
	if err != nil {
		return err
	}
	if bins.upstreamKCM == "" && slices.Contains(kcms, "upstream") {
		fmt.Printf("upstream kube-controller-manager is not built (%s): run `make ref-build`; measuring Kubik only\n", *refBin)
		kcms = slices.DeleteFunc(kcms, func(s string) bool { return s == "upstream" })
	}
	if len(kcms) == 0 {
		return fmt.Errorf("no controller manager to run")
	}

	load, _ := os.ReadFile("/proc/loadavg")
	fmt.Printf("\nmachine: %d CPUs, load average %s; upstream %s\n", runtime.NumCPU(),
		strings.Join(strings.Fields(string(load))[:3], " "), bins.upstreamVersion)
	fmt.Printf("cluster: the ch03 binary (Kubik apiserver on embedded etcd, our kube-scheduler, %d hollow nodes), fresh for every run\n", *nodesFlag)
	for _, s := range kcms {
		fmt.Printf("%s: kube-controller-manager %s\n", label(s), strings.Join(kcmArgs(s, "<kubeconfig>", 0), " "))
	}

	runs := map[string][]*result{}
	for rep := range *reps {
		order := slices.Clone(kcms)
		if rep%2 == 1 {
			slices.Reverse(order)
		}
		for _, s := range order {
			fmt.Printf("\n== %s kube-controller-manager, run %d of %d\n", label(s), rep+1, *reps)
			dir := filepath.Join(tmp, fmt.Sprintf("%s-%d", s, rep))
			if err := os.MkdirAll(dir, 0o755); err != nil {
				return err
			}
			r := runOne(ctx, s, rep, bins, dir)
			if ctx.Err() != nil {
				return ctx.Err()
			}
			r.print()
			runs[s] = append(runs[s], r)
		}
	}
	results := map[string]*result{}
	for s, rs := range runs {
		sorted := slices.Clone(rs)
		slices.SortFunc(sorted, func(a, b *result) int { return cmp.Compare(a.t1.done+a.t2.done, b.t1.done+b.t2.done) })
		results[s] = sorted[len(sorted)/2]
	}
	printTable(kcms, results)
	fmt.Printf("\nwhole benchmark: %v\n", time.Since(began).Round(time.Second))
	return nil
}

// build compiles the ch03 binary and our controller manager into tmp/bin,
// and finds upstream's kube-controller-manager in -ref-bin ("" when it is
// not built).
func build(ctx context.Context, tmp string) (binaries, error) {
	var bins binaries
	for _, b := range []struct {
		pkg string
		out *string
	}{{"kubik/ch03-scheduler", &bins.cluster}, {"kubik/ch04-controllers/cmd/kube-controller-manager", &bins.kubikKCM}} {
		*b.out = filepath.Join(tmp, "bin", path.Base(b.pkg))
		fmt.Printf("building %s ...\n", b.pkg)
		if out, err := exec.CommandContext(ctx, "go", "build", "-o", *b.out, b.pkg).CombinedOutput(); err != nil {
			return bins, fmt.Errorf("go build %s: %v\n%s", b.pkg, err, out)
		}
	}
	if p := filepath.Join(*refBin, "kube-controller-manager"); fileExists(p) {
		bins.upstreamKCM = p
		if v, err := os.ReadFile(p + ".version"); err == nil {
			bins.upstreamVersion = strings.TrimSpace(string(v))
		}
	}
	return bins, nil
}

// controllers are the controllers both managers run.
const controllers = "deployment,replicaset,statefulset,replicationcontroller"

// kcmArgs are the flags each controller manager runs with.
func kcmArgs(which, kubeconfig string, rep int) []string {
	common := []string{"--kubeconfig", kubeconfig, "--controllers=" + controllers, "--leader-elect=false",
		"--kube-api-qps=10000", "--kube-api-burst=10000"}
	if which == "kubik" {
		args := append(common, "--log-level=info")
		if *cpuprofile != "" {
			abs, _ := filepath.Abs(filepath.Join(*cpuprofile, fmt.Sprintf("kubik-kcm-%d.pprof", rep+1)))
			args = append(args, "--cpuprofile", abs)
		}
		return args
	}
	// No serving (--secure-port=0), hence no authentication or
	// authorization kubeconfigs; one identity for every controller.
	// --kube-api-content-type: see -upstream-content-type.
	return append(common, "--secure-port=0", "--use-service-account-credentials=false", "--kube-api-content-type="+*contentType,
		fmt.Sprintf("-v=%d", *upstreamV))
}

func label(s string) string {
	if s == "kubik" {
		return "ours"
	}
	return s
}

func fileExists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}
