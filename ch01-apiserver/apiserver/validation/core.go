package validation

import (
	"fmt"
	"net/netip"
	"reflect"

	"kubik/ch01-apiserver/api/corev1"
	"kubik/ch01-apiserver/apiserver/validation/field"
)

// maxSecretSize caps a Secret's or ConfigMap's data (1 MiB).
const maxSecretSize = 1 * 1024 * 1024

const immutableWhenSet = "field is immutable when `immutable` is set"

func validateConfigMap(cm *corev1.ConfigMap) field.ErrorList {
	errs := ValidateObjectMeta(&cm.ObjectMeta, true, NameIsDNSSubdomain, field.NewPath("metadata"))
	total := 0
	for _, key := range sortedKeys(cm.Data) {
		for _, msg := range IsConfigMapKey(key) {
			errs = append(errs, field.Invalid(field.NewPath("data").Key(key), key, msg))
		}
		if _, dup := cm.BinaryData[key]; dup {
			errs = append(errs, field.Invalid(field.NewPath("data").Key(key), key, "duplicate of key present in binaryData"))
		}
		total += len(cm.Data[key])
	}
	for _, key := range sortedKeys(cm.BinaryData) {
		for _, msg := range IsConfigMapKey(key) {
			errs = append(errs, field.Invalid(field.NewPath("binaryData").Key(key), key, msg))
		}
		total += len(cm.BinaryData[key])
	}
	if total > maxSecretSize {
		errs = append(errs, field.TooLong(field.NewPath(""), "", maxSecretSize))
	}
	return errs
}

// validateConfigMapUpdate: an immutable ConfigMap keeps its data forever.
func validateConfigMapUpdate(cm, old *corev1.ConfigMap) field.ErrorList {
	errs := ValidateObjectMetaUpdate(&cm.ObjectMeta, &old.ObjectMeta, field.NewPath("metadata"))
	if old.Immutable != nil && *old.Immutable {
		if cm.Immutable == nil || !*cm.Immutable {
			errs = append(errs, field.Forbidden(field.NewPath("immutable"), immutableWhenSet))
		}
		if !semanticEqual(cm.Data, old.Data) {
			errs = append(errs, field.Forbidden(field.NewPath("data"), immutableWhenSet))
		}
		if !semanticEqual(cm.BinaryData, old.BinaryData) {
			errs = append(errs, field.Forbidden(field.NewPath("binaryData"), immutableWhenSet))
		}
	}
	return append(errs, validateConfigMap(cm)...)
}

func validateSecret(s *corev1.Secret) field.ErrorList {
	errs := ValidateObjectMeta(&s.ObjectMeta, true, NameIsDNSSubdomain, field.NewPath("metadata"))
	dataPath := field.NewPath("data")
	total := 0
	for _, key := range sortedKeys(s.Data) {
		for _, msg := range IsConfigMapKey(key) {
			errs = append(errs, field.Invalid(dataPath.Key(key), key, msg))
		}
		total += len(s.Data[key])
	}
	if total > maxSecretSize {
		errs = append(errs, field.TooLong(dataPath, "", maxSecretSize))
	}
	switch s.Type {
	case corev1.SecretTypeServiceAccountToken:
		if s.Annotations["kubernetes.io/service-account.name"] == "" {
			errs = append(errs, field.Required(field.NewPath("metadata", "annotations").Key("kubernetes.io/service-account.name"), ""))
		}
	case corev1.SecretTypeDockercfg:
		if _, ok := s.Data[".dockercfg"]; !ok {
			errs = append(errs, field.Required(dataPath.Key(".dockercfg"), ""))
		}
	case corev1.SecretTypeDockerConfigJson:
		if _, ok := s.Data[".dockerconfigjson"]; !ok {
			errs = append(errs, field.Required(dataPath.Key(".dockerconfigjson"), ""))
		}
	case corev1.SecretTypeBasicAuth:
		_, u := s.Data["username"]
		_, p := s.Data["password"]
		if !u && !p {
			errs = append(errs, field.Required(dataPath.Key("username"), ""))
			errs = append(errs, field.Required(dataPath.Key("password"), ""))
		}
	case corev1.SecretTypeSSHAuth:
		if len(s.Data["ssh-privatekey"]) == 0 {
			errs = append(errs, field.Required(dataPath.Key("ssh-privatekey"), ""))
		}
	case corev1.SecretTypeTLS:
		if _, ok := s.Data["tls.key"]; !ok {
			errs = append(errs, field.Required(dataPath.Key("tls.key"), ""))
		}
		if _, ok := s.Data["tls.crt"]; !ok {
			errs = append(errs, field.Required(dataPath.Key("tls.crt"), ""))
		}
	}
	return errs
}

