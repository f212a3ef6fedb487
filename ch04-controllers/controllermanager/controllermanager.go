// Package controllermanager is kube-controller-manager: one process running
// many controllers, each a loop that watches some objects and acts so their
// status approaches their spec. They share one client (identity
// system:kube-controller-manager) and one informer per resource
// (controller.SharedInformers), and only the leader of the Lease
// kube-system/kube-controller-manager runs them:
//
//	kubectl -n kube-system get lease kube-controller-manager
//
// Which controllers run is --controllers, as upstream: "*" all enabled by
// default, "name" one more, "-name" one less ("*,-job").
//
// Upstream: cmd/kube-controller-manager/app (controllermanager.go).
package controllermanager

import (
	"context"
	"flag"
	"fmt"
	"kubik/ch01-apiserver/version"
	"log/slog"
	"slices"
	"strconv"
	"strings"
	"time"

	"kubik/ch01-apiserver/pki"
	"kubik/ch03-scheduler/clientgo/rest"
	"kubik/ch03-scheduler/clientgo/tools/leaderelection"
	"kubik/ch04-controllers/controller"
	"kubik/ch04-controllers/garbagecollector"
	"kubik/ch04-controllers/podautoscaler"
	"kubik/ch04-controllers/podgc"
)

// Version is reported in the User-Agent.
const Version = version.Version

// Config is kube-controller-manager's configuration, with upstream's flag
// names (AddFlags).
type Config struct {
	Kubeconfig  string // identity system:kube-controller-manager
	Controllers []string
	LeaderElect bool
	// Node lifecycle: how often nodes are checked, and how long a node may
	// go without a heartbeat before it is marked NotReady/Unknown.
	NodeMonitorPeriod      time.Duration
	NodeMonitorGracePeriod time.Duration
	// Concurrency is the workers of each controller, by its
	// --concurrent-*-syncs flag name.
	Concurrency map[string]int
	// KubeAPIQPS and KubeAPIBurst limit the shared client.
	KubeAPIQPS   float64
	KubeAPIBurst int
	// RootCAFile is the CA bundle published as kube-root-ca.crt in every
	// namespace; empty: the CA the manager's kubeconfig trusts.
	RootCAFile string
	// ResourceQuotaSyncPeriod is how often the resourcequota controller
	// recalculates every quota; TerminatedPodGCThreshold is how many
	// terminated pods the pod-garbage-collector keeps (≤ 0: all).
	ResourceQuotaSyncPeriod  time.Duration
	TerminatedPodGCThreshold int
	// DiscoverySyncPeriod is how often the garbage collector and the
	// resourcequota controller read discovery again, to cover the
	// resources of CustomResourceDefinitions created later (0: upstream's
	// 30 s, garbagecollector.SyncPeriod). Upstream has no flag for it; the
	// tests shorten it.
	DiscoverySyncPeriod time.Duration
	// ClusterSigningCertFile and ClusterSigningKeyFile are the CA the
	// csrsigning controller issues certificates from (none: it does not
	// sign); ClusterSigningDuration is the longest certificate it issues.
	ClusterSigningCertFile string
	ClusterSigningKeyFile  string
	ClusterSigningDuration time.Duration
	// HPA is the horizontal pod autoscaler's --horizontal-pod-autoscaler-*
	// flags.
	HPA    podautoscaler.Options
	Logger *slog.Logger
	// Extra are controllers a later chapter brings to the manager
	// (chapter 6's node-ipam-controller). Add them before AddFlags: their
	// --concurrent-*-syncs flags and --controllers names come with them.
	Extra []Descriptor
}

// all are the built-in controllers and the Extra ones.
func (c *Config) all() []Descriptor { return append(Descriptors(), c.Extra...) }

