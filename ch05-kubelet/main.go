// Chapter 5: the kubelet.
//
// Chapter 4's cluster (the apiserver on etcd, kube-scheduler,
// kube-controller-manager; package cluster4) plus one REAL node: this
// machine. Its kubelet, identity system:node:<hostname>, runs the pods bound
// to it as containers in a containerd of its own (package containerd), which
// runs runc; pods get addresses from the CNI bridge in the node's network
// namespace. Images come from tarballs (`make images`), never a registry:
//
//	sudo make images ch05-run
//	kubectl run web --image=kubik.local/demo:1.0
//	kubectl get pods -o wide
//
// Hollow nodes are off by default here (--hollow-nodes=N brings them back).
// On exit the kubelet removes its pods and stops containerd; nothing stays
// behind: no containers, network namespace, mounts or cgroups.
//
// Static pods: --pod-manifest-path=DIR (upstream's flag; empty, the
// default as upstream's, means none — kubeadm passes
// /etc/kubernetes/manifests) runs the pod manifests of DIR, read again every
// --file-check-frequency (20s), and shows each as a mirror pod
// <name>-<node> in the apiserver.
//
// SIGHUP restarts the kubelet alone, like `systemctl restart kubelet` on a
// real node: the kubelet stops (`kubelet restarting` in the log), the pods
// keep running in containerd, and a fresh kubelet takes them over again:
//
//	pkill -HUP -x ch05-kubelet
package main

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"net"
	"os"
	"path/filepath"
	"strings"
	"time"

	"kubik/ch01-apiserver/app"
	"kubik/ch01-apiserver/pki"
	"kubik/ch02-etcd-store/cluster"
	"kubik/ch04-controllers/cluster4"
	"kubik/ch04-controllers/controllermanager"
	"kubik/ch05-kubelet/containerd"
	"kubik/ch05-kubelet/images"
	"kubik/ch05-kubelet/kubelet"
)

// nodeFlags are the kubelet's, with upstream's names.
type nodeFlags struct {
	hostnameOverride string
	nodeIP           string
	runtimeEndpoint  string
	rootDir          string
	podCIDR          string
	imageDir         string

	podManifestPath    string
	fileCheckFrequency time.Duration
	clusterDNS         string
	clusterDomain      string
	resolvConf         string
	server             serverFlags // the kubelet API: server.go
}

func main() {
	var opts app.Options
	var flags cluster.Flags
	var cm controllermanager.Config
	var nf nodeFlags
	flags.AddFlags(flag.CommandLine)
	cm.AddFlags(flag.CommandLine)
	leaderElect := flag.Bool("leader-elect", true, "kube-scheduler and kube-controller-manager compete for their Leases in kube-system before working")
	hollowNodes := flag.Int("hollow-nodes", 0, "how many simulated nodes (hollow-node-1 ...) to run next to the real one")
	flag.StringVar(&nf.hostnameOverride, "hostname-override", "", "the node's name (default: the machine's hostname)")
	flag.StringVar(&nf.nodeIP, "node-ip", "", "the node's InternalIP (default: the machine's first non-loopback IPv4 address)")
	flag.StringVar(&nf.runtimeEndpoint, "container-runtime-endpoint", "", "the CRI socket of a containerd already running (default: start our own, with state under --root-dir)")
	flag.StringVar(&nf.rootDir, "root-dir", "", "the kubelet's directory: containerd's state, pods' volumes (pods/<uid>), pod logs (logs/pods) (default: --data-dir/kubelet)")
	flag.StringVar(&nf.podCIDR, "pod-cidr", "10.244.0.0/24", "the node's pod subnet (hollow nodes use 10.244.1.0/24 onwards)")
	flag.StringVar(&nf.imageDir, "image-dir", "", "OCI image tarballs imported into containerd at start when missing (default: --data-dir/images; `make images` writes them)")
	flag.StringVar(&nf.podManifestPath, "pod-manifest-path", "", "a directory of static pod manifests the kubelet runs without the apiserver, shown there as mirror pods (default: none)")
	flag.DurationVar(&nf.fileCheckFrequency, "file-check-frequency", kubelet.DefaultFileCheckFrequency, "how often --pod-manifest-path is read again")
	flag.StringVar(&nf.clusterDNS, "cluster-dns", "", "comma-separated IPs of the cluster's DNS server, the nameserver of dnsPolicy ClusterFirst pods (default: none; such pods get the node's resolver and a MissingClusterDNS event)")
	flag.StringVar(&nf.clusterDomain, "cluster-domain", "", "the cluster's DNS domain (e.g. cluster.local): ClusterFirst pods search <ns>.svc.<domain> svc.<domain> <domain>")
	nf.server.addFlags(flag.CommandLine)
	flag.StringVar(&nf.resolvConf, "resolv-conf", "/etc/resolv.conf", "the node's resolver config, which dnsPolicy Default pods get (\"\": none)")
	app.Main(&opts, "cluster", func(ctx context.Context, log *slog.Logger) error {
		cm.LeaderElect = *leaderElect
		return run(ctx, &opts, flags, cm, *hollowNodes, nf, log)
	})
}

