package corev1

// The namespaces every cluster has. NamespaceSystem and NamespacePublic live in metav1 upstream.
const (
	// NamespaceSystem is the namespace of the control plane's own objects.
	NamespaceSystem string = "kube-system"
	// NamespacePublic is the namespace of objects readable by everyone, unauthenticated too.
	NamespacePublic string = "kube-public"
	// NamespaceDefault means the object is in the default namespace which is applied when not specified by
	// clients
	NamespaceDefault string = "default"
	// NamespaceAll is the default argument to specify on a context when you want to list or filter resources
	// across all namespaces
	NamespaceAll string = ""
	// NamespaceNodeLease is the namespace where we place node lease objects (used for node heartbeats)
	NamespaceNodeLease string = "kube-node-lease"
)

const (
	// BetaStorageClassAnnotation represents the beta/previous StorageClass annotation.
	BetaStorageClassAnnotation = "volume.beta.kubernetes.io/storage-class"
	// MountOptionAnnotation defines mount option annotation used in PVs
	MountOptionAnnotation = "volume.beta.kubernetes.io/mount-options"
)

const (
	SecretVolumeSourceDefaultMode int32 = 0644
)

const (
	ConfigMapVolumeSourceDefaultMode int32 = 0644
)

const (
	ProjectedVolumeSourceDefaultMode int32 = 0644
)

const (
	// TerminationMessagePathDefault means the default path to capture the application termination message
	// running in a container
	TerminationMessagePathDefault string = "/dev/termination-log"
)

// ResourceHealthMessageMaxLength is the maximum length for ResourceHealth.Message field.
const (
	ResourceHealthMessageMaxLength = 1024
)

// These are reasons for a pod's transition to a condition.
const (
	// PodReasonUnschedulable reason in PodScheduled PodCondition means that the scheduler can't schedule the pod
	// right now, for example due to insufficient resources in the cluster.
	PodReasonUnschedulable = "Unschedulable"
	// PodReasonSchedulingGated reason in PodScheduled PodCondition means that the scheduler skips scheduling the
	// pod because one or more scheduling gates are still present.
	PodReasonSchedulingGated = "SchedulingGated"
	// PodReasonSchedulerError reason in PodScheduled PodCondition means that some internal error happens during
	// scheduling, for example due to nodeAffinity parsing errors.
	PodReasonSchedulerError = "SchedulerError"
	// PodReasonTerminationByKubelet reason in DisruptionTarget pod condition indicates that the termination is
	// initiated by kubelet
	PodReasonTerminationByKubelet = "TerminationByKubelet"
	// PodReasonPreemptionByScheduler reason in DisruptionTarget pod condition indicates that the disruption was
	// initiated by scheduler's preemption.
	PodReasonPreemptionByScheduler = "PreemptionByScheduler"
	// PodReasonDeferred reason in PodResizePending pod condition indicates the proposed resize is feasible in
	// theory (it fits on this node) but is not possible right now.
	PodReasonDeferred = "Deferred"
	// PodReasonInfeasible reason in PodResizePending pod condition indicates the proposed resize is not feasible
	// and is rejected; it may not be re-evaluated
	PodReasonInfeasible = "Infeasible"
	// PodReasonError reason in PodResizeInProgress pod condition indicates that an error occurred while
	// actuating the resize.
	PodReasonError = "Error"
)

const (
	// DefaultTerminationGracePeriodSeconds indicates the default duration in seconds a pod needs to terminate
	// gracefully.
	DefaultTerminationGracePeriodSeconds = 30
)

const (
	// The default value for enableServiceLinks attribute.
	DefaultEnableServiceLinks = true
)

const (
	DefaultClientIPServiceAffinitySeconds int32 = 10800
)

const (
	ServiceExternalTrafficPolicyTypeLocal   = ServiceExternalTrafficPolicyLocal
	ServiceExternalTrafficPolicyTypeCluster = ServiceExternalTrafficPolicyCluster
)

// These are valid values for the TrafficDistribution field of a Service.
const (
	// ServiceTrafficDistributionPreferSameZone indicates a preference for routing traffic to endpoints that are
	// in the same zone as the client.
	ServiceTrafficDistributionPreferSameZone = "PreferSameZone"
	// ServiceTrafficDistributionPreferSameNode indicates a preference for routing traffic to endpoints that are
	// on the same node as the client.
	ServiceTrafficDistributionPreferSameNode = "PreferSameNode"
	// ServiceTrafficDistributionPreferClose is the original name of "PreferSameZone".
	ServiceTrafficDistributionPreferClose = "PreferClose"
)

