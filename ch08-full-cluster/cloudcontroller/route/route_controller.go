// Package route is the cloud-controller-manager's route controller
// (node-route-controller, alias "route"; events from "route_controller"):
// it makes the cloud's network deliver each node's pod range to that node,
// the way a VPC route table on a cloud sends 10.244.1.0/24 to the machine
// node-1 — so that pods reach each other across nodes without an overlay
// and without routes on the nodes themselves.
//
// In plain words. Every --route-reconciliation-period (10 s) the
// controller lists the cloud's routes and the Nodes, and compares:
//
//   - a Node with spec.podCIDRs and no route for one of them: CreateRoute
//     (destination the pod range, target the Node and its addresses);
//   - a route whose node changed addresses: deleted and created again;
//   - a route inside --cluster-cidr whose Node or pod range is gone, or a
//     blackhole route: DeleteRoute. Routes outside --cluster-cidr are
//     someone else's and stay.
//
// Then it reports on every Node with a pod range the condition
// NetworkUnavailable: False (reason RouteCreated, "RouteController created
// a route") once all its routes exist, True (NoRouteCreated,
// "RouteController failed to create a route") otherwise — and the node
// lifecycle controller taints a node whose network is unavailable
// (node.kubernetes.io/network-unavailable:NoSchedule). A failed creation
// is also the Warning event FailedToCreateRoute on the Node.
//
// Upstream: k8s.io/cloud-provider/controllers/route (route_controller.go),
// with the periodic reconciliation of 1.35's default (the watch-based one
// is the alpha gate CloudControllerManagerWatchBasedRoutesReconciliation).
package route

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/netip"
	"slices"
	"sync"
	"time"

	"kubik/ch01-apiserver/api/corev1"
	"kubik/ch01-apiserver/api/metav1"
	"kubik/ch03-scheduler/clientgo/rest"
	"kubik/ch03-scheduler/clientgo/tools/cache"
	"kubik/ch04-controllers/controller"
	"kubik/ch04-controllers/record"
	"kubik/ch08-full-cluster/cloudprovider"
)

// ControllerName is the source of the controller's events;
// NodeRouteControllerName its name in --controllers and the logs.
const (
	ControllerName          = "route_controller"
	NodeRouteControllerName = "node-route-controller"
)

// maxConcurrentRouteOperations caps the cloud calls in flight.
const maxConcurrentRouteOperations = 200

// RouteController keeps the cloud's routes in step with the Nodes' pod
// ranges. Upstream: route.RouteController.
type RouteController struct {
	routes       cloudprovider.Routes
	client       *rest.Client
	clusterName  string
	clusterCIDRs []netip.Prefix
	nodes        *cache.Informer[corev1.Node, *corev1.Node]
	recorder     *record.Recorder
	log          *slog.Logger
}

// New builds the controller for the cluster ranges clusterCIDRs.
func New(routes cloudprovider.Routes, cc *controller.ControllerContext, clusterName string, clusterCIDRs []netip.Prefix) (*RouteController, error) {
	if len(clusterCIDRs) == 0 {
		return nil, errors.New("RouteController: Must specify clusterCIDR.")
	}
	log := cc.Log
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	log = log.With("controller", NodeRouteControllerName)
	return &RouteController{routes: routes, client: cc.Client, clusterName: clusterName, clusterCIDRs: clusterCIDRs, log: log,
		nodes:    controller.InformerFor[corev1.Node](cc.Informers),
		recorder: record.NewRecorder(cc.Client, ControllerName, log)}, nil
}

// Run reconciles every syncPeriod until ctx ends.
func (rc *RouteController) Run(ctx context.Context, syncPeriod time.Duration) {
	go rc.recorder.Run(ctx)
	rc.log.Info("Starting route controller")
	defer rc.log.Info("Shutting down route controller")
	if !cache.WaitForCacheSync(ctx, rc.nodes.HasSynced) {
		return
	}
	next := time.Now()
	for {
		if err := rc.reconcileNodeRoutes(ctx); err != nil && ctx.Err() == nil {
			rc.log.Error("Couldn't reconcile node routes", "err", err)
		}
		// Non-sliding: the period counts from the start of the last run.
		next = next.Add(syncPeriod)
		select {
		case <-ctx.Done():
			return
		case <-time.After(time.Until(next)):
		}
	}
}

