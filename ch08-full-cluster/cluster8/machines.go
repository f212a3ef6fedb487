package cluster8

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"kubik/ch05-kubelet/containerd"
	"kubik/ch05-kubelet/node5"
	"kubik/ch06-cni/fabric"
	"kubik/ch08-full-cluster/provision"
	"kubik/ch08-full-cluster/supervisor"
)

// Root is machine name's root directory.
func (c *Cluster) Root(name string) string { return filepath.Join(c.DataDir, "machines", name) }

// NetNS is machine name's network namespace.
func (c *Cluster) NetNS(name string) string { return "/run/netns/" + c.fcfg.NamespaceName(name) }

// Supervisor is a client of machine name's supervisor (its systemctl).
func (c *Cluster) Supervisor(name string) *supervisor.Client {
	return supervisor.NewClient(c.Root(name))
}

// Fabric is the cluster's fabric: its bridge, its namespaces' names.
func (c *Cluster) Fabric() fabric.Config { return c.fcfg }

// fabricIndex is the machine's index on the fabric (its address is the
// node network's .10+index).
func (c *Cluster) fabricIndex(m provision.Machine) int {
	return int(m.IP.As4()[3]) - int(c.Topology.NodeCIDR.Addr().As4()[3]) - 10
}

// provisionMachine writes the machine's files under its root, as a VM is
// provisioned: its rendered files, the binaries its units run (links to
// BinDir) and, on a worker, the image tarballs (a link to ImageDir).
func (c *Cluster) provisionMachine(m provision.Machine) error {
	root := c.Root(m.Name)
	files, err := provision.Render(c.Topology, c.PKIDir(), m.Name, root)
	if err != nil {
		return err
	}
	for _, b := range provision.Binaries(m.Role) {
		if b == "cloud-controller-manager" && c.Topology.Cloud == nil {
			continue
		}
		files = append(files, provision.File{Path: filepath.Join("usr", "local", "bin", b), Link: c.binary(m.Name, b)})
	}
	if m.Role == provision.Worker {
		files = append(files, provision.File{Path: provision.ImageDir, Link: c.ImageDir})
	}
	return provision.Write(root, files)
}

// binary is the file machine's component runs from: its own upstream
// binary, every machine's, the control plane's directory, or BinDir.
func (c *Cluster) binary(machine, component string) string {
	if file, ok := c.Binaries[machine+"/"+component]; ok {
		return file
	}
	if file, ok := c.Binaries[component]; ok {
		return file
	}
	if c.ControlPlaneBinDir != "" && slices.Contains(UpstreamControlPlane, component) {
		return filepath.Join(c.ControlPlaneBinDir, component)
	}
	return filepath.Join(c.BinDir, component)
}

// boot starts the machine's supervisor inside its namespace, in a UTS
// namespace of its own named after the machine: the machine's init.
func (c *Cluster) boot(m provision.Machine) (*exec.Cmd, error) {
	root := c.Root(m.Name)
	if err := os.MkdirAll(filepath.Join(root, "var", "log"), 0o755); err != nil {
		return nil, err
	}
	logf, err := os.OpenFile(filepath.Join(root, "var", "log", "kubik-supervisor.log"), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return nil, err
	}
	defer logf.Close()
	cmd := exec.Command("nsenter", "--net="+c.NetNS(m.Name), "--", filepath.Join(c.BinDir, "kubik-supervisor"),
		"--root", root, "run", "--hostname", m.Name, "--log-level", c.Topology.LogLevel)
	cmd.Stdout, cmd.Stderr = logf, logf
	// Its own process group (a Ctrl-C to this program must not reach the
	// machines: it stops them in order) and its own hostname.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Cloneflags: syscall.CLONE_NEWUTS}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	c.log.Info("machine booted", "machine", m.Name, "role", string(m.Role), "ip", m.IP.String(),
		"netns", c.NetNS(m.Name), "supervisor", cmd.Process.Pid)
	return cmd, nil
}

