// Package cluster6 starts chapter 6's cluster: chapter 5's control plane
// (the apiserver on etcd, kube-scheduler, kube-controller-manager — now
// with its node IPAM controller giving every Node a pod CIDR) and --nodes
// real nodes, each a machine of its own on one host (package fabric): a
// network namespace with eth0 on the node network, running containerd, the
// kubelet and the node agent (package node6). Pods on any node reach pods
// on every other node directly, by their pod IPs, without NAT: host-gw
// routes, or a VXLAN overlay (--backend).
//
// The control plane stays in this process, in the host's namespace; the
// machines reach it at the node network's bridge address, where the
// apiserver serves too.
package cluster6

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net/netip"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"time"

	"kubik/ch01-apiserver/pki"
	"kubik/ch03-scheduler/clientgo/rest"
	"kubik/ch05-kubelet/cluster5"
	"kubik/ch05-kubelet/containerd"
	"kubik/ch05-kubelet/node5"
	"kubik/ch06-cni/fabric"
	"kubik/ch06-cni/node6"
	"kubik/ch06-cni/nodeagent"
	"kubik/ch06-cni/nodeipam"
)

// Config is chapter 5's configuration plus the machines and their network.
type Config struct {
	cluster5.Config
	Nodes    int    // --nodes: how many machines
	NodeCIDR string // --node-cidr: the node network (10.240.0.0/24)
	Backend  string // --backend: host-gw or vxlan
	// CNIPlugin is --cni-plugin: a kubik-cni binary for the nodes (empty:
	// this program, which is the plugin too, but starts slower: every
	// package of the cluster initialises on every CNI call).
	CNIPlugin string
	// NodeIPAM is the controller manager's node-ipam-controller:
	// --allocate-node-cidrs (on here), --cluster-cidr, --node-cidr-mask-size.
	NodeIPAM nodeipam.Options
	// NodeConfig, when set, turns a machine's node6.Config into what its
	// node process reads: chapter 7 wraps it in its own, adding kube-proxy.
	NodeConfig func(c *Cluster, m *Machine, n *node6.Config) (any, error)
}

// NewConfig is the configuration with chapter 6's defaults: two machines
// instead of chapter 5's local node, host-gw, node IPAM on.
func NewConfig() *Config {
	c := &Config{Config: *cluster5.NewConfig(), Nodes: 2, NodeCIDR: "10.240.0.0/24", Backend: "host-gw"}
	c.LocalNode = false
	c.NodeIPAM = nodeipam.DefaultOptions()
	c.NodeIPAM.AllocateNodeCIDRs = true
	c.ControllerManager.Extra = append(c.ControllerManager.Extra, nodeipam.Descriptor(&c.NodeIPAM))
	return c
}

// AddFlags registers chapter 5's flags and chapter 6's.
func (c *Config) AddFlags(fs *flag.FlagSet) {
	c.Config.AddFlags(fs)
	c.NodeIPAM.AddFlags(fs)
	fs.IntVar(&c.Nodes, "nodes", c.Nodes, "how many nodes to run, each a network namespace machine with containerd, the kubelet and the node agent")
	fs.StringVar(&c.NodeCIDR, "node-cidr", c.NodeCIDR, "the node network (the bridge takes its first address, node i the .10+i)")
	fs.StringVar(&c.Backend, "backend", c.Backend, "how pods reach other nodes' pods: host-gw (routes via the node IPs) or vxlan (an overlay, VNI 1, port 8472)")
	fs.StringVar(&c.CNIPlugin, "cni-plugin", c.CNIPlugin, "a kubik-cni binary (go build ./ch06-cni/cmd/kubik-cni) that containerd execs on the nodes (default: this program, which is the plugin too when run as kubik-cni, but starts slower)")
}

// Cluster is a running chapter 6 cluster.
type Cluster struct {
	*cluster5.Cluster
	Fabric   *fabric.Fabric
	Machines []*Machine
	fcfg     fabric.Config
}

// Machine is one node: its namespace and its node process.
type Machine struct {
	*fabric.Machine
	Dir      string // the machine's directory: config, kubeconfigs, root dir, log
	Server   string // the apiserver as the machine reaches it: https://<bridge>:<port>
	cmd      *exec.Cmd
	done     chan struct{}
	stopping atomic.Bool
}

// Welcome prints chapter 6's banner.
func (c *Cluster) Welcome(w io.Writer) {
	c.PrintWelcome(w, "Kubik chapter 6 (pod network)")
	var nodes []string
	for _, m := range c.Machines {
		nodes = append(nodes, fmt.Sprintf("%s (%s, netns %s)", m.Name, m.IP, m.NetNS))
	}
	fmt.Fprintf(w, "nodes: %s\n\n  kubectl get nodes -o wide\n  kubectl create deployment web --image=kubik.local/demo:1.0 --replicas=4\n  kubectl get pods -o wide\n\n",
		strings.Join(nodes, ", "))
}

