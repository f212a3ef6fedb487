package main_test

// The cloud-controller-manager binary against a real chapter 7 cluster
// (two machines on the node network 10.240.8.0/24, kube-proxy on each):
// a LoadBalancer Service gets an EXTERNAL-IP that answers from the host,
// the nodes' pod ranges are routed through the balancer, a Node without a
// machine is deleted, a Node with the uninitialized taint is initialized,
// a standby manager takes over from a dead leader, and deleting the
// Services releases their addresses.

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/containernetworking/plugins/pkg/ns"

	"kubik/ch03-scheduler/clientgo/rest"
	"kubik/ch06-cni/cluster6"
	"kubik/ch08-full-cluster/cloudcontroller"
	"kubik/ch08-full-cluster/cloudprovider/kubik"
	"kubik/internal/leaderelectiontest"
	"kubik/internal/testenv"
)

// TestMain removes the binaries the test built.
func TestMain(m *testing.M) { testenv.Main(m) }

// nodeCIDR is this test's node network (other chapters' tests use
// 10.240.0, .6 and .7).
const nodeCIDR = "10.240.8.0/24"

// wait is the deadline of every poll: it turns a hang into a failure.
const wait = 3 * time.Minute

type e2e struct {
	t          *testing.T
	dir        string
	kubectl    string
	kubeconfig string
	home       string
}

func (e *e2e) run(args ...string) (string, error) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, e.kubectl, append([]string{"--kubeconfig", e.kubeconfig}, args...)...)
	cmd.Env = append(os.Environ(), "HOME="+e.home, "KUBECONFIG=")
	out, err := cmd.CombinedOutput()
	return strings.TrimSpace(string(out)), err
}

