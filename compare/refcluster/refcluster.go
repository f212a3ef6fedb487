// Package refcluster runs a real Kubernetes control plane (upstream
// kube-apiserver, kube-controller-manager and kube-scheduler, built from the
// Go module proxy by scripts/ref-build.sh) on loopback ports next to Kubik,
// so a reader — and our golden tests — can compare what kubectl prints
// against both. It uses the same PKI layout as Kubik (ch01-apiserver/pki).
package refcluster

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"kubik/ch01-apiserver/pki"
)

// Components that can be started; the apiserver always is.
const (
	APIServer         = "kube-apiserver"
	ControllerManager = "kube-controller-manager"
	Scheduler         = "kube-scheduler"
)

// Options of Up.
type Options struct {
	Dir         string   // .kubik/ref: pki/, etcd/, logs/, *.kubeconfig, pids
	BinDir      string   // where scripts/ref-build.sh put the binaries (default Dir/bin)
	Components  []string // beyond the apiserver: ControllerManager, Scheduler
	EtcdBinary  string   // default: etcd on PATH
	ServiceCIDR string   // default 10.96.0.0/12
	// ExtraArgs are appended to a component's flags (key: its name, e.g.
	// ControllerManager), so a scenario can give the reference the same
	// setting it gives Kubik (a shorter --node-monitor-grace-period).
	ExtraArgs map[string][]string
}

// Cluster describes a running reference cluster.
type Cluster struct {
	URL             string
	AdminKubeconfig string
}

func freePort() (int, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port, nil
}

// Up starts etcd and the control plane in the background (they outlive this
// process; Down stops them) and waits until the apiserver is ready.
func Up(ctx context.Context, o Options) (*Cluster, error) {
	if o.ServiceCIDR == "" {
		o.ServiceCIDR = "10.96.0.0/12"
	}
	if o.EtcdBinary == "" {
		o.EtcdBinary = "etcd"
	}
	dir, err := filepath.Abs(o.Dir)
	if err != nil {
		return nil, err
	}
	o.Dir = dir
	etcd, err := exec.LookPath(o.EtcdBinary)
	if err != nil {
		return nil, fmt.Errorf("etcd not found (Debian: apt-get install etcd-server): %w", err)
	}
	bin := o.BinDir
	if bin == "" {
		bin = filepath.Join(o.Dir, "bin")
	}
	for _, c := range append([]string{APIServer}, o.Components...) {
		if _, err := os.Stat(filepath.Join(bin, c)); err != nil {
			return nil, fmt.Errorf("%s is not built yet: run scripts/ref-build.sh (make ref-up does)", c)
		}
	}
	if running(o.Dir) {
		return nil, errors.New("a reference cluster already runs from " + o.Dir + " (make ref-down first)")
	}
	for _, d := range []string{"logs", "etcd"} {
		if err := os.MkdirAll(filepath.Join(o.Dir, d), 0o755); err != nil {
			return nil, err
		}
	}
	// A fresh etcd every time: the reference cluster starts empty, like ours.
	os.RemoveAll(filepath.Join(o.Dir, "etcd"))

	ca, err := pki.EnsureCA(o.Dir)
	if err != nil {
		return nil, err
	}
	firstIP, err := pki.FirstIP(o.ServiceCIDR)
	if err != nil {
		return nil, err
	}
	certFile, keyFile, err := ca.EnsureServingCert(o.Dir, []string{"127.0.0.1", firstIP.String()})
	if err != nil {
		return nil, err
	}
	if _, err := pki.EnsureServiceAccountKey(o.Dir); err != nil {
		return nil, err
	}
	p := func(name string) string { return filepath.Join(pki.Dir(o.Dir), name) }

	etcdClient, err1 := freePort()
	etcdPeer, err2 := freePort()
	apiPort, err3 := freePort()
	if err := errors.Join(err1, err2, err3); err != nil {
		return nil, err
	}
	url := "https://127.0.0.1:" + strconv.Itoa(apiPort)
	admin := filepath.Join(o.Dir, "admin.kubeconfig")
	if err := ca.WriteKubeconfig(admin, url, "kubernetes-admin", []string{"system:masters"}); err != nil {
		return nil, err
	}
	kcm := filepath.Join(o.Dir, "controller-manager.kubeconfig")
	if err := ca.WriteKubeconfig(kcm, url, "system:kube-controller-manager", nil); err != nil {
		return nil, err
	}
	sched := filepath.Join(o.Dir, "scheduler.kubeconfig")
	if err := ca.WriteKubeconfig(sched, url, "system:kube-scheduler", nil); err != nil {
		return nil, err
	}

	etcdURL := "http://127.0.0.1:" + strconv.Itoa(etcdClient)
	peerURL := "http://127.0.0.1:" + strconv.Itoa(etcdPeer)
	if err := start(o.Dir, "etcd", etcd,
		"--name", "ref", "--data-dir", filepath.Join(o.Dir, "etcd"),
		"--listen-client-urls", etcdURL, "--advertise-client-urls", etcdURL,
		"--listen-peer-urls", peerURL, "--initial-advertise-peer-urls", peerURL,
		"--initial-cluster", "ref="+peerURL); err != nil {
		return nil, err
	}
	apiArgs := []string{"--etcd-servers", etcdURL,
		"--bind-address", "127.0.0.1", "--advertise-address", "127.0.0.1", "--secure-port", strconv.Itoa(apiPort),
		"--cert-dir", filepath.Join(o.Dir, "apiserver-certs"),
		"--tls-cert-file", certFile, "--tls-private-key-file", keyFile, "--client-ca-file", p(pki.CACertFile),
		"--service-account-key-file", p(pki.SAPubFile), "--service-account-signing-key-file", p(pki.SAKeyFile),
		"--service-account-issuer", "https://kubernetes.default.svc.cluster.local",
		"--authorization-mode", "Node,RBAC", "--service-cluster-ip-range", o.ServiceCIDR,
		"--profiling=false"}
	if err := start(o.Dir, APIServer, filepath.Join(bin, APIServer), append(apiArgs, o.ExtraArgs[APIServer]...)...); err != nil {
		Down(o.Dir)
		return nil, err
	}
	if err := waitReady(ctx, url, 90*time.Second); err != nil {
		Down(o.Dir)
		return nil, fmt.Errorf("kube-apiserver: %w (see %s)", err, filepath.Join(o.Dir, "logs", APIServer+".log"))
	}
	for _, c := range o.Components {
		var args []string
		switch c {
		case ControllerManager:
			args = []string{"--kubeconfig", kcm, "--authentication-kubeconfig", kcm, "--authorization-kubeconfig", kcm,
				"--bind-address", "127.0.0.1", "--secure-port", "0", "--leader-elect=false",
				"--use-service-account-credentials", "--service-account-private-key-file", p(pki.SAKeyFile),
				"--root-ca-file", p(pki.CACertFile), "--cluster-signing-cert-file", p(pki.CACertFile),
				"--cluster-signing-key-file", p(pki.CAKeyFile), "--service-cluster-ip-range", o.ServiceCIDR}
		case Scheduler:
			args = []string{"--kubeconfig", sched, "--authentication-kubeconfig", sched, "--authorization-kubeconfig", sched,
				"--bind-address", "127.0.0.1", "--secure-port", "0", "--leader-elect=false"}
		default:
			Down(o.Dir)
			return nil, fmt.Errorf("unknown component %q", c)
		}
		args = append(args, o.ExtraArgs[c]...)
		if err := start(o.Dir, c, filepath.Join(bin, c), args...); err != nil {
			Down(o.Dir)
			return nil, err
		}
	}
	return &Cluster{URL: url, AdminKubeconfig: admin}, nil
}

