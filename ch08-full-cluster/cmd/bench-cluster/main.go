// Command bench-cluster measures chapter 8's whole cluster (`make
// bench-cluster`, as root):
//
//  1. bring-up: from `ch08-full-cluster up` to every apiserver ready, and
//     to every Node Ready (the PKI, the machines, etcd's first election,
//     the add-ons, the workers' containerd and image imports included);
//  2. a Deployment of -replicas (100) pods: from its creation to all of
//     them Available, spread over the workers;
//  3. kubectl's latency through the load balancer: a loop of `kubectl get
//     nodes` on a quiet cluster, then the same loop while one apiserver is
//     killed with SIGKILL and restarted by its supervisor (the apiserver
//     drill): p50, p99, max and failed requests.
//
// It builds what it runs (every component binary, the images) unless
// -bin-dir and -image-dir name them, runs the cluster in a temporary
// directory on a node network of its own (-node-cidr, not the
// 10.240.0.0/24 of `make ch08-run`), and removes it all at the end.
//
//	go run ./ch08-full-cluster/cmd/bench-cluster -replicas 100
package main

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"time"

	"kubik/ch01-apiserver/api/appsv1"
	"kubik/ch03-scheduler/clientgo/rest"
	"kubik/ch08-full-cluster/cluster8"
	"kubik/ch08-full-cluster/drills"
	"kubik/internal/testenv"
)

var (
	controlPlanes = flag.Int("control-plane", 3, "control-plane machines")
	workers       = flag.Int("workers", 2, "worker machines")
	replicas      = flag.Int("replicas", 100, "the Deployment's replicas")
	nodeCIDR      = flag.String("node-cidr", "10.240.9.0/24", "the benchmark cluster's node network (the chapter's tests', not the reader's 10.240.0.0/24)")
	binDir        = flag.String("bin-dir", "", "the component binaries (default: built into the work directory)")
	imageDir      = flag.String("image-dir", "", "the image tarballs (default: built into the work directory)")
	kubectl       = flag.String("kubectl", "", "the kubectl to run (default: kubectl on the PATH, else "+drills.FallbackKubectl+")")
	quiet         = flag.Duration("quiet", 10*time.Second, "how long the latency loop runs on the quiet cluster")
	verbose       = flag.Bool("v", false, "show the drill's output and the cluster's log")
	keep          = flag.Bool("keep", false, "keep the work directory (logs, data) and print its path")
	refBin        = flag.String("ref-bin", "", "upstream's binaries (make ref-build: .kubik/ref/bin): when they are there, the same cluster is measured again with upstream's kube-apiserver, kube-scheduler and kube-controller-manager")
)

// components are what the cluster runs.
var components = []string{
	"./ch08-full-cluster", "./ch08-full-cluster/cmd/kubik-supervisor", "./ch08-full-cluster/cmd/etcd",
	"./ch08-full-cluster/cmd/kube-apiserver", "./ch08-full-cluster/cmd/kube-controller-manager",
	"./ch08-full-cluster/cmd/cloud-controller-manager", "./ch03-scheduler/cmd/kube-scheduler",
	"./ch05-kubelet/cmd/kubelet", "./ch06-cni/cmd/kubik-node-agent", "./ch06-cni/cmd/kubik-cni",
	"./ch07-kube-proxy/cmd/kube-proxy", "./ch07-kube-proxy/cmd/mkimages",
}

func main() { testenv.BenchMain("bench-cluster", run) }

