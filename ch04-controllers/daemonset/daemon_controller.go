// Package daemonset is the DaemonSet controller of kube-controller-manager:
// one pod of a DaemonSet on every node that should run it.
//
// The loop, in plain words. A DaemonSet's key is queued when it changes,
// when one of its pods changes, and — for every DaemonSet — when a node is
// added, removed, or changes its labels, taints or conditions. syncDaemonSet
// then looks at every node:
//
//   - should it run the daemon pod (NodeShouldRunDaemonPod)? Its labels must
//     match the pod's nodeSelector and required node affinity, and its
//     NoSchedule and NoExecute taints must be tolerated — counting the
//     tolerations the controller adds to every daemon pod (not-ready and
//     unreachable NoExecute, the pressure and unschedulable NoSchedule
//     taints), so that a DaemonSet keeps running on a troubled node;
//   - a node that should run it and has no pod gets one; a node that should
//     not (or no longer exists) loses it; a failed pod is deleted and
//     replaced; a second pod on one node is deleted.
//
// The pod is created with a required node affinity on the field
// metadata.name = <node> and left unscheduled: since 1.12 the scheduler
// binds daemon pods like any other, so resources, ports and priorities
// are checked in one place.
//
// Every template the DaemonSet had is recorded in a ControllerRevision
// (constructHistory): named <ds>-<hash>, the hash of the template
// (controller.ComputeHash with status.collisionCount), labelled
// controller-revision-hash=<hash>, holding the strategic merge patch that
// puts the template back, numbered one above the newest older revision.
// Pods carry the same label. `kubectl rollout history ds` lists the
// revisions; `kubectl rollout undo ds` applies one of them back to the
// DaemonSet, which then becomes the current revision again (renumbered).
// Old revisions beyond spec.revisionHistoryLimit (default 10) that no pod
// carries any more are deleted (cleanupHistory).
//
// A changed template rolls out node by node (RollingUpdate): pods whose
// controller-revision-hash label is not the current revision's are
// replaced, at most maxUnavailable nodes at a time without a ready pod, or
// with maxSurge new pods started next to old ones.
//
// Upstream: pkg/controller/daemon (daemon_controller.go, update.go,
// util/daemonset_util.go).
package daemonset

import (
	"context"
	"kubik/ch04-controllers/record"
	"kubik/ch04-controllers/worker"
	"log/slog"
	"maps"
	"slices"

	"kubik/ch01-apiserver/api/appsv1"
	"kubik/ch01-apiserver/api/corev1"
	"kubik/ch01-apiserver/api/metav1"
	"kubik/ch01-apiserver/apiserver/selection"
	"kubik/ch03-scheduler/clientgo/rest"
	"kubik/ch03-scheduler/clientgo/tools/cache"
	"kubik/ch03-scheduler/clientgo/util/workqueue"
	"kubik/ch04-controllers/controller"
)

// ControllerName is upstream's component name in events.
const ControllerName = "daemonset-controller"

const indexByControllerUID = "daemonset-controller/controllerUID"

// DaemonSetsController is upstream's DaemonSetsController.
type DaemonSetsController struct {
	client       *rest.Client
	dsets        *cache.Informer[appsv1.DaemonSet, *appsv1.DaemonSet]
	pods         *cache.Informer[corev1.Pod, *corev1.Pod]
	nodes        *cache.Informer[corev1.Node, *corev1.Node]
	histories    *cache.Informer[appsv1.ControllerRevision, *appsv1.ControllerRevision]
	queue        *workqueue.RateLimitingQueue[string]
	recorder     *record.Recorder
	podCtl       controller.PodControl
	expectations *controller.ControllerExpectations
	clock        workqueue.Clock
	log          *slog.Logger
}

// NewDaemonSetsController asks for the DaemonSet, ControllerRevision, Pod
// and Node informers.
// Upstream: NewDaemonSetsController.
func NewDaemonSetsController(cc *controller.ControllerContext) (*DaemonSetsController, error) {
	return newController(cc, workqueue.RealClock{}), nil
}

