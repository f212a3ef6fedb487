//go:build linux

package main_test

// End-to-end tests of chapter 7 on this machine, as root, in both proxy
// modes: Services reached from pods and from every node, through real
// kube-proxy rules on three network namespace machines, the cluster DNS
// running as pods, an in-cluster client, a kube-proxy restart, and the
// rules compared with upstream kube-proxy's; a pod through its own Service
// (hairpin) and stale UDP conntrack entries deleted.

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

func TestIPTablesMode(t *testing.T) { testMode(t, "iptables") }
func TestNFTablesMode(t *testing.T) { testMode(t, "nftables") }

func testMode(t *testing.T, mode string) {
	c := sharedCluster(t, mode)
	t.Run("rules", func(t *testing.T) { testRulesMatchUpstream(t, c) })
	w := newWebFixture(t, c)
	t.Run("clusterip-and-nodeport", func(t *testing.T) { testClusterIPAndNodePort(t, c, w) })
	t.Run("no-endpoints", func(t *testing.T) { testNoEndpoints(t, c, w) })
	t.Run("readiness", func(t *testing.T) { testReadiness(t, c, w) })
	t.Run("external-traffic-policy-local", func(t *testing.T) { testLocalPolicy(t, c, w) })
	t.Run("session-affinity", func(t *testing.T) { testSessionAffinity(t, c, w) })
	t.Run("hairpin", func(t *testing.T) { testHairpin(t, c, w) })
	t.Run("udp-conntrack", func(t *testing.T) { testUDPConntrack(t, c, w) })
	t.Run("dns", func(t *testing.T) { testDNS(t, c, w) })
	t.Run("in-cluster-client", func(t *testing.T) { testInClusterClient(t, c) })
	t.Run("kube-proxy-restart", func(t *testing.T) { testKubeProxyRestart(t, c, w) })
}

// webFixture is what most tests share: in namespace "web", the demo app
// on every node (one pod each) behind the NodePort Service web, and a
// busybox client pod.
type webFixture struct {
	ns        string
	clusterIP string
	nodePort  string
	pods      []podInfo
	client    string // the client pod's name
	clientIP  string
}

const webManifest = `apiVersion: apps/v1
kind: Deployment
metadata: {name: web, namespace: web}
spec:
  replicas: 3
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec:
      terminationGracePeriodSeconds: 1
      affinity:
        podAntiAffinity:
          requiredDuringSchedulingIgnoredDuringExecution:
          - {labelSelector: {matchLabels: {app: web}}, topologyKey: kubernetes.io/hostname}
      containers:
      - name: web
        image: kubik.local/demo:1.0
        ports: [{name: http, containerPort: 8080}]
        env:
        - {name: POD_NAME, valueFrom: {fieldRef: {fieldPath: metadata.name}}}
        - {name: POD_IP, valueFrom: {fieldRef: {fieldPath: status.podIP}}}
        readinessProbe:
          httpGet: {path: /healthz, port: 8080}
          periodSeconds: 1
---
apiVersion: v1
kind: Service
metadata: {name: web, namespace: web}
spec:
  type: NodePort
  selector: {app: web}
  ports: [{name: http, port: 80, targetPort: 8080}]
---
apiVersion: v1
kind: Pod
metadata: {name: client, namespace: web}
spec:
  terminationGracePeriodSeconds: 1
  containers:
  - {name: client, image: busybox:1.35, command: [sleep, "3600"]}
`

