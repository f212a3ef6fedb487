// Chapter 6: the pod network.
//
// Chapter 5's control plane plus --nodes=N real nodes (default 2) on one
// host, each a network namespace "machine" with eth0 on a bridge (node IPs
// 10.240.0.0/24), its own containerd, its kubelet and a node agent — and a
// pod network over all of them: every pod gets an IP of its node's subnet
// (10.244.<n>.0/24, handed out by the controller manager's node IPAM) from
// our own CNI plugin, kubik-cni, and reaches every other pod directly,
// without NAT, through host-gw routes or a VXLAN overlay (--backend):
//
//	make ch06-run     # as root, e.g. sudo env "PATH=$PATH" make ch06-run
//	kubectl get nodes -o wide
//	kubectl create deployment web --image=kubik.local/demo:1.0 --replicas=4
//	kubectl get pods -o wide
//
// This one program is three: the cluster (the control plane, and the
// machines it starts); each machine's node software, which the cluster
// starts inside the machine's namespace as `<program> node --config FILE`;
// and the CNI plugin, which containerd execs from the node's plugin
// directory, where kubik-cni is a link to this program (cmd/kubik-cni is
// the same plugin as a binary of its own).
package main

import (
	"context"
	"log/slog"
	"os"

	"kubik/ch01-apiserver/app"
	"kubik/ch06-cni/cluster6"
	"kubik/ch06-cni/node6"
)

func main() {
	cluster6.Subcommand(node6.Main) // the CNI plugin, a machine's node software, clean-nodes
	cfg := cluster6.NewConfig()
	app.Main(cfg, "cluster", func(ctx context.Context, log *slog.Logger) error {
		c, err := cluster6.Start(ctx, cfg, log) // chapter 5's control plane + N machines + the pod network
		if err != nil {
			return err
		}
		defer c.Stop()
		c.Welcome(os.Stdout)
		return app.Wait(ctx, c.Err())
	})
}
