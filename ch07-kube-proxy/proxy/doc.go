// Package proxy is the model every kube-proxy backend shares: what a Service
// port looks like to a proxier (ServicePort), what one of its endpoints looks
// like (Endpoint), and the change trackers that turn the Service and
// EndpointSlice events of the informers into "what changed since the last
// sync" (ServiceChangeTracker, EndpointsChangeTracker).
//
// A proxier keeps a ServicePortMap and an EndpointsMap. The informer handlers
// call OnServiceAdd/Update/Delete and OnEndpointSliceAdd/Update/Delete, which
// only record the change in a tracker; the sync loop later calls
// ServicePortMap.Update and EndpointsMap.Update, which apply every pending
// change at once and say which Services changed, so a partial sync rewrites
// only their rules. CategorizeEndpoints (topology.go) picks the endpoints a
// Service's traffic policies allow from this node.
//
// Upstream: k8s.io/kubernetes/pkg/proxy (types.go, serviceport.go,
// endpoint.go, servicechangetracker.go, endpointschangetracker.go,
// endpointslicecache.go, topology.go).
package proxy
