// Package healthcheck serves kube-proxy's two kinds of health endpoints:
//
//   - the proxier's own healthz (--healthz-bind-address, default
//     0.0.0.0:10256): /healthz and /livez answer 200 while syncs keep up with
//     the changes queued for them (and, for /healthz, while the node is not
//     being deleted), 503 otherwise, with the ProxyHealth JSON;
//   - one health-check node port per LoadBalancer Service with
//     externalTrafficPolicy Local (spec.healthCheckNodePort): it answers 200
//     when this node has ready endpoints of the Service and 503 when it has
//     none, so the cloud load balancer sends traffic only to nodes that can
//     serve it without a second hop.
//
// Upstream: k8s.io/kubernetes/pkg/proxy/healthcheck.
package healthcheck
