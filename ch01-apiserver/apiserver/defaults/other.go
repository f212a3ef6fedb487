package defaults

import (
	"kubik/ch01-apiserver/api/authenticationv1"
	"kubik/ch01-apiserver/api/corev1"
	"kubik/ch01-apiserver/api/discoveryv1"
	"kubik/ch01-apiserver/api/schedulingv1"
)

// setDefaultsEndpointSlice is SetDefaults_EndpointPort of discovery/v1 for
// every port: name "" and protocol TCP.
func setDefaultsEndpointSlice(s *discoveryv1.EndpointSlice) {
	for i := range s.Ports {
		p := &s.Ports[i]
		if p.Name == nil {
			p.Name = ptrTo("")
		}
		if p.Protocol == nil {
			p.Protocol = ptrTo(corev1.ProtocolTCP)
		}
	}
}

// setDefaultsPriorityClass is SetDefaults_PriorityClass: pods of the class may
// preempt lower-priority pods.
func setDefaultsPriorityClass(pc *schedulingv1.PriorityClass) {
	if pc.PreemptionPolicy == nil {
		pc.PreemptionPolicy = ptrTo(corev1.PreemptLowerPriority)
	}
}

// setDefaultsTokenRequestSpec is SetDefaults_TokenRequestSpec of
// authentication/v1: a token is valid for one hour unless asked otherwise.
func setDefaultsTokenRequestSpec(spec *authenticationv1.TokenRequestSpec) {
	if spec.ExpirationSeconds == nil {
		spec.ExpirationSeconds = ptrTo(int64(3600))
	}
}
