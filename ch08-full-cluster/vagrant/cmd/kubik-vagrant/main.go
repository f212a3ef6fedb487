// Command kubik-vagrant is what the host does for chapter 8's Vagrant VMs
// besides Vagrant itself (the Vagrantfile calls it; stage.sh builds it into
// .kubik/vagrant/bin):
//
//	kubik-vagrant addons --kubeconfig .kubik/vagrant/admin.kubeconfig
//	    wait for the apiservers through the load balancer, then create what
//	    kubeadm's addon phase and a network add-on's manifest would: the node
//	    agents' RBAC, the cloud controller manager's RBAC, the cluster DNS.
//	sudo kubik-vagrant cloud
//	    the "cloud" of the VMs, run on the host until Ctrl-C:
//	    cloud-controller-manager with the kubik provider on the host's end
//	    of the node network (libvirt's bridge of network kubik-nodes), its
//	    balancer a network namespace of the host plugged into that bridge at
//	    the node network's .2, LoadBalancer addresses .200-.250. Only the
//	    service controller runs: the provider's machines are network
//	    namespaces, which VMs are not (no node or route controllers here).
//	    On exit the balancer's namespace and records are removed.
//
// Upstream: kubeadm's addon phase (init phase addon) for the first; for the
// second, what a cloud runs outside the cluster, as cloud-provider-kind does
// for kind's containers.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"net/netip"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"gopkg.in/yaml.v3"

	"kubik/ch01-apiserver/api/corev1"
	"kubik/ch03-scheduler/clientgo/rest"
	"kubik/ch06-cni/nodeagent"
	"kubik/ch07-kube-proxy/cluster7"
	"kubik/ch08-full-cluster/cloudcontroller"
	"kubik/ch08-full-cluster/cloudprovider/kubik"
	"kubik/ch08-full-cluster/pki"
)

const usage = `usage: kubik-vagrant COMMAND [flags]
  addons   wait for the apiservers, then the node agents' and the cloud controller manager's RBAC and the cluster DNS
  cloud    run the VMs' cloud (cloud-controller-manager, service controller) on this host until Ctrl-C (as root)
`

func main() {
	if len(os.Args) < 2 {
		fmt.Fprint(os.Stderr, usage)
		os.Exit(2)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	var err error
	switch os.Args[1] {
	case "addons":
		err = addons(ctx, os.Args[2:])
	case "cloud":
		err = cloud(ctx, os.Args[2:])
	default:
		fmt.Fprint(os.Stderr, usage)
		os.Exit(2)
	}
	if errors.Is(err, flag.ErrHelp) {
		os.Exit(2)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "kubik-vagrant "+os.Args[1]+":", err)
		os.Exit(1)
	}
}

func addons(ctx context.Context, args []string) error {
	fs := flag.NewFlagSet("addons", flag.ContinueOnError)
	kubeconfig := fs.String("kubeconfig", ".kubik/vagrant/admin.kubeconfig", "admin's kubeconfig (through the load balancer)")
	dnsReplicas := fs.Int("dns-replicas", 1, "replicas of the cluster DNS (kube-system/coredns; 0: none)")
	timeout := fs.Duration("timeout", 15*time.Minute, "how long to wait for the apiservers")
	if err := fs.Parse(args); err != nil {
		return err
	}
	admin, err := rest.New(*kubeconfig, "kubik-vagrant-addons")
	if err != nil {
		return err
	}
	steps := []struct {
		what string
		do   func(context.Context) error
	}{
		{"the apiservers answer", func(ctx context.Context) error {
			_, err := rest.List[corev1.Namespace](ctx, admin, "", rest.ListOptions{})
			return err
		}},
		{"node agent RBAC", func(ctx context.Context) error { return nodeagent.EnsureRBAC(ctx, admin) }},
		{"cloud-controller-manager RBAC", func(ctx context.Context) error { return cloudcontroller.EnsureRBAC(ctx, admin) }},
	}
	if *dnsReplicas > 0 {
		steps = append(steps, struct {
			what string
			do   func(context.Context) error
		}{"cluster DNS", func(ctx context.Context) error { return cluster7.EnsureDNS(ctx, admin, *dnsReplicas) }})
	}
	deadline := time.Now().Add(*timeout)
	for _, s := range steps {
		for {
			rctx, cancel := context.WithTimeout(ctx, 30*time.Second)
			err := s.do(rctx)
			cancel()
			if err == nil {
				fmt.Println("addons:", s.what)
				break
			}
			if time.Now().After(deadline) {
				return fmt.Errorf("%s: %w", s.what, err)
			}
			select {
			case <-ctx.Done():
				return ctx.Err()
			case <-time.After(3 * time.Second):
			}
		}
	}
	return nil
}

// balancerNetNS is the VMs' cloud's balancer namespace on the host.
const balancerNetNS = "kubik-vagrant-balancer"

