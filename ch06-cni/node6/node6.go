// Package node6 is what runs on each of chapter 6's machines: chapter 5's
// node (containerd and the kubelet, package node5) with the pod network of
// this chapter — the kubik-cni plugin containerd execs for every pod
// sandbox, and the node agent (package nodeagent, flanneld's job) that
// gives the node its subnet and routes to every other node's pods.
//
// A machine is a network namespace (package fabric); its software is one
// process started inside it, this same program run as `node --config
// FILE`, as a real machine's init starts containerd, the kubelet and
// flanneld. It talks to the control plane only over the node network, to
// the apiserver at the bridge's address, with its own identities.
//
// The order matters, and is upstream's: containerd starts with no CNI
// configuration, so the kubelet registers the Node NotReady ("container
// runtime network not ready ... cni plugin not initialized"); the
// controller manager's node IPAM gives the Node a pod CIDR; the agent sees
// it, writes the subnet file and the CNI configuration; containerd reports
// its network ready and the kubelet turns the Node Ready.
package node6

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"os"
	"os/signal"
	"path/filepath"
	"syscall"

	"kubik/ch01-apiserver/app"
	"kubik/ch05-kubelet/containerd"
	"kubik/ch05-kubelet/node5"
	"kubik/ch06-cni/kubikcni"
	"kubik/ch06-cni/nodeagent"
)

// Config is one machine's node software, written by the cluster to the
// machine's directory and read by the node process.
type Config struct {
	Node              node5.Config // the kubelet and its runtime; NetNS is the machine
	KubeletKubeconfig string
	Agent             nodeagent.Config // the node agent; its Kubeconfig is its own identity
	LogLevel          string
	// CNIPlugin is the kubik-cni binary the node's plugin directory links
	// to; empty: this program, which acts as the plugin under that name.
	CNIPlugin string `json:",omitempty"`
}