// validateSecretUpdate: the type never changes; an immutable Secret keeps its data.
func validateSecretUpdate(s, old *corev1.Secret) field.ErrorList {
	errs := ValidateObjectMetaUpdate(&s.ObjectMeta, &old.ObjectMeta, field.NewPath("metadata"))
	errs = append(errs, ValidateImmutableField(s.Type, old.Type, field.NewPath("type"))...)
	if old.Immutable != nil && *old.Immutable {
		if s.Immutable == nil || !*s.Immutable {
			errs = append(errs, field.Forbidden(field.NewPath("immutable"), immutableWhenSet))
		}
		if !reflect.DeepEqual(s.Data, old.Data) {
			errs = append(errs, field.Forbidden(field.NewPath("data"), immutableWhenSet))
		}
	}
	return append(errs, validateSecret(s)...)
}

func validateNamespace(ns *corev1.Namespace) field.ErrorList {
	errs := ValidateObjectMeta(&ns.ObjectMeta, false, NameIsDNSLabel, field.NewPath("metadata"))
	for i, f := range ns.Spec.Finalizers {
		for _, msg := range IsQualifiedName(string(f)) {
			errs = append(errs, field.Invalid(field.NewPath("spec", "finalizers").Index(i), f, msg))
		}
	}
	return errs
}

func validateNode(n *corev1.Node) field.ErrorList {
	errs := ValidateObjectMeta(&n.ObjectMeta, false, NameIsDNSSubdomain, field.NewPath("metadata"))
	for i, t := range n.Spec.Taints {
		p := field.NewPath("spec", "taints").Index(i)
		errs = append(errs, ValidateLabelName(t.Key, p.Child("key"))...)
		if t.Value != "" {
			errs = append(errs, validateLabelValue(t.Value, p.Child("value"))...)
		}
		errs = append(errs, validateTaintEffect(t.Effect, p.Child("effect"))...)
	}
	return errs
}

func validateEndpoints(ep *corev1.Endpoints) field.ErrorList {
	errs := ValidateObjectMeta(&ep.ObjectMeta, true, NameIsDNSSubdomain, field.NewPath("metadata"))
	for i, ss := range ep.Subsets {
		p := field.NewPath("subsets").Index(i)
		if len(ss.Addresses) == 0 && len(ss.NotReadyAddresses) == 0 {
			errs = append(errs, field.Required(p, "must specify `addresses` or `notReadyAddresses`"))
		}
		for j, a := range ss.Addresses {
			errs = append(errs, validateNonSpecialIP(a.IP, p.Child("addresses").Index(j).Child("ip"))...)
		}
		for j, a := range ss.NotReadyAddresses {
			errs = append(errs, validateNonSpecialIP(a.IP, p.Child("notReadyAddresses").Index(j).Child("ip"))...)
		}
		for j, port := range ss.Ports {
			pp := p.Child("ports").Index(j)
			if len(ss.Ports) > 1 && port.Name == "" {
				errs = append(errs, field.Required(pp.Child("name"), ""))
			}
			for _, msg := range IsValidPortNum(int(port.Port)) {
				errs = append(errs, field.Invalid(pp.Child("port"), port.Port, msg))
			}
			errs = append(errs, validateProtocol(port.Protocol, pp.Child("protocol"))...)
		}
	}
	return errs
}

var supportedAccessModes = []corev1.PersistentVolumeAccessMode{corev1.ReadOnlyMany, corev1.ReadWriteMany, corev1.ReadWriteOnce, corev1.ReadWriteOncePod}

func validateAccessModes(modes []corev1.PersistentVolumeAccessMode, fldPath *field.Path) field.ErrorList {
	var errs field.ErrorList
	for _, m := range modes {
		switch m {
		case corev1.ReadOnlyMany, corev1.ReadWriteMany, corev1.ReadWriteOnce, corev1.ReadWriteOncePod:
		default:
			errs = append(errs, field.NotSupported(fldPath, m, supportedAccessModes))
		}
	}
	return errs
}

