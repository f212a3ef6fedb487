//go:build linux

package main_test

// End-to-end tests of chapter 6 as root: the ch06 binary runs the control
// plane and three machines (network namespaces with containerd, the
// kubelet and the node agent) and real pods on them, once with the host-gw
// backend and once with VXLAN. One cluster per backend serves all the
// checks of that backend, in order; a small cluster without node IPAM
// shows the order of a node's bring-up.

import (
	"encoding/json"
	"fmt"
	"net/netip"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"syscall"
	"testing"

	"kubik/ch06-cni/kubikcni"
	"kubik/internal/testenv"
)

// The clusters of TestPodNetwork give every node a /18: the cluster CIDR
// holds four blocks, so that a freed block can be told from a fresh one.
const nodeMaskSize = "18"

func TestPodNetwork(t *testing.T) {
	for _, backend := range []string{"host-gw", "vxlan"} {
		t.Run(backend, func(t *testing.T) { testPodNetwork(t, backend) })
	}
}

func testPodNetwork(t *testing.T, backend string) {
	c := startCluster(t, backend, 3, 3, "--node-cidr-mask-size="+nodeMaskSize, "--metric-resolution=2s")

	// The pods: a client on node-1, a demo server on every node, and a
	// file server (busybox httpd with 1 MiB of random bytes) on node-2.
	for i := 1; i <= 3; i++ {
		c.apply(t, fmt.Sprintf("web-%d.yaml", i), podOn(fmt.Sprintf("web-%d", i), fmt.Sprintf("node-%d", i), "kubik.local/demo:1.0", ""))
	}
	c.apply(t, "client.yaml", podOn("client", "node-1", "busybox:1.35", `[sleep, "3600"]`))
	c.apply(t, "files.yaml", podOn("files", "node-2", "busybox:1.35",
		`[sh, -c, 'mkdir -p /srv && dd if=/dev/urandom of=/srv/blob bs=1024 count=1024 2>/dev/null && sha256sum /srv/blob && exec httpd -f -vv -p 8000 -h /srv']`))
	c.waitPodsReady(t, "web-1", "web-2", "web-3", "client", "files")

	t.Run("nodes", func(t *testing.T) { checkNodes(t, c) })
	t.Run("pod-to-pod", func(t *testing.T) { checkPodToPod(t, c) })
	t.Run("transfer-1MiB", func(t *testing.T) { checkTransfer(t, c) })
	t.Run("agent-restart", func(t *testing.T) { checkAgentRestart(t, c) })
	t.Run("kubectl-top", func(t *testing.T) { checkTop(t, c) })
	t.Run("node-deleted", func(t *testing.T) { checkNodeDeleted(t, c) })
}

// checkTop: chapter 5's metrics server runs here too, on the bridge, and
// scrapes every machine's kubelet: `kubectl top` shows each node and a pod.
func checkTop(t *testing.T, c *cluster) {
	eventually(t, "kubectl top nodes lists node-1, node-2 and node-3", func() (string, bool) {
		r := c.c.Kubectl(t, kubectl133, c.dir, "top", "nodes")
		ok := r.ExitCode == 0
		for _, n := range c.nodes {
			ok = ok && regexp.MustCompile(`(?m)^`+n+`\s+\d+m\s+\d+%\s+\d+Mi\s+\d+%\s*$`).MatchString(r.Stdout)
		}
		return r.Combined(), ok
	})
	eventually(t, "kubectl top pod web-2", func() (string, bool) {
		r := c.c.Kubectl(t, kubectl133, c.dir, "top", "pod", "web-2")
		return r.Combined(), regexp.MustCompile(`^NAME\s+CPU\(cores\)\s+MEMORY\(bytes\)\s*\nweb-2\s+\d+m\s+\d+Mi\s*$`).MatchString(r.Stdout)
	})
}

// podOn is a pod pinned to a node by its hostname label (the scheduler
// places it); command is YAML flow, or "" for the image's own.
func podOn(name, node, image, command string) string {
	m := fmt.Sprintf(`apiVersion: v1
kind: Pod
metadata:
  name: %s
spec:
  nodeSelector: {kubernetes.io/hostname: %s}
  terminationGracePeriodSeconds: 1
  containers:
  - name: main
    image: %s
`, name, node, image)
	if command != "" {
		m += "    command: " + command + "\n"
	}
	return m
}

