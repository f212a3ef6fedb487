// Chapter 8: the whole cluster.
//
// Every component a process of its own, started by a unit file on its
// machine, with its own certificate: three control-plane machines (an
// etcd member, kube-apiserver, and the leader-elected kube-scheduler,
// kube-controller-manager and cloud-controller-manager on each), a load
// balancer (haproxy) in front of the apiservers, and workers (the kubelet
// with its containerd, kube-proxy, the node agent). On this host each
// machine is a network namespace booted by kubik-supervisor from the same
// files a Vagrant VM's systemd runs (package cluster8):
//
//	make ch08-run                      # as root; CONTROL_PLANE=1 WORKERS=1 for a small one
//	export KUBECONFIG=.kubik/ch08/admin.kubeconfig
//	kubectl get nodes
//	make drill-apiserver               # in another terminal: kill -9 an apiserver, and watch
//	make ch08-down                     # or Ctrl-C
//
// The commands:
//
//	up        make the PKI and the machines, boot them, wait (Ctrl-C: remove everything)
//	down      stop a running cluster of --data-dir, and remove what a crashed one left
//	status    every machine's units
//	shell     a shell on a machine (its namespace, its hostname, kubik-supervisor's root)
//	poweroff, poweron MACHINE   pull a machine's power cord, plug it back
//	drill NAME                  a failure drill against the running cluster (drill list: the names)
//	pki       the cluster's PKI into DATA_DIR/pki, admin.kubeconfig into DATA_DIR (up does it too)
//	render    a machine's files for a root (--root / for a VM) into --out: what Vagrant copies
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"kubik/ch01-apiserver/app"
	"kubik/ch08-full-cluster/cluster8"
	"kubik/ch08-full-cluster/drills"
	"kubik/ch08-full-cluster/pki"
	"kubik/ch08-full-cluster/provision"
	"kubik/ch08-full-cluster/supervisor"
)

const usage = `usage: ch08-full-cluster COMMAND [flags]
  up                      bring the cluster up on this host and run until Ctrl-C (as root)
  down                    stop the cluster of --data-dir and remove everything it made, also after a crash
  status                  every machine's units, as systemctl list-units on each
  shell MACHINE [CMD...]  a shell (or CMD) on a machine: its network, its hostname, KUBIK_ROOT for kubik-supervisor
  poweroff|poweron MACHINE  pull a machine's power cord, or plug it back (the cloud then sees it gone / back)
  drill NAME|list         run a failure drill against the running cluster, printing what to watch
  pki                     write the cluster's PKI (DATA_DIR/pki) and admin.kubeconfig, as up does
  render                  write machines' files for a root into a directory (--root / : a VM's)
Run a command with -h for its flags.
`

func main() {
	if len(os.Args) < 2 {
		fmt.Fprint(os.Stderr, usage)
		os.Exit(2)
	}
	cmd, args := os.Args[1], os.Args[2:]
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	var err error
	switch cmd {
	case "up":
		err = up(ctx, args)
	case "down":
		err = down(args)
	case "status":
		err = status(ctx, args)
	case "shell":
		err = shell(args)
	case "poweroff", "poweron":
		err = power(ctx, cmd, args)
	case "drill":
		err = drill(ctx, args)
	case "pki":
		err = writePKI(args)
	case "render":
		err = render(args)
	case "-h", "--help", "help":
		fmt.Print(usage)
		return
	default:
		fmt.Fprint(os.Stderr, usage)
		os.Exit(2)
	}
	if errors.Is(err, flag.ErrHelp) {
		os.Exit(2)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "ch08-full-cluster "+cmd+":", err)
		os.Exit(1)
	}
}

