// Command kube-apiserver is chapter 2's apiserver on etcd as a process of
// its own, one of the several that serve an HA control plane, with
// upstream's flags: the certificates made by the cluster's PKI
// (--tls-cert-file, --client-ca-file, --service-account-*-file,
// --kubelet-client-*), etcd over TLS with a client certificate
// (--etcd-servers, --etcd-cafile, --etcd-certfile, --etcd-keyfile),
// Secrets encrypted at rest (--encryption-provider-config), and the
// kubernetes Service's endpoints listing every live apiserver
// (--endpoint-reconciler-type=lease). For example, on one control-plane
// node of Kubernetes The Hard Way's layout:
//
//	kube-apiserver --advertise-address 10.240.0.11 --bind-address 0.0.0.0 \
//	    --etcd-servers https://10.240.0.11:2379,https://10.240.0.12:2379,https://10.240.0.13:2379 \
//	    --etcd-cafile ca.crt --etcd-certfile apiserver-etcd-client.crt --etcd-keyfile apiserver-etcd-client.key \
//	    --tls-cert-file kube-api-server.crt --tls-private-key-file kube-api-server.key --client-ca-file ca.crt \
//	    --kubelet-client-certificate apiserver-kubelet-client.crt --kubelet-client-key apiserver-kubelet-client.key \
//	    --kubelet-certificate-authority ca.crt \
//	    --service-account-key-file sa.pub --service-account-signing-key-file sa.key \
//	    --service-account-issuer https://kubernetes.default.svc.cluster.local \
//	    --encryption-provider-config encryption-config.yaml
//
// It logs to stderr, one line per event. Upstream: cmd/kube-apiserver.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"os"
	"os/signal"
	"strings"
	"syscall"

	"kubik/ch01-apiserver/apiserver"
	"kubik/ch01-apiserver/app"
	"kubik/ch01-apiserver/storage"
	"kubik/ch02-etcd-store/cluster2"
	"kubik/ch02-etcd-store/etcdstore"
	"kubik/ch08-full-cluster/encryption"
	"kubik/ch08-full-cluster/reconcilers"
)

// options are chapter 2's apiserver-on-etcd flags, the certificate flags,
// and what chapter 8 adds: encryption at rest and the endpoint reconciler.
type options struct {
	cluster2.Config
	EncryptionProviderConfig string
	EndpointReconcilerType   string
}

func (o *options) addFlags(fs *flag.FlagSet) {
	o.EnableGarbageCollector = true // kube-controller-manager runs the garbage collector (upstream's default)
	o.Config.AddFlags(fs)
	o.AddCertificateFlags(fs)
	fs.StringVar(&o.EncryptionProviderConfig, "encryption-provider-config", "",
		"the EncryptionConfiguration file: which resources are encrypted at rest in etcd, and how (aescbc, aesgcm, secretbox, identity)")
	fs.StringVar(&o.EndpointReconcilerType, "endpoint-reconciler-type", string(reconcilers.LeaseEndpointReconcilerType),
		"how the kubernetes Service's endpoints are kept: lease (every live apiserver) or none")
}

func main() {
	var o options
	o.addFlags(flag.CommandLine)
	flag.Parse()
	if flag.NArg() > 0 {
		fmt.Fprintf(os.Stderr, "kube-apiserver: unexpected arguments %q\n", flag.Args())
		os.Exit(2)
	}
	log, err := app.NewLogger(o.LogLevel, os.Stderr)
	if err != nil {
		fmt.Fprintln(os.Stderr, "kube-apiserver:", err)
		os.Exit(2)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, &o, log); err != nil && !(errors.Is(err, context.Canceled) && ctx.Err() != nil) {
		log.Error("kube-apiserver stopped", "component", "kube-apiserver", "err", err)
		stop()
		os.Exit(1)
	}
}

// run is chapter 2's control plane without its embedded etcd, with
// encryption at rest between etcd and the watch cache and the lease
// endpoint reconciler, until ctx ends.
func run(ctx context.Context, o *options, log *slog.Logger) error {
	if strings.TrimSpace(o.EtcdServers) == "" {
		return errors.New("--etcd-servers is required")
	}
	reconcilerType, err := reconcilers.ParseType(o.EndpointReconcilerType)
	if err != nil {
		return err
	}
	var transformers encryption.Transformers
	if o.EncryptionProviderConfig != "" {
		if transformers, err = encryption.LoadEncryptionConfig(o.EncryptionProviderConfig); err != nil {
			return fmt.Errorf("--encryption-provider-config: %w", err)
		}
	}
	o.Storage = func(store *etcdstore.Store, a *app.Options) (storage.Interface, error) {
		a.EndpointReconciler = func(ad *apiserver.EndpointsAdapter) apiserver.EndpointReconciler {
			if reconcilerType == reconcilers.NoneEndpointReconcilerType {
				return reconcilers.NewNoneEndpointReconciler()
			}
			leases := reconcilers.NewLeases(store.Client(), reconcilers.MasterLeasesKey, reconcilers.DefaultEndpointReconcilerTTL)
			return reconcilers.NewLeaseEndpointReconciler(ad, leases)
		}
		if transformers == nil {
			return store, nil
		}
		enc := encryption.NewStore(store, transformers, log)
		log.Info("encrypting at rest", "component", "kube-apiserver", "prefixes", strings.Join(enc.Prefixes(), ","))
		return enc, nil
	}
	c, err := cluster2.Start(ctx, &o.Config, log)
	if err != nil {
		return err
	}
	defer c.Stop() // out of the endpoints, then the port closes
	log.Info("kube-apiserver is ready", "component", "kube-apiserver", "url", c.URL,
		"advertiseAddress", o.AdvertiseAddress, "etcd", o.EtcdServers)
	return app.Wait(ctx, c.Err())
}
