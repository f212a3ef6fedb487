// Package fake is a cloud for the controllers' tests: it records every
// call, keeps balancers and routes in maps, and answers the instance
// questions with what the test set.
//
// Upstream: k8s.io/cloud-provider/fake (the same call names: "get",
// "create", "update", "delete", "list-routes", "create-route",
// "delete-route", "instance-exists", "instance-shutdown",
// "instance-metadata").
package fake

import (
	"context"
	"fmt"
	"slices"
	"sync"

	"kubik/ch01-apiserver/api/corev1"
	"kubik/ch08-full-cluster/cloudprovider"
)

// Balancer is what the last EnsureLoadBalancer made for a Service.
type Balancer struct {
	Name           string
	LoadBalancerIP string
	Ports          []corev1.ServicePort
	Hosts          []*corev1.Node
}

// UpdateBalancerCall is one EnsureLoadBalancer or UpdateLoadBalancer call.
type UpdateBalancerCall struct {
	Service *corev1.Service
	Hosts   []*corev1.Node
}

// Route is a route of the fake cloud, with its cluster.
type Route struct {
	ClusterName string
	Route       cloudprovider.Route
}

// Cloud is the fake. Set its fields before the controller runs; read Calls
// and the maps after.
type Cloud struct {
	DisableInstances     bool
	DisableRoutes        bool
	DisableLoadBalancers bool

	// Exists is GetLoadBalancer's answer; Err every LoadBalancer method's
	// and ListRoutes' error.
	Exists bool
	Err    error
	// ExternalIP is the balancers' address.
	ExternalIP     string
	BalancerIPMode *corev1.LoadBalancerIPMode

	// Instances: InstanceExists answers ExistsByProviderID (per node name
	// in ExistsByNode, when set there), InstanceShutdown NodeShutdown.
	ExistsByProviderID      bool
	ExistsByNode            map[string]bool
	ErrByProviderID         error
	NodeShutdown            bool
	ErrShutdownByProviderID error
	// InstanceMetadata returns ProviderID[node], InstanceTypes[node] and
	// Addresses, or MetadataErr.
	ProviderID    map[string]string
	InstanceTypes map[string]string
	Addresses     []corev1.NodeAddress
	Zone, Region  string
	MetadataErr   error

	// CreateRouteErr, when set, fails CreateRoute for that node.
	CreateRouteErr map[string]error

	mu          sync.Mutex
	Calls       []string
	Balancers   map[string]Balancer
	UpdateCalls []UpdateBalancerCall
	EnsureCalls []UpdateBalancerCall
	RouteMap    map[string]*Route
}

var (
	_ cloudprovider.Interface    = (*Cloud)(nil)
	_ cloudprovider.LoadBalancer = (*Cloud)(nil)
	_ cloudprovider.Routes       = (*Cloud)(nil)
	_ cloudprovider.InstancesV2  = (*Cloud)(nil)
)

func (f *Cloud) addCall(desc string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.Calls = append(f.Calls, desc)
}

// GetCalls is a copy of the calls so far.
func (f *Cloud) GetCalls() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return slices.Clone(f.Calls)
}

// ClearCalls forgets the calls so far.
func (f *Cloud) ClearCalls() {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.Calls, f.UpdateCalls, f.EnsureCalls = nil, nil, nil
}

// GetUpdateCalls is a copy of the UpdateLoadBalancer calls so far.
func (f *Cloud) GetUpdateCalls() []UpdateBalancerCall {
	f.mu.Lock()
	defer f.mu.Unlock()
	return slices.Clone(f.UpdateCalls)
}

func (f *Cloud) Initialize(context.Context) {}
func (f *Cloud) ProviderName() string       { return "fake" }
func (f *Cloud) HasClusterID() bool         { return true }

func (f *Cloud) LoadBalancer() (cloudprovider.LoadBalancer, bool) { return f, !f.DisableLoadBalancers }
func (f *Cloud) InstancesV2() (cloudprovider.InstancesV2, bool)   { return f, !f.DisableInstances }
func (f *Cloud) Routes() (cloudprovider.Routes, bool)             { return f, !f.DisableRoutes }

func (f *Cloud) GetLoadBalancer(_ context.Context, _ string, _ *corev1.Service) (*corev1.LoadBalancerStatus, bool, error) {
	f.addCall("get")
	return &corev1.LoadBalancerStatus{Ingress: []corev1.LoadBalancerIngress{{IP: f.ExternalIP}}}, f.Exists, f.Err
}

