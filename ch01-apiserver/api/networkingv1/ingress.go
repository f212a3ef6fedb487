package networkingv1

import (
	"kubik/ch01-apiserver/api/corev1"
	"kubik/ch01-apiserver/api/metav1"
)

// Annotations and labels of Ingresses and IngressClasses.
const (
	// AnnotationIsDefaultIngressClass marks the IngressClass that Ingresses
	// without spec.ingressClassName get ("true").
	AnnotationIsDefaultIngressClass = "ingressclass.kubernetes.io/is-default-class"
	// AnnotationIngressClass is the deprecated way to pick a class, from
	// before spec.ingressClassName.
	AnnotationIngressClass = "kubernetes.io/ingress.class"
)

// Ingress is a collection of rules that route inbound HTTP(S) connections to
// the Services of the cluster.
type Ingress struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`
	// Spec is the desired state of the Ingress.
	Spec IngressSpec `json:"spec,omitempty" protobuf:"bytes,2,opt,name=spec"`
	// Status is the current state of the Ingress, written by its controller.
	Status IngressStatus `json:"status,omitempty" protobuf:"bytes,3,opt,name=status"`
}

// IngressList is a list of Ingresses.
type IngressList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`
	// Items is the list of Ingresses.
	Items []Ingress `json:"items" protobuf:"bytes,2,rep,name=items"`
}

// IngressSpec describes the Ingress the user wishes to exist.
type IngressSpec struct {
	// IngressClassName names the IngressClass whose controller implements this Ingress.
	IngressClassName *string `json:"ingressClassName,omitempty" protobuf:"bytes,4,opt,name=ingressClassName"`
	// DefaultBackend handles requests that match no rule.
	DefaultBackend *IngressBackend `json:"defaultBackend,omitempty" protobuf:"bytes,1,opt,name=defaultBackend"`
	// TLS configures TLS for the listed hosts.
	TLS []IngressTLS `json:"tls,omitempty" protobuf:"bytes,2,rep,name=tls"`
	// Rules route requests by host and path; no rules send all traffic to the default backend.
	Rules []IngressRule `json:"rules,omitempty" protobuf:"bytes,3,rep,name=rules"`
}

// IngressTLS describes the transport layer security of some hosts.
type IngressTLS struct {
	// Hosts are the hosts in the TLS certificate.
	Hosts []string `json:"hosts,omitempty" protobuf:"bytes,1,rep,name=hosts"`
	// SecretName names the Secret that holds the certificate and key.
	SecretName string `json:"secretName,omitempty" protobuf:"bytes,2,opt,name=secretName"`
}

// IngressStatus describes the current state of the Ingress.
type IngressStatus struct {
	// LoadBalancer holds the addresses of the load balancer.
	LoadBalancer IngressLoadBalancerStatus `json:"loadBalancer,omitempty" protobuf:"bytes,1,opt,name=loadBalancer"`
}

// IngressLoadBalancerStatus is the status of an Ingress's load balancer.
type IngressLoadBalancerStatus struct {
	// Ingress lists the load balancer's ingress points.
	Ingress []IngressLoadBalancerIngress `json:"ingress,omitempty" protobuf:"bytes,1,rep,name=ingress"`
}

// IngressLoadBalancerIngress is one ingress point of the load balancer.
type IngressLoadBalancerIngress struct {
	// IP is set for ingress points that are IP based.
	IP string `json:"ip,omitempty" protobuf:"bytes,1,opt,name=ip"`
	// Hostname is set for ingress points that are DNS based.
	Hostname string `json:"hostname,omitempty" protobuf:"bytes,2,opt,name=hostname"`
	// Ports give information about the ports exposed by this load balancer.
	Ports []IngressPortStatus `json:"ports,omitempty" protobuf:"bytes,4,rep,name=ports"`
}

// IngressPortStatus is the error condition of one service port.
type IngressPortStatus struct {
	// Port is the port number of the ingress port.
	Port int32 `json:"port" protobuf:"varint,1,opt,name=port"`
	// Protocol is the protocol of the ingress port: TCP, UDP or SCTP.
	Protocol corev1.Protocol `json:"protocol" protobuf:"bytes,2,opt,name=protocol,casttype=Protocol"`
	// Error records a problem with the service port, CamelCase.
	Error *string `json:"error,omitempty" protobuf:"bytes,3,opt,name=error"`
}

// IngressRule maps the paths under a host to backends.
type IngressRule struct {
	// Host is the fully qualified domain name of a network host, or a wildcard ("*.foo.com").
	Host string `json:"host,omitempty" protobuf:"bytes,1,opt,name=host"`
	// IngressRuleValue holds the rules of the host.
	IngressRuleValue `json:",inline" protobuf:"bytes,2,opt,name=ingressRuleValue"`
}

