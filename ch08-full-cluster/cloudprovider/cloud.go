// Package cloudprovider is the contract between the cloud-controller-manager
// and a cloud: the part of upstream's cloudprovider.Interface the
// controllers of package cloudcontroller call. A provider says which parts
// it has (LoadBalancer, Routes, InstancesV2); the cloud-controller-manager
// runs only the controllers whose part is there.
//
//   - LoadBalancer: the service controller gives each Service of type
//     LoadBalancer a balancer in the cloud, in front of the nodes, and writes
//     its address to status.loadBalancer.ingress.
//   - Routes: the route controller makes the cloud's network (the "VPC")
//     send each node's pod range (spec.podCIDR) to that node.
//   - InstancesV2: the node controllers ask whether a Node's machine still
//     exists or is shut down, and what its provider ID and addresses are.
//
// Providers register themselves by name (RegisterCloudProvider) and the
// binary builds the one --cloud-provider names from --cloud-config
// (InitCloudProvider). Kubik's own, for the machines of its node network,
// is package kubik; package fake is the one the controllers' tests use.
//
// Upstream: k8s.io/cloud-provider (cloud.go, plugins.go, api/, and
// service/helpers for the finalizer); left out are Instances (the v1
// interface InstancesV2 replaces), Zones, Clusters and Initialize's client
// builder.
package cloudprovider

import (
	"context"
	"errors"
	"strings"

	"kubik/ch01-apiserver/api/corev1"
)

// Interface is a cloud. Each accessor returns false when the cloud lacks
// that part.
type Interface interface {
	// Initialize is called once, when the manager starts its controllers:
	// a provider may start housekeeping of its own here, until ctx ends.
	Initialize(ctx context.Context)
	// LoadBalancer returns the cloud's load balancers, if it has them.
	LoadBalancer() (LoadBalancer, bool)
	// InstancesV2 returns the cloud's instances (the machines), if any.
	InstancesV2() (InstancesV2, bool)
	// Routes returns the cloud's route table, if it has one.
	Routes() (Routes, bool)
	// ProviderName is the name --cloud-provider selects, also the scheme
	// of the provider IDs (<name>://<id>).
	ProviderName() string
	// HasClusterID says whether the cloud's resources are tagged with the
	// cluster they belong to (--cluster-name).
	HasClusterID() bool
}

// LoadBalancer is a cloud's load balancers. Implementations treat the
// Service and Node arguments as read-only.
type LoadBalancer interface {
	// GetLoadBalancer reports whether the Service's balancer exists, and if
	// so its status.
	GetLoadBalancer(ctx context.Context, clusterName string, service *corev1.Service) (status *corev1.LoadBalancerStatus, exists bool, err error)
	// GetLoadBalancerName is the name of the Service's balancer in the cloud.
	GetLoadBalancerName(ctx context.Context, clusterName string, service *corev1.Service) string
	// EnsureLoadBalancer creates the Service's balancer, or updates it, so
	// that it forwards the Service's ports to nodes, and returns its status.
	EnsureLoadBalancer(ctx context.Context, clusterName string, service *corev1.Service, nodes []*corev1.Node) (*corev1.LoadBalancerStatus, error)
	// UpdateLoadBalancer points an existing balancer at nodes.
	UpdateLoadBalancer(ctx context.Context, clusterName string, service *corev1.Service, nodes []*corev1.Node) error
	// EnsureLoadBalancerDeleted deletes the Service's balancer; nil when it
	// was deleted or did not exist.
	EnsureLoadBalancerDeleted(ctx context.Context, clusterName string, service *corev1.Service) error
}

// InstancesV2 is a cloud's machines. Each method finds the machine by the
// Node's spec.providerID, or by its name when that is empty.
type InstancesV2 interface {
	// InstanceExists is false once the Node's machine is gone: the cloud
	// node lifecycle controller then deletes the Node. A machine that is
	// only shut down still exists.
	InstanceExists(ctx context.Context, node *corev1.Node) (bool, error)
	// InstanceShutdown is true when the machine exists but is powered off.
	InstanceShutdown(ctx context.Context, node *corev1.Node) (bool, error)
	// InstanceMetadata is what the cloud node controller writes to the Node.
	InstanceMetadata(ctx context.Context, node *corev1.Node) (*InstanceMetadata, error)
}

// InstanceMetadata describes a machine.
type InstanceMetadata struct {
	// ProviderID is spec.providerID, <provider>://<instance>.
	ProviderID string
	// InstanceType becomes the labels node.kubernetes.io/instance-type and
	// beta.kubernetes.io/instance-type.
	InstanceType string
	// NodeAddresses become status.addresses.
	NodeAddresses []corev1.NodeAddress
	// Zone and Region become the topology.kubernetes.io labels (and their
	// failure-domain.beta.kubernetes.io forerunners).
	Zone   string
	Region string
	// AdditionalLabels are more labels for the Node (none in the
	// kubernetes.io and k8s.io namespaces).
	AdditionalLabels map[string]string
}

// Route is one entry of the cloud's route table: DestinationCIDR (a node's
// pod range) goes to TargetNode.
type Route struct {
	// Name is the route's name in the cloud (ignored by CreateRoute, which
	// may use its nameHint).
	Name       string
	TargetNode string
	// EnableNodeAddresses says the provider records TargetNodeAddresses, so
	// the route controller replaces a route whose node changed address.
	EnableNodeAddresses bool
	TargetNodeAddresses []corev1.NodeAddress
	DestinationCIDR     string
	// Blackhole marks a route whose target is gone; the route controller
	// deletes it if it is in the cluster's range.
	Blackhole bool
}

// Routes is a cloud's route table.
type Routes interface {
	// ListRoutes lists the routes of the cluster clusterName.
	ListRoutes(ctx context.Context, clusterName string) ([]*Route, error)
	// CreateRoute creates route; nameHint (the Node's UID) may name it.
	CreateRoute(ctx context.Context, clusterName string, nameHint string, route *Route) error
	// DeleteRoute deletes route, as ListRoutes returned it.
	DeleteRoute(ctx context.Context, clusterName string, route *Route) error
}

// The errors providers and controllers share. Upstream: the same names.
var (
	// ImplementedElsewhere: another controller does this (the service
	// controller then leaves the Service alone).
	ImplementedElsewhere = errors.New("implemented by alternate to cloud provider")
	// InstanceNotFound: the cloud has no such machine.
	InstanceNotFound = errors.New("instance not found")
	// NotImplemented: the provider does not do this.
	NotImplemented = errors.New("unimplemented")
)

// The taints of upstream's cloud-provider/api.
const (
	// TaintExternalCloudProvider is put on a Node by a kubelet started with
	// --cloud-provider=external, until the cloud node controller has
	// initialized it (provider ID, addresses, labels).
	TaintExternalCloudProvider = "node.cloudprovider.kubernetes.io/uninitialized"
	// TaintNodeShutdown is put on a Node whose machine is shut down.
	TaintNodeShutdown = "node.cloudprovider.kubernetes.io/shutdown"
)

// DefaultLoadBalancerName is the name upstream's providers give a
// Service's balancer: "a" and the Service's UID without dashes, at most 32
// characters.
func DefaultLoadBalancerName(service *corev1.Service) string {
	name := "a" + strings.ReplaceAll(service.UID, "-", "")
	if len(name) > 32 {
		name = name[:32]
	}
	return name
}
