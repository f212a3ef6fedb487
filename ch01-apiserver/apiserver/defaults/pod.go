package defaults

import (
	"strings"

	"kubik/ch01-apiserver/api/corev1"
	"kubik/ch01-apiserver/api/resource"
)

// setDefaultsPod is SetDefaults_Pod plus the defaults of everything inside the
// pod spec and the rounding of the status' resource lists. Some defaults exist
// only on a Pod, never in a template: requests copied from limits, the
// pod-level resources filled from the containers' (the PodLevelResources
// feature, on by default since 1.34), and enableServiceLinks.
func setDefaultsPod(pod *corev1.Pod) {
	spec := &pod.Spec
	for _, containers := range [][]corev1.Container{spec.Containers, spec.InitContainers} {
		for i := range containers {
			defaultRequestsFromLimits(&containers[i].Resources)
		}
	}
	// Pod-level defaults come after the containers' own.
	defaultHugePagePodLimits(pod)
	defaultPodRequests(pod)
	if spec.EnableServiceLinks == nil {
		spec.EnableServiceLinks = ptrTo(corev1.DefaultEnableServiceLinks)
	}
	if spec.HostNetwork {
		// With host networking, a container port is also a host port.
		defaultHostNetworkPorts(spec.Containers)
		defaultHostNetworkPorts(spec.InitContainers)
	}
	setDefaultsPodSpec(spec)
	setDefaultsPodStatus(&pod.Status)
}

// setDefaultsPodStatus rounds the resource lists the kubelet reports for the
// pod and each of its containers.
func setDefaultsPodStatus(s *corev1.PodStatus) {
	for _, statuses := range [][]corev1.ContainerStatus{s.InitContainerStatuses, s.ContainerStatuses, s.EphemeralContainerStatuses} {
		for i := range statuses {
			roundUpResourceList(statuses[i].AllocatedResources)
			if r := statuses[i].Resources; r != nil {
				roundUpResourceList(r.Limits)
				roundUpResourceList(r.Requests)
			}
		}
	}
	roundUpResourceList(s.AllocatedResources)
	if s.Resources != nil {
		roundUpResourceList(s.Resources.Limits)
		roundUpResourceList(s.Resources.Requests)
	}
}

// defaultRequestsFromLimits: a container that sets limits but not requests
// requests what it limits (which is what makes such a pod Guaranteed).
func defaultRequestsFromLimits(r *corev1.ResourceRequirements) {
	if r.Limits == nil {
		return
	}
	if r.Requests == nil {
		r.Requests = corev1.ResourceList{}
	}
	for name, limit := range r.Limits {
		if _, ok := r.Requests[name]; !ok {
			r.Requests[name] = limit.DeepCopy()
		}
	}
}

func defaultHostNetworkPorts(containers []corev1.Container) {
	for i := range containers {
		for j := range containers[i].Ports {
			p := &containers[i].Ports[j]
			if p.HostPort == 0 {
				p.HostPort = p.ContainerPort
			}
		}
	}
}

// setDefaultsPodTemplateSpec defaults the pod template of a workload: the pod
// spec defaults apply, the Pod-only ones (enableServiceLinks, requests from
// limits) do not, which is why a Deployment's template shows no
// enableServiceLinks.
func setDefaultsPodTemplateSpec(t *corev1.PodTemplateSpec) {
	setDefaultsPodSpec(&t.Spec)
}

