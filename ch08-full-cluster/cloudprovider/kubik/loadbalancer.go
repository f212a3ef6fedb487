package kubik

import (
	"context"
	"fmt"
	"net/netip"
	"slices"

	"kubik/ch01-apiserver/api/corev1"
	"kubik/ch08-full-cluster/cloudprovider"
)

// The balancers: cloudprovider.LoadBalancer.

func (c *Cloud) GetLoadBalancerName(_ context.Context, _ string, service *corev1.Service) string {
	return cloudprovider.DefaultLoadBalancerName(service)
}

func (c *Cloud) GetLoadBalancer(ctx context.Context, clusterName string, service *corev1.Service) (*corev1.LoadBalancerStatus, bool, error) {
	c.mu.Lock()
	st, err := c.records.read()
	c.mu.Unlock()
	if err != nil {
		return nil, false, err
	}
	lb, ok := st.LoadBalancers[c.GetLoadBalancerName(ctx, clusterName, service)]
	if !ok {
		return nil, false, nil
	}
	return statusOf(lb), true, nil
}

// statusOf is what the Service's status shows: the address, in VIP mode
// (the nodes may take the address for the Service's own, as kube-proxy
// does for clients inside the cluster).
func statusOf(lb *loadBalancerRecord) *corev1.LoadBalancerStatus {
	vip := corev1.LoadBalancerIPModeVIP
	return &corev1.LoadBalancerStatus{Ingress: []corev1.LoadBalancerIngress{{IP: lb.IP, IPMode: &vip}}}
}

// EnsureLoadBalancer gives the Service an address of the pool — the one
// it had, or spec.loadBalancerIP if it asks for one, or the first free —
// and points each of its ports at its NodePort on nodes.
func (c *Cloud) EnsureLoadBalancer(ctx context.Context, clusterName string, service *corev1.Service, nodes []*corev1.Node) (*corev1.LoadBalancerStatus, error) {
	name := c.GetLoadBalancerName(ctx, clusterName, service)
	ports, err := balancerPorts(service)
	if err != nil {
		return nil, err
	}
	ranges, err := cloudprovider.GetLoadBalancerSourceRanges(service)
	if err != nil {
		return nil, err
	}
	var sourceRanges []string
	if !cloudprovider.IsAllowAll(ranges) {
		for _, r := range ranges {
			sourceRanges = append(sourceRanges, r.String())
		}
	}
	var result *loadBalancerRecord
	_, err = c.change(func(st *state) (bool, error) {
		ip, err := c.allocate(st, name, service)
		if err != nil {
			return false, err
		}
		lb := &loadBalancerRecord{Name: name, Cluster: clusterName, Service: service.Namespace + "/" + service.Name,
			UID: service.UID, IP: ip.String(), Ports: ports, SourceRanges: sourceRanges, Backends: backendsOf(nodes)}
		if service.Spec.ExternalTrafficPolicy == corev1.ServiceExternalTrafficPolicyLocal {
			lb.HealthCheckNodePort = service.Spec.HealthCheckNodePort
		}
		result = lb
		if old := st.LoadBalancers[name]; old != nil && equalRecords(old, lb) {
			return false, nil
		}
		st.LoadBalancers[name] = lb
		c.log.Info("load balancer ensured", "name", name, "service", lb.Service, "ip", lb.IP, "nodes", len(lb.Backends))
		return true, nil
	})
	if err != nil {
		return nil, err
	}
	return statusOf(result), nil
}

// UpdateLoadBalancer points the Service's balancer at nodes.
func (c *Cloud) UpdateLoadBalancer(ctx context.Context, clusterName string, service *corev1.Service, nodes []*corev1.Node) error {
	name := c.GetLoadBalancerName(ctx, clusterName, service)
	_, err := c.change(func(st *state) (bool, error) {
		lb, ok := st.LoadBalancers[name]
		if !ok {
			return false, fmt.Errorf("load balancer %s of service %s/%s does not exist", name, service.Namespace, service.Name)
		}
		backends := backendsOf(nodes)
		if slices.Equal(lb.Backends, backends) {
			return false, nil
		}
		lb.Backends = backends
		c.log.Info("load balancer hosts updated", "name", name, "service", lb.Service, "nodes", len(backends))
		return true, nil
	})
	return err
}