// FabricConfig is the fabric of a cluster whose data dir is dataDir: its
// names carry a hash of the directory (two clusters never share one).
func FabricConfig(dataDir, nodeCIDR, clusterCIDR, serviceCIDR string, log *slog.Logger) (fabric.Config, error) {
	abs, err := filepath.Abs(dataDir)
	if err != nil {
		return fabric.Config{}, err
	}
	sum := sha256.Sum256([]byte(abs))
	cfg := fabric.Config{ID: hex.EncodeToString(sum[:3]), Logger: log}
	if cfg.NodeCIDR, err = netip.ParsePrefix(nodeCIDR); err != nil {
		return cfg, fmt.Errorf("--node-cidr: %w", err)
	}
	for _, g := range []string{clusterCIDR, serviceCIDR, "10.240.0.0/16"} {
		p, err := netip.ParsePrefix(g)
		if err != nil {
			return cfg, err
		}
		cfg.Guards = append(cfg.Guards, p.Masked())
	}
	return cfg, nil
}

// Start brings up the node network (the guard routes first), runs chapter
// 5's control plane serving on the bridge too, then the machines.
func Start(ctx context.Context, cfg *Config, log *slog.Logger) (_ *Cluster, err error) {
	cfg.NodeIPAM.ServiceCIDR = cfg.ServiceClusterIPRange // kept out of the pod CIDRs
	if cfg.Nodes == 0 {
		// No machines: the control plane alone (the compare scenarios run
		// so, without root), no node network.
		c5, err := cluster5.Start(ctx, &cfg.Config, log)
		if err != nil {
			return nil, err
		}
		return &Cluster{Cluster: c5}, nil
	}
	if err := containerd.CheckHost(); err != nil {
		return nil, err
	}
	if cfg.CNIPlugin != "" {
		abs, err := filepath.Abs(cfg.CNIPlugin)
		if err == nil {
			_, err = os.Stat(abs)
		}
		if err != nil {
			return nil, fmt.Errorf("--cni-plugin: %w", err)
		}
		cfg.CNIPlugin = abs
	}
	fcfg, err := FabricConfig(cfg.DataDir, cfg.NodeCIDR, cfg.NodeIPAM.ClusterCIDR, cfg.ServiceClusterIPRange, log)
	if err != nil {
		return nil, err
	}
	fabric.Cleanup(fcfg) // what a crashed run left
	fab, err := fabric.Up(fcfg)
	if err != nil {
		return nil, err
	}
	gw := fcfg.Gateway().String()
	c5cfg := cfg.Config
	c5cfg.ListenAlso = append(c5cfg.ListenAlso, gw)
	if c5cfg.AdvertiseAddress == "" {
		c5cfg.AdvertiseAddress = gw // the kubernetes Service's endpoint: what pods can reach
	}
	if c5cfg.MetricsServerAddress == "" {
		// The metrics server beside the control plane, on the bridge: the
		// apiserver reaches it there (an EndpointSlice cannot hold a
		// loopback address), and it reaches the machines' kubelets.
		c5cfg.MetricsServerAddress = gw
	}
	c5, err := cluster5.Start(ctx, &c5cfg, log)
	if err != nil {
		fab.Down()
		return nil, err
	}
	c := &Cluster{Cluster: c5, Fabric: fab, fcfg: fcfg}
	defer func() {
		if err != nil {
			c.Stop()
		}
	}()
	admin, err := rest.New(c.AdminKubeconfig, "kubik-ch06-bootstrap")
	if err != nil {
		return nil, err
	}
	if err := nodeagent.EnsureRBAC(ctx, admin); err != nil {
		return nil, err
	}
	u, _ := url.Parse(c.URL)
	server := "https://" + gw + ":" + u.Port()
	for i := 1; i <= cfg.Nodes; i++ {
		m, err := c.startMachine(ctx, cfg, fmt.Sprintf("node-%d", i), i, server, log)
		if err != nil {
			return nil, err
		}
		c.Machines = append(c.Machines, m)
	}
	return c, nil
}

