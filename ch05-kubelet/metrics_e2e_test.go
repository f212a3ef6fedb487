//go:build linux

package main_test

// End-to-end test of the resource metrics pipeline on one chapter 5
// cluster: the real node (a CPU-burning busybox) and a hollow node
// (simulated load), the kubelets' /metrics/resource, the metrics server
// asked directly (its authentication and authorization), and — once the
// apiserver serves apiregistration.k8s.io — `kubectl top` (1.33, 1.27) and
// the horizontal pod autoscaler scaling on CPU up and down, on both nodes;
// then the chapter's metrics lab, with kubectl 1.33.
//
// The cluster runs in a network namespace of the test's own with the node
// at 10.240.5.1 on a link inside it: the metrics server listens on
// the node's IP, and upstream's EndpointSlice validation (which the
// aggregated API follows to reach it) refuses loopback addresses.

import (
	"crypto/rand"
	"crypto/tls"
	"encoding/hex"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"kubik/ch01-apiserver/api/resource"
	"kubik/ch01-apiserver/pki"
	"kubik/ch05-kubelet/images"
	"kubik/internal/labtest"
	"kubik/internal/testenv"
)

const metricsNodeIP = "10.240.5.1"

const burnerDeployment = `apiVersion: apps/v1
kind: Deployment
metadata: {name: burn}
spec:
  replicas: 1
  selector: {matchLabels: {app: burn}}
  template:
    metadata: {labels: {app: burn}}
    spec:
      nodeSelector: {kubernetes.io/hostname: kubik-e2e-metrics}
      terminationGracePeriodSeconds: 0
      containers:
      - name: burner
        image: busybox:1.35
        command: [sh, -c, "while :; do :; done"]
        resources: {requests: {cpu: 100m}}
`

const simDeployment = `apiVersion: apps/v1
kind: Deployment
metadata: {name: sim}
spec:
  replicas: 1
  selector: {matchLabels: {app: sim}}
  template:
    metadata:
      labels: {app: sim}
      annotations: {kubik.io/simulated-cpu: 200m, kubik.io/simulated-memory: 64Mi}
    spec:
      nodeSelector: {kubik.io/hollow-node: "true"}
      containers:
      - name: app
        image: nginx
        resources: {requests: {cpu: 100m}}
`