func newWebFixture(t *testing.T, c *testCluster) *webFixture {
	t.Helper()
	w := &webFixture{ns: c.namespace(t, "web"), client: "client"}
	c.apply(t, webManifest)
	c.waitRollout(t, w.ns, "web")
	eventually(t, "the client pod Ready", func() (string, bool) {
		out, _ := c.kubectlErr("get", "pod", "client", "-n", w.ns, "-o", `jsonpath={.status.conditions[?(@.type=="Ready")].status} {.status.podIP}`)
		return out, strings.HasPrefix(out, "True ")
	})
	w.clientIP = strings.Fields(c.k(t, "get", "pod", "client", "-n", w.ns, "-o", "jsonpath={.status.podIP}"))[0]
	w.clusterIP = c.k(t, "get", "service", "web", "-n", w.ns, "-o", "jsonpath={.spec.clusterIP}")
	w.nodePort = c.k(t, "get", "service", "web", "-n", w.ns, "-o", "jsonpath={.spec.ports[0].nodePort}")
	w.pods = c.podsOf(t, w.ns, "app=web")
	nodes := map[string]bool{}
	for _, p := range w.pods {
		nodes[p.node] = true
	}
	if len(w.pods) != numNodes || len(nodes) != numNodes {
		t.Fatalf("want one web pod on each node, got %v", w.pods)
	}
	// Ready pods are not yet endpoints everywhere: the EndpointSlice
	// controller and then every node's kube-proxy follow. Wait for all
	// three in every node's rules.
	for i := range c.nodes {
		eventually(t, c.nodes[i].name+"'s rules with every web pod", func() (string, bool) {
			rules, err := dumpRules(c.mode, c.nodes[i].netns)
			for _, p := range w.pods {
				if !strings.Contains(rules, p.ip+":8080") {
					return rules, false
				}
			}
			return rules, err == nil
		})
	}
	return w
}

var helloRE = regexp.MustCompile(`Hello from (\S+) \(`)

// answers counts the pods that answered in output (one "Hello from" line a
// request).
func answers(output string) map[string]int {
	seen := map[string]int{}
	for _, m := range helloRE.FindAllStringSubmatch(output, -1) {
		seen[m[1]]++
	}
	return seen
}

// fromPod requests url n times from the client pod (busybox wget), one
// connection each, and returns the output.
func (w *webFixture) fromPod(c *testCluster, url string, n int) (string, error) {
	// busybox's wget -T crashes (Debian's static busybox 1.35): no timeout
	// flag; the requests end on their own.
	script := fmt.Sprintf("for i in $(seq %d); do wget -qO- %s 2>&1; done", n, url)
	return c.podExec(w.ns, w.client, "sh", "-c", script)
}

// fromNode requests url n times from machine i with curl, one connection
// each.
func fromNode(c *testCluster, i int, url string, n int) (string, error) {
	script := fmt.Sprintf("for i in $(seq %d); do curl -sS --max-time 10 %s 2>&1; done", n, url)
	return c.nodeExec(i, "sh", "-c", script)
}

// wantAllPods checks that every web pod answered.
func (w *webFixture) wantAllPods(t *testing.T, what, output string) {
	t.Helper()
	seen := answers(output)
	for _, p := range w.pods {
		if seen[p.name] == 0 {
			t.Errorf("%s: pod %s (on %s) never answered; answers: %v\n%s", what, p.name, p.node, seen, output)
			return
		}
	}
}

// testClusterIPAndNodePort: the ClusterIP from a pod and from every node,
// and every node's NodePort from every node and from a pod, are answered
// by the pods on all three nodes.
func testClusterIPAndNodePort(t *testing.T, c *testCluster, w *webFixture) {
	const n = 30 // three pods: all of them answer 30 random picks but with probability 3·(2/3)^30 ≈ 1.5e-5
	out, err := w.fromPod(c, "http://"+w.clusterIP, n)
	if err != nil {
		t.Fatalf("from the pod: %v\n%s", err, out)
	}
	w.wantAllPods(t, "ClusterIP from a pod", out)
	for i, node := range c.nodes {
		out, err := fromNode(c, i, "http://"+w.clusterIP, n)
		if err != nil {
			t.Fatalf("from %s: %v\n%s", node.name, err, out)
		}
		w.wantAllPods(t, "ClusterIP from "+node.name, out)
		for _, target := range c.nodes {
			url := "http://" + target.ip + ":" + w.nodePort
			out, err := fromNode(c, i, url, n)
			if err != nil {
				t.Fatalf("%s from %s: %v\n%s", url, node.name, err, out)
			}
			w.wantAllPods(t, "NodePort of "+target.name+" from "+node.name, out)
		}
	}
	url := "http://" + c.nodes[1].ip + ":" + w.nodePort
	out, err = w.fromPod(c, url, n)
	if err != nil {
		t.Fatalf("%s from the pod: %v\n%s", url, err, out)
	}
	w.wantAllPods(t, "NodePort of node-2 from a pod", out)
}

