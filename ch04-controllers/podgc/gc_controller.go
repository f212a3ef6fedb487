// Package podgc is the pod garbage collector of kube-controller-manager
// (pod-garbage-collector in --controllers): every 20 seconds it force
// deletes the pods nobody else will:
//
//   - terminated pods (Succeeded, Failed) beyond
//     --terminated-pod-gc-threshold (12500; 0 disables this), evicted pods
//     first, then the oldest;
//   - terminating pods on a node that is not Ready and carries the
//     node.kubernetes.io/out-of-service taint (a non-graceful shutdown);
//   - orphaned pods, bound to a node that no longer exists: a node missing
//     from the cache is quarantined for 40 seconds, then read from the
//     apiserver; if it is really gone its pods get the DisruptionTarget
//     condition (DeletionByPodGC) and are deleted;
//   - terminating pods that were never scheduled (no kubelet will finish
//     them).
//
// A pod still Pending or Running is first marked Failed (a status patch),
// so that the controllers owning it see it failed; then it is deleted with
// a grace period of 0.
//
// Upstream: pkg/controller/podgc/gc_controller.go.
package podgc

import (
	"context"
	"encoding/json"
	"log/slog"
	"sort"
	"time"

	"kubik/ch01-apiserver/api/corev1"
	"kubik/ch01-apiserver/api/metav1"
	"kubik/ch03-scheduler/clientgo/rest"
	"kubik/ch03-scheduler/clientgo/tools/cache"
	"kubik/ch03-scheduler/clientgo/util/workqueue"
	"kubik/ch04-controllers/controller"
)

// ControllerName is upstream's name in logs.
const ControllerName = "pod-garbage-collector-controller"

const (
	// gcCheckPeriod is how often the collector runs.
	gcCheckPeriod = 20 * time.Second
	// quarantineTime is how long a node missing from the cache may take to
	// show up before it is read from the apiserver.
	quarantineTime = 40 * time.Second
	// DefaultTerminatedPodGCThreshold is --terminated-pod-gc-threshold's default.
	DefaultTerminatedPodGCThreshold = 12500
)

// Options are the collector's settings.
type Options struct {
	// TerminatedPodThreshold is --terminated-pod-gc-threshold: how many
	// terminated pods may exist (0: keep them all).
	TerminatedPodThreshold int
}

// PodGCController is upstream's PodGCController.
type PodGCController struct {
	client                 *rest.Client
	pods                   *cache.Informer[corev1.Pod, *corev1.Pod]
	nodes                  *cache.Informer[corev1.Node, *corev1.Node]
	terminatedPodThreshold int
	clock                  workqueue.Clock
	log                    *slog.Logger
	// quarantine holds the nodes pods are bound to that the cache lacks,
	// with when they were first missed (upstream: nodeQueue, a delaying
	// queue).
	quarantine map[string]time.Time
}

// NewPodGC asks for the Pod and Node informers. Upstream: NewPodGC.
func NewPodGC(cc *controller.ControllerContext, opts Options) (*PodGCController, error) {
	return newPodGC(cc, opts, workqueue.RealClock{}), nil
}

func newPodGC(cc *controller.ControllerContext, opts Options, clock workqueue.Clock) *PodGCController {
	log := cc.Log
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	return &PodGCController{client: cc.Client, terminatedPodThreshold: opts.TerminatedPodThreshold, clock: clock,
		log:        log.With("controller", ControllerName),
		pods:       controller.InformerFor[corev1.Pod](cc.Informers),
		nodes:      controller.InformerFor[corev1.Node](cc.Informers),
		quarantine: map[string]time.Time{},
	}
}

// Run waits for the caches, then collects every gcCheckPeriod until ctx
// ends. The collector has one loop: workers is ignored.
func (gcc *PodGCController) Run(ctx context.Context, _ int) {
	if !cache.WaitForCacheSync(ctx, gcc.pods.HasSynced, gcc.nodes.HasSynced) {
		return
	}
	gcc.log.Info("Starting controller")
	for {
		gcc.gc(ctx)
		select {
		case <-ctx.Done():
			return
		case <-gcc.clock.After(gcCheckPeriod):
		}
	}
}