// checkNodes: every node is Ready with its InternalIP on the node network,
// a podCIDR of its own, the agent's annotations, and routes to every other
// node's pods — as both kubectl versions print them.
func checkNodes(t *testing.T, c *cluster) {
	for _, version := range []string{kubectl133, kubectl127} {
		wide := c.c.MustKubectl(t, version, c.dir, "get", "nodes", "-o", "wide")
		for i, n := range c.nodes {
			row := regexp.MustCompile(`(?m)^` + n + `\s+Ready\s+<none>\s+\S+\s+v1\.35\.4-kubik\s+10\.240\.6\.` + fmt.Sprint(11+i) + `\s+<none>\s+.*containerd://`)
			if !row.MatchString(wide) {
				t.Errorf("kubectl %s get nodes -o wide: no Ready row for %s with INTERNAL-IP 10.240.6.%d:\n%s", version, n, 11+i, wide)
			}
		}
	}
	cluster := netip.MustParsePrefix(clusterCIDR)
	seen := map[netip.Prefix]string{}
	for _, n := range c.nodes {
		out := c.k(t, "get", "node", n, "-o", `jsonpath={.spec.podCIDR} {.spec.podCIDRs} {.metadata.annotations.kubik\.io/backend-type} {.metadata.annotations.kubik\.io/public-ip} {.status.conditions[?(@.type=="Ready")].message}`)
		f := strings.SplitN(out, " ", 5)
		if len(f) != 5 {
			t.Fatalf("%s: %q", n, out)
		}
		p, err := netip.ParsePrefix(f[0])
		if err != nil || p.Bits() != 18 || !cluster.Contains(p.Addr()) || f[1] != `["`+f[0]+`"]` {
			t.Errorf("%s: podCIDR %q podCIDRs %s, want one /%s of %s in both", n, f[0], f[1], nodeMaskSize, clusterCIDR)
		}
		if other, dup := seen[p]; dup {
			t.Errorf("%s and %s share podCIDR %s", n, other, p)
		}
		seen[p] = n
		if f[2] != c.backend || f[3] != c.nodeIP(n) || f[4] != "kubelet is posting ready status" {
			t.Errorf("%s: backend-type %q public-ip %q Ready message %q", n, f[2], f[3], f[4])
		}
	}
	for _, n := range c.nodes {
		if got, want := c.agentRoutes(t, n), c.wantRoutes(t, n); !slices.Equal(got, want) {
			t.Errorf("%s: routes to the pods of the other nodes\n%s\nwant\n%s", n, strings.Join(got, "\n"), strings.Join(want, "\n"))
		}
	}
}

// checkPodToPod: pods reach pods on the same and on other nodes by pod IP,
// and the server sees the client's pod IP (no NAT between pods).
func checkPodToPod(t *testing.T, c *cluster) {
	clientIP := c.podIP(t, "client")
	c.checkPodIPInNodeCIDR(t, "client", "node-1")
	for i := 1; i <= 3; i++ {
		web := fmt.Sprintf("web-%d", i)
		ip := c.podIP(t, web)
		c.checkPodIPInNodeCIDR(t, web, fmt.Sprintf("node-%d", i))
		want := fmt.Sprintf("Hello from %s (%s)", web, ip)
		c.wget(t, "client", "http://"+ip+":8080/", want)
		eventually(t, web+" logs the client's pod IP", func() (string, bool) {
			logs := c.k(t, "logs", web)
			return logs, strings.Contains(logs, "GET / from "+clientIP+":")
		})
	}
	// The other way, node-2 → node-1, with kubectl 1.27.
	web1 := c.podIP(t, "web-1")
	filesIP := c.podIP(t, "files")
	eventually(t, "files reaches web-1", func() (string, bool) {
		r := c.c.Kubectl(t, kubectl127, c.dir, "exec", "files", "--", "timeout", "10", "wget", "-q", "-O-", "http://"+web1+":8080/")
		return r.Combined(), r.ExitCode == 0 && strings.TrimSpace(r.Stdout) == "Hello from web-1 ("+web1+")"
	})
	if logs := c.k(t, "logs", "web-1"); !strings.Contains(logs, "GET / from "+filesIP+":") {
		t.Errorf("web-1 does not log files' pod IP %s:\n%s", filesIP, logs)
	}
}

