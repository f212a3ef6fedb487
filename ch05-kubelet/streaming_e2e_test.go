//go:build linux

package main_test

// End-to-end test of the kubelet API (logs, exec, port-forward) through the
// apiserver with unmodified kubectl 1.33 and 1.27, and of the kubelet
// port's own authentication and authorization.

import (
	"crypto/tls"
	"io"
	"net"
	"net/http"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"kubik/ch01-apiserver/pki"
	"kubik/internal/testenv"
)

const talkerManifest = `apiVersion: v1
kind: Pod
metadata:
  name: talker
spec:
  terminationGracePeriodSeconds: 1
  containers:
  - name: talker
    image: busybox:1.35
    command: ["sh", "-c", "echo line1; echo line2; echo line3; exec sleep 3600"]
---
apiVersion: v1
kind: Pod
metadata:
  name: restarter
spec:
  terminationGracePeriodSeconds: 1
  containers:
  - name: restarter
    image: busybox:1.35
    # PID 1 with a TERM handler: "kill 1" from an exec ends this attempt.
    command: ["sh", "-c", "echo started; trap 'echo stopping; exit 0' TERM; sleep 3600 & wait"]
---
apiVersion: v1
kind: Pod
metadata:
  name: web
spec:
  terminationGracePeriodSeconds: 1
  containers:
  - name: web
    image: kubik.local/demo:1.0
    ports:
    - containerPort: 8080
`