func run(ctx context.Context) error {
	if os.Geteuid() != 0 {
		return errors.New("run it as root: the machines are network namespaces")
	}
	if out, _ := exec.Command("ip", "-4", "route", "show", *nodeCIDR).Output(); len(bytes.TrimSpace(out)) > 0 {
		return fmt.Errorf("%s is routed on this host already (a test of the chapter, another cluster?): %s; pick another with -node-cidr",
			*nodeCIDR, bytes.TrimSpace(out))
	}
	work, cleanup, err := testenv.WorkDir("bench-cluster-", *keep)
	if err != nil {
		return err
	}
	defer cleanup()
	bin, images := *binDir, *imageDir
	if bin == "" {
		bin = filepath.Join(work, "bin")
		fmt.Println("building the binaries (a few minutes the first time)")
		if out, err := exec.Command("go", append([]string{"build", "-o", bin + "/"}, components...)...).CombinedOutput(); err != nil {
			return fmt.Errorf("go build: %v\n%s", err, out)
		}
	}
	if images == "" {
		images = filepath.Join(work, "images")
		if out, err := exec.Command(filepath.Join(bin, "mkimages"), "-out", images).CombinedOutput(); err != nil {
			return fmt.Errorf("mkimages: %v\n%s", err, out)
		}
	}
	r, err := measure(ctx, bin, images, filepath.Join(work, "kubik"), nil)
	if err != nil {
		return err
	}
	reports := []*report{r}
	if ref := upstreamBinaries(*refBin); ref != "" {
		fmt.Printf("\nthe same cluster with upstream's control plane (%s)\n", ref)
		u, err := measure(ctx, bin, images, filepath.Join(work, "upstream"), []string{"--control-plane-bin-dir", ref})
		if err != nil {
			return fmt.Errorf("with upstream's control plane: %w", err)
		}
		u.label = "upstream " + version(ref) + " control plane"
		reports = append(reports, u)
	} else {
		fmt.Printf("\nno upstream control plane in -ref-bin %q (make ref-build): measured Kubik's only\n", *refBin)
	}
	fmt.Printf("\nbench-cluster: %d control-plane machines, a load balancer, %d workers (Kubik's kubelet, kube-proxy, node agent, etcd, haproxy in both)\n", *controlPlanes, *workers)
	for _, r := range reports {
		r.print(os.Stdout)
	}
	return nil
}

// upstreamBinaries is dir if it holds upstream's control-plane binaries.
func upstreamBinaries(dir string) string {
	if dir == "" {
		return ""
	}
	for _, b := range cluster8.UpstreamControlPlane {
		if _, err := os.Stat(filepath.Join(dir, b)); err != nil {
			return ""
		}
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return ""
	}
	return abs
}

// version is the version file next to upstream's kube-apiserver.
func version(dir string) string {
	b, _ := os.ReadFile(filepath.Join(dir, "kube-apiserver.version"))
	return strings.TrimSpace(string(b))
}

// measure brings a cluster up in dataDir (up with extra flags), measures
// it, and removes it.
func measure(ctx context.Context, bin, images, dataDir string, extra []string) (_ *report, err error) {
	r := &report{label: "Kubik"}

	// 1. Bring-up.
	var upLog testenv.SyncBuffer
	up := exec.Command(filepath.Join(bin, "ch08-full-cluster"), append([]string{"up", "--data-dir", dataDir, "--node-cidr", *nodeCIDR,
		"--image-dir", images, "--control-plane", fmt.Sprint(*controlPlanes), "--workers", fmt.Sprint(*workers)}, extra...)...)
	up.Stdout, up.Stderr = &upLog, &upLog
	up.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	start := time.Now()
	if err := up.Start(); err != nil {
		return nil, err
	}
	upDone := make(chan struct{})
	go func() { up.Wait(); close(upDone) }()
	defer func() {
		up.Process.Signal(syscall.SIGTERM)
		<-upDone
		if out, err := exec.Command(filepath.Join(bin, "ch08-full-cluster"), "down", "--data-dir", dataDir).CombinedOutput(); err != nil {
			fmt.Fprintf(os.Stderr, "down: %v\n%s", err, out)
		}
		if *verbose {
			fmt.Println(upLog.String())
		}
	}()
	for !strings.Contains(upLog.String(), "kubectl get nodes") {
		if r.apiservers == 0 && strings.Count(upLog.String(), `msg="apiserver ready"`) == *controlPlanes {
			r.apiservers = time.Since(start)
		}
		select {
		case <-upDone:
			return nil, fmt.Errorf("up exited:\n%s", upLog.String())
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-time.After(100 * time.Millisecond):
		}
	}
	r.nodesReady = time.Since(start)
	c, err := cluster8.Load(dataDir, nil)
	if err != nil {
		return nil, err
	}
	out := io.Discard
	if *verbose {
		out = os.Stdout
	}
	env, err := drills.NewEnv(c, *kubectl, out)
	if err != nil {
		return nil, err
	}
	fmt.Printf("cluster up: apiservers ready after %s, %d nodes Ready after %s\n", r.apiservers.Round(100*time.Millisecond), *workers, r.nodesReady.Round(100*time.Millisecond))

	// 2. A Deployment of many replicas.
	if r.available, err = deployment(ctx, env); err != nil {
		return nil, err
	}
	fmt.Printf("deployment of %d replicas available after %s\n", *replicas, r.available.Round(100*time.Millisecond))

	// 3. kubectl through the load balancer: quiet, then with an apiserver killed.
	if r.quiet, r.quietFailed, err = kubectlLoop(ctx, env, *quiet); err != nil {
		return nil, err
	}
	res, err := drills.KillAPIServer(ctx, env)
	if err != nil {
		return nil, err
	}
	r.failover = res
	return r, nil
}

