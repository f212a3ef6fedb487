package cloudprovider

import (
	"fmt"
	"net/netip"
	"slices"
	"strings"

	"kubik/ch01-apiserver/api/corev1"
)

// What controllers and providers share about Services. Upstream:
// k8s.io/cloud-provider/service/helpers.

// LoadBalancerCleanupFinalizer is on every Service whose balancer the
// service controller created: the Service is not gone until the balancer
// is.
const LoadBalancerCleanupFinalizer = "service.kubernetes.io/load-balancer-cleanup"

// AnnotationLoadBalancerSourceRangesKey is the annotation form of
// spec.loadBalancerSourceRanges ("10.0.0.0/8,192.168.0.0/16").
const AnnotationLoadBalancerSourceRangesKey = "service.beta.kubernetes.io/load-balancer-source-ranges"

// HasLBFinalizer reports whether the Service carries the finalizer.
func HasLBFinalizer(service *corev1.Service) bool {
	return slices.Contains(service.Finalizers, LoadBalancerCleanupFinalizer)
}

// GetLoadBalancerSourceRanges is who may reach the balancer:
// spec.loadBalancerSourceRanges, else the annotation, else everyone
// (0.0.0.0/0), with upstream's messages for bad values.
func GetLoadBalancerSourceRanges(service *corev1.Service) ([]netip.Prefix, error) {
	if specs := service.Spec.LoadBalancerSourceRanges; len(specs) > 0 {
		ranges, err := parsePrefixes(specs)
		if err != nil {
			return nil, fmt.Errorf("service.Spec.LoadBalancerSourceRanges: %v is not valid. Expecting a list of IP ranges. For example, 10.0.0.0/24. Error msg: %v", specs, err)
		}
		return ranges, nil
	}
	val := strings.TrimSpace(service.Annotations[AnnotationLoadBalancerSourceRangesKey])
	if val == "" {
		val = "0.0.0.0/0"
	}
	ranges, err := parsePrefixes(strings.Split(val, ","))
	if err != nil {
		return nil, fmt.Errorf("%s: %s is not valid. Expecting a comma-separated list of source IP ranges. For example, 10.0.0.0/24,192.168.2.0/24", AnnotationLoadBalancerSourceRangesKey, val)
	}
	return ranges, nil
}

func parsePrefixes(specs []string) ([]netip.Prefix, error) {
	var out []netip.Prefix
	for _, s := range specs {
		p, err := netip.ParsePrefix(strings.TrimSpace(s))
		if err != nil {
			return nil, err
		}
		out = append(out, p.Masked())
	}
	return out, nil
}

// IsAllowAll reports whether ranges let everyone in.
func IsAllowAll(ranges []netip.Prefix) bool {
	return slices.ContainsFunc(ranges, func(p netip.Prefix) bool { return p.Bits() == 0 && p.Addr().Is4() })
}

// LoadBalancerStatusEqual compares the ingress points of two statuses.
func LoadBalancerStatusEqual(l, r *corev1.LoadBalancerStatus) bool {
	return slices.EqualFunc(l.Ingress, r.Ingress, func(a, b corev1.LoadBalancerIngress) bool {
		return a.IP == b.IP && a.Hostname == b.Hostname && equalPtr(a.IPMode, b.IPMode) &&
			slices.EqualFunc(a.Ports, b.Ports, func(x, y corev1.PortStatus) bool {
				return x.Port == y.Port && x.Protocol == y.Protocol && equalPtr(x.Error, y.Error)
			})
	})
}

func equalPtr[T comparable](a, b *T) bool {
	if a == nil || b == nil {
		return a == b
	}
	return *a == *b
}
