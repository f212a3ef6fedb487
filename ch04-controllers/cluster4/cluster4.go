// Package cluster4 starts chapter 4's cluster: chapter 3's (the apiserver on
// etcd, kube-scheduler, hollow nodes) without its node-lifecycle stand-in,
// plus kube-controller-manager with its own identity
// system:kube-controller-manager, and the Website controller (package
// website) with an identity of its own. ch04-controllers/main.go runs it as is;
// chapter 5's cluster5 embeds its Config and Cluster and adds a real node.
package cluster4

import (
	"context"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"

	"kubik/ch01-apiserver/app"
	"kubik/ch01-apiserver/pki"
	"kubik/ch03-scheduler/clientgo/rest"
	"kubik/ch03-scheduler/clientgo/tools/leaderelection"
	"kubik/ch03-scheduler/cluster3"
	"kubik/ch04-controllers/controllermanager"
	"kubik/ch04-controllers/website"
)

// Config is chapter 3's configuration plus kube-controller-manager's.
type Config struct {
	cluster3.Config
	// ControllerManager is the controller manager's flags (--controllers,
	// --node-monitor-grace-period, ...); it competes for its Lease when
	// chapter 3's --leader-elect says so.
	ControllerManager controllermanager.Config
	// WebsiteController runs the chapter's own example controller (package
	// website) beside the manager, with an identity of its own.
	WebsiteController bool
}

// NewConfig is the configuration with chapter 4's defaults: chapter 3's,
// without the node lifecycle stand-in (the controller manager's
// nodelifecycle controller does its job).
func NewConfig() *Config {
	c := &Config{Config: *cluster3.NewConfig()}
	c.NotReadyTaintStandIn = false
	return c
}

// AddFlags registers chapter 3's flags and the controller manager's.
func (c *Config) AddFlags(fs *flag.FlagSet) {
	c.Config.AddFlags(fs)
	c.ControllerManager.AddFlags(fs)
	fs.BoolVar(&c.WebsiteController, "website-controller", true, "run the Website controller (CRD websites.kubik.io, chapter 4's example operator) with its own identity "+website.Identity.User)
}

// Cluster is a running chapter 4 cluster.
type Cluster struct {
	*cluster3.Cluster
	Controllers []string // the controllers that run
	Website     bool     // the Website controller runs
	components  *app.Group
}

// Stop stops the controller manager, waits for it, then stops chapter 3's part.
func (c *Cluster) Stop() {
	c.components.Stop()
	c.Cluster.Stop()
}

// Welcome prints chapter 4's banner.
func (c *Cluster) Welcome(w io.Writer) {
	c.PrintWelcome(w, "Kubik chapter 4 (controllers)")
	fmt.Fprintf(w, "controllers: %s\nnodes (SIMULATED, no containers run): %s\n\n  kubectl create deployment web --image=nginx --replicas=3\n  kubectl rollout status deployment/web\n\n",
		strings.Join(c.Controllers, ", "), strings.Join(c.NodeNames, ", "))
	if c.Website {
		fmt.Fprintf(w, "website-controller (CRD %s):\n\n  kubectl apply -f ch04-controllers/website/testdata/hello.yaml\n  kubectl get websites\n\n", website.CRDName)
	}
}

// Start runs chapter 3's cluster, then kube-controller-manager.
func Start(ctx context.Context, cfg *Config, log *slog.Logger) (*Cluster, error) {
	cm := cfg.ControllerManager
	if err := cm.Validate(); err != nil {
		return nil, err
	}
	// With a garbage collector running, DELETE with propagationPolicy
	// Orphan or Foreground gets the finalizer the collector removes
	// (upstream: kube-apiserver --enable-garbage-collector).
	c3cfg := cfg.Config
	c3cfg.EnableGarbageCollector = c3cfg.EnableGarbageCollector || cm.RunsGarbageCollector()
	c3, err := cluster3.Start(ctx, &c3cfg, log)
	if err != nil {
		return nil, err
	}
	c := &Cluster{Cluster: c3, Controllers: cm.Names(), components: app.NewGroup(context.WithoutCancel(ctx), c3.Errors())}
	kc, err := c.Kubeconfig("kube-controller-manager", pki.ControllerManager)
	if err != nil {
		c.Stop()
		return nil, err
	}
	cm.Kubeconfig, cm.Logger, cm.LeaderElect = kc, log, cfg.LeaderElect
	// The csrsigning controller signs with the cluster CA, as kubeadm
	// passes --cluster-signing-cert-file/--cluster-signing-key-file.
	if cm.ClusterSigningCertFile == "" && cm.ClusterSigningKeyFile == "" {
		dir := pki.Dir(c.DataDir)
		if _, err := os.Stat(filepath.Join(dir, pki.CAKeyFile)); err == nil {
			cm.ClusterSigningCertFile, cm.ClusterSigningKeyFile = filepath.Join(dir, pki.CACertFile), filepath.Join(dir, pki.CAKeyFile)
		}
	}
	// Restarted when it loses its Lease, as the kubelet restarts upstream's.
	c.components.GoRestarted(log.With("component", "kube-controller-manager"), leaderelection.Lost,
		func(ctx context.Context) error { return controllermanager.Run(ctx, cm) })
	if cfg.WebsiteController {
		if err := c.startWebsiteController(ctx, log); err != nil {
			c.Stop()
			return nil, err
		}
	}
	return c, nil
}

// startWebsiteController grants the Website controller its ClusterRole (as
// an operator's install manifests do, with the admin's rights), issues its
// client certificate and runs it; it applies its CRD itself.
func (c *Cluster) startWebsiteController(ctx context.Context, log *slog.Logger) error {
	if c.AdminKubeconfig == "" {
		return fmt.Errorf("website-controller: no admin kubeconfig to grant its ClusterRole with (--website-controller=false)")
	}
	admin, err := rest.New(c.AdminKubeconfig, "kubik-cluster4")
	if err != nil {
		return err
	}
	if err := website.EnsureRBAC(ctx, admin); err != nil {
		return err
	}
	kc, err := c.Kubeconfig("website-controller", website.Identity)
	if err != nil {
		return err
	}
	c.Website = true
	wlog := log.With("component", website.ControllerName)
	c.components.Go(func(ctx context.Context) error { return website.Run(ctx, kc, 2, wlog) })
	return nil
}
