// Chapter 7: Services — kube-proxy and cluster DNS.
//
// Chapter 6's cluster (the control plane and --nodes machines with their
// pod network) with kube-proxy on every machine, in its network namespace,
// keeping the machine's netfilter rules in step with the cluster's Services
// and EndpointSlices (--proxy-mode=iptables, upstream's default, or
// nftables), and the cluster's DNS running as pods, as CoreDNS does:
//
//	make ch07-run     # as root, e.g. sudo env "PATH=$PATH" make ch07-run
//	kubectl create deployment web --image=kubik.local/demo:1.0 --replicas=3
//	kubectl expose deployment web --port=80 --target-port=8080
//	kubectl run client --image=busybox:1.35 --restart=Never -it --rm -- wget -qO- http://web
//
// As in chapter 6 the program is also each machine's node software
// (`node --config FILE`) and the CNI plugin (run as kubik-cni).
package main

import (
	"context"
	"log/slog"
	"os"

	"kubik/ch01-apiserver/app"
	"kubik/ch06-cni/cluster6"
	"kubik/ch07-kube-proxy/cluster7"
	"kubik/ch07-kube-proxy/node7"
)

func main() {
	cluster6.Subcommand(node7.Main) // the CNI plugin, a machine's node software, clean-nodes
	cfg := cluster7.NewConfig()
	app.Main(cfg, "cluster", func(ctx context.Context, log *slog.Logger) error {
		c, err := cluster7.Start(ctx, cfg, log) // chapter 6's cluster + kube-proxy on every node + cluster DNS
		if err != nil {
			return err
		}
		defer c.Stop()
		c.Welcome(os.Stdout)
		return app.Wait(ctx, c.Err())
	})
}