func (rc *RouteController) reconcileNodeRoutes(ctx context.Context) error {
	routeList, err := rc.routes.ListRoutes(ctx, rc.clusterName)
	if err != nil {
		return fmt.Errorf("error listing routes: %v", err)
	}
	return rc.reconcile(ctx, rc.nodes.GetStore().List(), routeList)
}

type routeAction string

const (
	keep   routeAction = "keep"
	add    routeAction = "add"
	remove routeAction = "remove"
	update routeAction = "update"
)

// routeNode is what reconcile knows of one target node: its current
// routes and, per pod range, what to do.
type routeNode struct {
	routes  []*cloudprovider.Route
	actions map[string]routeAction // nil: no Node with a pod range
}

func (rc *RouteController) reconcile(ctx context.Context, nodes []*corev1.Node, routes []*cloudprovider.Route) error {
	var mu sync.Mutex
	routeMap := map[string]*routeNode{}
	get := func(name string) *routeNode {
		rn := routeMap[name]
		if rn == nil {
			rn = &routeNode{}
			routeMap[name] = rn
		}
		return rn
	}
	for _, r := range routes {
		if r.TargetNode != "" {
			get(r.TargetNode).routes = append(get(r.TargetNode).routes, r)
		}
	}
	// What each Node's pod ranges need.
	for _, node := range nodes {
		if len(node.Spec.PodCIDRs) == 0 {
			continue // no pod range allocated yet
		}
		rn := get(node.Name)
		rn.actions = map[string]routeAction{}
		for _, podCIDR := range node.Spec.PodCIDRs {
			action := getRouteAction(rn.routes, podCIDR, node.Status.Addresses, rc.log)
			rn.actions[podCIDR] = action
			rc.log.Info("action for Node with CIDR", "node", node.Name, "cidr", podCIDR, "action", action)
		}
	}
	shouldDeleteRoute := func(nodeName, cidr string) bool {
		rn := routeMap[nodeName]
		if rn == nil || rn.actions == nil {
			return true
		}
		action, exist := rn.actions[cidr]
		return !exist || action == remove || action == update
	}

	var wg sync.WaitGroup
	limit := make(chan struct{}, maxConcurrentRouteOperations)
	// Delete what no Node wants (or must be replaced).
	for _, route := range routes {
		if !rc.isResponsibleForRoute(route) {
			continue
		}
		if route.Blackhole || shouldDeleteRoute(route.TargetNode, route.DestinationCIDR) {
			wg.Go(func() {
				limit <- struct{}{}
				defer func() { <-limit }()
				start := time.Now()
				rc.log.Info("Deleting route", "route", route.Name, "cidr", route.DestinationCIDR)
				if err := rc.routes.DeleteRoute(ctx, rc.clusterName, route); err != nil {
					rc.log.Error("Could not delete route", "route", route.Name, "cidr", route.DestinationCIDR, "after", time.Since(start), "err", err)
				} else {
					rc.log.Info("Deleted route", "route", route.Name, "cidr", route.DestinationCIDR, "after", time.Since(start))
				}
			})
		}
	}
	// With node addresses tracked, an update deletes and creates the same
	// route: the deletions must be done first.
	if len(routes) != 0 && routes[0].EnableNodeAddresses {
		wg.Wait()
	}

	// Create what is missing.
	for _, node := range nodes {
		for _, podCIDR := range node.Spec.PodCIDRs {
			mu.Lock()
			action := routeMap[node.Name].actions[podCIDR]
			mu.Unlock()
			if action == keep || action == remove {
				continue
			}
			route := &cloudprovider.Route{TargetNode: node.Name, TargetNodeAddresses: node.Status.Addresses, DestinationCIDR: podCIDR}
			nameHint := node.UID
			wg.Go(func() {
				limit <- struct{}{}
				start := time.Now()
				err := rc.routes.CreateRoute(ctx, rc.clusterName, nameHint, route)
				<-limit
				if err != nil {
					msg := fmt.Sprintf("Could not create route %s %s for node %s after %v: %v", nameHint, route.DestinationCIDR, node.Name, time.Since(start), err)
					rc.recorder.Eventf(record.ObjectRef{APIVersion: "v1", Kind: "Node", Name: node.Name, UID: node.UID},
						corev1.EventTypeWarning, "FailedToCreateRoute", "%s", msg)
					rc.log.Error("Could not create route", "node", node.Name, "cidr", route.DestinationCIDR, "err", err)
					return
				}
				mu.Lock()
				routeMap[node.Name].actions[podCIDR] = keep
				mu.Unlock()
				rc.log.Info("Created route for node", "node", node.Name, "cidr", route.DestinationCIDR, "hint", nameHint, "after", time.Since(start))
			})
		}
	}
	wg.Wait()

	// Report the outcome on every Node with a pod range.
	for _, node := range nodes {
		rn := routeMap[node.Name]
		if rn == nil || rn.actions == nil {
			continue
		}
		allRoutesCreated := len(rn.actions) > 0
		for _, action := range rn.actions {
			if action == add || action == update {
				allRoutesCreated = false
			}
		}
		wg.Go(func() {
			if err := rc.updateNetworkingCondition(ctx, node, allRoutesCreated); err != nil {
				rc.log.Error("failed to update networking condition", "node", node.Name, "err", err)
			}
		})
	}
	wg.Wait()
	return nil
}