// These are the valid conditions of a service.
const (
	// LoadBalancerPortsError represents the condition of the requested ports on the cloud load balancer
	// instance.
	LoadBalancerPortsError = "LoadBalancerPortsError"
	// LoadBalancerPortsErrorReason reason in ServiceStatus condition LoadBalancerPortsError means the
	// LoadBalancer was not able to be configured correctly.
	LoadBalancerPortsErrorReason = "LoadBalancerMixedProtocolNotSupported"
)

const (
	// ClusterIPNone - do not assign a cluster IP no proxying required and no environment variables should be
	// created for pods
	ClusterIPNone = "None"
)

const (
	// Default namespace prefix.
	ResourceDefaultNamespacePrefix = "kubernetes.io/"
	// Name prefix for huge page resources (alpha).
	ResourceHugePagesPrefix = "hugepages-"
	// Name prefix for storage resource limits
	ResourceAttachableVolumesPrefix = "attachable-volumes-"
)

const (
	// NamespaceTerminatingCause is returned as a defaults.cause item when a change is forbidden due to the
	// namespace being terminated.
	NamespaceTerminatingCause = "NamespaceTerminating"
)

const (
	// LogStreamStdout is the stream type for stdout.
	LogStreamStdout = "Stdout"
	// LogStreamStderr is the stream type for stderr.
	LogStreamStderr = "Stderr"
	// LogStreamAll represents the combined stdout and stderr.
	LogStreamAll = "All"
)

// Valid values for event types (new types could be added in future)
const (
	// Information only and will not cause any problems
	EventTypeNormal string = "Normal"
	// These events are to warn that something might go wrong
	EventTypeWarning string = "Warning"
)

// The following identify resource constants for Kubernetes object types
const (
	// resource.k8s.io devices requested with a certain DeviceClass, number
	ResourceClaimsPerClass string = ".deviceclass.resource.k8s.io/devices"
	// resource.k8s.io devices requested with a certain DeviceClass by implicit extended resource name, number
	ResourceImplicitExtendedClaimsPerClass string = "requests.deviceclass.resource.kubernetes.io/"
)

// The following identify resource prefix for Kubernetes object types
const (
	// HugePages request, in bytes.
	ResourceRequestsHugePagesPrefix = "requests.hugepages-"
	// Default resource requests prefix
	DefaultResourceRequestsPrefix = "requests."
)

const (
	MaxSecretSize = 1 * 1024 * 1024
)

const (
	// ServiceAccountNameKey is the key of the required annotation for SecretTypeServiceAccountToken secrets
	ServiceAccountNameKey = "kubernetes.io/service-account.name"
	// ServiceAccountUIDKey is the key of the required annotation for SecretTypeServiceAccountToken secrets
	ServiceAccountUIDKey = "kubernetes.io/service-account.uid"
	// ServiceAccountTokenKey is the key of the required data for SecretTypeServiceAccountToken secrets
	ServiceAccountTokenKey = "token"
	// ServiceAccountKubeconfigKey is the key of the optional kubeconfig data for SecretTypeServiceAccountToken
	// secrets
	ServiceAccountKubeconfigKey = "kubernetes.kubeconfig"
	// ServiceAccountRootCAKey is the key of the optional root certificate authority for
	// SecretTypeServiceAccountToken secrets
	ServiceAccountRootCAKey = "ca.crt"
	// ServiceAccountNamespaceKey is the key of the optional namespace to use as the default for namespaced API
	// calls
	ServiceAccountNamespaceKey = "namespace"
	// DockerConfigKey is the key of the required data for SecretTypeDockercfg secrets
	DockerConfigKey = ".dockercfg"
	// DockerConfigJsonKey is the key of the required data for SecretTypeDockerConfigJson secrets
	DockerConfigJsonKey = ".dockerconfigjson"
	// BasicAuthUsernameKey is the key of the username for SecretTypeBasicAuth secrets
	BasicAuthUsernameKey = "username"
	// BasicAuthPasswordKey is the key of the password or token for SecretTypeBasicAuth secrets
	BasicAuthPasswordKey = "password"
	// SSHAuthPrivateKey is the key of the required SSH private key for SecretTypeSSHAuth secrets
	SSHAuthPrivateKey = "ssh-privatekey"
	// TLSCertKey is the key for tls certificates in a TLS secret.
	TLSCertKey = "tls.crt"
	// TLSPrivateKeyKey is the key for the private key field in a TLS secret.
	TLSPrivateKeyKey = "tls.key"
)

