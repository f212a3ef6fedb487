// Package cluster8 runs chapter 8's whole cluster on this host: every
// machine of the topology (package provision) a network namespace on the
// fabric's bridge (package fabric), provisioned with the same files a VM
// gets — unit files, certificates, kubeconfigs — and booted by its own
// init, kubik-supervisor (package supervisor), which runs those units:
//
//	host:  kbr<id> 10.240.0.1/24 ─┬─ lb    10.240.0.10  haproxy :6443 → the apiservers (/readyz checks), stats :8404
//	                              ├─ cp-1  10.240.0.11  etcd :2379/:2380, kube-apiserver :6443,
//	                              ├─ cp-2  10.240.0.12  kube-scheduler, kube-controller-manager,
//	                              ├─ cp-3  10.240.0.13  cloud-controller-manager (leader-elected)
//	                              ├─ w-1   10.240.0.21  kubelet :10250 (+ containerd), kube-proxy, kubik-node-agent
//	                              ├─ w-2   10.240.0.22
//	                              └─ the cloud's balancer 10.240.0.2 (LoadBalancer IPs .200-.250)
//
// Unlike chapters 5 to 7, nothing of the cluster runs in this program:
// it makes the PKI and the machines, boots them (control plane and load
// balancer first, then, once the apiservers answer, the add-ons — RBAC
// for the node agents and the cloud controller manager, the cluster DNS —
// and the workers), and waits. Every component is a process of its own on
// its machine, with its own certificate; a crash takes down only that
// process, and its supervisor restarts it.
//
// The program is also the machines' hypervisor (hypervisor.go): it powers
// a machine off (kills everything in it, removes its namespace) and on
// again, for the drills. Stop (Ctrl-C) shuts the machines down in order
// and removes the fabric; Cleanup removes what a crashed run left.
package cluster8

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/netip"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"time"

	"kubik/ch01-apiserver/api/corev1"
	"kubik/ch03-scheduler/clientgo/rest"
	"kubik/ch05-kubelet/containerd"
	"kubik/ch06-cni/fabric"
	"kubik/ch06-cni/nodeagent"
	"kubik/ch07-kube-proxy/cluster7"
	"kubik/ch08-full-cluster/cloudcontroller"
	"kubik/ch08-full-cluster/cloudprovider/kubik"
	"kubik/ch08-full-cluster/pki"
	"kubik/ch08-full-cluster/provision"
	"kubik/ch08-full-cluster/supervisor"
)

// Cluster is the cluster of one data dir: started by Up, or loaded by
// Load to act on one that runs (the drills, down).
type Cluster struct {
	DataDir  string
	Topology provision.Topology
	BinDir   string
	ImageDir string
	// ControlPlaneBinDir holds upstream's control-plane binaries, if the
	// cluster runs them.
	ControlPlaneBinDir string
	// Binaries are single components' upstream binaries (State's).
	Binaries        map[string]string
	AdminKubeconfig string // DATA_DIR/admin.kubeconfig: admin, through the load balancer

	fcfg fabric.Config
	log  *slog.Logger

	// Up's only: the fabric, and each machine's namespace and init.
	mu       sync.Mutex
	fab      *fabric.Fabric
	machines map[string]*machine
}

// machine is a booted machine (Up's).
type machine struct {
	fm   *fabric.Machine
	init *exec.Cmd
	done chan struct{}
}

// PKIDir is the cluster's PKI (package pki's layout).
func (c *Cluster) PKIDir() string { return filepath.Join(c.DataDir, "pki") }

// Load is the cluster whose `up` wrote dataDir/cluster.json.
func Load(dataDir string, log *slog.Logger) (*Cluster, error) {
	dir, err := AbsDir(dataDir)
	if err != nil {
		return nil, err
	}
	st, err := LoadState(dir)
	if err != nil {
		return nil, err
	}
	return newCluster(dir, st, log)
}

func newCluster(dir string, st *State, log *slog.Logger) (*Cluster, error) {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	fcfg, err := fabricConfig(dir, st.Topology)
	if err != nil {
		return nil, err
	}
	fcfg.Logger = log
	return &Cluster{DataDir: dir, Topology: st.Topology, BinDir: st.BinDir, ImageDir: st.ImageDir, ControlPlaneBinDir: st.ControlPlaneBinDir,
		Binaries: st.Binaries, AdminKubeconfig: filepath.Join(dir, "admin.kubeconfig"), fcfg: fcfg, log: log.With("component", "cluster"),
		machines: map[string]*machine{}}, nil
}

