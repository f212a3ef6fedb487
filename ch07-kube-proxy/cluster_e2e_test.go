//go:build linux

package main_test

// The chapter's cluster as the end-to-end tests run it: the ch07 binary
// with three machines on the node network 10.240.7.0/24 (chapter 6's tests
// use 10.240.6.0/24, a reader's cluster 10.240.0.0/24, so all three can run
// on one host), kube-proxy in the given mode on each, the cluster DNS. One
// cluster per proxy mode serves every test of the package: starting one
// (three containerds, the DNS pods) is the expensive part. Two clusters on
// the same node network cannot run at once, so asking for the other mode
// stops the running one first; TestMain stops the last.

import (
	"bytes"
	"context"
	"crypto/tls"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"kubik/ch05-kubelet/containerd"
	"kubik/ch05-kubelet/images"
	"kubik/ch06-cni/cluster6"
	"kubik/ch06-cni/fabric"
	"kubik/ch07-kube-proxy/dns"
	"kubik/ch07-kube-proxy/ingress"
	"kubik/internal/testenv"
)

const (
	nodeCIDR    = "10.240.7.0/24"
	clusterCIDR = "10.244.0.0/16"
	serviceCIDR = "10.96.0.0/12"
	numNodes    = 3
	kubectl133  = "1.33"
	// inClusterImage runs testdata/incluster: a client that lists pods
	// through https://kubernetes.default with the pod's token.
	inClusterImage = "kubik.local/incluster:1.0"
)

// testCluster is a running chapter 7 cluster.
type testCluster struct {
	mode     string
	dir      string // --data-dir
	bin      string
	api      *testenv.Cluster // URL, Kubeconfig, kubectl helpers
	cmd      *exec.Cmd
	done     chan struct{}
	logPath  string // the program's own output
	fabric   fabric.Config
	nodes    []clusterNode
	failed   bool // a test using it failed: print the logs at the end
	workDir  string
	fileSeq  int
	stopOnce sync.Once
}

// clusterNode is one machine.
type clusterNode struct {
	name  string // node-1
	netns string // kubik-<id>-node-1
	ip    string // 10.240.7.11
}

var (
	clusterMu      sync.Mutex
	currentCluster *testCluster
	imagesOnce     sync.Once
	imagesDir      string
	imagesErr      error
)

// stopSharedCluster stops the running cluster, if any (TestMain).
func stopSharedCluster() {
	clusterMu.Lock()
	defer clusterMu.Unlock()
	if currentCluster != nil {
		currentCluster.stop()
		currentCluster = nil
	}
	if imagesDir != "" {
		os.RemoveAll(imagesDir)
	}
}

// sharedCluster returns the cluster of mode, starting it (and stopping the
// other mode's) if needed. It skips the test unless it runs as root.
func sharedCluster(t *testing.T, mode string) *testCluster {
	t.Helper()
	if testing.Short() {
		t.Skip("starts a three-machine cluster")
	}
	if os.Geteuid() != 0 {
		t.Skip("chapter 7's end-to-end tests run network namespaces, containerd and kube-proxy: they need root (CI runs them as root; locally: sudo go test ./ch07-kube-proxy/)")
	}
	testenv.Kubectl(t, kubectl133)
	clusterMu.Lock()
	defer clusterMu.Unlock()
	if currentCluster != nil && currentCluster.mode == mode {
		c := currentCluster
		t.Cleanup(func() {
			if t.Failed() {
				c.failed = true
			}
		})
		return c
	}
	if currentCluster != nil {
		currentCluster.stop()
		currentCluster = nil
	}
	c, err := startCluster(mode)
	if err != nil {
		t.Fatal(err)
	}
	currentCluster = c
	t.Cleanup(func() {
		if t.Failed() {
			c.failed = true
		}
	})
	return c
}

// buildImages writes the nodes' images once per test process: chapter 5's,
// the cluster DNS, the ingress controller, and the in-cluster client of
// testdata/incluster.
func buildImages() (string, error) {
	imagesOnce.Do(func() {
		imagesDir, imagesErr = os.MkdirTemp("", "kubik-ch07-images-")
		if imagesErr != nil {
			return
		}
		imagesErr = images.Build(imagesDir, dns.Image, ingress.Image, images.GoImage{File: "incluster.tar", Name: inClusterImage,
			Package: "kubik/ch07-kube-proxy/testdata/incluster"})
	})
	return imagesDir, imagesErr
}

