// Package cluster2 starts chapter 2's control plane: etcd (embedded unless
// --etcd-servers names one), storage.Interface over it, the watch cache and
// the chapter 1 apiserver on top. Chapter 2's main.go is Start plus a
// welcome message; chapter 3's cluster3 embeds this package's Config and
// Cluster and adds its components, each talking to the apiserver over HTTPS
// with its own identity.
package cluster2

import (
	"context"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"kubik/ch01-apiserver/api/scheme"
	"kubik/ch01-apiserver/app"
	"kubik/ch01-apiserver/pki"
	"kubik/ch01-apiserver/storage"
	"kubik/ch02-etcd-store/cacher"
	"kubik/ch02-etcd-store/etcdstore"
)

// Config is chapter 1's apiserver options plus what chapter 2 adds.
type Config struct {
	app.Options
	EtcdServers string // comma-separated client URLs; "" runs an embedded etcd
	// EtcdCAFile, EtcdCertFile and EtcdKeyFile: etcd over TLS, with a
	// client certificate (chapter 8's etcd members require one).
	EtcdCAFile, EtcdCertFile, EtcdKeyFile string
	Compaction                            time.Duration // how often to compact etcd's history
	WatchCache                            bool
	// Storage, when set, builds what sits between etcd and the watch cache
	// and may set the apiserver's options that need etcd: chapter 8's
	// encryption at rest and lease endpoint reconciler.
	Storage func(etcd *etcdstore.Store, apiserver *app.Options) (storage.Interface, error)
}

// NewConfig is the configuration with its defaults (what AddFlags leaves
// when no flag is given). An extension apiserver's Service is called at
// one of its endpoints (--enable-aggregator-routing): the apiserver runs
// on no node and, before chapter 7, nothing routes ClusterIPs.
func NewConfig() *Config {
	c := &Config{}
	c.EnableAggregatorRouting = true
	return c
}

// AddFlags registers the apiserver's flags and chapter 2's, with upstream's
// names and defaults.
func (c *Config) AddFlags(fs *flag.FlagSet) {
	c.Options.AddFlags(fs)
	fs.StringVar(&c.EtcdServers, "etcd-servers", "", "comma-separated etcd client URLs (empty: run an embedded etcd in --data-dir/etcd)")
	fs.StringVar(&c.EtcdCAFile, "etcd-cafile", "", "SSL Certificate Authority file used to secure etcd communication")
	fs.StringVar(&c.EtcdCertFile, "etcd-certfile", "", "SSL certification file used to secure etcd communication")
	fs.StringVar(&c.EtcdKeyFile, "etcd-keyfile", "", "SSL key file used to secure etcd communication")
	fs.DurationVar(&c.Compaction, "etcd-compaction-interval", 5*time.Minute, "how often to compact etcd's history (0: never)")
	fs.BoolVar(&c.WatchCache, "watch-cache", true, "serve watches and resourceVersion=0 lists from an in-memory cache fed by one etcd watch per resource")
}

// Cluster is a running chapter 2 control plane.
type Cluster struct {
	*app.Cluster
	Endpoints []string // etcd's client URLs
	DataDir   string   // --data-dir, absolute

	errc      chan error // the first error of a component, of any chapter
	apiserver *app.Group
	stops     []func() // the watch cache, the store, etcd: undone in reverse
}

// Err receives the first error of any component of the cluster (the
// apiserver's, or a later chapter's); the program usually stops on it.
func (c *Cluster) Err() <-chan error { return c.errc }

// Errors is where the components of later chapters report how they ended
// (their app.Group's channel).
func (c *Cluster) Errors() chan<- error { return c.errc }

// Kubeconfig issues a client certificate for id and writes a kubeconfig
// using it to --data-dir/<file>.kubeconfig: each component's own identity.
func (c *Cluster) Kubeconfig(file string, id pki.Identity) (string, error) {
	path := filepath.Join(c.DataDir, file+".kubeconfig")
	return path, c.CA.WriteIdentityKubeconfig(path, c.URL, id)
}

// Stop stops the apiserver, waits for it, then closes the watch cache, the
// store and the embedded etcd.
func (c *Cluster) Stop() {
	if c.apiserver != nil {
		c.apiserver.Stop()
	}
	for i := len(c.stops) - 1; i >= 0; i-- {
		c.stops[i]()
	}
	c.stops = nil
}

// Welcome prints chapter 2's banner.
func (c *Cluster) Welcome(w io.Writer) {
	c.PrintWelcome(w, "Kubik chapter 2 (apiserver on etcd)")
	eps := strings.Join(c.Endpoints, ",")
	fmt.Fprintf(w, "etcd: %s\n\n  etcdctl --endpoints=%s get /registry/ --prefix --keys-only\n\n", eps, eps)
}

// Start runs etcd, the store, the watch cache and the apiserver, and returns
// once the apiserver is ready.
func Start(ctx context.Context, cfg *Config, log *slog.Logger) (_ *Cluster, err error) {
	dataDir, err := filepath.Abs(cfg.DataDir)
	if err != nil {
		return nil, err
	}
	c := &Cluster{DataDir: dataDir, errc: make(chan error, 1)}
	defer func() {
		if err != nil {
			c.Stop()
		}
	}()

	// 1. etcd: the one given, or our own.
	for _, e := range strings.Split(cfg.EtcdServers, ",") {
		if e = strings.TrimSpace(e); e != "" {
			c.Endpoints = append(c.Endpoints, e)
		}
	}
	if len(c.Endpoints) == 0 {
		endpoint, stopEtcd, err := etcdstore.StartEmbedded(ctx, cfg.DataDir, log)
		if err != nil {
			return nil, err
		}
		c.stops = append(c.stops, stopEtcd)
		c.Endpoints = []string{endpoint}
	}

	// 2. The cluster state: storage.Interface over etcd, compacted now and then.
	store, err := etcdstore.New(etcdstore.Config{Endpoints: c.Endpoints, Logger: log,
		TrustedCAFile: cfg.EtcdCAFile, CertFile: cfg.EtcdCertFile, KeyFile: cfg.EtcdKeyFile})
	if err != nil {
		return nil, err
	}
	c.stops = append(c.stops, func() { store.Close() })
	if err := store.WaitReady(ctx, time.Minute); err != nil {
		return nil, err
	}
	compactCtx, stopCompactor := context.WithCancel(ctx)
	c.stops = append(c.stops, stopCompactor)
	go store.RunCompactor(compactCtx, cfg.Compaction)

	// 3. The watch cache in front of it: one etcd watch per resource feeds
	// every watch of that resource (package cacher).
	var st storage.Interface = store
	opts := cfg.Options
	if cfg.Storage != nil {
		if st, err = cfg.Storage(store, &opts); err != nil {
			return nil, err
		}
	}
	if cfg.WatchCache {
		wc := cacher.New(st, resourcePrefixes(), log)
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
	c.apiserver = app.NewGroup(context.WithoutCancel(ctx), c.errc)
	var served <-chan error
	c.Cluster, served, err = app.Start(c.apiserver.Context(), &opts, st, log, readyChecks)
	if err != nil {
		return nil, fmt.Errorf("apiserver failed to start: %w", err)
	}
	c.apiserver.Go(func(ctx context.Context) error { return <-served })
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
