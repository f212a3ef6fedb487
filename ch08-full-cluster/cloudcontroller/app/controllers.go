package app

import (
	"context"
	"fmt"
	"net/netip"
	"strings"

	"kubik/ch04-controllers/controller"
	"kubik/ch06-cni/nodeipam"
	"kubik/ch08-full-cluster/cloudcontroller/node"
	"kubik/ch08-full-cluster/cloudcontroller/nodelifecycle"
	"kubik/ch08-full-cluster/cloudcontroller/route"
	"kubik/ch08-full-cluster/cloudcontroller/service"
	"kubik/ch08-full-cluster/cloudprovider"
)

// The controllers' names in --controllers. Upstream: cloud-provider/names.
const (
	CloudNodeController          = "cloud-node-controller"
	ServiceLBController          = "service-lb-controller"
	NodeRouteController          = "node-route-controller"
	CloudNodeLifecycleController = "cloud-node-lifecycle-controller"
	NodeIpamController           = nodeipam.ControllerName
)

// ControllerAliases are the old names --controllers still accepts.
// Upstream: names.CCMControllerAliases, plus cmd/cloud-controller-manager's
// "nodeipam".
var ControllerAliases = map[string]string{
	"cloud-node":           CloudNodeController,
	"service":              ServiceLBController,
	"route":                NodeRouteController,
	"cloud-node-lifecycle": CloudNodeLifecycleController,
	"nodeipam":             NodeIpamController,
}

// Runner is a started controller's loop.
type Runner func(ctx context.Context)

// Descriptor is one controller of the manager.
type Descriptor struct {
	Name string
	// New builds the controller: it asks cc for its informers. It returns
	// nil and no error when the controller should not run (the cloud lacks
	// the part, a flag turns it off), with the reason.
	New func(cc *controller.ControllerContext, cfg *Config, cloud cloudprovider.Interface) (Runner, string, error)
}

// Descriptors are the manager's controllers, in start order.
func Descriptors() []Descriptor {
	return []Descriptor{
		{Name: CloudNodeController, New: startCloudNodeController},
		{Name: CloudNodeLifecycleController, New: startCloudNodeLifecycleController},
		{Name: ServiceLBController, New: startServiceController},
		{Name: NodeRouteController, New: startRouteController},
		{Name: NodeIpamController, New: startNodeIpamController},
	}
}

// canonicalName resolves an alias; ok is false for an unknown name.
func canonicalName(name string) (string, bool) {
	if c, ok := ControllerAliases[name]; ok {
		return c, true
	}
	for _, d := range Descriptors() {
		if d.Name == name {
			return name, true
		}
	}
	return "", false
}

func aliasesOf(name string) []string {
	var out []string
	for alias, c := range ControllerAliases {
		if c == name {
			out = append(out, alias)
		}
	}
	return out
}

func startCloudNodeController(cc *controller.ControllerContext, cfg *Config, cloud cloudprovider.Interface) (Runner, string, error) {
	c, err := node.NewCloudNodeController(cc, cloud, cfg.NodeStatusUpdateFrequency, cfg.ConcurrentNodeSyncs)
	if err != nil {
		return nil, fmt.Sprintf("failed to start cloud node controller: %s", err), nil
	}
	return c.Run, "", nil
}

func startCloudNodeLifecycleController(cc *controller.ControllerContext, cfg *Config, cloud cloudprovider.Interface) (Runner, string, error) {
	c, err := nodelifecycle.NewCloudNodeLifecycleController(cc, cloud, cfg.NodeMonitorPeriod)
	if err != nil {
		return nil, fmt.Sprintf("failed to start cloud node lifecycle controller: %s", err), nil
	}
	return c.Run, "", nil
}

func startServiceController(cc *controller.ControllerContext, cfg *Config, cloud cloudprovider.Interface) (Runner, string, error) {
	c, err := service.New(cloud, cc, cfg.ClusterName)
	if err != nil {
		// Not fatal, as upstream ("It lives like this as a legacy").
		return nil, fmt.Sprintf("Failed to start service controller: %v", err), nil
	}
	return func(ctx context.Context) { c.Run(ctx, cfg.ConcurrentServiceSyncs) }, "", nil
}

func startRouteController(cc *controller.ControllerContext, cfg *Config, cloud cloudprovider.Interface) (Runner, string, error) {
	if !cfg.ConfigureCloudRoutes {
		return nil, fmt.Sprintf("Will not configure cloud provider routes, --configure-cloud-routes: %v", cfg.ConfigureCloudRoutes), nil
	}
	routes, ok := cloud.Routes()
	if !ok {
		return nil, "--configure-cloud-routes is set, but cloud provider does not support routes. Will not configure cloud provider routes.", nil
	}
	clusterCIDRs, err := processCIDRs(cfg.ClusterCIDR)
	if err != nil {
		return nil, "", err
	}
	c, err := route.New(routes, cc, cfg.ClusterName, clusterCIDRs)
	if err != nil {
		return nil, "", err
	}
	return func(ctx context.Context) { c.Run(ctx, cfg.RouteReconciliationPeriod) }, "", nil
}

func startNodeIpamController(cc *controller.ControllerContext, cfg *Config, _ cloudprovider.Interface) (Runner, string, error) {
	if !cfg.AllocateNodeCIDRs {
		return nil, "--allocate-node-cidrs is false", nil
	}
	c, err := nodeipam.NewNodeIpamController(cc, cfg.nodeIPAMOptions())
	if err != nil {
		return nil, "", err
	}
	return func(ctx context.Context) { c.Run(ctx, 1) }, "", nil
}

// processCIDRs parses --cluster-cidr: one range, or two of different
// families, with upstream's messages.
func processCIDRs(list string) ([]netip.Prefix, error) {
	var cidrs []netip.Prefix
	for _, s := range strings.Split(strings.TrimSpace(list), ",") {
		p, err := netip.ParsePrefix(strings.TrimSpace(s))
		if err != nil {
			return nil, fmt.Errorf("failed to parse cidr value:%q with error:%v", s, err)
		}
		cidrs = append(cidrs, p.Masked())
	}
	if len(cidrs) > 2 {
		return nil, fmt.Errorf("length of clusterCIDRs is:%v more than max allowed of 2", len(cidrs))
	}
	if len(cidrs) == 2 && cidrs[0].Addr().Is4() == cidrs[1].Addr().Is4() {
		return nil, fmt.Errorf("len of ClusterCIDRs==%v and they are not configured as dual stack (at least one from each IPFamily", len(cidrs))
	}
	return cidrs, nil
}