func TestKubeletStreaming(t *testing.T) {
	kubeletPort := testenv.FreePort(t)
	n := startNode(t, "--port", itoa(kubeletPort))
	n.apply("streaming.yaml", talkerManifest)
	for _, p := range []string{"talker", "restarter", "web"} {
		n.eventually(p+" Running", func() (string, bool) {
			out := n.k("get", "pod", p, "-o", "jsonpath={.status.phase} {.status.containerStatuses[0].ready}")
			return out, out == "Running true"
		})
	}
	if port := n.k("get", "node", n.name, "-o", "jsonpath={.status.daemonEndpoints.kubeletEndpoint.Port}"); port != itoa(kubeletPort) {
		t.Errorf("Node's kubeletEndpoint port %q, want %d", port, kubeletPort)
	}

	// The restarter's first attempt ends (its TERM handler prints "stopping");
	// the kubelet restarts it.
	n.c.Kubectl(t, kubectl133, n.dir, "exec", "restarter", "--", "kill", "1") // may race with the exit it causes
	n.eventually("restarter restarted and running", func() (string, bool) {
		out := n.k("get", "pod", "restarter", "-o", "jsonpath={.status.containerStatuses[0].restartCount} {.status.containerStatuses[0].ready}")
		return out, out == "1 true"
	})

	logged := "line1\nline2\nline3\n" // the talker's log; each version's logs -f adds a line
	for _, v := range []string{kubectl133, "1.27"} {
		t.Run("kubectl-"+v, func(t *testing.T) {
			kubectl := func(args ...string) testenv.Result { return n.c.Kubectl(t, v, n.dir, args...) }
			expect := func(r testenv.Result, code int, stdout, stderr string) {
				t.Helper()
				if r.ExitCode != code || r.Stdout != stdout || r.Stderr != stderr {
					t.Errorf("exit %d, stdout %q, stderr %q; want exit %d, stdout %q, stderr %q", r.ExitCode, r.Stdout, r.Stderr, code, stdout, stderr)
				}
			}
			// logs
			lines := strings.SplitAfter(logged, "\n")
			last := lines[len(lines)-2]
			expect(kubectl("logs", "talker"), 0, logged, "")
			expect(kubectl("logs", "talker", "--tail=1"), 0, last, "")
			expect(kubectl("logs", "talker", "--limit-bytes=8"), 0, "line1\nli", "")
			if r := kubectl("logs", "talker", "--timestamps", "--tail=1"); !regexp.MustCompile(`^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{9}Z ` + regexp.QuoteMeta(last) + `$`).MatchString(r.Stdout) {
				t.Errorf("logs --timestamps: %+v", r)
			}
			expect(kubectl("logs", "restarter", "--previous"), 0, "started\nstopping\n", "")
			expect(kubectl("logs", "restarter"), 0, "started\n", "")
			expect(kubectl("logs", "talker", "--previous"), 1, "",
				"Error from server (BadRequest): previous terminated container \"talker\" in pod \"talker\" not found\n")
			expect(kubectl("logs", "talker", "-c", "nope"), 1, "",
				"error: container nope is not valid for pod talker\n")

			// logs -f: a line written later arrives.
			follow := startKubectl(t, n, v, "", "logs", "-f", "talker")
			n.eventually("logs -f shows the old lines", func() (string, bool) {
				return follow.out.String(), follow.out.String() == logged
			})
			n.k("exec", "talker", "--", "sh", "-c", "echo later-"+v+" > /proc/1/fd/1")
			n.eventually("logs -f shows the new line", func() (string, bool) {
				return follow.out.String(), follow.out.String() == logged+"later-"+v+"\n"
			})
			follow.stop()
			logged += "later-" + v + "\n"

			// exec
			expect(kubectl("exec", "talker", "--", "cat", "/etc/hostname"), 0, "talker\n", "")
			expect(kubectl("exec", "talker", "--", "sh", "-c", "echo out; echo err >&2; exit 3"), 3, "out\n", "err\ncommand terminated with exit code 3\n")
			in := startKubectl(t, n, v, "hi from stdin\n", "exec", "-i", "talker", "--", "cat")
			if err := in.cmd.Wait(); err != nil || in.out.String() != "hi from stdin\n" {
				t.Errorf("exec -i with stdin: %v, stdout %q, stderr %q", err, in.out.String(), in.errOut.String())
			}
			if r := kubectl("exec", "talker", "--", "no-such-command"); r.ExitCode == 0 || !strings.Contains(r.Combined(), "no-such-command") {
				t.Errorf("exec of a missing command: %+v", r)
			}

			// port-forward to the demo app, then a request through it.
			pf := startKubectl(t, n, v, "", "port-forward", "pod/web", ":8080")
			fwd := regexp.MustCompile(`Forwarding from 127\.0\.0\.1:(\d+) -> 8080`)
			n.eventually("port-forward listening", func() (string, bool) {
				return pf.out.String() + pf.errOut.String(), fwd.MatchString(pf.out.String())
			})
			local := fwd.FindStringSubmatch(pf.out.String())[1]
			resp, err := http.Get("http://127.0.0.1:" + local + "/")
			if err != nil {
				t.Fatalf("GET through port-forward: %v; kubectl: %s%s", err, pf.out.String(), pf.errOut.String())
			}
			body, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if resp.StatusCode != 200 || !strings.Contains(string(body), "web") {
				t.Errorf("GET through port-forward: %d %q", resp.StatusCode, body)
			}
			n.eventually("kubectl says it handled the connection", func() (string, bool) {
				return pf.out.String(), strings.Contains(pf.out.String(), "Handling connection for "+local)
			})
			pf.stop()
			if pf.errOut.String() != "" { // the WebSocket attempt of 1.31+ fell back to SPDY silently
				t.Errorf("port-forward printed to stderr: %q", pf.errOut.String())
			}
		})
	}

	// The kubelet port itself: who may use it.
	ca, err := pki.EnsureCA(n.dir)
	if err != nil {
		t.Fatal(err)
	}
	kubeletURL := "https://127.0.0.1:" + itoa(kubeletPort)
	get := func(path string, cert *tls.Certificate, token string) (int, string) {
		t.Helper()
		cfg := &tls.Config{RootCAs: ca.CertPool()} // the serving certificate is the cluster CA's
		if cert != nil {
			cfg.Certificates = []tls.Certificate{*cert}
		}
		req, _ := http.NewRequest(http.MethodGet, kubeletURL+path, nil)
		if token != "" {
			req.Header.Set("Authorization", "Bearer "+token)
		}
		tr := &http.Transport{TLSClientConfig: cfg}
		defer tr.CloseIdleConnections()
		resp, err := (&http.Client{Transport: tr}).Do(req)
		if err != nil {
			t.Fatalf("GET %s: %v", path, err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b)
	}
	identity := func(user string, groups ...string) *tls.Certificate {
		certPEM, keyPEM, err := ca.IssueClientCert(user, groups)
		if err != nil {
			t.Fatal(err)
		}
		pair, err := tls.X509KeyPair(certPEM, keyPEM)
		if err != nil {
			t.Fatal(err)
		}
		return &pair
	}
	if code, body := get("/pods", nil, ""); code != 401 || body != "Unauthorized" {
		t.Errorf("anonymous: %d %q", code, body)
	}
	if code, body := get("/pods", nil, "not-a-token"); code != 401 || body != "Unauthorized" {
		t.Errorf("a bad token: %d %q", code, body)
	}
	if code, body := get("/containerLogs/default/talker/talker", identity("jane", "dev"), ""); code != 403 ||
		body != "Forbidden (user=jane, verb=get, resource=nodes, subresource(s)=[proxy])\n" {
		t.Errorf("jane: %d %q", code, body)
	}
	token := n.k("create", "token", "default")
	if code, body := get("/pods", nil, token); code != 403 ||
		body != "Forbidden (user=system:serviceaccount:default:default, verb=get, resource=nodes, subresource(s)=[pods proxy])\n" {
		t.Errorf("a ServiceAccount token: %d %q", code, body)
	}
	admin := identity(pki.Admin.User, pki.Admin.Groups...)
	if code, body := get("/pods", admin, ""); code != 200 || !strings.Contains(body, `"name":"talker"`) || !strings.Contains(body, `"kind":"PodList"`) {
		t.Errorf("admin /pods: %d %.200q", code, body)
	}
	if code, body := get("/containerLogs/default/talker/talker?tailLines=1", admin, ""); code != 200 || body != "later-1.27\n" {
		t.Errorf("admin /containerLogs: %d %q", code, body)
	}
	if code, body := get("/containerLogs/default/nope/talker", admin, ""); code != 404 || body != `pod "nope" does not exist` {
		t.Errorf("admin /containerLogs of a missing pod: %d %q", code, body)
	}

	// A pod on a node without a kubelet (like a hollow node): an error at once.
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	closed := ln.Addr().(*net.TCPAddr).Port
	ln.Close()
	writeFile(t, n.dir, "ghost.yaml", `apiVersion: v1
kind: Node
metadata:
  name: ghost
---
apiVersion: v1
kind: Pod
metadata:
  name: ghostpod
spec:
  nodeName: ghost
  containers:
  - name: c
    image: busybox:1.35
`)
	n.k("apply", "-f", "ghost.yaml")
	n.k("patch", "node", "ghost", "--subresource=status", "--type=merge", "-p",
		`{"status":{"addresses":[{"type":"InternalIP","address":"127.0.0.1"}],"daemonEndpoints":{"kubeletEndpoint":{"Port":`+itoa(closed)+`}}}}`)
	r := n.c.Kubectl(t, kubectl133, n.dir, "logs", "ghostpod")
	want := `Error from server: Get "https://127.0.0.1:` + itoa(closed) + `/containerLogs/default/ghostpod/c": dial tcp 127.0.0.1:` + itoa(closed) + ": connect: connection refused\n"
	if r.ExitCode != 1 || r.Stderr != want {
		t.Errorf("logs of a pod whose node has no kubelet: %+v\nwant stderr %q", r, want)
	}
	n.k("delete", "pod", "ghostpod", "--grace-period=0", "--force")
	n.k("delete", "node", "ghost")
}

// bgKubectl is a kubectl running in the background (logs -f,
// port-forward, exec -i with stdin).
type bgKubectl struct {
	cmd         *exec.Cmd
	out, errOut *testenv.SyncBuffer
}

// startKubectl starts kubectl <version> args with stdin; the test's
// cleanup kills it (by its PID) if it still runs.
func startKubectl(t *testing.T, n *node, version, stdin string, args ...string) *bgKubectl {
	t.Helper()
	bin := testenv.Kubectl(t, version)
	cmd := exec.Command(bin, append([]string{"--kubeconfig", n.c.Kubeconfig, "--cache-dir", filepath.Join(t.TempDir(), "cache")}, args...)...)
	cmd.Dir = n.dir
	b := &bgKubectl{cmd: cmd, out: &testenv.SyncBuffer{}, errOut: &testenv.SyncBuffer{}}
	cmd.Stdout, cmd.Stderr = b.out, b.errOut
	cmd.Stdin = strings.NewReader(stdin)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(b.stop)
	return b
}

// stop kills the kubectl if it still runs and waits for it.
func (b *bgKubectl) stop() {
	if b.cmd.ProcessState == nil {
		b.cmd.Process.Kill()
		b.cmd.Wait()
	}
}