func (gcc *PodGCController) gc(ctx context.Context) {
	pods := gcc.pods.GetStore().List()
	nodes := gcc.nodes.GetStore().List()
	if gcc.terminatedPodThreshold > 0 {
		gcc.gcTerminated(ctx, pods)
	}
	gcc.gcTerminating(ctx, pods)
	gcc.gcOrphaned(ctx, pods, nodes)
	gcc.gcUnscheduledTerminating(ctx, pods)
}

func isPodTerminated(pod *corev1.Pod) bool {
	phase := pod.Status.Phase
	return phase != corev1.PodPending && phase != corev1.PodRunning && phase != corev1.PodUnknown
}

// gcTerminated deletes the terminated pods beyond the threshold.
func (gcc *PodGCController) gcTerminated(ctx context.Context, pods []*corev1.Pod) {
	var terminated []*corev1.Pod
	for _, p := range pods {
		if isPodTerminated(p) {
			terminated = append(terminated, p)
		}
	}
	deleteCount := len(terminated) - gcc.terminatedPodThreshold
	if deleteCount <= 0 {
		return
	}
	gcc.log.Info("Garbage collecting pods", "numPods", deleteCount)
	sortByEvictionAndCreationTimestamp(terminated)
	for _, p := range terminated[:deleteCount] {
		gcc.markFailedAndDeletePod(ctx, p, nil)
	}
}

// gcTerminating deletes terminating pods of out-of-service nodes.
func (gcc *PodGCController) gcTerminating(ctx context.Context, pods []*corev1.Pod) {
	var terminating []*corev1.Pod
	for _, p := range pods {
		if p.DeletionTimestamp == nil {
			continue
		}
		node, ok := gcc.nodes.GetStore().Get("", p.Spec.NodeName)
		if !ok {
			continue
		}
		if !isNodeReady(node) && hasTaintKey(node, corev1.TaintNodeOutOfService) {
			terminating = append(terminating, p)
		}
	}
	if len(terminating) == 0 {
		return
	}
	gcc.log.Info("Garbage collecting pods that are terminating on node tainted with node.kubernetes.io/out-of-service", "numPods", len(terminating))
	sortByEvictionAndCreationTimestamp(terminating)
	for _, p := range terminating {
		gcc.markFailedAndDeletePod(ctx, p, nil)
	}
}

// isNodeReady: the Ready condition is True. Upstream: nodeutil.IsNodeReady.
func isNodeReady(node *corev1.Node) bool {
	for _, c := range node.Status.Conditions {
		if c.Type == corev1.NodeReady {
			return c.Status == corev1.ConditionTrue
		}
	}
	return false
}

func hasTaintKey(node *corev1.Node, key string) bool {
	for _, t := range node.Spec.Taints {
		if t.Key == key {
			return true
		}
	}
	return false
}

// gcOrphaned deletes the pods bound to nodes that are gone.
func (gcc *PodGCController) gcOrphaned(ctx context.Context, pods []*corev1.Pod, nodes []*corev1.Node) {
	existing := map[string]bool{}
	for _, n := range nodes {
		existing[n.Name] = true
	}
	now := gcc.clock.Now()
	for _, p := range pods {
		if n := p.Spec.NodeName; n != "" && !existing[n] {
			if _, ok := gcc.quarantine[n]; !ok {
				gcc.quarantine[n] = now
			}
		}
	}
	deleted := gcc.discoverDeletedNodes(ctx, existing, now)
	for _, p := range pods {
		if !deleted[p.Spec.NodeName] {
			continue
		}
		gcc.log.Info("Found orphaned Pod assigned to the Node, deleting", "pod", p.Namespace+"/"+p.Name, "node", p.Spec.NodeName)
		cond := &corev1.PodCondition{Type: corev1.DisruptionTarget, Status: corev1.ConditionTrue,
			Reason: "DeletionByPodGC", Message: "PodGC: node no longer exists"}
		if gcc.markFailedAndDeletePod(ctx, p, cond) {
			gcc.log.Info("Forced deletion of orphaned Pod succeeded", "pod", p.Namespace+"/"+p.Name)
		}
	}
}

