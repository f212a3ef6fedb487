// Package cluster starts chapter 2's control plane: etcd (embedded unless
// --etcd-servers names one), storage.Interface over it, the watch cache and
// the chapter 1 apiserver on top. Chapter 2's main.go is Start plus a
// welcome message; later chapters call Start and add their components, each
// talking to the apiserver over HTTPS with its own identity.
package cluster

import (
	"context"
	"flag"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"time"

	"kubik/ch01-apiserver/api/scheme"
	"kubik/ch01-apiserver/app"
	"kubik/ch01-apiserver/storage"
	"kubik/ch02-etcd-store/cacher"
	"kubik/ch02-etcd-store/etcdstore"
)

// Flags are chapter 2's own flags, next to the apiserver's app.Options.
type Flags struct {
	EtcdServers string        // comma-separated client URLs; "" runs an embedded etcd
	Compaction  time.Duration // how often to compact etcd's history
	WatchCache  bool
}

// AddFlags registers the flags on fs with upstream's names and defaults.
func (f *Flags) AddFlags(fs *flag.FlagSet) {
	fs.StringVar(&f.EtcdServers, "etcd-servers", "", "comma-separated etcd client URLs (empty: run an embedded etcd in --data-dir/etcd)")
	fs.DurationVar(&f.Compaction, "etcd-compaction-interval", 5*time.Minute, "how often to compact etcd's history (0: never)")
	fs.BoolVar(&f.WatchCache, "watch-cache", true, "serve watches and resourceVersion=0 lists from an in-memory cache fed by one etcd watch per resource")
}

// Cluster is a running chapter 2 control plane.
type Cluster struct {
	*app.Cluster
	Endpoints []string     // etcd's client URLs
	Err       <-chan error // the apiserver stopped
	stops     []func()
}

// Stop closes the watch cache, the store and the embedded etcd (the
// apiserver stops with the context given to Start).
func (c *Cluster) Stop() {
	for i := len(c.stops) - 1; i >= 0; i-- {
		c.stops[i]()
	}
	c.stops = nil
}

// Start runs etcd, the store, the watch cache and the apiserver, and returns
// once the apiserver is ready.
func Start(ctx context.Context, opts *app.Options, f Flags, log *slog.Logger) (_ *Cluster, err error) {
	c := &Cluster{}
	defer func() {
		if err != nil {
			c.Stop()
		}
	}()

	// 1. etcd: the one given, or our own.
	for _, e := range strings.Split(f.EtcdServers, ",") {
		if e = strings.TrimSpace(e); e != "" {
			c.Endpoints = append(c.Endpoints, e)
		}
	}
	if len(c.Endpoints) == 0 {
		endpoint, stopEtcd, err := etcdstore.StartEmbedded(ctx, opts.DataDir, log)
		if err != nil {
			return nil, err
		}
		c.stops = append(c.stops, stopEtcd)
		c.Endpoints = []string{endpoint}
	}

	// 2. The cluster state: storage.Interface over etcd, compacted now and then.
	store, err := etcdstore.New(etcdstore.Config{Endpoints: c.Endpoints, Logger: log})
	if err != nil {
		return nil, err
	}
	c.stops = append(c.stops, func() { store.Close() })
	if err := store.WaitReady(ctx, time.Minute); err != nil {
		return nil, err
	}
	go store.RunCompactor(ctx, f.Compaction)

	// 3. The watch cache in front of it: one etcd watch per resource feeds
	// every watch of that resource (package cacher).
	var st storage.Interface = store
	if f.WatchCache {
		wc := cacher.New(store, resourcePrefixes(), log)
		c.stops = append(c.stops, func() { wc.Close() })
		wctx, cancel := context.WithTimeout(ctx, time.Minute)
		err := wc.WaitReady(wctx)
		cancel()
		if err != nil {
			return nil, err
		}
		st = wc
	}

	// 4. The chapter 1 apiserver on it; /readyz also asks etcd.
	readyChecks := map[string]func(context.Context) error{"etcd": store.Check}
	c.Cluster, c.Err, err = app.Start(ctx, opts, st, log, readyChecks)
	if err != nil {
		return nil, fmt.Errorf("apiserver failed to start: %w", err)
	}
	return c, nil
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