const (
	DownwardAPIVolumeSourceDefaultMode int32 = 0644
)

const (
	// DefaultSchedulerName defines the name of default scheduler.
	DefaultSchedulerName = "default-scheduler"
	// RequiredDuringScheduling affinity is not symmetric, but there is an implicit PreferredDuringScheduling
	// affinity rule corresponding to every RequiredDuringScheduling affinity rule.
	DefaultHardPodAffinitySymmetricWeight int32 = 1
)

const (
	// Enable stdin for remote command execution
	ExecStdinParam = "input"
	// Enable stdout for remote command execution
	ExecStdoutParam = "output"
	// Enable stderr for remote command execution
	ExecStderrParam = "error"
	// Enable TTY for remote command execution
	ExecTTYParam = "tty"
	// Command to run for remote command execution
	ExecCommandParam = "command"
	// Name of header that specifies stream type
	StreamType = "streamType"
	// Value for streamType header for stdin stream
	StreamTypeStdin = "stdin"
	// Value for streamType header for stdout stream
	StreamTypeStdout = "stdout"
	// Value for streamType header for stderr stream
	StreamTypeStderr = "stderr"
	// Value for streamType header for data stream
	StreamTypeData = "data"
	// Value for streamType header for error stream
	StreamTypeError = "error"
	// Value for streamType header for terminal resize stream
	StreamTypeResize = "resize"
	// Name of header that specifies the port being forwarded
	PortHeader = "port"
	// Name of header that specifies a request ID used to associate the error and data streams for a single
	// forwarded connection
	PortForwardRequestIDHeader = "requestID"
)

const (
	// MixedProtocolNotSupported error in PortStatus means that the cloud provider can't publish the port on the
	// load balancer because mixed values of protocols on the same LoadBalancer type of Service are not supported
	// by the cloud provider.
	MixedProtocolNotSupported = "MixedProtocolNotSupported"
)

const (
	// TaintNodeNotReady will be added when node is not ready and removed when node becomes ready.
	TaintNodeNotReady = "node.kubernetes.io/not-ready"
	// TaintNodeUnreachable will be added when node becomes unreachable (corresponding to NodeReady status
	// ConditionUnknown) and removed when node becomes reachable (NodeReady status ConditionTrue).
	TaintNodeUnreachable = "node.kubernetes.io/unreachable"
	// TaintNodeUnschedulable will be added when node becomes unschedulable and removed when node becomes
	// schedulable.
	TaintNodeUnschedulable = "node.kubernetes.io/unschedulable"
	// TaintNodeMemoryPressure will be added when node has memory pressure and removed when node has enough
	// memory.
	TaintNodeMemoryPressure = "node.kubernetes.io/memory-pressure"
	// TaintNodeDiskPressure will be added when node has disk pressure and removed when node has enough disk.
	TaintNodeDiskPressure = "node.kubernetes.io/disk-pressure"
	// TaintNodeNetworkUnavailable will be added when node's network is unavailable and removed when network
	// becomes ready.
	TaintNodeNetworkUnavailable = "node.kubernetes.io/network-unavailable"
	// TaintNodePIDPressure will be added when node has pid pressure and removed when node has enough pid.
	TaintNodePIDPressure = "node.kubernetes.io/pid-pressure"
	// TaintNodeOutOfService can be added when node is out of service in case of a non-graceful shutdown
	TaintNodeOutOfService = "node.kubernetes.io/out-of-service"
)