// deployment creates the Deployment and waits until every replica is
// available.
func deployment(ctx context.Context, env *drills.Env) (time.Duration, error) {
	start := time.Now()
	if out, err := env.KubectlRun(ctx, "create", "deployment", "bench", "--image=kubik.local/demo:1.0", fmt.Sprintf("--replicas=%d", *replicas)); err != nil {
		return 0, fmt.Errorf("kubectl create deployment: %v: %s", err, out)
	}
	last := int32(-1)
	for {
		d, err := rest.Get[appsv1.Deployment](ctx, env.Admin, "default", "bench")
		if err == nil && d.Status.AvailableReplicas != last {
			last = d.Status.AvailableReplicas
			fmt.Printf("  %6.1fs  %d/%d available\n", time.Since(start).Seconds(), last, *replicas)
		}
		if err == nil && int(d.Status.AvailableReplicas) == *replicas {
			return time.Since(start), nil
		}
		if time.Since(start) > 15*time.Minute {
			return 0, fmt.Errorf("%d/%d available after 15 minutes", last, *replicas)
		}
		select {
		case <-ctx.Done():
			return 0, ctx.Err()
		case <-time.After(250 * time.Millisecond):
		}
	}
}

// kubectlLoop runs `kubectl get nodes` through the load balancer for d.
func kubectlLoop(ctx context.Context, env *drills.Env, d time.Duration) (lat []time.Duration, failed int, err error) {
	deadline := time.Now().Add(d)
	for time.Now().Before(deadline) {
		start := time.Now()
		if _, err := env.KubectlRun(ctx, "get", "nodes", "-o", "name", "--request-timeout=30s"); err != nil {
			failed++
		}
		lat = append(lat, time.Since(start))
		if ctx.Err() != nil {
			return nil, 0, ctx.Err()
		}
	}
	return lat, failed, nil
}

type report struct {
	label                             string
	apiservers, nodesReady, available time.Duration
	quiet                             []time.Duration
	quietFailed                       int
	failover                          *drills.APIServerResult
}

func quantile(d []time.Duration, q float64) time.Duration {
	if len(d) == 0 {
		return 0
	}
	s := slices.Clone(d)
	slices.Sort(s)
	return s[min(int(q*float64(len(s))), len(s)-1)]
}

func (r *report) print(w io.Writer) {
	ms := func(d time.Duration) string { return fmt.Sprintf("%.0f ms", float64(d)/float64(time.Millisecond)) }
	fmt.Fprintf(w, "\n%s\n", r.label)
	fmt.Fprintf(w, "  %-52s %s\n", "up → every apiserver ready", r.apiservers.Round(100*time.Millisecond))
	fmt.Fprintf(w, "  %-52s %s\n", "up → every Node Ready", r.nodesReady.Round(100*time.Millisecond))
	fmt.Fprintf(w, "  %-52s %s\n", fmt.Sprintf("Deployment of %d replicas → Available", *replicas), r.available.Round(100*time.Millisecond))
	fmt.Fprintf(w, "\n  kubectl get nodes through the load balancer    requests  failed      p50      p99      max\n")
	fmt.Fprintf(w, "  %-46s %8d %7d %8s %8s %8s\n", "quiet cluster", len(r.quiet), r.quietFailed,
		ms(quantile(r.quiet, 0.5)), ms(quantile(r.quiet, 0.99)), ms(quantile(r.quiet, 1)))
	f := r.failover
	fmt.Fprintf(w, "  %-46s %8d %7d %8s %8s %8s\n", "one apiserver killed (kill -9) and restarted", f.Requests, len(f.Failed),
		ms(f.P50), ms(f.P99), ms(f.Max))
}
