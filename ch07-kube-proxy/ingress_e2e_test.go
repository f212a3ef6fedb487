//go:build linux

package main_test

// The ingress controller end to end, on the shared three-node cluster in
// iptables mode: requests with curl --resolve through the controller's
// node port 30080 (and 30443 for TLS) from the machines, to Services whose
// pods are spread over the nodes.

import (
	"bytes"
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"fmt"
	"math/big"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"kubik/internal/testenv"
)

const ingressAppsManifest = `apiVersion: apps/v1
kind: Deployment
metadata: {name: %[1]s, namespace: %[2]s}
spec:
  replicas: 3
  selector: {matchLabels: {app: %[1]s}}
  template:
    metadata: {labels: {app: %[1]s}}
    spec:
      terminationGracePeriodSeconds: 5
      affinity:
        podAntiAffinity:
          preferredDuringSchedulingIgnoredDuringExecution:
          - weight: 100
            podAffinityTerm: {labelSelector: {matchLabels: {app: %[1]s}}, topologyKey: kubernetes.io/hostname}
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
metadata: {name: %[1]s, namespace: %[2]s}
spec:
  selector: {app: %[1]s}
  ports: [{name: http, port: 80, targetPort: http}]
`

// The Ingresses: two hosts, three paths (by port number and by name), a
// Service without endpoints, and TLS for a third host.
const ingressManifest = `apiVersion: v1
kind: Service
metadata: {name: nobody, namespace: %[1]s}
spec:
  selector: {app: nobody}
  ports: [{name: http, port: 80, targetPort: 8080}]
---
apiVersion: networking.k8s.io/v1
kind: Ingress
metadata: {name: routes, namespace: %[1]s}
spec:
  rules:
  - host: foo.example
    http:
      paths:
      - {path: /, pathType: Prefix, backend: {service: {name: foo, port: {number: 80}}}}
      - {path: /bar, pathType: Prefix, backend: {service: {name: bar, port: {name: http}}}}
  - host: bar.example
    http:
      paths:
      - {path: /baz, pathType: Exact, backend: {service: {name: baz, port: {number: 80}}}}
      - {path: /empty, pathType: Prefix, backend: {service: {name: nobody, port: {number: 80}}}}
---
apiVersion: networking.k8s.io/v1
kind: Ingress
metadata: {name: secure, namespace: %[1]s}
spec:
  ingressClassName: kubik
  tls:
  - {hosts: [secure.example], secretName: secure-tls}
  rules:
  - host: secure.example
    http:
      paths:
      - {path: /, pathType: Prefix, backend: {service: {name: baz, port: {number: 80}}}}
`

