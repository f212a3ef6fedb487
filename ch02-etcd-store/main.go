// Chapter 2: etcd.
//
// The apiserver of chapter 1, now with its state in etcd: objects survive a
// restart, and several apiservers can serve one cluster because they share
// one etcd. The apiserver's code does not change at all — it only ever talked
// to storage.Interface, whose data model is etcd's: chapter 2 just plugs in
// an implementation over etcd's client (package etcdstore).
//
// With --etcd-servers the apiserver uses that etcd; without, it runs an
// embedded single-member etcd with its data in --data-dir/etcd.
//
// With --watch-cache (the default, as upstream's) a watch cache sits between
// the apiserver and etcd: one etcd watch per resource feeds every watch of it,
// and resourceVersion=0 lists are answered from memory (package cacher).
package main

import (
	"context"
	"log/slog"
	"os"

	"kubik/ch01-apiserver/app"
	"kubik/ch02-etcd-store/cluster2"
)

func main() {
	cfg := cluster2.NewConfig()
	app.Main(cfg, "apiserver", func(ctx context.Context, log *slog.Logger) error {
		c, err := cluster2.Start(ctx, cfg, log) // etcd, storage over it, the watch cache, chapter 1's apiserver
		if err != nil {
			return err
		}
		defer c.Stop()
		c.Welcome(os.Stdout)
		return app.Wait(ctx, c.Err())
	})
}