// Up makes the PKI and the machines, boots them, deploys the add-ons, and
// returns once every Node is Ready.
func Up(ctx context.Context, cfg *Config, log *slog.Logger) (_ *Cluster, err error) {
	if err := checkHost(); err != nil {
		return nil, err
	}
	if err := os.MkdirAll(cfg.DataDir, 0o755); err != nil {
		return nil, err
	}
	dir, err := AbsDir(cfg.DataDir)
	if err != nil {
		return nil, err
	}
	st, err := cfg.state(dir)
	if err != nil {
		return nil, err
	}
	if old, err := LoadState(dir); err == nil && !sameMachines(old.Topology, st.Topology) {
		return nil, fmt.Errorf("%s holds a cluster of other machines (its etcd members and certificates are theirs): remove the directory, or start the same topology", dir)
	}
	c, err := newCluster(dir, st, log)
	if err != nil {
		return nil, err
	}
	// What a crashed run left: its machines' processes, containers,
	// namespaces, the bridge, the routes.
	c.Cleanup()
	if err := pki.Write(c.PKIDir(), c.Topology.PKI()); err != nil {
		return nil, fmt.Errorf("PKI: %w", err)
	}
	if err := CopyFile(filepath.Join(c.PKIDir(), pki.Admin+".kubeconfig"), c.AdminKubeconfig, 0o600); err != nil {
		return nil, err
	}
	if err := st.write(dir); err != nil {
		return nil, err
	}
	if c.fab, err = fabric.Up(c.fcfg); err != nil {
		return nil, err
	}
	defer func() {
		if err != nil {
			c.Stop()
		}
	}()

	// The control plane and the load balancer first: the etcd members
	// need each other, the workers need the apiservers.
	for _, m := range c.Topology.Machines {
		if m.Role != provision.Worker {
			if err := c.powerOn(m.Name); err != nil {
				return nil, err
			}
		}
	}
	if err := c.waitAPIServers(ctx, 5*time.Minute); err != nil {
		return nil, err
	}
	if err := c.addons(ctx, cfg.DNSReplicas); err != nil {
		return nil, err
	}
	for _, m := range c.Topology.ByRole(provision.Worker) {
		if err := c.powerOn(m.Name); err != nil {
			return nil, err
		}
	}
	if err := c.WaitNodesReady(ctx, len(c.Topology.ByRole(provision.Worker)), 10*time.Minute); err != nil {
		return nil, err
	}
	return c, nil
}

// hostNetNS names this host's network namespace for the machines (the
// cloud controller manager programs the bridge in it): init's, which is
// this program's on a plain host.
func hostNetNS() string {
	self, _ := os.Readlink("/proc/self/ns/net")
	initNS, _ := os.Readlink("/proc/1/ns/net")
	if self != "" && self == initNS {
		return "/proc/1/ns/net"
	}
	return fmt.Sprintf("/proc/%d/ns/net", os.Getpid())
}

// checkHost refuses a host that cannot run the machines.
func checkHost() error {
	if err := containerd.CheckHost(); err != nil {
		return err
	}
	for tool, pkg := range map[string]string{"haproxy": "haproxy", "nsenter": "util-linux", "ip": "iproute2", "iptables": "iptables"} {
		if _, err := exec.LookPath(tool); err != nil {
			return fmt.Errorf("%s is not installed (apt-get install %s)", tool, pkg)
		}
	}
	return nil
}

