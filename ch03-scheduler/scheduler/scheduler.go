// Package scheduler is kube-scheduler: it watches pods that have no node,
// picks a node for each and binds it there — through the apiserver only, as
// system:kube-scheduler. Pods and nodes come from informers; the pods
// waiting for a node sit in a SchedulingQueue; each scheduling cycle runs
// one pod through the framework's plugins against a snapshot of the Cache:
//
//	Pop → PreFilter → Filter (until enough nodes fit: filter.go)
//	    → PostFilter if none fits (preemption) → PreScore → Score
//	    → NormalizeScore → pick the best node
//	    → assume (Cache) → Reserve → Bind, in the background
//
// The binding is asynchronous: the next pod's cycle starts at once and sees
// the assumed pod on its node. Success: the event "Scheduled". Failure: the
// event "FailedScheduling" and the pod condition PodScheduled=False with
// the reasons, and the pod goes back to the queue. A pod for which
// preemption evicted pods is nominated to their node
// (status.nominatedNodeName, nominator.go): Filter counts it there for the
// pods of lower priority until it is bound.
//
// The files are upstream's: scheduler.go builds and runs the scheduler,
// schedule_one.go is the scheduling and binding cycle, eventhandlers.go
// feeds the informers' events to the queue and the cache.
//
// Upstream: pkg/scheduler (scheduler.go, schedule_one.go, eventhandlers.go)
// and cmd/kube-scheduler.
package scheduler

import (
	"context"
	"log/slog"
	"os"

	"kubik/ch01-apiserver/api/appsv1"
	"kubik/ch01-apiserver/api/corev1"
	"kubik/ch01-apiserver/api/policyv1"
	"kubik/ch01-apiserver/api/storagev1"
	"kubik/ch01-apiserver/pki"
	"kubik/ch01-apiserver/version"
	"kubik/ch03-scheduler/clientgo/rest"
	"kubik/ch03-scheduler/clientgo/tools/cache"
	"kubik/ch03-scheduler/clientgo/tools/leaderelection"
	"kubik/ch03-scheduler/scheduler/framework"
	"kubik/ch03-scheduler/scheduler/plugins"
)

const (
	DefaultSchedulerName = "default-scheduler"
	Version              = version.Version
)

// Config is kube-scheduler's configuration.
type Config struct {
	Kubeconfig    string // identity system:kube-scheduler
	SchedulerName string // the pods' spec.schedulerName this scheduler serves
	LeaderElect   bool   // compete for the Lease kube-system/kube-scheduler
	// KubeAPIQPS and KubeAPIBurst limit the requests the scheduler sends
	// (binds, status updates); events have a client and a limit of their
	// own, as upstream's. 0: upstream's defaults, 50 and 100.
	KubeAPIQPS   float64
	KubeAPIBurst int
	Logger       *slog.Logger
}

// Scheduler is one running scheduler.
type Scheduler struct {
	name   string
	client *rest.Client
	fw     *framework.Framework
	queue  *SchedulingQueue
	cache  *Cache
	pods   *cache.Informer[corev1.Pod, *corev1.Pod]
	nodes  *cache.Informer[corev1.Node, *corev1.Node]
	// pdbs: preemption prefers victims whose PodDisruptionBudget allows
	// their eviction (DefaultPreemption.PdbLister).
	pdbs *cache.Informer[policyv1.PodDisruptionBudget, *policyv1.PodDisruptionBudget]
	// The objects that group pods into sets, for PodTopologySpread's
	// system default constraints.
	services *cache.Informer[corev1.Service, *corev1.Service]
	rcs      *cache.Informer[corev1.ReplicationController, *corev1.ReplicationController]
	rss      *cache.Informer[appsv1.ReplicaSet, *appsv1.ReplicaSet]
	sss      *cache.Informer[appsv1.StatefulSet, *appsv1.StatefulSet]
	// Claims, volumes and classes, for VolumeBinding.
	pvcs           *cache.Informer[corev1.PersistentVolumeClaim, *corev1.PersistentVolumeClaim]
	pvs            *cache.Informer[corev1.PersistentVolume, *corev1.PersistentVolume]
	storageClasses *cache.Informer[storagev1.StorageClass, *storagev1.StorageClass]
	// informers: all of the above, for Run to start and wait for.
	informers []interface {
		Run(context.Context)
		HasSynced() bool
	}
	recorder *Recorder
	log      *slog.Logger

	// percentageOfNodesToScore: 0 is upstream's default, adaptive (see
	// numFeasibleNodesToFind).
	percentageOfNodesToScore int32
	// nextStartNodeIndex: where the next cycle starts looking at nodes, so
	// that every node gets its turn when not all are looked at.
	nextStartNodeIndex int
}