// checkTransfer: 1 MiB of random bytes from node-2 to node-1 arrives
// intact; with VXLAN it crosses the kubik.1 devices of both nodes.
func checkTransfer(t *testing.T, c *cluster) {
	const size = 1 << 20
	var want string
	eventually(t, "files' checksum in its log", func() (string, bool) {
		logs := c.k(t, "logs", "files")
		if f := strings.Fields(logs); len(f) >= 2 && f[1] == "/srv/blob" {
			want = f[0]
		}
		return logs, want != ""
	})
	vxlan := c.backend == "vxlan"
	var before1, before2 linkStats
	if vxlan {
		before1, before2 = c.linkStats(t, "node-1", "kubik.1"), c.linkStats(t, "node-2", "kubik.1")
	} else if out, err := c.ipMayFail("node-1", "link", "show", "kubik.1"); err == nil {
		t.Errorf("host-gw: a VXLAN device on node-1:\n%s", out)
	}
	ip := c.podIP(t, "files")
	out := c.k(t, "exec", "client", "--", "sh", "-c",
		"timeout 60 wget -q -O /tmp/blob http://"+ip+":8000/blob && wc -c < /tmp/blob && sha256sum < /tmp/blob && rm /tmp/blob")
	if f := strings.Fields(out); len(f) != 3 || f[0] != fmt.Sprint(size) || f[1] != want || f[2] != "-" {
		t.Errorf("received %q, want %d bytes with sha256 %s", out, size, want)
	}
	if logs := c.k(t, "logs", "files"); !strings.Contains(logs, "[::ffff:"+c.podIP(t, "client")+"]:") || !strings.Contains(logs, "url:/blob") {
		t.Errorf("httpd did not log the client's pod IP:\n%s", logs)
	}
	if vxlan {
		after1, after2 := c.linkStats(t, "node-1", "kubik.1"), c.linkStats(t, "node-2", "kubik.1")
		if rx := after1.RX - before1.RX; rx < size {
			t.Errorf("node-1's kubik.1 received %d bytes during the transfer, want at least %d", rx, size)
		}
		if tx := after2.TX - before2.TX; tx < size {
			t.Errorf("node-2's kubik.1 sent %d bytes during the transfer, want at least %d", tx, size)
		}
	}
}

// checkAgentRestart: routes (and VXLAN's FDB and neighbour entries) lost
// on node-1 come back when its node process restarts its kubelet and agent
// (SIGHUP), each once; the pods keep running.
func checkAgentRestart(t *testing.T, c *cluster) {
	peer := c.podCIDR(t, "node-2")
	c.ip(t, "node-1", "route", "del", peer)
	if c.backend == "vxlan" {
		mac := c.vtepMAC(t, "node-2")
		c.bridge(t, "node-1", "fdb", "del", mac, "dev", "kubik.1", "dst", c.nodeIP("node-2"))
		c.ip(t, "node-1", "neigh", "del", netip.MustParsePrefix(peer).Addr().String(), "dev", "kubik.1")
	}
	if got := c.agentRoutes(t, "node-1"); slices.Equal(got, c.wantRoutes(t, "node-1")) {
		t.Fatalf("the route to node-2's pods is still there: %v", got)
	}
	clientID := c.k(t, "get", "pod", "client", "-o", "jsonpath={.status.containerStatuses[0].containerID}")
	restarts := strings.Count(c.nodeLog("node-1"), `msg="node agent restarting"`)
	if err := syscall.Kill(c.nodePID(t, "node-1"), syscall.SIGHUP); err != nil {
		t.Fatal(err)
	}
	eventually(t, "node-1's agent restarts and restores the routes", func() (string, bool) {
		got := c.agentRoutes(t, "node-1")
		return strings.Join(got, "\n"), strings.Count(c.nodeLog("node-1"), `msg="node agent restarting"`) > restarts &&
			slices.Equal(got, c.wantRoutes(t, "node-1"))
	})
	// Each destination once: no second route with another metric, no
	// second FDB or neighbour entry.
	for _, p := range c.peerCIDRs(t, "node-1") {
		if out := strings.TrimSpace(c.ip(t, "node-1", "route", "show", "exact", p)); strings.Count(out, "\n") != 0 || out == "" {
			t.Errorf("node-1: routes for %s:\n%s", p, out)
		}
	}
	if c.backend == "vxlan" {
		eventually(t, "node-1's FDB and neighbour entries restored, once each", func() (string, bool) {
			fdb, neigh := c.bridge(t, "node-1", "fdb", "show", "dev", "kubik.1"), c.ip(t, "node-1", "neigh", "show", "dev", "kubik.1")
			ok := true
			for _, n := range []string{"node-2", "node-3"} {
				ok = ok && strings.Count(fdb, c.vtepMAC(t, n)+" dst "+c.nodeIP(n)+" ") == 1 &&
					strings.Count(neigh, netip.MustParsePrefix(c.podCIDR(t, n)).Addr().String()+" lladdr "+c.vtepMAC(t, n)) == 1
			}
			return fdb + neigh, ok && strings.Count(fdb, " dst ") == 2 && strings.Count(neigh, "PERMANENT") == 2
		})
	}
	c.wget(t, "client", "http://"+c.podIP(t, "web-2")+":8080/", "Hello from web-2 ("+c.podIP(t, "web-2")+")")
	if id := c.k(t, "get", "pod", "client", "-o", "jsonpath={.status.containerStatuses[0].containerID}"); id != clientID {
		t.Errorf("client's container changed across the kubelet's restart: %s, was %s", id, clientID)
	}
}