func TestIngress(t *testing.T) {
	c := sharedCluster(t, "iptables")
	if out, err := c.kubectlErr("rollout", "status", "-n", "ingress-kubik", "deployment/ingress-kubik-controller", "--timeout=180s"); err != nil {
		t.Fatalf("the ingress controller did not roll out: %v\n%s\n%s", err, out, c.k(t, "get", "pods", "-n", "ingress-kubik", "-o", "wide"))
	}
	t.Cleanup(func() {
		if t.Failed() {
			out, _ := c.kubectlErr("logs", "-n", "ingress-kubik", "deployment/ingress-kubik-controller", "--tail=80")
			t.Logf("ingress controller logs:\n%s", out)
		}
	})
	if got := c.k(t, "get", "ingressclass"); !strings.Contains(got, "kubik   kubik.io/ingress-controller") {
		t.Errorf("kubectl get ingressclass:\n%s", got)
	}

	ns := c.namespace(t, fmt.Sprintf("ingress-%d", time.Now().UnixNano()%1000000))
	// Wait for the namespace to be gone (this runs before namespace's own
	// cleanup): the lab, which runs next on the same cluster, lists every
	// namespace's Services.
	t.Cleanup(func() { c.kubectlErr("delete", "namespace", ns, "--timeout=180s") })
	for _, app := range []string{"foo", "bar", "baz"} {
		c.apply(t, fmt.Sprintf(ingressAppsManifest, app, ns))
	}
	for _, app := range []string{"foo", "bar", "baz"} {
		c.waitRollout(t, ns, app)
	}
	dir := t.TempDir()
	caFile := writeTLSSecret(t, c, ns, dir, "secure-tls", "secure.example")
	c.apply(t, fmt.Sprintf(ingressManifest, ns))

	// Every path from every machine, to every machine's node port: the
	// answers come from the right Service's pods, on more than one node.
	t.Run("hosts-and-paths", func(t *testing.T) {
		for _, tc := range []struct{ host, path, app string }{
			{"foo.example", "/", "foo"}, {"foo.example", "/index.html", "foo"}, {"foo.example", "/bar", "bar"},
			{"foo.example", "/bar/x", "bar"}, {"foo.example", "/barx", "foo"}, {"bar.example", "/baz", "baz"},
		} {
			nodesSeen := map[string]bool{}
			pods := map[string]string{}
			for _, p := range c.podsOf(t, ns, "app="+tc.app) {
				pods[p.name] = p.node
			}
			for i := range c.nodes {
				for _, target := range c.nodes {
					url := "http://" + tc.host + ":30080" + tc.path
					eventually(t, tc.host+tc.path+" from "+c.nodes[i].name+" via "+target.name, func() (string, bool) {
						out, err := c.nodeExec(i, "curl", "-sS", "--max-time", "10", "--resolve", tc.host+":30080:"+target.ip, url)
						pod := helloPod(out)
						if err != nil || !strings.HasPrefix(pod, tc.app+"-") {
							return out, false
						}
						nodesSeen[pods[pod]] = true
						return out, true
					})
				}
			}
			if len(nodesSeen) < 2 {
				t.Errorf("%s%s: answered only by pods on %v", tc.host, tc.path, nodesSeen)
			}
		}
	})

	t.Run("404-and-503", func(t *testing.T) {
		ip := c.nodes[1].ip
		for _, tc := range []struct{ host, path, want string }{
			{"bar.example", "/baz/x", "404 default backend - 404"}, // Exact
			{"nothing.example", "/", "404 default backend - 404"},
			{"bar.example", "/empty", "503 503 Service Temporarily Unavailable: service " + ns + "/nobody port 80 has no ready endpoints"},
		} {
			eventually(t, tc.host+tc.path, func() (string, bool) {
				out, _ := c.nodeExec(0, "curl", "-sS", "--max-time", "10", "-w", "\n%{http_code}", "--resolve", tc.host+":30080:"+ip, "http://"+tc.host+":30080"+tc.path)
				i := strings.LastIndex(out, "\n")
				if i < 0 {
					return out, false
				}
				got := out[i+1:] + " " + strings.TrimSpace(out[:i])
				return got, got == tc.want
			})
		}
	})

	t.Run("tls", func(t *testing.T) {
		for i, n := range c.nodes {
			eventually(t, "https://secure.example from "+n.name, func() (string, bool) {
				out, err := c.nodeExec(i, "curl", "-sS", "--max-time", "10", "--cacert", caFile,
					"--resolve", "secure.example:30443:"+c.nodes[(i+1)%len(c.nodes)].ip, "https://secure.example:30443/")
				return out, err == nil && strings.HasPrefix(helloPod(out), "baz-")
			})
		}
		// A name without a Secret gets the fake certificate, which the
		// client does not trust.
		out, err := c.nodeExec(0, "curl", "-sS", "--max-time", "10", "--cacert", caFile,
			"--resolve", "foo.example:30443:"+c.nodes[0].ip, "https://foo.example:30443/")
		if err == nil || !strings.Contains(out, "certificate") {
			t.Errorf("foo.example over https: %v %s", err, out)
		}
		out, _ = c.nodeExec(0, "sh", "-c", "curl -sSkv --max-time 10 --resolve foo.example:30443:"+c.nodes[0].ip+" https://foo.example:30443/ 2>&1")
		if !strings.Contains(out, "Kubernetes Ingress Controller Fake Certificate") || !strings.Contains(helloPod(out), "foo-") {
			t.Errorf("foo.example with -k: want the fake certificate and foo's answer:\n%s", out)
		}
	})

	t.Run("address", func(t *testing.T) {
		hostIP := c.k(t, "get", "pods", "-n", "ingress-kubik", "-l", "app.kubernetes.io/component=controller", "-o", "jsonpath={.items[0].status.hostIP}")
		for _, v := range []string{"1.33", "1.27"} {
			kubectl := testenv.Kubectl(t, v)
			eventually(t, "ADDRESS with kubectl "+v, func() (string, bool) {
				out, err := exec.Command(kubectl, "--kubeconfig", c.api.Kubeconfig, "get", "ingress", "-n", ns).CombinedOutput()
				lines := strings.Split(strings.TrimSpace(string(out)), "\n")
				if err != nil || len(lines) != 3 {
					return string(out), false
				}
				words := func(l string) string { return strings.Join(strings.Fields(l), " ") }
				return string(out), words(lines[0]) == "NAME CLASS HOSTS ADDRESS PORTS AGE" &&
					strings.HasPrefix(words(lines[1]), "routes kubik foo.example,bar.example "+hostIP+" 80 ") &&
					strings.HasPrefix(words(lines[2]), "secure kubik secure.example "+hostIP+" 80, 443 ")
			})
		}
	})

	t.Run("replicas", func(t *testing.T) { testIngressReplicas(t, c, ns) })

	t.Run("bad-ingress", func(t *testing.T) {
		out, err := c.kubectlIn(fmt.Sprintf(`apiVersion: networking.k8s.io/v1
kind: Ingress
metadata: {name: bad, namespace: %s}
spec:
  rules:
  - host: "*.*.example"
    http:
      paths:
      - {path: foo, pathType: Exact, backend: {service: {name: foo, port: {number: 80}}}}
`, ns), "apply", "-f", "-")
		for _, want := range []string{`The Ingress "bad" is invalid`, `spec.rules[0].host: Invalid value: "*.*.example"`,
			`spec.rules[0].http.paths[0].path: Invalid value: "foo": must be an absolute path`} {
			if err == nil || !strings.Contains(out, want) {
				t.Errorf("a bad Ingress: want %q in:\n%s", want, out)
			}
		}
	})

	t.Run("rolling-update", func(t *testing.T) { testIngressRollout(t, c, ns) })
}

