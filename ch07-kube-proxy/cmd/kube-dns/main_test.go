package main_test

import (
	"context"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/miekg/dns"

	"kubik/ch01-apiserver/api/authenticationv1"
	"kubik/ch01-apiserver/api/corev1"
	"kubik/ch01-apiserver/api/metav1"
	"kubik/ch01-apiserver/api/rbacv1"
	"kubik/ch01-apiserver/pki"
	"kubik/ch03-scheduler/clientgo/rest"
	"kubik/internal/testenv"
)

// TestMain removes the binaries the tests built.
func TestMain(m *testing.M) { testenv.Main(m) }

// kubeDNS is a running kube-dns binary on loopback ports.
type kubeDNS struct {
	proc                   *testenv.Process
	dnsAddr                string
	health, ready, metrics string // base URLs
}

// startKubeDNS runs the binary on free loopback ports, under prefix (a
// command that runs it: env, unshare), retrying when a port was taken in
// between.
func startKubeDNS(t *testing.T, prefix []string, args ...string) *kubeDNS {
	t.Helper()
	bin := testenv.Build(t, "kubik/ch07-kube-proxy/cmd/kube-dns")
	for attempt := 0; ; attempt++ {
		ports := make([]int, 4)
		for i := range ports {
			ports[i] = testenv.FreePort(t)
		}
		k := &kubeDNS{dnsAddr: "127.0.0.1:" + strconv.Itoa(ports[0]),
			health:  "http://127.0.0.1:" + strconv.Itoa(ports[1]),
			ready:   "http://127.0.0.1:" + strconv.Itoa(ports[2]),
			metrics: "http://127.0.0.1:" + strconv.Itoa(ports[3])}
		all := append(append([]string{}, prefix...), bin, "--dns-bind-address=127.0.0.1", "--dns-port="+strconv.Itoa(ports[0]),
			"--health-bind-address="+strings.TrimPrefix(k.health, "http://"),
			"--ready-bind-address="+strings.TrimPrefix(k.ready, "http://"),
			"--metrics-bind-address="+strings.TrimPrefix(k.metrics, "http://"), "--lameduck=1s")
		all = append(all, args...)
		k.proc = testenv.StartProcess(t, all[0], all[1:]...)
		if waitHTTP(k, k.health+"/health") {
			return k
		}
		if attempt == 2 || !strings.Contains(k.proc.Logs.String(), "address already in use") {
			t.Fatalf("kube-dns did not start:\n%s", k.proc.Logs.String())
		}
	}
}

// waitHTTP waits until url answers or the process exits.
func waitHTTP(k *kubeDNS, url string) bool {
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		select {
		case <-k.proc.Done:
			return false
		default:
		}
		if resp, err := http.Get(url); err == nil {
			resp.Body.Close()
			return true
		}
		time.Sleep(50 * time.Millisecond)
	}
	return false
}