// setDefaultsPodSpec is SetDefaults_PodSpec plus the generated defaulting of
// the spec's volumes, containers and resource lists.
func setDefaultsPodSpec(spec *corev1.PodSpec) {
	if spec.DNSPolicy == "" {
		spec.DNSPolicy = corev1.DNSClusterFirst
	}
	if spec.RestartPolicy == "" {
		spec.RestartPolicy = corev1.RestartPolicyAlways
	}
	if spec.SecurityContext == nil {
		spec.SecurityContext = &corev1.PodSecurityContext{}
	}
	if spec.TerminationGracePeriodSeconds == nil {
		spec.TerminationGracePeriodSeconds = ptrTo(int64(corev1.DefaultTerminationGracePeriodSeconds))
	}
	if spec.SchedulerName == "" {
		spec.SchedulerName = corev1.DefaultSchedulerName
	}
	for i := range spec.Volumes {
		setDefaultsVolume(&spec.Volumes[i])
	}
	for i := range spec.InitContainers {
		setDefaultsContainer(&spec.InitContainers[i])
	}
	for i := range spec.Containers {
		setDefaultsContainer(&spec.Containers[i])
	}
	for i := range spec.EphemeralContainers {
		c := corev1.Container(spec.EphemeralContainers[i].EphemeralContainerCommon)
		setDefaultsContainer(&c)
		spec.EphemeralContainers[i].EphemeralContainerCommon = corev1.EphemeralContainerCommon(c)
	}
	roundUpResourceList(spec.Overhead)
	if spec.Resources != nil {
		roundUpResourceList(spec.Resources.Limits)
		roundUpResourceList(spec.Resources.Requests)
	}
}

// setDefaultsContainer is SetDefaults_Container plus the defaults of the
// container's ports, env, probes and lifecycle hooks.
func setDefaultsContainer(c *corev1.Container) {
	if c.ImagePullPolicy == "" {
		c.ImagePullPolicy = defaultPullPolicy(c.Image)
	}
	if c.TerminationMessagePath == "" {
		c.TerminationMessagePath = corev1.TerminationMessagePathDefault
	}
	if c.TerminationMessagePolicy == "" {
		c.TerminationMessagePolicy = corev1.TerminationMessageReadFile
	}
	for i := range c.Ports {
		if c.Ports[i].Protocol == "" {
			c.Ports[i].Protocol = corev1.ProtocolTCP
		}
	}
	for i := range c.Env {
		if src := c.Env[i].ValueFrom; src != nil {
			setDefaultsObjectFieldSelector(src.FieldRef)
			if src.FileKeyRef != nil && src.FileKeyRef.Optional == nil {
				src.FileKeyRef.Optional = ptrTo(false)
			}
		}
	}
	roundUpResourceList(c.Resources.Limits)
	roundUpResourceList(c.Resources.Requests)
	for _, p := range []*corev1.Probe{c.LivenessProbe, c.ReadinessProbe, c.StartupProbe} {
		setDefaultsProbe(p)
	}
	if l := c.Lifecycle; l != nil {
		for _, h := range []*corev1.LifecycleHandler{l.PostStart, l.PreStop} {
			if h != nil {
				setDefaultsHTTPGetAction(h.HTTPGet)
			}
		}
	}
}

// defaultPullPolicy: images tagged :latest (or untagged, which means latest)
// are pulled Always, everything else IfNotPresent. An image pinned by digest
// and without a tag is not "latest".
func defaultPullPolicy(image string) corev1.PullPolicy {
	if imageTag(image) == "latest" {
		return corev1.PullAlways
	}
	return corev1.PullIfNotPresent
}

// imageTag returns the tag of an image reference, "latest" when the reference
// has neither a tag nor a digest, and "" for a digest without a tag.
func imageTag(image string) string {
	name, digest, hasDigest := strings.Cut(image, "@")
	_ = digest
	// A ':' after the last '/' starts the tag; one before it is a registry port.
	if i := strings.LastIndex(name, ":"); i >= 0 && i > strings.LastIndex(name, "/") {
		return name[i+1:]
	}
	if hasDigest {
		return ""
	}
	return "latest"
}

