package validation

import (
	"encoding/json"
	"fmt"
	"math"
	"strings"

	"kubik/ch01-apiserver/api/corev1"
	"kubik/ch01-apiserver/api/metav1"
	"kubik/ch01-apiserver/apiserver/validation/field"
)

// updatablePodSpecFields is listed in the error for a forbidden pod update.
var updatablePodSpecFields = []string{
	"`spec.containers[*].image`",
	"`spec.initContainers[*].image`",
	"`spec.activeDeadlineSeconds`",
	"`spec.tolerations` (only additions to existing tolerations)",
	"`spec.terminationGracePeriodSeconds` (allow it to be set to 1 if it was previously negative)",
}

// validatePod is ValidatePodCreate: metadata and spec.
func validatePod(pod *corev1.Pod) field.ErrorList {
	errs := ValidateObjectMeta(&pod.ObjectMeta, true, NameIsDNSSubdomain, field.NewPath("metadata"))
	spec := field.NewPath("spec")
	errs = append(errs, ValidatePodSpec(&pod.Spec, spec)...)
	if len(pod.Spec.EphemeralContainers) > 0 {
		errs = append(errs, field.Forbidden(spec.Child("ephemeralContainers"), "cannot be set on create"))
	}
	if pod.Spec.NodeName != "" && len(pod.Spec.SchedulingGates) != 0 {
		errs = append(errs, field.Forbidden(spec.Child("nodeName"), "cannot be set until all schedulingGates have been cleared"))
	}
	return errs
}

// validatePodUpdate is ValidatePodUpdate: a running pod may change its
// images, shorten activeDeadlineSeconds, gain tolerations and lose
// scheduling gates; everything else in the spec is fixed.
func validatePodUpdate(pod, old *corev1.Pod) field.ErrorList {
	errs := ValidateObjectMetaUpdate(&pod.ObjectMeta, &old.ObjectMeta, field.NewPath("metadata"))
	spec := field.NewPath("spec")
	errs = append(errs, ValidatePodSpec(&pod.Spec, spec)...)
	for _, c := range []struct {
		name     string
		new, old []corev1.Container
	}{{"containers", pod.Spec.Containers, old.Spec.Containers}, {"initContainers", pod.Spec.InitContainers, old.Spec.InitContainers}} {
		if len(c.new) != len(c.old) {
			return append(errs, field.Forbidden(spec.Child(c.name), "pod updates may not add or remove containers"))
		}
	}
	if ads := pod.Spec.ActiveDeadlineSeconds; ads != nil {
		if *ads < 0 || *ads > math.MaxInt32 {
			return append(errs, field.Invalid(spec.Child("activeDeadlineSeconds"), *ads, InclusiveRangeError(0, math.MaxInt32)))
		}
		if old.Spec.ActiveDeadlineSeconds != nil && *old.Spec.ActiveDeadlineSeconds < *ads {
			return append(errs, field.Invalid(spec.Child("activeDeadlineSeconds"), *ads, "must be less than or equal to previous value"))
		}
	} else if old.Spec.ActiveDeadlineSeconds != nil {
		errs = append(errs, field.Invalid(spec.Child("activeDeadlineSeconds"), pod.Spec.ActiveDeadlineSeconds, "must not update from a positive integer to nil value"))
	}

	// Put the allowed changes back to their old values; whatever differs
	// after that is a forbidden change.
	munged := metav1.DeepCopy(&pod.Spec)
	for i := range munged.Containers {
		munged.Containers[i].Image = old.Spec.Containers[i].Image
	}
	for i := range munged.InitContainers {
		munged.InitContainers[i].Image = old.Spec.InitContainers[i].Image
	}
	munged.ActiveDeadlineSeconds = old.Spec.ActiveDeadlineSeconds
	munged.SchedulingGates = old.Spec.SchedulingGates
	munged.Tolerations = old.Spec.Tolerations
	if g := old.Spec.TerminationGracePeriodSeconds; g != nil && *g < 0 &&
		munged.TerminationGracePeriodSeconds != nil && *munged.TerminationGracePeriodSeconds == 1 {
		munged.TerminationGracePeriodSeconds = g
	}
	if len(old.Spec.SchedulingGates) > 0 {
		// A gated pod may still gain node selector terms.
		munged.NodeSelector = old.Spec.NodeSelector
	}
	if !semanticEqual(munged, &old.Spec) {
		errs = append(errs, field.Forbidden(spec, fmt.Sprintf("pod updates may not change fields other than %s\n%s",
			strings.Join(updatablePodSpecFields, ","), specDiff(&old.Spec, munged))))
	}
	return errs
}

