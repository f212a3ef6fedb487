// Package nodeipam is kube-controller-manager's node IPAM controller
// (node-ipam-controller, alias nodeipam): it gives every Node a block of
// the cluster's pod range, written to spec.podCIDR and spec.podCIDRs, from
// which the node's CNI plugin hands out pod IPs.
//
// In plain words. --cluster-cidr=10.244.0.0/16 with --node-cidr-mask-size=24
// is 256 blocks, 10.244.0.0/24 ... 10.244.255.0/24 (package cidrset keeps
// the bitmap). When the controller starts it lists the Nodes and marks the
// blocks they already have as taken, so a restarted manager never hands out
// a block twice; the blocks of --service-cluster-ip-range, where it
// overlaps, are taken too. Then for every Node added or changed without a
// podCIDR it takes the next free block, round-robin, and PATCHes the Node's
// spec:
//
//	{"spec":{"podCIDR":"10.244.1.0/24","podCIDRs":["10.244.1.0/24"]}}
//
// A deleted Node's block goes back to the pool. When no block is left the
// Node gets the event CIDRNotAvailable ("Node n1 status is now:
// CIDRNotAvailable", type Normal as upstream's) and is retried with
// back-off until one frees up. The range allocator does nothing else: it
// sets no node condition (NetworkUnavailable is the cloud route
// controller's) and no route.
//
// It runs only with --allocate-node-cidrs, upstream's default being false;
// Kubik's chapter 6 turns it on. Wire it into the manager before its flags
// are registered:
//
//	cfg.NodeIPAM = nodeipam.DefaultOptions() // 10.244.0.0/16, /24 blocks
//	cfg.NodeIPAM.AllocateNodeCIDRs = true
//	cfg.ControllerManager.Extra = append(cfg.ControllerManager.Extra, nodeipam.Descriptor(&cfg.NodeIPAM))
//	cfg.NodeIPAM.AddFlags(fs)
//	...
//	cfg.NodeIPAM.ServiceCIDR = cfg.ServiceClusterIPRange // once parsed
//
// It acts as system:kube-controller-manager, whose ClusterRole lets it
// list, watch and patch nodes and write events (upstream: the
// node-controller service account with --use-service-account-credentials).
//
// Upstream: pkg/controller/nodeipam/node_ipam_controller.go,
// pkg/controller/nodeipam/ipam/range_allocator.go and cidr_allocator.go,
// cmd/kube-controller-manager/app/core.go (newNodeIpamController).
package nodeipam

import (
	"context"
	"fmt"
	"log/slog"
	"time"

	"kubik/ch01-apiserver/api/corev1"
	"kubik/ch03-scheduler/clientgo/rest"
	"kubik/ch03-scheduler/clientgo/tools/cache"
	"kubik/ch04-controllers/controller"
	"kubik/ch04-controllers/controllermanager"
)

// ControllerName is the controller's name in --controllers (upstream
// 1.35: names.NodeIpamController; its alias "nodeipam" is in
// controllermanager.KnownControllers).
const ControllerName = "node-ipam-controller"

const (
	// apiserverStartupGracePeriod: how long the first list of Nodes is
	// retried, every nodePollInterval. Upstream: the same names.
	apiserverStartupGracePeriod = 10 * time.Minute
	nodePollInterval            = 10 * time.Second
)

// Descriptor is the controller's entry for the manager's Config.Extra. It
// reads o when the manager builds the controller, after the flags are
// parsed.
func Descriptor(o *Options) controllermanager.Descriptor {
	return controllermanager.Descriptor{Name: ControllerName, Aliases: []string{"nodeipam"},
		New: func(cc *controller.ControllerContext, _ *controllermanager.Config) (controllermanager.Controller, error) {
			return NewNodeIpamController(cc, o)
		}}
}

// Controller is the node IPAM controller. Upstream: nodeipam.Controller.
type Controller struct {
	nodes         *cache.Informer[corev1.Node, *corev1.Node]
	cidrAllocator *rangeAllocator // nil: --allocate-node-cidrs is off
	log           *slog.Logger
}

// NewNodeIpamController checks the flags, lists the Nodes to learn which
// blocks are taken, and registers the allocator's handlers. A bad flag or a
// Node whose podCIDRs do not fit the cluster CIDR is an error: the manager
// stops, as upstream's exits (a block could otherwise be handed out twice).
func NewNodeIpamController(cc *controller.ControllerContext, o *Options) (*Controller, error) {
	log := o.Logger
	if log == nil {
		log = cc.Log
	}
	if log == nil {
		log = slog.Default()
	}
	log = log.With("controller", ControllerName)
	if err := o.Validate(); err != nil {
		return nil, err
	}
	if !o.AllocateNodeCIDRs {
		log.Info("Warning: skipping controller", "controller", ControllerName, "reason", "--allocate-node-cidrs is false")
		return &Controller{log: log}, nil
	}
	cfg, err := o.validate(log)
	if err != nil {
		return nil, err
	}
	nodeList, err := listNodes(cc.Client, log)
	if err != nil {
		return nil, err
	}
	c := &Controller{nodes: controller.InformerFor[corev1.Node](cc.Informers), log: log}
	if c.cidrAllocator, err = newCIDRRangeAllocator(cc.Client, c.nodes, cfg, nodeList, log); err != nil {
		return nil, err
	}
	return c, nil
}

// listNodes lists every Node, retrying while the apiserver does not answer.
func listNodes(client *rest.Client, log *slog.Logger) ([]corev1.Node, error) {
	ctx, cancel := context.WithTimeout(context.Background(), apiserverStartupGracePeriod)
	defer cancel()
	for {
		list, err := rest.List[corev1.Node](ctx, client, "", rest.ListOptions{})
		if err == nil {
			return list.Items, nil
		}
		log.Error("Failed to list all nodes", "err", err)
		select {
		case <-ctx.Done():
			return nil, fmt.Errorf("failed to list all nodes in %v, cannot proceed without updating CIDR map", apiserverStartupGracePeriod)
		case <-time.After(nodePollInterval):
		}
	}
}

// Run waits for the Node cache and runs the allocator until ctx ends. The
// allocator has its own number of workers (upstream: 30, no flag).
func (c *Controller) Run(ctx context.Context, _ int) {
	if c.cidrAllocator == nil {
		return
	}
	c.log.Info("Starting ipam controller")
	defer c.log.Info("Shutting down ipam controller")
	if !cache.WaitForCacheSync(ctx, c.nodes.HasSynced) {
		return
	}
	c.cidrAllocator.Run(ctx)
}
