// demo is the web app of the later chapters' examples: it answers every
// HTTP request with the name and IP of the pod it runs in, from the
// environment variables POD_NAME and POD_IP (the downward API sets them),
// so that a Service's load balancing can be seen:
//
//	Hello from web-5d8c7b9f4-x2x7q (10.244.0.7)
//
// It listens on $PORT (default 8080) and stops on SIGTERM.
package main

import (
	"context"
	"fmt"
	"log"
	"net/http"
	"os"
	"os/signal"
	"syscall"
)

func main() {
	port := os.Getenv("PORT")
	if port == "" {
		port = "8080"
	}
	name, ip := os.Getenv("POD_NAME"), os.Getenv("POD_IP")
	if name == "" {
		name, _ = os.Hostname()
	}
	http.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprintf(w, "Hello from %s (%s)\n", name, ip)
	})
	http.HandleFunc("/healthz", func(w http.ResponseWriter, r *http.Request) { fmt.Fprintln(w, "ok") })
	srv := &http.Server{Addr: ":" + port}
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, os.Interrupt)
	defer stop()
	go func() { <-ctx.Done(); srv.Shutdown(context.Background()) }()
	log.Printf("demo: listening on :%s as %s (%s)", port, name, ip)
	if err := srv.ListenAndServe(); err != nil && err != http.ErrServerClosed {
		log.Fatal(err)
	}
}
