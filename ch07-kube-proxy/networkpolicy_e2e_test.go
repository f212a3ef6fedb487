//go:build linux

package main_test

// NetworkPolicy on chapter 7's three-machine cluster, enforced by chapter
// 6's node agent (never by kube-proxy), checked the way upstream's e2e
// "netpol" suite does: namespaces x, y, z with pods a, b, c each serving
// TCP 80 and 81, spread over the nodes, and for every case the full truth
// table, every pod × pod × port probed.

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"sync"
	"testing"
	"time"
)

// netpolModel is the model's namespaces and pods as they run.
type netpolModel struct {
	run  string            // the random suffix of this run
	ns   map[string]string // x → netpol-x-<run>
	pods []netpolPod
}

type netpolPod struct {
	ns, name string // model names: x, a
	ip       string
}

func (p netpolPod) key() string { return p.ns + "/" + p.name }

var netpolPorts = []int{80, 81}

func netpolPodManifest(ns, name, node string) string {
	return fmt.Sprintf(`apiVersion: v1
kind: Pod
metadata: {name: %s, namespace: %s, labels: {pod: %s}}
spec:
  terminationGracePeriodSeconds: 1
  nodeSelector: {kubernetes.io/hostname: %s}
  containers:
  - name: c
    image: busybox:1.35
    command: [sh, -c, "mkdir -p /www && echo ok > /www/index.html && httpd -p 80 -h /www && httpd -p 81 -h /www && exec sleep 36000"]
    ports: [{name: serve-80-tcp, containerPort: 80}, {name: serve-81-tcp, containerPort: 81}]
    readinessProbe:
      httpGet: {path: /, port: 80}
      periodSeconds: 1
`, name, ns, name, node)
}

func newNetpolModel(t *testing.T, c *testCluster) *netpolModel {
	t.Helper()
	m := &netpolModel{run: fmt.Sprintf("%06x", rand.IntN(1<<24)), ns: map[string]string{}}
	var manifest strings.Builder
	for i, ns := range []string{"x", "y", "z"} {
		name := c.namespace(t, "netpol-"+ns+"-"+m.run)
		m.ns[ns] = name
		c.k(t, "label", "namespace", name, "ns="+ns, "netpol-run="+m.run)
		for j, pod := range []string{"a", "b", "c"} {
			manifest.WriteString("---\n" + netpolPodManifest(name, pod, c.nodes[(i+j)%numNodes].name))
		}
	}
	c.apply(t, manifest.String())
	for _, ns := range []string{"x", "y", "z"} {
		if out, err := c.kubectlErr("wait", "-n", m.ns[ns], "--for=condition=Ready", "pod", "--all", "--timeout=180s"); err != nil {
			t.Fatalf("%v\n%s\n%s", err, out, c.k(t, "get", "pods", "-n", m.ns[ns], "-o", "wide"))
		}
		for _, p := range c.podsOf(t, m.ns[ns], "pod") {
			m.pods = append(m.pods, netpolPod{ns: ns, name: p.name, ip: p.ip})
		}
	}
	if len(m.pods) != 9 {
		t.Fatalf("want 9 pods, got %v", m.pods)
	}
	return m
}

// nsSelector is the namespaceSelector of model namespace ns in this run
// (quoted: YAML reads a bare y as true).
func (m *netpolModel) nsSelector(ns string) string {
	return fmt.Sprintf("{matchLabels: {ns: %q, netpol-run: %q}}", ns, m.run)
}

func (m *netpolModel) pod(key string) netpolPod {
	for _, p := range m.pods {
		if p.key() == key {
			return p
		}
	}
	panic("no pod " + key)
}

// probe opens every connection of the model at once: one kubectl exec per
// source pod running its 18 probes in parallel, each given two seconds (busybox
// wget -T crashes, so timeout bounds it).
func (m *netpolModel) probe(c *testCluster) map[string]bool {
	var targets []string
	for _, to := range m.pods {
		for _, port := range netpolPorts {
			targets = append(targets, fmt.Sprintf("%s:%d", to.ip, port))
		}
	}
	script := `for t in ` + strings.Join(targets, " ") + `; do
  (if timeout 2 wget -q -O /dev/null http://$t/ 2>/dev/null; then echo "$t ok"; else echo "$t no"; fi) &
done; wait`
	got := map[string]bool{}
	var mu sync.Mutex
	var wg sync.WaitGroup
	for _, from := range m.pods {
		wg.Go(func() {
			out, _ := c.podExec(m.ns[from.ns], from.name, "sh", "-c", script)
			mu.Lock()
			defer mu.Unlock()
			for _, line := range strings.Split(out, "\n") {
				f := strings.Fields(line)
				if len(f) != 2 {
					continue
				}
				for _, to := range m.pods {
					for _, port := range netpolPorts {
						if f[0] == fmt.Sprintf("%s:%d", to.ip, port) {
							got[netpolKey(from, to, port)] = f[1] == "ok"
						}
					}
				}
			}
		})
	}
	wg.Wait()
	return got
}

