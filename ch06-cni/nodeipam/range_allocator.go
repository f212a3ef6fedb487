package nodeipam

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"net"
	"slices"
	"sync"

	"kubik/ch01-apiserver/api/corev1"
	"kubik/ch03-scheduler/clientgo/rest"
	"kubik/ch03-scheduler/clientgo/tools/cache"
	"kubik/ch03-scheduler/clientgo/util/workqueue"
	"kubik/ch04-controllers/record"
	"kubik/ch04-controllers/worker"
	"kubik/ch06-cni/nodeipam/cidrset"
)

const (
	// cidrUpdateWorkers: the allocator's workers. Upstream: the same name.
	cidrUpdateWorkers = 30
	// cidrUpdateRetries: how often one sync tries the PATCH before giving up.
	cidrUpdateRetries = 3
	// eventSource is the component of the allocator's events. Upstream:
	// the range allocator's recorder, EventSource{Component: "cidrAllocator"}.
	eventSource = "cidrAllocator"
)

// rangeAllocator hands out blocks of the cluster CIDRs (one set per
// family) to Nodes. Upstream: ipam.rangeAllocator.
type rangeAllocator struct {
	client *rest.Client
	// clusterCIDRs and cidrSets go by index: cidrSets[i] cuts clusterCIDRs[i].
	clusterCIDRs []*net.IPNet
	cidrSets     []*cidrset.CidrSet
	nodes        *cache.Informer[corev1.Node, *corev1.Node]
	// nodeLister reads a Node from the informer's cache.
	nodeLister func(name string) (*corev1.Node, bool)
	recorder   *record.Recorder
	// queue holds the names of Nodes to look at.
	queue *worker.Queue
	log   *slog.Logger

	// written are the podCIDRs this allocator PATCHed into Nodes whose
	// cached copy does not show them yet. A Node changed by someone else
	// just before (a kubelet's first status, the node lifecycle
	// controller's taint) comes back to a worker still without podCIDRs.
	// Upstream's allocator then takes a second block and PATCHes again;
	// its apiserver refuses (podCIDR may only change from ""), the Node
	// gets a CIDRAssignmentFailed event and the block goes back. Kubik's
	// apiserver does not check, and the second PATCH would merge a second
	// block into podCIDRs, so the allocator does not try.
	mu      sync.Mutex
	written map[string]writtenCIDRs
}

// writtenCIDRs are the podCIDRs written to the Node of that uid.
type writtenCIDRs struct {
	uid   string
	cidrs []string
}

// newCIDRRangeAllocator builds the sets, takes the Service ranges and the
// blocks nodeList already holds, and registers the Node handlers.
// Upstream: NewCIDRRangeAllocator.
func newCIDRRangeAllocator(client *rest.Client, nodes *cache.Informer[corev1.Node, *corev1.Node], cfg *config, nodeList []corev1.Node, log *slog.Logger) (*rangeAllocator, error) {
	r := &rangeAllocator{client: client, clusterCIDRs: cfg.clusterCIDRs, nodes: nodes,
		nodeLister: func(name string) (*corev1.Node, bool) { return nodes.GetStore().Get("", name) },
		recorder:   record.NewRecorder(client, eventSource, log),
		queue:      workqueue.NewRateLimiting(workqueue.DefaultControllerRateLimiter[string]()),
		log:        log, written: map[string]writtenCIDRs{}}
	var err error
	if r.cidrSets, err = newCIDRSets(cfg); err != nil {
		return nil, err
	}
	for _, service := range []*net.IPNet{cfg.serviceCIDR, cfg.secondaryServiceCIDR} {
		if service != nil {
			r.filterOutServiceRange(service)
		}
	}
	// The blocks Nodes already have: a restarted manager learns them before
	// it hands out any.
	for i := range nodeList {
		node := &nodeList[i]
		if len(node.Spec.PodCIDRs) == 0 {
			continue
		}
		if err := r.occupyCIDRs(node); err != nil {
			// Garbage in podCIDRs, or a block outside the cluster CIDR
			// (the flag changed): retrying will not help.
			return nil, err
		}
	}
	nodes.AddEventHandler(cache.ResourceEventHandlerFuncs[corev1.Node]{
		AddFunc:    func(n *corev1.Node) { r.queue.Add(n.Name) },
		UpdateFunc: func(_, n *corev1.Node) { r.queue.Add(n.Name) },
		DeleteFunc: func(n *corev1.Node) {
			// Nodes have no finalizer: the last state is only seen here.
			if err := r.ReleaseCIDR(n); err != nil {
				r.log.Error("error while processing CIDR Release", "node", n.Name, "err", err)
			}
			r.forgetWritten(n.Name)
			r.queue.Add(n.Name)
		},
	})
	return r, nil
}

