// Package tainteviction is the taint eviction controller of
// kube-controller-manager ("taint-eviction-controller"): it deletes the
// pods running on a node with a NoExecute taint they do not tolerate.
//
// The loop, in plain words. Every change of a Node's taints and every
// change of a pod's node or tolerations is handled at once (in the event
// handlers' worker): for each pod on a node with NoExecute taints,
//
//   - a taint the pod does not tolerate: evict now;
//   - all tolerated, some only for tolerationSeconds: evict after the
//     smallest of them (the apiserver gives every pod 300 s for not-ready
//     and unreachable, so a pod leaves an unreachable node after 5 min);
//   - all tolerated forever (DaemonSet pods): nothing.
//
// Scheduled evictions wait in a timed queue; when the taint goes away (the
// node is back) the eviction is cancelled, with the event
// TaintManagerEviction "Cancelling deletion of Pod ns/name". When the time
// comes the pod gets the condition DisruptionTarget (reason
// DeletionByTaintManager), the event TaintManagerEviction "Marking for
// deletion Pod ns/name", and is deleted (gracefully: its kubelet, if it
// ever comes back, finishes the job).
//
// Upstream: pkg/controller/tainteviction (taint_eviction.go,
// timed_workers.go).
package tainteviction

import (
	"context"
	"encoding/json"
	"kubik/ch04-controllers/record"
	"log/slog"
	"math"
	"slices"
	"sync"
	"time"

	"kubik/ch01-apiserver/api/corev1"
	"kubik/ch01-apiserver/api/metav1"
	"kubik/ch03-scheduler/clientgo/rest"
	"kubik/ch03-scheduler/clientgo/tools/cache"
	"kubik/ch03-scheduler/clientgo/util/workqueue"
	"kubik/ch04-controllers/controller"
)

// ControllerName is upstream's name, also the events' component.
const ControllerName = "taint-eviction-controller"

const indexByNodeName = "tainteviction/nodeName"

// scheduledEviction is one pod's pending eviction. Upstream: TimedWorker.
type scheduledEviction struct {
	createdAt, fireAt time.Time
}

// TaintEvictionController is upstream's tainteviction.Controller.
type TaintEvictionController struct {
	client   *rest.Client
	nodes    *cache.Informer[corev1.Node, *corev1.Node]
	pods     *cache.Informer[corev1.Pod, *corev1.Pod]
	recorder *record.Recorder
	clock    workqueue.Clock
	log      *slog.Logger
	// changes: node names and pod keys ("pod:ns/name") to (re)consider.
	changes *workqueue.Queue[string]
	// evictions: pod keys whose time is up, fed by the delaying queue.
	evictions *workqueue.RateLimitingQueue[string]

	mu        sync.Mutex
	scheduled map[string]scheduledEviction // pod key -> pending eviction
}

// NewTaintEvictionController asks for the Node and Pod informers.
// Upstream: tainteviction.New.
func NewTaintEvictionController(cc *controller.ControllerContext) (*TaintEvictionController, error) {
	return newController(cc, workqueue.RealClock{}), nil
}

func newController(cc *controller.ControllerContext, clock workqueue.Clock) *TaintEvictionController {
	log := cc.Log
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	log = log.With("controller", ControllerName)
	c := &TaintEvictionController{client: cc.Client, clock: clock, log: log,
		nodes:     controller.InformerFor[corev1.Node](cc.Informers),
		pods:      controller.InformerFor[corev1.Pod](cc.Informers),
		recorder:  record.NewRecorder(cc.Client, ControllerName, log),
		changes:   workqueue.New[string](),
		evictions: workqueue.NewRateLimitingWithClock(workqueue.DefaultControllerRateLimiter[string](), clock),
		scheduled: map[string]scheduledEviction{},
	}
	c.pods.AddIndexers(cache.Indexers[corev1.Pod]{indexByNodeName: func(p *corev1.Pod) []string {
		if p.Spec.NodeName == "" {
			return nil
		}
		return []string{p.Spec.NodeName}
	}})
	c.nodes.AddEventHandler(cache.ResourceEventHandlerFuncs[corev1.Node]{
		AddFunc: func(n *corev1.Node) { c.changes.Add(n.Name) },
		UpdateFunc: func(old, n *corev1.Node) {
			if !slices.Equal(noExecuteTaints(old), noExecuteTaints(n)) {
				c.changes.Add(n.Name)
			}
		},
		DeleteFunc: func(n *corev1.Node) { c.changes.Add(n.Name) },
	})
	c.pods.AddEventHandler(cache.ResourceEventHandlerFuncs[corev1.Pod]{
		AddFunc: func(p *corev1.Pod) { c.changes.Add("pod:" + cache.MetaNamespaceKeyFunc(p)) },
		UpdateFunc: func(old, p *corev1.Pod) {
			if old.Spec.NodeName != p.Spec.NodeName || !slices.Equal(tolerationKeys(old), tolerationKeys(p)) {
				c.changes.Add("pod:" + cache.MetaNamespaceKeyFunc(p))
			}
		},
		DeleteFunc: func(p *corev1.Pod) { c.cancel(cache.MetaNamespaceKeyFunc(p), nil) },
	})
	return c
}

