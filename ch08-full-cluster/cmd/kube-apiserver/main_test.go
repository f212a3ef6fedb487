package main

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/base64"
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"go.etcd.io/etcd/client/pkg/v3/transport"
	clientv3 "go.etcd.io/etcd/client/v3"
	"go.uber.org/zap"

	"kubik/ch08-full-cluster/pki"
	"kubik/internal/testenv"
)

func TestMain(m *testing.M) { testenv.Main(m) }

// proc is a process of the test, stopped by its PID.
type proc struct {
	name string
	cmd  *exec.Cmd
	done chan struct{}
	logs *testenv.SyncBuffer
}

func start(t *testing.T, name, bin string, args ...string) *proc {
	t.Helper()
	p := &proc{name: name, cmd: exec.Command(bin, args...), done: make(chan struct{}), logs: &testenv.SyncBuffer{}}
	p.cmd.Stdout, p.cmd.Stderr = p.logs, p.logs
	if err := p.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { p.cmd.Wait(); close(p.done) }()
	t.Cleanup(func() {
		p.stop(syscall.SIGTERM)
		if t.Failed() {
			t.Logf("%s:\n%s", name, p.logs.String())
		}
	})
	return p
}

func (p *proc) stop(sig syscall.Signal) {
	select {
	case <-p.done:
		return
	default:
	}
	p.cmd.Process.Signal(sig)
	select {
	case <-p.done:
	case <-time.After(60 * time.Second):
		p.cmd.Process.Kill()
		<-p.done
	}
}

// freePortOn is a port free on every one of ips.
func freePortOn(t *testing.T, ips ...string) int {
	t.Helper()
	for attempt := 0; attempt < 20; attempt++ {
		port := testenv.FreePort(t)
		ok := true
		for _, ip := range ips {
			ln, err := net.Listen("tcp", net.JoinHostPort(ip, strconv.Itoa(port)))
			if err != nil {
				ok = false
				break
			}
			ln.Close()
		}
		if ok {
			return port
		}
	}
	t.Fatal("no port free on every address")
	return 0
}

// cluster is one TLS etcd member and the apiservers of the test, on the
// PKI of package pki.
type cluster struct {
	dir, pkiDir string
	port        int      // every apiserver's --secure-port, on its own loopback address
	binds       []string // the apiservers' --bind-address
	etcdURL     string
	apiserver   string // the binary
	kubectlBin  string
}

func (c *cluster) p(f string) string { return filepath.Join(c.pkiDir, f) }

// newCluster writes the PKI of three control-plane machines on
// 127.0.0.11-13 (their names: cp-1..3) and starts one etcd member, with
// TLS on both ports, on the first.
func newCluster(t *testing.T) *cluster {
	c := &cluster{dir: t.TempDir(), binds: []string{"127.0.0.11", "127.0.0.12", "127.0.0.13"},
		apiserver: testenv.Build(t, "kubik/ch08-full-cluster/cmd/kube-apiserver"), kubectlBin: testenv.Kubectl(t, "1.33")}
	c.pkiDir = filepath.Join(c.dir, "pki")
	c.port = freePortOn(t, c.binds...)
	topo := pki.Topology{LoadBalancer: net.JoinHostPort(c.binds[0], strconv.Itoa(c.port)), SecurePort: c.port}
	for i, ip := range c.binds {
		topo.ControlPlane = append(topo.ControlPlane, pki.Machine{Name: fmt.Sprintf("cp-%d", i+1), IP: netip.MustParseAddr(ip)})
	}
	if err := pki.Write(c.pkiDir, topo); err != nil {
		t.Fatal(err)
	}
	clientPort, peerPort := freePortOn(t, c.binds[0]), 0
	for peerPort == 0 || peerPort == clientPort {
		peerPort = freePortOn(t, c.binds[0])
	}
	c.etcdURL = "https://" + net.JoinHostPort(c.binds[0], strconv.Itoa(clientPort))
	peerURL := "https://" + net.JoinHostPort(c.binds[0], strconv.Itoa(peerPort))
	start(t, "etcd", testenv.Build(t, "kubik/ch08-full-cluster/cmd/etcd"),
		"--name", "cp-1", "--data-dir", filepath.Join(c.dir, "etcd"),
		"--listen-client-urls", c.etcdURL, "--advertise-client-urls", c.etcdURL,
		"--listen-peer-urls", peerURL, "--initial-advertise-peer-urls", peerURL, "--initial-cluster", "cp-1="+peerURL,
		"--cert-file", c.p(pki.EtcdServer("cp-1")+".crt"), "--key-file", c.p(pki.EtcdServer("cp-1")+".key"),
		"--client-cert-auth", "--trusted-ca-file", c.p("ca.crt"),
		"--peer-cert-file", c.p(pki.EtcdPeer("cp-1")+".crt"), "--peer-key-file", c.p(pki.EtcdPeer("cp-1")+".key"),
		"--peer-client-cert-auth", "--peer-trusted-ca-file", c.p("ca.crt"), "--log-level", "warn")
	return c
}