// specDiff is a short "-old +new" listing of the changed top-level fields.
// Upstream prints a go-cmp diff of its internal type; this is the same idea
// in JSON terms.
func specDiff(old, cur *corev1.PodSpec) string { return fieldDiff("core.PodSpec", old, cur) }

// fieldDiff lists the top-level JSON fields that differ between old and
// cur, "-" for the old value and "+" for the new, inside "  <typeName>{…}".
func fieldDiff(typeName string, old, cur any) string {
	var a, b map[string]json.RawMessage
	ja, _ := json.Marshal(old)
	jb, _ := json.Marshal(cur)
	_ = json.Unmarshal(ja, &a)
	_ = json.Unmarshal(jb, &b)
	var lines []string
	for _, k := range sortedKeys(mergeKeys(a, b)) {
		if string(a[k]) == string(b[k]) {
			continue
		}
		if a[k] != nil {
			lines = append(lines, "- \t"+k+": "+string(a[k]))
		}
		if b[k] != nil {
			lines = append(lines, "+ \t"+k+": "+string(b[k]))
		}
	}
	return "  " + typeName + "{\n" + strings.Join(lines, "\n") + "\n  }\n"
}

func mergeKeys(a, b map[string]json.RawMessage) map[string]bool {
	m := map[string]bool{}
	for k := range a {
		m[k] = true
	}
	for k := range b {
		m[k] = true
	}
	return m
}

// ValidatePodTemplateSpec checks a workload's pod template.
func ValidatePodTemplateSpec(t *corev1.PodTemplateSpec, fldPath *field.Path) field.ErrorList {
	errs := ValidateLabels(t.Labels, fldPath.Child("labels"))
	errs = append(errs, ValidateAnnotations(t.Annotations, fldPath.Child("annotations"))...)
	errs = append(errs, ValidatePodSpec(&t.Spec, fldPath.Child("spec"))...)
	if len(t.Spec.EphemeralContainers) > 0 {
		errs = append(errs, field.Forbidden(fldPath.Child("spec", "ephemeralContainers"), "ephemeral containers not allowed in pod template"))
	}
	return errs
}

// ValidatePodSpec checks a pod spec (ValidatePodSpec upstream, the common part).
func ValidatePodSpec(spec *corev1.PodSpec, fldPath *field.Path) field.ErrorList {
	volumes, errs := validateVolumes(spec.Volumes, fldPath.Child("volumes"))
	names := map[string]bool{}
	errs = append(errs, validateContainers(spec.InitContainers, volumes, names, fldPath.Child("initContainers"), false)...)
	if len(spec.Containers) == 0 {
		errs = append(errs, field.Required(fldPath.Child("containers"), ""))
	} else {
		errs = append(errs, validateContainers(spec.Containers, volumes, names, fldPath.Child("containers"), true)...)
	}
	errs = append(errs, validateEphemeralContainers(spec, volumes, names, fldPath.Child("ephemeralContainers"))...)
	errs = append(errs, validateResizePolicies(spec, fldPath)...)
	errs = append(errs, validateRestartPolicy(spec.RestartPolicy, fldPath.Child("restartPolicy"))...)
	errs = append(errs, validateDNSPolicy(spec.DNSPolicy, fldPath.Child("dnsPolicy"))...)
	errs = append(errs, ValidateLabels(spec.NodeSelector, fldPath.Child("nodeSelector"))...)
	errs = append(errs, validateTolerations(spec.Tolerations, fldPath.Child("tolerations"))...)
	if spec.ServiceAccountName != "" {
		for _, msg := range NameIsDNSSubdomain(spec.ServiceAccountName, false) {
			errs = append(errs, field.Invalid(fldPath.Child("serviceAccountName"), spec.ServiceAccountName, msg))
		}
	}
	if spec.NodeName != "" {
		for _, msg := range NameIsDNSSubdomain(spec.NodeName, false) {
			errs = append(errs, field.Invalid(fldPath.Child("nodeName"), spec.NodeName, msg))
		}
	}
	if ads := spec.ActiveDeadlineSeconds; ads != nil && (*ads < 1 || *ads > math.MaxInt32) {
		errs = append(errs, field.Invalid(fldPath.Child("activeDeadlineSeconds"), *ads, InclusiveRangeError(1, math.MaxInt32)))
	}
	if spec.Hostname != "" {
		for _, msg := range IsDNS1123Label(spec.Hostname) {
			errs = append(errs, field.Invalid(fldPath.Child("hostname"), spec.Hostname, msg))
		}
	}
	if spec.Subdomain != "" {
		for _, msg := range IsDNS1123Label(spec.Subdomain) {
			errs = append(errs, field.Invalid(fldPath.Child("subdomain"), spec.Subdomain, msg))
		}
	}
	return errs
}

