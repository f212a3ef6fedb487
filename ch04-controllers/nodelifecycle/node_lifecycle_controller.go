// Package nodelifecycle is the node lifecycle controller of
// kube-controller-manager: it notices nodes whose kubelet went silent and
// keeps every node's taints in step with its conditions.
//
// The loops, in plain words.
//
// Health (monitorNodeHealth, every NodeMonitorPeriod, 5 s). A kubelet proves
// it is alive by renewing its Lease in kube-node-lease (every 10 s) and by
// writing its Node's status. For each node the controller remembers when it
// last SAW either change (probeTimestamp, by its own clock: the kubelet's
// clock may be wrong). When nothing changed for NodeMonitorGracePeriod (50 s;
// NodeStartupGracePeriod, 1 min, for a node that never posted a status), it
// sets the Ready, MemoryPressure, DiskPressure and PIDPressure conditions to
// Unknown — reason NodeStatusUnknown, message "Kubelet stopped posting node
// status." — records the event NodeNotReady, and marks the node's pods not
// Ready (MarkPodsNotReady), so that Services stop sending them traffic.
//
// Taints (a work queue of node names, fed by every Node change). From the
// conditions it derives the taints the rest of the cluster acts on:
//
//   - NoSchedule (TaintNodesByCondition), read by the scheduler:
//     not-ready (Ready False), unreachable (Ready Unknown), memory-pressure,
//     disk-pressure, pid-pressure, network-unavailable, unschedulable
//     (spec.unschedulable). The apiserver gives each new Node
//     not-ready:NoSchedule; this is what removes it once the node is Ready
//     (chapter 3's stand-in package notreadytaint did only that).
//   - NoExecute (TaintBasedEvictions), read by the taint eviction
//     controller (package tainteviction): not-ready when Ready is False,
//     unreachable when Unknown, neither when True.
//
// Upstream rate-limits the NoExecute tainting per zone (--node-eviction-rate
// 0.1 per second, and stops it when a whole zone goes dark); Kubik taints at
// once.
//
// Upstream: pkg/controller/nodelifecycle/node_lifecycle_controller.go and
// pkg/controller/util/node/controller_utils.go (MarkPodsNotReady).
package nodelifecycle

import (
	"context"
	"kubik/ch04-controllers/record"
	"log/slog"
	"sync"
	"time"

	"kubik/ch01-apiserver/api/coordinationv1"
	"kubik/ch01-apiserver/api/corev1"
	"kubik/ch03-scheduler/clientgo/rest"
	"kubik/ch03-scheduler/clientgo/tools/cache"
	"kubik/ch03-scheduler/clientgo/util/workqueue"
	"kubik/ch04-controllers/controller"
)

// ControllerName is the component of its events. Upstream: "node-controller".
const ControllerName = "node-controller"

// Options are kube-controller-manager's flags for this controller.
type Options struct {
	// NodeMonitorPeriod: how often node health is checked (--node-monitor-period, 5s).
	NodeMonitorPeriod time.Duration
	// NodeMonitorGracePeriod: silence after which a node is Unknown (--node-monitor-grace-period, 50s).
	NodeMonitorGracePeriod time.Duration
	// NodeStartupGracePeriod: the same for a node that never posted a status (--node-startup-grace-period, 1m).
	NodeStartupGracePeriod time.Duration
	// Clock: time (a fake one in tests); the real one when nil.
	Clock workqueue.Clock
}

func (o *Options) defaults() {
	if o.NodeMonitorPeriod <= 0 {
		o.NodeMonitorPeriod = 5 * time.Second
	}
	if o.NodeMonitorGracePeriod <= 0 {
		o.NodeMonitorGracePeriod = 50 * time.Second
	}
	if o.NodeStartupGracePeriod <= 0 {
		o.NodeStartupGracePeriod = time.Minute
	}
	if o.Clock == nil {
		o.Clock = workqueue.RealClock{}
	}
}

// nodeHealthData is what the controller last saw of a node. Upstream: the same name.
type nodeHealthData struct {
	probeTimestamp           time.Time
	readyTransitionTimestamp time.Time
	status                   *corev1.NodeStatus
	lease                    *coordinationv1.Lease
}

const indexByNodeName = "nodelifecycle/nodeName"

