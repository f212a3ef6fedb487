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
	"flag"
	"fmt"
	"os"
	"os/signal"
	"syscall"

	"kubik/ch01-apiserver/app"
	"kubik/ch01-apiserver/storage"
)

func main() {
	var opts app.Options
	opts.AddFlags(flag.CommandLine)
	flag.Parse()

	log, closeLog, err := opts.Logger("apiserver")
	if err != nil {
		fmt.Fprintln(os.Stderr, "kubik:", err)
		os.Exit(1)
	}
	defer closeLog.Close()

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()

	// The whole cluster state: an in-memory store (chapter 2 puts etcd here).
	store := storage.NewMemory(0)
	defer store.Close()

	cluster, errc, err := app.Start(ctx, &opts, store, log, nil)
	if err != nil {
		log.Error("apiserver failed to start", "err", err)
		os.Exit(1)
	}
	cluster.PrintWelcome(os.Stdout, "Kubik chapter 1 (apiserver)")

	if err := <-errc; err != nil {
		log.Error("apiserver stopped", "err", err)
		os.Exit(1)
	}
}