// Run processes changes and fires evictions until ctx ends.
func (c *TaintEvictionController) Run(ctx context.Context, workers int) {
	go c.recorder.Run(ctx)
	if !cache.WaitForCacheSync(ctx, c.nodes.HasSynced, c.pods.HasSynced) {
		return
	}
	c.log.Info("starting taint eviction controller")
	var wg sync.WaitGroup
	wg.Go(func() {
		for {
			item, quit := c.changes.Get()
			if quit {
				return
			}
			if key, ok := cutPrefix(item, "pod:"); ok {
				ns, name := cache.SplitMetaNamespaceKey(key)
				if p, ok := c.pods.GetStore().Get(ns, name); ok {
					c.handlePod(p)
				}
			} else {
				c.handleNode(item)
			}
			c.changes.Done(item)
		}
	})
	for range max(workers, 1) {
		wg.Go(func() {
			for {
				key, quit := c.evictions.Get()
				if quit {
					return
				}
				if err := c.evict(ctx, key); err != nil {
					if ctx.Err() == nil {
						c.log.Warn("cannot evict pod; retrying", "pod", key, "err", err)
					}
					c.evictions.AddRateLimited(key)
				} else {
					c.evictions.Forget(key)
				}
				c.evictions.Done(key)
			}
		})
	}
	<-ctx.Done()
	c.changes.ShutDown()
	c.evictions.ShutDown()
	wg.Wait()
}

func cutPrefix(s, p string) (string, bool) {
	if len(s) >= len(p) && s[:len(p)] == p {
		return s[len(p):], true
	}
	return s, false
}

// handleNode reconsiders every pod on the node. Upstream: handleNodeUpdate.
func (c *TaintEvictionController) handleNode(name string) {
	node, ok := c.nodes.GetStore().Get("", name)
	var taints []corev1.Taint
	if ok {
		taints = noExecuteTaints(node)
	}
	for _, p := range c.pods.GetStore().ByIndex(indexByNodeName, name) {
		c.processPodOnNode(p, taints)
	}
}

// handlePod reconsiders one pod. Upstream: handlePodUpdate.
func (c *TaintEvictionController) handlePod(p *corev1.Pod) {
	if p.Spec.NodeName == "" {
		return
	}
	var taints []corev1.Taint
	if node, ok := c.nodes.GetStore().Get("", p.Spec.NodeName); ok {
		taints = noExecuteTaints(node)
	}
	c.processPodOnNode(p, taints)
}

// processPodOnNode schedules, reschedules or cancels one pod's eviction.
// Upstream: processPodOnNode.
func (c *TaintEvictionController) processPodOnNode(p *corev1.Pod, taints []corev1.Taint) {
	key := cache.MetaNamespaceKeyFunc(p)
	if len(taints) == 0 {
		c.cancel(key, p)
		return
	}
	allTolerated, used := getMatchingTolerations(taints, p.Spec.Tolerations)
	now := c.clock.Now()
	if !allTolerated {
		c.log.Info("pod does not tolerate the node's NoExecute taints: evicting", "pod", key, "node", p.Spec.NodeName)
		c.schedule(key, now, now)
		return
	}
	minToleration := getMinTolerationTime(used)
	if minToleration < 0 {
		c.cancel(key, p) // tolerated forever
		return
	}
	startTime := now
	c.mu.Lock()
	prev, exists := c.scheduled[key]
	c.mu.Unlock()
	if exists {
		startTime = prev.createdAt
		if !startTime.Add(minToleration).Before(prev.fireAt) {
			return // already scheduled no later than this would
		}
	}
	c.schedule(key, startTime, startTime.Add(minToleration))
}

func (c *TaintEvictionController) schedule(key string, createdAt, fireAt time.Time) {
	c.mu.Lock()
	c.scheduled[key] = scheduledEviction{createdAt: createdAt, fireAt: fireAt}
	c.mu.Unlock()
	c.evictions.AddAfter(key, fireAt.Sub(c.clock.Now()))
}