// NodeLifecycleController is upstream's nodelifecycle.Controller.
type NodeLifecycleController struct {
	client   *rest.Client
	nodes    *cache.Informer[corev1.Node, *corev1.Node]
	leases   *cache.Informer[coordinationv1.Lease, *coordinationv1.Lease]
	pods     *cache.Informer[corev1.Pod, *corev1.Pod]
	recorder *record.Recorder
	opts     Options
	log      *slog.Logger
	// nodeUpdateQueue: nodes whose taints must be recomputed.
	nodeUpdateQueue *workqueue.RateLimitingQueue[string]

	mu            sync.Mutex
	nodeHealthMap map[string]*nodeHealthData
	knownNodes    map[string]bool
	nodesToRetry  map[string]bool // MarkPodsNotReady failed
}

// NewNodeLifecycleController asks for the Node, Lease and Pod informers.
// Upstream: NewNodeLifecycleController.
func NewNodeLifecycleController(cc *controller.ControllerContext, opts Options) (*NodeLifecycleController, error) {
	opts.defaults()
	log := cc.Log
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	log = log.With("controller", "node-lifecycle-controller")
	c := &NodeLifecycleController{client: cc.Client, opts: opts, log: log,
		nodes:           controller.InformerFor[corev1.Node](cc.Informers),
		leases:          controller.InformerFor[coordinationv1.Lease](cc.Informers),
		pods:            controller.InformerFor[corev1.Pod](cc.Informers),
		recorder:        record.NewRecorder(cc.Client, ControllerName, log),
		nodeUpdateQueue: workqueue.NewRateLimitingWithClock(workqueue.DefaultControllerRateLimiter[string](), opts.Clock),
		nodeHealthMap:   map[string]*nodeHealthData{}, knownNodes: map[string]bool{}, nodesToRetry: map[string]bool{},
	}
	c.pods.AddIndexers(cache.Indexers[corev1.Pod]{indexByNodeName: func(p *corev1.Pod) []string {
		if p.Spec.NodeName == "" {
			return nil
		}
		return []string{p.Spec.NodeName}
	}})
	c.nodes.AddEventHandler(cache.ResourceEventHandlerFuncs[corev1.Node]{
		AddFunc:    func(n *corev1.Node) { c.nodeUpdateQueue.Add(n.Name) },
		UpdateFunc: func(_, n *corev1.Node) { c.nodeUpdateQueue.Add(n.Name) },
		DeleteFunc: func(n *corev1.Node) {
			c.mu.Lock()
			delete(c.nodeHealthMap, n.Name)
			delete(c.knownNodes, n.Name)
			delete(c.nodesToRetry, n.Name)
			c.mu.Unlock()
			c.recorder.Eventf(nodeRef(n), corev1.EventTypeNormal, "RemovingNode", "Node %s event: Removing Node %s from Controller", n.Name, n.Name)
		},
	})
	return c, nil
}

// nodeRef is a Node's event reference; upstream uses the node's name as UID.
func nodeRef(n *corev1.Node) record.ObjectRef {
	return record.ObjectRef{Kind: "Node", APIVersion: "v1", Name: n.Name, UID: n.Name}
}

// Run starts the health loop and the taint workers until ctx ends.
func (c *NodeLifecycleController) Run(ctx context.Context, workers int) {
	defer c.nodeUpdateQueue.ShutDown()
	go c.recorder.Run(ctx)
	if !cache.WaitForCacheSync(ctx, c.nodes.HasSynced, c.leases.HasSynced, c.pods.HasSynced) {
		return
	}
	c.log.Info("starting node lifecycle controller", "nodeMonitorPeriod", c.opts.NodeMonitorPeriod,
		"nodeMonitorGracePeriod", c.opts.NodeMonitorGracePeriod)
	var wg sync.WaitGroup
	for range max(workers, 1) {
		wg.Go(func() {
			for {
				name, quit := c.nodeUpdateQueue.Get()
				if quit {
					return
				}
				if err := c.syncNodeTaints(ctx, name); err != nil {
					if ctx.Err() == nil {
						c.log.Warn("cannot update node taints; retrying", "node", name, "err", err)
					}
					c.nodeUpdateQueue.AddRateLimited(name)
				} else {
					c.nodeUpdateQueue.Forget(name)
				}
				c.nodeUpdateQueue.Done(name)
			}
		})
	}
	wg.Go(func() {
		for {
			if err := c.monitorNodeHealth(ctx); err != nil && ctx.Err() == nil {
				c.log.Warn("monitoring node health", "err", err)
			}
			select {
			case <-ctx.Done():
				return
			case <-c.opts.Clock.After(c.opts.NodeMonitorPeriod):
			}
		}
	})
	<-ctx.Done()
	c.nodeUpdateQueue.ShutDown()
	wg.Wait()
}