func validatePersistentVolume(pv *corev1.PersistentVolume) field.ErrorList {
	errs := ValidateObjectMeta(&pv.ObjectMeta, false, NameIsDNSSubdomain, field.NewPath("metadata"))
	spec := field.NewPath("spec")
	if len(pv.Spec.AccessModes) == 0 {
		errs = append(errs, field.Required(spec.Child("accessModes"), ""))
	}
	errs = append(errs, validateAccessModes(pv.Spec.AccessModes, spec.Child("accessModes"))...)
	if len(pv.Spec.Capacity) == 0 {
		errs = append(errs, field.Required(spec.Child("capacity"), ""))
	}
	if pv.Spec.PersistentVolumeSource == (corev1.PersistentVolumeSource{}) {
		errs = append(errs, field.Required(spec, "must specify a volume type"))
	}
	return errs
}

func validatePersistentVolumeClaim(pvc *corev1.PersistentVolumeClaim) field.ErrorList {
	errs := ValidateObjectMeta(&pvc.ObjectMeta, true, NameIsDNSSubdomain, field.NewPath("metadata"))
	return append(errs, validatePersistentVolumeClaimSpec(&pvc.Spec, field.NewPath("spec"))...)
}

func validatePersistentVolumeClaimSpec(spec *corev1.PersistentVolumeClaimSpec, fldPath *field.Path) field.ErrorList {
	var errs field.ErrorList
	if len(spec.AccessModes) == 0 {
		errs = append(errs, field.Required(fldPath.Child("accessModes"), "at least 1 access mode is required"))
	}
	errs = append(errs, validateAccessModes(spec.AccessModes, fldPath.Child("accessModes"))...)
	if spec.Selector != nil {
		errs = append(errs, ValidateLabelSelector(spec.Selector, fldPath.Child("selector"))...)
	}
	storage := fldPath.Child("resources").Key(string(corev1.ResourceStorage))
	if q, ok := spec.Resources.Requests[corev1.ResourceStorage]; !ok {
		errs = append(errs, field.Required(storage, ""))
	} else if q.Sign() <= 0 {
		errs = append(errs, field.Invalid(fldPath.Child("resources", "requests").Key(string(corev1.ResourceStorage)), q.String(), "must be greater than zero"))
	}
	return errs
}

func validateServiceAccount(sa *corev1.ServiceAccount) field.ErrorList {
	return ValidateObjectMeta(&sa.ObjectMeta, true, NameIsDNSSubdomain, field.NewPath("metadata"))
}

// validateEvent is a minimal ValidateEventCreate: metadata and the
// involved object's namespace.
func validateEvent(ev *corev1.Event) field.ErrorList {
	errs := ValidateObjectMeta(&ev.ObjectMeta, true, NameIsDNSSubdomain, field.NewPath("metadata"))
	if ns := ev.InvolvedObject.Namespace; ns != "" && ns != ev.Namespace {
		errs = append(errs, field.Invalid(field.NewPath("involvedObject", "namespace"), ns, "does not match event.namespace"))
	}
	return errs
}

// validateNonSpecialIP: endpoints may not point at addresses that mean "this
// node" (loopback, unspecified, link-local), which would let a Service reach
// the node itself or its metadata service.
func validateNonSpecialIP(ip string, fldPath *field.Path) field.ErrorList {
	errs := IsValidIP(fldPath, ip)
	if len(errs) > 0 {
		return errs
	}
	addr, _ := netip.ParseAddr(ip)
	switch {
	case addr.IsUnspecified():
		errs = append(errs, field.Invalid(fldPath, ip, fmt.Sprintf("may not be unspecified (%v)", ip)))
	case addr.IsLoopback():
		errs = append(errs, field.Invalid(fldPath, ip, "may not be in the loopback range (127.0.0.0/8, ::1/128)"))
	case addr.IsLinkLocalUnicast():
		errs = append(errs, field.Invalid(fldPath, ip, "may not be in the link-local range (169.254.0.0/16, fe80::/10)"))
	case addr.IsLinkLocalMulticast():
		errs = append(errs, field.Invalid(fldPath, ip, "may not be in the link-local multicast range (224.0.0.0/24, ff02::/10)"))
	}
	return errs
}