// flags are the apiserver flags of control-plane machine i (0-based):
// bound to its loopback address, advertising 10.240.0.1<i+1> (an address
// that is only written into the Endpoints, never dialled).
func (c *cluster) flags(i int) []string {
	return []string{
		"--data-dir", filepath.Join(c.dir, fmt.Sprintf("unused-%d", i+1)),
		"--bind-address", c.binds[i], "--secure-port", strconv.Itoa(c.port), "--advertise-address", fmt.Sprintf("10.240.0.1%d", i+1),
		"--etcd-servers", c.etcdURL, "--etcd-cafile", c.p("ca.crt"),
		"--etcd-certfile", c.p(pki.EtcdClient + ".crt"), "--etcd-keyfile", c.p(pki.EtcdClient + ".key"),
		"--tls-cert-file", c.p(pki.APIServer + ".crt"), "--tls-private-key-file", c.p(pki.APIServer + ".key"),
		"--client-ca-file", c.p("ca.crt"),
		"--kubelet-client-certificate", c.p(pki.KubeletClient + ".crt"), "--kubelet-client-key", c.p(pki.KubeletClient + ".key"),
		"--kubelet-certificate-authority", c.p("ca.crt"),
		"--service-account-key-file", c.p(pki.ServiceAccountPub), "--service-account-signing-key-file", c.p(pki.ServiceAccountKey),
		"--service-account-issuer", "https://kubernetes.default.svc.cluster.local",
		"--encryption-provider-config", c.p(pki.EncryptionConfig),
		"--authorization-mode", "Node,RBAC",
	}
}

// startAPIServer starts apiserver i and waits for its /readyz.
func (c *cluster) startAPIServer(t *testing.T, i int) *proc {
	t.Helper()
	p := start(t, fmt.Sprintf("kube-apiserver-%d", i+1), c.apiserver, c.flags(i)...)
	ca, _ := os.ReadFile(c.p("ca.crt"))
	pool := x509.NewCertPool()
	pool.AppendCertsFromPEM(ca)
	hc := &http.Client{Timeout: 5 * time.Second, Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool}}}
	url := "https://" + net.JoinHostPort(c.binds[i], strconv.Itoa(c.port)) + "/readyz"
	testenv.Eventually(t, p.name+" ready", 2*time.Minute, func() (string, bool) {
		select {
		case <-p.done:
			t.Fatalf("%s exited:\n%s", p.name, p.logs.String())
		default:
		}
		resp, err := hc.Get(url)
		if err != nil {
			return err.Error(), false
		}
		resp.Body.Close()
		return resp.Status, resp.StatusCode == http.StatusOK
	})
	return p
}

// kubectl runs kubectl as admin against apiserver i.
func (c *cluster) kubectl(t *testing.T, i int, args ...string) (string, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	all := append([]string{"--kubeconfig", c.p(pki.Admin + ".kubeconfig"), "--cache-dir", filepath.Join(c.dir, "kubectl-cache"),
		"--server", "https://" + net.JoinHostPort(c.binds[i], strconv.Itoa(c.port))}, args...)
	cmd := exec.CommandContext(ctx, c.kubectlBin, all...)
	cmd.Env = append(os.Environ(), "HOME="+c.dir)
	out, err := cmd.Output()
	if ee, ok := err.(*exec.ExitError); ok {
		err = fmt.Errorf("%v: %s", err, ee.Stderr)
	}
	return strings.TrimSpace(string(out)), err
}

