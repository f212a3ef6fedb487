// Chapter 4: the controllers.
//
// Chapter 3's cluster (the apiserver on etcd, kube-scheduler, hollow nodes)
// plus kube-controller-manager, identity system:kube-controller-manager,
// leader of the Lease kube-system/kube-controller-manager. Its controllers
// turn Deployments into ReplicaSets and ReplicaSets into pods, which the
// scheduler places and the hollow nodes "run":
//
//	kubectl create deployment web --image=nginx --replicas=3
//	kubectl rollout status deployment/web
//
// Beside it runs the chapter's own example controller, the Website operator
// (package website: CRD websites.kubik.io, identity kubik:website-controller;
// --website-controller=false turns it off):
//
//	kubectl apply -f ch04-controllers/website/testdata/hello.yaml
//	kubectl get websites
//
// The wiring is package cluster4 (chapter 5's cluster5 adds a real node).
// Chapter 3's stand-in for the node lifecycle controller (package
// notreadytaint) does not run: the nodelifecycle controller removes the
// not-ready taint from Ready nodes.
package main

import (
	"context"
	"log/slog"
	"os"

	"kubik/ch01-apiserver/app"
	"kubik/ch04-controllers/cluster4"
)

func main() {
	cfg := cluster4.NewConfig()
	app.Main(cfg, "cluster", func(ctx context.Context, log *slog.Logger) error {
		c, err := cluster4.Start(ctx, cfg, log) // chapter 3's cluster + kube-controller-manager
		if err != nil {
			return err
		}
		defer c.Stop()
		c.Welcome(os.Stdout)
		return app.Wait(ctx, c.Err())
	})
}