// checkNodeDeleted: a deleted Node's routes go from every other node and
// its block returns to the pool — with the range full, the node
// re-registering (its kubelet restarted) gets that very block back, and its
// pods are reachable again.
func checkNodeDeleted(t *testing.T, c *cluster) {
	old := c.podCIDR(t, "node-3")
	var mac string
	if c.backend == "vxlan" {
		mac = c.vtepMAC(t, "node-3")
	}
	// A Node without a machine takes the fourth and last block.
	c.apply(t, "spare.yaml", "apiVersion: v1\nkind: Node\nmetadata:\n  name: spare\n")
	t.Cleanup(func() { c.c.Kubectl(t, kubectl133, c.dir, "delete", "node", "spare", "--ignore-not-found") })
	eventually(t, "the spare Node gets the last block", func() (string, bool) {
		p := c.podCIDR(t, "spare")
		return p, p != ""
	})

	c.c.MustKubectl(t, kubectl127, c.dir, "delete", "node", "node-3")
	for _, n := range []string{"node-1", "node-2"} {
		eventually(t, n+" drops the routes to node-3's pods", func() (string, bool) {
			routes := c.ip(t, n, "route")
			gone := !strings.Contains(routes, old+" ")
			if mac != "" {
				fdb, neigh := c.bridge(t, n, "fdb", "show", "dev", "kubik.1"), c.ip(t, n, "neigh", "show", "dev", "kubik.1")
				gone = gone && !strings.Contains(fdb, mac) && !strings.Contains(neigh, mac)
				routes += fdb + neigh
			}
			return routes, gone
		})
	}
	// The other nodes still reach each other.
	c.wget(t, "client", "http://"+c.podIP(t, "web-2")+":8080/", "Hello from web-2 ("+c.podIP(t, "web-2")+")")

	// node-3's kubelet registers the Node again when it restarts.
	if err := syscall.Kill(c.nodePID(t, "node-3"), syscall.SIGHUP); err != nil {
		t.Fatal(err)
	}
	c.waitReady(t, 3)
	var got string
	eventually(t, "node-3 gets a podCIDR again", func() (string, bool) {
		got = c.podCIDR(t, "node-3")
		return got, got != ""
	})
	if got != old {
		t.Fatalf("node-3 registered again got podCIDR %s, want its freed block %s (the only free one)", got, old)
	}
	for _, n := range c.nodes {
		eventually(t, n+"'s routes after node-3 is back", func() (string, bool) {
			got := c.agentRoutes(t, n)
			return strings.Join(got, "\n"), slices.Equal(got, c.wantRoutes(t, n))
		})
	}
	// web-3 ran on through all of it, and is reachable again.
	ip := c.podIP(t, "web-3")
	c.wget(t, "client", "http://"+ip+":8080/", "Hello from web-3 ("+ip+")")
}

