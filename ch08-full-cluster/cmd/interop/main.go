// Command interop runs the interoperability matrix (`make interop`, as
// root): chapter 8's cluster — one control-plane machine, a load
// balancer, two workers, every component a process of its own — once per
// cell, each cell with some components swapped for upstream Kubernetes
// v1.35.4's binaries (make ref-build), through `ch08-full-cluster up`'s
// overrides (--apiserver-bin, --scheduler-bin, --controller-manager-bin,
// --kubelet-bin, --kube-proxy-bin). Each cell runs the same small
// scenario (scenario.go): a Deployment rolls out, a Job completes, pods
// run on both workers and answer kubectl logs and exec, a Service answers
// through each worker's kube-proxy, a silenced kubelet's Node goes
// Unknown and its pods move. It prints a table, a cell per row, a step
// per column, then what failed and why:
//
//	go run ./ch08-full-cluster/cmd/interop -cells upstream-managers,upstream-apiserver
//
// It builds what it runs unless -bin-dir and -image-dir name them, on a
// node network of its own (-node-cidr 10.240.13.0/24), one cell after
// another, and removes each cluster after its cell.
//
// Upstream: no one program; Kubernetes' version-skew tests (kubetest2's
// skew jobs) run mixed versions of its own components, not another
// implementation's.
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
	"strings"
	"syscall"
	"text/tabwriter"
	"time"

	"kubik/ch08-full-cluster/cluster8"
	"kubik/ch08-full-cluster/drills"
	"kubik/internal/testenv"
)

// options are the command's flags.
type options struct {
	cells    []string
	refBin   string
	binDir   string
	imageDir string
	nodeCIDR string
	kubectl  string
	unknown  bool
	verbose  bool
	keep     bool
	out      io.Writer
}

func (o *options) addFlags(fs *flag.FlagSet) {
	var names []string
	for _, c := range cells {
		names = append(names, c.Name)
	}
	fs.Func("cells", "the cells to run, comma-separated (default: all: "+strings.Join(names, ",")+")", func(v string) error {
		for _, n := range strings.Split(v, ",") {
			if _, ok := find(n); !ok {
				return fmt.Errorf("no cell %q (cells: %s)", n, strings.Join(names, ","))
			}
			o.cells = append(o.cells, n)
		}
		return nil
	})
	fs.StringVar(&o.refBin, "ref-bin", ".kubik/ref/bin", "upstream's binaries (make ref-build)")
	fs.StringVar(&o.binDir, "bin-dir", "", "Kubik's component binaries (default: built into the work directory)")
	fs.StringVar(&o.imageDir, "image-dir", "", "the image tarballs (default: built into the work directory)")
	fs.StringVar(&o.nodeCIDR, "node-cidr", "10.240.13.0/24", "the matrix clusters' node network (not the reader's 10.240.0.0/24)")
	fs.StringVar(&o.kubectl, "kubectl", "", "the kubectl to run (default: kubectl on the PATH, else "+drills.FallbackKubectl+")")
	fs.BoolVar(&o.unknown, "unknown", true, "run the last step, a kubelet silenced (about two minutes a cell)")
	fs.BoolVar(&o.verbose, "v", false, "show the steps' progress and the cluster's log")
	fs.BoolVar(&o.keep, "keep", false, "keep the work directory (each cell's machines and logs) and print its path")
}

var opts = options{out: os.Stdout}

func main() {
	opts.addFlags(flag.CommandLine)
	testenv.BenchMain("interop", func(ctx context.Context) error {
		results, err := runMatrix(ctx, opts)
		if err != nil {
			return err
		}
		printMatrix(os.Stdout, results)
		for _, r := range results {
			if r.failed() {
				return errors.New("a cell failed")
			}
		}
		return nil
	})
}

