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
	"kubik/internal/testenv"
)

const nodeName = "kubik-bench-node"

// node is the running ch05 program: the cluster and its one real node.
type node struct {
	*testenv.Proc
	dir   string       // its --data-dir
	admin *rest.Client // unthrottled, the administrator
	rc    containerd.Config
}

// buildNode compiles the ch05 binary into tmp/bin.
func buildNode(ctx context.Context, tmp string) (string, error) {
	bin := filepath.Join(tmp, "bin", "ch05-kubelet")
	fmt.Println("building kubik/ch05-kubelet ...")
	if out, err := exec.CommandContext(ctx, "go", "build", "-o", bin, "kubik/ch05-kubelet").CombinedOutput(); err != nil {
		return "", fmt.Errorf("go build kubik/ch05-kubelet: %v\n%s", err, out)
	}
	return bin, nil
}

var containerdStarted = regexp.MustCompile(`msg="containerd started".* netns=/run/netns/(\S+)`)

// startNode runs the ch05 binary with its data in dir (images already in
// dir/images) and waits until the node is Ready and untainted and the namespace's
// "default" ServiceAccount exists (pods created before it get no token
// volume, which would make them cheaper than real ones).
func startNode(ctx context.Context, bin, dir string) (n *node, err error) {
	port, err := testenv.Port()
	if err != nil {
		return nil, err
	}
	kubeletPort, err := testenv.Port() // not 10250: another program may hold it
	if err != nil {
		return nil, err
	}
	n = &node{dir: dir}
	n.Proc, err = testenv.Spawn("ch05 program", filepath.Join(filepath.Dir(dir), "ch05.log"), bin,
		"--data-dir", dir, "--secure-port", strconv.Itoa(port), "--hostname-override", nodeName,
		"--node-ip", "127.0.0.1", "--port", strconv.Itoa(kubeletPort), "--leader-elect=false")
	if err != nil {
		return nil, err
	}
	defer func() {
		if err != nil {
			n.stop()
		}
	}()
	deadline := time.Now().Add(3 * time.Minute)
	last := errors.New("no admin.kubeconfig yet")
	for {
		if n.admin == nil {
			if k, err := pki.LoadKubeconfig(filepath.Join(dir, "admin.kubeconfig")); err == nil {
				n.admin, _ = rest.NewForConfig(rest.Config{Kubeconfig: k, UserAgent: "bench-pods", QPS: -1, Timeout: time.Minute})
			}
		}
		if n.admin != nil {
			if last = n.ready(ctx); last == nil {
				break
			}
		}
		if n.Exited() {
			return nil, fmt.Errorf("%s exited (log: %s)", n.Name, n.LogPath)
		}
		if time.Now().After(deadline) || ctx.Err() != nil {
			return nil, fmt.Errorf("node not ready after 3m: %v (log: %s)", last, n.LogPath)
		}
		time.Sleep(200 * time.Millisecond)
	}
	log, _ := os.ReadFile(n.LogPath)
	m := containerdStarted.FindSubmatch(log)
	if m == nil {
		return nil, fmt.Errorf("no %q line in %s", "containerd started", n.LogPath)
	}
	n.rc = containerd.Config{Dir: filepath.Join(dir, "kubelet", "containerd"), Name: string(m[1])}
	return n, nil
}

// ready is nil once the Node is Ready and default/default exists.
func (n *node) ready(ctx context.Context) error {
	nd, err := rest.Get[corev1.Node](ctx, n.admin, "", nodeName)
	if err != nil {
		return err
	}
	ready := false
	for _, c := range nd.Status.Conditions {
		ready = ready || c.Type == corev1.NodeReady && c.Status == corev1.ConditionTrue
	}
	if !ready {
		return errors.New("node not Ready")
	}
	// The node lifecycle controller removes this taint a moment after
	// Ready; until then the scheduler does not place pods on the node.
	for _, t := range nd.Spec.Taints {
		if t.Key == "node.kubernetes.io/not-ready" {
			return errors.New("node still tainted " + t.Key)
		}
	}
	_, err = rest.Get[corev1.ServiceAccount](ctx, n.admin, namespace, "default")
	return err
}

// stop sends SIGTERM (the program removes its pods, stops its containerd
// and cleans up) and checks, as the e2e tests do, that nothing is left.
func (n *node) stop() error {
	n.Stop(2 * time.Minute)
	if n.rc.Name == "" {
		return nil // containerd never started
	}
	log, _ := os.ReadFile(n.LogPath)
	if !strings.Contains(string(log), `msg="containerd stopped and cleaned up"`) {
		return fmt.Errorf("no clean containerd shutdown in %s", n.LogPath)
	}
	if left := containerd.Leftovers(n.rc); len(left) > 0 {
		containerd.Cleanup(n.rc, nil)
		return fmt.Errorf("left behind after shutdown (now removed):\n  %s", strings.Join(left, "\n  "))
	}
	return nil
}
