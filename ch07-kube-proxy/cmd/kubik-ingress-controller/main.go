// Command kubik-ingress-controller is Kubik's ingress controller (package
// ingress) as it runs in the pods of the Deployment
// ingress-kubik/ingress-kubik-controller: in a pod it reaches the apiserver
// through the kubernetes Service with its service account's token; with
// --kubeconfig it runs anywhere.
//
//	kubik-ingress-controller --controller-class=kubik.io/ingress-controller
//
// It proxies HTTP on --http-port (80) and HTTPS on --https-port (443) to
// the pods behind the Ingresses of its IngressClasses, answers /healthz on
// --healthz-port (10254, ingress-nginx's), and, while it holds the Lease
// --election-id in its namespace, writes the Ingresses' addresses. On
// SIGTERM it goes on serving for --shutdown-grace-period, so that its
// endpoint is gone from the node port before it is.
//
// Upstream: ingress-nginx's /nginx-ingress-controller.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/signal"
	"strconv"
	"syscall"
	"time"

	"kubik/ch03-scheduler/clientgo/rest"
	"kubik/ch03-scheduler/clientgo/tools/leaderelection"
	"kubik/ch04-controllers/record"
	"kubik/ch07-kube-proxy/ingress"
)

type options struct {
	kubeconfig, controllerClass, electionID, namespace, podSelector, logLevel string
	httpPort, httpsPort, healthzPort                                          int
	shutdownGrace                                                             time.Duration
}

func main() {
	var o options
	flag.StringVar(&o.kubeconfig, "kubeconfig", "", "kubeconfig of the apiserver; empty: the pod's service account")
	flag.StringVar(&o.controllerClass, "controller-class", ingress.DefaultControllerName, "the spec.controller of the IngressClasses to implement")
	flag.StringVar(&o.electionID, "election-id", "ingress-kubik-leader", "name of the Lease the status writer is elected with")
	flag.StringVar(&o.namespace, "namespace", "", "namespace of the Lease and of the controller's pods; empty: POD_NAMESPACE, then the service account's")
	flag.StringVar(&o.podSelector, "pod-selector", "app.kubernetes.io/name=ingress-kubik,app.kubernetes.io/component=controller", "label selector of the controller's pods, whose nodes' IPs are the Ingresses' addresses")
	flag.IntVar(&o.httpPort, "http-port", 80, "port to serve HTTP on")
	flag.IntVar(&o.httpsPort, "https-port", 443, "port to serve HTTPS on")
	flag.IntVar(&o.healthzPort, "healthz-port", 10254, "port of /healthz")
	flag.DurationVar(&o.shutdownGrace, "shutdown-grace-period", 5*time.Second, "how long to go on serving after SIGTERM")
	flag.StringVar(&o.logLevel, "log-level", "info", "debug, info, warn or error")
	flag.Parse()

	var level slog.Level
	if err := level.UnmarshalText([]byte(o.logLevel)); err != nil {
		fmt.Fprintln(os.Stderr, "kubik-ingress-controller: --log-level:", err)
		os.Exit(2)
	}
	log := slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: level})).With("component", "ingress-controller")
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, o, log); err != nil {
		log.Error("exiting", "err", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, o options, log *slog.Logger) error {
	cfg, err := rest.BuildConfigFromFlags(o.kubeconfig)
	if err != nil {
		return err
	}
	cfg.UserAgent = "kubik-ingress-controller"
	c, err := rest.NewForConfig(cfg)
	if err != nil {
		return err
	}
	if o.namespace == "" {
		o.namespace = os.Getenv("POD_NAMESPACE")
	}
	if o.namespace == "" {
		o.namespace = rest.InClusterNamespace()
	}

	// serveCtx outlives ctx by the grace period.
	serveCtx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() {
		<-ctx.Done()
		log.Info("stopping: serving for the grace period", "grace", o.shutdownGrace)
		time.Sleep(o.shutdownGrace)
		cancel()
	}()

	proxy, err := ingress.NewProxy(log)
	if err != nil {
		return err
	}
	recorder := record.NewRecorder(c, "ingress-controller", log)
	go recorder.Run(serveCtx)
	status := ingress.NewStatusWriter(c, o.namespace, o.podSelector, log)
	ctrl := ingress.NewController(ingress.Config{Client: c, ControllerName: o.controllerClass, Proxy: proxy,
		Status: status, Recorder: recorder, Logger: log})
	status.Ingresses = ctrl.Ingresses
	go ctrl.Run(serveCtx)
	go elect(ctx, c, o, status, log)

	errc := make(chan error, 3)
	serve(serveCtx, &http.Server{Addr: ":" + strconv.Itoa(o.healthzPort), Handler: ingress.HealthHandler(ctrl.HasSynced)}, false, errc, log)
	serve(serveCtx, &http.Server{Addr: ":" + strconv.Itoa(o.httpPort), Handler: proxy}, false, errc, log)
	serve(serveCtx, &http.Server{Addr: ":" + strconv.Itoa(o.httpsPort), Handler: proxy, TLSConfig: proxy.TLSConfig()}, true, errc, log)
	select {
	case err = <-errc:
	case <-serveCtx.Done():
	}
	return err
}

// elect runs for the status writer's Lease until ctx ends; a leader that
// loses the Lease stands again.
func elect(ctx context.Context, c *rest.Client, o options, status *ingress.StatusWriter, log *slog.Logger) {
	id := os.Getenv("POD_NAME")
	if id == "" {
		id = leaderelection.NewIdentity()
	}
	for ctx.Err() == nil {
		leaderelection.RunOrDie(ctx, leaderelection.LeaderElectionConfig{
			Lock:          &leaderelection.LeaseLock{Namespace: o.namespace, Name: o.electionID, Client: c, Identity: id},
			LeaseDuration: leaderelection.DefaultLeaseDuration, RenewDeadline: leaderelection.DefaultRenewDeadline,
			RetryPeriod: leaderelection.DefaultRetryPeriod, ReleaseOnCancel: true, Name: "ingress-status", Logger: log,
			Callbacks: leaderelection.LeaderCallbacks{
				OnStartedLeading: status.Run,
				OnStoppedLeading: func() { log.Info("not leading") },
			},
		})
	}
}

// serve runs s until ctx ends, then closes it after the requests in flight.
func serve(ctx context.Context, s *http.Server, useTLS bool, errc chan<- error, log *slog.Logger) {
	s.ReadHeaderTimeout = 10 * time.Second
	s.ErrorLog = slog.NewLogLogger(log.Handler(), slog.LevelDebug)
	l, err := net.Listen("tcp", s.Addr)
	if err != nil {
		errc <- err
		return
	}
	log.Info("serving", "addr", l.Addr().String(), "tls", useTLS)
	go func() {
		var err error
		if useTLS {
			err = s.ServeTLS(l, "", "")
		} else {
			err = s.Serve(l)
		}
		if !errors.Is(err, http.ErrServerClosed) {
			errc <- err
		}
	}()
	go func() {
		<-ctx.Done()
		sctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		s.Shutdown(sctx)
	}()
}