// components are Kubik's binaries a cell's cluster runs (import paths:
// go build finds them from anywhere in the module).
var components = []string{
	"kubik/ch08-full-cluster", "kubik/ch08-full-cluster/cmd/kubik-supervisor", "kubik/ch08-full-cluster/cmd/etcd",
	"kubik/ch08-full-cluster/cmd/kube-apiserver", "kubik/ch08-full-cluster/cmd/kube-controller-manager",
	"kubik/ch08-full-cluster/cmd/cloud-controller-manager", "kubik/ch03-scheduler/cmd/kube-scheduler",
	"kubik/ch05-kubelet/cmd/kubelet", "kubik/ch06-cni/cmd/kubik-node-agent", "kubik/ch06-cni/cmd/kubik-cni",
	"kubik/ch07-kube-proxy/cmd/kube-proxy", "kubik/ch07-kube-proxy/cmd/mkimages",
}

// result is one cell's row: each step's outcome.
type result struct {
	cell   cell
	status map[string]string // step → ok, FAIL, skip, -
	notes  []string
}

func (r *result) failed() bool {
	for _, s := range r.status {
		if s == "FAIL" {
			return true
		}
	}
	return false
}

// runMatrix runs the cells of o, one after another.
func runMatrix(ctx context.Context, o options) ([]*result, error) {
	if os.Geteuid() != 0 {
		return nil, errors.New("run it as root: the machines are network namespaces")
	}
	if out, _ := exec.Command("ip", "-4", "route", "show", o.nodeCIDR).Output(); len(bytes.TrimSpace(out)) > 0 {
		return nil, fmt.Errorf("%s is routed on this host already (another cluster?): %s; pick another with -node-cidr", o.nodeCIDR, bytes.TrimSpace(out))
	}
	ref, err := filepath.Abs(o.refBin)
	if err != nil {
		return nil, err
	}
	if missing := missingUpstream(ref); len(missing) > 0 {
		return nil, fmt.Errorf("-ref-bin %s lacks %s: run `make ref-build`", ref, strings.Join(missing, ", "))
	}
	work, cleanup, err := testenv.WorkDir("interop-", o.keep)
	if err != nil {
		return nil, err
	}
	defer cleanup()
	bin, imgs := o.binDir, o.imageDir
	if bin == "" {
		bin = filepath.Join(work, "bin")
		fmt.Fprintln(o.out, "building the binaries (a few minutes the first time)")
		if out, err := exec.Command("go", append([]string{"build", "-o", bin + "/"}, components...)...).CombinedOutput(); err != nil {
			return nil, fmt.Errorf("go build: %v\n%s", err, out)
		}
	}
	if imgs == "" {
		imgs = filepath.Join(work, "images")
		if out, err := exec.Command(filepath.Join(bin, "mkimages"), "-out", imgs).CombinedOutput(); err != nil {
			return nil, fmt.Errorf("mkimages: %v\n%s", err, out)
		}
	}
	names := o.cells
	if len(names) == 0 {
		for _, c := range cells {
			names = append(names, c.Name)
		}
	}
	var results []*result
	for i, n := range names {
		c, _ := find(n)
		fmt.Fprintf(o.out, "\n== %s: %s\n", c.Name, c.Summary)
		// A short data dir: containerd's sockets live under it, and a
		// unix socket's path has at most 104 bytes.
		r := runCell(ctx, o, c, bin, imgs, ref, filepath.Join(work, fmt.Sprintf("c%d", i+1)))
		results = append(results, r)
		if ctx.Err() != nil {
			return results, ctx.Err()
		}
	}
	return results, nil
}

// missingUpstream are the upstream binaries the matrix needs that dir lacks.
func missingUpstream(dir string) []string {
	var missing []string
	for _, b := range []string{"kube-apiserver", "kube-scheduler", "kube-controller-manager", "kubelet", "kube-proxy"} {
		if _, err := os.Stat(filepath.Join(dir, b)); err != nil {
			missing = append(missing, b)
		}
	}
	return missing
}

