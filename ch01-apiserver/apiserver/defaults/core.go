package defaults

import (
	"kubik/ch01-apiserver/api/corev1"
	"kubik/ch01-apiserver/api/intstr"
)

// setDefaultsService is SetDefaults_Service. The cluster IP, ipFamilies and
// ipFamilyPolicy are not defaults: the registry allocates them.
func setDefaultsService(svc *corev1.Service) {
	spec := &svc.Spec
	if spec.SessionAffinity == "" {
		spec.SessionAffinity = corev1.ServiceAffinityNone
	}
	switch spec.SessionAffinity {
	case corev1.ServiceAffinityNone:
		spec.SessionAffinityConfig = nil
	case corev1.ServiceAffinityClientIP:
		c := spec.SessionAffinityConfig
		if c == nil || c.ClientIP == nil || c.ClientIP.TimeoutSeconds == nil {
			spec.SessionAffinityConfig = &corev1.SessionAffinityConfig{
				ClientIP: &corev1.ClientIPConfig{TimeoutSeconds: ptrTo(corev1.DefaultClientIPServiceAffinitySeconds)},
			}
		}
	}
	if spec.Type == "" {
		spec.Type = corev1.ServiceTypeClusterIP
	}
	for i := range spec.Ports {
		p := &spec.Ports[i]
		if p.Protocol == "" {
			p.Protocol = corev1.ProtocolTCP
		}
		// An unset targetPort (0 or "") means "the same as port".
		if (p.TargetPort.Type == intstr.Int && p.TargetPort.IntVal == 0) ||
			(p.TargetPort.Type == intstr.String && p.TargetPort.StrVal == "") {
			p.TargetPort = intstr.FromInt(int(p.Port))
		}
	}
	externallyAccessible := spec.Type == corev1.ServiceTypeLoadBalancer || spec.Type == corev1.ServiceTypeNodePort ||
		(spec.Type == corev1.ServiceTypeClusterIP && len(spec.ExternalIPs) > 0)
	if externallyAccessible && spec.ExternalTrafficPolicy == "" {
		spec.ExternalTrafficPolicy = corev1.ServiceExternalTrafficPolicyCluster
	}
	if spec.InternalTrafficPolicy == nil {
		switch spec.Type {
		case corev1.ServiceTypeNodePort, corev1.ServiceTypeLoadBalancer, corev1.ServiceTypeClusterIP:
			spec.InternalTrafficPolicy = ptrTo(corev1.ServiceInternalTrafficPolicyCluster)
		}
	}
	if spec.Type == corev1.ServiceTypeLoadBalancer {
		if spec.AllocateLoadBalancerNodePorts == nil {
			spec.AllocateLoadBalancerNodePorts = ptrTo(true)
		}
		for i, ing := range svc.Status.LoadBalancer.Ingress {
			if ing.IP != "" && ing.IPMode == nil {
				svc.Status.LoadBalancer.Ingress[i].IPMode = ptrTo(corev1.LoadBalancerIPModeVIP)
			}
		}
	}
}

// setDefaultsEndpoints is SetDefaults_Endpoints: ports' protocol TCP.
func setDefaultsEndpoints(ep *corev1.Endpoints) {
	for i := range ep.Subsets {
		for j := range ep.Subsets[i].Ports {
			if p := &ep.Subsets[i].Ports[j]; p.Protocol == "" {
				p.Protocol = corev1.ProtocolTCP
			}
		}
	}
}

// setDefaultsNamespace is SetDefaults_Namespace and SetDefaults_NamespaceStatus:
// every named namespace carries the immutable label
// kubernetes.io/metadata.name=<name>, and a new namespace is Active. The
// "kubernetes" finalizer in spec.finalizers is added by the registry on create
// (PrepareNamespaceForCreate), not here.
func setDefaultsNamespace(ns *corev1.Namespace) {
	if ns.Name != "" {
		if ns.Labels == nil {
			ns.Labels = map[string]string{}
		}
		ns.Labels[corev1.LabelMetadataName] = ns.Name
	}
	if ns.Status.Phase == "" {
		ns.Status.Phase = corev1.NamespaceActive
	}
}

// setDefaultsNodeStatus is SetDefaults_NodeStatus: allocatable defaults to capacity.
func setDefaultsNodeStatus(s *corev1.NodeStatus) {
	if s.Allocatable == nil && s.Capacity != nil {
		s.Allocatable = make(corev1.ResourceList, len(s.Capacity))
		for name, q := range s.Capacity {
			s.Allocatable[name] = q.DeepCopy()
		}
	}
	roundUpResourceList(s.Capacity)
	roundUpResourceList(s.Allocatable)
}

// setDefaultsSecret is SetDefaults_Secret (type Opaque) plus what the
// conversion to the internal type does with stringData: it is write-only, its
// entries overwrite data's and the field itself is never stored.
func setDefaultsSecret(s *corev1.Secret) {
	if s.Type == "" {
		s.Type = corev1.SecretTypeOpaque
	}
	if len(s.StringData) > 0 {
		if s.Data == nil {
			s.Data = map[string][]byte{}
		}
		for k, v := range s.StringData {
			s.Data[k] = []byte(v)
		}
	}
	s.StringData = nil
}