// IngressRuleValue says how requests to a host are handled (HTTP only).
type IngressRuleValue struct {
	// HTTP is the list of HTTP paths of the rule.
	HTTP *HTTPIngressRuleValue `json:"http,omitempty" protobuf:"bytes,1,opt,name=http"`
}

// HTTPIngressRuleValue is a list of HTTP selectors pointing to backends.
type HTTPIngressRuleValue struct {
	// Paths is the collection of paths that map requests to backends.
	Paths []HTTPIngressPath `json:"paths" protobuf:"bytes,1,rep,name=paths"`
}

// PathType says how an Ingress path is matched: Exact, Prefix or
// ImplementationSpecific.
type PathType string

// The path types.
const (
	PathTypeExact                  = PathType("Exact")
	PathTypePrefix                 = PathType("Prefix")
	PathTypeImplementationSpecific = PathType("ImplementationSpecific")
)

// HTTPIngressPath associates a path with a backend.
type HTTPIngressPath struct {
	// Path is matched against the path of an incoming request; it must begin with "/".
	Path string `json:"path,omitempty" protobuf:"bytes,1,opt,name=path"`
	// PathType says how the path is matched: Exact, Prefix or ImplementationSpecific.
	PathType *PathType `json:"pathType" protobuf:"bytes,3,opt,name=pathType"`
	// Backend is where matching requests go.
	Backend IngressBackend `json:"backend" protobuf:"bytes,2,opt,name=backend"`
}

// IngressBackend describes all endpoints for a given service and port, or a resource.
type IngressBackend struct {
	// Service references a Service as a backend.
	Service *IngressServiceBackend `json:"service,omitempty" protobuf:"bytes,4,opt,name=service"`
	// Resource references another object in the Ingress's namespace.
	Resource *corev1.TypedLocalObjectReference `json:"resource,omitempty" protobuf:"bytes,3,opt,name=resource"`
}

// IngressServiceBackend references a Service.
type IngressServiceBackend struct {
	// Name is the referenced Service, in the Ingress's namespace.
	Name string `json:"name" protobuf:"bytes,1,opt,name=name"`
	// Port of the referenced Service.
	Port ServiceBackendPort `json:"port,omitempty" protobuf:"bytes,2,opt,name=port"`
}

// ServiceBackendPort is a Service port, by name or by number.
type ServiceBackendPort struct {
	// Name is the name of the port on the Service.
	Name string `json:"name,omitempty" protobuf:"bytes,1,opt,name=name"`
	// Number is the numerical port number of the Service port.
	Number int32 `json:"number,omitempty" protobuf:"bytes,2,opt,name=number"`
}

// IngressClass names a controller that implements Ingresses.
type IngressClass struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`
	// Spec is the IngressClass configuration.
	Spec IngressClassSpec `json:"spec,omitempty" protobuf:"bytes,2,opt,name=spec"`
}

// IngressClassSpec is the configuration of an IngressClass.
type IngressClassSpec struct {
	// Controller names the controller that handles this class, "example.com/ingress-controller".
	Controller string `json:"controller,omitempty" protobuf:"bytes,1,opt,name=controller"`
	// Parameters references an object with additional configuration for the controller.
	Parameters *IngressClassParametersReference `json:"parameters,omitempty" protobuf:"bytes,2,opt,name=parameters"`
}

// The scopes of IngressClass parameters.
const (
	IngressClassParametersReferenceScopeNamespace = "Namespace"
	IngressClassParametersReferenceScopeCluster   = "Cluster"
)

// IngressClassParametersReference identifies an API object holding IngressClass parameters.
type IngressClassParametersReference struct {
	// APIGroup is the group of the referenced object; empty is the core group.
	APIGroup *string `json:"apiGroup,omitempty" protobuf:"bytes,1,opt,name=aPIGroup"`
	// Kind is the type of the referenced object.
	Kind string `json:"kind" protobuf:"bytes,2,opt,name=kind"`
	// Name is the name of the referenced object.
	Name string `json:"name" protobuf:"bytes,3,opt,name=name"`
	// Scope is "Cluster" (the default) or "Namespace".
	Scope *string `json:"scope" protobuf:"bytes,4,opt,name=scope"`
	// Namespace of the referenced object, required when scope is "Namespace".
	Namespace *string `json:"namespace,omitempty" protobuf:"bytes,5,opt,name=namespace"`
}

// IngressClassList is a list of IngressClasses.
type IngressClassList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`
	// Items is the list of IngressClasses.
	Items []IngressClass `json:"items" protobuf:"bytes,2,rep,name=items"`
}