func get(t *testing.T, url string) (int, string) {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

func query(t *testing.T, addr, network, name string, qtype uint16) *dns.Msg {
	t.Helper()
	c := &dns.Client{Net: network, Timeout: 10 * time.Second}
	m, _, err := c.Exchange(new(dns.Msg).SetQuestion(name, qtype), addr)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func eventuallyA(t *testing.T, k *kubeDNS, name, want string) {
	t.Helper()
	testenv.Eventually(t, name, 60*time.Second, func() (string, bool) {
		m := query(t, k.dnsAddr, "udp", name, dns.TypeA)
		got := dns.RcodeToString[m.Rcode]
		for _, rr := range m.Answer {
			if a, ok := rr.(*dns.A); ok {
				got += " " + a.A.String()
			}
		}
		return got, got == want
	})
}

// TestWithKubeconfig runs kube-dns against the chapter 1 apiserver with a
// kubeconfig: /health at once, /ready once the informers synced, answers,
// /metrics counting them, and a clean stop on SIGTERM after the lameduck.
func TestWithKubeconfig(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and starts the chapter 1 apiserver")
	}
	cluster := testenv.Start(t, testenv.Build(t, "kubik/ch01-apiserver"), testenv.Options{})
	k := startKubeDNS(t, nil, "--kubeconfig="+cluster.Kubeconfig)

	if code, body := get(t, k.health+"/health"); code != 200 || body != "OK" {
		t.Errorf("/health: %d %q", code, body)
	}
	testenv.Eventually(t, "/ready", 60*time.Second, func() (string, bool) {
		code, body := get(t, k.ready+"/ready")
		return strconv.Itoa(code) + " " + body, code == 200 && body == "OK"
	})
	eventuallyA(t, k, "kubernetes.default.svc.cluster.local.", "NOERROR 10.96.0.1")
	if m := query(t, k.dnsAddr, "tcp", "kubernetes.default.svc.cluster.local.", dns.TypeA); len(m.Answer) != 1 {
		t.Errorf("over TCP: %v", m)
	}
	if m := query(t, k.dnsAddr, "udp", "example.com.", dns.TypeA); m.Rcode != dns.RcodeServerFailure {
		t.Errorf("example.com: %s, want SERVFAIL", dns.RcodeToString[m.Rcode])
	}
	_, metrics := get(t, k.metrics+"/metrics")
	for _, want := range []string{`coredns_dns_requests_total{proto="udp",type="A"}`, `coredns_dns_requests_total{proto="tcp",type="A"} 1`,
		`coredns_dns_responses_total{rcode="SERVFAIL"} 1`} {
		if !strings.Contains(metrics, want) {
			t.Errorf("/metrics lacks %s:\n%s", want, metrics)
		}
	}
	testenv.Eventually(t, "log lines", 30*time.Second, func() (string, bool) {
		logs := k.proc.Logs.String()
		for _, want := range []string{"component=kube-dns", `msg="serving DNS"`, `msg="informers synced"`} {
			if !strings.Contains(logs, want) {
				return logs, false
			}
		}
		return logs, true
	})

	// SIGTERM: it goes on answering for the lameduck second, then exits 0.
	k.proc.Cmd.Process.Signal(syscall.SIGTERM)
	<-k.proc.Done
	if code := k.proc.Cmd.ProcessState.ExitCode(); code != 0 {
		t.Errorf("exit code %d after SIGTERM:\n%s", code, k.proc.Logs.String())
	}
	if !strings.Contains(k.proc.Logs.String(), "lameduck") {
		t.Errorf("no lameduck line:\n%s", k.proc.Logs.String())
	}
}

// TestInCluster runs kube-dns as in its pod: no --kubeconfig, the
// apiserver from KUBERNETES_SERVICE_HOST and KUBERNETES_SERVICE_PORT, and
// the service-account volume at /var/run/secrets/kubernetes.io/serviceaccount
// (a test directory bind-mounted there, in a mount namespace of the
// process's own). The token file first holds a token the apiserver
// rejects (401); then the test writes one a TokenRequest issued for
// kube-system/coredns, bound to kubeadm's ClusterRole system:coredns, as
// the kubelet writes a rotated token: kube-dns reads the new token and
// becomes ready.
func TestInCluster(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("needs root for a mount namespace")
	}
	if testing.Short() {
		t.Skip("builds and starts the chapter 1 apiserver")
	}
	cluster := testenv.Start(t, testenv.Build(t, "kubik/ch01-apiserver"), testenv.Options{})
	admin, err := rest.New(cluster.Kubeconfig, "kube-dns-test")
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	_, err = rest.Create(ctx, admin, &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: "coredns", Namespace: "kube-system"}})
	must(err)
	_, err = rest.Create(ctx, admin, &rbacv1.ClusterRole{ObjectMeta: metav1.ObjectMeta{Name: "system:coredns"}, Rules: []rbacv1.PolicyRule{
		{Verbs: []string{"list", "watch"}, APIGroups: []string{""}, Resources: []string{"endpoints", "services", "pods", "namespaces"}},
		{Verbs: []string{"list", "watch"}, APIGroups: []string{"discovery.k8s.io"}, Resources: []string{"endpointslices"}},
	}})
	must(err)
	_, err = rest.Create(ctx, admin, &rbacv1.ClusterRoleBinding{ObjectMeta: metav1.ObjectMeta{Name: "system:coredns"},
		RoleRef:  rbacv1.RoleRef{APIGroup: "rbac.authorization.k8s.io", Kind: "ClusterRole", Name: "system:coredns"},
		Subjects: []rbacv1.Subject{{Kind: "ServiceAccount", Name: "coredns", Namespace: "kube-system"}}})
	must(err)
	tr := &authenticationv1.TokenRequest{}
	must(rest.CreateSubresource[corev1.ServiceAccount](ctx, admin, "kube-system", "coredns", "token", tr, tr))
	if tr.Status.Token == "" {
		t.Fatal("TokenRequest gave no token")
	}

	saDir := t.TempDir()
	ca, err := os.ReadFile(filepath.Join(pki.Dir(cluster.DataDir), pki.CACertFile))
	must(err)
	must(os.WriteFile(filepath.Join(saDir, "ca.crt"), ca, 0o644))
	must(os.WriteFile(filepath.Join(saDir, "namespace"), []byte("kube-system"), 0o644))
	must(os.WriteFile(filepath.Join(saDir, "token"), []byte("not-a-token"), 0o600))

	// In the process's own mount namespace: a tmpfs over /run (so the
	// mount point can be made without touching the machine's /run) and
	// the test directory where the kubelet mounts the volume.
	const script = `mount -t tmpfs tmpfs /run && mkdir -p /run/secrets/kubernetes.io/serviceaccount &&
mount --bind "$0" /run/secrets/kubernetes.io/serviceaccount && exec "$@"`
	prefix := []string{"env", "KUBERNETES_SERVICE_HOST=127.0.0.1", "KUBERNETES_SERVICE_PORT=" + strconv.Itoa(cluster.Port),
		"unshare", "--mount", "--propagation", "private", "sh", "-c", script, saDir}
	k := startKubeDNS(t, prefix)

	testenv.Eventually(t, "the apiserver rejecting the first token", 60*time.Second, func() (string, bool) {
		logs := k.proc.Logs.String()
		return logs, strings.Contains(logs, "Unauthorized")
	})
	if code, body := get(t, k.ready+"/ready"); code != http.StatusServiceUnavailable || body != "kubernetes" {
		t.Errorf("/ready with a rejected token: %d %q, want 503 \"kubernetes\"", code, body)
	}
	if m := query(t, k.dnsAddr, "udp", "nope.default.svc.cluster.local.", dns.TypeA); m.Rcode != dns.RcodeServerFailure {
		t.Errorf("unknown name before the first list: %s, want SERVFAIL", dns.RcodeToString[m.Rcode])
	}

	// The kubelet writes a rotated token: a new file renamed into place.
	tmp := filepath.Join(saDir, ".token.tmp")
	must(os.WriteFile(tmp, []byte(tr.Status.Token), 0o600))
	must(os.Rename(tmp, filepath.Join(saDir, "token")))
	testenv.Eventually(t, "/ready", 90*time.Second, func() (string, bool) {
		code, body := get(t, k.ready+"/ready")
		return strconv.Itoa(code) + " " + body, code == 200
	})
	eventuallyA(t, k, "kubernetes.default.svc.cluster.local.", "NOERROR 10.96.0.1")
	eventuallyA(t, k, "nope.default.svc.cluster.local.", "NXDOMAIN")
}

// TestNotInCluster: without --kubeconfig and outside a pod, kube-dns says
// so (client-go's message) and exits 1.
func TestNotInCluster(t *testing.T) {
	bin := testenv.Build(t, "kubik/ch07-kube-proxy/cmd/kube-dns")
	cmd := exec.Command(bin, "--dns-bind-address=127.0.0.1", "--dns-port=0")
	cmd.Env = []string{"PATH=" + os.Getenv("PATH")}
	out, err := cmd.CombinedOutput()
	if cmd.ProcessState == nil || cmd.ProcessState.ExitCode() != 1 ||
		!strings.Contains(string(out), "unable to load in-cluster configuration, KUBERNETES_SERVICE_HOST and KUBERNETES_SERVICE_PORT must be defined") {
		t.Errorf("kube-dns outside a pod: %v\n%s", err, out)
	}
}