// start launches a process in its own session (so it outlives `make ref-up`),
// logging to logs/<name>.log, and records its PID.
func start(dir, name, binary string, args ...string) error {
	logf, err := os.OpenFile(filepath.Join(dir, "logs", name+".log"), os.O_CREATE|os.O_TRUNC|os.O_WRONLY, 0o644)
	if err != nil {
		return err
	}
	defer logf.Close()
	cmd := exec.Command(binary, args...)
	cmd.Stdout, cmd.Stderr = logf, logf
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("starting %s: %w", name, err)
	}
	f, err := os.OpenFile(filepath.Join(dir, "pids"), os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
	if err != nil {
		return err
	}
	defer f.Close()
	fmt.Fprintf(f, "%d %s\n", cmd.Process.Pid, name)
	cmd.Process.Release()
	return nil
}

func waitReady(ctx context.Context, url string, timeout time.Duration) error {
	client := &http.Client{Timeout: 2 * time.Second, Transport: &http.Transport{TLSClientConfig: &tls.Config{InsecureSkipVerify: true}}}
	deadline := time.Now().Add(timeout)
	for time.Now().Before(deadline) {
		resp, err := client.Get(url + "/readyz")
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return nil
			}
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(200 * time.Millisecond):
		}
	}
	return fmt.Errorf("not ready within %v", timeout)
}

// running reports whether a recorded process is still alive.
func running(dir string) bool {
	for _, p := range pids(dir) {
		if syscall.Kill(p.pid, 0) == nil && isOurs(p) {
			return true
		}
	}
	return false
}

type proc struct {
	pid  int
	name string
}

func pids(dir string) []proc {
	b, err := os.ReadFile(filepath.Join(dir, "pids"))
	if err != nil {
		return nil
	}
	var out []proc
	for _, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		f := strings.Fields(line)
		if len(f) != 2 {
			continue
		}
		if pid, err := strconv.Atoi(f[0]); err == nil {
			out = append(out, proc{pid, f[1]})
		}
	}
	return out
}

// isOurs checks /proc/<pid>/cmdline so a recycled PID is never killed.
func isOurs(p proc) bool {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", p.pid))
	if err != nil {
		return false
	}
	return strings.Contains(string(b), p.name)
}

// Down stops every process Up started (newest first) and forgets them.
func Down(dir string) {
	ps := pids(dir)
	for i := len(ps) - 1; i >= 0; i-- {
		p := ps[i]
		if !isOurs(p) {
			continue
		}
		syscall.Kill(p.pid, syscall.SIGTERM)
		for j := 0; j < 50 && syscall.Kill(p.pid, 0) == nil; j++ {
			time.Sleep(100 * time.Millisecond)
		}
		if syscall.Kill(p.pid, 0) == nil {
			syscall.Kill(p.pid, syscall.SIGKILL)
		}
	}
	os.Remove(filepath.Join(dir, "pids"))
}
