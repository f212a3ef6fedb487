package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"time"

	"kubik/ch01-apiserver/api/corev1"
	"kubik/ch01-apiserver/pki"
	"kubik/ch03-scheduler/clientgo/rest"
	"kubik/ch05-kubelet/containerd"
	"kubik/ch05-kubelet/images"
	"kubik/ch05-kubelet/node5"
	"kubik/ch06-cni/cluster6"
	"kubik/ch06-cni/fabric"
	"kubik/internal/testenv"
)

// This file starts and stops the clusters the benchmark measures: chapter
// 5's program with its one node, chapter 6's with three machines.

// bench holds what every part needs: the binaries and the images.
type bench struct {
	tmp, ch05, ch06, kubikCNI, images string
}

// newBench builds the images and the two chapter binaries into tmp.
func newBench(ctx context.Context, tmp string) (*bench, error) {
	b := &bench{tmp: tmp, images: filepath.Join(tmp, "images")}
	fmt.Println("building the images (pause, busybox, demo) and the ch05 and ch06 programs ...")
	if err := images.Build(b.images); err != nil {
		return nil, err
	}
	for pkg, bin := range map[string]*string{"kubik/ch05-kubelet": &b.ch05, "kubik/ch06-cni": &b.ch06, "kubik/ch06-cni/cmd/kubik-cni": &b.kubikCNI} {
		*bin = filepath.Join(tmp, "bin", filepath.Base(pkg))
		if out, err := exec.CommandContext(ctx, "go", "build", "-o", *bin, pkg).CombinedOutput(); err != nil {
			return nil, fmt.Errorf("go build %s: %v\n%s", pkg, err, out)
		}
	}
	return b, nil
}

// program is a running chapter binary: its cluster and its nodes.
type program struct {
	*testenv.Proc
	dir       string
	admin     *rest.Client
	nodes     []string
	nodeRoots map[string]string         // node → the kubelet's root dir (its containerd's under it)
	nodeNetNS map[string]string         // chapter 6: node → its machine's network namespace
	nodeIPs   map[string]string         // chapter 6: node → its eth0 address
	leftovers func() ([]string, func()) // after the stop: what is left, and how to remove it
}

// startCh05 runs chapter 5: the control plane and one real node.
func (b *bench) startCh05(ctx context.Context) (*program, error) {
	dir := filepath.Join(b.tmp, "ch5")
	port, kubeletPort, err := twoPorts()
	if err != nil {
		return nil, err
	}
	p := &program{dir: dir, nodes: []string{"kubik-bench-node"}, nodeRoots: map[string]string{"kubik-bench-node": filepath.Join(dir, "kubelet")}}
	p.Proc, err = testenv.Spawn("ch05 program", filepath.Join(b.tmp, "ch05.log"), b.ch05, "--data-dir", dir,
		"--secure-port", strconv.Itoa(port), "--hostname-override", p.nodes[0], "--node-ip", "127.0.0.1",
		"--port", strconv.Itoa(kubeletPort), "--leader-elect=false", "--image-dir", b.images)
	if err != nil {
		return nil, err
	}
	p.leftovers = func() ([]string, func()) {
		log, _ := os.ReadFile(p.LogPath)
		m := regexp.MustCompile(`msg="containerd started".* netns=/run/netns/(\S+)`).FindSubmatch(log)
		if m == nil {
			return nil, func() {}
		}
		rc := containerd.Config{Dir: filepath.Join(dir, "kubelet", "containerd"), Name: string(m[1])}
		return containerd.Leftovers(rc), func() { containerd.Cleanup(rc, nil) }
	}
	return p, p.waitReady(ctx)
}