// discoverDeletedNodes takes the nodes out of quarantine whose time is up
// and returns those the apiserver does not have either.
func (gcc *PodGCController) discoverDeletedNodes(ctx context.Context, existing map[string]bool, now time.Time) map[string]bool {
	deleted := map[string]bool{}
	for name, since := range gcc.quarantine {
		if now.Before(since.Add(quarantineTime)) {
			continue
		}
		delete(gcc.quarantine, name)
		if existing[name] {
			continue
		}
		_, err := rest.Get[corev1.Node](ctx, gcc.client, "", name)
		switch {
		case rest.IsNotFound(err):
			deleted[name] = true
		case err != nil:
			gcc.log.Error("Error while getting node", "node", name, "err", err) // back in quarantine next time if still missing
		}
	}
	return deleted
}

// gcUnscheduledTerminating deletes terminating pods bound to no node.
func (gcc *PodGCController) gcUnscheduledTerminating(ctx context.Context, pods []*corev1.Pod) {
	for _, p := range pods {
		if p.DeletionTimestamp == nil || p.Spec.NodeName != "" {
			continue
		}
		gcc.log.Info("Found unscheduled terminating Pod not assigned to any Node, deleting", "pod", p.Namespace+"/"+p.Name)
		if gcc.markFailedAndDeletePod(ctx, p, nil) {
			gcc.log.Info("Forced deletion of unscheduled terminating Pod succeeded", "pod", p.Namespace+"/"+p.Name)
		}
	}
}

// sortByEvictionAndCreationTimestamp: evicted pods first (the terminated
// pods of controllers are kept longer), then the oldest, then by name.
func sortByEvictionAndCreationTimestamp(pods []*corev1.Pod) {
	evicted := func(p *corev1.Pod) bool { return p.Status.Phase == corev1.PodFailed && p.Status.Reason == "Evicted" }
	sort.SliceStable(pods, func(i, j int) bool {
		a, b := pods[i], pods[j]
		if evicted(a) != evicted(b) {
			return evicted(a)
		}
		if a.CreationTimestamp.Equal(b.CreationTimestamp.Time) {
			return a.Name < b.Name
		}
		return a.CreationTimestamp.Before(b.CreationTimestamp.Time)
	})
}

// markFailedAndDeletePod marks a pod that has not finished Failed (with
// condition, if any), then deletes it with a grace period of 0; it reports
// whether both went through (a pod already gone counts). Upstream:
// markFailedAndDeletePodWithCondition.
func (gcc *PodGCController) markFailedAndDeletePod(ctx context.Context, pod *corev1.Pod, condition *corev1.PodCondition) bool {
	gcc.log.Info("PodGC is force deleting Pod", "pod", pod.Namespace+"/"+pod.Name)
	if pod.Status.Phase != corev1.PodSucceeded && pod.Status.Phase != corev1.PodFailed {
		status := map[string]any{"phase": corev1.PodFailed}
		if condition != nil {
			c := *condition
			c.LastTransitionTime = metav1.NewTime(gcc.clock.Now())
			status["conditions"] = []corev1.PodCondition{c}
		}
		patch, _ := json.Marshal(map[string]any{"metadata": map[string]any{"uid": pod.UID}, "status": status})
		if _, err := rest.Patch[corev1.Pod](ctx, gcc.client, pod.Namespace, pod.Name, rest.StrategicMergePatchType, patch, "status"); err != nil {
			if !rest.IsNotFound(err) {
				gcc.log.Error("Failed to mark pod Failed", "pod", pod.Namespace+"/"+pod.Name, "err", err)
			}
			return rest.IsNotFound(err)
		}
	}
	zero := int64(0)
	err := rest.Delete[corev1.Pod](ctx, gcc.client, pod.Namespace, pod.Name, &metav1.DeleteOptions{GracePeriodSeconds: &zero})
	if err != nil && !rest.IsNotFound(err) {
		gcc.log.Error("Failed to delete pod", "pod", pod.Namespace+"/"+pod.Name, "err", err)
		return false
	}
	return true
}