// powerOn makes the machine's namespace, writes its files and boots it.
func (c *Cluster) powerOn(name string) error {
	m, ok := c.Topology.Machine(name)
	if !ok {
		return fmt.Errorf("no machine %q", name)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.fab == nil {
		return errors.New("only the cluster's own process (up) can power machines on")
	}
	if old, ok := c.machines[name]; ok && old.running() {
		return fmt.Errorf("machine %s is running", name)
	}
	fm, err := c.fab.AddMachine(m.Name, c.fabricIndex(m))
	if err != nil {
		return err
	}
	// /run is a tmpfs on a machine: empty at every boot.
	if err := os.RemoveAll(filepath.Join(c.Root(name), "run")); err != nil {
		return err
	}
	if err := c.provisionMachine(m); err != nil {
		return err
	}
	cmd, err := c.boot(m)
	if err != nil {
		return err
	}
	mm := &machine{fm: fm, init: cmd, done: make(chan struct{})}
	go func() {
		err := cmd.Wait()
		close(mm.done)
		c.log.Info("machine's init exited", "machine", name, "result", fmt.Sprint(err))
	}()
	c.machines[name] = mm
	return nil
}

// checkMachines fails when a booted machine's init has exited.
func (c *Cluster) checkMachines() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	for name, m := range c.machines {
		if !m.running() {
			log := filepath.Join(c.Root(name), "var", "log", "kubik-supervisor.log")
			tail, _ := supervisor.Tail(log, 5)
			return fmt.Errorf("machine %s's init exited: %s (%s)", name, strings.Join(tail, " | "), log)
		}
	}
	return nil
}

func (m *machine) running() bool {
	select {
	case <-m.done:
		return false
	default:
		return true
	}
}

// powerOff pulls the machine's power cord: everything in it is killed at
// once, and its namespace goes (the cloud then has no such instance).
func (c *Cluster) powerOff(name string) error {
	if _, ok := c.Topology.Machine(name); !ok {
		return fmt.Errorf("no machine %q", name)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.fab == nil {
		return errors.New("only the cluster's own process (up) can power machines off")
	}
	c.kill(name)
	if m, ok := c.machines[name]; ok {
		<-m.done
		c.fab.RemoveMachine(m.fm)
		delete(c.machines, name)
	}
	c.log.Info("machine powered off", "machine", name)
	return nil
}

// Stop shuts the machines down in order — the workers (their kubelets
// remove the pods), the control plane, the load balancer — then removes
// the fabric.
func (c *Cluster) Stop() {
	var wg sync.WaitGroup
	for _, role := range []provision.Role{provision.Worker, provision.ControlPlane, provision.LoadBalancer} {
		for _, m := range c.Topology.ByRole(role) {
			wg.Go(func() { c.shutdown(m.Name) })
		}
		wg.Wait()
	}
	c.mu.Lock()
	for _, m := range c.machines {
		<-m.done
	}
	c.machines = map[string]*machine{}
	c.mu.Unlock()
	c.teardownCloud()
	fabric.Cleanup(c.fcfg) // the machines' namespaces, the bridge, the guard routes
	c.log.Info("cluster stopped", "dataDir", c.DataDir)
}

// Cleanup removes what a run of this data dir left, even after a crash
// or a kill -9 of `up`: every machine's processes and containers, their
// namespaces and links, the bridge and the guard routes. It returns what
// it could not remove.
func (c *Cluster) Cleanup() []string {
	for _, m := range c.Topology.Machines {
		c.kill(m.Name)
	}
	c.teardownCloud()
	fabric.Cleanup(c.fcfg)
	left := fabric.Leftovers(c.fcfg)
	for _, m := range c.Topology.Machines {
		for _, mp := range mountsUnder(c.Root(m.Name)) {
			left = append(left, "mount "+mp)
		}
		for _, pid := range processesIn(c.NetNS(m.Name)) {
			left = append(left, fmt.Sprintf("process %d on %s", pid, m.Name))
		}
		if pid := c.supervisorPID(m.Name); pid > 0 && !isZombie(pid) {
			left = append(left, fmt.Sprintf("%s's supervisor %d", m.Name, pid))
		}
	}
	return left
}

// teardownCloud removes what the cloud made for the cluster, as deleting
// a cloud project does: the balancer's namespace and its link on the
// bridge, the records of the load balancers (the provider's Teardown).
func (c *Cluster) teardownCloud() {
	if c.Topology.Cloud == nil {
		return
	}
	cloud, err := kubik.New(c.Topology.Cloud, c.log)
	if err == nil {
		err = cloud.Teardown()
	}
	if err != nil {
		c.log.Warn("removing the cloud's balancer", "err", err)
	}
}

// Admin is a client of the apiservers as admin, through the load balancer.
func (c *Cluster) Admin(userAgent string) (*rest.Client, error) {
	return rest.New(c.AdminKubeconfig, userAgent)
}

// waitAPIServers waits until every apiserver's /readyz answers ok.
func (c *Cluster) waitAPIServers(ctx context.Context, timeout time.Duration) error {
	hc, err := c.HTTPClient()
	if err != nil {
		return err
	}
	deadline := time.Now().Add(timeout)
	for _, m := range c.Topology.ByRole(provision.ControlPlane) {
		url := fmt.Sprintf("https://%s/readyz", netip.AddrPortFrom(m.IP, uint16(c.Topology.SecurePort)))
		for {
			resp, err := hc.Get(url)
			if err == nil {
				io.Copy(io.Discard, io.LimitReader(resp.Body, 1<<16))
				resp.Body.Close()
				if resp.StatusCode == http.StatusOK {
					c.log.Info("apiserver ready", "machine", m.Name, "url", url)
					break
				}
				err = errors.New(resp.Status)
			}
			if time.Now().After(deadline) {
				return fmt.Errorf("the apiserver of %s is not ready after %s: %v (see %s)", m.Name, timeout, err,
					supervisor.Config{Root: c.Root(m.Name)}.LogFile("kube-apiserver"))
			}
			if err := c.checkMachines(); err != nil {
				return err
			}
			select {
			case <-ctx.Done():
				return ctx.Err()
			case <-time.After(time.Second):
			}
		}
	}
	return nil
}

// HTTPClient trusts the cluster CA and presents no certificate (for
// /readyz, /livez and the like).
func (c *Cluster) HTTPClient() (*http.Client, error) {
	ca, err := os.ReadFile(filepath.Join(c.PKIDir(), "ca.crt"))
	if err != nil {
		return nil, err
	}
	pool := x509.NewCertPool()
	pool.AppendCertsFromPEM(ca)
	return &http.Client{Timeout: 5 * time.Second, Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool}}}, nil
}