func validateRestartPolicy(p corev1.RestartPolicy, fldPath *field.Path) field.ErrorList {
	switch p {
	case corev1.RestartPolicyAlways, corev1.RestartPolicyOnFailure, corev1.RestartPolicyNever:
		return nil
	case "":
		return field.ErrorList{field.Required(fldPath, "")}
	}
	return field.ErrorList{field.NotSupported(fldPath, p, []corev1.RestartPolicy{
		corev1.RestartPolicyAlways, corev1.RestartPolicyOnFailure, corev1.RestartPolicyNever})}
}

func validateDNSPolicy(p corev1.DNSPolicy, fldPath *field.Path) field.ErrorList {
	switch p {
	case corev1.DNSClusterFirstWithHostNet, corev1.DNSClusterFirst, corev1.DNSDefault, corev1.DNSNone:
		return nil
	case "":
		return field.ErrorList{field.Required(fldPath, "")}
	}
	return field.ErrorList{field.NotSupported(fldPath, p, []corev1.DNSPolicy{
		corev1.DNSClusterFirstWithHostNet, corev1.DNSClusterFirst, corev1.DNSDefault, corev1.DNSNone})}
}

// validateVolumes checks names and sources and returns the set of names for
// the volume mounts to refer to.
func validateVolumes(volumes []corev1.Volume, fldPath *field.Path) (map[string]bool, field.ErrorList) {
	var errs field.ErrorList
	names := map[string]bool{}
	for i, v := range volumes {
		p := fldPath.Index(i)
		if v.Name == "" {
			errs = append(errs, field.Required(p.Child("name"), ""))
		} else {
			for _, msg := range IsDNS1123Label(v.Name) {
				errs = append(errs, field.Invalid(p.Child("name"), v.Name, msg))
			}
			if names[v.Name] {
				errs = append(errs, field.Duplicate(p.Child("name"), v.Name))
			}
			names[v.Name] = true
		}
		errs = append(errs, validateVolumeSource(&v.VolumeSource, p)...)
	}
	return names, errs
}

// validateVolumeSource: exactly one source per volume.
func validateVolumeSource(src *corev1.VolumeSource, fldPath *field.Path) field.ErrorList {
	var set []string
	add := func(isSet bool, name string) {
		if isSet {
			set = append(set, name)
		}
	}
	add(src.HostPath != nil, "hostPath")
	add(src.EmptyDir != nil, "emptyDir")
	add(src.Secret != nil, "secret")
	add(src.NFS != nil, "nfs")
	add(src.PersistentVolumeClaim != nil, "persistentVolumeClaim")
	add(src.DownwardAPI != nil, "downwardAPI")
	add(src.ConfigMap != nil, "configMap")
	add(src.Projected != nil, "projected")
	add(src.CSI != nil, "csi")
	add(src.Ephemeral != nil, "ephemeral")
	add(src.Image != nil, "image")
	var errs field.ErrorList
	if len(set) == 0 {
		return field.ErrorList{field.Required(fldPath, "must specify a volume type")}
	}
	for _, name := range set[1:] {
		errs = append(errs, field.Forbidden(fldPath.Child(name), "may not specify more than 1 volume type"))
	}
	if src.HostPath != nil && src.HostPath.Path == "" {
		errs = append(errs, field.Required(fldPath.Child("hostPath", "path"), ""))
	}
	if src.Secret != nil && src.Secret.SecretName == "" {
		errs = append(errs, field.Required(fldPath.Child("secret", "secretName"), ""))
	}
	if src.ConfigMap != nil && src.ConfigMap.Name == "" {
		errs = append(errs, field.Required(fldPath.Child("configMap", "name"), ""))
	}
	if src.PersistentVolumeClaim != nil && src.PersistentVolumeClaim.ClaimName == "" {
		errs = append(errs, field.Required(fldPath.Child("persistentVolumeClaim", "claimName"), ""))
	}
	return errs
}

