// Package node7 is what runs on each of chapter 7's machines: chapter 6's
// node software (containerd, the kubelet, the node agent: package node6)
// plus kube-proxy, which keeps the machine's netfilter rules in step with
// the cluster's Services and EndpointSlices, so that a Service's ClusterIP
// (and NodePort, and LoadBalancer IP) reaches its pods from any pod and any
// node. It runs in the machine's network namespace, identity
// system:kube-proxy, like the kube-proxy DaemonSet's pod on a real node.
//
// SIGUSR1 restarts kube-proxy alone, as deleting the kube-proxy pod of a
// node does (its DaemonSet starts a new one): the new kube-proxy finds the
// rules the old one left and rewrites them in place. (SIGHUP restarts the
// kubelet and the node agent, as in chapter 6.)
package node7

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"os"
	"os/signal"
	"syscall"

	"github.com/vishvananda/netlink"
	"golang.org/x/sys/unix"

	"kubik/ch06-cni/node6"
	"kubik/ch07-kube-proxy/cmd/kube-proxy/app"
)

// Config is chapter 6's node config plus kube-proxy's flags.
type Config struct {
	node6.Config
	Proxy app.Options
	// ServiceCIDR gets a route to the node network on the machine: a
	// ClusterIP must be routable for the node's own connections to reach
	// kube-proxy's rules (a real node routes it by its default route; these
	// machines have none, on purpose).
	ServiceCIDR string
	Interface   string // eth0
}

// Main is chapter 7's node process: `<program> node --config FILE`.
func Main(args []string) int {
	var cfg Config
	return node6.ProcessMain(args, &cfg, func(ctx context.Context, log *slog.Logger) error { return Run(ctx, &cfg, log) })
}

// Run runs kube-proxy and chapter 6's node software until ctx ends.
func Run(ctx context.Context, cfg *Config, log *slog.Logger) error {
	if err := routeServiceCIDR(cfg.ServiceCIDR, cfg.Interface); err != nil {
		return err
	}
	pctx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	defer cancel()
	proxyDone := make(chan error, 1)
	go func() { proxyDone <- runProxy(pctx, &cfg.Proxy, log) }()
	err := node6.Run(ctx, &cfg.Config, log)
	cancel()
	if perr := <-proxyDone; err == nil && perr != nil && !errors.Is(perr, context.Canceled) {
		err = fmt.Errorf("kube-proxy: %w", perr)
	}
	return err
}

// runProxy runs kube-proxy until ctx ends, and restarts it on SIGUSR1.
func runProxy(ctx context.Context, o *app.Options, log *slog.Logger) error {
	usr1 := make(chan os.Signal, 1)
	signal.Notify(usr1, syscall.SIGUSR1)
	defer signal.Stop(usr1)
	for {
		pctx, stop := context.WithCancel(ctx)
		done := make(chan error, 1)
		go func() { done <- app.Run(pctx, o) }()
		select {
		case err := <-done:
			stop()
			return err
		case <-usr1:
			stop()
			<-done
			log.Info("kube-proxy restarting", "component", "kube-proxy", "signal", "SIGUSR1")
		}
	}
}

// routeServiceCIDR: `ip route replace <cidr> dev <iface>` in this
// process's network namespace.
func routeServiceCIDR(cidr, iface string) error {
	if cidr == "" {
		return nil
	}
	_, dst, err := net.ParseCIDR(cidr)
	if err != nil {
		return err
	}
	link, err := netlink.LinkByName(iface)
	if err != nil {
		return fmt.Errorf("route to %s: %w", cidr, err)
	}
	r := &netlink.Route{Dst: dst, LinkIndex: link.Attrs().Index, Scope: unix.RT_SCOPE_LINK}
	if err := netlink.RouteReplace(r); err != nil {
		return fmt.Errorf("route to %s via %s: %w", cidr, iface, err)
	}
	return nil
}
