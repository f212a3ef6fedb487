// Command kubelet is chapter 5's node as a process of its own, as a
// worker machine runs it: its container runtime (a containerd of its own,
// unless --container-runtime-endpoint names one) and the kubelet, with
// the kubelet's flags, its identity from --kubeconfig and its API's
// certificates from files (--tls-cert-file, --tls-private-key-file,
// --client-ca-file), since there is no cluster CA on a worker:
//
//	kubelet --kubeconfig node-0.kubeconfig --hostname-override node-0 --node-ip 10.240.0.20 \
//	    --tls-cert-file node-0-serving.crt --tls-private-key-file node-0-serving.key --client-ca-file ca.crt \
//	    --cluster-dns 10.96.0.10 --cluster-domain cluster.local \
//	    --root-dir /var/lib/kubelet --cni-bin-dir /opt/cni/bin
//
// containerd and the pods live in the network namespace the kubelet was
// started in (the machine's), as on a real node. With --cni-bin-dir
// containerd starts without a CNI configuration and execs the plugins of
// that directory: the node's network agent writes the configuration, at
// <root-dir>/containerd/net.d/10-kubik.conflist, once it knows the node's
// subnet (chapter 6), and --pod-cidr defaults to none: the node's subnet
// is its Node's spec.podCIDR, given by the controller manager's node IPAM.
// Without it, chapter 5's reference bridge network on --pod-cidr.
//
// SIGHUP restarts the kubelet alone (`systemctl restart kubelet`); SIGTERM
// stops it, removes the pods of its own containerd and stops that.
//
// Upstream: cmd/kubelet.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"os"
	"os/signal"
	"syscall"

	"kubik/ch01-apiserver/app"
	"kubik/ch05-kubelet/containerd"
	"kubik/ch05-kubelet/node5"
)

// flags are the kubelet's flags (node5's) and the process's own.
type flags struct {
	node       *node5.Config
	kubeconfig string
	cniBinDir  string
	logLevel   string
}

func (f *flags) add(fs *flag.FlagSet) {
	f.node = node5.NewConfig()
	f.node.RootDir = "/var/lib/kubelet" // upstream's default
	f.node.AddFlags(fs)
	fs.StringVar(&f.kubeconfig, "kubeconfig", "", "kubeconfig of the kubelet's identity, system:node:<name> (required)")
	fs.StringVar(&f.cniBinDir, "cni-bin-dir", "",
		"the CNI plugins the node's containerd execs; containerd then starts with no CNI configuration, which the node's network agent writes at --root-dir/containerd/net.d/10-kubik.conflist (default: chapter 5's bridge network)")
	fs.StringVar(&f.logLevel, "log-level", "info", "debug, info, warn or error")
}

// check refuses what a worker cannot do without a cluster CA.
func (f *flags) check() error {
	if f.kubeconfig == "" {
		return errors.New("--kubeconfig is required")
	}
	if f.node.Server.Port != 0 && (f.node.Server.TLSCertFile == "" || f.node.Server.TLSKeyFile == "" || f.node.Server.ClientCAFile == "") {
		return errors.New("--tls-cert-file, --tls-private-key-file and --client-ca-file are required for the kubelet API (--port 0 serves none)")
	}
	return nil
}

// pluginDir is the pod network of --cni-bin-dir: no configuration at
// start (the network agent writes it), the plugins of one directory.
type pluginDir string

func (pluginDir) ConfList(containerd.Config) ([]byte, error) { return nil, nil }
func (d pluginDir) BinDir() string                           { return string(d) }

func main() {
	var f flags
	f.add(flag.CommandLine)
	flag.Parse()
	podCIDRSet := false
	flag.Visit(func(fl *flag.Flag) { podCIDRSet = podCIDRSet || fl.Name == "pod-cidr" })
	if f.cniBinDir != "" && !podCIDRSet {
		f.node.PodCIDR = "" // the node's subnet comes from its Node's spec.podCIDR (node IPAM), as upstream's default
	}
	if err := f.check(); err != nil {
		fmt.Fprintln(os.Stderr, "kubelet:", err)
		os.Exit(2)
	}
	log, err := app.NewLogger(f.logLevel, os.Stderr)
	if err != nil {
		fmt.Fprintln(os.Stderr, "kubelet:", err)
		os.Exit(2)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, &f, log); err != nil {
		log.Error("kubelet stopped", "component", "kubelet", "err", err)
		stop()
		os.Exit(1)
	}
}

// run starts the node and waits until ctx ends or the kubelet fails.
func run(ctx context.Context, f *flags, log *slog.Logger) error {
	cfg := f.node
	// The images default to --root-dir/images.
	if err := cfg.Resolve(cfg.RootDir); err != nil {
		return err
	}
	// containerd runs where we run: the machine's network namespace.
	cfg.NetNS = fmt.Sprintf("/proc/%d/ns/net", os.Getpid())
	if f.cniBinDir != "" {
		cfg.Network = pluginDir(f.cniBinDir)
	}
	// The node runs on a context of its own: on SIGTERM the kubelet stops
	// first, then Stop removes the pods and stops containerd.
	runCtx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	defer cancel()
	node, err := node5.Start(runCtx, cfg, f.kubeconfig, nil, log)
	if err != nil {
		return err
	}
	log.Info("node started", "component", "kubelet", "node", node.Name, "nodeIP", node.IP, "runtime", node.Endpoint)
	done := make(chan error, 1)
	go func() { done <- node.Wait() }()
	select {
	case <-ctx.Done():
	case err = <-done:
	}
	cancel()
	node.Stop()
	return err
}