var supportedPortProtocols = []corev1.Protocol{corev1.ProtocolSCTP, corev1.ProtocolTCP, corev1.ProtocolUDP}

func validateContainers(containers []corev1.Container, volumes, names map[string]bool, fldPath *field.Path, regular bool) field.ErrorList {
	var errs field.ErrorList
	for i := range containers {
		c := &containers[i]
		p := fldPath.Index(i)
		if c.Name == "" {
			errs = append(errs, field.Required(p.Child("name"), ""))
		} else {
			for _, msg := range IsDNS1123Label(c.Name) {
				errs = append(errs, field.Invalid(p.Child("name"), c.Name, msg))
			}
			if names[c.Name] {
				errs = append(errs, field.Duplicate(p.Child("name"), c.Name))
			}
			names[c.Name] = true
		}
		if c.Image == "" {
			errs = append(errs, field.Required(p.Child("image"), ""))
		} else if strings.TrimSpace(c.Image) != c.Image {
			errs = append(errs, field.Invalid(p.Child("image"), c.Image, "must not have leading or trailing whitespace"))
		}
		errs = append(errs, validateContainerPorts(c.Ports, p.Child("ports"))...)
		errs = append(errs, validateEnv(c.Env, p.Child("env"))...)
		errs = append(errs, validateVolumeMounts(c.VolumeMounts, volumes, p.Child("volumeMounts"))...)
		errs = append(errs, validateResources(&c.Resources, p.Child("resources"))...)
		errs = append(errs, validatePullPolicy(c.ImagePullPolicy, p.Child("imagePullPolicy"))...)
		errs = append(errs, validateTerminationMessagePolicy(c.TerminationMessagePolicy, p.Child("terminationMessagePolicy"))...)
		if regular {
			errs = append(errs, validateProbe(c.LivenessProbe, p.Child("livenessProbe"), true)...)
			errs = append(errs, validateProbe(c.ReadinessProbe, p.Child("readinessProbe"), false)...)
			errs = append(errs, validateProbe(c.StartupProbe, p.Child("startupProbe"), true)...)
		}
	}
	return errs
}

func validatePullPolicy(p corev1.PullPolicy, fldPath *field.Path) field.ErrorList {
	switch p {
	case corev1.PullAlways, corev1.PullIfNotPresent, corev1.PullNever:
		return nil
	case "":
		return field.ErrorList{field.Required(fldPath, "")}
	}
	return field.ErrorList{field.NotSupported(fldPath, p, []corev1.PullPolicy{corev1.PullAlways, corev1.PullIfNotPresent, corev1.PullNever})}
}

func validateTerminationMessagePolicy(p corev1.TerminationMessagePolicy, fldPath *field.Path) field.ErrorList {
	switch p {
	case corev1.TerminationMessageReadFile, corev1.TerminationMessageFallbackToLogsOnError:
		return nil
	case "":
		return field.ErrorList{field.Required(fldPath, "")}
	}
	return field.ErrorList{field.NotSupported(fldPath, p, []corev1.TerminationMessagePolicy{
		corev1.TerminationMessageReadFile, corev1.TerminationMessageFallbackToLogsOnError})}
}

func validateContainerPorts(ports []corev1.ContainerPort, fldPath *field.Path) field.ErrorList {
	var errs field.ErrorList
	names := map[string]bool{}
	for i, port := range ports {
		p := fldPath.Index(i)
		if port.Name != "" {
			for _, msg := range IsValidPortName(port.Name) {
				errs = append(errs, field.Invalid(p.Child("name"), port.Name, msg))
			}
			if names[port.Name] {
				errs = append(errs, field.Duplicate(p.Child("name"), port.Name))
			}
			names[port.Name] = true
		}
		if port.ContainerPort == 0 {
			errs = append(errs, field.Required(p.Child("containerPort"), ""))
		} else {
			for _, msg := range IsValidPortNum(int(port.ContainerPort)) {
				errs = append(errs, field.Invalid(p.Child("containerPort"), port.ContainerPort, msg))
			}
		}
		if port.HostPort != 0 {
			for _, msg := range IsValidPortNum(int(port.HostPort)) {
				errs = append(errs, field.Invalid(p.Child("hostPort"), port.HostPort, msg))
			}
		}
		errs = append(errs, validateProtocol(port.Protocol, p.Child("protocol"))...)
	}
	return errs
}