// testIngressReplicas scales the controller to two pods: both serve, one
// holds the Lease and writes the node IPs of both into the status; back
// at one pod, the status shrinks to its node.
func testIngressReplicas(t *testing.T, c *testCluster, ns string) {
	const sel = "app.kubernetes.io/component=controller"
	t.Cleanup(func() {
		c.kubectlErr("scale", "deployment/ingress-kubik-controller", "-n", "ingress-kubik", "--replicas=1")
		c.kubectlErr("rollout", "status", "-n", "ingress-kubik", "deployment/ingress-kubik-controller", "--timeout=180s")
	})
	// wantIPs are the node IPs of the running controller pods not being
	// deleted, sorted, and how many such pods there are.
	wantIPs := func() (string, int) {
		out := c.k(t, "get", "pods", "-n", "ingress-kubik", "-l", sel, "-o",
			`jsonpath={range .items[*]}{.status.phase} {.status.hostIP} {.metadata.deletionTimestamp}{"\n"}{end}`)
		var ips []string
		n := 0
		for _, l := range strings.Split(out, "\n") {
			f := strings.Fields(l)
			if len(f) != 2 || f[0] != "Running" {
				continue
			}
			n++
			if !slices.Contains(ips, f[1]) {
				ips = append(ips, f[1])
			}
		}
		slices.Sort(ips)
		return strings.Join(ips, " "), n
	}
	status := func() string {
		return c.k(t, "get", "ingress", "routes", "-n", ns, "-o", "jsonpath={.status.loadBalancer.ingress[*].ip}")
	}
	c.k(t, "scale", "deployment/ingress-kubik-controller", "-n", "ingress-kubik", "--replicas=2")
	c.waitRollout(t, "ingress-kubik", "ingress-kubik-controller")
	eventually(t, "the status with both pods' nodes", func() (string, bool) {
		want, n := wantIPs()
		got := status()
		return "want " + want + ", got " + got, got == want && n == 2 && len(c.podsOf(t, "ingress-kubik", sel)) == 2
	})
	holder := c.k(t, "get", "lease", "ingress-kubik-leader", "-n", "ingress-kubik", "-o", "jsonpath={.spec.holderIdentity}")
	var names []string
	for _, p := range c.podsOf(t, "ingress-kubik", sel) {
		names = append(names, p.name)
	}
	if !slices.Contains(names, holder) {
		t.Errorf("the Lease is held by %q, not one of the pods %v", holder, names)
	}
	// Both pods serve: curl each pod's IP from a node.
	for _, p := range c.podsOf(t, "ingress-kubik", sel) {
		eventually(t, "pod "+p.name+" serving", func() (string, bool) {
			out, err := c.nodeExec(0, "curl", "-sS", "--max-time", "10", "-H", "Host: foo.example", "http://"+p.ip+"/")
			return out, err == nil && strings.HasPrefix(helloPod(out), "foo-")
		})
	}
	c.k(t, "scale", "deployment/ingress-kubik-controller", "-n", "ingress-kubik", "--replicas=1")
	c.waitRollout(t, "ingress-kubik", "ingress-kubik-controller")
	eventually(t, "the status with one pod's node", func() (string, bool) {
		want, n := wantIPs()
		got := status()
		return "want " + want + ", got " + got, n == 1 && len(c.podsOf(t, "ingress-kubik", sel)) == 1 && got == want
	})
}

