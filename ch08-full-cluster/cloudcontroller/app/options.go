// Package app is the cloud-controller-manager: the controllers that need a
// cloud, split out of kube-controller-manager so that a cloud's code lives
// in its own binary. One process, one client (identity
// system:cloud-controller-manager), one informer per resource, and only
// the leader of the Lease kube-system/cloud-controller-manager runs the
// controllers:
//
//	kubectl -n kube-system get lease cloud-controller-manager
//
// The controllers (--controllers, upstream's names, and their old short
// names as aliases; "*" is all of them):
//
//	service-lb-controller (service)                  Services of type LoadBalancer ⇄ the cloud's balancers
//	node-route-controller (route)                    Nodes' pod ranges → the cloud's route table (--configure-cloud-routes)
//	cloud-node-lifecycle-controller (cloud-node-lifecycle)  Nodes whose machine is gone are deleted, shut down ones tainted
//	cloud-node-controller (cloud-node)               new Nodes get their provider ID, addresses and labels
//	node-ipam-controller (nodeipam)                  pod ranges for Nodes, only with --allocate-node-cidrs
//
// A controller whose part the cloud lacks (no Routes, say) is skipped with
// a warning, as upstream does. The cloud is --cloud-provider (Kubik's is
// "kubik", package cloudprovider/kubik) built from --cloud-config.
//
// Upstream: k8s.io/cloud-provider/app and options, and
// cmd/cloud-controller-manager (which adds the node IPAM controller).
package app

import (
	"flag"
	"fmt"
	"log/slog"
	"strings"
	"time"

	"kubik/ch06-cni/nodeipam"
)

// Config is the cloud-controller-manager's configuration, with upstream's
// flag names and defaults (AddFlags).
type Config struct {
	Kubeconfig  string // identity system:cloud-controller-manager
	LeaderElect bool
	Controllers []string
	// CloudProvider and CloudConfigFile: --cloud-provider, --cloud-config.
	CloudProvider   string
	CloudConfigFile string
	// KubeCloudShared: the flags kube-controller-manager once shared.
	ClusterName               string
	ClusterCIDR               string
	AllocateNodeCIDRs         bool
	CIDRAllocatorType         string
	ConfigureCloudRoutes      bool
	RouteReconciliationPeriod time.Duration
	NodeMonitorPeriod         time.Duration
	// NodeStatusUpdateFrequency: how often the cloud node controller
	// refreshes addresses.
	NodeStatusUpdateFrequency time.Duration
	ConcurrentServiceSyncs    int
	ConcurrentNodeSyncs       int
	// The node IPAM controller's own flags.
	ServiceCIDR          string
	NodeCIDRMaskSize     int
	NodeCIDRMaskSizeIPv4 int
	NodeCIDRMaskSizeIPv6 int
	KubeAPIQPS           float64
	KubeAPIBurst         int
	Logger               *slog.Logger
}