func validateProtocol(proto corev1.Protocol, fldPath *field.Path) field.ErrorList {
	switch proto {
	case corev1.ProtocolSCTP, corev1.ProtocolTCP, corev1.ProtocolUDP:
		return nil
	case "":
		return field.ErrorList{field.Required(fldPath, "")}
	}
	return field.ErrorList{field.NotSupported(fldPath, proto, supportedPortProtocols)}
}

func validateEnv(env []corev1.EnvVar, fldPath *field.Path) field.ErrorList {
	var errs field.ErrorList
	for i, ev := range env {
		p := fldPath.Index(i)
		if ev.Name == "" {
			errs = append(errs, field.Required(p.Child("name"), ""))
		} else {
			for _, msg := range IsRelaxedEnvVarName(ev.Name) {
				errs = append(errs, field.Invalid(p.Child("name"), ev.Name, msg))
			}
		}
		if ev.ValueFrom != nil {
			src := ev.ValueFrom
			n := 0
			for _, set := range []bool{src.FieldRef != nil, src.ResourceFieldRef != nil, src.ConfigMapKeyRef != nil, src.SecretKeyRef != nil, src.FileKeyRef != nil} {
				if set {
					n++
				}
			}
			if ev.Value != "" && n != 0 {
				errs = append(errs, field.Invalid(p.Child("valueFrom"), "", "may not be specified when `value` is not empty"))
			}
			if n == 0 {
				errs = append(errs, field.Invalid(p.Child("valueFrom"), "", "must specify one of: `fieldRef`, `resourceFieldRef`, `configMapKeyRef` or `secretKeyRef`"))
			} else if n > 1 {
				errs = append(errs, field.Invalid(p.Child("valueFrom"), "", "may not have more than one field specified at a time"))
			}
		}
	}
	return errs
}

func validateVolumeMounts(mounts []corev1.VolumeMount, volumes map[string]bool, fldPath *field.Path) field.ErrorList {
	var errs field.ErrorList
	paths := map[string]bool{}
	for i, m := range mounts {
		p := fldPath.Index(i)
		if m.Name == "" {
			errs = append(errs, field.Required(p.Child("name"), ""))
		} else if !volumes[m.Name] {
			errs = append(errs, field.NotFound(p.Child("name"), m.Name))
		}
		if m.MountPath == "" {
			errs = append(errs, field.Required(p.Child("mountPath"), ""))
		} else if paths[m.MountPath] {
			errs = append(errs, field.Invalid(p.Child("mountPath"), m.MountPath, "must be unique"))
		}
		paths[m.MountPath] = true
	}
	return errs
}

// validateResources: quantities are not negative and a request does not
// exceed its limit.
func validateResources(r *corev1.ResourceRequirements, fldPath *field.Path) field.ErrorList {
	var errs field.ErrorList
	limPath, reqPath := fldPath.Child("limits"), fldPath.Child("requests")
	for _, name := range sortedResourceNames(r.Limits) {
		q := r.Limits[name]
		if q.Sign() < 0 {
			errs = append(errs, field.Invalid(limPath.Key(string(name)), q.String(), IsNegativeErrorMsg))
		}
	}
	for _, name := range sortedResourceNames(r.Requests) {
		q := r.Requests[name]
		p := reqPath.Key(string(name))
		if q.Sign() < 0 {
			errs = append(errs, field.Invalid(p, q.String(), IsNegativeErrorMsg))
		}
		if lim, ok := r.Limits[name]; ok && q.Cmp(lim) > 0 {
			errs = append(errs, field.Invalid(reqPath, q.String(), fmt.Sprintf("must be less than or equal to %s limit of %s", name, lim.String())))
		}
	}
	return errs
}

func sortedResourceNames(list corev1.ResourceList) []corev1.ResourceName {
	m := map[string]bool{}
	for k := range list {
		m[string(k)] = true
	}
	var out []corev1.ResourceName
	for _, k := range sortedKeys(m) {
		out = append(out, corev1.ResourceName(k))
	}
	return out
}

