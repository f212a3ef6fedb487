// Chapter 1: the API server.
//
// Everything in Kubernetes goes through the kube-apiserver: kubectl, the
// scheduler, controllers and kubelets never talk to each other or to the
// database directly. This chapter runs just that hub, with its state in
// memory: no scheduler, no controllers, no nodes — objects are stored,
// validated, watched and listed, but nothing acts on them yet.
package main

import (
	"context"
	"fmt"
	"log/slog"
	"os"

	"kubik/ch01-apiserver/app"
	"kubik/ch01-apiserver/storage"
)

func main() {
	// Extension apiservers are called at an endpoint of their Service
	// (--enable-aggregator-routing): nothing routes ClusterIPs here.
	opts := app.Options{EnableAggregatorRouting: true}
	app.Main(&opts, "apiserver", func(ctx context.Context, log *slog.Logger) error {
		// The whole cluster state: an in-memory store (chapter 2 puts etcd here).
		store := storage.NewMemory(0)
		defer store.Close()

		// The apiserver on it: PKI and admin.kubeconfig in --data-dir, HTTPS on --secure-port.
		cluster, errc, err := app.Start(ctx, &opts, store, log, nil)
		if err != nil {
			return fmt.Errorf("apiserver failed to start: %w", err)
		}
		cluster.PrintWelcome(os.Stdout, "Kubik chapter 1 (apiserver)")
		return <-errc
	})
}