// supervisorPID is the machine's running supervisor, from its PID file,
// if the process there is that machine's supervisor.
func (c *Cluster) supervisorPID(name string) int {
	cfg := supervisor.Config{Root: c.Root(name)}
	b, err := os.ReadFile(cfg.PIDFile())
	if err != nil {
		return 0
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil || pid <= 0 {
		return 0
	}
	cl, _ := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid))
	if !strings.Contains(string(cl), "kubik-supervisor") || !strings.Contains(string(cl), c.Root(name)) {
		return 0
	}
	return pid
}

// shutdown stops a machine as `poweroff` does: its supervisor stops every
// unit in order (the kubelet removes its pods), then whatever is left in
// the machine is killed. The namespace stays.
func (c *Cluster) shutdown(name string) {
	if pid := c.supervisorPID(name); pid > 0 {
		syscall.Kill(pid, syscall.SIGTERM)
		for i := 0; i < 1800 && syscall.Kill(pid, 0) == nil; i++ { // 3 minutes: a kubelet removing its pods
			if isZombie(pid) {
				break
			}
			time.Sleep(100 * time.Millisecond)
		}
	}
	c.kill(name)
}

// kill ends everything running on a machine, at once: every process in
// its network namespace, then what its containerd left (containers,
// mounts, cgroups), as pulling a VM's power cord does.
func (c *Cluster) kill(name string) {
	for _, pid := range processesIn(c.NetNS(name)) {
		syscall.Kill(pid, syscall.SIGKILL)
	}
	if pid := c.supervisorPID(name); pid > 0 {
		syscall.Kill(pid, syscall.SIGKILL)
	}
	if m, ok := c.Topology.Machine(name); ok && m.Role == provision.Worker {
		root := filepath.Join(c.Root(name), "var", "lib", "kubelet")
		if err := containerd.Cleanup(containerd.Config{Dir: filepath.Join(root, "containerd"), Name: node5.RuntimeName(root),
			NetNS: c.NetNS(name)}, c.log); err != nil {
			c.log.Warn("cleaning up the machine's containers", "machine", name, "err", err)
		}
	}
	for i := 0; i < 100 && len(processesIn(c.NetNS(name))) > 0; i++ {
		time.Sleep(50 * time.Millisecond)
	}
	// What the kubelet mounted for its pods (projected and emptyDir
	// volumes) and no one unmounted: a machine's mounts end with it.
	for _, m := range mountsUnder(c.Root(name)) {
		if err := syscall.Unmount(m, syscall.MNT_DETACH); err != nil {
			c.log.Warn("unmounting", "machine", name, "mount", m, "err", err)
		}
	}
}

// mountsUnder are the mount points below dir, deepest (latest) first.
func mountsUnder(dir string) []string {
	data, err := os.ReadFile("/proc/self/mountinfo")
	if err != nil {
		return nil
	}
	unescape := strings.NewReplacer(`\040`, " ", `\011`, "\t", `\012`, "\n", `\134`, `\`)
	var out []string
	for _, line := range strings.Split(string(data), "\n") {
		fields := strings.Fields(line)
		if len(fields) < 5 {
			continue
		}
		if mp := unescape.Replace(fields[4]); strings.HasPrefix(mp, dir+"/") {
			out = append(out, mp)
		}
	}
	slices.Reverse(out)
	return out
}

// processesIn are the processes whose network namespace is the one at
// nsPath (none if it does not exist).
func processesIn(nsPath string) []int {
	var ns syscall.Stat_t
	if err := syscall.Stat(nsPath, &ns); err != nil {
		return nil
	}
	entries, _ := os.ReadDir("/proc")
	var pids []int
	self := os.Getpid()
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil || pid == self {
			continue
		}
		var st syscall.Stat_t
		if syscall.Stat(filepath.Join("/proc", e.Name(), "ns", "net"), &st) == nil && st.Dev == ns.Dev && st.Ino == ns.Ino && !isZombie(pid) {
			pids = append(pids, pid)
		}
	}
	return pids
}

// isZombie: the process has exited and waits for its parent.
func isZombie(pid int) bool {
	stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return true
	}
	i := strings.LastIndexByte(string(stat), ')')
	return i > 0 && i+2 < len(stat) && (stat[i+2] == 'Z' || stat[i+2] == 'X')
}
