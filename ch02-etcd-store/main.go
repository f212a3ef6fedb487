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
	"slices"
	"strings"
	"time"

	"kubik/ch01-apiserver/api/scheme"
	"kubik/ch01-apiserver/app"
	"kubik/ch01-apiserver/storage"
	"kubik/ch02-etcd-store/cacher"
	"kubik/ch02-etcd-store/etcdstore"
)

func main() {
	var opts app.Options
	etcdServers := flag.String("etcd-servers", "", "comma-separated etcd client URLs (empty: run an embedded etcd in --data-dir/etcd)")
	compaction := flag.Duration("etcd-compaction-interval", 5*time.Minute, "how often to compact etcd's history (0: never)")
	watchCache := flag.Bool("watch-cache", true, "serve watches and resourceVersion=0 lists from an in-memory cache fed by one etcd watch per resource")
	app.Main(&opts, "apiserver", func(ctx context.Context, log *slog.Logger) error {
		return run(ctx, &opts, log, *etcdServers, *compaction, *watchCache)
	})
}

func run(ctx context.Context, opts *app.Options, log *slog.Logger, etcdServers string, compaction time.Duration, watchCache bool) error {
	// 1. etcd: the one given, or our own.
	var endpoints []string
	for _, e := range strings.Split(etcdServers, ",") {
		if e = strings.TrimSpace(e); e != "" {
			endpoints = append(endpoints, e)
		}
	}
	if len(endpoints) == 0 {
		endpoint, stopEtcd, err := etcdstore.StartEmbedded(ctx, opts.DataDir, log)
		if err != nil {
			return err
		}
		defer stopEtcd()
		endpoints = []string{endpoint}
	}

	// 2. The cluster state: storage.Interface over etcd, compacted now and then.
	store, err := etcdstore.New(etcdstore.Config{Endpoints: endpoints, Logger: log})
	if err != nil {
		return err
	}
	defer store.Close()
	if err := store.WaitReady(ctx, time.Minute); err != nil {
		return err
	}
	go store.RunCompactor(ctx, compaction)

	// 3. The watch cache in front of it: one etcd watch per resource feeds
	// every watch of that resource (package cacher).
	var st storage.Interface = store
	if watchCache {
		c := cacher.New(store, resourcePrefixes(), log)
		defer c.Close()
		wctx, cancel := context.WithTimeout(ctx, time.Minute)
		err := c.WaitReady(wctx)
		cancel()
		if err != nil {
			return err
		}
		st = c
	}

	// 4. The chapter 1 apiserver on it; /readyz also asks etcd.
	readyChecks := map[string]func(context.Context) error{"etcd": store.Check}
	cluster, errc, err := app.Start(ctx, opts, st, log, readyChecks)
	if err != nil {
		return fmt.Errorf("apiserver failed to start: %w", err)
	}
	cluster.PrintWelcome(os.Stdout, "Kubik chapter 2 (apiserver on etcd)")
	fmt.Printf("etcd: %s\n\n  etcdctl --endpoints=%s get /registry/ --prefix --keys-only\n\n",
		strings.Join(endpoints, ","), strings.Join(endpoints, ","))
	return <-errc
}

// resourcePrefixes are the etcd prefixes of every served resource,
// /registry/<storage prefix>/, each cached once.
func resourcePrefixes() []string {
	var out []string
	for _, r := range scheme.Resources {
		if p := "/registry/" + r.StoragePrefix + "/"; r.StoragePrefix != "" && !slices.Contains(out, p) {
			out = append(out, p)
		}
	}
	return out
}