// Run starts the scheduler and blocks until ctx ends (nil) or, with leader
// election, until leadership is lost (an error: upstream exits then too).
func Run(ctx context.Context, cfg Config) error {
	if cfg.SchedulerName == "" {
		cfg.SchedulerName = DefaultSchedulerName
	}
	log := cfg.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	log = log.With("component", "kube-scheduler")
	newClient := func() (*rest.Client, error) {
		k, err := pki.LoadKubeconfig(cfg.Kubeconfig)
		if err != nil {
			return nil, err
		}
		return rest.NewForConfig(rest.Config{Kubeconfig: k, UserAgent: "kube-scheduler/" + Version,
			QPS: cfg.KubeAPIQPS, Burst: cfg.KubeAPIBurst})
	}
	c, err := newClient()
	if err != nil {
		return err
	}
	eventClient, err := newClient()
	if err != nil {
		return err
	}
	s, err := New(c, eventClient, cfg.SchedulerName, log)
	if err != nil {
		return err
	}

	// Informers first, as upstream: a new leader starts with warm caches.
	var synced []func() bool
	for _, inf := range s.informers {
		go inf.Run(ctx)
		synced = append(synced, inf.HasSynced)
	}
	if !cache.WaitForCacheSync(ctx, synced...) {
		return ctx.Err()
	}
	log.Info("caches synced", "nodes", s.nodes.GetStore().Len(), "pods", s.pods.GetStore().Len())

	if !cfg.LeaderElect {
		s.Run(ctx)
		return nil
	}
	lost := make(chan struct{})
	leaderelection.RunOrDie(ctx, leaderelection.LeaderElectionConfig{
		Lock: &leaderelection.LeaseLock{Namespace: "kube-system", Name: "kube-scheduler", Client: c,
			Identity: leaderelection.NewIdentity()},
		LeaseDuration: leaderelection.DefaultLeaseDuration,
		RenewDeadline: leaderelection.DefaultRenewDeadline,
		RetryPeriod:   leaderelection.DefaultRetryPeriod,
		Callbacks: leaderelection.LeaderCallbacks{
			OnStartedLeading: s.Run,
			OnStoppedLeading: func() { close(lost) },
		},
		ReleaseOnCancel: true,
		Name:            "kube-scheduler",
		Logger:          log,
	})
	<-lost
	if ctx.Err() != nil {
		return nil
	}
	return leaderelection.ErrLeaderElectionLost
}

// New builds a scheduler over c with the default profile, writing events
// through eventClient (it may be c); its informers are not running yet.
func New(c, eventClient *rest.Client, schedulerName string, log *slog.Logger) (*Scheduler, error) {
	pl, weights := plugins.Default(c)
	fw, err := framework.New(pl, weights)
	if err != nil {
		return nil, err
	}
	for _, p := range pl {
		if h, ok := p.(interface{ SetFramework(*framework.Framework) }); ok {
			h.SetFramework(fw)
		}
	}
	host, _ := os.Hostname()
	s := &Scheduler{name: schedulerName, client: c, fw: fw, log: log,
		queue: NewSchedulingQueue(fw.QueueSortLess), cache: NewCache(),
		recorder: NewRecorder(eventClient, schedulerName, schedulerName+"-"+host, log)}
	// Pods that have not finished: the unscheduled ones feed the queue, the
	// bound ones the cache (as upstream's scheduler informer).
	s.pods = cache.New[corev1.Pod](c, cache.Options{FieldSelector: "status.phase!=Succeeded,status.phase!=Failed", Logger: log})
	s.queue.nominator.podExists = func(p *corev1.Pod) bool {
		cur, ok := s.pods.GetStore().Get(p.Namespace, p.Name)
		return ok && cur.UID == p.UID && !assigned(cur)
	}
	s.queue.PreEnqueue = func(p *corev1.Pod) *framework.Status { return fw.RunPreEnqueuePlugins(context.Background(), p) }
	fw.SetHandle(framework.Handle{ClientSet: c, EventRecorder: s.recorder, PodNominator: s.queue.nominator, Logger: log})
	s.nodes = cache.New[corev1.Node](c, cache.Options{Logger: log})
	s.pdbs = cache.New[policyv1.PodDisruptionBudget](c, cache.Options{Logger: log})
	s.services = cache.New[corev1.Service](c, cache.Options{Logger: log})
	cache.AddNamespaceIndex(s.services)
	s.rcs = cache.New[corev1.ReplicationController](c, cache.Options{Logger: log})
	s.rss = cache.New[appsv1.ReplicaSet](c, cache.Options{Logger: log})
	s.sss = cache.New[appsv1.StatefulSet](c, cache.Options{Logger: log})
	s.pvcs = cache.New[corev1.PersistentVolumeClaim](c, cache.Options{Logger: log})
	s.pvs = cache.New[corev1.PersistentVolume](c, cache.Options{Logger: log})
	s.storageClasses = cache.New[storagev1.StorageClass](c, cache.Options{Logger: log})
	s.informers = append(s.informers, s.pods, s.nodes, s.pdbs, s.services, s.rcs, s.rss, s.sss, s.pvcs, s.pvs, s.storageClasses)
	for _, p := range pl {
		switch p := p.(type) {
		case *plugins.DefaultPreemption:
			p.PdbLister = s.pdbs.GetStore().List
			p.Activate = s.queue.Activate
		case *plugins.PodTopologySpread:
			p.Listers = &plugins.Listers{
				Services: func(namespace string) []*corev1.Service {
					return s.services.GetStore().ByIndex(cache.NamespaceIndex, namespace)
				},
				ReplicationController: s.rcs.GetStore().Get,
				ReplicaSet:            s.rss.GetStore().Get,
				StatefulSet:           s.sss.GetStore().Get,
			}
		case *plugins.VolumeBinding:
			p.Listers = &plugins.VolumeListers{
				Claim:        s.pvcs.GetStore().Get,
				Volume:       func(name string) (*corev1.PersistentVolume, bool) { return s.pvs.GetStore().Get("", name) },
				StorageClass: func(name string) (*storagev1.StorageClass, bool) { return s.storageClasses.GetStore().Get("", name) },
			}
		}
	}
	s.addEventHandlers()
	return s, nil
}

// Run schedules pods one at a time until ctx ends.
func (s *Scheduler) Run(ctx context.Context) {
	s.log.Info("scheduler started", "schedulerName", s.name)
	go s.queue.Run(ctx)
	go s.recorder.Run(ctx)
	for ctx.Err() == nil {
		s.scheduleOne(ctx)
	}
}