// newCIDRSets makes one set per cluster CIDR.
func newCIDRSets(cfg *config) ([]*cidrset.CidrSet, error) {
	var sets []*cidrset.CidrSet
	for i, cidr := range cfg.clusterCIDRs {
		set, err := cidrset.NewCIDRSet(cidr, cfg.nodeCIDRMaskSizes[i])
		if err != nil {
			return nil, err
		}
		sets = append(sets, set)
	}
	return sets, nil
}

// Run writes events and runs the workers until ctx ends.
func (r *rangeAllocator) Run(ctx context.Context) {
	go r.recorder.Run(ctx)
	r.log.Info("Starting range CIDR allocator")
	defer r.log.Info("Shutting down range CIDR allocator")
	worker.RunWorkers(ctx, r.queue, cidrUpdateWorkers, func(ctx context.Context) bool {
		return worker.ProcessNextWorkItem(ctx, r.queue, worker.SyncErr(r.syncNode), r.log, "node")
	}, r.nodes.HasSynced)
}

// syncNode looks at one Node: a block for it if it has none, its blocks
// marked taken if it has.
func (r *rangeAllocator) syncNode(ctx context.Context, name string) error {
	node, ok := r.nodeLister(name)
	if !ok {
		return nil // deleted: DeleteFunc released its blocks
	}
	if node.DeletionTimestamp != nil {
		return r.ReleaseCIDR(node)
	}
	return r.AllocateOrOccupyCIDR(ctx, node)
}

// occupyCIDRs marks node's podCIDRs taken, podCIDRs[i] in cidrSets[i].
func (r *rangeAllocator) occupyCIDRs(node *corev1.Node) error {
	for i, cidr := range node.Spec.PodCIDRs {
		_, podCIDR, err := net.ParseCIDR(cidr)
		if err != nil {
			return fmt.Errorf("failed to parse node %s, CIDR %s", node.Name, node.Spec.PodCIDR)
		}
		if i >= len(r.cidrSets) {
			// A dual-stack cluster made single-stack: no set to mark it in.
			return fmt.Errorf("node:%s has an allocated cidr: %v at index:%v that does not exist in cluster cidrs configuration", node.Name, cidr, i)
		}
		if err := r.cidrSets[i].Occupy(podCIDR); err != nil {
			return fmt.Errorf("failed to mark cidr[%v] at idx [%v] as occupied for node: %v: %v", podCIDR, i, node.Name, err)
		}
	}
	return nil
}

// AllocateOrOccupyCIDR gives a Node without podCIDRs one block of each
// cluster CIDR, or marks the blocks of a Node that has them.
func (r *rangeAllocator) AllocateOrOccupyCIDR(ctx context.Context, node *corev1.Node) error {
	if len(node.Spec.PodCIDRs) > 0 {
		r.forgetWritten(node.Name)
		return r.occupyCIDRs(node)
	}
	if cidrs := r.getWritten(node); cidrs != nil {
		r.log.Debug("Node already has allocated CIDR, not in the cache yet", "node", node.Name, "podCIDRs", cidrs)
		return nil // its update is on the way and queues it again
	}
	allocated := make([]*net.IPNet, len(r.cidrSets))
	for i, set := range r.cidrSets {
		podCIDR, err := set.AllocateNext()
		if err != nil {
			r.release(allocated[:i])
			r.recordNodeStatusChange(node, "CIDRNotAvailable")
			return fmt.Errorf("failed to allocate cidr from cluster cidr at idx:%v: %v", i, err)
		}
		allocated[i] = podCIDR
	}
	return r.updateCIDRsAllocation(ctx, node.Name, allocated)
}

// ReleaseCIDR frees a Node's blocks.
func (r *rangeAllocator) ReleaseCIDR(node *corev1.Node) error {
	for i, cidr := range node.Spec.PodCIDRs {
		_, podCIDR, err := net.ParseCIDR(cidr)
		if err != nil {
			return fmt.Errorf("failed to parse CIDR %s on Node %v: %v", cidr, node.Name, err)
		}
		if i >= len(r.cidrSets) {
			return fmt.Errorf("node:%s has an allocated cidr: %v at index:%v that does not exist in cluster cidrs configuration", node.Name, cidr, i)
		}
		r.log.Debug("Release CIDR for node", "CIDR", cidr, "node", node.Name)
		if err := r.cidrSets[i].Release(podCIDR); err != nil {
			return fmt.Errorf("error when releasing CIDR %v: %v", cidr, err)
		}
	}
	return nil
}

// filterOutServiceRange marks the blocks a Service range covers in every
// cluster CIDR it overlaps.
func (r *rangeAllocator) filterOutServiceRange(serviceCIDR *net.IPNet) {
	for i, cidr := range r.clusterCIDRs {
		if !cidr.Contains(serviceCIDR.IP.Mask(cidr.Mask)) && !serviceCIDR.Contains(cidr.IP.Mask(serviceCIDR.Mask)) {
			continue
		}
		if err := r.cidrSets[i].Occupy(serviceCIDR); err != nil {
			r.log.Error("Error filtering out service cidr out cluster cidr", "CIDR", cidr, "index", i, "serviceCIDR", serviceCIDR, "err", err)
		}
	}
}

