package main

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"kubik/ch01-apiserver/pki"
	pt "kubik/ch07-kube-proxy/proxy/proxytest"
	"kubik/internal/clienttest"
	"kubik/internal/testenv"
)

const e2eObjects = `
apiVersion: v1
kind: Node
metadata: {name: node-1}
---
apiVersion: v1
kind: Service
metadata: {name: web, namespace: default}
spec: {clusterIP: 10.96.0.10, ports: [{name: http, port: 80, protocol: TCP}]}
---
apiVersion: discovery.k8s.io/v1
kind: EndpointSlice
metadata: {name: web-1, namespace: default, labels: {kubernetes.io/service-name: web}}
addressType: IPv4
endpoints:
- {addresses: [10.244.1.2], nodeName: node-1}
- {addresses: [10.244.2.2], nodeName: node-1}
ports: [{name: http, port: 8080, protocol: TCP}]
---
apiVersion: v1
kind: Service
metadata: {name: other, namespace: default, labels: {service.kubernetes.io/service-proxy-name: someone-else}}
spec: {clusterIP: 10.96.0.12, ports: [{name: http, port: 80, protocol: TCP}]}
`

// waitFor polls cond until it holds (generous deadline).
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// TestKubeProxyE2E runs the kube-proxy binary in a scratch node namespace
// against a real chapter 1 apiserver listening inside that namespace, as
// system:kube-proxy, in both modes: the Service's rules appear, traffic
// reaches both pods, a Service labelled for another proxy gets no rules,
// deleting the EndpointSlice makes the ClusterIP refuse connections, and
// /healthz answers.
func TestKubeProxyE2E(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("needs root")
	}
	bin := filepath.Join(t.TempDir(), "kube-proxy")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("build: %v\n%s", err, out)
	}
	for _, mode := range []string{"iptables", "nftables"} {
		t.Run(mode, func(t *testing.T) { runE2E(t, bin, mode) })
	}
}

func runE2E(t *testing.T, bin, mode string) {
	tp := pt.NewTopology(t)
	pt.Serve(t, tp.Pod1, 8080, "pod1")
	pt.Serve(t, tp.Pod2, 8080, "pod2")

	// The apiserver's listener is created inside the node namespace, so
	// kube-proxy there reaches it on 127.0.0.1.
	var env *clienttest.Env
	_ = pt.Do(t, tp.Node, func() error { env = clienttest.Start(t, nil); return nil })
	admin := env.Kubeconfig(t, pki.Admin)
	kpConfig := env.Kubeconfig(t, pki.KubeProxy)
	kubectl := func(stdin string, args ...string) string {
		cmd := exec.Command("ip", append([]string{"netns", "exec", tp.Node, "kubectl", "--kubeconfig", admin}, args...)...)
		cmd.Stdin = strings.NewReader(stdin)
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("kubectl %s: %v\n%s", strings.Join(args, " "), err, out)
		}
		return string(out)
	}
	kubectl(e2eObjects, "apply", "-f", "-")
	// kube-proxy takes its node IP from the Node's status.
	kubectl("", "patch", "node", "node-1", "--subresource=status", "--type=merge",
		"-p", `{"status":{"addresses":[{"type":"InternalIP","address":"10.244.1.1"}]}}`)

	var logs testenv.SyncBuffer
	cmd := exec.Command("ip", "netns", "exec", tp.Node, bin, "--kubeconfig", kpConfig, "--proxy-mode", mode,
		"--hostname-override", "node-1", "--cluster-cidr", "10.244.0.0/16", "--iptables-min-sync-period", "0",
		"--healthz-bind-address", "127.0.0.1:10256", "--metrics-bind-address", "127.0.0.1:10249", "--v", "2")
	cmd.Stdout, cmd.Stderr = &logs, &logs
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = cmd.Process.Signal(syscall.SIGTERM)
		done := make(chan struct{})
		go func() { _ = cmd.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(30 * time.Second):
			_ = cmd.Process.Kill()
			<-done
		}
		if t.Failed() {
			t.Logf("kube-proxy logs:\n%s", logs.String())
		}
	})

	rules := func() string {
		if mode == "iptables" {
			out, _ := exec.Command("ip", "netns", "exec", tp.Node, "iptables-save").Output()
			return string(out)
		}
		out, _ := exec.Command("ip", "netns", "exec", tp.Node, "nft", "list", "ruleset").Output()
		return string(out)
	}
	waitFor(t, "the Service's rules", func() bool { return strings.Contains(rules(), "10.244.2.2:8080") })
	if r := rules(); strings.Contains(r, "10.96.0.12") {
		t.Errorf("a Service for another proxy got rules:\n%s", r)
	}

	seen := map[string]int{}
	for i := 0; i < 40 && (seen["pod1"] == 0 || seen["pod2"] == 0); i++ {
		got, err := pt.Dial(t, tp.Client, "10.96.0.10:80")
		if err != nil {
			t.Fatalf("dial ClusterIP: %v", err)
		}
		seen[got]++
	}
	if seen["pod1"] == 0 || seen["pod2"] == 0 {
		t.Errorf("ClusterIP did not balance over both pods: %v", seen)
	}

	health, err := exec.Command("ip", "netns", "exec", tp.Node, "curl", "-s", "-i", "http://127.0.0.1:10256/healthz").Output()
	if err != nil || !strings.Contains(string(health), "200 OK") || !strings.Contains(string(health), `"healthy":true`) {
		t.Errorf("healthz: %v\n%s", err, health)
	}

	kubectl("", "delete", "endpointslice", "web-1")
	waitFor(t, "the Service to lose its endpoints", func() bool { return !strings.Contains(rules(), "10.244.2.2:8080") })
	if _, err := pt.Dial(t, tp.Client, "10.96.0.10:80"); !errors.Is(err, syscall.ECONNREFUSED) {
		t.Errorf("dial to the Service without endpoints: %v, want connection refused", err)
	}
	if !strings.Contains(logs.String(), "nodeIP=10.244.1.1") {
		t.Errorf("kube-proxy did not take its node IP from the Node:\n%s", logs.String())
	}
	if !strings.Contains(logs.String(), "component=kube-proxy") {
		t.Errorf("logs lack component=kube-proxy:\n%s", logs.String())
	}
}