func netpolKey(from, to netpolPod, port int) string {
	return fmt.Sprintf("%s %s %d", from.key(), to.key(), port)
}

// diff prints expected and observed tables per port, as upstream's e2e:
// "." allowed, "X" denied, "*" a probe whose outcome is not the expected
// one; "" when all agree.
func (m *netpolModel) diff(want func(from, to netpolPod, port int) bool, got map[string]bool) string {
	var b strings.Builder
	wrong := 0
	mark := func(ok bool) string {
		if ok {
			return "."
		}
		return "X"
	}
	for _, port := range netpolPorts {
		fmt.Fprintf(&b, "port %d: expected | observed\n     ", port)
		for _, to := range m.pods {
			fmt.Fprintf(&b, " %-3s", to.key())
		}
		b.WriteString(" |")
		for _, to := range m.pods {
			fmt.Fprintf(&b, " %-3s", to.key())
		}
		b.WriteString("\n")
		for _, from := range m.pods {
			fmt.Fprintf(&b, "%-5s", from.key())
			var obs strings.Builder
			for _, to := range m.pods {
				w := from == to || want(from, to, port)
				g, probed := got[netpolKey(from, to, port)]
				fmt.Fprintf(&b, " %-3s", mark(w))
				o := mark(g)
				if !probed || g != w {
					o, wrong = "*", wrong+1
				}
				fmt.Fprintf(&obs, " %-3s", o)
			}
			fmt.Fprintf(&b, " |%s\n", obs.String())
		}
	}
	if wrong == 0 {
		return ""
	}
	return fmt.Sprintf("%d of %d probes differ (*)\n%s", wrong, 2*len(m.pods)*len(m.pods), b.String())
}

// expect probes until the truth table is want's (a pod always reaches
// itself: it never leaves its namespace) or a generous deadline passes.
func (m *netpolModel) expect(t *testing.T, c *testCluster, want func(from, to netpolPod, port int) bool) {
	t.Helper()
	deadline := time.Now().Add(2 * time.Minute)
	for {
		d := m.diff(want, m.probe(c))
		if d == "" {
			return
		}
		if time.Now().After(deadline) {
			var tables strings.Builder
			for i, n := range c.nodes {
				out, _ := c.nodeExec(i, "nft", "list", "table", "inet", "kubik-network-policy")
				fmt.Fprintf(&tables, "--- %s:\n%s\n", n.name, out)
			}
			t.Fatalf("the truth table did not match within 2 minutes:\n%s\npolicies:\n%s\n%s", d,
				c.k(t, "get", "networkpolicy", "-A", "-o", "yaml"), tables.String())
		}
		time.Sleep(time.Second)
	}
}

// policies applies the manifest (a list of NetworkPolicies) for one case
// and deletes them when it ends.
func (m *netpolModel) policies(t *testing.T, c *testCluster, manifest string) {
	t.Helper()
	c.apply(t, manifest)
	t.Cleanup(func() {
		for _, ns := range m.ns {
			c.kubectlErr("delete", "networkpolicy", "--all", "-n", ns)
		}
	})
}

func isXA(p netpolPod) bool { return p.key() == "x/a" }

