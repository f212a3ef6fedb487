// Chapter 3: the scheduler.
//
// Chapter 2's cluster (the apiserver on etcd) plus kube-scheduler, and
// --hollow-nodes simulated nodes for it to schedule onto; package cluster3
// starts them (chapter 4's cluster4 extends it).
package main

import (
	"context"
	"log/slog"
	"os"

	"kubik/ch01-apiserver/app"
	"kubik/ch03-scheduler/cluster3"
)

func main() {
	cfg := cluster3.NewConfig()
	app.Main(cfg, "cluster", func(ctx context.Context, log *slog.Logger) error {
		c, err := cluster3.Start(ctx, cfg, log) // chapter 2's control plane + kube-scheduler + hollow nodes
		if err != nil {
			return err
		}
		defer c.Stop()
		c.Welcome(os.Stdout)
		return app.Wait(ctx, c.Err())
	})
}