// EnsureLoadBalancerDeleted frees the address and removes the rules.
func (c *Cloud) EnsureLoadBalancerDeleted(ctx context.Context, clusterName string, service *corev1.Service) error {
	name := c.GetLoadBalancerName(ctx, clusterName, service)
	_, err := c.change(func(st *state) (bool, error) {
		lb, ok := st.LoadBalancers[name]
		if !ok {
			return false, nil
		}
		delete(st.LoadBalancers, name)
		c.log.Info("load balancer deleted", "name", name, "service", lb.Service, "ip", lb.IP)
		return true, nil
	})
	return err
}

// allocate picks the balancer's address.
func (c *Cloud) allocate(st *state, name string, service *corev1.Service) (netip.Addr, error) {
	owner := map[netip.Addr]string{}
	for n, lb := range st.LoadBalancers {
		if ip, err := netip.ParseAddr(lb.IP); err == nil && n != name {
			owner[ip] = lb.Service
		}
	}
	if want := service.Spec.LoadBalancerIP; want != "" {
		ip, err := netip.ParseAddr(want)
		if err != nil || !c.p.pool.contains(ip) {
			return netip.Addr{}, fmt.Errorf("requested load balancer IP %q is not in the pool %s", want, c.p.pool)
		}
		if o, taken := owner[ip]; taken {
			return netip.Addr{}, fmt.Errorf("requested load balancer IP %s is in use by service %s", ip, o)
		}
		return ip, nil
	}
	if lb, ok := st.LoadBalancers[name]; ok {
		if ip, err := netip.ParseAddr(lb.IP); err == nil && c.p.pool.contains(ip) {
			return ip, nil
		}
	}
	for ip := c.p.pool.first; c.p.pool.contains(ip); ip = ip.Next() {
		if _, taken := owner[ip]; !taken {
			return ip, nil
		}
	}
	return netip.Addr{}, fmt.Errorf("no free address in the load balancer pool %s", c.p.pool)
}

// balancerPorts are the Service's ports as the balancer forwards them:
// TCP and UDP, each to its NodePort.
func balancerPorts(service *corev1.Service) ([]lbPort, error) {
	if len(service.Spec.Ports) == 0 {
		return nil, fmt.Errorf("service %s/%s has no ports", service.Namespace, service.Name)
	}
	var ports []lbPort
	for _, p := range service.Spec.Ports {
		proto := p.Protocol
		if proto == "" {
			proto = corev1.ProtocolTCP
		}
		if proto != corev1.ProtocolTCP && proto != corev1.ProtocolUDP {
			return nil, fmt.Errorf("port %d: protocol %s is not supported by the kubik load balancer (TCP and UDP are)", p.Port, proto)
		}
		if p.NodePort == 0 {
			return nil, fmt.Errorf("port %d has no nodePort: the kubik load balancer forwards to node ports (spec.allocateLoadBalancerNodePorts must not be false)", p.Port)
		}
		ports = append(ports, lbPort{Name: p.Name, Protocol: proto, Port: p.Port, NodePort: p.NodePort})
	}
	return ports, nil
}

// backendsOf are the nodes' InternalIPs, in the nodes' order; a node
// without one cannot take traffic.
func backendsOf(nodes []*corev1.Node) []backend {
	var out []backend
	for _, n := range nodes {
		for _, a := range n.Status.Addresses {
			if a.Type == corev1.NodeInternalIP {
				if ip, err := netip.ParseAddr(a.Address); err == nil && ip.Is4() {
					out = append(out, backend{Node: n.Name, IP: ip.String()})
					break
				}
			}
		}
	}
	slices.SortFunc(out, func(a, b backend) int {
		switch {
		case a.Node < b.Node:
			return -1
		case a.Node > b.Node:
			return 1
		}
		return 0
	})
	return out
}

func equalRecords(a, b *loadBalancerRecord) bool {
	return a.Name == b.Name && a.Cluster == b.Cluster && a.Service == b.Service && a.UID == b.UID && a.IP == b.IP &&
		a.HealthCheckNodePort == b.HealthCheckNodePort && slices.Equal(a.Ports, b.Ports) && slices.Equal(a.SourceRanges, b.SourceRanges) && slices.Equal(a.Backends, b.Backends)
}
