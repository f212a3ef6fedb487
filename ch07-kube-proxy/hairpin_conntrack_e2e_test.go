//go:build linux

package main_test

import (
	"fmt"
	"regexp"
	"strings"
	"testing"
)

// nodeIndex is the index in c.nodes of the machine called name.
func (c *testCluster) nodeIndex(t *testing.T, name string) int {
	t.Helper()
	for i, n := range c.nodes {
		if n.name == name {
			return i
		}
	}
	t.Fatalf("no machine %q", name)
	return -1
}

// testHairpin: a pod reaches itself through its own Service. kube-proxy
// masquerades that connection (the endpoint chain's "-s <pod>" rule, or
// "ip saddr <pod>" in nftables), so the pod sees it coming from its node
// and answers through the node's conntrack entry, which turns the reply's
// source back into the ClusterIP.
func testHairpin(t *testing.T, c *testCluster, w *webFixture) {
	c.apply(t, `apiVersion: v1
kind: Pod
metadata: {name: self, namespace: web, labels: {app: self}}
spec:
  terminationGracePeriodSeconds: 1
  containers:
  - name: httpd
    image: busybox:1.35
    command: [sh, -c, 'echo "Hello from $(hostname) (httpd)" > /www/index.html; exec httpd -f -p 8080 -h /www']
---
apiVersion: v1
kind: Service
metadata: {name: self, namespace: web}
spec:
  selector: {app: self}
  ports: [{port: 80, targetPort: 8080}]
`)
	t.Cleanup(func() {
		c.kubectlErr("delete", "service", "self", "-n", w.ns)
		c.kubectlErr("delete", "pod", "self", "-n", w.ns, "--grace-period=1")
	})
	eventually(t, "the pod self Ready", func() (string, bool) {
		out, _ := c.kubectlErr("get", "pod", "self", "-n", w.ns, "-o", `jsonpath={.status.conditions[?(@.type=="Ready")].status} {.status.podIP} {.spec.nodeName}`)
		return out, strings.HasPrefix(out, "True ") && len(strings.Fields(out)) == 3
	})
	f := strings.Fields(c.k(t, "get", "pod", "self", "-n", w.ns, "-o", "jsonpath={.status.podIP} {.spec.nodeName}"))
	podIP, node := f[0], c.nodeIndex(t, f[1])
	clusterIP := c.k(t, "get", "service", "self", "-n", w.ns, "-o", "jsonpath={.spec.clusterIP}")
	eventually(t, c.nodes[node].name+"'s rules with the pod self", func() (string, bool) {
		rules, err := dumpRules(c.mode, c.nodes[node].netns)
		return rules, err == nil && strings.Contains(rules, podIP+":8080")
	})

	out, err := c.podExec(w.ns, "self", "wget", "-qO-", "http://"+clusterIP)
	if err != nil || !strings.Contains(out, "Hello from self (httpd)") {
		t.Fatalf("wget http://%s (its own Service) from the pod self: %v\n%s", clusterIP, err, out)
	}
	// The witness of the masquerade: the node's conntrack entry of that
	// connection, from the pod to the ClusterIP, is answered by the pod to
	// an address that is not its own.
	ct, err := c.nodeExec(node, "conntrack", "-L", "-p", "tcp", "-s", podIP, "-d", clusterIP)
	if err != nil {
		t.Fatalf("conntrack -L: %v\n%s", err, ct)
	}
	re := regexp.MustCompile(`src=` + regexp.QuoteMeta(podIP) + ` dst=` + regexp.QuoteMeta(clusterIP) + ` sport=\d+ dport=80 src=` + regexp.QuoteMeta(podIP) + ` dst=(\S+) sport=8080 `)
	m := re.FindStringSubmatch(ct)
	if m == nil {
		t.Fatalf("%s's conntrack has no entry of the hairpin connection %s -> %s:80 -> %s:8080:\n%s", c.nodes[node].name, podIP, clusterIP, podIP, ct)
	}
	if m[1] == podIP {
		t.Errorf("the hairpin connection was not masqueraded: the reply goes to %s itself:\n%s", podIP, ct)
	}
}