// addons are what kubeadm's addon phase and a network add-on's manifest
// create once the control plane is up: the node agents' and the cloud
// controller manager's RBAC, the cluster DNS.
func (c *Cluster) addons(ctx context.Context, dnsReplicas int) error {
	admin, err := c.Admin("kubik-ch08-addons")
	if err != nil {
		return err
	}
	steps := []struct {
		what string
		do   func(context.Context) error
	}{
		{"node agent RBAC", func(ctx context.Context) error { return nodeagent.EnsureRBAC(ctx, admin) }},
	}
	if needsControllerManagerRole(c.Topology) {
		steps = append(steps, struct {
			what string
			do   func(context.Context) error
		}{"Kubik's controller manager's RBAC on upstream's apiserver", func(ctx context.Context) error { return ensureControllerManagerRBAC(ctx, admin) }})
	}
	if c.Topology.Cloud != nil {
		steps = append(steps, struct {
			what string
			do   func(context.Context) error
		}{"cloud-controller-manager RBAC", func(ctx context.Context) error { return cloudcontroller.EnsureRBAC(ctx, admin) }})
	}
	if dnsReplicas > 0 {
		steps = append(steps, struct {
			what string
			do   func(context.Context) error
		}{"cluster DNS", func(ctx context.Context) error { return cluster7.EnsureDNS(ctx, admin, dnsReplicas) }})
	}
	for _, s := range steps {
		var err error
		for attempt := 0; attempt < 30; attempt++ { // the apiservers have just started
			if err = s.do(ctx); err == nil {
				break
			}
			select {
			case <-ctx.Done():
				return ctx.Err()
			case <-time.After(2 * time.Second):
			}
		}
		if err != nil {
			return fmt.Errorf("%s: %w", s.what, err)
		}
		c.log.Info("add-on in place", "addon", s.what)
	}
	return nil
}

// WaitNodesReady waits until n Nodes are Ready.
func (c *Cluster) WaitNodesReady(ctx context.Context, n int, timeout time.Duration) error {
	admin, err := c.Admin("kubik-ch08-wait")
	if err != nil {
		return err
	}
	deadline := time.Now().Add(timeout)
	for {
		ready, all, err := c.readyNodes(ctx, admin)
		if err == nil && len(ready) >= n {
			c.log.Info("nodes ready", "nodes", strings.Join(ready, ","))
			return nil
		}
		if err := c.checkMachines(); err != nil {
			return err
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("%d of %d nodes Ready after %s (%s; %v): see the workers' kubelet logs, machines/<worker>/var/log/kubelet.log",
				len(ready), n, timeout, strings.Join(all, ", "), err)
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(2 * time.Second):
		}
	}
}

