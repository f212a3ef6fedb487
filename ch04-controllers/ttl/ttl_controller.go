// Package ttl is the TTL controller of kube-controller-manager: it
// annotates every Node with node.alpha.kubernetes.io/ttl, how many seconds
// the node's kubelet may cache the Secrets and ConfigMaps its pods use
// before reading them again — the larger the cluster, the longer, so that
// the apiserver's load from kubelets stays bounded:
//
//	nodes       ttl
//	0–100       0 s
//	90–500      15 s
//	450–1000    30 s
//	900–2000    60 s
//	1800+       300 s
//
// The bands overlap, so a cluster hovering at a boundary does not flip:
// the TTL goes up only when the node count passes a band's upper end and
// down only when it falls below its lower end. The count follows the Node
// informer's adds and deletes; every node added or updated is queued, and
// a node whose annotation differs from the current TTL is patched.
//
// Upstream: pkg/controller/ttl/ttl_controller.go.
package ttl

import (
	"context"
	"encoding/json"
	"log/slog"
	"math"
	"strconv"
	"sync"
	"time"

	"kubik/ch01-apiserver/api/corev1"
	"kubik/ch03-scheduler/clientgo/rest"
	"kubik/ch03-scheduler/clientgo/tools/cache"
	"kubik/ch03-scheduler/clientgo/util/workqueue"
	"kubik/ch04-controllers/controller"
	"kubik/ch04-controllers/worker"
)

// ControllerName is upstream's name in logs.
const ControllerName = "ttl-controller"

// Workers is how many workers upstream runs (a fixed number, no flag).
const Workers = 5

type ttlBoundary struct {
	sizeMin, sizeMax, ttlSeconds int
}

var ttlBoundaries = []ttlBoundary{
	{sizeMin: 0, sizeMax: 100, ttlSeconds: 0},
	{sizeMin: 90, sizeMax: 500, ttlSeconds: 15},
	{sizeMin: 450, sizeMax: 1000, ttlSeconds: 30},
	{sizeMin: 900, sizeMax: 2000, ttlSeconds: 60},
	{sizeMin: 1800, sizeMax: math.MaxInt32, ttlSeconds: 300},
}

// Controller is upstream's ttl.Controller.
type Controller struct {
	client *rest.Client
	nodes  *cache.Informer[corev1.Node, *corev1.Node]
	queue  *workqueue.RateLimitingQueue[string]
	log    *slog.Logger

	mu                sync.RWMutex
	nodeCount         int
	desiredTTLSeconds int
	boundaryStep      int
}

// NewTTLController asks for the Node informer. Upstream: NewTTLController.
func NewTTLController(cc *controller.ControllerContext) (*Controller, error) {
	log := cc.Log
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	c := &Controller{client: cc.Client, log: log.With("controller", ControllerName),
		nodes: controller.InformerFor[corev1.Node](cc.Informers),
		queue: workqueue.NewRateLimiting(workqueue.DefaultControllerRateLimiter[string]())}
	c.nodes.AddEventHandler(cache.ResourceEventHandlerFuncs[corev1.Node]{
		AddFunc: c.addNode,
		// Every update is processed: a kubelet's status updates come every
		// few seconds, so a new TTL reaches each node soon after the cluster
		// changed size.
		UpdateFunc: func(_, n *corev1.Node) { c.queue.Add(n.Name) },
		DeleteFunc: c.deleteNode,
	})
	return c, nil
}

func (c *Controller) addNode(n *corev1.Node) {
	c.mu.Lock()
	c.nodeCount++
	if c.nodeCount > ttlBoundaries[c.boundaryStep].sizeMax {
		c.boundaryStep++
		c.desiredTTLSeconds = ttlBoundaries[c.boundaryStep].ttlSeconds
	}
	c.mu.Unlock()
	c.queue.Add(n.Name)
}

func (c *Controller) deleteNode(*corev1.Node) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.nodeCount--
	if c.nodeCount < ttlBoundaries[c.boundaryStep].sizeMin {
		c.boundaryStep--
		c.desiredTTLSeconds = ttlBoundaries[c.boundaryStep].ttlSeconds
	}
}

func (c *Controller) getDesiredTTLSeconds() int {
	c.mu.RLock()
	defer c.mu.RUnlock()
	return c.desiredTTLSeconds
}

// Run waits for the Node cache and runs Workers workers until ctx ends:
// upstream has no flag for their number, so the manager's is ignored.
func (c *Controller) Run(ctx context.Context, _ int) {
	worker.RunWorkers(ctx, c.queue, Workers, func(ctx context.Context) bool {
		return worker.ProcessNextWorkItem(ctx, c.queue, worker.SyncErr(c.updateNodeIfNeeded), c.log, "node")
	}, c.nodes.HasSynced)
}

// getIntFromAnnotation reads an integer annotation; ok is false when it
// is missing or not a number.
func (c *Controller) getIntFromAnnotation(n *corev1.Node, key string) (int, bool) {
	v, ok := n.Annotations[key]
	if !ok {
		return 0, false
	}
	i, err := strconv.Atoi(v)
	if err != nil {
		c.log.Info("Could not convert the value with annotation key for the node", "annotationValue", v, "annotationKey", key, "node", n.Name)
		return 0, false
	}
	return i, true
}

// updateNodeIfNeeded patches the node's annotation to the desired TTL.
// Upstream: updateNodeIfNeeded and patchNodeWithAnnotation.
func (c *Controller) updateNodeIfNeeded(ctx context.Context, name string) error {
	node, ok := c.nodes.GetStore().Get("", name)
	if !ok {
		return nil
	}
	desired := c.getDesiredTTLSeconds()
	if current, ok := c.getIntFromAnnotation(node, corev1.ObjectTTLAnnotationKey); ok && current == desired {
		return nil
	}
	patch, _ := json.Marshal(map[string]any{"metadata": map[string]any{"annotations": map[string]string{
		corev1.ObjectTTLAnnotationKey: strconv.Itoa(desired)}}})
	if _, err := rest.Patch[corev1.Node](ctx, c.client, "", name, rest.StrategicMergePatchType, patch, ""); err != nil {
		c.log.Info("Failed to change ttl annotation for node", "node", name, "err", err)
		return err
	}
	c.log.Info("Changed ttl annotation", "node", name, "TTL", time.Duration(desired)*time.Second)
	return nil
}