func newController(cc *controller.ControllerContext, clock workqueue.Clock) *DaemonSetsController {
	log := cc.Log
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	log = log.With("controller", ControllerName)
	rec := record.NewRecorder(cc.Client, ControllerName, log)
	c := &DaemonSetsController{client: cc.Client, recorder: rec, clock: clock, log: log,
		podCtl:       controller.PodControl{Client: cc.Client, Recorder: rec},
		dsets:        controller.InformerFor[appsv1.DaemonSet](cc.Informers),
		pods:         controller.InformerFor[corev1.Pod](cc.Informers),
		nodes:        controller.InformerFor[corev1.Node](cc.Informers),
		histories:    controller.InformerFor[appsv1.ControllerRevision](cc.Informers),
		queue:        workqueue.NewRateLimitingWithClock(workqueue.DefaultControllerRateLimiter[string](), clock),
		expectations: controller.NewControllerExpectations(),
	}
	c.pods.AddIndexers(cache.Indexers[corev1.Pod]{indexByControllerUID: func(p *corev1.Pod) []string {
		if ref := metav1.GetControllerOf(&p.ObjectMeta); ref != nil && ref.Kind == "DaemonSet" {
			return []string{string(ref.UID)}
		}
		return nil
	}})
	enqueue := func(ds *appsv1.DaemonSet) { c.queue.Add(cache.MetaNamespaceKeyFunc(ds)) }
	c.dsets.AddEventHandler(cache.ResourceEventHandlerFuncs[appsv1.DaemonSet]{
		AddFunc: enqueue, UpdateFunc: func(_, ds *appsv1.DaemonSet) { enqueue(ds) },
		DeleteFunc: func(ds *appsv1.DaemonSet) { c.expectations.DeleteExpectations(cache.MetaNamespaceKeyFunc(ds)) }})
	c.pods.AddEventHandler(cache.ResourceEventHandlerFuncs[corev1.Pod]{
		AddFunc: func(p *corev1.Pod) {
			if key := dsKeyOf(p); key != "" {
				c.expectations.CreationObserved(key)
				c.queue.Add(key)
			}
		},
		UpdateFunc: func(old, p *corev1.Pod) {
			if key := dsKeyOf(p); key != "" {
				if old.DeletionTimestamp == nil && p.DeletionTimestamp != nil {
					c.expectations.DeletionObserved(key)
				}
				c.queue.Add(key)
			}
		},
		DeleteFunc: func(p *corev1.Pod) {
			if key := dsKeyOf(p); key != "" {
				if p.DeletionTimestamp == nil {
					c.expectations.DeletionObserved(key)
				}
				c.queue.Add(key)
			}
		},
	})
	cache.AddNamespaceIndex(c.histories)
	c.histories.AddEventHandler(cache.ResourceEventHandlerFuncs[appsv1.ControllerRevision]{
		AddFunc: c.enqueueForHistory,
		UpdateFunc: func(old, cur *appsv1.ControllerRevision) {
			if ref := metav1.GetControllerOf(&old.ObjectMeta); ref != nil && ref.Kind == "DaemonSet" {
				c.queue.Add(old.Namespace + "/" + ref.Name)
			}
			c.enqueueForHistory(cur)
		},
		DeleteFunc: func(h *appsv1.ControllerRevision) {
			if ref := metav1.GetControllerOf(&h.ObjectMeta); ref != nil && ref.Kind == "DaemonSet" {
				c.queue.Add(h.Namespace + "/" + ref.Name)
			}
		},
	})
	c.nodes.AddEventHandler(cache.ResourceEventHandlerFuncs[corev1.Node]{
		AddFunc: func(*corev1.Node) { c.enqueueAll() },
		UpdateFunc: func(old, n *corev1.Node) {
			if shouldIgnoreNodeUpdate(old, n) {
				return
			}
			c.enqueueAll()
		},
		DeleteFunc: func(*corev1.Node) { c.enqueueAll() },
	})
	return c
}

func (c *DaemonSetsController) enqueueAll() {
	for _, ds := range c.dsets.GetStore().List() {
		c.queue.Add(cache.MetaNamespaceKeyFunc(ds))
	}
}

// enqueueForHistory queues a revision's DaemonSet, or, for an orphan, every
// DaemonSet of its namespace that could adopt it. Upstream: addHistory,
// updateHistory, getDaemonSetsForHistory.
func (c *DaemonSetsController) enqueueForHistory(h *appsv1.ControllerRevision) {
	if ref := metav1.GetControllerOf(&h.ObjectMeta); ref != nil {
		if ref.Kind == "DaemonSet" {
			c.queue.Add(h.Namespace + "/" + ref.Name)
		}
		return
	}
	for _, ds := range c.dsets.GetStore().List() {
		if ds.Namespace != h.Namespace {
			continue
		}
		if sel, err := selection.FromLabelSelector(ds.Spec.Selector); err == nil && !sel.Empty() && sel.Matches(h.Labels) {
			c.queue.Add(cache.MetaNamespaceKeyFunc(ds))
		}
	}
}

// shouldIgnoreNodeUpdate: only labels, taints, unschedulable and conditions
// can change where daemon pods should run (heartbeats cannot).
func shouldIgnoreNodeUpdate(old, n *corev1.Node) bool {
	if !maps.Equal(old.Labels, n.Labels) || old.Spec.Unschedulable != n.Spec.Unschedulable ||
		!slices.EqualFunc(old.Spec.Taints, n.Spec.Taints, func(a, b corev1.Taint) bool { return a.Key == b.Key && a.Value == b.Value && a.Effect == b.Effect }) {
		return false
	}
	status := func(n *corev1.Node) map[corev1.NodeConditionType]corev1.ConditionStatus {
		m := map[corev1.NodeConditionType]corev1.ConditionStatus{}
		for _, c := range n.Status.Conditions {
			m[c.Type] = c.Status
		}
		return m
	}
	return maps.Equal(status(old), status(n))
}

func dsKeyOf(p *corev1.Pod) string {
	if ref := metav1.GetControllerOf(&p.ObjectMeta); ref != nil && ref.Kind == "DaemonSet" {
		return p.Namespace + "/" + ref.Name
	}
	return ""
}

// Run waits for the caches and runs workers until ctx ends.
func (c *DaemonSetsController) Run(ctx context.Context, workers int) {
	go c.recorder.Run(ctx)
	worker.RunWorkers(ctx, c.queue, workers, func(ctx context.Context) bool {
		return worker.ProcessNextWorkItem(ctx, c.queue, c.syncDaemonSet, c.log, "daemonset")
	}, c.dsets.HasSynced, c.histories.HasSynced, c.pods.HasSynced, c.nodes.HasSynced)
}
