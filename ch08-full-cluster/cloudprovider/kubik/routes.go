package kubik

import (
	"context"
	"fmt"
	"net/netip"
	"slices"

	"kubik/ch01-apiserver/api/corev1"
	"kubik/ch08-full-cluster/cloudprovider"
)

// The route table: cloudprovider.Routes. The balancer's namespace is also
// the node network's router: each route is "pod range via the node's
// InternalIP" in its table. A machine that sends a pod range to the
// balancer (a route such as 10.244.0.0/16 via 10.240.8.2) has its packets
// forwarded to the right node.

func (c *Cloud) ListRoutes(_ context.Context, clusterName string) ([]*cloudprovider.Route, error) {
	c.mu.Lock()
	st, err := c.records.read()
	c.mu.Unlock()
	if err != nil {
		return nil, err
	}
	var routes []*cloudprovider.Route
	for _, name := range sortedKeys(st.Routes) {
		r := st.Routes[name]
		if r.Cluster != clusterName {
			continue
		}
		routes = append(routes, &cloudprovider.Route{Name: r.Name, TargetNode: r.Node, DestinationCIDR: r.Destination,
			EnableNodeAddresses: true, TargetNodeAddresses: slices.Clone(r.Addresses)})
	}
	return routes, nil
}

// CreateRoute records the route, named <cluster>-<nameHint> (the Node's
// UID), and programs it.
func (c *Cloud) CreateRoute(_ context.Context, clusterName string, nameHint string, route *cloudprovider.Route) error {
	dst, err := netip.ParsePrefix(route.DestinationCIDR)
	if err != nil || !dst.Addr().Is4() {
		return fmt.Errorf("route to %q: the kubik cloud routes IPv4 ranges only", route.DestinationCIDR)
	}
	var nextHop netip.Addr
	for _, a := range route.TargetNodeAddresses {
		if ip, err := netip.ParseAddr(a.Address); err == nil && a.Type == corev1.NodeInternalIP && ip.Is4() {
			nextHop = ip
			break
		}
	}
	if !nextHop.IsValid() {
		return fmt.Errorf("node %s has no IPv4 InternalIP to route %s to", route.TargetNode, route.DestinationCIDR)
	}
	if !c.p.nodeCIDR.Contains(nextHop) {
		return fmt.Errorf("node %s: its InternalIP %s is not on the node network %s", route.TargetNode, nextHop, c.p.nodeCIDR)
	}
	name := clusterName + "-" + nameHint
	_, err = c.change(func(st *state) (bool, error) {
		for other, r := range st.Routes {
			if r.Destination == dst.Masked().String() && other != name {
				return false, fmt.Errorf("route %s already sends %s to node %s", other, r.Destination, r.Node)
			}
		}
		st.Routes[name] = &routeRecord{Name: name, Cluster: clusterName, Node: route.TargetNode,
			Destination: dst.Masked().String(), NextHop: nextHop.String(), Addresses: slices.Clone(route.TargetNodeAddresses)}
		c.log.Info("route created", "name", name, "destination", dst.Masked().String(), "node", route.TargetNode, "via", nextHop.String())
		return true, nil
	})
	return err
}

// DeleteRoute removes the route ListRoutes returned.
func (c *Cloud) DeleteRoute(_ context.Context, clusterName string, route *cloudprovider.Route) error {
	_, err := c.change(func(st *state) (bool, error) {
		r, ok := st.Routes[route.Name]
		if !ok || r.Cluster != clusterName {
			return false, nil
		}
		delete(st.Routes, route.Name)
		c.log.Info("route deleted", "name", route.Name, "destination", r.Destination, "node", r.Node)
		return true, nil
	})
	return err
}