// runCell brings the cell's cluster up, runs the steps, and removes it.
func runCell(ctx context.Context, o options, c cell, bin, imgs, ref, dataDir string) *result {
	r := &result{cell: c, status: map[string]string{}}
	for _, s := range steps {
		r.status[s.Name] = "-"
	}
	note := func(format string, args ...any) {
		line := fmt.Sprintf(format, args...)
		r.notes = append(r.notes, line)
		fmt.Fprintln(o.out, "  "+line)
	}
	if c.NotRun != "" {
		note("not run: %s", c.NotRun)
		return r
	}
	var upLog testenv.SyncBuffer
	args := append([]string{"up", "--data-dir", dataDir, "--node-cidr", o.nodeCIDR, "--image-dir", imgs,
		"--control-plane", "1", "--workers", "2", "--dns-replicas", "0"}, c.upFlags(ref)...)
	fmt.Fprintf(o.out, "  ch08-full-cluster %s\n", strings.Join(args, " "))
	up := exec.Command(filepath.Join(bin, "ch08-full-cluster"), args...)
	up.Stdout, up.Stderr = &upLog, &upLog
	up.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := up.Start(); err != nil {
		r.status["nodes"] = "FAIL"
		note("up: %v", err)
		return r
	}
	upDone := make(chan struct{})
	go func() { up.Wait(); close(upDone) }()
	defer func() {
		up.Process.Signal(syscall.SIGTERM)
		<-upDone
		if out, err := exec.Command(filepath.Join(bin, "ch08-full-cluster"), "down", "--data-dir", dataDir).CombinedOutput(); err != nil {
			note("down: %v: %s", err, out)
		}
		if o.verbose {
			fmt.Fprintln(o.out, upLog.String())
		}
	}()
	start := time.Now()
	for !strings.Contains(upLog.String(), "kubectl get nodes") {
		select {
		case <-upDone:
			r.status["nodes"] = "FAIL"
			note("nodes: up exited: %s", lastLines(upLog.String(), 8))
			return r
		case <-ctx.Done():
			return r
		case <-time.After(200 * time.Millisecond):
		}
	}
	r.status["nodes"] = "ok"
	note("nodes: both Ready %s after up", time.Since(start).Round(time.Second))
	cl, err := cluster8.Load(dataDir, nil)
	if err != nil {
		r.status["nodes"] = "FAIL"
		note("nodes: %v", err)
		return r
	}
	progress := io.Discard
	if o.verbose {
		progress = o.out
	}
	env, err := drills.NewEnv(cl, o.kubectl, progress)
	if err != nil {
		note("kubectl: %v", err)
		return r
	}
	for _, s := range steps[1:] {
		if s.Name == "unknown" && !o.unknown {
			r.status[s.Name] = "skip"
			continue
		}
		sctx, cancel := context.WithTimeout(ctx, 10*time.Minute)
		detail, err := s.Run(sctx, env)
		cancel()
		if why, known := c.Known[s.Name]; err != nil && known {
			r.status[s.Name] = "known"
			note("%s: known: %s (%s: %v)", s.Name, why, detail, err)
		} else if err != nil {
			r.status[s.Name] = "FAIL"
			note("%s: FAIL: %s: %v", s.Name, detail, err)
		} else {
			r.status[s.Name] = "ok"
			note("%s: %s", s.Name, detail)
		}
		if ctx.Err() != nil {
			return r
		}
	}
	return r
}

// printMatrix writes the table: a cell per row, a step per column.
func printMatrix(w io.Writer, results []*result) {
	fmt.Fprintln(w, "\ninterop: Kubik and Kubernetes v1.35.4 components in one cluster (1 control plane, 2 workers)")
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	head := []string{"CELL"}
	for _, s := range steps {
		head = append(head, strings.ToUpper(s.Name))
	}
	fmt.Fprintln(tw, strings.Join(head, "\t"))
	for _, r := range results {
		row := []string{r.cell.Name}
		for _, s := range steps {
			row = append(row, r.status[s.Name])
		}
		fmt.Fprintln(tw, strings.Join(row, "\t"))
	}
	tw.Flush()
	fmt.Fprintln(w)
	for _, r := range results {
		fmt.Fprintf(w, "%s: %s\n", r.cell.Name, r.cell.Summary)
		for _, n := range r.notes {
			fmt.Fprintf(w, "  %s\n", n)
		}
	}
}

func lastLines(s string, n int) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	return strings.Join(lines[max(0, len(lines)-n):], "\n")
}