// up is the cluster's life: up, the banner, the hypervisor, until Ctrl-C.
func up(ctx context.Context, args []string) error {
	cfg := cluster8.NewConfig()
	fs := flag.NewFlagSet("up", flag.ContinueOnError)
	cfg.AddFlags(fs)
	if err := fs.Parse(args); err != nil {
		return err
	}
	if err := os.MkdirAll(cfg.DataDir, 0o755); err != nil {
		return err
	}
	dir, err := cluster8.AbsDir(cfg.DataDir)
	if err != nil {
		return err
	}
	if pid := cluster8.RunningPID(dir); pid > 0 && pid != os.Getpid() {
		return fmt.Errorf("the cluster of %s runs already (pid %d): stop it first (make ch08-down)", dir, pid)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	if err := os.WriteFile(cluster8.PIDFile(dir), []byte(fmt.Sprintln(os.Getpid())), 0o644); err != nil {
		return err
	}
	defer os.Remove(cluster8.PIDFile(dir))
	log, closeLog, err := logger(dir, cfg.LogLevel)
	if err != nil {
		return err
	}
	defer closeLog()
	start := time.Now()
	c, err := cluster8.Up(ctx, cfg, log)
	if errors.Is(err, context.Canceled) && ctx.Err() != nil {
		return nil // Ctrl-C while coming up: Up removed what it made
	}
	if err != nil {
		return err
	}
	defer c.Stop()
	log.Info("cluster up", "component", "cluster", "took", time.Since(start).Round(time.Second))
	c.Welcome(os.Stdout)
	return c.ServeHypervisor(ctx)
}

// logger writes to stderr and DATA_DIR/cluster.log.
func logger(dir, level string) (*slog.Logger, func(), error) {
	f, err := os.OpenFile(filepath.Join(dir, "cluster.log"), os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
	if err != nil {
		return nil, nil, err
	}
	log, err := app.NewLogger(level, teeWriter{os.Stderr, f})
	if err != nil {
		f.Close()
		return nil, nil, err
	}
	return log, func() { f.Close() }, nil
}

type teeWriter struct{ a, b *os.File }

func (t teeWriter) Write(p []byte) (int, error) {
	t.b.Write(p)
	return t.a.Write(p)
}

func dataDirFlag(fs *flag.FlagSet) *string {
	return fs.String("data-dir", cluster8.NewConfig().DataDir, "the cluster's directory")
}

// down stops the running `up` (it shuts the machines down in order), then
// removes whatever is left.
func down(args []string) error {
	fs := flag.NewFlagSet("down", flag.ContinueOnError)
	dataDir := dataDirFlag(fs)
	if err := fs.Parse(args); err != nil {
		return err
	}
	dir, err := cluster8.AbsDir(*dataDir)
	if err != nil {
		return err
	}
	if pid := cluster8.RunningPID(dir); pid > 0 {
		fmt.Printf("stopping the cluster's process %d (it shuts the machines down)\n", pid)
		syscall.Kill(pid, syscall.SIGTERM)
		for i := 0; i < 3000 && cluster8.RunningPID(dir) > 0; i++ {
			time.Sleep(100 * time.Millisecond)
		}
	}
	c, err := cluster8.Load(dir, nil)
	if errors.Is(err, os.ErrNotExist) {
		fmt.Printf("%s has no cluster: nothing to do\n", dir)
		return nil
	}
	if err != nil {
		return err
	}
	if left := c.Cleanup(); len(left) > 0 {
		return fmt.Errorf("still there: %s", strings.Join(left, ", "))
	}
	os.Remove(cluster8.PIDFile(dir))
	fmt.Printf("the cluster of %s is down: no machine, namespace, link, route or container of it is left\n", dir)
	return nil
}

// status lists each machine's units.
func status(ctx context.Context, args []string) error {
	fs := flag.NewFlagSet("status", flag.ContinueOnError)
	dataDir := dataDirFlag(fs)
	if err := fs.Parse(args); err != nil {
		return err
	}
	c, err := cluster8.Load(*dataDir, nil)
	if err != nil {
		return err
	}
	for _, m := range c.Topology.Machines {
		fmt.Printf("%s (%s, %s):\n", m.Name, m.IP, m.Role)
		units, err := c.Supervisor(m.Name).List(ctx)
		if err != nil {
			fmt.Printf("  down: %v\n\n", err)
			continue
		}
		supervisor.WriteList(os.Stdout, units)
		fmt.Println()
	}
	return nil
}

// shell runs a shell, or a command, on a machine: in its network and UTS
// namespaces, with KUBIK_ROOT set (kubik-supervisor status kubelet) and,
// on a control-plane machine, etcdctl's environment.
func shell(args []string) error {
	fs := flag.NewFlagSet("shell", flag.ContinueOnError)
	dataDir := dataDirFlag(fs)
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() == 0 {
		return errors.New("which machine?")
	}
	c, err := cluster8.Load(*dataDir, nil)
	if err != nil {
		return err
	}
	name := fs.Arg(0)
	if _, ok := c.Topology.Machine(name); !ok {
		return fmt.Errorf("no machine %q", name)
	}
	root := c.Root(name)
	env := append(os.Environ(), "KUBIK_ROOT="+root, "PATH="+c.BinDir+":"+filepath.Join(root, "usr", "local", "bin")+":"+os.Getenv("PATH"),
		"PS1=["+name+"] \\w# ")
	if data, err := os.ReadFile(filepath.Join(root, "etc", "kubik", "etcdctl.env")); err == nil {
		env = append(env, strings.Fields(string(data))...)
	}
	argv := []string{"nsenter", "--net=" + c.NetNS(name)}
	if pid, err := os.ReadFile(supervisor.Config{Root: root}.PIDFile()); err == nil {
		argv = append(argv, "--uts=/proc/"+strings.TrimSpace(string(pid))+"/ns/uts")
	}
	argv = append(argv, "--")
	if fs.NArg() > 1 {
		argv = append(argv, fs.Args()[1:]...)
	} else {
		argv = append(argv, "bash", "--norc", "--noprofile", "-i")
	}
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr, cmd.Env, cmd.Dir = os.Stdin, os.Stdout, os.Stderr, env, root
	signal.Ignore(os.Interrupt) // Ctrl-C is the shell's
	err = cmd.Run()
	// As ssh: the command's exit status is ours, without a word of ours.
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		if ws, ok := ee.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
			os.Exit(128 + int(ws.Signal()))
		}
		os.Exit(ee.ExitCode())
	}
	return err
}

