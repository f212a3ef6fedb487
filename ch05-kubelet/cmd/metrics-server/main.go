// Command metrics-server is chapter 5's metrics server as a process of its
// own, with the flags of kubernetes-sigs/metrics-server: its identity from
// --kubeconfig, its serving certificate from files, the kubelets' CA (or
// --kubelet-insecure-tls), and the official manifest's usual choices:
//
//	metrics-server --kubeconfig metrics-server.kubeconfig \
//	    --bind-address 10.240.0.10 --secure-port 10250 \
//	    --tls-cert-file metrics-server.crt --tls-private-key-file metrics-server.key \
//	    --kubelet-certificate-authority ca.crt \
//	    --kubelet-preferred-address-types InternalIP,ExternalIP,Hostname \
//	    --kubelet-use-node-status-port --metric-resolution 15s
//
// It serves metrics.k8s.io/v1beta1; the cluster's installer registers it
// (RBAC, Service, EndpointSlice, APIService: package metricsserver's
// Install, or the official manifest's objects).
//
// Upstream: kubernetes-sigs/metrics-server, cmd/metrics-server.
package main

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"strings"
	"syscall"

	"kubik/ch01-apiserver/app"
	"kubik/ch05-kubelet/metricsserver"
)

func main() {
	cfg := metricsserver.Config{SecurePort: 443, MetricResolution: metricsserver.DefaultMetricResolution,
		KubeletPort: metricsserver.DefaultKubeletPort}
	var certFile, keyFile, kubeletCA, addressTypes, logLevel string
	fs := flag.CommandLine
	fs.StringVar(&cfg.Kubeconfig, "kubeconfig", "", "kubeconfig of the metrics server's identity (required)")
	fs.StringVar(&cfg.BindAddress, "bind-address", "", "the IP address on which to listen for the --secure-port port (default: all interfaces)")
	fs.IntVar(&cfg.SecurePort, "secure-port", cfg.SecurePort, "the port on which to serve HTTPS")
	fs.StringVar(&certFile, "tls-cert-file", "", "the serving certificate (required: for metrics-server.kube-system.svc)")
	fs.StringVar(&keyFile, "tls-private-key-file", "", "the key of --tls-cert-file")
	fs.DurationVar(&cfg.MetricResolution, "metric-resolution", cfg.MetricResolution, "the resolution at which metrics-server will retain metrics, must set value at least 10s")
	fs.StringVar(&addressTypes, "kubelet-preferred-address-types", strings.Join(metricsserver.DefaultPreferredAddressTypes, ","), "the priority of node address types to use when determining which address to use to connect to a particular node")
	fs.BoolVar(&cfg.KubeletUseNodeStatusPort, "kubelet-use-node-status-port", false, "use the port in the node status; takes precedence over --kubelet-port")
	fs.IntVar(&cfg.KubeletPort, "kubelet-port", cfg.KubeletPort, "the port to use to connect to Kubelets")
	fs.BoolVar(&cfg.KubeletInsecureTLS, "kubelet-insecure-tls", false, "do not verify CA of serving certificates presented by Kubelets (for testing purposes only)")
	fs.StringVar(&kubeletCA, "kubelet-certificate-authority", "", "path to the CA to use to validate the Kubelet's serving certificates")
	fs.DurationVar(&cfg.KubeletRequestTimeout, "kubelet-request-timeout", 0, "the length of time to wait before giving up on a single request to the Kubelet (default: 90 % of --metric-resolution)")
	fs.StringVar(&logLevel, "log-level", "info", "debug, info, warn or error")
	flag.Parse()
	fail := func(err error) {
		fmt.Fprintln(os.Stderr, "metrics-server:", err)
		os.Exit(2)
	}
	if cfg.Kubeconfig == "" || certFile == "" || keyFile == "" {
		fail(errors.New("--kubeconfig, --tls-cert-file and --tls-private-key-file are required"))
	}
	var err error
	if cfg.ServingCert, err = tls.LoadX509KeyPair(certFile, keyFile); err != nil {
		fail(err)
	}
	if kubeletCA != "" {
		data, err := os.ReadFile(kubeletCA)
		if err != nil {
			fail(err)
		}
		cfg.KubeletCA = x509.NewCertPool()
		if !cfg.KubeletCA.AppendCertsFromPEM(data) {
			fail(fmt.Errorf("--kubelet-certificate-authority: no certificate in %s", kubeletCA))
		}
	}
	cfg.KubeletPreferredAddressTypes = strings.Split(addressTypes, ",")
	if cfg.Logger, err = app.NewLogger(logLevel, os.Stderr); err != nil {
		fail(err)
	}
	s, err := metricsserver.New(cfg)
	if err != nil {
		fail(err)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := s.Run(ctx); err != nil {
		cfg.Logger.Error("metrics-server stopped", "component", "metrics-server", "err", err)
		stop()
		os.Exit(1)
	}
}