func TestResourceMetrics(t *testing.T) {
	if testing.Short() {
		t.Skip("starts containerd and real containers")
	}
	if runtime.GOOS != "linux" || os.Geteuid() != 0 {
		t.Skip("chapter 5's end-to-end tests run containers: they need Linux and root")
	}
	ensureDeps(t)
	testenv.Kubectl(t, kubectl133)
	testenv.Kubectl(t, "1.27")
	sb := nodeNamespace(t)
	dir := t.TempDir()
	if err := images.Build(filepath.Join(dir, "images")); err != nil {
		t.Fatal(err)
	}
	bin := testenv.Build(t, "kubik/ch05-kubelet")
	const node = "kubik-e2e-metrics"
	c := testenv.Start(t, bin, testenv.Options{DataDir: dir, Sandbox: sb, StopGrace: time.Minute, Args: []string{
		"--hostname-override", node, "--node-ip", metricsNodeIP, "--hollow-nodes=1", "--metric-resolution=2s",
		"--horizontal-pod-autoscaler-sync-period=2s", "--horizontal-pod-autoscaler-downscale-stabilization=4s"}})
	k := func(args ...string) string { t.Helper(); return c.MustKubectl(t, kubectl133, dir, args...) }
	eventually := func(what string, f func() (string, bool)) {
		t.Helper()
		testenv.Eventually(t, what, 2*time.Minute, f)
	}
	eventually("both nodes Ready", func() (string, bool) {
		out := k("get", "nodes", "-o", `jsonpath={range .items[*]}{.metadata.name}={.status.conditions[?(@.type=="Ready")].status} {end}`)
		return out, strings.Contains(out, node+"=True") && strings.Contains(out, "hollow-node-1=True")
	})
	// The hollow node reports the port of its kubelet API.
	if port := k("get", "node", "hollow-node-1", "-o", "jsonpath={.status.daemonEndpoints.kubeletEndpoint.Port}"); port == "0" || port == "" {
		t.Errorf("hollow-node-1 reports kubelet port %q", port)
	}

	writeFile(t, dir, "burn.yaml", burnerDeployment)
	writeFile(t, dir, "sim.yaml", simDeployment)
	k("apply", "-f", "burn.yaml", "-f", "sim.yaml")
	eventually("burn and sim Running", func() (string, bool) {
		out := k("get", "pods", "-o", `jsonpath={range .items[*]}{.metadata.labels.app}={.status.phase} {end}`)
		return out, strings.Contains(out, "burn=Running") && strings.Contains(out, "sim=Running")
	})
	burner := strings.TrimPrefix(k("get", "pods", "-l", "app=burn", "-o", "name"), "pod/")

	// 1. The kubelet's /metrics/resource, asked as the admin (nodes/metrics).
	kc, err := pki.LoadKubeconfig(c.Kubeconfig)
	if err != nil {
		t.Fatal(err)
	}
	hc := &http.Client{Timeout: 10 * time.Second, Transport: &http.Transport{DialContext: sb.DialContext,
		TLSClientConfig: &tls.Config{Certificates: kc.TLS.Certificates, RootCAs: kc.TLS.RootCAs}}}
	get := func(hc *http.Client, url, token string) (int, string) {
		t.Helper()
		req, _ := http.NewRequest(http.MethodGet, url, nil)
		if token != "" {
			req.Header.Set("Authorization", "Bearer "+token)
		}
		resp, err := hc.Do(req)
		if err != nil {
			return 0, err.Error()
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b)
	}
	cpuLine := regexp.MustCompile(`(?m)^container_cpu_usage_seconds_total\{container="burner",namespace="default",pod="` + regexp.QuoteMeta(burner) + `"\} ([0-9.e+]+) \d+$`)
	eventually("the burner's CPU time on the kubelet", func() (string, bool) {
		code, body := get(hc, "https://"+metricsNodeIP+":10250/metrics/resource", "")
		m := cpuLine.FindStringSubmatch(body)
		if code != http.StatusOK || m == nil {
			return body, false
		}
		v, _ := strconv.ParseFloat(m[1], 64)
		return body, v > 0 && strings.Contains(body, "# HELP node_cpu_usage_seconds_total [STABLE] Cumulative cpu time consumed by the node in core-seconds\n# TYPE node_cpu_usage_seconds_total counter\n") &&
			strings.Contains(body, "\nresource_scrape_error 0\n")
	})

	// 2. The metrics server itself: a service account's token is
	// authenticated (TokenReview) and authorized (SubjectAccessReview).
	addr := regexp.MustCompile(`msg="serving metrics.k8s.io/v1beta1" .*address=(\S+)`)
	var ms string
	eventually("the metrics server serving", func() (string, bool) {
		m := addr.FindStringSubmatch(c.Logs())
		if m != nil {
			ms = m[1]
		}
		return c.Logs(), m != nil
	})
	if !strings.HasPrefix(ms, metricsNodeIP+":") {
		t.Errorf("metrics server at %s, want the node's IP", ms)
	}
	msc := &http.Client{Timeout: 10 * time.Second, Transport: &http.Transport{DialContext: sb.DialContext,
		TLSClientConfig: &tls.Config{RootCAs: kc.TLS.RootCAs, ServerName: "metrics-server.kube-system.svc"}}}
	k("create", "serviceaccount", "viewer")
	token := strings.TrimSpace(k("create", "token", "viewer"))
	base := "https://" + ms + "/apis/metrics.k8s.io/v1beta1"
	code, body := get(msc, base+"/namespaces/default/pods/"+burner, token)
	want := `pods.metrics.k8s.io \"` + burner + `\" is forbidden: User \"system:serviceaccount:default:viewer\" cannot get resource \"pods\" in API group \"metrics.k8s.io\" in the namespace \"default\"`
	if code != http.StatusForbidden || !strings.Contains(body, `"message":"`+want+`"`) {
		t.Errorf("unauthorized get: %d %s\nwant 403 with %s", code, body, want)
	}
	if code, body := get(msc, base+"/nodes", ""); code != http.StatusUnauthorized || !strings.Contains(body, `"message":"Unauthorized"`) {
		t.Errorf("anonymous list: %d %s", code, body)
	}
	k("create", "clusterrolebinding", "viewer-metrics", "--clusterrole=system:aggregated-metrics-reader", "--serviceaccount=default:viewer")
	type usage struct {
		CPU    resource.Quantity `json:"cpu"`
		Memory resource.Quantity `json:"memory"`
	}
	var pm struct {
		Kind       string
		Metadata   struct{ Name, Namespace string }
		Window     string
		Containers []struct {
			Name  string
			Usage usage
		}
	}
	eventually("PodMetrics of the burner", func() (string, bool) {
		code, body := get(msc, base+"/namespaces/default/pods/"+burner, token)
		if code != http.StatusOK || json.Unmarshal([]byte(body), &pm) != nil || len(pm.Containers) != 1 {
			return body, false
		}
		return body, pm.Kind == "PodMetrics" && pm.Containers[0].Name == "burner" && pm.Containers[0].Usage.CPU.MilliValue() >= 100
	})
	sim := strings.TrimPrefix(k("get", "pods", "-l", "app=sim", "-o", "name"), "pod/")
	eventually("PodMetrics of the simulated pod: its annotations exactly", func() (string, bool) {
		code, body := get(msc, base+"/namespaces/default/pods/"+sim, token)
		if code != http.StatusOK || json.Unmarshal([]byte(body), &pm) != nil || len(pm.Containers) != 1 {
			return body, false
		}
		u := pm.Containers[0].Usage
		return body, u.CPU.String() == "200m" && u.Memory.String() == "64Mi"
	})
	var nl struct {
		Kind  string
		Items []struct {
			Metadata struct{ Name string }
			Usage    usage
		}
	}
	eventually("NodeMetrics of both nodes", func() (string, bool) {
		code, body := get(msc, base+"/nodes", token)
		if code != http.StatusOK || json.Unmarshal([]byte(body), &nl) != nil || len(nl.Items) != 2 {
			return body, false
		}
		return body, nl.Kind == "NodeMetricsList" && nl.Items[0].Metadata.Name == "hollow-node-1" && nl.Items[0].Usage.CPU.String() == "200m" &&
			nl.Items[1].Metadata.Name == node && nl.Items[1].Usage.CPU.MilliValue() >= 100
	})
	code, body = get(msc, base+"/nodes?labelSelector=kubik.io/hollow-node%3Dtrue", token)
	if code != http.StatusOK || json.Unmarshal([]byte(body), &nl) != nil || len(nl.Items) != 1 || nl.Items[0].Metadata.Name != "hollow-node-1" {
		t.Errorf("nodes with labelSelector: %d %s", code, body)
	}
	code, body = get(msc, base+"/namespaces/default/pods/nope", token)
	if want := `"message":"podmetrics.metrics.k8s.io \"default/nope\" not found"`; code != http.StatusNotFound || !strings.Contains(body, want) {
		t.Errorf("get of a missing pod: %d %s, want 404 %s", code, body, want)
	}

	// 3. Through the aggregation layer: kubectl top and the autoscaler.
	if r := c.Kubectl(t, kubectl133, dir, "get", "apiservice", "v1beta1.metrics.k8s.io"); r.ExitCode != 0 {
		t.Fatalf("the metrics server's APIService is not there: %s", r.Combined())
	}
	eventually("APIService v1beta1.metrics.k8s.io Available", func() (string, bool) {
		out := k("get", "apiservice", "v1beta1.metrics.k8s.io", "-o", `jsonpath={.status.conditions[?(@.type=="Available")].status}`)
		return out, out == "True"
	})
	// kubectl 1.33 writes CPU(%) where 1.27 writes CPU%.
	for v, pct := range map[string]string{kubectl133: `\(%\)`, "1.27": `%`} {
		topHead := regexp.MustCompile(`^NAME\s+CPU\(cores\)\s+CPU` + pct + `\s+MEMORY\(bytes\)\s+MEMORY` + pct + `\s*\n`)
		eventually("kubectl "+v+" top nodes", func() (string, bool) {
			out := c.MustKubectl(t, v, dir, "top", "nodes")
			return out, topHead.MatchString(out) && regexp.MustCompile(`(?m)^hollow-node-1\s+200m\s+5%\s+64Mi\s+0%\s*$`).MatchString(out) &&
				regexp.MustCompile(`(?m)^`+node+`\s+\d+m\s+\d+%\s+\d+Mi\s+\d+%\s*$`).MatchString(out)
		})
		eventually("kubectl "+v+" top pod --containers", func() (string, bool) {
			out := c.MustKubectl(t, v, dir, "top", "pod", sim, "--containers")
			return out, regexp.MustCompile(`^POD\s+NAME\s+CPU\(cores\)\s+MEMORY\(bytes\)\s*\n` + sim + `\s+app\s+200m\s+64Mi\s*$`).MatchString(out)
		})
	}
	eventually("kubectl top pods -A shows the burner busy", func() (string, bool) {
		out := k("top", "pods", "-A")
		m := regexp.MustCompile(`(?m)^default\s+` + regexp.QuoteMeta(burner) + `\s+(\d+)m\s+\d+Mi\s*$`).FindStringSubmatch(out)
		if m == nil {
			return out, false
		}
		n, _ := strconv.Atoi(m[1])
		return out, strings.HasPrefix(out, "NAMESPACE ") && n >= 100
	})

	// The autoscaler on the real node: the burner uses far more than 50 %
	// of its 100m, so 1 → 2; then a target it cannot reach: 2 → 1.
	k("autoscale", "deployment", "burn", "--cpu-percent=50", "--min=1", "--max=2")
	k("autoscale", "deployment", "sim", "--cpu-percent=50", "--min=1", "--max=4")
	eventually("burn scaled up to 2 and sim to 4", func() (string, bool) {
		out := k("get", "deployment", "burn", "sim", "-o", "jsonpath={.items[*].spec.replicas}")
		return out, out == "2 4"
	})
	k("patch", "hpa", "burn", "--type=merge", "-p",
		`{"spec":{"metrics":[{"type":"Resource","resource":{"name":"cpu","target":{"type":"Utilization","averageUtilization":100000}}}]}}`)
	// The simulated load drops to 10m a pod: 10 % of the request.
	k("annotate", "pods", "-l", "app=sim", "kubik.io/simulated-cpu=10m", "--overwrite")
	eventually("burn and sim scaled down to 1", func() (string, bool) {
		out := k("get", "deployment", "burn", "sim", "-o", "jsonpath={.items[*].spec.replicas}")
		return out, out == "1 1"
	})
	for _, hpa := range []string{"burn", "sim"} {
		out := k("get", "events", "--field-selector", "involvedObject.kind=HorizontalPodAutoscaler,involvedObject.name="+hpa,
			"-o", `jsonpath={range .items[*]}{.reason}: {.message}{"\n"}{end}`) + "\n"
		max := map[string]string{"burn": "2", "sim": "4"}[hpa]
		for _, want := range []string{
			"SuccessfulRescale: New size: " + max + "; reason: cpu resource utilization (percentage of request) above target\n",
			"SuccessfulRescale: New size: 1; reason: All metrics below target\n",
		} {
			if !strings.Contains(out, want) {
				t.Errorf("events of hpa/%s:\n%s\nwant %q", hpa, out, want)
			}
		}
	}

	// The chapter's metrics lab (docs/ch05-kubelet.md, the blocks marked
	// lab=metrics), run in this cluster's network namespace.
	labtest.Run(t, "../docs/ch05-kubelet.md", labtest.Env{Kubectl: testenv.Kubectl(t, kubectl133), Kubeconfig: c.Kubeconfig,
		NetNS: sb.Name, Lab: "metrics", Vars: []string{"DATA_DIR=" + dir}})
}

// nodeNamespace is a network namespace for the cluster, removed when the
// test ends: loopback, and metricsNodeIP on one end of a veth pair whose
// both ends stay inside — an address that is not loopback yet leads
// nowhere outside the namespace.
func nodeNamespace(t *testing.T) *testenv.Sandbox {
	t.Helper()
	b := make([]byte, 3)
	rand.Read(b)
	ns := "kubik-metrics-" + hex.EncodeToString(b)
	run := func(args ...string) {
		t.Helper()
		if out, err := exec.Command("ip", args...).CombinedOutput(); err != nil {
			t.Fatalf("ip %s: %v\n%s", strings.Join(args, " "), err, out)
		}
	}
	run("netns", "add", ns)
	t.Cleanup(func() { exec.Command("ip", "netns", "del", ns).Run() })
	run("-n", ns, "link", "set", "lo", "up")
	run("-n", ns, "link", "add", "node0", "type", "veth", "peer", "name", "node1")
	run("-n", ns, "addr", "add", metricsNodeIP+"/32", "dev", "node0")
	run("-n", ns, "link", "set", "node0", "up")
	run("-n", ns, "link", "set", "node1", "up")
	return &testenv.Sandbox{Name: ns}
}