const (
	LabelHostname = "kubernetes.io/hostname"
	// AnnotationPeerAdvertiseAddress is the <ip:port> of a kube-apiserver, kept on its identity lease for peer proxy.
	AnnotationPeerAdvertiseAddress = "kubernetes.io/peer-advertise-address"
	LabelTopologyZone              = "topology.kubernetes.io/zone"
	LabelTopologyRegion            = "topology.kubernetes.io/region"
	// These label have been deprecated since 1.17, but will be supported for the foreseeable future, to
	// accommodate things like long-lived PVs that use them.
	LabelFailureDomainBetaZone   = "failure-domain.beta.kubernetes.io/zone"
	LabelFailureDomainBetaRegion = "failure-domain.beta.kubernetes.io/region"
	// Retained for compat when vendored.
	LabelZoneFailureDomain       = LabelFailureDomainBetaZone
	LabelZoneRegion              = LabelFailureDomainBetaRegion
	LabelZoneFailureDomainStable = LabelTopologyZone
	LabelZoneRegionStable        = LabelTopologyRegion
	LabelInstanceType            = "beta.kubernetes.io/instance-type"
	LabelInstanceTypeStable      = "node.kubernetes.io/instance-type"
	LabelOSStable                = "kubernetes.io/os"
	LabelArchStable              = "kubernetes.io/arch"
	// LabelWindowsBuild is used on Windows nodes to specify the Windows build number starting with v1.17.0.
	LabelWindowsBuild = "node.kubernetes.io/windows-build"
	// LabelNamespaceSuffixKubelet is an allowed label namespace suffix kubelets can self-set
	// ([*.]kubelet.kubernetes.io/*)
	LabelNamespaceSuffixKubelet = "kubelet.kubernetes.io"
	// LabelNamespaceSuffixNode is an allowed label namespace suffix kubelets can self-set
	// ([*.]node.kubernetes.io/*)
	LabelNamespaceSuffixNode = "node.kubernetes.io"
	// LabelNamespaceNodeRestriction is a forbidden label namespace that kubelets may not self-set when the
	// NodeRestriction admission plugin is enabled
	LabelNamespaceNodeRestriction = "node-restriction.kubernetes.io"
	// IsHeadlessService is added by Controller to an Endpoint denoting if its parent Service is Headless.
	IsHeadlessService = "service.kubernetes.io/headless"
	// LabelNodeExcludeBalancers specifies that the node should not be considered as a target for external
	// load-balancers which use nodes as a second hop (e.g. many cloud LBs which only understand nodes).
	LabelNodeExcludeBalancers = "node.kubernetes.io/exclude-from-external-load-balancers"
	// LabelMetadataName is the label name which, in-tree, is used to automatically label namespaces, so they can
	// be selected easily by tools which require definitive labels
	LabelMetadataName = "kubernetes.io/metadata.name"
)