// testNoEndpoints: a Service whose selector matches no pod refuses
// connections (kube-proxy's REJECT), on its ClusterIP and its NodePort.
func testNoEndpoints(t *testing.T, c *testCluster, w *webFixture) {
	c.apply(t, `apiVersion: v1
kind: Service
metadata: {name: nobody, namespace: web}
spec:
  type: NodePort
  selector: {app: nobody}
  ports: [{port: 80, targetPort: 8080}]
`)
	t.Cleanup(func() { c.kubectlErr("delete", "service", "nobody", "-n", w.ns) })
	ip := c.k(t, "get", "service", "nobody", "-n", w.ns, "-o", "jsonpath={.spec.clusterIP}")
	port := c.k(t, "get", "service", "nobody", "-n", w.ns, "-o", "jsonpath={.spec.ports[0].nodePort}")
	eventually(t, "node-1's rules for the Service without endpoints", func() (string, bool) {
		rules, err := dumpRules(c.mode, c.nodes[0].netns)
		return rules, err == nil && strings.Contains(rules, ip)
	})
	// busybox wget, from a pod.
	want := "wget: can't connect to remote host (" + ip + "): Connection refused"
	eventually(t, "the ClusterIP refused from the pod", func() (string, bool) {
		out, _ := c.podExec(w.ns, w.client, "wget", "-qO-", "http://"+ip)
		return out, strings.Contains(out, want)
	})
	// From every node, with bash's /dev/tcp: it prints the connect error
	// as the kernel gives it (curl says "Couldn't connect to server" for
	// any failure to connect).
	for i, node := range c.nodes {
		for _, addr := range []string{ip + "/80", node.ip + "/" + port} {
			eventually(t, addr+" refused from "+node.name, func() (string, bool) {
				out, err := c.nodeExec(i, "bash", "-c", ": >/dev/tcp/"+addr)
				return out, err != nil && strings.Contains(out, "connect: Connection refused")
			})
		}
	}
}

// testReadiness: a pod whose readiness probe fails leaves the Service's
// rotation, and comes back when it passes again.
func testReadiness(t *testing.T, c *testCluster, w *webFixture) {
	// busybox httpd serves the pod's name; the readiness probe checks a
	// file the test removes and puts back.
	c.apply(t, `apiVersion: apps/v1
kind: Deployment
metadata: {name: flip, namespace: web}
spec:
  replicas: 3
  selector: {matchLabels: {app: flip}}
  template:
    metadata: {labels: {app: flip}}
    spec:
      terminationGracePeriodSeconds: 1
      containers:
      - name: httpd
        image: busybox:1.35
        command: [sh, -c, 'echo "Hello from $(hostname) (httpd)" > /www/index.html; touch /tmp/ready; exec httpd -f -p 8080 -h /www']
        readinessProbe:
          exec: {command: [test, -f, /tmp/ready]}
          periodSeconds: 1
          failureThreshold: 1
---
apiVersion: v1
kind: Service
metadata: {name: flip, namespace: web}
spec:
  selector: {app: flip}
  ports: [{port: 80, targetPort: 8080}]
`)
	t.Cleanup(func() {
		c.kubectlErr("delete", "deployment", "flip", "-n", w.ns)
		c.kubectlErr("delete", "service", "flip", "-n", w.ns)
	})
	c.waitRollout(t, w.ns, "flip")
	pods := c.podsOf(t, w.ns, "app=flip")
	ip := c.k(t, "get", "service", "flip", "-n", w.ns, "-o", "jsonpath={.spec.clusterIP}")
	url := "http://" + ip
	eventually(t, "all three flip pods answering", func() (string, bool) {
		out, _ := w.fromPod(c, url, 30)
		seen := answers(out)
		return out, len(seen) == 3
	})

	victim := pods[0]
	if _, err := c.podExec(w.ns, victim.name, "rm", "/tmp/ready"); err != nil {
		t.Fatal(err)
	}
	// The positive witness: the endpoint is not ready in the EndpointSlice
	// and kube-proxy took it out of every node's rules.
	eventually(t, victim.name+" not ready in the EndpointSlice", func() (string, bool) {
		out := c.k(t, "get", "endpointslices", "-n", w.ns, "-l", "kubernetes.io/service-name=flip", "-o",
			`jsonpath={range .items[*].endpoints[*]}{.addresses[0]}={.conditions.ready}{" "}{end}`)
		return out, strings.Contains(out, victim.ip+"=false")
	})
	for i, node := range c.nodes {
		eventually(t, node.name+"'s rules without "+victim.ip, func() (string, bool) {
			rules, err := dumpRules(c.mode, c.nodes[i].netns)
			return rules, err == nil && !strings.Contains(rules, victim.ip+":8080") && strings.Contains(rules, pods[1].ip+":8080")
		})
	}
	out, err := w.fromPod(c, url, 30)
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	seen := answers(out)
	if seen[victim.name] != 0 || seen[pods[1].name]+seen[pods[2].name] != 30 {
		t.Errorf("with %s unready, 30 requests were answered by %v; want only %s and %s", victim.name, seen, pods[1].name, pods[2].name)
	}

	if _, err := c.podExec(w.ns, victim.name, "touch", "/tmp/ready"); err != nil {
		t.Fatal(err)
	}
	eventually(t, victim.name+" back in the rotation", func() (string, bool) {
		out, _ := w.fromPod(c, url, 30)
		return out, answers(out)[victim.name] > 0
	})
}