// TestNodeNotReadyUntilNetworkConfigured: without a podCIDR the node agent
// cannot configure the node's network, so there is no CNI configuration,
// containerd reports its network not ready and the kubelet keeps the Node
// NotReady with upstream's message. A podCIDR set by hand lets the agent
// finish: the subnet file first, the CNI configuration last, and the Node
// turns Ready; pods get addresses of that subnet. The node execs the
// kubik-cni binary given with --cni-plugin, not the chapter's program.
func TestNodeNotReadyUntilNetworkConfigured(t *testing.T) {
	plugin := testenv.Build(t, "kubik/ch06-cni/cmd/kubik-cni")
	c := startCluster(t, "host-gw", 1, 0, "--allocate-node-cidrs=false", "--cni-plugin="+plugin)
	const want = "container runtime network not ready: NetworkReady=false reason:NetworkPluginNotReady message:Network plugin returns error: cni plugin not initialized"
	eventually(t, "node-1 registered NotReady", func() (string, bool) {
		r := c.c.Kubectl(t, kubectl133, c.dir, "get", "node", "node-1", "-o", `jsonpath={.status.conditions[?(@.type=="Ready")].status}|{.status.conditions[?(@.type=="Ready")].reason}|{.status.conditions[?(@.type=="Ready")].message}`)
		return r.Combined(), r.Stdout == "False|KubeletNotReady|"+want
	})
	eventually(t, "the agent waits for the podCIDR", func() (string, bool) {
		log := c.nodeLog("node-1")
		return log, strings.Contains(log, `msg="waiting for the node's spec.podCIDR"`) && strings.Contains(log, `reason="no spec.podCIDR yet"`)
	})
	for _, version := range []string{kubectl133, kubectl127} {
		out := c.c.MustKubectl(t, version, c.dir, "get", "nodes")
		if !regexp.MustCompile(`(?m)^node-1\s+NotReady\s+<none>\s`).MatchString(out) {
			t.Errorf("kubectl %s get nodes:\n%s", version, out)
		}
	}
	nodeDir := filepath.Join(c.dir, "nodes", "node-1")
	conflist := filepath.Join(nodeDir, "kubelet", "containerd", "net.d", "10-kubik.conflist")
	for _, f := range []string{filepath.Join(nodeDir, "subnet.env"), conflist} {
		if _, err := os.Stat(f); !os.IsNotExist(err) {
			t.Errorf("%s exists before the node has a podCIDR (%v)", f, err)
		}
	}

	c.k(t, "patch", "node", "node-1", "--type=merge", "-p", `{"spec":{"podCIDR":"10.244.9.0/24","podCIDRs":["10.244.9.0/24"]}}`)
	c.waitReady(t, 1)
	sc, err := kubikcni.ReadSubnetFile(filepath.Join(nodeDir, "subnet.env"))
	if err != nil || sc.Subnet.String() != "10.244.9.0/24" || sc.Network.String() != clusterCIDR {
		t.Errorf("subnet file: %+v, %v", sc, err)
	}
	log := c.nodeLog("node-1")
	subnetAt, confAt := strings.Index(log, `msg="subnet file written"`), strings.Index(log, `msg="CNI configuration written"`)
	if subnetAt < 0 || confAt < subnetAt {
		t.Errorf("the subnet file must be written before the CNI configuration (at %d, %d):\n%s", subnetAt, confAt, log)
	}
	c.apply(t, "pod.yaml", podOn("first", "node-1", "busybox:1.35", `[sleep, "3600"]`))
	c.waitPodsReady(t, "first")
	if ip := c.podIP(t, "first"); !strings.HasPrefix(ip, "10.244.9.") {
		t.Errorf("pod IP %s, not in the node's 10.244.9.0/24", ip)
	}
	if target, err := os.Readlink(filepath.Join(nodeDir, "kubelet", "cni", "bin", kubikcni.PluginType)); err != nil || target != plugin {
		t.Errorf("the node's kubik-cni links to %q (%v), want --cni-plugin %s", target, err, plugin)
	}
}

// The helpers below read pods, nodes and a machine's tables.

// waitPodsReady waits until every one of pods is Ready.
func (c *cluster) waitPodsReady(t *testing.T, pods ...string) {
	t.Helper()
	for _, pod := range pods {
		eventually(t, pod+" Ready", func() (string, bool) {
			r := c.c.Kubectl(t, kubectl133, c.dir, "get", "pod", pod, "-o", `jsonpath={.status.conditions[?(@.type=="Ready")].status}`)
			return r.Combined(), r.Stdout == "True"
		})
	}
}