const (
	// ImagePolicyFailedOpenKey is added to pods created by failing open when the image policy webhook backend
	// fails.
	ImagePolicyFailedOpenKey string = "alpha.image-policy.k8s.io/failed-open"
	// MirrorPodAnnotationKey represents the annotation key set by kubelets when creating mirror pods
	MirrorPodAnnotationKey string = "kubernetes.io/config.mirror"
	// TolerationsAnnotationKey represents the key of tolerations data (json serialized) in the Annotations of a
	// Pod.
	TolerationsAnnotationKey string = "scheduler.alpha.kubernetes.io/tolerations"
	// TaintsAnnotationKey represents the key of taints data (json serialized) in the Annotations of a Node.
	TaintsAnnotationKey string = "scheduler.alpha.kubernetes.io/taints"
	// SeccompPodAnnotationKey represents the key of a seccomp profile applied to all containers of a pod.
	SeccompPodAnnotationKey string = "seccomp.security.alpha.kubernetes.io/pod"
	// SeccompContainerAnnotationKeyPrefix represents the key of a seccomp profile applied to one container of a
	// pod.
	SeccompContainerAnnotationKeyPrefix string = "container.seccomp.security.alpha.kubernetes.io/"
	// SeccompProfileRuntimeDefault represents the default seccomp profile used by container runtime.
	SeccompProfileRuntimeDefault string = "runtime/default"
	// SeccompProfileNameUnconfined is the unconfined seccomp profile.
	SeccompProfileNameUnconfined string = "unconfined"
	// SeccompLocalhostProfileNamePrefix is the prefix for specifying profiles loaded from the node's disk.
	SeccompLocalhostProfileNamePrefix = "localhost/"
	// DeprecatedAppArmorBetaContainerAnnotationKeyPrefix is the prefix to an annotation key specifying a
	// container's apparmor profile.
	DeprecatedAppArmorBetaContainerAnnotationKeyPrefix = "container.apparmor.security.beta.kubernetes.io/"
	// DeprecatedAppArmorBetaProfileRuntimeDefault is the profile specifying the runtime default.
	DeprecatedAppArmorBetaProfileRuntimeDefault = "runtime/default"
	// DeprecatedAppArmorBetaProfileNamePrefix is the prefix for specifying profiles loaded on the node.
	DeprecatedAppArmorBetaProfileNamePrefix = "localhost/"
	// DeprecatedAppArmorBetaProfileNameUnconfined is the Unconfined AppArmor profile
	DeprecatedAppArmorBetaProfileNameUnconfined = "unconfined"
	// DeprecatedSeccompProfileDockerDefault represents the default seccomp profile used by docker.
	DeprecatedSeccompProfileDockerDefault string = "docker/default"
	// PreferAvoidPodsAnnotationKey represents the key of preferAvoidPods data (json serialized) in the
	// Annotations of a Node.
	PreferAvoidPodsAnnotationKey string = "scheduler.alpha.kubernetes.io/preferAvoidPods"
	// ObjectTTLAnnotationKey represents a suggestion for kubelet for how long it can cache an object (e.g.
	// secret, config map) before fetching it again from apiserver.
	ObjectTTLAnnotationKey string = "node.alpha.kubernetes.io/ttl"
	// NonConvertibleAnnotationPrefix is the annotation key prefix used to identify non-convertible json paths.
	NonConvertibleAnnotationPrefix = "non-convertible.kubernetes.io"
	kubectlPrefix                  = "kubectl.kubernetes.io/"
	// LastAppliedConfigAnnotation is the annotation used to store the previous configuration of a resource for
	// use in a three way diff by UpdateApplyAnnotation.
	LastAppliedConfigAnnotation = kubectlPrefix + "last-applied-configuration"
	// AnnotationLoadBalancerSourceRangesKey is the key of the annotation on a service to set allowed ingress
	// ranges on their LoadBalancers
	AnnotationLoadBalancerSourceRangesKey = "service.beta.kubernetes.io/load-balancer-source-ranges"
	// EndpointsLastChangeTriggerTime is the annotation key, set for endpoints objects, that represents the
	// timestamp (stored as RFC 3339 date-time string, e.g. '2018-10-22T19:32:52.1Z') of the last change, of some
	// Pod or Service object, that triggered the endpoints object change.
	EndpointsLastChangeTriggerTime = "endpoints.kubernetes.io/last-change-trigger-time"
	// EndpointsOverCapacity will be set on an Endpoints resource when it exceeds the maximum capacity of 1000
	// addresses.
	EndpointsOverCapacity = "endpoints.kubernetes.io/over-capacity"
	// MigratedPluginsAnnotationKey is the annotation key, set for CSINode objects, that is a comma-separated
	// list of in-tree plugins that will be serviced by the CSI backend on the Node represented by CSINode.
	MigratedPluginsAnnotationKey = "storage.alpha.kubernetes.io/migrated-plugins"
	// PodDeletionCost can be used to set to an int32 that represent the cost of deleting a pod compared to other
	// pods belonging to the same ReplicaSet.
	PodDeletionCost = "controller.kubernetes.io/pod-deletion-cost"
	// DeprecatedAnnotationTopologyAwareHints can be used to enable or disable Topology Aware Hints for a
	// Service.
	DeprecatedAnnotationTopologyAwareHints = "service.kubernetes.io/topology-aware-hints"
	// AnnotationTopologyMode can be used to enable or disable Topology Aware Routing for a Service.
	AnnotationTopologyMode = "service.kubernetes.io/topology-mode"
)

// Node role labels. Upstream keeps these in kubectl and kubeadm; "kubectl get nodes" reads them for the ROLES column.
const (
	// LabelNodeRolePrefix is the prefix of "node-role.kubernetes.io/<role>" labels.
	LabelNodeRolePrefix = "node-role.kubernetes.io/"
	// NodeLabelRole is the older "kubernetes.io/role: <role>" label.
	NodeLabelRole = "kubernetes.io/role"
	// LabelNodeRoleControlPlane marks control-plane nodes.
	LabelNodeRoleControlPlane = "node-role.kubernetes.io/control-plane"
)