// testLocalPolicy: externalTrafficPolicy Local keeps the client's source
// address (the demo logs it), where Cluster masquerades it; the health-check
// node port says which nodes have local endpoints, in upstream's words.
func testLocalPolicy(t *testing.T, c *testCluster, w *webFixture) {
	// A LoadBalancer Service (no load balancer here: it only gets its node
	// port and the health-check node port the apiserver allocates) of the
	// web pods, Local.
	c.apply(t, `apiVersion: v1
kind: Service
metadata: {name: web-local, namespace: web}
spec:
  type: LoadBalancer
  externalTrafficPolicy: Local
  selector: {app: web}
  ports: [{name: http, port: 80, targetPort: 8080}]
`)
	t.Cleanup(func() { c.kubectlErr("delete", "service", "web-local", "-n", w.ns) })
	nodePort := c.k(t, "get", "service", "web-local", "-n", w.ns, "-o", "jsonpath={.spec.ports[0].nodePort}")
	hcPort := c.k(t, "get", "service", "web-local", "-n", w.ns, "-o", "jsonpath={.spec.healthCheckNodePort}")
	if hcPort == "" {
		t.Fatal("no healthCheckNodePort allocated")
	}

	// From node-2 to node-1's node port: node-1's own pod answers, and sees
	// node-2's address.
	onNode1 := ""
	for _, p := range w.pods {
		if p.node == c.nodes[0].name {
			onNode1 = p.name
		}
	}
	url := "http://" + c.nodes[0].ip + ":" + nodePort + "/local-policy"
	var out string
	eventually(t, "node-1's Local node port from node-2", func() (string, bool) {
		out, _ = fromNode(c, 1, url, 5)
		seen := answers(out)
		return out, seen[onNode1] == 5
	})
	logs := c.k(t, "logs", "-n", w.ns, onNode1)
	if !strings.Contains(logs, "GET /local-policy from "+c.nodes[1].ip+":") {
		t.Errorf("with externalTrafficPolicy Local, %s did not see node-2's address %s:\n%s", onNode1, c.nodes[1].ip, logs)
	}
	// The same through the Cluster policy Service: masqueraded.
	out, _ = fromNode(c, 1, "http://"+c.nodes[0].ip+":"+w.nodePort+"/cluster-policy", 10)
	logs = ""
	for _, p := range w.pods {
		logs += c.k(t, "logs", "-n", w.ns, p.name) + "\n"
	}
	if !strings.Contains(logs, "GET /cluster-policy from ") {
		t.Fatalf("no pod logged the Cluster policy requests:\n%s\n%s", out, logs)
	}
	if strings.Contains(logs, "GET /cluster-policy from "+c.nodes[1].ip+":") {
		t.Errorf("with externalTrafficPolicy Cluster, a pod saw the client's own address:\n%s", logs)
	}

	// The health-check node port: 200 with one local endpoint on every node
	// (one web pod each), as upstream's service health server writes it.
	for i, node := range c.nodes {
		hcURL := "http://" + node.ip + ":" + hcPort + "/"
		want := "HTTP/1.1 200 OK\nContent-Type: application/json\nX-Content-Type-Options: nosniff\nX-Load-Balancing-Endpoint-Weight: 1\nContent-Length: 116\n\n" +
			"{\n\t\"service\": {\n\t\t\"namespace\": \"web\",\n\t\t\"name\": \"web-local\"\n\t},\n\t\"localEndpoints\": 1,\n\t\"serviceProxyHealthy\": true\n}"
		eventually(t, "the health-check node port of "+node.name+" to answer as upstream's", func() (string, bool) {
			got, err := curlHeaders(c.nodes[i].netns, hcURL)
			return got + "\nwant:\n" + want, err == nil && got == want
		})
	}
}