func run(ctx context.Context, opts *app.Options, flags cluster.Flags, cm controllermanager.Config, hollowNodes int, nf nodeFlags, log *slog.Logger) error {
	// Refuse early and clearly: before anything is started.
	if err := containerd.CheckHost(); err != nil {
		return err
	}
	dataDir, err := filepath.Abs(opts.DataDir)
	if err != nil {
		return err
	}
	if nf.rootDir == "" {
		nf.rootDir = filepath.Join(dataDir, "kubelet")
	}
	if nf.imageDir == "" {
		nf.imageDir = filepath.Join(dataDir, "images")
	}
	if nf.rootDir, err = filepath.Abs(nf.rootDir); err != nil {
		return err
	}
	nodeName := nf.hostnameOverride
	if nodeName == "" {
		h, err := os.Hostname()
		if err != nil {
			return err
		}
		nodeName = strings.ToLower(h)
	}
	if nf.nodeIP == "" {
		if nf.nodeIP, err = firstIPv4(); err != nil {
			return err
		}
	}

	ctx, cancel := context.WithCancel(ctx)
	c, err := cluster4.Start(ctx, opts, flags, cluster4.Config{ControllerManager: cm, HollowNodes: hollowNodes}, log)
	if err != nil {
		cancel()
		return err
	}
	defer c.Stop()
	defer cancel() // first the components, then chapter 2's part

	// The node's runtime: our own containerd unless one is given.
	endpoint, netns := nf.runtimeEndpoint, ""
	rc := containerd.Config{Dir: filepath.Join(nf.rootDir, "containerd"), Name: instanceName(nf.rootDir),
		PodCIDR: nf.podCIDR, SandboxImage: images.Pause, Logger: log}
	if endpoint == "" {
		d, err := containerd.Start(ctx, rc)
		if err != nil {
			return err
		}
		defer d.Stop()
		endpoint, netns = rc.Endpoint(), rc.NetNSPath()
		if err := importImages(d, nf.imageDir, log); err != nil {
			return err
		}
	}

	kc, err := c.Kubeconfig("kubelet", pki.Node(nodeName))
	if err != nil {
		return err
	}
	kcfg := kubelet.Config{NodeName: nodeName, NodeIP: nf.nodeIP, Kubeconfig: kc, RuntimeEndpoint: endpoint,
		PodCIDR: nf.podCIDR, CgroupParent: rc.CgroupParent(), PodLogsDir: filepath.Join(nf.rootDir, "logs", "pods"), RootDir: nf.rootDir, NetNS: netns, Logger: log}
	kcfg.PodManifestPath, kcfg.FileCheckFrequency = nf.podManifestPath, nf.fileCheckFrequency
	kcfg.ClusterDomain, kcfg.ResolvConf = nf.clusterDomain, nf.resolvConf
	if nf.clusterDNS != "" {
		kcfg.ClusterDNS = strings.Split(nf.clusterDNS, ",")
	}
	if kcfg.Server, err = nf.server.config(c.CA, nodeName, nf.nodeIP, nf.rootDir); err != nil {
		return err
	}
	// The kubelet, restarted alone on SIGHUP: restart.go.
	ks, err := startKubelet(ctx, kcfg, log)
	if err != nil {
		return err
	}
	defer func() { ks.Kubelet().Close() }()
	kubeletDone := ks.done

	c.PrintWelcome(os.Stdout, "Kubik chapter 5 (kubelet)")
	nodes := append([]string{nodeName + " (REAL: containerd " + endpoint + ")"}, c.NodeNames...)
	fmt.Printf("nodes: %s\n\n  kubectl run web --image=%s\n  kubectl get pods -o wide\n\n", strings.Join(nodes, ", "), images.Demo)

	select {
	case err = <-c.Err:
		cancel()
		<-kubeletDone
	case err = <-kubeletDone:
		cancel()
	}
	// Our containerd stops with us, so the pods must go first.
	if nf.runtimeEndpoint == "" {
		sctx, scancel := context.WithTimeout(context.Background(), time.Minute)
		defer scancel()
		if serr := ks.Kubelet().Shutdown(sctx); serr != nil {
			log.Error("removing the pods failed", "component", "kubelet", "err", serr)
		}
	}
	if errors.Is(err, context.Canceled) {
		err = nil
	}
	return err
}

// instanceName names the node's network namespace, cgroup parent and CNI
// network after its root dir, so two runs in different dirs never clash.
func instanceName(rootDir string) string {
	sum := sha256.Sum256([]byte(rootDir))
	return "kubik-" + hex.EncodeToString(sum[:4])
}

// importImages imports the tarballs of dir whose images containerd lacks.
func importImages(d *containerd.Daemon, dir string, log *slog.Logger) error {
	tars, _ := filepath.Glob(filepath.Join(dir, "*.tar"))
	if len(tars) == 0 {
		log.Warn("no image tarballs: run `make images` (pods can use only images containerd already has)", "component", "kubelet", "dir", dir)
		return nil
	}
	have, err := d.Images()
	if err != nil {
		return err
	}
	for _, t := range tars {
		names, err := images.Names(t)
		if err != nil {
			return err
		}
		missing := false
		for _, n := range names {
			missing = missing || !have[n]
		}
		if !missing {
			continue
		}
		start := time.Now()
		if err := d.ImportImage(t); err != nil {
			return err
		}
		log.Info("image imported", "component", "kubelet", "images", strings.Join(names, ","), "took", time.Since(start).Round(time.Millisecond))
	}
	return nil
}

// firstIPv4 is the machine's first global unicast IPv4 address, as the
// kubelet picks its node IP when --node-ip is not given.
func firstIPv4() (string, error) {
	addrs, err := net.InterfaceAddrs()
	if err != nil {
		return "", err
	}
	for _, a := range addrs {
		if n, ok := a.(*net.IPNet); ok && n.IP.To4() != nil && n.IP.IsGlobalUnicast() {
			return n.IP.String(), nil
		}
	}
	return "127.0.0.1", nil
}