func startCluster(mode string) (_ *testCluster, err error) {
	if err := containerd.CheckHost(); err != nil {
		return nil, err
	}
	imgs, err := buildImages()
	if err != nil {
		return nil, err
	}
	bin, err := testenv.BuildBinary("kubik/ch07-kube-proxy")
	if err != nil {
		return nil, err
	}
	work, err := os.MkdirTemp("", "kubik-ch07-e2e-"+mode+"-")
	if err != nil {
		return nil, err
	}
	c := &testCluster{mode: mode, dir: filepath.Join(work, "data"), bin: bin, workDir: work, done: make(chan struct{}),
		logPath: filepath.Join(work, "cluster.out")}
	defer func() {
		if err != nil {
			c.failed = true
			c.stop()
		}
	}()
	if c.fabric, err = cluster6.FabricConfig(c.dir, nodeCIDR, clusterCIDR, serviceCIDR, nil); err != nil {
		return nil, err
	}
	for i := 1; i <= numNodes; i++ {
		c.nodes = append(c.nodes, clusterNode{name: fmt.Sprintf("node-%d", i),
			netns: c.fabric.NamespaceName(fmt.Sprintf("node-%d", i)), ip: fmt.Sprintf("10.240.7.%d", 10+i)})
	}
	port, err := testenv.Port()
	if err != nil {
		return nil, err
	}
	logf, err := os.Create(c.logPath)
	if err != nil {
		return nil, err
	}
	defer logf.Close()
	c.cmd = exec.Command(bin, "--data-dir", c.dir, "--secure-port", strconv.Itoa(port), "--nodes", strconv.Itoa(numNodes),
		"--node-cidr", nodeCIDR, "--image-dir", imgs, "--proxy-mode", mode)
	c.cmd.Stdout, c.cmd.Stderr = logf, logf
	c.cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := c.cmd.Start(); err != nil {
		return nil, err
	}
	go func() { c.cmd.Wait(); close(c.done) }()
	c.api = &testenv.Cluster{URL: "https://127.0.0.1:" + strconv.Itoa(port), Port: port, DataDir: c.dir,
		Kubeconfig: filepath.Join(c.dir, "admin.kubeconfig")}
	if err := c.waitReady(); err != nil {
		return nil, err
	}
	return c, nil
}

// waitReady waits for the apiserver, the three Ready nodes and the cluster
// DNS Deployment.
func (c *testCluster) waitReady() error {
	hc := &http.Client{Timeout: 2 * time.Second, Transport: &http.Transport{TLSClientConfig: &tls.Config{InsecureSkipVerify: true}}}
	deadline := time.Now().Add(3 * time.Minute)
	check := func(what string, ok func() bool) error {
		for !ok() {
			select {
			case <-c.done:
				return fmt.Errorf("the chapter 7 program exited while waiting for %s:\n%s", what, tail(c.logPath, 60))
			default:
			}
			if time.Now().After(deadline) {
				return fmt.Errorf("waiting for %s: gave up after 3 minutes:\n%s", what, tail(c.logPath, 60))
			}
			time.Sleep(300 * time.Millisecond)
		}
		return nil
	}
	if err := check("the apiserver", func() bool {
		resp, err := hc.Get(c.api.URL + "/readyz")
		if err != nil {
			return false
		}
		resp.Body.Close()
		return resp.StatusCode == http.StatusOK
	}); err != nil {
		return err
	}
	if err := check("three Ready nodes", func() bool {
		out, err := c.kubectlErr("get", "nodes", "-o", `jsonpath={range .items[*]}{.status.conditions[?(@.type=="Ready")].status}{" "}{end}`)
		return err == nil && strings.Count(out, "True") == numNodes && c.noTaints()
	}); err != nil {
		return err
	}
	return check("the cluster DNS", func() bool {
		out, err := c.kubectlErr("get", "deployment", "coredns", "-n", "kube-system", "-o", "jsonpath={.status.availableReplicas}")
		return err == nil && out == "2"
	})
}

func (c *testCluster) noTaints() bool {
	out, err := c.kubectlErr("get", "nodes", "-o", "jsonpath={.items[*].spec.taints}")
	return err == nil && out == ""
}

// stop ends the program the clean way (SIGTERM: it stops the machines, then
// the control plane) and, if it hangs, kills it and removes what its
// machines left.
func (c *testCluster) stop() {
	c.stopOnce.Do(func() {
		if c.cmd != nil && c.cmd.Process != nil {
			syscall.Kill(c.cmd.Process.Pid, syscall.SIGTERM)
			select {
			case <-c.done:
			case <-time.After(5 * time.Minute):
				fmt.Fprintf(os.Stderr, "ch07 e2e: the %s cluster did not stop within 5 minutes of SIGTERM; killing it\n", c.mode)
				syscall.Kill(-c.cmd.Process.Pid, syscall.SIGKILL)
				<-c.done
				c.failed = true
			}
		}
		if left := fabric.Leftovers(c.fabric); len(left) != 0 {
			fmt.Fprintf(os.Stderr, "ch07 e2e: the %s cluster left behind: %s\n", c.mode, strings.Join(left, ", "))
			c.failed = true
		}
		if c.failed {
			fmt.Fprintf(os.Stderr, "ch07 e2e: logs of the %s cluster (last lines of %s and the nodes'):\n%s\n", c.mode, c.logPath, tail(c.logPath, 200))
			for _, n := range c.nodes {
				fmt.Fprintf(os.Stderr, "--- %s:\n%s\n", n.name, tail(filepath.Join(c.dir, "logs", n.name+".log"), 80))
			}
		}
		if c.dir != "" && c.bin != "" {
			exec.Command(c.bin, "clean-nodes", "--data-dir", c.dir).Run()
		}
		fabric.Cleanup(c.fabric)
		os.RemoveAll(c.workDir)
	})
}

