// Command kube-controller-manager is chapter 4's controller manager as a
// control-plane machine runs it in chapter 8: chapter 4's controllers
// plus chapter 6's node-ipam-controller, which gives every Node a slice
// of the pod network (spec.podCIDR) when --allocate-node-cidrs is on. Its
// flags are upstream's:
//
//	kube-controller-manager --kubeconfig kube-controller-manager.kubeconfig \
//	    --leader-elect=true --allocate-node-cidrs=true --cluster-cidr=10.244.0.0/16 \
//	    --node-cidr-mask-size=24 --service-cluster-ip-range=10.96.0.0/12 \
//	    --root-ca-file=ca.crt --node-monitor-grace-period=50s
//
// (chapter 4's cmd/kube-controller-manager is the same without node IPAM:
// its clusters have hollow nodes with CIDRs of their own.)
//
// Upstream: cmd/kube-controller-manager.
package main

import (
	"context"
	"flag"
	"log/slog"

	"kubik/ch03-scheduler/clientgo/component"
	"kubik/ch04-controllers/controllermanager"
	"kubik/ch06-cni/nodeipam"
)

func main() {
	var f component.Flags
	f.AddFlags(flag.CommandLine, "system:kube-controller-manager")
	ipam := nodeipam.DefaultOptions()
	cfg := controllermanager.Config{Extra: []controllermanager.Descriptor{nodeipam.Descriptor(&ipam)}}
	cfg.AddFlags(flag.CommandLine)
	ipam.AddFlags(flag.CommandLine)
	flag.StringVar(&ipam.ServiceCIDR, "service-cluster-ip-range", "", "CIDR Range for Services in cluster. Requires --allocate-node-cidrs to be true")
	leaderElect := flag.Bool("leader-elect", true, "compete for the Lease kube-system/kube-controller-manager before running the controllers")
	flag.Parse()

	component.Main("kube-controller-manager", f, func(ctx context.Context, log *slog.Logger) error {
		cfg.Kubeconfig, cfg.LeaderElect, cfg.Logger = f.Kubeconfig, *leaderElect, log
		return controllermanager.Run(ctx, cfg)
	})
}