// AddFlags registers the flags with upstream's names, help and defaults.
func (c *Config) AddFlags(fs *flag.FlagSet) {
	fs.BoolVar(&c.LeaderElect, "leader-elect", true, "Start a leader election client and gain leadership before executing the main loop. Enable this when running replicated components for high availability.")
	fs.Func("controllers", `A list of controllers to enable. '*' enables all on-by-default controllers, 'foo' enables the controller named 'foo', '-foo' disables the controller named 'foo'.
All controllers: cloud-node-controller, cloud-node-lifecycle-controller, node-ipam-controller, node-route-controller, service-lb-controller (default "*")`,
		func(s string) error {
			c.Controllers = strings.Split(s, ",")
			return nil
		})
	fs.StringVar(&c.CloudProvider, "cloud-provider", "", "The provider for cloud services. Empty string for no provider.")
	fs.StringVar(&c.CloudConfigFile, "cloud-config", "", "The path to the cloud provider configuration file. Empty string for no configuration file.")
	fs.StringVar(&c.ClusterName, "cluster-name", "kubernetes", "The instance prefix for the cluster.")
	fs.StringVar(&c.ClusterCIDR, "cluster-cidr", "", "CIDR Range for Pods in cluster. Only used when --allocate-node-cidrs=true; if false, this option will be ignored.")
	fs.BoolVar(&c.AllocateNodeCIDRs, "allocate-node-cidrs", false, "Should CIDRs for Pods be allocated and set on the cloud provider. Requires --cluster-cidr.")
	fs.StringVar(&c.CIDRAllocatorType, "cidr-allocator-type", nodeipam.RangeAllocatorType, "Type of CIDR allocator to use")
	fs.BoolVar(&c.ConfigureCloudRoutes, "configure-cloud-routes", true, "Should CIDRs allocated by allocate-node-cidrs be configured on the cloud provider.")
	fs.DurationVar(&c.RouteReconciliationPeriod, "route-reconciliation-period", 10*time.Second, "The period for reconciling routes created for Nodes by cloud provider.")
	fs.DurationVar(&c.NodeMonitorPeriod, "node-monitor-period", 5*time.Second, "The period for syncing NodeStatus in cloud-node-lifecycle-controller.")
	fs.DurationVar(&c.NodeStatusUpdateFrequency, "node-status-update-frequency", 5*time.Minute, "Specifies how often the controller updates nodes' status.")
	fs.IntVar(&c.ConcurrentServiceSyncs, "concurrent-service-syncs", 1, "The number of services that are allowed to sync concurrently. Larger number = more responsive service management, but more CPU (and network) load")
	fs.IntVar(&c.ConcurrentNodeSyncs, "concurrent-node-syncs", 1, "Number of workers concurrently synchronizing nodes.")
	fs.StringVar(&c.ServiceCIDR, "service-cluster-ip-range", "", "CIDR Range for Services in cluster. Requires --allocate-node-cidrs to be true")
	fs.IntVar(&c.NodeCIDRMaskSize, "node-cidr-mask-size", 0, "Mask size for node cidr in cluster. Default is 24 for IPv4 and 64 for IPv6.")
	fs.IntVar(&c.NodeCIDRMaskSizeIPv4, "node-cidr-mask-size-ipv4", 0, "Mask size for IPv4 node cidr in dual-stack cluster. Default is 24.")
	fs.IntVar(&c.NodeCIDRMaskSizeIPv6, "node-cidr-mask-size-ipv6", 0, "Mask size for IPv6 node cidr in dual-stack cluster. Default is 64.")
	fs.Float64Var(&c.KubeAPIQPS, "kube-api-qps", 20, "QPS to use while talking with kubernetes apiserver.")
	fs.IntVar(&c.KubeAPIBurst, "kube-api-burst", 30, "Burst to use while talking with kubernetes apiserver.")
}

// Validate checks what upstream's options check before anything starts.
func (c *Config) Validate() error {
	if c.CloudProvider == "" {
		return fmt.Errorf("--cloud-provider cannot be empty")
	}
	for _, name := range c.Controllers {
		n := strings.TrimPrefix(name, "-")
		if n == "*" {
			continue
		}
		if _, ok := canonicalName(n); !ok {
			return fmt.Errorf("%q is not in the list of known controllers", n)
		}
	}
	if c.ConcurrentServiceSyncs < 1 {
		return fmt.Errorf("concurrent-service-syncs must be greater than 0, but got %d", c.ConcurrentServiceSyncs)
	}
	return nil
}

// nodeIPAMOptions are the node IPAM controller's options from the flags.
func (c *Config) nodeIPAMOptions() *nodeipam.Options {
	return &nodeipam.Options{AllocateNodeCIDRs: c.AllocateNodeCIDRs, ClusterCIDR: c.ClusterCIDR,
		CIDRAllocatorType: c.CIDRAllocatorType, ServiceCIDR: c.ServiceCIDR, NodeCIDRMaskSize: c.NodeCIDRMaskSize,
		NodeCIDRMaskSizeIPv4: c.NodeCIDRMaskSizeIPv4, NodeCIDRMaskSizeIPv6: c.NodeCIDRMaskSizeIPv6, Logger: c.Logger}
}
