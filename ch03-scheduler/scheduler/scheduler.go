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
// Upstream: pkg/scheduler (scheduler.go, schedule_one.go, eventhandlers.go)
// and cmd/kube-scheduler.
package scheduler

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"kubik/ch01-apiserver/version"
	"log/slog"
	"math/rand/v2"
	"os"
	"reflect"

	"kubik/ch01-apiserver/api/appsv1"
	"kubik/ch01-apiserver/api/corev1"
	"kubik/ch01-apiserver/api/metav1"
	"kubik/ch01-apiserver/api/policyv1"
	"kubik/ch01-apiserver/api/storagev1"
	"kubik/ch01-apiserver/pki"
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

// ErrNoNodesAvailable: the cluster has no nodes at all.
var ErrNoNodesAvailable = errors.New("no nodes available to schedule pods")

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
	return errors.New("leaderelection lost")
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

func assigned(p *corev1.Pod) bool { return p.Spec.NodeName != "" }

// addEventHandlers connects the informers to the queue and the cache.
// Upstream: eventhandlers.go.
func (s *Scheduler) addEventHandlers() {
	s.pods.AddEventHandler(cache.FilteringResourceEventHandler[corev1.Pod]{
		FilterFunc: func(p *corev1.Pod) bool { return !assigned(p) && p.Spec.SchedulerName == s.name },
		Handler: cache.ResourceEventHandlerFuncs[corev1.Pod]{
			AddFunc:    s.queue.Add,
			UpdateFunc: s.queue.Update,
			DeleteFunc: s.queue.Delete,
		},
	})
	s.pods.AddEventHandler(cache.FilteringResourceEventHandler[corev1.Pod]{
		FilterFunc: assigned,
		Handler: cache.ResourceEventHandlerFuncs[corev1.Pod]{
			AddFunc: func(p *corev1.Pod) {
				s.cache.AddOrUpdatePod(p)
				// A new pod on a node can satisfy another pod's affinity or
				// change a spread's skew.
				s.queue.MovePodsRejectedBy("AssignedPodAdd", podAddOrLabelPlugins...)
			},
			UpdateFunc: func(old, p *corev1.Pod) {
				s.cache.AddOrUpdatePod(p)
				if !reflect.DeepEqual(old.Labels, p.Labels) {
					s.queue.MovePodsRejectedBy("AssignedPodUpdate", podAddOrLabelPlugins...)
				}
			},
			DeleteFunc: func(p *corev1.Pod) {
				s.cache.RemovePod(p)
				s.queue.MoveAllToActiveOrBackoffQueue("AssignedPodDelete") // room freed
			},
		},
	})
	s.nodes.AddEventHandler(cache.ResourceEventHandlerFuncs[corev1.Node]{
		AddFunc: func(n *corev1.Node) {
			s.cache.AddOrUpdateNode(n)
			s.queue.MoveAllToActiveOrBackoffQueue("NodeAdd")
		},
		UpdateFunc: func(old, n *corev1.Node) {
			s.cache.AddOrUpdateNode(n)
			if nodeSchedulingPropertiesChanged(old, n) {
				s.queue.MoveAllToActiveOrBackoffQueue("NodeUpdate")
			}
		},
		DeleteFunc: func(n *corev1.Node) {
			s.cache.RemoveNode(n)
			// One domain fewer may lower a spread's minimum.
			s.queue.MovePodsRejectedBy("NodeDelete", "PodTopologySpread")
		},
	})
	s.pvcs.AddEventHandler(volumeEvents[corev1.PersistentVolumeClaim](s, "PersistentVolumeClaim"))
	s.pvs.AddEventHandler(volumeEvents[corev1.PersistentVolume](s, "PersistentVolume"))
	s.storageClasses.AddEventHandler(volumeEvents[storagev1.StorageClass](s, "StorageClass"))
}

// volumeEvents: a claim, a volume or a class added or changed may let a
// pod VolumeBinding rejected in (a claim bound by the PersistentVolume
// controller, most often).
func volumeEvents[T any](s *Scheduler, kind string) cache.ResourceEventHandlerFuncs[T] {
	return cache.ResourceEventHandlerFuncs[T]{
		AddFunc:    func(*T) { s.queue.MovePodsRejectedBy(kind+"Add", "VolumeBinding") },
		UpdateFunc: func(_, _ *T) { s.queue.MovePodsRejectedBy(kind+"Update", "VolumeBinding") },
	}
}

// podAddOrLabelPlugins are the plugins whose verdict another pod's arrival
// (or new labels) can turn around: the ones that look at the pods already
// on nodes by their labels. Upstream: each plugin's EventsToRegister.
var podAddOrLabelPlugins = []string{"InterPodAffinity", "PodTopologySpread"}