// etcd is a client of the test's etcd with the healthcheck client's certificate.
func (c *cluster) etcd(t *testing.T) *clientv3.Client {
	t.Helper()
	tlsConfig, err := transport.TLSInfo{TrustedCAFile: c.p("ca.crt"),
		CertFile: c.p(pki.EtcdHealthcheckClient + ".crt"), KeyFile: c.p(pki.EtcdHealthcheckClient + ".key")}.ClientConfig()
	if err != nil {
		t.Fatal(err)
	}
	cl, err := clientv3.New(clientv3.Config{Endpoints: []string{c.etcdURL}, TLS: tlsConfig, DialTimeout: 5 * time.Second, Logger: zap.NewNop()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cl.Close() })
	return cl
}

// etcdctlGet is `etcdctl get KEY --print-value-only` over TLS, with
// etcd's own etcdctl when the machine has one, else the Go client.
func (c *cluster) etcdctlGet(t *testing.T, key string) string {
	t.Helper()
	if etcdctl, err := exec.LookPath("etcdctl"); err == nil {
		cmd := exec.Command(etcdctl, "--endpoints", c.etcdURL, "--cacert", c.p("ca.crt"),
			"--cert", c.p(pki.EtcdHealthcheckClient+".crt"), "--key", c.p(pki.EtcdHealthcheckClient+".key"),
			"get", key, "--print-value-only")
		cmd.Env = append(os.Environ(), "ETCDCTL_API=3")
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("etcdctl get %s: %v", key, err)
		}
		return strings.TrimSuffix(string(out), "\n")
	}
	r, err := c.etcd(t).Get(context.Background(), key)
	if err != nil || len(r.Kvs) != 1 {
		t.Fatalf("get %s: %v %v", key, r, err)
	}
	return string(r.Kvs[0].Value)
}

// endpoints is what the kubernetes Service's Endpoints and EndpointSlice
// list, as "endpoints | slice".
func (c *cluster) endpoints(t *testing.T, i int) string {
	ep, err1 := c.kubectl(t, i, "get", "endpoints", "kubernetes", "-o", "jsonpath={.subsets[*].addresses[*].ip}")
	slice, err2 := c.kubectl(t, i, "get", "endpointslice", "kubernetes", "-o", "jsonpath={.endpoints[*].addresses[0]}")
	if err1 != nil || err2 != nil {
		return fmt.Sprintf("%v %v", err1, err2)
	}
	return ep + " | " + slice
}

