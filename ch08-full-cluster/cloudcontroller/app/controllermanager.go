package app

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"

	"kubik/ch01-apiserver/pki"
	"kubik/ch01-apiserver/version"
	"kubik/ch03-scheduler/clientgo/rest"
	"kubik/ch03-scheduler/clientgo/tools/leaderelection"
	"kubik/ch04-controllers/controller"
	"kubik/ch04-controllers/controllermanager"
	"kubik/ch08-full-cluster/cloudprovider"
)

// LeaseName is the leader election Lease in kube-system.
const LeaseName = "cloud-controller-manager"

// Run builds the cloud and runs the controllers until ctx ends (nil) or,
// with leader election, until leadership is lost (an error: upstream
// exits then).
func Run(ctx context.Context, cfg Config) error {
	if err := cfg.Validate(); err != nil {
		return err
	}
	log := cfg.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	log = log.With("component", "cloud-controller-manager")
	cfg.Logger = log
	log.Info("Version", "version", version.Version)
	cloud, err := cloudprovider.InitCloudProvider(cfg.CloudProvider, cfg.CloudConfigFile)
	if err != nil {
		return fmt.Errorf("Cloud provider could not be initialized: %v", err)
	}
	if !cloud.HasClusterID() {
		return errors.New("no ClusterID found.  A ClusterID is required for the cloud provider to function properly.  This check can be bypassed by setting the allow-untagged-cloud option")
	}
	k, err := pki.LoadKubeconfig(cfg.Kubeconfig)
	if err != nil {
		return err
	}
	c, err := rest.NewForConfig(rest.Config{Kubeconfig: k, UserAgent: "cloud-controller-manager/" + version.Version,
		QPS: cfg.KubeAPIQPS, Burst: cfg.KubeAPIBurst})
	if err != nil {
		return err
	}
	if !cfg.LeaderElect {
		return StartControllers(ctx, c, &cfg, cloud)
	}
	runCtx, cancel := context.WithCancel(ctx)
	defer cancel()
	failed := make(chan error, 1)
	lost := make(chan struct{})
	leaderelection.RunOrDie(runCtx, leaderelection.LeaderElectionConfig{
		Lock: &leaderelection.LeaseLock{Namespace: "kube-system", Name: LeaseName, Client: c,
			Identity: leaderelection.NewIdentity()},
		LeaseDuration: leaderelection.DefaultLeaseDuration,
		RenewDeadline: leaderelection.DefaultRenewDeadline,
		RetryPeriod:   leaderelection.DefaultRetryPeriod,
		Callbacks: leaderelection.LeaderCallbacks{
			OnStartedLeading: func(ctx context.Context) {
				if err := StartControllers(ctx, c, &cfg, cloud); err != nil {
					failed <- err
					cancel()
				}
			},
			OnStoppedLeading: func() { close(lost) },
		},
		ReleaseOnCancel: true,
		Name:            LeaseName,
		Logger:          log,
	})
	<-lost
	select {
	case err := <-failed:
		return err
	default:
	}
	if ctx.Err() != nil {
		return nil
	}
	return errors.New("leaderelection lost")
}

// StartControllers initializes the cloud, builds the enabled controllers,
// starts the informers they asked for, and runs them until ctx ends.
func StartControllers(ctx context.Context, c *rest.Client, cfg *Config, cloud cloudprovider.Interface) error {
	log := cfg.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	cc := &controller.ControllerContext{Client: c, Informers: controller.NewSharedInformers(c, log), Log: log}
	cloud.Initialize(ctx)
	controllers := cfg.Controllers
	if len(controllers) == 0 {
		controllers = []string{"*"}
	}
	var runners []Runner
	for _, d := range Descriptors() {
		if !controllermanager.IsControllerEnabled(d.Name, false, controllers, aliasesOf(d.Name)...) {
			log.Warn("controller is disabled", "controller", d.Name)
			continue
		}
		run, skipped, err := d.New(cc, cfg, cloud)
		if err != nil {
			return fmt.Errorf("error starting %q: %w", d.Name, err)
		}
		if run == nil {
			log.Warn("Skipping controller", "controller", d.Name, "reason", skipped)
			continue
		}
		log.Info("Started controller", "controller", d.Name)
		runners = append(runners, run)
	}
	cc.Informers.Start(ctx)
	var wg sync.WaitGroup
	for _, run := range runners {
		wg.Go(func() { run(ctx) })
	}
	wg.Wait()
	<-ctx.Done()
	return nil
}
