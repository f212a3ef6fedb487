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
	"flag"
	"fmt"
	"log/slog"
	"os"
	"strings"

	"kubik/ch01-apiserver/app"
	"kubik/ch02-etcd-store/cluster"
)

func main() {
	var opts app.Options
	var flags cluster.Flags
	flags.AddFlags(flag.CommandLine)
	app.Main(&opts, "apiserver", func(ctx context.Context, log *slog.Logger) error {
		return run(ctx, &opts, flags, log)
	})
}

// run starts etcd (embedded unless --etcd-servers), storage.Interface over
// it, the watch cache and the chapter 1 apiserver on top: package cluster,
// which later chapters reuse.
func run(ctx context.Context, opts *app.Options, flags cluster.Flags, log *slog.Logger) error {
	c, err := cluster.Start(ctx, opts, flags, log)
	if err != nil {
		return err
	}
	defer c.Stop()
	c.PrintWelcome(os.Stdout, "Kubik chapter 2 (apiserver on etcd)")
	fmt.Printf("etcd: %s\n\n  etcdctl --endpoints=%s get /registry/ --prefix --keys-only\n\n",
		strings.Join(c.Endpoints, ","), strings.Join(c.Endpoints, ","))
	return <-c.Err
}