func (e *e2e) must(args ...string) string {
	e.t.Helper()
	out, err := e.run(args...)
	if err != nil {
		e.t.Fatalf("kubectl %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return out
}

// until polls kubectl args until ok accepts its output.
func (e *e2e) until(what string, ok func(out string) bool, args ...string) string {
	e.t.Helper()
	var out string
	testenv.Eventually(e.t, what, wait, func() (string, bool) {
		var err error
		out, err = e.run(args...)
		return out, err == nil && ok(out)
	})
	return out
}

func TestCloudControllerManager(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("needs root: the cluster's machines and the balancer are network namespaces")
	}
	for _, tool := range []string{"containerd", "runc", "nft", "nsenter", "ip"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("%s not installed", tool)
		}
	}
	if out, _ := exec.Command("ip", "-4", "route", "show", nodeCIDR).Output(); len(bytes.TrimSpace(out)) > 0 {
		t.Fatalf("%s is already routed on this host (another run?): %s", nodeCIDR, out)
	}
	e := &e2e{t: t, dir: t.TempDir(), kubectl: testenv.Kubectl(t, "1.33"), home: t.TempDir()}
	e.kubeconfig = filepath.Join(e.dir, "admin.kubeconfig")
	ch07 := testenv.Build(t, "kubik/ch07-kube-proxy")
	ccm := testenv.Build(t, "kubik/ch08-full-cluster/cmd/cloud-controller-manager")
	mkimages := testenv.Build(t, "kubik/ch07-kube-proxy/cmd/mkimages")
	if out, err := exec.Command(mkimages, "-out", filepath.Join(e.dir, "images")).CombinedOutput(); err != nil {
		t.Fatalf("mkimages: %v\n%s", err, out)
	}

	// The cluster: chapter 7's, two machines, no cluster DNS.
	port, err := testenv.Port()
	if err != nil {
		t.Fatal(err)
	}
	cluster, err := testenv.Spawn("ch07", filepath.Join(e.dir, "cluster.log"), ch07, "--data-dir", e.dir,
		"--secure-port", strconv.Itoa(port), "--nodes", "2", "--node-cidr", nodeCIDR, "--dns-replicas", "0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cluster.Stop(3 * time.Minute) // SIGTERM: the cluster stops its machines
		// Whatever a stop cut short: the machines, the bridge, the guard
		// routes, and the balancer (its namespace is the fabric's too).
		exec.Command(ch07, "clean-nodes", "--data-dir", e.dir, "--node-cidr", nodeCIDR).Run()
		if t.Failed() {
			logTail(t, cluster.LogPath)
		}
	})
	e.until("two Ready nodes", func(out string) bool { return strings.Count(out, " Ready ") == 2 }, "get", "nodes", "--no-headers")

	// The cloud: the cluster's fabric, the pool .200-.250.
	fcfg, err := cluster6.FabricConfig(e.dir, nodeCIDR, "10.244.0.0/16", "10.96.0.0/12", nil)
	if err != nil {
		t.Fatal(err)
	}
	balancerNS := fcfg.NamespaceName("balancer")
	cfg, err := kubik.ConfigFor(fcfg, filepath.Join(e.dir, "cloud", "state.json"))
	if err != nil {
		t.Fatal(err)
	}
	yaml, err := cfg.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	cloudConfig := writeFile(t, filepath.Join(e.dir, "cloud.yaml"), string(yaml))
	t.Logf("--cloud-config:\n%s", yaml)
	cloud, err := kubik.New(cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cloud.Teardown() }) // after the manager is killed

	// The manager, with a certificate of its own and its ClusterRole.
	admin, err := rest.New(e.kubeconfig, "e2e")
	if err != nil {
		t.Fatal(err)
	}
	if err := cloudcontroller.EnsureRBAC(context.Background(), admin); err != nil {
		t.Fatal(err)
	}
	ccmKubeconfig := filepath.Join(e.dir, "ccm.kubeconfig")
	if out, err := exec.Command(ch07, "kubeconfig", "--data-dir", e.dir, "--user", cloudcontroller.UserName, "--out", ccmKubeconfig).CombinedOutput(); err != nil {
		t.Fatalf("kubeconfig: %v\n%s", err, out)
	}
	// Two of them, as the control plane runs them: one leads.
	start := func() *testenv.Process {
		return testenv.StartProcess(t, ccm, "--kubeconfig", ccmKubeconfig, "--cloud-provider=kubik", "--cloud-config", cloudConfig,
			"--cluster-cidr=10.244.0.0/16", "--leader-elect=true", "--node-monitor-period=2s")
	}
	a, b := start(), start()
	holder := func() string {
		out, _ := e.run("-n", "kube-system", "get", "lease", "cloud-controller-manager", "-o", "jsonpath={.spec.holderIdentity}")
		return out
	}
	leader, standby := leaderelectiontest.WaitForLeader(t, "one cloud-controller-manager leads", holder, a, b)

	// A Deployment behind a LoadBalancer Service.
	e.must("create", "deployment", "web", "--image=kubik.local/demo:1.0", "--replicas=2")
	e.must("expose", "deployment", "web", "--type=LoadBalancer", "--port=80", "--target-port=8080")
	svc := e.until("EXTERNAL-IP in kubectl get svc", func(out string) bool { return strings.Contains(out, "10.240.8.200") }, "get", "svc", "web")
	t.Logf("kubectl get svc web:\n%s", svc)
	e.until("EnsuredLoadBalancer", func(out string) bool {
		return strings.Contains(out, "EnsuringLoadBalancer") && strings.Contains(out, "EnsuredLoadBalancer")
	}, "get", "events", "--field-selector", "involvedObject.kind=Service,involvedObject.name=web")

	// curl http://10.240.8.200 from the host: both pods answer.
	pods := e.until("two pods with IPs", func(out string) bool { return len(strings.Fields(out)) == 2 },
		"get", "pods", "-l", "app=web", "-o", "jsonpath={.items[*].status.podIP}")
	// A new connection each time (the balancer picks a node per
	// connection), and never a proxy from the environment.
	hc := &http.Client{Timeout: 3 * time.Second, Transport: &http.Transport{DisableKeepAlives: true}}
	seen := map[string]bool{}
	testenv.Eventually(t, "both pods answer at http://10.240.8.200", wait, func() (string, bool) {
		body, err := get(hc, "http://10.240.8.200/")
		if err != nil {
			return err.Error(), false
		}
		for _, ip := range strings.Fields(pods) {
			if strings.Contains(body, "("+ip+")") {
				seen[ip] = true
			}
		}
		return fmt.Sprintf("%s; seen %v", body, seen), len(seen) == 2
	})

	// The balancer's health checks reach kube-proxy on each node.
	for _, ip := range []string{"10.240.8.11", "10.240.8.12"} {
		testenv.Eventually(t, "kube-proxy's /healthz on "+ip+" from the balancer", wait, func() (string, bool) {
			body, err := getFromNS("/run/netns/"+balancerNS, "http://"+ip+":10256/healthz")
			return body + errText(err), err == nil
		})
	}

	// The routes: each node's pod range via the node, in the balancer's
	// table; the Nodes say so; from the balancer a pod answers directly.
	for _, n := range []string{"node-1", "node-2"} {
		e.until(n+" NetworkUnavailable=False RouteCreated", func(out string) bool { return out == "False RouteCreated" },
			"get", "node", n, "-o", `jsonpath={.status.conditions[?(@.type=="NetworkUnavailable")].status} {.status.conditions[?(@.type=="NetworkUnavailable")].reason}`)
	}
	routes := nsOutput(t, balancerNS, "ip", "route", "show", "proto", "75")
	if strings.Count(routes, "via 10.240.8.1") != 2 {
		t.Errorf("the balancer's routes:\n%s", routes)
	}
	podIP := strings.Fields(pods)[0]
	testenv.Eventually(t, "a pod reached through the balancer's routes", wait, func() (string, bool) {
		body, err := getFromNS("/run/netns/"+balancerNS, "http://"+podIP+":8080/")
		return body + errText(err), err == nil && strings.Contains(body, "("+podIP+")")
	})

	// A Node without a machine is deleted; one with the uninitialized
	// taint gets its provider ID and loses the taint.
	e.must("create", "-f", writeFile(t, filepath.Join(e.dir, "node-9.yaml"), "apiVersion: v1\nkind: Node\nmetadata:\n  name: node-9\n"))
	e.until("node-9 deleted", func(out string) bool { return !strings.Contains(out, "node/node-9") }, "get", "nodes", "-o", "name")
	e.until("DeletingNode", func(out string) bool {
		return strings.Contains(out, "Deleting node node-9 because it does not exist in the cloud provider")
	}, "get", "events", "--field-selector", "involvedObject.name=node-9")
	e.must("taint", "node", "node-2", "node.cloudprovider.kubernetes.io/uninitialized=true:NoSchedule")
	e.until("node-2 initialized", func(out string) bool { return out == "kubik://node-2 netns" }, "get", "node", "node-2",
		"-o", `jsonpath={.spec.providerID} {.metadata.labels.node\.kubernetes\.io/instance-type}{.spec.taints[?(@.key=="node.cloudprovider.kubernetes.io/uninitialized")].key}`)

	// The leader dies without releasing its Lease: the standby takes over,
	// with the same cloud (the records are shared), and serves the next
	// Service; the first one's balancer never stopped.
	leader.Kill()
	leaderelectiontest.WaitForTakeover(t, holder, standby)
	e.must("expose", "deployment", "web", "--name=api", "--type=LoadBalancer", "--port=8080")
	e.until("api's EXTERNAL-IP", func(out string) bool { return strings.Contains(out, "10.240.8.201") }, "get", "svc", "api")
	for _, url := range []string{"http://10.240.8.201:8080/", "http://10.240.8.200/"} {
		testenv.Eventually(t, url+" after the failover", wait, func() (string, bool) {
			body, err := get(hc, url)
			return body + errText(err), err == nil && strings.HasPrefix(body, "Hello from web-")
		})
	}

	// Deleting the Services releases the addresses.
	e.must("delete", "svc", "web", "api", "--wait=true")
	e.until("DeletedLoadBalancer", func(out string) bool { return strings.Contains(out, "DeletedLoadBalancer") },
		"get", "events", "--field-selector", "involvedObject.kind=Service,involvedObject.name=web")
	if addrs := nsOutput(t, balancerNS, "ip", "-4", "addr", "show", "dev", "eth0"); strings.Contains(addrs, "10.240.8.200/32") || strings.Contains(addrs, "10.240.8.201/32") {
		t.Errorf("a balancer's address is still on the balancer:\n%s", addrs)
	}
	if table := nsOutput(t, balancerNS, "nft", "list", "table", "ip", kubik.TableName); strings.Contains(table, "dnat to") {
		t.Errorf("the balancer still forwards:\n%s", table)
	}
}

