package validation

import (
	"fmt"
	"reflect"
	"strings"

	"kubik/ch01-apiserver/api/corev1"
	"kubik/ch01-apiserver/apiserver/validation/field"
)

// Ephemeral containers (the pods/ephemeralcontainers subresource, `kubectl
// debug`). Upstream: validateEphemeralContainers and
// ValidatePodEphemeralContainersUpdate in pkg/apis/core/validation.

// allowedEphemeralContainerFields are the EphemeralContainerCommon fields an
// ephemeral container may set: nothing a pod's service could rely on (ports,
// probes, lifecycle, resources, restart policies).
var allowedEphemeralContainerFields = map[string]bool{
	"Name": true, "Image": true, "Command": true, "Args": true, "WorkingDir": true,
	"EnvFrom": true, "Env": true, "VolumeMounts": true, "VolumeDevices": true,
	"TerminationMessagePath": true, "TerminationMessagePolicy": true, "ImagePullPolicy": true,
	"SecurityContext": true, "Stdin": true, "StdinOnce": true, "TTY": true,
}

// validateEphemeralContainers checks spec.ephemeralContainers: each one as a
// container, with a name unique among all the pod's containers, a target
// that is one of the regular or init containers, and only the allowed
// fields set. names holds the regular and init containers' names.
func validateEphemeralContainers(spec *corev1.PodSpec, volumes, names map[string]bool, fldPath *field.Path) field.ErrorList {
	if len(spec.EphemeralContainers) == 0 {
		return nil
	}
	others := map[string]bool{}
	for n := range names {
		others[n] = true
	}
	var errs field.ErrorList
	for i := range spec.EphemeralContainers {
		ec := &spec.EphemeralContainers[i]
		p := fldPath.Index(i)
		c := corev1.Container(ec.EphemeralContainerCommon)
		// validateContainers reports a duplicate name against names.
		one := validateContainers([]corev1.Container{c}, volumes, names, fldPath, false)
		errs = append(errs, reindex(one, fldPath.Index(0).String(), p.String())...)
		if ec.TargetContainerName != "" && !others[ec.TargetContainerName] {
			errs = append(errs, field.NotFound(p.Child("targetContainerName"), ec.TargetContainerName))
		}
		errs = append(errs, validateFieldAllowList(ec.EphemeralContainerCommon, p)...)
		for j, vm := range ec.VolumeMounts {
			if vm.SubPath != "" {
				errs = append(errs, field.Forbidden(p.Child("volumeMounts").Index(j).Child("subPath"), "cannot be set for an Ephemeral Container"))
			}
			if vm.SubPathExpr != "" {
				errs = append(errs, field.Forbidden(p.Child("volumeMounts").Index(j).Child("subPathExpr"), "cannot be set for an Ephemeral Container"))
			}
		}
	}
	return errs
}

// reindex rewrites the field paths of errors found by validating one
// container alone (at index 0) to the container's real index.
func reindex(errs field.ErrorList, from, to string) field.ErrorList {
	if from == to {
		return errs
	}
	for _, e := range errs {
		if strings.HasPrefix(e.Field, from) {
			e.Field = to + strings.TrimPrefix(e.Field, from)
		}
	}
	return errs
}

// validateFieldAllowList forbids every set field of c that is not in
// allowedEphemeralContainerFields, named by its JSON name.
func validateFieldAllowList(c corev1.EphemeralContainerCommon, fldPath *field.Path) field.ErrorList {
	var errs field.ErrorList
	v := reflect.ValueOf(c)
	t := v.Type()
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		if allowedEphemeralContainerFields[f.Name] || v.Field(i).IsZero() {
			continue
		}
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		errs = append(errs, field.Forbidden(fldPath.Child(name), "cannot be set for an Ephemeral Container"))
	}
	return errs
}

// ValidatePodEphemeralContainersUpdate checks an update through
// pods/ephemeralcontainers: the pod as a whole, and that every existing
// ephemeral container is kept unchanged (matched by name: a patch does not
// keep the order). Static pods have no ephemeral containers.
func ValidatePodEphemeralContainersUpdate(pod, old *corev1.Pod) field.ErrorList {
	errs := ValidateObjectMetaUpdate(&pod.ObjectMeta, &old.ObjectMeta, field.NewPath("metadata"))
	errs = append(errs, ValidatePodSpec(&pod.Spec, field.NewPath("spec"))...)
	if _, ok := old.Annotations[corev1.MirrorPodAnnotationKey]; ok {
		return field.ErrorList{field.Forbidden(field.NewPath(""), "static pods do not support ephemeral containers")}
	}
	specPath := field.NewPath("spec", "ephemeralContainers")
	current := map[string]*corev1.EphemeralContainer{}
	for i := range pod.Spec.EphemeralContainers {
		current[pod.Spec.EphemeralContainers[i].Name] = &pod.Spec.EphemeralContainers[i]
	}
	for i := range old.Spec.EphemeralContainers {
		o := &old.Spec.EphemeralContainers[i]
		n, ok := current[o.Name]
		switch {
		case !ok:
			errs = append(errs, field.Forbidden(specPath, fmt.Sprintf("existing ephemeral containers %q may not be removed\n", o.Name)))
		case !semanticEqual(o, n):
			errs = append(errs, field.Forbidden(specPath, fmt.Sprintf("existing ephemeral containers %q may not be changed\n%s", o.Name, containerDiff(o, n))))
		}
	}
	return errs
}

// containerDiff is a short "-old +new" listing of the changed fields, as
// specDiff is for pod specs.
func containerDiff(old, cur *corev1.EphemeralContainer) string {
	return fieldDiff("core.EphemeralContainer", old, cur)
}
