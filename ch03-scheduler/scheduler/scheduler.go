// Package scheduler is kube-scheduler: it watches pods that have no node,
// picks a node for each and binds it there — through the apiserver only, as
// system:kube-scheduler. Pods and nodes come from informers; the pods
// waiting for a node sit in a SchedulingQueue; each scheduling cycle runs
// one pod through the framework's plugins against a snapshot of the Cache:
//
//	Pop → PreFilter → Filter (every node) → PostFilter if none fits
//	    → PreScore → Score → NormalizeScore → pick the best node
//	    → assume (Cache) → Reserve → Bind, in the background
//
// The binding is asynchronous: the next pod's cycle starts at once and sees
// the assumed pod on its node. Success: the event "Scheduled". Failure: the
// event "FailedScheduling" and the pod condition PodScheduled=False with
// the reasons, and the pod goes back to the queue.
//
// Upstream: pkg/scheduler (scheduler.go, schedule_one.go, eventhandlers.go)
// and cmd/kube-scheduler.
package scheduler

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"os"
	"reflect"

	"kubik/ch01-apiserver/api/corev1"
	"kubik/ch01-apiserver/api/metav1"
	"kubik/ch03-scheduler/client"
	"kubik/ch03-scheduler/informer"
	"kubik/ch03-scheduler/leaderelection"
	"kubik/ch03-scheduler/scheduler/framework"
	"kubik/ch03-scheduler/scheduler/plugins"
)

const (
	DefaultSchedulerName = "default-scheduler"
	Version              = "v1.35.4-kubik"
)

// ErrNoNodesAvailable: the cluster has no nodes at all.
var ErrNoNodesAvailable = errors.New("no nodes available to schedule pods")

// Config is kube-scheduler's configuration.
type Config struct {
	Kubeconfig    string // identity system:kube-scheduler
	SchedulerName string // the pods' spec.schedulerName this scheduler serves
	LeaderElect   bool   // compete for the Lease kube-system/kube-scheduler
	Logger        *slog.Logger
}

// Scheduler is one running scheduler.
type Scheduler struct {
	name     string
	client   *client.Client
	fw       *framework.Framework
	queue    *SchedulingQueue
	cache    *Cache
	pods     *informer.Informer[corev1.Pod, *corev1.Pod]
	nodes    *informer.Informer[corev1.Node, *corev1.Node]
	recorder *Recorder
	log      *slog.Logger
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
	c, err := client.New(cfg.Kubeconfig, "kube-scheduler/"+Version)
	if err != nil {
		return err
	}
	s, err := New(c, cfg.SchedulerName, log)
	if err != nil {
		return err
	}

	// Informers first, as upstream: a new leader starts with warm caches.
	go s.pods.Run(ctx)
	go s.nodes.Run(ctx)
	if !informer.WaitForCacheSync(ctx, s.pods.HasSynced, s.nodes.HasSynced) {
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

// New builds a scheduler over c with the default profile; its informers
// are not running yet.
func New(c *client.Client, schedulerName string, log *slog.Logger) (*Scheduler, error) {
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
		recorder: NewRecorder(c, schedulerName, schedulerName+"-"+host, log)}
	// Pods that have not finished: the unscheduled ones feed the queue, the
	// bound ones the cache (as upstream's scheduler informer).
	s.pods = informer.New[corev1.Pod](c, informer.Options{FieldSelector: "status.phase!=Succeeded,status.phase!=Failed", Logger: log})
	s.nodes = informer.New[corev1.Node](c, informer.Options{Logger: log})
	s.addEventHandlers()
	return s, nil
}

func assigned(p *corev1.Pod) bool { return p.Spec.NodeName != "" }

// addEventHandlers connects the informers to the queue and the cache.
// Upstream: eventhandlers.go.
func (s *Scheduler) addEventHandlers() {
	s.pods.AddEventHandler(informer.FilteringResourceEventHandler[corev1.Pod]{
		FilterFunc: func(p *corev1.Pod) bool { return !assigned(p) && p.Spec.SchedulerName == s.name },
		Handler: informer.ResourceEventHandlerFuncs[corev1.Pod]{
			AddFunc:    s.queue.Add,
			UpdateFunc: s.queue.Update,
			DeleteFunc: s.queue.Delete,
		},
	})
	s.pods.AddEventHandler(informer.FilteringResourceEventHandler[corev1.Pod]{
		FilterFunc: assigned,
		Handler: informer.ResourceEventHandlerFuncs[corev1.Pod]{
			AddFunc:    s.cache.AddOrUpdatePod,
			UpdateFunc: func(_, p *corev1.Pod) { s.cache.AddOrUpdatePod(p) },
			DeleteFunc: func(p *corev1.Pod) {
				s.cache.RemovePod(p)
				s.queue.MoveAllToActiveOrBackoffQueue("AssignedPodDelete") // room freed
			},
		},
	})
	s.nodes.AddEventHandler(informer.ResourceEventHandlerFuncs[corev1.Node]{
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
		DeleteFunc: s.cache.RemoveNode,
	})
}

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
	host, err := s.schedulePod(ctx, state, pod, nodes)
	if err != nil {
		s.handleFailure(ctx, pInfo, cycle, err)
		return
	}

	// Assume: from now on the cache counts the pod on host.
	assumed := *pod
	assumed.Spec.NodeName = host
	s.cache.AssumePod(&assumed)
	if st := s.fw.RunReservePluginsReserve(ctx, state, &assumed, host); !st.IsSuccess() {
		s.fw.RunReservePluginsUnreserve(ctx, state, &assumed, host)
		s.cache.ForgetPod(&assumed)
		s.handleFailure(ctx, pInfo, cycle, st.AsError())
		return
	}

	// The binding cycle, in the background.
	go func() {
		if st := s.fw.RunBindPlugins(ctx, state, &assumed, host); !st.IsSuccess() {
			s.fw.RunReservePluginsUnreserve(ctx, state, &assumed, host)
			s.cache.ForgetPod(&assumed)
			s.queue.MoveAllToActiveOrBackoffQueue("AssignedPodDelete")
			s.handleFailure(ctx, pInfo, cycle, fmt.Errorf("binding rejected: %w", st.AsError()))
			return
		}
		s.queue.Done(pod)
		s.log.Info("Successfully bound pod to node", "pod", key(pod), "node", host, "attempts", pInfo.Attempts)
		s.recorder.Eventf(&assumed, "Normal", "Scheduled", "Binding", "Successfully assigned %v/%v to %v", pod.Namespace, pod.Name, host)
	}()
}

