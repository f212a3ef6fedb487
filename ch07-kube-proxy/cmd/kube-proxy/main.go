// Command kube-proxy runs on every node and keeps the node's netfilter
// rules in step with the cluster's Services and EndpointSlices, in the
// iptables or the nftables proxy mode. It acts on the network namespace it
// runs in.
//
// Upstream: k8s.io/kubernetes/cmd/kube-proxy.
package main

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"syscall"

	"kubik/ch07-kube-proxy/cmd/kube-proxy/app"
)

func main() {
	opts, err := app.ParseFlags(os.Args[1:])
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGINT, syscall.SIGTERM)
	defer stop()
	if err := app.Run(ctx, opts); err != nil {
		fmt.Fprintln(os.Stderr, "kube-proxy:", err)
		os.Exit(1)
	}
}