func TestNetworkPolicy(t *testing.T) {
	c := sharedCluster(t, "iptables")
	m := newNetpolModel(t, c)
	x, y := m.ns["x"], m.ns["y"]

	t.Run("no-policy", func(t *testing.T) {
		m.expect(t, c, func(_, _ netpolPod, _ int) bool { return true })
	})

	t.Run("deny-all-ingress-in-x", func(t *testing.T) {
		m.policies(t, c, fmt.Sprintf(`apiVersion: networking.k8s.io/v1
kind: NetworkPolicy
metadata: {name: deny-all, namespace: %s}
spec:
  podSelector: {}
  policyTypes: [Ingress]
`, x))
		m.expect(t, c, func(_, to netpolPod, _ int) bool { return to.ns != "x" })
		// The kubelet's probes come from the node: a new pod in x becomes
		// Ready under deny-all.
		c.apply(t, strings.Replace(netpolPodManifest(x, "witness", c.nodes[0].name), "labels: {pod: witness}", "labels: {probe: witness}", 1))
		if out, err := c.kubectlErr("wait", "-n", x, "--for=condition=Ready", "pod/witness", "--timeout=180s"); err != nil {
			t.Fatalf("a pod in x never became Ready under deny-all: %v\n%s", err, out)
		}
		c.k(t, "delete", "pod", "witness", "-n", x, "--wait=false")
	})

	t.Run("allow-namespace-y-to-x-a-port-80", func(t *testing.T) {
		m.policies(t, c, fmt.Sprintf(`apiVersion: networking.k8s.io/v1
kind: NetworkPolicy
metadata: {name: allow-y-80, namespace: %s}
spec:
  podSelector: {matchLabels: {pod: a}}
  ingress:
  - from: [{namespaceSelector: %s}]
    ports: [{protocol: TCP, port: 80}]
`, x, m.nsSelector("y")))
		m.expect(t, c, func(from, to netpolPod, port int) bool { return !isXA(to) || from.ns == "y" && port == 80 })
	})

	t.Run("allow-by-pod-label-across-namespaces", func(t *testing.T) {
		m.policies(t, c, fmt.Sprintf(`apiVersion: networking.k8s.io/v1
kind: NetworkPolicy
metadata: {name: allow-b, namespace: %s}
spec:
  podSelector: {matchLabels: {pod: a}}
  ingress:
  - from: [{namespaceSelector: {matchLabels: {netpol-run: %q}}, podSelector: {matchLabels: {pod: b}}}]
`, x, m.run))
		m.expect(t, c, func(from, to netpolPod, _ int) bool { return !isXA(to) || from.name == "b" })
	})

	t.Run("egress-deny-and-ipblock-with-except", func(t *testing.T) {
		yb := m.pod("y/b")
		m.policies(t, c, fmt.Sprintf(`apiVersion: networking.k8s.io/v1
kind: NetworkPolicy
metadata: {name: egress-ipblock, namespace: %s}
spec:
  podSelector: {matchLabels: {pod: a}}
  policyTypes: [Egress]
  egress:
  - to: [{ipBlock: {cidr: %s, except: [%s/32]}}]
`, x, clusterCIDR, yb.ip))
		m.expect(t, c, func(from, to netpolPod, _ int) bool { return !isXA(from) || to.key() != "y/b" })
	})

	t.Run("named-port", func(t *testing.T) {
		m.policies(t, c, fmt.Sprintf(`apiVersion: networking.k8s.io/v1
kind: NetworkPolicy
metadata: {name: allow-named, namespace: %s}
spec:
  podSelector: {matchLabels: {pod: a}}
  ingress:
  - ports: [{port: serve-81-tcp}]
`, x))
		m.expect(t, c, func(_, to netpolPod, port int) bool { return !isXA(to) || port == 81 })
	})

	t.Run("endport-range", func(t *testing.T) {
		m.policies(t, c, fmt.Sprintf(`apiVersion: networking.k8s.io/v1
kind: NetworkPolicy
metadata: {name: allow-ranges, namespace: %s}
spec:
  podSelector: {matchLabels: {pod: a}}
  ingress:
  - from: [{namespaceSelector: %s}]
    ports: [{port: 80, endPort: 81}]
  - from: [{namespaceSelector: %s}]
    ports: [{port: 79, endPort: 80}]
`, x, m.nsSelector("z"), m.nsSelector("y")))
		m.expect(t, c, func(from, to netpolPod, port int) bool {
			return !isXA(to) || from.ns == "z" || from.ns == "y" && port == 80
		})
	})

	t.Run("bad-policy-refused", func(t *testing.T) {
		out, err := c.kubectlIn(fmt.Sprintf(`apiVersion: networking.k8s.io/v1
kind: NetworkPolicy
metadata: {name: bad, namespace: %s}
spec:
  podSelector: {}
  ingress:
  - ports: [{port: 81, endPort: 80}]
    from: [{ipBlock: {cidr: 10.0.0.0/24, except: [10.1.0.0/24]}}]
`, y), "apply", "-f", "-")
		want := []string{
			`The NetworkPolicy "bad" is invalid:`,
			"spec.ingress[0].ports[0].endPort: Invalid value: 81: must be greater than or equal to `port`",
			`spec.ingress[0].from[0].ipBlock.except[0]: Invalid value: "10.1.0.0/24": must be a strict subset of ` + "`cidr`",
		}
		for _, w := range want {
			if err == nil || !strings.Contains(out, w) {
				t.Fatalf("kubectl apply of a bad NetworkPolicy: %v\n%s\nwant %q", err, out, w)
			}
		}
	})
}
