// Package networkingv1 holds networking.k8s.io/v1: Ingress and IngressClass
// (HTTP routing into the cluster) and NetworkPolicy (which pods may talk to
// which), ServiceCIDR and IPAddress (the ranges ClusterIPs come from, and
// one object per allocated ClusterIP). The apiserver stores them and keeps
// the default ServiceCIDR and the IPAddresses of Services; controllers and
// network plugins act on the rest.
//
// Upstream: k8s.io/api/networking/v1.
package networkingv1

// GroupName is the API group of this package's kinds.
const GroupName = "networking.k8s.io"