func (f *Cloud) GetLoadBalancerName(_ context.Context, _ string, service *corev1.Service) string {
	return cloudprovider.DefaultLoadBalancerName(service)
}

func (f *Cloud) EnsureLoadBalancer(ctx context.Context, clusterName string, service *corev1.Service, nodes []*corev1.Node) (*corev1.LoadBalancerStatus, error) {
	f.addCall("create")
	name := f.GetLoadBalancerName(ctx, clusterName, service)
	f.mu.Lock()
	f.EnsureCalls = append(f.EnsureCalls, UpdateBalancerCall{service, nodes})
	if f.Balancers == nil {
		f.Balancers = map[string]Balancer{}
	}
	f.Balancers[name] = Balancer{name, service.Spec.LoadBalancerIP, service.Spec.Ports, nodes}
	f.mu.Unlock()
	var ports []corev1.PortStatus
	for _, p := range service.Spec.Ports {
		ports = append(ports, corev1.PortStatus{Port: p.Port, Protocol: p.Protocol})
	}
	return &corev1.LoadBalancerStatus{Ingress: []corev1.LoadBalancerIngress{{IP: f.ExternalIP, IPMode: f.BalancerIPMode, Ports: ports}}}, f.Err
}

func (f *Cloud) UpdateLoadBalancer(_ context.Context, _ string, service *corev1.Service, nodes []*corev1.Node) error {
	f.addCall("update")
	f.mu.Lock()
	f.UpdateCalls = append(f.UpdateCalls, UpdateBalancerCall{service, nodes})
	f.mu.Unlock()
	return f.Err
}

func (f *Cloud) EnsureLoadBalancerDeleted(_ context.Context, _ string, _ *corev1.Service) error {
	f.addCall("delete")
	return f.Err
}

func (f *Cloud) InstanceExists(_ context.Context, node *corev1.Node) (bool, error) {
	f.addCall("instance-exists")
	if e, ok := f.ExistsByNode[node.Name]; ok {
		return e, f.ErrByProviderID
	}
	return f.ExistsByProviderID, f.ErrByProviderID
}

func (f *Cloud) InstanceShutdown(_ context.Context, _ *corev1.Node) (bool, error) {
	f.addCall("instance-shutdown")
	return f.NodeShutdown, f.ErrShutdownByProviderID
}

func (f *Cloud) InstanceMetadata(_ context.Context, node *corev1.Node) (*cloudprovider.InstanceMetadata, error) {
	f.addCall("instance-metadata")
	return &cloudprovider.InstanceMetadata{ProviderID: f.ProviderID[node.Name], InstanceType: f.InstanceTypes[node.Name],
		NodeAddresses: slices.Clone(f.Addresses), Zone: f.Zone, Region: f.Region}, f.MetadataErr
}

func (f *Cloud) ListRoutes(_ context.Context, clusterName string) ([]*cloudprovider.Route, error) {
	f.addCall("list-routes")
	f.mu.Lock()
	defer f.mu.Unlock()
	var routes []*cloudprovider.Route
	for _, r := range f.RouteMap {
		if r.ClusterName == clusterName {
			c := r.Route
			routes = append(routes, &c)
		}
	}
	return routes, f.Err
}

func (f *Cloud) CreateRoute(_ context.Context, clusterName string, _ string, route *cloudprovider.Route) error {
	f.addCall("create-route")
	f.mu.Lock()
	defer f.mu.Unlock()
	if err := f.CreateRouteErr[route.TargetNode]; err != nil {
		return err
	}
	name := clusterName + "-" + route.TargetNode + "-" + route.DestinationCIDR
	if _, exists := f.RouteMap[name]; exists {
		return fmt.Errorf("route %q already exists", name)
	}
	if f.RouteMap == nil {
		f.RouteMap = map[string]*Route{}
	}
	r := Route{ClusterName: clusterName, Route: *route}
	r.Route.Name = name
	f.RouteMap[name] = &r
	return nil
}

func (f *Cloud) DeleteRoute(_ context.Context, clusterName string, route *cloudprovider.Route) error {
	f.addCall("delete-route")
	f.mu.Lock()
	defer f.mu.Unlock()
	for key, saved := range f.RouteMap {
		if route.DestinationCIDR == saved.Route.DestinationCIDR && route.TargetNode == saved.Route.TargetNode && clusterName == saved.ClusterName {
			delete(f.RouteMap, key)
			return nil
		}
	}
	return fmt.Errorf("no route found for node:%v with DestinationCIDR== %v", route.TargetNode, route.DestinationCIDR)
}