// WriteConfig writes cfg (a Config, or a later chapter's that embeds one)
// where the node process will read it.
func WriteConfig(path string, cfg any) error {
	data, err := json.MarshalIndent(cfg, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(path, data, 0o600)
}

// Network is chapter 6's pod network as containerd sees it: no CNI
// configuration at start (the agent writes it), and a plugin directory with
// kubik-cni — this very program, which acts as the plugin when run under
// that name — and the reference loopback plugin containerd runs itself.
type Network struct{ Dir string }

// ConfList is nil: the node agent writes the configuration.
func (Network) ConfList(containerd.Config) ([]byte, error) { return nil, nil }

// BinDir is the plugin directory.
func (n Network) BinDir() string { return n.Dir }

// ConfList is the CNI configuration list of the node: kubik-cni (the node's
// subnet from the agent's file, its own IPAM state) and the reference
// portmap plugin for hostPort.
func ConfList(name, subnetFile, ipamDir string) []byte {
	conf := map[string]any{
		"cniVersion": "1.0.0",
		"name":       name,
		"plugins": []any{
			map[string]any{"type": kubikcni.PluginType, "bridge": "kubik0", "subnetFile": subnetFile, "dataDir": ipamDir},
			map[string]any{"type": "portmap", "capabilities": map[string]bool{"portMappings": true}},
		},
	}
	data, _ := json.MarshalIndent(conf, "", "  ")
	return append(data, '\n')
}

// PrepareBinDir makes dir the node's CNI plugin directory: kubik-cni is a
// link to plugin (this program, or a kubik-cni binary of its own),
// loopback and portmap the reference plugins.
func PrepareBinDir(dir, plugin string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	for name, target := range map[string]string{
		kubikcni.PluginType: plugin,
		"loopback":          filepath.Join(containerd.CNIBinDir, "loopback"),
		"portmap":           filepath.Join(containerd.CNIBinDir, "portmap"),
	} {
		link := filepath.Join(dir, name)
		os.Remove(link)
		if err := os.Symlink(target, link); err != nil {
			return err
		}
	}
	return nil
}

// Level is the configured log level: how ProcessMain finds it in a later
// chapter's config that embeds this one.
func (c *Config) Level() string { return c.LogLevel }

// Main is chapter 6's node process: `<program> node --config FILE`. It
// returns the exit code.
func Main(args []string) int {
	var cfg Config
	return ProcessMain(args, &cfg, func(ctx context.Context, log *slog.Logger) error { return Run(ctx, &cfg, log) })
}

// ProcessMain is the frame of a node process, this chapter's or a later
// one's: it reads the --config file into cfg (a *Config, or a later
// chapter's that embeds one), makes the logger, and runs run until SIGTERM
// or Ctrl-C. It returns the exit code.
func ProcessMain(args []string, cfg interface{ Level() string }, run func(ctx context.Context, log *slog.Logger) error) int {
	fs := flag.NewFlagSet("node", flag.ContinueOnError)
	path := fs.String("config", "", "the machine's node configuration (written by the cluster)")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	data, err := os.ReadFile(*path)
	if err != nil {
		fmt.Fprintln(os.Stderr, "node:", err)
		return 1
	}
	if err := json.Unmarshal(data, cfg); err != nil {
		fmt.Fprintln(os.Stderr, "node:", *path+":", err)
		return 1
	}
	log, err := app.NewLogger(cfg.Level(), os.Stderr)
	if err != nil {
		fmt.Fprintln(os.Stderr, "node:", err)
		return 1
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, log); err != nil {
		log.Error("node stopped", "err", err)
		return 1
	}
	return 0
}

// Run runs the machine's node software until ctx ends: the node agent and
// chapter 5's node (containerd with kubik-cni, the kubelet). On the way out
// the kubelet stops first, its pods are removed through the runtime (which
// calls kubik-cni DEL for each), then containerd and the agent stop.
func Run(ctx context.Context, cfg *Config, log *slog.Logger) error {
	self, err := os.Executable()
	if err != nil {
		return err
	}
	plugin := self
	if cfg.CNIPlugin != "" {
		plugin = cfg.CNIPlugin
	}
	network := Network{Dir: filepath.Join(cfg.Node.RootDir, "cni", "bin")}
	if err := PrepareBinDir(network.Dir, plugin); err != nil {
		return err
	}
	cfg.Node.Network = network

	runCtx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	defer cancel()
	// containerd first: it starts without a CNI configuration (and removes
	// a stale one), then the kubelet registers the Node NotReady, then the
	// agent configures the network and writes the configuration.
	node, err := node5.Start(runCtx, &cfg.Node, cfg.KubeletKubeconfig, nil, log)
	if err != nil {
		return err
	}
	kubeletDone := make(chan error, 1)
	go func() { kubeletDone <- node.Wait() }()
	cfg.Agent.Logger = log
	agentDone := make(chan error, 1)
	go func() { agentDone <- runAgent(runCtx, cfg.Agent, log) }()

	select {
	case <-ctx.Done():
	case err = <-agentDone:
		agentDone <- err
	case err = <-kubeletDone:
		kubeletDone <- err
	}
	cancel()
	node.Stop()
	if aerr := <-agentDone; err == nil && aerr != nil && !errors.Is(aerr, context.Canceled) {
		err = aerr
	}
	return err
}

// runAgent runs the node agent until ctx ends, and restarts it on SIGHUP —
// the signal that restarts the kubelet too (package node5): `systemctl
// restart` of the machine's node services. A restarted agent finds the
// routes and rules it made and keeps or mends them.
func runAgent(ctx context.Context, cfg nodeagent.Config, log *slog.Logger) error {
	hup := make(chan os.Signal, 1)
	signal.Notify(hup, syscall.SIGHUP)
	defer signal.Stop(hup)
	for {
		actx, stop := context.WithCancel(ctx)
		done := make(chan error, 1)
		go func() { done <- nodeagent.Run(actx, cfg) }()
		select {
		case err := <-done:
			stop()
			return err
		case <-hup:
			stop()
			<-done
			log.Info("node agent restarting", "component", "node-agent", "signal", "SIGHUP")
		}
	}
}