// testIngressRollout sends requests one after another through the
// ingress while foo is restarted, until the rollout is done and at least
// 500 were sent: every one is answered by foo, by an old pod or a new
// one, and both answered (the requests did span the rollout).
func testIngressRollout(t *testing.T, c *testCluster, ns string) {
	old := map[string]bool{}
	for _, p := range c.podsOf(t, ns, "app=foo") {
		old[p.name] = true
	}
	dir := t.TempDir()
	stop := filepath.Join(dir, "stop")
	script := fmt.Sprintf(`i=0
while [ $i -lt 500 ] || [ ! -e %s ]; do
  r=$(curl -sS --max-time 10 -w ' %%{http_code}' --resolve foo.example:30080:%s http://foo.example:30080/ 2>&1) || r="$r failed"
  echo "$r" | tr -d '\n'; echo
  i=$((i+1))
done`, stop, c.nodes[1].ip)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "ip", "netns", "exec", c.nodes[0].netns, "sh", "-c", script)
	var out bytes.Buffer
	var mu sync.Mutex
	cmd.Stdout = &lockedWriter{w: &out, mu: &mu}
	cmd.Stderr = cmd.Stdout
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	t.Cleanup(func() {
		os.WriteFile(stop, nil, 0o644)
		cancel()
	})
	eventually(t, "the first answers", func() (string, bool) {
		mu.Lock()
		defer mu.Unlock()
		return out.String(), strings.Count(out.String(), " 200\n") >= 10
	})
	c.k(t, "rollout", "restart", "deployment/foo", "-n", ns)
	c.waitRollout(t, ns, "foo")
	// The old pods are gone from the endpoints: the last answers come
	// from new pods.
	eventually(t, "old pods gone", func() (string, bool) {
		pods := c.podsOf(t, ns, "app=foo")
		for _, p := range pods {
			if old[p.name] {
				return fmt.Sprint(pods), false
			}
		}
		return fmt.Sprint(pods), len(pods) == 3
	})
	os.WriteFile(stop, nil, 0o644)
	if err := <-done; err != nil {
		t.Fatalf("the request loop: %v", err)
	}
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	var bad []string
	sawOld, sawNew := false, false
	for _, l := range lines {
		pod := helloPod(l)
		if !strings.HasSuffix(l, " 200") || !strings.HasPrefix(pod, "foo-") {
			bad = append(bad, l)
			continue
		}
		if old[pod] {
			sawOld = true
		} else {
			sawNew = true
		}
	}
	if len(lines) < 500 || len(bad) != 0 || !sawOld || !sawNew {
		t.Errorf("%d requests during the rollout, %d not answered by foo (old pods answered: %v, new: %v): %q", len(lines), len(bad), sawOld, sawNew, bad)
	}
	t.Logf("%d requests during the rollout, all answered", len(lines))
}

type lockedWriter struct {
	w  *bytes.Buffer
	mu *sync.Mutex
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

// helloPod is the pod name in the demo's "Hello from <pod> (<ip>)".
func helloPod(out string) string {
	_, rest, ok := strings.Cut(out, "Hello from ")
	if !ok {
		return ""
	}
	return strings.Fields(rest)[0]
}

// writeTLSSecret makes a CA and a certificate for host signed by it
// (crypto/x509), stores the certificate as the kubernetes.io/tls Secret
// name with `kubectl create secret tls`, and returns the CA's file.
func writeTLSSecret(t *testing.T, c *testCluster, ns, dir, name, host string) string {
	t.Helper()
	caKey, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	caTmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "ingress e2e CA"}, IsCA: true,
		BasicConstraintsValid: true, KeyUsage: x509.KeyUsageCertSign, NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(24 * time.Hour)}
	caDER, err := x509.CreateCertificate(rand.Reader, caTmpl, caTmpl, &caKey.PublicKey, caKey)
	if err != nil {
		t.Fatal(err)
	}
	ca, _ := x509.ParseCertificate(caDER)
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(2), Subject: pkix.Name{CommonName: host}, DNSNames: []string{host},
		KeyUsage: x509.KeyUsageDigitalSignature, ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(24 * time.Hour)}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, ca, &key.PublicKey, caKey)
	if err != nil {
		t.Fatal(err)
	}
	kder, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		t.Fatal(err)
	}
	files := map[string][]byte{
		"ca.crt":  pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: caDER}),
		"tls.crt": pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}),
		"tls.key": pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: kder}),
	}
	for f, b := range files {
		if err := os.WriteFile(filepath.Join(dir, f), b, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	c.k(t, "create", "secret", "tls", name, "-n", ns, "--cert", filepath.Join(dir, "tls.crt"), "--key", filepath.Join(dir, "tls.key"))
	return filepath.Join(dir, "ca.crt")
}
