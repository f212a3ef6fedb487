// Package reconcilers keeps the "kubernetes" Service's endpoints listing
// every live apiserver when several serve one cluster: the lease
// reconciler (each apiserver keeps a key with a TTL under
// /registry/masterleases/ and publishes every key it finds), and none.
// Chapter 1's apiserver runs whichever it is given
// (apiserver.EndpointReconciler); without one it publishes its own address
// only. Upstream: pkg/controlplane/reconcilers.
package reconcilers

import (
	"context"
	"fmt"
	"net/netip"

	"kubik/ch01-apiserver/api/corev1"
	"kubik/ch01-apiserver/apiserver"
)

// Type is --endpoint-reconciler-type.
type Type string

// The reconciler types Kubik offers (upstream's master-count, removed from
// use long ago, is not).
const (
	LeaseEndpointReconcilerType Type = "lease"
	NoneEndpointReconcilerType  Type = "none"
)

// AllTypes are the valid values of --endpoint-reconciler-type.
var AllTypes = []Type{LeaseEndpointReconcilerType, NoneEndpointReconcilerType}

// ParseType checks a --endpoint-reconciler-type value.
func ParseType(s string) (Type, error) {
	for _, t := range AllTypes {
		if string(t) == s {
			return t, nil
		}
	}
	return "", fmt.Errorf("--endpoint-reconciler-type: %q is not one of %v", s, AllTypes)
}

// noneEndpointReconciler publishes nothing: someone else manages the
// kubernetes Service's endpoints. Upstream: none.go.
type noneEndpointReconciler struct{}

// NewNoneEndpointReconciler is the reconciler of --endpoint-reconciler-type=none.
func NewNoneEndpointReconciler() apiserver.EndpointReconciler { return noneEndpointReconciler{} }

func (noneEndpointReconciler) ReconcileEndpoints(context.Context, netip.Addr, []corev1.EndpointPort, bool) error {
	return nil
}

func (noneEndpointReconciler) RemoveEndpoints(context.Context, netip.Addr, []corev1.EndpointPort) error {
	return nil
}

func (noneEndpointReconciler) StopReconciling() {}
