package quota

import (
	"slices"

	"kubik/ch01-apiserver/api/corev1"
	"kubik/ch01-apiserver/api/resource"
)

var serviceObjectCountName = ObjectCountQuotaResourceNameFor("services")

// serviceResources are the quota names of a Service's usage.
var serviceResources = []corev1.ResourceName{
	serviceObjectCountName, corev1.ResourceServices,
	corev1.ResourceServicesNodePorts, corev1.ResourceServicesLoadBalancers,
}

// NewServiceEvaluator measures Services: their count, load balancers and
// node ports.
func NewServiceEvaluator(list ListFuncByNamespace[corev1.Service]) Evaluator {
	return &genericEvaluator[corev1.Service]{groupResource: "services", list: list,
		matches: func(n corev1.ResourceName) bool { return slices.Contains(serviceResources, n) },
		usage:   ServiceUsageFunc}
}

// ServiceUsageFunc is a Service's usage: one service, one load balancer if
// it is one, and the node ports it allocates (a load balancer with
// allocateLoadBalancerNodePorts false: only those given).
func ServiceUsageFunc(svc *corev1.Service) corev1.ResourceList {
	result := corev1.ResourceList{serviceObjectCountName: one(), corev1.ResourceServices: one(),
		corev1.ResourceServicesLoadBalancers: zero(), corev1.ResourceServicesNodePorts: zero()}
	ports := int64(len(svc.Spec.Ports))
	switch svc.Spec.Type {
	case corev1.ServiceTypeNodePort:
		result[corev1.ResourceServicesNodePorts] = *resource.NewQuantity(ports, resource.DecimalSI)
	case corev1.ServiceTypeLoadBalancer:
		if svc.Spec.AllocateLoadBalancerNodePorts != nil && !*svc.Spec.AllocateLoadBalancerNodePorts {
			ports = 0
			for _, p := range svc.Spec.Ports {
				if p.NodePort != 0 {
					ports++
				}
			}
		}
		result[corev1.ResourceServicesNodePorts] = *resource.NewQuantity(ports, resource.DecimalSI)
		result[corev1.ResourceServicesLoadBalancers] = one()
	}
	return result
}