// updateCIDRsAllocation writes the blocks reserved for a Node into its
// spec, unless the Node meanwhile got podCIDRs (then they go back).
func (r *rangeAllocator) updateCIDRsAllocation(ctx context.Context, nodeName string, allocated []*net.IPNet) error {
	cidrs := make([]string, len(allocated))
	for i, c := range allocated {
		cidrs[i] = c.String()
	}
	node, ok := r.nodeLister(nodeName)
	if !ok {
		err := fmt.Errorf("node %q not found", nodeName)
		r.log.Error("Failed while getting node for updating Node.Spec.PodCIDRs", "node", nodeName, "err", err)
		return err
	}
	if slices.Equal(node.Spec.PodCIDRs, cidrs) {
		// We wrote it before and did not see the answer.
		return nil
	}
	if len(node.Spec.PodCIDRs) != 0 {
		r.log.Error("Node already has a CIDR allocated. Releasing the new one", "node", nodeName, "podCIDRs", node.Spec.PodCIDRs)
		r.release(allocated)
		return nil
	}
	var err error
	for range cidrUpdateRetries {
		if err = patchNodeCIDRs(ctx, r.client, nodeName, cidrs); err == nil {
			r.setWritten(node, cidrs)
			r.log.Info("Set node PodCIDR", "node", nodeName, "podCIDRs", cidrs)
			return nil
		}
	}
	r.log.Error("Failed to update node PodCIDR after multiple attempts", "node", nodeName, "podCIDRs", cidrs, "err", err)
	r.recordNodeStatusChange(node, "CIDRAssignmentFailed")
	// Upstream keeps the blocks when the PATCH timed out on the server (it
	// may have gone through), but its error no longer carries the status
	// by then, so in effect it always releases them; so does Kubik.
	r.log.Error("CIDR assignment for node failed. Releasing allocated CIDR", "node", nodeName, "err", err)
	r.release(allocated)
	return err
}

// getWritten is what this allocator wrote to node and its cache does not
// show yet.
func (r *rangeAllocator) getWritten(node *corev1.Node) []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	if w, ok := r.written[node.Name]; ok && w.uid == node.UID {
		return w.cidrs
	}
	return nil
}

func (r *rangeAllocator) setWritten(node *corev1.Node, cidrs []string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.written[node.Name] = writtenCIDRs{uid: node.UID, cidrs: cidrs}
}

func (r *rangeAllocator) forgetWritten(name string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	delete(r.written, name)
}

// release gives blocks back, allocated[i] to cidrSets[i].
func (r *rangeAllocator) release(allocated []*net.IPNet) {
	for i, cidr := range allocated {
		if err := r.cidrSets[i].Release(cidr); err != nil {
			r.log.Error("Error when releasing CIDR", "index", i, "CIDR", cidr, "err", err)
		}
	}
}

// recordNodeStatusChange is the event upstream's controller utils record
// for a node "status": a Normal event (even for these failures, as in
// 1.35) with reason newStatus on the Node. Upstream:
// pkg/controller/util/node.RecordNodeStatusChange.
func (r *rangeAllocator) recordNodeStatusChange(node *corev1.Node, newStatus string) {
	ref := record.ObjectRef{APIVersion: "v1", Kind: "Node", Name: node.Name, UID: node.UID}
	r.recorder.Eventf(ref, corev1.EventTypeNormal, newStatus, "Node %s status is now: %s", node.Name, newStatus)
}

// nodeCIDRPatch is the strategic merge patch that sets spec.podCIDR (the
// first block, for old readers) and spec.podCIDRs.
func nodeCIDRPatch(cidrs []string) []byte {
	type spec struct {
		PodCIDR  string   `json:"podCIDR"`
		PodCIDRs []string `json:"podCIDRs,omitempty"`
	}
	b, _ := json.Marshal(struct {
		Spec spec `json:"spec"`
	}{spec{PodCIDR: cidrs[0], PodCIDRs: cidrs}})
	return b
}

// patchNodeCIDRs PATCHes the Node's spec. Upstream:
// k8s.io/component-helpers/node/util.PatchNodeCIDRs.
func patchNodeCIDRs(ctx context.Context, c *rest.Client, name string, cidrs []string) error {
	if _, err := rest.Patch[corev1.Node](ctx, c, "", name, rest.StrategicMergePatchType, nodeCIDRPatch(cidrs), ""); err != nil {
		return fmt.Errorf("failed to patch node CIDR: %v", err)
	}
	return nil
}
