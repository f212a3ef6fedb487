// Command cloud-controller-manager runs the controllers that need a cloud
// (package cloudcontroller/app) against the apiserver its kubeconfig points
// at, with Kubik's local cloud (package cloudprovider/kubik) as the
// provider:
//
//	cloud-controller-manager --kubeconfig ccm.kubeconfig \
//	    --cloud-provider=kubik --cloud-config=cloud.yaml \
//	    --cluster-cidr=10.244.0.0/16 --leader-elect=true
//
// It must run as root on the host of the node network (it creates the
// balancer's network namespace and programs it). Its identity is
// system:cloud-controller-manager, whose ClusterRole the cluster's
// bootstrap creates (cloudcontroller.EnsureRBAC); a kubeconfig for it:
//
//	go run ./ch01-apiserver kubeconfig --data-dir DIR --user system:cloud-controller-manager --out ccm.kubeconfig
//
// Then `kubectl get svc` shows an EXTERNAL-IP for every Service of type
// LoadBalancer, and `curl http://<EXTERNAL-IP>:<port>` from the host
// reaches its pods.
//
// Upstream: cmd/cloud-controller-manager.
package main

import (
	"context"
	"flag"
	"log/slog"

	"kubik/ch03-scheduler/clientgo/component"
	"kubik/ch08-full-cluster/cloudcontroller"
	"kubik/ch08-full-cluster/cloudcontroller/app"
	_ "kubik/ch08-full-cluster/cloudprovider/kubik" // registers --cloud-provider=kubik
)

func main() {
	var f component.Flags
	f.AddFlags(flag.CommandLine, cloudcontroller.UserName)
	var cfg app.Config
	cfg.AddFlags(flag.CommandLine)
	flag.Parse()

	component.Main("cloud-controller-manager", f, func(ctx context.Context, log *slog.Logger) error {
		slog.SetDefault(log) // the provider logs through the default logger
		cfg.Kubeconfig, cfg.Logger = f.Kubeconfig, log
		return app.Run(ctx, cfg)
	})
}