// startMachine makes machine i and starts its node process in it.
func (c *Cluster) startMachine(ctx context.Context, cfg *Config, name string, i int, server string, log *slog.Logger) (*Machine, error) {
	fm, err := c.Fabric.AddMachine(name, i)
	if err != nil {
		return nil, err
	}
	m := &Machine{Machine: fm, Dir: filepath.Join(c.DataDir, "nodes", name), Server: server, done: make(chan struct{})}
	if err := os.MkdirAll(m.Dir, 0o755); err != nil {
		return nil, err
	}
	// The machine's identities and certificates, from the cluster's PKI.
	kubeletKC := filepath.Join(m.Dir, "kubelet.kubeconfig")
	if err := c.CA.WriteIdentityKubeconfig(kubeletKC, server, pki.Node(name)); err != nil {
		return nil, err
	}
	agentKC := filepath.Join(m.Dir, "node-agent.kubeconfig")
	if err := c.CA.WriteIdentityKubeconfig(agentKC, server, nodeagent.Identity(name)); err != nil {
		return nil, err
	}
	certPEM, keyPEM, err := c.CA.IssueServingCert(name, []string{name, fm.IP.String()})
	if err != nil {
		return nil, err
	}
	certFile, keyFile := filepath.Join(m.Dir, "kubelet.crt"), filepath.Join(m.Dir, "kubelet.key")
	if err := os.WriteFile(certFile, certPEM, 0o644); err != nil {
		return nil, err
	}
	if err := os.WriteFile(keyFile, keyPEM, 0o600); err != nil {
		return nil, err
	}

	node := cfg.Node // the kubelet's flags, as given to the program
	node.HostnameOverride, node.NodeIP, node.NetNS = name, fm.IP.String(), fm.NetNS
	node.RootDir = filepath.Join(m.Dir, "kubelet")
	node.PodCIDR = "" // the node IPAM controller gives it one
	if node.ImageDir == "" {
		node.ImageDir = filepath.Join(c.DataDir, "images")
	}
	node.Server.Address = fm.IP.String()
	node.Server.TLSCertFile, node.Server.TLSKeyFile = certFile, keyFile
	node.Server.ClientCAFile = filepath.Join(c.DataDir, "pki", "ca.crt")
	if node.Server.Port == 0 {
		node.Server.Port = 10250
	}
	rt := containerd.Config{Dir: filepath.Join(node.RootDir, "containerd"), Name: node5.RuntimeName(node.RootDir)}
	clusterCIDR, err := netip.ParsePrefix(cfg.NodeIPAM.ClusterCIDR)
	if err != nil {
		return nil, fmt.Errorf("--cluster-cidr: %w", err)
	}
	subnetFile := filepath.Join(m.Dir, "subnet.env")
	ncfg := &node6.Config{Node: node, KubeletKubeconfig: kubeletKC, LogLevel: cfg.LogLevel, CNIPlugin: cfg.CNIPlugin,
		Agent: nodeagent.Config{NodeName: name, Kubeconfig: agentKC, Backend: cfg.Backend, ClusterCIDR: clusterCIDR,
			Interface: "eth0", PublicIP: fm.IP, SubnetFile: subnetFile, CNIConfPath: rt.ConfListPath(),
			CNIConfList: node6.ConfList(rt.Name, subnetFile, filepath.Join(node.RootDir, "ipam"))}}
	var conf any = ncfg
	if cfg.NodeConfig != nil {
		if conf, err = cfg.NodeConfig(c, m, ncfg); err != nil {
			return nil, err
		}
	}
	confPath := filepath.Join(m.Dir, "node.json")
	if err := node6.WriteConfig(confPath, conf); err != nil {
		return nil, err
	}

	// The machine's software: this program as `node`, inside the namespace.
	self, err := os.Executable()
	if err != nil {
		return nil, err
	}
	logf, err := os.OpenFile(filepath.Join(c.DataDir, "logs", name+".log"), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return nil, err
	}
	defer logf.Close()
	m.cmd = exec.Command("nsenter", "--net="+fm.NetNS, "--", self, "node", "--config", confPath)
	m.cmd.Stdout, m.cmd.Stderr = logf, logf
	// Its own process group: Ctrl-C reaches this program, which stops the
	// machines in order; a machine must not be killed before its pods.
	m.cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := m.cmd.Start(); err != nil {
		return nil, err
	}
	os.WriteFile(filepath.Join(m.Dir, "node.pid"), []byte(strconv.Itoa(m.cmd.Process.Pid)+"\n"), 0o644)
	go func() {
		err := m.cmd.Wait()
		close(m.done)
		if !m.stopping.Load() {
			select {
			case c.Errors() <- fmt.Errorf("node %s stopped: %v (see %s)", name, err, logf.Name()):
			default:
			}
		}
	}()
	log.Info("machine started", "component", "cluster", "node", name, "pid", m.cmd.Process.Pid, "ip", fm.IP.String())
	return m, nil
}

// Stop stops every machine — its node process removes its pods and stops
// containerd — and removes the machines and the node network, then stops
// chapter 5's part.
func (c *Cluster) Stop() {
	for _, m := range c.Machines {
		m.stop()
	}
	if c.Fabric != nil {
		for _, m := range c.Machines {
			c.Fabric.RemoveMachine(m.Machine)
		}
		c.Fabric.Down()
	}
	c.Cluster.Stop()
}

func (m *Machine) stop() {
	if m.cmd == nil || m.cmd.Process == nil {
		return
	}
	m.stopping.Store(true)
	m.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-m.done:
	case <-time.After(90 * time.Second):
		syscall.Kill(-m.cmd.Process.Pid, syscall.SIGKILL)
		<-m.done
	}
	// A process killed hard leaves its containerd behind: its Cleanup
	// finds it by its state directory.
	root := filepath.Join(m.Dir, "kubelet")
	containerd.Cleanup(containerd.Config{Dir: filepath.Join(root, "containerd"), Name: node5.RuntimeName(root), NetNS: m.NetNS}, nil)
	os.Remove(filepath.Join(m.Dir, "node.pid"))
}