// testSessionAffinity: sessionAffinity ClientIP sends one client to one
// pod (the same client reaches all three through web: see
// clusterip-and-nodeport).
func testSessionAffinity(t *testing.T, c *testCluster, w *webFixture) {
	c.apply(t, `apiVersion: v1
kind: Service
metadata: {name: sticky, namespace: web}
spec:
  selector: {app: web}
  sessionAffinity: ClientIP
  ports: [{port: 80, targetPort: 8080}]
`)
	t.Cleanup(func() { c.kubectlErr("delete", "service", "sticky", "-n", w.ns) })
	ip := c.k(t, "get", "service", "sticky", "-n", w.ns, "-o", "jsonpath={.spec.clusterIP}")
	var out string
	eventually(t, "the sticky Service answering", func() (string, bool) {
		out, _ = w.fromPod(c, "http://"+ip, 1)
		return out, len(answers(out)) == 1
	})
	out, err := w.fromPod(c, "http://"+ip, 20)
	if seen := answers(out); err != nil || len(seen) != 1 {
		t.Errorf("from the pod, 20 requests with sessionAffinity ClientIP went to %v, want one pod (%v)\n%s", seen, err, out)
	}
	for i, node := range c.nodes {
		out, err := fromNode(c, i, "http://"+ip, 20)
		if seen := answers(out); err != nil || len(seen) != 1 {
			t.Errorf("from %s, 20 requests with sessionAffinity ClientIP went to %v, want one pod (%v)\n%s", node.name, seen, err, out)
		}
	}
}

// testInClusterClient: a pod lists pods through https://kubernetes.default
// with its projected token (RBAC lets its ServiceAccount).
func testInClusterClient(t *testing.T, c *testCluster) {
	ns := c.namespace(t, "incluster")
	c.apply(t, `apiVersion: rbac.authorization.k8s.io/v1
kind: Role
metadata: {name: pod-reader, namespace: incluster}
rules:
- {apiGroups: [""], resources: [pods], verbs: [list]}
---
apiVersion: rbac.authorization.k8s.io/v1
kind: RoleBinding
metadata: {name: pod-reader, namespace: incluster}
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: Role, name: pod-reader}
subjects:
- {kind: ServiceAccount, name: default, namespace: incluster}
---
apiVersion: v1
kind: Pod
metadata: {name: lister, namespace: incluster}
spec:
  restartPolicy: Never
  containers:
  - {name: lister, image: `+inClusterImage+`}
`)
	eventually(t, "the lister pod to finish", func() (string, bool) {
		out, _ := c.kubectlErr("get", "pod", "lister", "-n", ns, "-o", "jsonpath={.status.phase}")
		return out, out == "Succeeded" || out == "Failed"
	})
	logs := c.k(t, "logs", "-n", ns, "lister")
	if phase := c.k(t, "get", "pod", "lister", "-n", ns, "-o", "jsonpath={.status.phase}"); phase != "Succeeded" || logs != "lister" {
		t.Errorf("the in-cluster client: phase %s, output:\n%s", phase, logs)
	}
}