// TestThreeAPIServers runs three apiservers, each its own process, on one
// etcd over TLS, with certificates made by package pki: the kubernetes
// Service's Endpoints and EndpointSlice list all three (upstream's lease
// reconciler), each with its lease under /registry/masterleases/; a
// Secret is stored encrypted with aescbc and read back plain through
// another apiserver; a killed apiserver drops out of the endpoints after
// its lease's TTL, a stopped one at once; and no CA was made in any
// --data-dir.
func TestThreeAPIServers(t *testing.T) {
	c := newCluster(t)
	var apiservers []*proc
	for i := range c.binds {
		apiservers = append(apiservers, c.startAPIServer(t, i))
	}
	const all = "10.240.0.11 10.240.0.12 10.240.0.13 | 10.240.0.11 10.240.0.12 10.240.0.13"
	testenv.Eventually(t, "the endpoints list the three apiservers", 2*time.Minute, func() (string, bool) {
		got := c.endpoints(t, 0)
		return got, got == all
	})
	leases, err := c.etcd(t).Get(context.Background(), "/registry/masterleases/", clientv3.WithPrefix(), clientv3.WithKeysOnly())
	if err != nil || len(leases.Kvs) != 3 {
		t.Fatalf("leases: %v %v", leases, err)
	}
	for _, kv := range leases.Kvs {
		if kv.Lease == 0 {
			t.Errorf("%s has no etcd lease (no TTL)", kv.Key)
		}
	}

	// Encryption at rest: etcd holds the aescbc prefix, kubectl the value.
	if _, err := c.kubectl(t, 0, "create", "secret", "generic", "x", "--from-literal", "k=supersecret"); err != nil {
		t.Fatal(err)
	}
	raw := c.etcdctlGet(t, "/registry/secrets/default/x")
	if !strings.HasPrefix(raw, "k8s:enc:aescbc:v1:key1:") || strings.Contains(raw, "supersecret") || strings.Contains(raw, base64.StdEncoding.EncodeToString([]byte("supersecret"))) {
		t.Fatalf("etcd holds %q, want the aescbc prefix and no plain value", raw)
	}
	if got, err := c.kubectl(t, 1, "get", "secret", "x", "-o", "jsonpath={.data.k}"); err != nil || got != base64.StdEncoding.EncodeToString([]byte("supersecret")) {
		t.Fatalf("the secret read through apiserver 2: %q %v", got, err)
	}
	if _, err := c.kubectl(t, 0, "create", "configmap", "y", "--from-literal", "k=plain"); err != nil {
		t.Fatal(err)
	}
	if raw := c.etcdctlGet(t, "/registry/configmaps/default/y"); !strings.HasPrefix(raw, "{") {
		t.Fatalf("a ConfigMap is stored as %q, want plain JSON", raw)
	}

	// kill -9 the third: its lease runs out, then a reconcile drops it.
	apiservers[2].stop(syscall.SIGKILL)
	testenv.Eventually(t, "the killed apiserver leaves the endpoints", 2*time.Minute, func() (string, bool) {
		got := c.endpoints(t, 0)
		return got, got == "10.240.0.11 10.240.0.12 | 10.240.0.11 10.240.0.12"
	})

	// SIGTERM the second: it takes itself out as it stops.
	apiservers[1].stop(syscall.SIGTERM)
	if code := apiservers[1].cmd.ProcessState.ExitCode(); code != 0 {
		t.Fatalf("apiserver 2 exited %d", code)
	}
	if !strings.Contains(apiservers[1].logs.String(), "removed this apiserver from the kubernetes Service's endpoints") {
		t.Fatalf("apiserver 2 did not remove itself:\n%s", apiservers[1].logs.String())
	}
	if got := c.endpoints(t, 0); got != "10.240.0.11 | 10.240.0.11" {
		t.Fatalf("after apiserver 2 stopped: %s", got)
	}

	for i := range c.binds {
		if _, err := os.Stat(filepath.Join(c.dir, fmt.Sprintf("unused-%d", i+1))); !os.IsNotExist(err) {
			t.Errorf("--data-dir of apiserver %d was used: %v", i+1, err)
		}
	}
}

// TestFlagErrors: certificates given in part, or without the keys every
// apiserver must share, are refused with a message that says so.
func TestFlagErrors(t *testing.T) {
	c := newCluster(t)
	without := func(flags []string, names ...string) []string {
		var out []string
		for i := 0; i < len(flags); i++ {
			drop := false
			for _, n := range names {
				if flags[i] == n {
					drop = true
				}
			}
			if drop {
				i++
				continue
			}
			out = append(out, flags[i])
		}
		return out
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{without(c.flags(0), "--client-ca-file"), "--tls-cert-file, --tls-private-key-file and --client-ca-file go together"},
		{without(c.flags(0), "--service-account-signing-key-file"), "--service-account-signing-key-file is required with --tls-cert-file"},
		{without(c.flags(0), "--kubelet-client-certificate", "--kubelet-client-key"), "--kubelet-client-certificate and --kubelet-client-key are required"},
		{append(c.flags(0), "--endpoint-reconciler-type", "master-count"), "is not one of [lease none]"},
		{without(c.flags(0), "--etcd-servers"), "--etcd-servers is required"},
	} {
		out, err := exec.Command(c.apiserver, tc.args...).CombinedOutput()
		if err == nil || !strings.Contains(string(out), tc.want) {
			t.Errorf("want an error %q, got %v:\n%s", tc.want, err, out)
		}
	}
}