// AddFlags registers the flags on fs with upstream's names and defaults.
func (c *Config) AddFlags(fs *flag.FlagSet) {
	var all, disabled []string
	for _, d := range c.all() {
		all = append(all, d.Name)
		if d.DisabledByDefault {
			disabled = append(disabled, d.Name)
		}
	}
	slices.Sort(all)
	slices.Sort(disabled)
	fs.Func("controllers", "A list of controllers to enable. '*' enables all on-by-default controllers, 'foo' enables the controller named 'foo', '-foo' disables the controller named 'foo'.\n"+
		"All controllers: "+strings.Join(all, ", ")+"\nDisabled-by-default controllers: "+strings.Join(disabled, ", ")+` (default "*")`,
		func(s string) error {
			c.Controllers = strings.Split(s, ",")
			return nil
		})
	fs.DurationVar(&c.NodeMonitorPeriod, "node-monitor-period", 5*time.Second, "The period for syncing NodeStatus in cloud-node-lifecycle-controller.")
	fs.DurationVar(&c.NodeMonitorGracePeriod, "node-monitor-grace-period", 50*time.Second, "Amount of time which we allow running Node to be unresponsive before marking it unhealthy.")
	fs.Float64Var(&c.KubeAPIQPS, "kube-api-qps", 20, "QPS to use while talking with kubernetes apiserver.")
	fs.IntVar(&c.KubeAPIBurst, "kube-api-burst", 30, "Burst to use while talking with kubernetes apiserver.")
	fs.DurationVar(&c.ResourceQuotaSyncPeriod, "resource-quota-sync-period", 5*time.Minute, "The period for syncing quota usage status in the system")
	fs.DurationVar(&c.DiscoverySyncPeriod, "discovery-sync-period", garbagecollector.SyncPeriod, "How often the garbage collector and the resource quota controller read discovery again (not an upstream flag: upstream fixes 30s).")
	fs.IntVar(&c.TerminatedPodGCThreshold, "terminated-pod-gc-threshold", podgc.DefaultTerminatedPodGCThreshold, "Number of terminated pods that can exist before the terminated pod garbage collector starts deleting terminated pods. If <= 0, the terminated pod garbage collector is disabled.")
	fs.StringVar(&c.ClusterSigningCertFile, "cluster-signing-cert-file", c.ClusterSigningCertFile, "Filename containing a PEM-encoded X509 CA certificate used to issue cluster-scoped certificates.")
	fs.StringVar(&c.ClusterSigningKeyFile, "cluster-signing-key-file", c.ClusterSigningKeyFile, "Filename containing a PEM-encoded RSA or ECDSA private key used to sign cluster-scoped certificates.")
	fs.DurationVar(&c.ClusterSigningDuration, "cluster-signing-duration", 365*24*time.Hour, "The max length of duration signed certificates will be given. Individual CSRs may request shorter certs by setting spec.expirationSeconds.")
	fs.DurationVar(&c.HPA.SyncPeriod, "horizontal-pod-autoscaler-sync-period", podautoscaler.Defaults.SyncPeriod, "The period for syncing the number of pods in horizontal pod autoscaler.")
	fs.Float64Var(&c.HPA.Tolerance, "horizontal-pod-autoscaler-tolerance", podautoscaler.Defaults.Tolerance, "The minimum change (from 1.0) in the desired-to-actual metrics ratio for the horizontal pod autoscaler to consider scaling.")
	fs.DurationVar(&c.HPA.DownscaleStabilisationWindow, "horizontal-pod-autoscaler-downscale-stabilization", podautoscaler.Defaults.DownscaleStabilisationWindow, "The period for which autoscaler will look backwards and not scale down below any recommendation it made during that period.")
	fs.DurationVar(&c.HPA.CPUInitializationPeriod, "horizontal-pod-autoscaler-cpu-initialization-period", podautoscaler.Defaults.CPUInitializationPeriod, "The period after pod start when CPU samples might be skipped.")
	fs.DurationVar(&c.HPA.DelayOfInitialReadinessStatus, "horizontal-pod-autoscaler-initial-readiness-delay", podautoscaler.Defaults.DelayOfInitialReadinessStatus, "The period after pod start during which readiness changes will be treated as initial readiness.")
	fs.StringVar(&c.RootCAFile, "root-ca-file", "", "If set, this root certificate authority will be included in service account's token secret. This must be a valid PEM-encoded CA bundle.")
	if c.Concurrency == nil {
		c.Concurrency = map[string]int{}
	}
	for _, d := range c.all() {
		if d.ConcurrencyFlag == "" {
			continue
		}
		name := d.ConcurrencyFlag
		c.Concurrency[name] = d.DefaultConcurrency
		usage := fmt.Sprintf("The number of %s objects that are allowed to sync concurrently. (default %d)", d.Name, d.DefaultConcurrency)
		fs.Func(name, usage, func(s string) error {
			n, err := strconv.Atoi(s)
			if err != nil || n < 1 {
				return fmt.Errorf("must be a positive integer")
			}
			c.Concurrency[name] = n
			return nil
		})
	}
}

// IsControllerEnabled applies --controllers to name (or one of its
// aliases: upstream 1.35 accepts the old short names, "nodeipam" for
// "node-ipam-controller"), as upstream: an explicit "name" or "-name"
// decides; otherwise "*" enables what is enabled by default; without "*"
// nothing else runs.
func IsControllerEnabled(name string, disabledByDefault bool, controllers []string, aliases ...string) bool {
	names := append([]string{name}, aliases...)
	hasStar := false
	for _, c := range controllers {
		switch {
		case slices.Contains(names, c):
			return true
		case strings.HasPrefix(c, "-") && slices.Contains(names, c[1:]):
			return false
		case c == "*":
			hasStar = true
		}
	}
	return hasStar && !disabledByDefault
}