// cancel forgets a pending eviction; with the pod (still there), it says
// so in an event. Upstream: cancelWorkWithEvent.
func (c *TaintEvictionController) cancel(key string, p *corev1.Pod) {
	c.mu.Lock()
	_, ok := c.scheduled[key]
	delete(c.scheduled, key)
	c.mu.Unlock()
	if ok && p != nil {
		c.recorder.Eventf(podRef(p), corev1.EventTypeNormal, "TaintManagerEviction", "Cancelling deletion of Pod %s", key)
	}
}

// evict deletes the pod if its eviction is still due. Upstream:
// deletePodHandler + addConditionAndDeletePod.
func (c *TaintEvictionController) evict(ctx context.Context, key string) error {
	c.mu.Lock()
	ev, ok := c.scheduled[key]
	c.mu.Unlock()
	if !ok {
		return nil // cancelled
	}
	if c.clock.Now().Before(ev.fireAt) {
		c.evictions.AddAfter(key, ev.fireAt.Sub(c.clock.Now())) // rescheduled later
		return nil
	}
	ns, name := cache.SplitMetaNamespaceKey(key)
	pod, ok := c.pods.GetStore().Get(ns, name)
	if !ok || pod.DeletionTimestamp != nil {
		c.cancel(key, nil)
		return nil
	}
	c.recorder.Eventf(podRef(pod), corev1.EventTypeNormal, "TaintManagerEviction", "Marking for deletion Pod %s", key)
	// The condition first, so that whoever watches the pod learns why it goes.
	cond := corev1.PodCondition{Type: corev1.DisruptionTarget, Status: corev1.ConditionTrue,
		Reason: "DeletionByTaintManager", Message: "Taint manager: deleting due to NoExecute taint",
		LastTransitionTime: metav1.NewTime(c.clock.Now())}
	patch, _ := json.Marshal(map[string]any{
		"metadata": map[string]any{"uid": pod.UID},
		"status":   map[string]any{"conditions": []corev1.PodCondition{cond}},
	})
	if _, err := rest.Patch[corev1.Pod](ctx, c.client, ns, name, rest.StrategicMergePatchType, patch, "status"); err != nil {
		if rest.IsNotFound(err) {
			c.cancel(key, nil)
			return nil
		}
		return err
	}
	uid := pod.UID
	err := rest.Delete[corev1.Pod](ctx, c.client, ns, name, &metav1.DeleteOptions{Preconditions: &metav1.Preconditions{UID: &uid}})
	if err != nil && !rest.IsNotFound(err) && !rest.IsConflict(err) {
		return err
	}
	c.log.Info("evicted pod", "pod", key, "node", pod.Spec.NodeName)
	c.cancel(key, nil)
	return nil
}

func podRef(p *corev1.Pod) record.ObjectRef {
	return record.RefFor(&p.ObjectMeta, "v1", "Pod")
}

func noExecuteTaints(n *corev1.Node) []corev1.Taint {
	var out []corev1.Taint
	for _, t := range n.Spec.Taints {
		if t.Effect == corev1.TaintEffectNoExecute {
			t.TimeAdded = nil // compared by key, value, effect
			out = append(out, t)
		}
	}
	return out
}

func tolerationKeys(p *corev1.Pod) []string {
	var out []string
	for _, t := range p.Spec.Tolerations {
		b, _ := json.Marshal(t)
		out = append(out, string(b))
	}
	return out
}

// getMatchingTolerations: whether every taint is tolerated, and the
// tolerations used. Upstream: the same name.
func getMatchingTolerations(taints []corev1.Taint, tolerations []corev1.Toleration) (bool, []corev1.Toleration) {
	var used []corev1.Toleration
	for i := range taints {
		found := false
		for _, tol := range tolerations {
			if tol.ToleratesTaint(&taints[i]) {
				used = append(used, tol)
				found = true
			}
		}
		if !found {
			return false, nil
		}
	}
	return true, used
}

// getMinTolerationTime is the smallest tolerationSeconds (0 when negative),
// or -1 when every used toleration lasts forever. Upstream: the same name.
func getMinTolerationTime(tolerations []corev1.Toleration) time.Duration {
	minSeconds := int64(math.MaxInt64)
	for _, t := range tolerations {
		if t.TolerationSeconds != nil {
			minSeconds = min(minSeconds, max(*t.TolerationSeconds, 0))
		}
	}
	if minSeconds == math.MaxInt64 {
		return -1
	}
	return time.Duration(minSeconds) * time.Second
}