func validateProbe(probe *corev1.Probe, fldPath *field.Path, successMustBeOne bool) field.ErrorList {
	if probe == nil {
		return nil
	}
	var errs field.ErrorList
	n := 0
	var handlers []string
	for _, h := range []struct {
		set  bool
		name string
	}{{probe.Exec != nil, "exec"}, {probe.HTTPGet != nil, "httpGet"}, {probe.TCPSocket != nil, "tcpSocket"}, {probe.GRPC != nil, "grpc"}} {
		if h.set {
			n++
			handlers = append(handlers, h.name)
		}
	}
	if n == 0 {
		errs = append(errs, field.Required(fldPath, "must specify a handler type"))
	}
	for _, h := range handlers[min(1, len(handlers)):] {
		errs = append(errs, field.Forbidden(fldPath.Child(h), "may not specify more than 1 handler type"))
	}
	errs = append(errs, ValidateNonnegativeField(int64(probe.InitialDelaySeconds), fldPath.Child("initialDelaySeconds"))...)
	errs = append(errs, ValidateNonnegativeField(int64(probe.TimeoutSeconds), fldPath.Child("timeoutSeconds"))...)
	errs = append(errs, ValidateNonnegativeField(int64(probe.PeriodSeconds), fldPath.Child("periodSeconds"))...)
	errs = append(errs, ValidateNonnegativeField(int64(probe.SuccessThreshold), fldPath.Child("successThreshold"))...)
	errs = append(errs, ValidateNonnegativeField(int64(probe.FailureThreshold), fldPath.Child("failureThreshold"))...)
	if successMustBeOne && probe.SuccessThreshold != 1 {
		errs = append(errs, field.Invalid(fldPath.Child("successThreshold"), probe.SuccessThreshold, "must be 1"))
	}
	if g := probe.TerminationGracePeriodSeconds; g != nil && *g <= 0 {
		errs = append(errs, field.Invalid(fldPath.Child("terminationGracePeriodSeconds"), *g, "must be greater than 0"))
	}
	return errs
}

func validateTolerations(tolerations []corev1.Toleration, fldPath *field.Path) field.ErrorList {
	var errs field.ErrorList
	for i, t := range tolerations {
		p := fldPath.Index(i)
		if t.Key != "" {
			errs = append(errs, ValidateLabelName(t.Key, p.Child("key"))...)
		}
		if t.Key == "" && t.Operator != corev1.TolerationOpExists {
			errs = append(errs, field.Invalid(p.Child("operator"), t.Operator,
				"operator must be Exists when `key` is empty, which means \"match all values and all keys\""))
		}
		if t.TolerationSeconds != nil && t.Effect != corev1.TaintEffectNoExecute {
			errs = append(errs, field.Invalid(p.Child("effect"), t.Effect, "effect must be 'NoExecute' when `tolerationSeconds` is set"))
		}
		switch t.Operator {
		case corev1.TolerationOpEqual, "":
			errs = append(errs, validateLabelValue(t.Value, p.Child("operator"))...)
		case corev1.TolerationOpExists:
			if t.Value != "" {
				errs = append(errs, field.Invalid(p.Child("operator"), t, "value must be empty when `operator` is 'Exists'"))
			}
		default:
			errs = append(errs, field.NotSupported(p.Child("operator"), t.Operator,
				[]corev1.TolerationOperator{corev1.TolerationOpEqual, corev1.TolerationOpExists}))
		}
		if t.Effect != "" {
			errs = append(errs, validateTaintEffect(t.Effect, p.Child("effect"))...)
		}
	}
	return errs
}

func validateTaintEffect(e corev1.TaintEffect, fldPath *field.Path) field.ErrorList {
	switch e {
	case corev1.TaintEffectNoSchedule, corev1.TaintEffectPreferNoSchedule, corev1.TaintEffectNoExecute:
		return nil
	case "":
		return field.ErrorList{field.Required(fldPath, "")}
	}
	return field.ErrorList{field.NotSupported(fldPath, e, []corev1.TaintEffect{
		corev1.TaintEffectNoSchedule, corev1.TaintEffectPreferNoSchedule, corev1.TaintEffectNoExecute})}
}