// setDefaultsPersistentVolume is SetDefaults_PersistentVolume.
func setDefaultsPersistentVolume(pv *corev1.PersistentVolume) {
	if pv.Status.Phase == "" {
		pv.Status.Phase = corev1.VolumePending
	}
	if pv.Spec.PersistentVolumeReclaimPolicy == "" {
		pv.Spec.PersistentVolumeReclaimPolicy = corev1.PersistentVolumeReclaimRetain
	}
	if pv.Spec.VolumeMode == nil {
		pv.Spec.VolumeMode = ptrTo(corev1.PersistentVolumeFilesystem)
	}
	if pv.Spec.HostPath != nil && pv.Spec.HostPath.Type == nil {
		pv.Spec.HostPath.Type = ptrTo(corev1.HostPathUnset)
	}
	roundUpResourceList(pv.Spec.Capacity)
}

// setDefaultsPersistentVolumeClaim is SetDefaults_PersistentVolumeClaim and
// SetDefaults_PersistentVolumeClaimSpec, then the resource lists of the
// status are rounded like the spec's.
func setDefaultsPersistentVolumeClaim(pvc *corev1.PersistentVolumeClaim) {
	if pvc.Status.Phase == "" {
		pvc.Status.Phase = corev1.ClaimPending
	}
	setDefaultsPersistentVolumeClaimSpec(&pvc.Spec)
	roundUpResourceList(pvc.Status.Capacity)
	roundUpResourceList(pvc.Status.AllocatedResources)
}

func setDefaultsPersistentVolumeClaimSpec(spec *corev1.PersistentVolumeClaimSpec) {
	if spec.VolumeMode == nil {
		spec.VolumeMode = ptrTo(corev1.PersistentVolumeFilesystem)
	}
	roundUpResourceList(spec.Resources.Limits)
	roundUpResourceList(spec.Resources.Requests)
}

// setDefaultsLimitRange is SetDefaults_LimitRangeItem for every item, each
// followed by the rounding of all five of its resource lists.
func setDefaultsLimitRange(lr *corev1.LimitRange) {
	for i := range lr.Spec.Limits {
		item := &lr.Spec.Limits[i]
		setDefaultsLimitRangeItem(item)
		for _, list := range []corev1.ResourceList{item.Max, item.Min, item.Default, item.DefaultRequest, item.MaxLimitRequestRatio} {
			roundUpResourceList(list)
		}
	}
}

// setDefaultsResourceQuota rounds the quota's hard limits and, in the status,
// the enforced limits and the observed use (the generated defaulter of
// ResourceQuota; there is no SetDefaults_ResourceQuota).
func setDefaultsResourceQuota(q *corev1.ResourceQuota) {
	roundUpResourceList(q.Spec.Hard)
	roundUpResourceList(q.Status.Hard)
	roundUpResourceList(q.Status.Used)
}

// setDefaultsConfigMap is SetDefaults_ConfigMap: data is never nil. (An empty
// map is omitted from JSON, so clients see no difference.)
func setDefaultsConfigMap(cm *corev1.ConfigMap) {
	if cm.Data == nil {
		cm.Data = map[string]string{}
	}
}

// setDefaultsLimitRangeItem is SetDefaults_LimitRangeItem: for containers,
// the default limit falls back to max, the default request to the default
// limit and then to min.
func setDefaultsLimitRangeItem(item *corev1.LimitRangeItem) {
	if item.Type != corev1.LimitTypeContainer {
		return
	}
	if item.Default == nil {
		item.Default = corev1.ResourceList{}
	}
	if item.DefaultRequest == nil {
		item.DefaultRequest = corev1.ResourceList{}
	}
	for name, q := range item.Max {
		if _, ok := item.Default[name]; !ok {
			item.Default[name] = q.DeepCopy()
		}
	}
	for name, q := range item.Default {
		if _, ok := item.DefaultRequest[name]; !ok {
			item.DefaultRequest[name] = q.DeepCopy()
		}
	}
	for name, q := range item.Min {
		if _, ok := item.DefaultRequest[name]; !ok {
			item.DefaultRequest[name] = q.DeepCopy()
		}
	}
}

// setDefaultsReplicationController is SetDefaults_ReplicationController: the
// selector and the controller's own labels default to the template's labels.
// Then the "+default=1" marker of replicas, and the template gets the pod
// template defaults.
func setDefaultsReplicationController(rc *corev1.ReplicationController) {
	if t := rc.Spec.Template; t != nil && t.Labels != nil {
		if len(rc.Spec.Selector) == 0 {
			rc.Spec.Selector = t.Labels
		}
		if len(rc.Labels) == 0 {
			rc.Labels = t.Labels
		}
	}
	if rc.Spec.Replicas == nil {
		rc.Spec.Replicas = ptrTo(int32(1))
	}
	if rc.Spec.Template != nil {
		setDefaultsPodTemplateSpec(rc.Spec.Template)
	}
}