// Validate checks --controllers against the known names.
func (c *Config) Validate() error {
	for _, name := range c.Controllers {
		n := strings.TrimPrefix(name, "-")
		if n == "*" {
			continue
		}
		if !slices.Contains(KnownControllers, n) && !slices.ContainsFunc(c.all(), func(d Descriptor) bool { return d.Name == n || slices.Contains(d.Aliases, n) }) {
			return fmt.Errorf("%q is not in the list of known controllers", n)
		}
	}
	return nil
}

// Enabled returns the descriptors --controllers turns on.
func (c *Config) Enabled() []Descriptor {
	controllers := c.Controllers
	if len(controllers) == 0 {
		controllers = []string{"*"}
	}
	var out []Descriptor
	for _, d := range c.all() {
		if IsControllerEnabled(d.Name, d.DisabledByDefault, controllers, d.Aliases...) {
			out = append(out, d)
		}
	}
	return out
}

// RunsGarbageCollector: --controllers enables the garbage collector.
func (c *Config) RunsGarbageCollector() bool {
	return slices.ContainsFunc(c.Enabled(), func(d Descriptor) bool { return d.Name == GarbageCollector })
}

// Names lists the enabled controllers, for the welcome text.
func (c *Config) Names() []string {
	var names []string
	for _, d := range c.Enabled() {
		names = append(names, d.Name)
	}
	return names
}

// Run runs the controller manager until ctx ends (nil) or, with leader
// election, until leadership is lost (an error: upstream exits then).
func Run(ctx context.Context, cfg Config) error {
	if err := cfg.Validate(); err != nil {
		return err
	}
	log := cfg.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	log = log.With("component", "kube-controller-manager")
	k, err := pki.LoadKubeconfig(cfg.Kubeconfig)
	if err != nil {
		return err
	}
	c, err := rest.NewForConfig(rest.Config{Kubeconfig: k, UserAgent: "kube-controller-manager/" + Version,
		QPS: cfg.KubeAPIQPS, Burst: cfg.KubeAPIBurst})
	if err != nil {
		return err
	}
	if !cfg.LeaderElect {
		return StartControllers(ctx, c, &cfg, log)
	}
	// A controller that cannot be built stops the manager (upstream exits).
	runCtx, cancel := context.WithCancel(ctx)
	defer cancel()
	failed := make(chan error, 1)
	lost := make(chan struct{})
	leaderelection.RunOrDie(runCtx, leaderelection.LeaderElectionConfig{
		Lock: &leaderelection.LeaseLock{Namespace: "kube-system", Name: "kube-controller-manager", Client: c,
			Identity: leaderelection.NewIdentity()},
		LeaseDuration: leaderelection.DefaultLeaseDuration,
		RenewDeadline: leaderelection.DefaultRenewDeadline,
		RetryPeriod:   leaderelection.DefaultRetryPeriod,
		Callbacks: leaderelection.LeaderCallbacks{
			OnStartedLeading: func(ctx context.Context) {
				if err := StartControllers(ctx, c, &cfg, log); err != nil {
					failed <- err
					cancel()
				}
			},
			OnStoppedLeading: func() { close(lost) },
		},
		ReleaseOnCancel: true,
		Name:            "kube-controller-manager",
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
	return leaderelection.ErrLeaderElectionLost
}

// StartControllers constructs the enabled controllers, starts the shared
// informers they asked for, and runs them until ctx ends.
func StartControllers(ctx context.Context, c *rest.Client, cfg *Config, log *slog.Logger) error {
	cc := &controller.ControllerContext{Client: c, Informers: controller.NewSharedInformers(c, log), Log: log}
	type started struct {
		name    string
		c       Controller
		workers int
	}
	var run []started
	for _, d := range cfg.Enabled() {
		ctrl, err := d.New(cc, cfg)
		if err != nil {
			return fmt.Errorf("error starting controller %q: %w", d.Name, err)
		}
		workers := 1
		if d.ConcurrencyFlag != "" {
			workers = d.DefaultConcurrency
			if n := cfg.Concurrency[d.ConcurrencyFlag]; n > 0 {
				workers = n
			}
		}
		run = append(run, started{d.Name, ctrl, workers})
	}
	cc.Informers.Start(ctx)
	done := make(chan struct{}, len(run))
	for _, s := range run {
		log.Info("Started controller", "controller", s.name, "workers", s.workers)
		go func() {
			s.c.Run(ctx, s.workers)
			done <- struct{}{}
		}()
	}
	for range run {
		<-done
	}
	<-ctx.Done()
	return nil
}