func (c *cluster) podIP(t *testing.T, pod string) string {
	t.Helper()
	return c.k(t, "get", "pod", pod, "-o", "jsonpath={.status.podIP}")
}

func (c *cluster) checkPodIPInNodeCIDR(t *testing.T, pod, node string) {
	t.Helper()
	ip, err := netip.ParseAddr(c.podIP(t, pod))
	if err != nil {
		t.Fatal(err)
	}
	if p := netip.MustParsePrefix(c.podCIDR(t, node)); !p.Contains(ip) {
		t.Errorf("%s's IP %s is not in %s's podCIDR %s", pod, ip, node, p)
	}
}

// wget fetches url from inside pod until it answers want. (Not wget -T:
// the timeout option of Debian's static busybox 1.35 crashes.)
func (c *cluster) wget(t *testing.T, pod, url, want string) {
	t.Helper()
	eventually(t, pod+" fetches "+url, func() (string, bool) {
		r := c.c.Kubectl(t, kubectl133, c.dir, "exec", pod, "--", "timeout", "10", "wget", "-q", "-O-", url)
		return r.Combined(), r.ExitCode == 0 && strings.TrimSpace(r.Stdout) == want
	})
}

// nodeIP is a machine's eth0 address: node-i is 10.240.6.(10+i).
func (c *cluster) nodeIP(node string) string {
	var i int
	fmt.Sscanf(node, "node-%d", &i)
	return fmt.Sprintf("10.240.6.%d", 10+i)
}

func (c *cluster) vtepMAC(t *testing.T, node string) string {
	t.Helper()
	var d struct{ VtepMAC string }
	raw := c.k(t, "get", "node", node, "-o", `jsonpath={.metadata.annotations.kubik\.io/backend-data}`)
	if err := json.Unmarshal([]byte(raw), &d); err != nil || d.VtepMAC == "" {
		t.Fatalf("%s's kubik.io/backend-data %q: %v", node, raw, err)
	}
	return d.VtepMAC
}

// peerCIDRs are the podCIDRs of the other machines' Nodes, sorted.
func (c *cluster) peerCIDRs(t *testing.T, self string) []string {
	t.Helper()
	var out []string
	for _, n := range c.nodes {
		if n != self {
			out = append(out, c.podCIDR(t, n))
		}
	}
	slices.Sort(out)
	return out
}

// wantRoutes are the routes node's agent must keep, as `ip route` prints
// them: host-gw via each peer's node IP, VXLAN via each peer's VTEP.
func (c *cluster) wantRoutes(t *testing.T, node string) []string {
	t.Helper()
	var out []string
	for _, n := range c.nodes {
		if n == node {
			continue
		}
		p := c.podCIDR(t, n)
		if c.backend == "vxlan" {
			out = append(out, p+" via "+netip.MustParsePrefix(p).Addr().String()+" dev kubik.1 onlink")
		} else {
			out = append(out, p+" via "+c.nodeIP(n)+" dev eth0")
		}
	}
	slices.Sort(out)
	return out
}

// agentRoutes are the routes of a machine's main table into the cluster
// CIDR with a gateway: the agent's.
func (c *cluster) agentRoutes(t *testing.T, node string) []string {
	t.Helper()
	var out []string
	for _, l := range strings.Split(c.ip(t, node, "-4", "route", "show", "root", clusterCIDR), "\n") {
		if l = strings.TrimSpace(l); strings.Contains(l, " via ") {
			out = append(out, l)
		}
	}
	slices.Sort(out)
	return out
}

func (c *cluster) ipMayFail(node string, args ...string) (string, error) {
	out, err := execOut("ip", append([]string{"-n", c.netns(node)}, args...)...)
	return out, err
}

// bridge runs `bridge -n <node's netns> args...`.
func (c *cluster) bridge(t *testing.T, node string, args ...string) string {
	t.Helper()
	out, err := execOut("bridge", append([]string{"-n", c.netns(node)}, args...)...)
	if err != nil {
		t.Fatalf("bridge -n %s %s: %v\n%s", c.netns(node), strings.Join(args, " "), err, out)
	}
	return out
}