// schedulePod finds the node for pod: the feasible nodes, then the best of
// them by score. No feasible node: a *framework.FitError.
func (s *Scheduler) schedulePod(ctx context.Context, state *framework.CycleState, pod *corev1.Pod, nodes []*framework.NodeInfo) (string, error) {
	if len(nodes) == 0 {
		return "", ErrNoNodesAvailable
	}
	diagnosis := framework.Diagnosis{NodeToStatus: framework.NodeToStatus{}, UnschedulablePlugins: map[string]bool{}}
	fitErr := func() error {
		// PostFilter: could preemption help?
		st := s.fw.RunPostFilterPlugins(ctx, state, pod, nodes, diagnosis.NodeToStatus)
		diagnosis.PostFilterMsg = st.Message()
		return &framework.FitError{Pod: pod, NumAllNodes: len(nodes), Diagnosis: diagnosis}
	}

	if st := s.fw.RunPreFilterPlugins(ctx, state, pod, nodes); !st.IsSuccess() {
		if !st.IsRejected() {
			return "", st.AsError()
		}
		for _, n := range nodes {
			diagnosis.NodeToStatus[n.Name()] = st
		}
		diagnosis.PreFilterMsg = st.Message()
		diagnosis.UnschedulablePlugins[st.Plugin()] = true
		return "", fitErr()
	}

	var feasible []*framework.NodeInfo
	for _, n := range nodes {
		st := s.fw.RunFilterPlugins(ctx, state, pod, n)
		switch {
		case st.IsSuccess():
			feasible = append(feasible, n)
		case st.Code() == framework.Error:
			return "", st.AsError()
		default:
			diagnosis.NodeToStatus[n.Name()] = st
			diagnosis.UnschedulablePlugins[st.Plugin()] = true
		}
	}
	if len(feasible) == 0 {
		return "", fitErr()
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
// back in the queue, unless it was deleted or bound meanwhile.
func (s *Scheduler) handleFailure(ctx context.Context, pInfo *framework.QueuedPodInfo, cycle int64, err error) {
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
	s.queue.AddUnschedulable(pInfo, cycle, noNodeFits)

	msg := truncate(err.Error(), 1024)
	s.recorder.Eventf(cur, "Warning", "FailedScheduling", "Scheduling", "%s", msg)
	if err := s.setPodScheduledCondition(ctx, cur, reason, msg); err != nil && ctx.Err() == nil {
		s.log.Warn("cannot update pod condition", "pod", key(pod), "err", err)
	}
}

// setPodScheduledCondition patches status.conditions[type=PodScheduled]
// (a strategic merge patch merges conditions by type), unless it already
// says the same.
func (s *Scheduler) setPodScheduledCondition(ctx context.Context, pod *corev1.Pod, reason, msg string) error {
	for _, c := range pod.Status.Conditions {
		if c.Type == corev1.PodScheduled && c.Status == corev1.ConditionFalse && c.Reason == reason && c.Message == msg {
			return nil
		}
	}
	cond := corev1.PodCondition{Type: corev1.PodScheduled, Status: corev1.ConditionFalse, Reason: reason, Message: msg,
		LastTransitionTime: metav1.Now()}
	patch, _ := json.Marshal(map[string]any{"status": map[string]any{"conditions": []corev1.PodCondition{cond}}})
	_, err := client.Patch[corev1.Pod](ctx, s.client, pod.Namespace, pod.Name, client.StrategicMergePatchType, patch, "status")
	if client.IsNotFound(err) {
		return nil
	}
	return err
}