func get(hc *http.Client, url string) (string, error) {
	resp, err := hc.Get(url)
	if err != nil {
		return "", err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(io.LimitReader(resp.Body, 1<<16))
	if err == nil && resp.StatusCode != http.StatusOK {
		err = fmt.Errorf("HTTP %d", resp.StatusCode)
	}
	return strings.TrimSpace(string(b)), err
}

// getFromNS is an HTTP GET whose connection starts in the namespace.
func getFromNS(nsPath, url string) (string, error) {
	tr := &http.Transport{DialContext: func(ctx context.Context, network, addr string) (c net.Conn, err error) {
		err = ns.WithNetNSPath(nsPath, func(ns.NetNS) error {
			c, err = (&net.Dialer{Timeout: 3 * time.Second}).DialContext(ctx, network, addr)
			return err
		})
		return c, err
	}}
	defer tr.CloseIdleConnections()
	return get(&http.Client{Transport: tr, Timeout: 5 * time.Second}, url)
}

func nsOutput(t *testing.T, name string, argv ...string) string {
	t.Helper()
	out, err := exec.Command("ip", append([]string{"netns", "exec", name}, argv...)...).CombinedOutput()
	if err != nil {
		t.Fatalf("ip netns exec %s %s: %v\n%s", name, strings.Join(argv, " "), err, out)
	}
	return string(out)
}

func writeFile(t *testing.T, path, content string) string {
	t.Helper()
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func logTail(t *testing.T, path string) {
	b, _ := os.ReadFile(path)
	if len(b) > 20000 {
		b = b[len(b)-20000:]
	}
	t.Logf("%s (tail):\n%s", path, b)
}

func errText(err error) string {
	if err == nil {
		return ""
	}
	return " (" + err.Error() + ")"
}