// testUDPConntrack: when an endpoint of a UDP Service goes away, kube-proxy
// deletes the conntrack entries that would keep sending the clients'
// datagrams to it (over netlink), and keeps those of the endpoints that
// remain. The entries are written with the conntrack tool, as a client's
// datagrams to the ClusterIP would leave them.
func testUDPConntrack(t *testing.T, c *testCluster, w *webFixture) {
	c.apply(t, `apiVersion: apps/v1
kind: Deployment
metadata: {name: udp, namespace: web}
spec:
  replicas: 2
  selector: {matchLabels: {app: udp}}
  template:
    metadata: {labels: {app: udp}}
    spec:
      terminationGracePeriodSeconds: 1
      containers:
      - {name: sleep, image: busybox:1.35, command: [sleep, "3600"]}
---
apiVersion: v1
kind: Service
metadata: {name: udp, namespace: web}
spec:
  selector: {app: udp}
  ports: [{port: 5353, targetPort: 5353, protocol: UDP}]
`)
	t.Cleanup(func() {
		c.kubectlErr("delete", "deployment", "udp", "-n", w.ns)
		c.kubectlErr("delete", "service", "udp", "-n", w.ns)
	})
	c.waitRollout(t, w.ns, "udp")
	pods := c.podsOf(t, w.ns, "app=udp")
	if len(pods) != 2 {
		t.Fatalf("want 2 udp pods, got %v", pods)
	}
	clusterIP := c.k(t, "get", "service", "udp", "-n", w.ns, "-o", "jsonpath={.spec.clusterIP}")
	const node = 0
	eventually(t, c.nodes[node].name+"'s rules with both udp pods", func() (string, bool) {
		rules, err := dumpRules(c.mode, c.nodes[node].netns)
		return rules, err == nil && strings.Contains(rules, pods[0].ip+":5353") && strings.Contains(rules, pods[1].ip+":5353")
	})

	// One entry to each endpoint, from the client pod's address.
	for i, p := range pods {
		sport := fmt.Sprint(40001 + i)
		if out, err := c.nodeExec(node, "conntrack", "-I", "-p", "udp", "-s", w.clientIP, "-d", clusterIP,
			"--sport", sport, "--dport", "5353", "--reply-src", p.ip, "--reply-dst", w.clientIP,
			"--reply-port-src", "5353", "--reply-port-dst", sport, "--timeout", "600"); err != nil {
			t.Fatalf("conntrack -I: %v\n%s", err, out)
		}
	}
	t.Cleanup(func() { c.nodeExec(node, "conntrack", "-D", "-p", "udp", "-d", clusterIP) })
	list := func() string {
		out, _ := c.nodeExec(node, "conntrack", "-L", "-p", "udp", "-d", clusterIP)
		return out
	}
	reply := func(ip string) string { return "src=" + ip + " dst=" + w.clientIP + " sport=5353" }
	if out := list(); !strings.Contains(out, reply(pods[0].ip)) || !strings.Contains(out, reply(pods[1].ip)) {
		t.Fatalf("the entries to both endpoints are not in %s's conntrack:\n%s", c.nodes[node].name, out)
	}

	gone := pods[0]
	c.k(t, "delete", "pod", gone.name, "-n", w.ns, "--grace-period=1")
	eventually(t, c.nodes[node].name+"'s rules without "+gone.ip, func() (string, bool) {
		rules, err := dumpRules(c.mode, c.nodes[node].netns)
		return rules, err == nil && !strings.Contains(rules, gone.ip+":5353")
	})
	eventually(t, "the conntrack entry to "+gone.ip+" deleted", func() (string, bool) {
		out := list()
		return out, !strings.Contains(out, reply(gone.ip))
	})
	if out := list(); !strings.Contains(out, reply(pods[1].ip)) {
		t.Errorf("the entry to the endpoint that stays (%s) was deleted too:\n%s", pods[1].ip, out)
	}
}