func power(ctx context.Context, action string, args []string) error {
	fs := flag.NewFlagSet(action, flag.ContinueOnError)
	dataDir := dataDirFlag(fs)
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() != 1 {
		return errors.New("which machine?")
	}
	dir, err := cluster8.AbsDir(*dataDir)
	if err != nil {
		return err
	}
	return cluster8.Hypervisor(ctx, dir, fs.Arg(0), action)
}

func drill(ctx context.Context, args []string) error {
	fs := flag.NewFlagSet("drill", flag.ContinueOnError)
	dataDir := dataDirFlag(fs)
	kubectl := fs.String("kubectl", "", "the kubectl to run (default: kubectl on the PATH, else "+drills.FallbackKubectl+")")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() != 1 || fs.Arg(0) == "list" {
		fmt.Println("drills:")
		for _, d := range drills.All {
			fmt.Printf("  %-20s %s\n", d.Name, d.Summary)
		}
		if fs.Arg(0) != "list" {
			return errors.New("which drill?")
		}
		return nil
	}
	c, err := cluster8.Load(*dataDir, nil)
	if err != nil {
		return err
	}
	env, err := drills.NewEnv(c, *kubectl, os.Stdout)
	if err != nil {
		return err
	}
	_, err = drills.Run(ctx, env, fs.Arg(0))
	return err
}

// writePKI writes the PKI of the flags' topology, as `up` does before it
// makes the machines: every certificate, key and kubeconfig (kept when
// they still fit), and admin.kubeconfig next to it.
func writePKI(args []string) error {
	cfg := cluster8.NewConfig()
	fs := flag.NewFlagSet("pki", flag.ContinueOnError)
	cfg.AddFlags(fs)
	if err := fs.Parse(args); err != nil {
		return err
	}
	t, err := cfg.Topology()
	if err != nil {
		return err
	}
	dir := filepath.Join(cfg.DataDir, "pki")
	if err := pki.Write(dir, t.PKI()); err != nil {
		return err
	}
	admin := filepath.Join(cfg.DataDir, "admin.kubeconfig")
	if err := cluster8.CopyFile(filepath.Join(dir, pki.Admin+".kubeconfig"), admin, 0o600); err != nil {
		return err
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return err
	}
	fmt.Printf("%s: %d files for %d control-plane machine(s), %d worker(s), the load balancer https://%s:\n",
		dir, len(entries), len(t.ByRole(provision.ControlPlane)), len(t.ByRole(provision.Worker)), t.LoadBalancerAddress())
	for _, e := range entries {
		fmt.Printf("  %s\n", e.Name())
	}
	fmt.Printf("admin's kubeconfig: %s\n", admin)
	return nil
}

// render writes machines' files for a root into --out (one directory per
// machine with --machine all), with the PKI of --data-dir (made if
// missing): the Vagrant provisioning's input.
func render(args []string) error {
	cfg := cluster8.NewConfig()
	cfg.EtcdUnsafeNoFsync = false // a VM's disk is its own: etcd fsyncs as in production
	fs := flag.NewFlagSet("render", flag.ContinueOnError)
	cfg.AddFlags(fs)
	machine := fs.String("machine", "all", "the machine to render, or all")
	root := fs.String("root", "/", "the machines' root directory as their processes see it (/ on a VM)")
	out := fs.String("out", "", "where to write: the machine's files (one directory per machine for all) (required)")
	iface := fs.String("interface", "eth0", "the machines' link on the node network (a Vagrant VM's private network: eth1)")
	cloud := fs.Bool("cloud", false, "render the cloud-controller-manager too (needs the kubik cloud of a local fabric)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *out == "" {
		return errors.New("--out is required")
	}
	t, err := cfg.Topology()
	if err != nil {
		return err
	}
	t.Interface = *iface
	if *cloud {
		st, err := cluster8.LoadState(cfg.DataDir)
		if err != nil || st.Topology.Cloud == nil {
			return fmt.Errorf("--cloud: no local cloud in %s (up makes one): %v", cfg.DataDir, err)
		}
		t.Cloud = st.Topology.Cloud
	}
	pkiDir := filepath.Join(cfg.DataDir, "pki")
	if err := pki.Write(pkiDir, t.PKI()); err != nil {
		return err
	}
	names := []string{*machine}
	if *machine == "all" {
		names = nil
		for _, m := range t.Machines {
			names = append(names, m.Name)
		}
	}
	for _, name := range names {
		files, err := provision.Render(t, pkiDir, name, *root)
		if err != nil {
			return err
		}
		dir := *out
		if *machine == "all" {
			dir = filepath.Join(*out, name)
		}
		if err := provision.Write(dir, files); err != nil {
			return err
		}
		m, _ := t.Machine(name)
		fmt.Printf("%s: %d files in %s (units: %s; binaries it needs in /usr/local/bin: %s)\n", name, len(files), dir,
			strings.Join(t.Units(m.Role), ", "), strings.Join(provision.Binaries(m.Role), ", "))
	}
	return nil
}
