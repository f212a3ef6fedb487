// Command kubik-node-agent is chapter 6's node network agent (package
// kubik/ch06-cni/nodeagent), flanneld's job for Kubik. Run one per node,
// inside the node's network namespace, before the node's containerd gets a
// CNI configuration:
//
//	nsenter --net=/run/netns/node-1 kubik-node-agent \
//	    --node-name=node-1 --kubeconfig=node-agent-node-1.kubeconfig \
//	    --backend=host-gw --cluster-cidr=10.244.0.0/16 --iface=eth0 \
//	    --subnet-file=/run/kubik/node-1/subnet.env \
//	    --cni-conf-source=kubik.conflist --cni-conf-path=/etc/kubik/node-1/net.d/10-kubik.conflist
//
// The flags keep flanneld's names where flanneld has the setting (--iface,
// --public-ip, --subnet-file, --kube-subnet-mgr); the network and the
// backend, which flanneld reads from net-conf.json, are --cluster-cidr and
// --backend.
//
// Upstream: flannel-io/flannel's main.go (flanneld).
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net/netip"
	"os"

	"kubik/ch03-scheduler/clientgo/component"
	"kubik/ch06-cni/nodeagent"
)

func main() {
	var f component.Flags
	f.AddFlags(flag.CommandLine, nodeagent.UserPrefix+"<node>")
	var cfg nodeagent.Config
	flag.StringVar(&cfg.NodeName, "node-name", os.Getenv("NODE_NAME"), "the Node this agent runs on (default $NODE_NAME, as flanneld)")
	flag.StringVar(&cfg.Backend, "backend", nodeagent.BackendHostGW, "how pod traffic reaches other nodes: host-gw (a route per node) or vxlan (an overlay on device kubik.1)")
	clusterCIDR := flag.String("cluster-cidr", nodeagent.DefaultClusterCIDR, "the cluster's pod network; every Node's podCIDR lies in it (flanneld: Network of net-conf.json)")
	flag.StringVar(&cfg.Interface, "iface", nodeagent.DefaultInterface, "interface the nodes reach each other on")
	publicIP := flag.String("public-ip", "", "address other nodes reach this one at (default: the first IPv4 address of --iface)")
	flag.StringVar(&cfg.SubnetFile, "subnet-file", "/run/kubik/subnet.env", "file the node's subnet is written to, for the CNI plugin")
	cniSource := flag.String("cni-conf-source", "", "CNI network configuration list to install once the node's network is ready")
	flag.StringVar(&cfg.CNIConfPath, "cni-conf-path", "", "where to install it: a file in containerd's CNI conf_dir")
	flag.DurationVar(&cfg.ResyncPeriod, "resync-period", nodeagent.DefaultResyncPeriod, "how often everything is checked besides the watch")
	kubeSubnetMgr := flag.Bool("kube-subnet-mgr", true, "take the node's subnet from its spec.podCIDR (the only mode)")
	flag.Parse()

	component.Main("kubik-node-agent", f, func(ctx context.Context, log *slog.Logger) error {
		if !*kubeSubnetMgr {
			return errors.New("--kube-subnet-mgr=false: an etcd subnet manager is not implemented")
		}
		var err error
		if cfg.ClusterCIDR, err = netip.ParsePrefix(*clusterCIDR); err != nil {
			return fmt.Errorf("--cluster-cidr: %w", err)
		}
		if *publicIP != "" {
			if cfg.PublicIP, err = netip.ParseAddr(*publicIP); err != nil {
				return fmt.Errorf("--public-ip: %w", err)
			}
		}
		if (*cniSource == "") != (cfg.CNIConfPath == "") {
			return errors.New("--cni-conf-source and --cni-conf-path go together")
		}
		if *cniSource != "" {
			if cfg.CNIConfList, err = readConfList(*cniSource); err != nil {
				return fmt.Errorf("--cni-conf-source: %w", err)
			}
		}
		cfg.Kubeconfig, cfg.Logger = f.Kubeconfig, log
		return nodeagent.Run(ctx, cfg)
	})
}

// maxConfList bounds --cni-conf-source; a conflist is a few hundred bytes.
const maxConfList = 1 << 20

func readConfList(path string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, maxConfList+1))
	if err != nil {
		return nil, err
	}
	if len(data) > maxConfList {
		return nil, fmt.Errorf("%s is larger than %d bytes", path, maxConfList)
	}
	return data, nil
}