// startCh06 runs chapter 6: the control plane and three machines; name
// tells its directory and log apart from another run's.
func (b *bench) startCh06(ctx context.Context, name, backend string, extraArgs ...string) (*program, error) {
	dir := filepath.Join(b.tmp, "ch6-"+name)
	port, _, err := twoPorts()
	if err != nil {
		return nil, err
	}
	fab, err := cluster6.FabricConfig(dir, *nodeCIDR, "10.244.0.0/16", "10.96.0.0/12", nil)
	if err != nil {
		return nil, err
	}
	p := &program{dir: dir, nodeRoots: map[string]string{}, nodeNetNS: map[string]string{}, nodeIPs: map[string]string{}}
	ip := fab.NodeCIDR.Masked().Addr()
	for range 10 {
		ip = ip.Next()
	}
	for i := 1; i <= 3; i++ {
		name := fmt.Sprintf("node-%d", i)
		ip = ip.Next() // node i is .10+i, as package fabric numbers them
		p.nodes = append(p.nodes, name)
		p.nodeRoots[name] = filepath.Join(dir, "nodes", name, "kubelet")
		p.nodeNetNS[name] = "/run/netns/" + fab.NamespaceName(name)
		p.nodeIPs[name] = ip.String()
	}
	args := append([]string{"--data-dir", dir, "--secure-port", strconv.Itoa(port), "--nodes=3", "--node-cidr=" + *nodeCIDR,
		"--backend=" + backend, "--leader-elect=false", "--image-dir", b.images}, extraArgs...)
	p.Proc, err = testenv.Spawn("ch06 program ("+name+")", filepath.Join(b.tmp, "ch06-"+name+".log"), b.ch06, args...)
	if err != nil {
		return nil, err
	}
	p.leftovers = func() ([]string, func()) {
		left := fabric.Leftovers(fab)
		for _, name := range p.nodes {
			root := p.nodeRoots[name]
			left = append(left, containerd.Leftovers(containerd.Config{Dir: filepath.Join(root, "containerd"),
				Name: node5.RuntimeName(root), NetNS: p.nodeNetNS[name]})...)
		}
		return left, func() { cluster6.CleanNodesCommand([]string{"--data-dir", dir, "--node-cidr", *nodeCIDR}) }
	}
	return p, p.waitReady(ctx)
}

func twoPorts() (int, int, error) {
	a, err := testenv.Port()
	if err != nil {
		return 0, 0, err
	}
	b, err := testenv.Port()
	return a, b, err
}

// waitReady waits until every node is Ready and untainted and the default
// ServiceAccount exists (pods created before it get no token volume, and
// would start cheaper than real ones).
func (p *program) waitReady(ctx context.Context) error {
	deadline := time.Now().Add(3 * time.Minute)
	last := errors.New("no admin.kubeconfig yet")
	for {
		if p.admin == nil {
			if k, err := pki.LoadKubeconfig(filepath.Join(p.dir, "admin.kubeconfig")); err == nil {
				p.admin, _ = rest.NewForConfig(rest.Config{Kubeconfig: k, UserAgent: "bench-cni", QPS: -1, Timeout: time.Minute})
			}
		}
		if p.admin != nil {
			if last = p.ready(ctx); last == nil {
				return nil
			}
		}
		if p.Exited() {
			p.stop()
			return fmt.Errorf("%s exited (log: %s)", p.Name, p.LogPath)
		}
		if time.Now().After(deadline) || ctx.Err() != nil {
			p.stop()
			return fmt.Errorf("%s not ready: %v (log: %s)", p.Name, last, p.LogPath)
		}
		time.Sleep(200 * time.Millisecond)
	}
}

func (p *program) ready(ctx context.Context) error {
	for _, name := range p.nodes {
		nd, err := rest.Get[corev1.Node](ctx, p.admin, "", name)
		if err != nil {
			return err
		}
		ready := false
		for _, c := range nd.Status.Conditions {
			ready = ready || c.Type == corev1.NodeReady && c.Status == corev1.ConditionTrue
		}
		if !ready {
			return fmt.Errorf("node %s not Ready", name)
		}
		for _, t := range nd.Spec.Taints {
			if t.Key == "node.kubernetes.io/not-ready" {
				return fmt.Errorf("node %s still tainted %s", name, t.Key)
			}
		}
	}
	_, err := rest.Get[corev1.ServiceAccount](ctx, p.admin, "default", "default")
	return err
}

// stop sends SIGTERM (the program removes its pods and its machines) and
// checks that nothing of it is left; what is, it removes and reports.
func (p *program) stop() error {
	p.Stop(3 * time.Minute)
	left, clean := p.leftovers()
	if len(left) > 0 {
		clean()
		return fmt.Errorf("%s left behind after SIGTERM (now removed):\n  %s", p.Name, strings.Join(left, "\n  "))
	}
	return nil
}