// tail is the last n lines of a file.
func tail(path string, n int) string {
	b, _ := os.ReadFile(path)
	lines := strings.Split(strings.TrimRight(string(b), "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}

// kubectlErr runs kubectl 1.33 against the cluster.
func (c *testCluster) kubectlErr(args ...string) (string, error) {
	return c.kubectlIn("", args...)
}

// kubectlIn runs kubectl 1.33 with stdin.
func (c *testCluster) kubectlIn(stdin string, args ...string) (string, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, filepath.Join(testenv.KubectlDir, "kubectl."+kubectl133), append([]string{"--kubeconfig", c.api.Kubeconfig}, args...)...)
	cmd.Stdin = strings.NewReader(stdin)
	cmd.Env = append(os.Environ(), "HOME="+c.workDir)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	if err != nil {
		return strings.TrimSpace(out.String() + errb.String()), fmt.Errorf("kubectl %s: %v: %s", strings.Join(args, " "), err, errb.String())
	}
	return strings.TrimSpace(out.String()), nil
}

// k runs kubectl and fails the test on an error.
func (c *testCluster) k(t *testing.T, args ...string) string {
	t.Helper()
	out, err := c.kubectlErr(args...)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// apply applies a manifest.
func (c *testCluster) apply(t *testing.T, manifest string) {
	t.Helper()
	if out, err := c.kubectlIn(manifest, "apply", "-f", "-"); err != nil {
		t.Fatalf("%v\n%s\nmanifest:\n%s", err, out, manifest)
	}
}

// namespace creates a namespace for one test and deletes it (without
// waiting) when the test ends.
func (c *testCluster) namespace(t *testing.T, name string) string {
	t.Helper()
	c.k(t, "create", "namespace", name)
	t.Cleanup(func() { c.kubectlErr("delete", "namespace", name, "--wait=false") })
	// Pods need the namespace's default ServiceAccount, which the
	// ServiceAccount controller creates a moment later: a pod admitted
	// before it exists gets no token (on a real cluster it is refused).
	eventually(t, "the default ServiceAccount of "+name, func() (string, bool) {
		out, err := c.kubectlErr("get", "serviceaccount", "default", "-n", name, "-o", "name")
		return out, err == nil && out == "serviceaccount/default"
	})
	return name
}

// nodeExec runs a command in machine i's network namespace (0-based), with
// the host's binaries: curl, iptables-save, nft, conntrack.
func (c *testCluster) nodeExec(i int, args ...string) (string, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	out, err := exec.CommandContext(ctx, "ip", append([]string{"netns", "exec", c.nodes[i].netns}, args...)...).CombinedOutput()
	return string(out), err
}

// curl fetches url from machine i; a failure is returned, not fatal.
func (c *testCluster) curl(i int, url string) (string, error) {
	out, err := c.nodeExec(i, "curl", "-sS", "--max-time", "10", url)
	return strings.TrimSpace(out), err
}

// podExec runs a command in a pod's container.
func (c *testCluster) podExec(ns, pod string, cmd ...string) (string, error) {
	return c.kubectlErr(append([]string{"exec", "-n", ns, pod, "--"}, cmd...)...)
}

// eventually polls f until it is done (generous deadline: a hang becomes
// a failure showing what f saw last; not a performance bound).
func eventually(t *testing.T, what string, f func() (string, bool)) {
	t.Helper()
	testenv.Eventually(t, what, 3*time.Minute, f)
}

// waitRollout waits until a Deployment's pods are all available.
func (c *testCluster) waitRollout(t *testing.T, ns, name string) {
	t.Helper()
	if out, err := c.kubectlErr("rollout", "status", "-n", ns, "deployment/"+name, "--timeout=180s"); err != nil {
		t.Fatalf("%v\n%s\n%s", err, out, c.k(t, "get", "pods", "-n", ns, "-o", "wide"))
	}
}

// podsOf lists "name ip node" of the pods matching selector.
func (c *testCluster) podsOf(t *testing.T, ns, selector string) []podInfo {
	t.Helper()
	out := c.k(t, "get", "pods", "-n", ns, "-l", selector, "-o",
		`jsonpath={range .items[*]}{.metadata.name} {.status.podIP} {.spec.nodeName}{"\n"}{end}`)
	var pods []podInfo
	for _, l := range strings.Split(out, "\n") {
		if f := strings.Fields(l); len(f) == 3 {
			pods = append(pods, podInfo{name: f[0], ip: f[1], node: f[2]})
		}
	}
	return pods
}

type podInfo struct{ name, ip, node string }