// testKubeProxyRestart: SIGUSR1 to a node process restarts its
// kube-proxy; traffic keeps flowing through the restart, and the new
// kube-proxy leaves the rules as they were (no duplicates).
func testKubeProxyRestart(t *testing.T, c *testCluster, w *webFixture) {
	// Quiet first: the other tests' objects gone, the rules stable.
	eventually(t, "no namespace terminating", func() (string, bool) {
		out := c.k(t, "get", "namespaces", "-o", `jsonpath={range .items[*]}{.metadata.name}={.status.phase} {end}`)
		return out, !strings.Contains(out, "Terminating")
	})
	before := make([]string, len(c.nodes))
	for i := range c.nodes {
		eventually(t, c.nodes[i].name+"'s rules stable", func() (string, bool) {
			a, err1 := normalizedRules(c.mode, c.nodes[i].netns, "")
			time.Sleep(2 * time.Second)
			b, err2 := normalizedRules(c.mode, c.nodes[i].netns, "")
			before[i] = b
			return lineDiff(a, b), err1 == nil && err2 == nil && a == b
		})
	}

	// Traffic from node-2 to the ClusterIP all along.
	stop := make(chan struct{})
	type tally struct {
		ok, failed int
		last       string
	}
	result := make(chan tally)
	go func() {
		var tl tally
		for {
			select {
			case <-stop:
				result <- tl
				return
			default:
			}
			if out, err := c.curl(1, "http://"+w.clusterIP); err == nil && strings.HasPrefix(out, "Hello from") {
				tl.ok++
			} else {
				tl.failed++
				tl.last = out
			}
		}
	}()

	restarted := time.Now()
	for _, n := range c.nodes {
		pidFile := filepath.Join(c.dir, "nodes", n.name, "node.pid")
		b, err := os.ReadFile(pidFile)
		if err != nil {
			t.Fatal(err)
		}
		pid, err := strconv.Atoi(strings.TrimSpace(string(b)))
		if err != nil {
			t.Fatal(err)
		}
		if err := syscall.Kill(pid, syscall.SIGUSR1); err != nil {
			t.Fatal(err)
		}
	}
	// The witness that each restarted and synced again: the restart in its
	// log, and a sync after it (kube-proxy's last-sync metric, inside the
	// machine at 127.0.0.1:10249).
	for i, n := range c.nodes {
		eventually(t, n.name+"'s kube-proxy restarted and synced", func() (string, bool) {
			logs, _ := os.ReadFile(filepath.Join(c.dir, "logs", n.name+".log"))
			if !strings.Contains(string(logs), "kube-proxy restarting") {
				return "no restart in the log", false
			}
			metrics, err := c.curl(i, "http://127.0.0.1:10249/metrics")
			m := regexp.MustCompile(`(?m)^kubeproxy_sync_proxy_rules_last_timestamp_seconds(?:\{[^}]*\})? (\S+)$`).FindStringSubmatch(metrics)
			if err != nil || m == nil {
				return metrics, false
			}
			ts, _ := strconv.ParseFloat(m[1], 64)
			return metrics, ts > float64(restarted.UnixNano())/1e9
		})
	}
	// A few more requests after the restarts, then the tally.
	time.Sleep(2 * time.Second)
	close(stop)
	tl := <-result
	if tl.failed != 0 || tl.ok == 0 {
		t.Errorf("during the kube-proxy restarts: %d requests answered, %d failed (last: %q)", tl.ok, tl.failed, tl.last)
	}
	for i, n := range c.nodes {
		after, err := normalizedRules(c.mode, c.nodes[i].netns, "")
		if err != nil {
			t.Fatal(err)
		}
		if after != before[i] {
			t.Errorf("%s's rules after the kube-proxy restart differ (- before, + after):\n%s", n.name, lineDiff(before[i], after))
		}
	}
}
