// demo is the web app of the later chapters' examples: it answers every
// HTTP request with the name and IP of the pod it runs in — POD_NAME and
// POD_IP when the downward API sets them, else the host name and the first
// address of its network interfaces — so that a Service's load balancing
// can be seen:
//
//	Hello from web-5d8c7b9f4-x2x7q (10.244.0.7)
//
// It logs every request with the client's address, so that a reader can
// see whose source IP arrives (a pod's, or a node's after SNAT). It
// listens on $PORT (default 8080) and stops on SIGTERM.
package main

import (
	"context"
	"fmt"
	"log"
	"net"
	"net/http"
	"os"
	"os/signal"
	"syscall"
)

// firstIPv4 is the first non-loopback IPv4 address of the pod (its eth0's).
func firstIPv4() string {
	addrs, _ := net.InterfaceAddrs()
	for _, a := range addrs {
		if n, ok := a.(*net.IPNet); ok && n.IP.To4() != nil && !n.IP.IsLoopback() {
			return n.IP.String()
		}
	}
	return ""
}

func main() {
	port := os.Getenv("PORT")
	if port == "" {
		port = "8080"
	}
	name, ip := os.Getenv("POD_NAME"), os.Getenv("POD_IP")
	if name == "" {
		name, _ = os.Hostname()
	}
	if ip == "" {
		ip = firstIPv4()
	}
	http.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		log.Printf("demo: %s %s from %s", r.Method, r.URL.Path, r.RemoteAddr)
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