// updateNetworkingCondition sets NetworkUnavailable on the Node unless it
// already says so.
func (rc *RouteController) updateNetworkingCondition(ctx context.Context, node *corev1.Node, routesCreated bool) error {
	var current *corev1.NodeCondition
	for i := range node.Status.Conditions {
		if node.Status.Conditions[i].Type == corev1.NodeNetworkUnavailable {
			current = &node.Status.Conditions[i]
		}
	}
	if routesCreated && current != nil && current.Status == corev1.ConditionFalse {
		return nil
	}
	if !routesCreated && current != nil && current.Status == corev1.ConditionTrue {
		return nil
	}
	rc.log.Info("Patching node status", "node", node.Name, "routesCreated", routesCreated)
	now := metav1.Now()
	cond := corev1.NodeCondition{Type: corev1.NodeNetworkUnavailable, Status: corev1.ConditionTrue,
		Reason: "NoRouteCreated", Message: "RouteController failed to create a route", LastTransitionTime: now, LastHeartbeatTime: now}
	if routesCreated {
		cond.Status, cond.Reason, cond.Message = corev1.ConditionFalse, "RouteCreated", "RouteController created a route"
	}
	return SetNodeCondition(ctx, rc.client, node.Name, cond)
}

// SetNodeCondition patches one condition into the Node's status (the
// conditions merge by type). Upstream: component-helpers' SetNodeCondition.
func SetNodeCondition(ctx context.Context, client *rest.Client, node string, condition corev1.NodeCondition) error {
	patch, err := json.Marshal(map[string]any{"status": map[string]any{"conditions": []corev1.NodeCondition{condition}}})
	if err != nil {
		return err
	}
	_, err = rest.Patch[corev1.Node](ctx, client, "", node, rest.StrategicMergePatchType, patch, "status")
	return err
}

// isResponsibleForRoute: the route's destination lies in a cluster range.
func (rc *RouteController) isResponsibleForRoute(route *cloudprovider.Route) bool {
	cidr, err := netip.ParsePrefix(route.DestinationCIDR)
	if err != nil {
		rc.log.Error("Ignoring route, unparsable CIDR", "route", route.Name, "err", err)
		return false
	}
	cidr = cidr.Masked()
	last := lastAddr(cidr)
	return slices.ContainsFunc(rc.clusterCIDRs, func(c netip.Prefix) bool { return c.Contains(cidr.Addr()) || c.Contains(last) })
}

func lastAddr(p netip.Prefix) netip.Addr {
	b := p.Addr().AsSlice()
	for i := range b {
		hostBits := max(0, min(8, (i+1)*8-p.Bits()))
		b[i] |= byte(1<<hostBits - 1)
	}
	a, _ := netip.AddrFromSlice(b)
	return a
}

// getRouteAction: keep a route to cidr that exists (with the node's
// current addresses, when the provider tracks them), update one whose
// addresses changed, add one that is missing.
func getRouteAction(routes []*cloudprovider.Route, cidr string, addrs []corev1.NodeAddress, log *slog.Logger) routeAction {
	for _, r := range routes {
		if r.DestinationCIDR == cidr {
			if !r.EnableNodeAddresses || equalNodeAddrs(addrs, r.TargetNodeAddresses) {
				return keep
			}
			log.Info("Node addresses have changed", "from", r.TargetNodeAddresses, "to", addrs)
			return update
		}
	}
	return add
}

func equalNodeAddrs(a, b []corev1.NodeAddress) bool {
	return len(a) == len(b) && !slices.ContainsFunc(a, func(x corev1.NodeAddress) bool { return !slices.Contains(b, x) })
}