// nodeSchedulingPropertiesChanged ignores heartbeats: only what a plugin
// looks at counts.
func nodeSchedulingPropertiesChanged(a, b *corev1.Node) bool {
	return a.Spec.Unschedulable != b.Spec.Unschedulable || !reflect.DeepEqual(a.Spec.Taints, b.Spec.Taints) ||
		!reflect.DeepEqual(a.Labels, b.Labels) || !reflect.DeepEqual(a.Status.Allocatable, b.Status.Allocatable)
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

// scheduleOne is one scheduling cycle. Upstream: schedule_one.go.
func (s *Scheduler) scheduleOne(ctx context.Context) {
	pInfo, cycle := s.queue.Pop()
	if pInfo == nil {
		return
	}
	pod := pInfo.Pod
	if pod.DeletionTimestamp != nil || s.cache.IsAssumed(pod) {
		s.queue.Done(pod)
		return
	}
	state := framework.NewCycleState()
	nodes := s.cache.Snapshot()
	framework.SetAllNodes(state, nodes) // what scores count over: every node, not only the feasible ones
	host, err := s.schedulePod(ctx, state, pod, nodes)
	if err != nil {
		// No node fits: PostFilter (preemption) may make room somewhere
		// and nominate that node; the pod waits in the queue meanwhile.
		nominatingInfo := clearNominatedNode
		var fitErr *framework.FitError
		if errors.As(err, &fitErr) {
			nominatingInfo = s.runPostFilter(ctx, state, pod, nodes, fitErr)
		}
		s.handleFailure(ctx, pInfo, cycle, err, nominatingInfo)
		return
	}

	// Assume: from now on the cache counts the pod on host, and the pod
	// is no longer nominated anywhere.
	assumed := *pod
	assumed.Spec.NodeName = host
	s.cache.AssumePod(&assumed)
	s.queue.DeleteNominatedPodIfExists(&assumed)
	if st := s.fw.RunReservePluginsReserve(ctx, state, &assumed, host); !st.IsSuccess() {
		s.fw.RunReservePluginsUnreserve(ctx, state, &assumed, host)
		s.cache.ForgetPod(&assumed)
		s.handleFailure(ctx, pInfo, cycle, st.AsError(), clearNominatedNode)
		return
	}

	// The binding cycle, in the background.
	go func() {
		if st := s.fw.RunBindPlugins(ctx, state, &assumed, host); !st.IsSuccess() {
			s.fw.RunReservePluginsUnreserve(ctx, state, &assumed, host)
			s.cache.ForgetPod(&assumed)
			s.queue.MoveAllToActiveOrBackoffQueue("AssignedPodDelete")
			s.handleFailure(ctx, pInfo, cycle, fmt.Errorf("binding rejected: %w", st.AsError()), clearNominatedNode)
			return
		}
		s.queue.Done(pod)
		s.log.Info("Successfully bound pod to node", "pod", key(pod), "node", host, "attempts", pInfo.Attempts)
		s.recorder.Eventf(&assumed, nil, "Normal", "Scheduled", "Binding", "Successfully assigned %v/%v to %v", pod.Namespace, pod.Name, host)
	}()
}

// clearNominatedNode: a failure that is not "no node fits" drops the pod's
// nomination, as upstream.
var clearNominatedNode = &framework.NominatingInfo{NominatingMode: framework.ModeOverride}

// runPostFilter runs the PostFilter plugins for a pod that fits nowhere;
// their message goes into the FitError ("preemption: ..."), and the node
// they nominate is returned.
func (s *Scheduler) runPostFilter(ctx context.Context, state *framework.CycleState, pod *corev1.Pod, nodes []*framework.NodeInfo, fitErr *framework.FitError) *framework.NominatingInfo {
	result, st := s.fw.RunPostFilterPlugins(ctx, state, pod, nodes, fitErr.Diagnosis.NodeToStatus)
	fitErr.Diagnosis.PostFilterMsg = st.Message()
	if st.Code() == framework.Error {
		s.log.Error("Status after running PostFilter plugins for pod", "pod", key(pod), "status", st.Message())
	}
	if result == nil {
		return nil
	}
	return result.NominatingInfo
}

// schedulePod finds the node for pod: the feasible nodes, then the best of
// them by score. No feasible node: a *framework.FitError.
func (s *Scheduler) schedulePod(ctx context.Context, state *framework.CycleState, pod *corev1.Pod, nodes []*framework.NodeInfo) (string, error) {
	if len(nodes) == 0 {
		return "", ErrNoNodesAvailable
	}
	feasible, diagnosis, err := s.findNodesThatFitPod(ctx, state, pod, nodes)
	if err != nil {
		return "", err
	}
	if len(feasible) == 0 {
		return "", &framework.FitError{Pod: pod, NumAllNodes: len(nodes), Diagnosis: diagnosis}
	}
	if len(feasible) == 1 {
		return feasible[0].Name(), nil // nothing to compare
	}

	scores, st := s.fw.RunScorePlugins(ctx, state, pod, feasible)
	if !st.IsSuccess() {
		return "", st.AsError()
	}
	return selectHost(scores), nil
}

// selectHost takes the highest total score; ties are broken at random so
// that equal nodes share the load (upstream: reservoir sampling).
func selectHost(scores []framework.NodeScore) string {
	best, ties := scores[0], 1
	for _, sc := range scores[1:] {
		switch {
		case sc.Score > best.Score:
			best, ties = sc, 1
		case sc.Score == best.Score:
			ties++
			if rand.IntN(ties) == 0 {
				best = sc
			}
		}
	}
	return best.Name
}

// handleFailure tells the user (event, pod condition) and puts the pod
// back in the queue, unless it was deleted or bound meanwhile. The pod's
// nomination is set as nominatingInfo says, in the nominator at once (the
// next cycle must see it) and in its status.
func (s *Scheduler) handleFailure(ctx context.Context, pInfo *framework.QueuedPodInfo, cycle int64, err error, nominatingInfo *framework.NominatingInfo) {
	pod := pInfo.Pod
	var fitErr *framework.FitError
	noNodeFits := errors.As(err, &fitErr) || errors.Is(err, ErrNoNodesAvailable)
	reason := "SchedulerError"
	if noNodeFits {
		reason = corev1.PodReasonUnschedulable
		s.log.Info("Unable to schedule pod; no fit; waiting", "pod", key(pod), "err", err)
	} else {
		s.log.Error("Error scheduling pod; retrying", "pod", key(pod), "err", err)
	}

	cur, ok := s.pods.GetStore().Get(pod.Namespace, pod.Name)
	if !ok || cur.UID != pod.UID || assigned(cur) {
		s.queue.Done(pod)
		return
	}
	pInfo.Pod = cur
	pInfo.UnschedulablePlugins = nil
	if fitErr != nil {
		pInfo.UnschedulablePlugins = fitErr.Diagnosis.UnschedulablePlugins
	}
	s.queue.AddUnschedulable(pInfo, cycle, noNodeFits)
	s.queue.AddNominatedPod(cur, nominatingInfo)

	msg := truncate(err.Error(), 1024)
	s.recorder.Eventf(cur, nil, "Warning", "FailedScheduling", "Scheduling", "%s", msg)
	cond := &corev1.PodCondition{Type: corev1.PodScheduled, Status: corev1.ConditionFalse, Reason: reason, Message: err.Error()}
	if err := s.updatePod(ctx, cur, cond, nominatingInfo); err != nil && ctx.Err() == nil {
		s.log.Warn("cannot update pod condition", "pod", key(pod), "err", err)
	}
}

// updatePod patches the pod's status: condition (merged by type: a
// strategic merge patch) unless it already says the same, and
// status.nominatedNodeName if nominatingInfo overrides it with another
// value. Nothing to change: no request. Upstream: schedule_one.go updatePod.
func (s *Scheduler) updatePod(ctx context.Context, pod *corev1.Pod, cond *corev1.PodCondition, nominatingInfo *framework.NominatingInfo) error {
	status := map[string]any{}
	if cond != nil && podConditionChanged(pod, cond) {
		c := *cond
		c.LastTransitionTime = metav1.Now()
		status["conditions"] = []corev1.PodCondition{c}
	}
	if nominatingInfo.Mode() == framework.ModeOverride && pod.Status.NominatedNodeName != nominatingInfo.NominatedNodeName {
		if nominatingInfo.NominatedNodeName == "" {
			status["nominatedNodeName"] = nil // a merge patch removes the field
		} else {
			status["nominatedNodeName"] = nominatingInfo.NominatedNodeName
		}
	}
	if len(status) == 0 {
		return nil
	}
	patch, _ := json.Marshal(map[string]any{"status": status})
	_, err := rest.Patch[corev1.Pod](ctx, s.client, pod.Namespace, pod.Name, rest.StrategicMergePatchType, patch, "status")
	if rest.IsNotFound(err) {
		return nil
	}
	return err
}

// podConditionChanged: the pod has no condition of cond's type saying the
// same (status, reason, message).
func podConditionChanged(pod *corev1.Pod, cond *corev1.PodCondition) bool {
	for _, c := range pod.Status.Conditions {
		if c.Type == cond.Type {
			return c.Status != cond.Status || c.Reason != cond.Reason || c.Message != cond.Message
		}
	}
	return true
}