func cloud(ctx context.Context, args []string) error {
	fs := flag.NewFlagSet("cloud", flag.ContinueOnError)
	dir := fs.String("dir", ".kubik/vagrant", "the staged cluster: pki/, bin/; the cloud's configuration and records go to cloud/")
	nodeCIDR := fs.String("node-cidr", "10.240.10.0/24", "the node network (NODE_CIDR of the versions file)")
	bridge := fs.String("bridge", "", "the host's bridge of the node network (default: libvirt network kubik-nodes's)")
	logLevel := fs.String("log-level", "info", "cloud-controller-manager's log level")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if os.Geteuid() != 0 {
		return errors.New("the cloud makes a network namespace and plugs it into the bridge: run as root")
	}
	if *bridge == "" {
		out, err := exec.Command("virsh", "--connect", "qemu:///system", "net-info", "kubik-nodes").Output()
		if err != nil {
			return fmt.Errorf("virsh net-info kubik-nodes (is the cluster up? or give --bridge): %w", err)
		}
		for _, line := range strings.Split(string(out), "\n") {
			if k, v, ok := strings.Cut(line, ":"); ok && strings.TrimSpace(k) == "Bridge" {
				*bridge = strings.TrimSpace(v)
			}
		}
		if *bridge == "" {
			return errors.New("libvirt network kubik-nodes has no bridge")
		}
	}
	prefix, err := netip.ParsePrefix(*nodeCIDR)
	if err != nil || !prefix.Addr().Is4() || prefix.Bits() > 24 {
		return fmt.Errorf("--node-cidr %q: an IPv4 /24 or larger", *nodeCIDR)
	}
	at := func(n byte) string {
		b := prefix.Masked().Addr().As4()
		b[3] += n
		return netip.AddrFrom4(b).String()
	}
	cloudDir := filepath.Join(*dir, "cloud")
	if err := os.MkdirAll(cloudDir, 0o755); err != nil {
		return err
	}
	cfg := &kubik.Config{
		LoadBalancer: kubik.LoadBalancerConfig{IPPool: at(200) + "-" + at(250)},
		Network:      kubik.NetworkConfig{NodeCIDR: prefix.Masked().String(), Bridge: *bridge},
		Balancer:     kubik.BalancerConfig{NetNS: balancerNetNS, Address: at(2), StateFile: filepath.Join(cloudDir, "state.json")},
		// The provider's machines are namespaces: unused with the service
		// controller alone.
		Instances: kubik.InstancesConfig{NetNSPrefix: "kubik-vagrant-", Interface: "eth1"},
	}
	data, err := cfg.Marshal()
	if err != nil {
		return err
	}
	cloudConfig := filepath.Join(cloudDir, "cloud-config.yaml")
	if err := os.WriteFile(cloudConfig, data, 0o644); err != nil {
		return err
	}
	provider, err := kubik.New(cfg, slog.Default())
	if err != nil {
		return err
	}
	defer func() {
		if err := provider.Teardown(); err != nil {
			fmt.Fprintln(os.Stderr, "kubik-vagrant cloud: removing the balancer:", err)
		}
		fmt.Printf("cloud: the balancer %s and its records are removed\n", balancerNetNS)
	}()

	kubeconfig, err := hostKubeconfig(*dir, cloudDir)
	if err != nil {
		return err
	}
	ccm := exec.Command(filepath.Join(*dir, "bin", "cloud-controller-manager"), "--kubeconfig="+kubeconfig,
		"--cloud-provider="+kubik.ProviderName, "--cloud-config="+cloudConfig,
		"--controllers=service-lb-controller", "--configure-cloud-routes=false", "--leader-elect=false",
		"--log-level="+*logLevel)
	ccm.Stdout, ccm.Stderr = os.Stdout, os.Stderr
	ccm.SysProcAttr = &syscall.SysProcAttr{Setpgid: true} // a Ctrl-C is ours to pass on
	if err := ccm.Start(); err != nil {
		return err
	}
	fmt.Printf("cloud: cloud-controller-manager (pid %d) on bridge %s, balancer %s at %s, LoadBalancer IPs %s; Ctrl-C stops it\n",
		ccm.Process.Pid, *bridge, balancerNetNS, at(2), cfg.LoadBalancer.IPPool)
	done := make(chan error, 1)
	go func() { done <- ccm.Wait() }()
	select {
	case err := <-done:
		return fmt.Errorf("cloud-controller-manager exited: %v", err)
	case <-ctx.Done():
		ccm.Process.Signal(syscall.SIGTERM)
		select {
		case <-done:
		case <-time.After(30 * time.Second):
			ccm.Process.Kill()
			<-done
		}
		return nil
	}
}

// hostKubeconfig is the cloud controller manager's kubeconfig from the
// PKI, which points at its own machine's apiserver (127.0.0.1), pointed at
// the load balancer instead (admin's server): the host is no control-plane
// machine.
func hostKubeconfig(dir, cloudDir string) (string, error) {
	var admin, ccm map[string]any
	for _, f := range []struct {
		name string
		into *map[string]any
	}{{pki.Admin, &admin}, {pki.CloudControllerManager, &ccm}} {
		data, err := os.ReadFile(filepath.Join(dir, "pki", f.name+".kubeconfig"))
		if err != nil {
			return "", err
		}
		if err := yaml.Unmarshal(data, f.into); err != nil {
			return "", fmt.Errorf("%s.kubeconfig: %w", f.name, err)
		}
	}
	server, ok := firstCluster(admin)["server"]
	cluster := firstCluster(ccm)
	if !ok || cluster == nil {
		return "", errors.New("the PKI's kubeconfigs have no cluster")
	}
	cluster["server"] = server
	data, err := yaml.Marshal(ccm)
	if err != nil {
		return "", err
	}
	path := filepath.Join(cloudDir, pki.CloudControllerManager+".kubeconfig")
	return path, os.WriteFile(path, data, 0o600)
}

// firstCluster is clusters[0].cluster of a kubeconfig.
func firstCluster(kubeconfig map[string]any) map[string]any {
	clusters, _ := kubeconfig["clusters"].([]any)
	if len(clusters) == 0 {
		return nil
	}
	named, _ := clusters[0].(map[string]any)
	cluster, _ := named["cluster"].(map[string]any)
	return cluster
}