func (c *Cluster) readyNodes(ctx context.Context, admin *rest.Client) (ready, all []string, err error) {
	rctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	nodes, err := rest.List[corev1.Node](rctx, admin, "", rest.ListOptions{})
	if err != nil {
		return nil, nil, err
	}
	for _, n := range nodes.Items {
		status := "NotReady"
		for _, cond := range n.Status.Conditions {
			if cond.Type == corev1.NodeReady && cond.Status == corev1.ConditionTrue {
				status = "Ready"
				ready = append(ready, n.Name)
			}
		}
		all = append(all, n.Name+" "+status)
	}
	return ready, all, nil
}

// Welcome prints the banner: how to use the cluster.
func (c *Cluster) Welcome(w io.Writer) {
	cps := len(c.Topology.ByRole(provision.ControlPlane))
	ws := len(c.Topology.ByRole(provision.Worker))
	fmt.Fprintf(w, "\nKubik chapter 8: the whole cluster — %d control-plane machine(s), a load balancer, %d worker(s)\n", cps, ws)
	fmt.Fprintf(w, "pid: %d (in %s); Ctrl-C (or make ch08-down) removes it all\n\n", os.Getpid(), filepath.Join(c.DataDir, "cluster.pid"))
	for _, m := range c.Topology.Machines {
		fmt.Fprintf(w, "  %-5s %-13s %-14s %s\n", m.Name, m.IP, m.Role, strings.Join(c.Topology.Units(m.Role), ", "))
	}
	if up := c.upstreamComponents(); len(up) > 0 {
		fmt.Fprintf(w, "  upstream's binaries: %s\n", strings.Join(up, ", "))
	}
	if c.Topology.Cloud != nil {
		fmt.Fprintf(w, "  the cloud's balancer %s (LoadBalancer IPs %s)\n", c.Topology.Cloud.Balancer.Address, c.Topology.Cloud.LoadBalancer.IPPool)
	}
	fmt.Fprintf(w, "\nkubeconfig: %s (through the load balancer https://%s)\n\n  export KUBECONFIG=%s\n  kubectl get nodes\n\n",
		c.AdminKubeconfig, c.Topology.LoadBalancerAddress(), c.AdminKubeconfig)
	fmt.Fprintf(w, "a machine's systemctl and journalctl:\n  %s/ch08-full-cluster shell --data-dir %s w-1\n  kubik-supervisor status kubelet\n  kubik-supervisor logs -f kubelet\n\n",
		c.BinDir, c.DataDir)
}

// upstreamComponents are the components that run upstream's binaries:
// cp-1/kube-apiserver (file), for the banner.
func (c *Cluster) upstreamComponents() []string {
	var out []string
	for _, m := range c.Topology.Machines {
		for _, u := range c.Topology.Units(m.Role) {
			if c.Topology.IsUpstream(m.Name, u) {
				out = append(out, fmt.Sprintf("%s/%s (%s)", m.Name, u, c.binary(m.Name, u)))
			}
		}
	}
	return out
}

// CopyFile copies a file, giving the copy mode.
func CopyFile(from, to string, mode os.FileMode) error {
	data, err := os.ReadFile(from)
	if err != nil {
		return err
	}
	return os.WriteFile(to, data, mode)
}

// AbsDir is the data dir's absolute path with its symbolic links
// resolved: the cluster's names (its namespaces, its bridge) are made
// from it, so every path to one directory must name the same cluster.
func AbsDir(dataDir string) (string, error) {
	dir, err := filepath.Abs(dataDir)
	if err != nil {
		return "", err
	}
	if real, err := filepath.EvalSymlinks(dir); err == nil {
		return real, nil
	}
	return dir, nil
}

// PIDFile is the `up` process's PID file.
func PIDFile(dataDir string) string { return filepath.Join(dataDir, "cluster.pid") }

// RunningPID is the PID of the `up` process of dataDir, if one runs.
func RunningPID(dataDir string) int {
	b, err := os.ReadFile(PIDFile(dataDir))
	if err != nil {
		return 0
	}
	var pid int
	if _, err := fmt.Sscan(string(b), &pid); err != nil || pid <= 0 || syscall.Kill(pid, 0) != nil || isZombie(pid) {
		return 0
	}
	cl, _ := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid))
	if !strings.Contains(string(cl), "up") {
		return 0
	}
	return pid
}