// setDefaultsProbe is SetDefaults_Probe: timeout 1s, period 10s, success
// threshold 1, failure threshold 3, and the handler's own defaults.
func setDefaultsProbe(p *corev1.Probe) {
	if p == nil {
		return
	}
	if p.TimeoutSeconds == 0 {
		p.TimeoutSeconds = 1
	}
	if p.PeriodSeconds == 0 {
		p.PeriodSeconds = 10
	}
	if p.SuccessThreshold == 0 {
		p.SuccessThreshold = 1
	}
	if p.FailureThreshold == 0 {
		p.FailureThreshold = 3
	}
	setDefaultsHTTPGetAction(p.HTTPGet)
	if p.GRPC != nil && p.GRPC.Service == nil {
		p.GRPC.Service = ptrTo("")
	}
}

// setDefaultsHTTPGetAction is SetDefaults_HTTPGetAction: path "/", scheme HTTP.
func setDefaultsHTTPGetAction(a *corev1.HTTPGetAction) {
	if a == nil {
		return
	}
	if a.Path == "" {
		a.Path = "/"
	}
	if a.Scheme == "" {
		a.Scheme = corev1.URISchemeHTTP
	}
}

// setDefaultsObjectFieldSelector is SetDefaults_ObjectFieldSelector: fieldRef
// apiVersion v1.
func setDefaultsObjectFieldSelector(s *corev1.ObjectFieldSelector) {
	if s != nil && s.APIVersion == "" {
		s.APIVersion = "v1"
	}
}

// setDefaultsVolume is SetDefaults_Volume: a volume with no source is an
// emptyDir. Then each source gets its own defaults (file modes 0644, ...).
func setDefaultsVolume(v *corev1.Volume) {
	if v.VolumeSource == (corev1.VolumeSource{}) {
		v.EmptyDir = &corev1.EmptyDirVolumeSource{}
	}
	src := &v.VolumeSource
	if src.HostPath != nil && src.HostPath.Type == nil {
		src.HostPath.Type = ptrTo(corev1.HostPathUnset)
	}
	if src.Secret != nil && src.Secret.DefaultMode == nil {
		src.Secret.DefaultMode = ptrTo(corev1.SecretVolumeSourceDefaultMode)
	}
	if src.ConfigMap != nil && src.ConfigMap.DefaultMode == nil {
		src.ConfigMap.DefaultMode = ptrTo(corev1.ConfigMapVolumeSourceDefaultMode)
	}
	if src.DownwardAPI != nil {
		if src.DownwardAPI.DefaultMode == nil {
			src.DownwardAPI.DefaultMode = ptrTo(corev1.DownwardAPIVolumeSourceDefaultMode)
		}
		for i := range src.DownwardAPI.Items {
			setDefaultsObjectFieldSelector(src.DownwardAPI.Items[i].FieldRef)
		}
	}
	if src.Projected != nil {
		if src.Projected.DefaultMode == nil {
			src.Projected.DefaultMode = ptrTo(corev1.ProjectedVolumeSourceDefaultMode)
		}
		for i := range src.Projected.Sources {
			s := &src.Projected.Sources[i]
			if s.DownwardAPI != nil {
				for j := range s.DownwardAPI.Items {
					setDefaultsObjectFieldSelector(s.DownwardAPI.Items[j].FieldRef)
				}
			}
			if s.ServiceAccountToken != nil && s.ServiceAccountToken.ExpirationSeconds == nil {
				// SetDefaults_ServiceAccountTokenProjection: one hour.
				s.ServiceAccountToken.ExpirationSeconds = ptrTo(int64(3600))
			}
		}
	}
	if src.Ephemeral != nil && src.Ephemeral.VolumeClaimTemplate != nil {
		setDefaultsPersistentVolumeClaimSpec(&src.Ephemeral.VolumeClaimTemplate.Spec)
	}
	if src.Image != nil && src.Image.PullPolicy == "" {
		src.Image.PullPolicy = defaultPullPolicy(src.Image.Reference)
	}
}

// roundUpResourceList is SetDefaults_ResourceList: quantities are rounded up
// to milli precision (0.0001 cpu becomes 1m).
func roundUpResourceList(list corev1.ResourceList) {
	for name, q := range list {
		q.RoundUp(resource.Milli)
		list[name] = q
	}
}
