package validation

import (
	"fmt"
	"strings"

	"kubik/ch01-apiserver/api/corev1"
	"kubik/ch01-apiserver/api/resourcev1"
	"kubik/ch01-apiserver/apiserver/validation/field"
)

// Validation of resource.k8s.io/v1 (Dynamic Resource Allocation): the
// structural rules of upstream's pkg/apis/resource/validation, with its
// field paths and messages. Not checked here: CEL selector compilation and
// cost, qualified names of attributes and capacities, capacity request
// policies, counters, binding conditions, device status data and the
// DeviceClass extended resource name format.

// Upstream validates these names with the helpers of core validation.
var (
	validateDeviceName      = validateDNS1123LabelField
	validateRequestName     = validateDNS1123LabelField
	validateDeviceClassName = validateDNS1123SubdomainField
)

func validateDNS1123LabelField(value string, fldPath *field.Path) field.ErrorList {
	var errs field.ErrorList
	for _, msg := range IsDNS1123Label(value) {
		errs = append(errs, field.Invalid(fldPath, value, msg))
	}
	return errs
}

func validateDNS1123SubdomainField(value string, fldPath *field.Path) field.ErrorList {
	var errs field.ErrorList
	for _, msg := range IsDNS1123Subdomain(value) {
		errs = append(errs, field.Invalid(fldPath, value, msg))
	}
	return errs
}

// validateDriverName: a DRA driver name follows the rules of a CSI driver
// name (upstream calls ValidateCSIDriverName; its limit is
// resourcev1.DriverNameMaxLength, 63, too).
func validateDriverName(name string, fldPath *field.Path) field.ErrorList {
	return validateCSIDriverName(name, fldPath)
}

// validatePoolName: one or more DNS subdomains separated by "/".
func validatePoolName(name string, fldPath *field.Path) field.ErrorList {
	if name == "" {
		return field.ErrorList{field.Required(fldPath, "")}
	}
	var errs field.ErrorList
	if len(name) > resourcev1.PoolNameMaxLength {
		errs = append(errs, field.TooLong(fldPath, "", resourcev1.PoolNameMaxLength))
	}
	for _, part := range strings.Split(name, "/") {
		errs = append(errs, validateDNS1123SubdomainField(part, fldPath)...)
	}
	return errs
}

// ---- ResourceClaim and ResourceClaimTemplate ----

// validateResourceClaim is ValidateResourceClaim.
func validateResourceClaim(c *resourcev1.ResourceClaim) field.ErrorList {
	errs := ValidateObjectMeta(&c.ObjectMeta, true, NameIsDNSSubdomain, field.NewPath("metadata"))
	return append(errs, validateDeviceClaim(&c.Spec.Devices, field.NewPath("spec", "devices"))...)
}

// validateResourceClaimUpdate is ValidateResourceClaimUpdate plus the status
// rules of ValidateResourceClaimStatusUpdate: the spec never changes, an
// allocation is written once, and only an allocated claim can be reserved.
// (Our update of the main resource keeps the stored status, so the status
// rules only bite on the status subresource, as upstream's.)
func validateResourceClaimUpdate(c, old *resourcev1.ResourceClaim) field.ErrorList {
	errs := validateImmutableInternal(c.Spec, old.Spec, field.NewPath("spec"))
	return append(errs, validateResourceClaimStatusUpdate(&c.Status, &old.Status, field.NewPath("status"))...)
}

func validateResourceClaimStatusUpdate(status, old *resourcev1.ResourceClaimStatus, fldPath *field.Path) field.ErrorList {
	var errs field.ErrorList
	reservedFor := fldPath.Child("reservedFor")
	if len(status.ReservedFor) > resourcev1.ResourceClaimReservedForMaxSize {
		errs = append(errs, field.TooMany(reservedFor, len(status.ReservedFor), resourcev1.ResourceClaimReservedForMaxSize))
	} else {
		uids := map[string]bool{}
		for i, ref := range status.ReservedFor {
			p := reservedFor.Index(i)
			if ref.Resource == "" {
				errs = append(errs, field.Required(p.Child("resource"), ""))
			}
			if ref.Name == "" {
				errs = append(errs, field.Required(p.Child("name"), ""))
			}
			if ref.UID == "" {
				errs = append(errs, field.Required(p.Child("uid"), ""))
			}
			if uids[ref.UID] {
				errs = append(errs, field.Duplicate(p, ref.UID))
			}
			uids[ref.UID] = true
		}
	}
	if len(status.ReservedFor) > 0 && status.Allocation == nil {
		errs = append(errs, field.Forbidden(reservedFor, "may not be specified when `allocated` is not set"))
	}
	if old.Allocation != nil && status.Allocation != nil {
		errs = append(errs, validateImmutableInternal(status.Allocation, old.Allocation, fldPath.Child("allocation"))...)
	}
	return errs
}

// validateResourceClaimTemplate is ValidateResourceClaimTemplate.
func validateResourceClaimTemplate(t *resourcev1.ResourceClaimTemplate) field.ErrorList {
	errs := ValidateObjectMeta(&t.ObjectMeta, true, NameIsDNSSubdomain, field.NewPath("metadata"))
	return append(errs, validateDeviceClaim(&t.Spec.Spec.Devices, field.NewPath("spec", "spec", "devices"))...)
}

// validateDeviceClaim checks the requests (unique DNS-label names), the
// constraints and the configuration, which may only name existing requests.
func validateDeviceClaim(dc *resourcev1.DeviceClaim, fldPath *field.Path) field.ErrorList {
	var errs field.ErrorList
	names := gatherRequestNames(dc)
	requests := fldPath.Child("requests")
	if len(dc.Requests) > resourcev1.DeviceRequestsMaxSize {
		errs = append(errs, field.TooMany(requests, len(dc.Requests), resourcev1.DeviceRequestsMaxSize))
	} else {
		seen := map[string]bool{}
		for i, r := range dc.Requests {
			errs = append(errs, validateDeviceRequest(r, requests.Index(i))...)
			if seen[r.Name] {
				errs = append(errs, field.Duplicate(requests.Index(i), r.Name))
			}
			seen[r.Name] = true
		}
	}
	for i, c := range dc.Constraints {
		p := fldPath.Child("constraints").Index(i)
		errs = append(errs, validateRequestNameRefs(c.Requests, p.Child("requests"), names)...)
		// distinctAttribute belongs to the DRAConsumableCapacity feature
		// (alpha, off), so a constraint is a matchAttribute.
		if c.MatchAttribute == nil && c.DistinctAttribute == nil {
			errs = append(errs, field.Required(p.Child("matchAttribute"), ""))
		}
	}
	for i, c := range dc.Config {
		p := fldPath.Child("config").Index(i)
		errs = append(errs, validateRequestNameRefs(c.Requests, p.Child("requests"), names)...)
		errs = append(errs, validateDeviceConfiguration(c.DeviceConfiguration, p)...)
	}
	return errs
}

// requestNames maps each request name to the names of its subrequests.
type requestNames map[string]map[string]bool

// has reports whether ref names a request ("gpu") or a subrequest ("gpu/large").
func (r requestNames) has(ref string) bool {
	request, sub, isSub := strings.Cut(ref, "/")
	subs, ok := r[request]
	if !ok || !isSub {
		return ok
	}
	return subs[sub]
}

func gatherRequestNames(dc *resourcev1.DeviceClaim) requestNames {
	names := requestNames{}
	for _, r := range dc.Requests {
		subs := map[string]bool{}
		for _, s := range r.FirstAvailable {
			subs[s.Name] = true
		}
		names[r.Name] = subs
	}
	return names
}

// validateRequestNameRefs checks the "requests" list of a constraint or a
// configuration: unique references to requests of the claim.
func validateRequestNameRefs(refs []string, fldPath *field.Path, names requestNames) field.ErrorList {
	const msg = "must be the name of a request in the claim or the name of a request and a subrequest separated by '/'"
	var errs field.ErrorList
	seen := map[string]bool{}
	for i, ref := range refs {
		p := fldPath.Index(i)
		segments := strings.Split(ref, "/")
		if len(segments) > 2 {
			errs = append(errs, field.Invalid(p, ref, msg))
			continue
		}
		for _, s := range segments {
			errs = append(errs, validateRequestName(s, p)...)
		}
		if !names.has(ref) {
			errs = append(errs, field.Invalid(p, ref, msg))
		}
		if seen[ref] {
			errs = append(errs, field.Duplicate(p, ref))
		}
		seen[ref] = true
	}
	return errs
}

// validateDeviceRequest: a request is either exactly one kind of device
// ("exactly") or a list of alternatives ("firstAvailable"), never both.
func validateDeviceRequest(r resourcev1.DeviceRequest, fldPath *field.Path) field.ErrorList {
	errs := validateRequestName(r.Name, fldPath.Child("name"))
	hasExactly, hasFirstAvailable := r.Exactly != nil, len(r.FirstAvailable) > 0
	switch {
	case !hasExactly && !hasFirstAvailable:
		errs = append(errs, field.Required(fldPath, "exactly one of `exactly` or `firstAvailable` is required"))
	case hasExactly && hasFirstAvailable:
		errs = append(errs, field.Invalid(fldPath, nil, "exactly one of `exactly` or `firstAvailable` is required, but multiple fields are set"))
	case hasExactly:
		e := r.Exactly
		p := fldPath.Child("exactly")
		errs = append(errs, validateDeviceClassRef(e.DeviceClassName, p.Child("deviceClassName"))...)
		errs = append(errs, validateSelectors(e.Selectors, p.Child("selectors"))...)
		errs = append(errs, validateDeviceAllocationMode(e.AllocationMode, e.Count, p.Child("allocationMode"), p.Child("count"))...)
		errs = append(errs, validateDeviceTolerations(e.Tolerations, p.Child("tolerations"))...)
	default:
		subs := fldPath.Child("firstAvailable")
		if len(r.FirstAvailable) > resourcev1.FirstAvailableDeviceRequestMaxSize {
			return append(errs, field.TooMany(subs, len(r.FirstAvailable), resourcev1.FirstAvailableDeviceRequestMaxSize))
		}
		seen := map[string]bool{}
		for i, s := range r.FirstAvailable {
			p := subs.Index(i)
			errs = append(errs, validateRequestName(s.Name, p.Child("name"))...)
			errs = append(errs, validateDeviceClassRef(s.DeviceClassName, p.Child("deviceClassName"))...)
			errs = append(errs, validateSelectors(s.Selectors, p.Child("selectors"))...)
			errs = append(errs, validateDeviceAllocationMode(s.AllocationMode, s.Count, p.Child("allocationMode"), p.Child("count"))...)
			errs = append(errs, validateDeviceTolerations(s.Tolerations, p.Child("tolerations"))...)
			if seen[s.Name] {
				errs = append(errs, field.Duplicate(p, s.Name))
			}
			seen[s.Name] = true
		}
	}
	return errs
}

// validateDeviceClassRef: a request names its DeviceClass (a DNS subdomain).
func validateDeviceClassRef(name string, fldPath *field.Path) field.ErrorList {
	if name == "" {
		return field.ErrorList{field.Required(fldPath, "")}
	}
	return validateDeviceClassName(name, fldPath)
}

// validateDeviceAllocationMode: ExactCount wants a positive count, All none.
func validateDeviceAllocationMode(mode resourcev1.DeviceAllocationMode, count int64, modePath, countPath *field.Path) field.ErrorList {
	switch mode {
	case resourcev1.DeviceAllocationModeAll:
		if count != 0 {
			return field.ErrorList{field.Invalid(countPath, count, fmt.Sprintf("must not be specified when allocationMode is '%s'", mode))}
		}
	case resourcev1.DeviceAllocationModeExactCount:
		if count <= 0 {
			return field.ErrorList{field.Invalid(countPath, count, "must be greater than zero")}
		}
	default:
		return field.ErrorList{field.NotSupported(modePath, mode, []resourcev1.DeviceAllocationMode{resourcev1.DeviceAllocationModeAll, resourcev1.DeviceAllocationModeExactCount})}
	}
	return nil
}

// validateSelectors: every selector is a CEL expression of bounded length.
// The expression is not compiled here (upstream compiles it and reports
// syntax and type errors).
func validateSelectors(selectors []resourcev1.DeviceSelector, fldPath *field.Path) field.ErrorList {
	if len(selectors) > resourcev1.DeviceSelectorsMaxSize {
		return field.ErrorList{field.TooMany(fldPath, len(selectors), resourcev1.DeviceSelectorsMaxSize)}
	}
	var errs field.ErrorList
	for i, s := range selectors {
		p := fldPath.Index(i).Child("cel")
		switch {
		case s.CEL == nil:
			errs = append(errs, field.Required(p, ""))
		case len(s.CEL.Expression) > resourcev1.CELSelectorExpressionMaxLength:
			errs = append(errs, field.TooLong(p.Child("expression"), "", resourcev1.CELSelectorExpressionMaxLength))
		}
	}
	return errs
}

// validateDeviceConfiguration: the only kind of configuration is opaque,
// for one driver.
func validateDeviceConfiguration(c resourcev1.DeviceConfiguration, fldPath *field.Path) field.ErrorList {
	if c.Opaque == nil {
		return field.ErrorList{field.Required(fldPath.Child("opaque"), "")}
	}
	p := fldPath.Child("opaque")
	errs := validateDriverName(c.Opaque.Driver, p.Child("driver"))
	switch raw := c.Opaque.Parameters.Raw; {
	case len(raw) == 0:
		errs = append(errs, field.Required(p.Child("parameters"), ""))
	case len(raw) > resourcev1.OpaqueParametersMaxLength:
		errs = append(errs, field.TooLong(p.Child("parameters"), "", resourcev1.OpaqueParametersMaxLength))
	}
	return errs
}

var validDeviceTaintEffects = []resourcev1.DeviceTaintEffect{resourcev1.DeviceTaintEffectNoExecute, resourcev1.DeviceTaintEffectNoSchedule, resourcev1.DeviceTaintEffectNone}

func validDeviceTaintEffect(e resourcev1.DeviceTaintEffect) bool {
	for _, v := range validDeviceTaintEffects {
		if e == v {
			return true
		}
	}
	return false
}

// validateDeviceTolerations is validateDeviceToleration for each toleration.
func validateDeviceTolerations(tolerations []resourcev1.DeviceToleration, fldPath *field.Path) field.ErrorList {
	var errs field.ErrorList
	for i, t := range tolerations {
		p := fldPath.Index(i)
		if t.Key != "" {
			errs = append(errs, ValidateLabelName(t.Key, p.Child("key"))...)
		}
		switch t.Operator {
		case resourcev1.DeviceTolerationOpExists:
			if t.Value != "" {
				errs = append(errs, field.Invalid(p.Child("value"), t.Value, "must be empty for operator `Exists`"))
			}
		case resourcev1.DeviceTolerationOpEqual:
			errs = append(errs, validateLabelValue(t.Value, p.Child("value"))...)
		case "":
			errs = append(errs, field.Required(p.Child("operator"), ""))
		default:
			errs = append(errs, field.NotSupported(p.Child("operator"), t.Operator, []resourcev1.DeviceTolerationOperator{resourcev1.DeviceTolerationOpEqual, resourcev1.DeviceTolerationOpExists}))
		}
		if t.Effect != "" && !validDeviceTaintEffect(t.Effect) {
			errs = append(errs, field.NotSupported(p.Child("effect"), t.Effect, validDeviceTaintEffects))
		}
	}
	return errs
}

// ---- DeviceClass ----

// validateDeviceClass is ValidateDeviceClass (and, with the same rules,
// ValidateDeviceClassUpdate): selectors and configuration.
func validateDeviceClass(dc *resourcev1.DeviceClass) field.ErrorList {
	errs := ValidateObjectMeta(&dc.ObjectMeta, false, NameIsDNSSubdomain, field.NewPath("metadata"))
	spec := field.NewPath("spec")
	errs = append(errs, validateSelectors(dc.Spec.Selectors, spec.Child("selectors"))...)
	if len(dc.Spec.Config) > resourcev1.DeviceConfigMaxSize {
		return append(errs, field.TooMany(spec.Child("config"), len(dc.Spec.Config), resourcev1.DeviceConfigMaxSize))
	}
	for i, c := range dc.Spec.Config {
		errs = append(errs, validateDeviceConfiguration(c.DeviceConfiguration, spec.Child("config").Index(i))...)
	}
	return errs
}

// ---- ResourceSlice ----

// validateResourceSlice is ValidateResourceSlice: a driver, a pool, exactly
// one way of saying which nodes see the devices, and well-formed devices.
func validateResourceSlice(s *resourcev1.ResourceSlice) field.ErrorList {
	errs := ValidateObjectMeta(&s.ObjectMeta, false, NameIsDNSSubdomain, field.NewPath("metadata"))
	return append(errs, validateResourceSliceSpec(&s.Spec, field.NewPath("spec"))...)
}

// validateResourceSliceUpdate adds ValidateResourceSliceUpdate's immutable
// fields: a slice stays with its driver, pool and node.
func validateResourceSliceUpdate(s, old *resourcev1.ResourceSlice) field.ErrorList {
	spec := field.NewPath("spec")
	errs := validateResourceSliceSpec(&s.Spec, spec)
	errs = append(errs, ValidateImmutableField(s.Spec.Pool.Name, old.Spec.Pool.Name, spec.Child("pool", "name"))...)
	errs = append(errs, ValidateImmutableField(s.Spec.Driver, old.Spec.Driver, spec.Child("driver"))...)
	return append(errs, ValidateImmutableField(s.Spec.NodeName, old.Spec.NodeName, spec.Child("nodeName"))...)
}

func validateResourceSliceSpec(spec *resourcev1.ResourceSliceSpec, fldPath *field.Path) field.ErrorList {
	errs := validateDriverName(spec.Driver, fldPath.Child("driver"))
	pool := fldPath.Child("pool")
	errs = append(errs, validatePoolName(spec.Pool.Name, pool.Child("name"))...)
	if spec.Pool.ResourceSliceCount <= 0 {
		errs = append(errs, field.Invalid(pool.Child("resourceSliceCount"), spec.Pool.ResourceSliceCount, "must be greater than zero"))
	}
	if spec.Pool.Generation < 0 {
		errs = append(errs, field.Invalid(pool.Child("generation"), spec.Pool.Generation, "must be greater than or equal to zero"))
	}

	var setFields []string
	if spec.NodeName != nil {
		if *spec.NodeName != "" {
			setFields = append(setFields, "`nodeName`")
			errs = append(errs, validateNodeNameField(*spec.NodeName, fldPath.Child("nodeName"))...)
		} else {
			errs = append(errs, field.Invalid(fldPath.Child("nodeName"), *spec.NodeName, "must be either unset or set to a non-empty string"))
		}
	}
	if spec.NodeSelector != nil {
		setFields = append(setFields, "`nodeSelector`")
		errs = append(errs, validateNodeSelector(spec.NodeSelector, fldPath.Child("nodeSelector"))...)
		if n := len(spec.NodeSelector.NodeSelectorTerms); n > 1 {
			errs = append(errs, field.Invalid(fldPath.Child("nodeSelector", "nodeSelectorTerms"), spec.NodeSelector.NodeSelectorTerms, "must have exactly one node selector term"))
		}
	}
	for _, f := range []struct {
		name string
		v    *bool
	}{{"allNodes", spec.AllNodes}, {"perDeviceNodeSelection", spec.PerDeviceNodeSelection}} {
		if f.v == nil {
			continue
		}
		if *f.v {
			setFields = append(setFields, "`"+f.name+"`")
		} else {
			errs = append(errs, field.Invalid(fldPath.Child(f.name), *f.v, "must be either unset or set to true"))
		}
	}
	switch len(setFields) {
	case 0:
		errs = append(errs, field.Required(fldPath, "exactly one of `nodeName`, `nodeSelector`, `allNodes`, `perDeviceNodeSelection` is required"))
	case 1:
	default:
		errs = append(errs, field.Invalid(fldPath, "{"+strings.Join(setFields, ", ")+"}",
			"exactly one of `nodeName`, `nodeSelector`, `allNodes`, `perDeviceNodeSelection` is required, but multiple fields are set"))
	}
	if spec.SharedCounters != nil && spec.Devices != nil {
		errs = append(errs, field.Invalid(fldPath, "", "only one of `sharedCounters` or `devices` is allowed"))
	}

	devices := fldPath.Child("devices")
	maxDevices := resourcev1.ResourceSliceMaxDevices
	for _, d := range spec.Devices {
		if len(d.Taints) > 0 || len(d.ConsumesCounters) > 0 {
			maxDevices = resourcev1.ResourceSliceMaxDevicesWithTaintsOrConsumesCounters
		}
	}
	if len(spec.Devices) > maxDevices {
		return append(errs, field.TooMany(devices, len(spec.Devices), maxDevices))
	}
	perDevice := spec.PerDeviceNodeSelection != nil && *spec.PerDeviceNodeSelection
	seen := map[string]bool{}
	for i, d := range spec.Devices {
		errs = append(errs, validateDevice(d, devices.Index(i), perDevice)...)
		if seen[d.Name] {
			errs = append(errs, field.Duplicate(devices.Index(i), d.Name))
		}
		seen[d.Name] = true
	}
	return errs
}

// validateDevice checks a device's name, the number of its attributes and
// capacities, its taints and its own node selection.
func validateDevice(d resourcev1.Device, fldPath *field.Path, perDeviceNodeSelection bool) field.ErrorList {
	errs := validateDeviceName(d.Name, fldPath.Child("name"))
	if n := len(d.Attributes) + len(d.Capacity); n > resourcev1.ResourceSliceMaxAttributesAndCapacitiesPerDevice {
		errs = append(errs, field.Invalid(fldPath, n, fmt.Sprintf("the total number of attributes and capacities must not exceed %d", resourcev1.ResourceSliceMaxAttributesAndCapacitiesPerDevice)))
	}
	if len(d.Taints) > resourcev1.DeviceTaintsMaxLength {
		errs = append(errs, field.TooMany(fldPath.Child("taints"), len(d.Taints), resourcev1.DeviceTaintsMaxLength))
	} else {
		for i, t := range d.Taints {
			p := fldPath.Child("taints").Index(i)
			errs = append(errs, ValidateLabelName(t.Key, p.Child("key"))...)
			if t.Value != "" {
				errs = append(errs, validateLabelValue(t.Value, p.Child("value"))...)
			}
			switch {
			case t.Effect == "":
				errs = append(errs, field.Required(p.Child("effect"), ""))
			case !validDeviceTaintEffect(t.Effect):
				errs = append(errs, field.NotSupported(p.Child("effect"), t.Effect, validDeviceTaintEffects))
			}
		}
	}

	if !perDeviceNodeSelection {
		if d.NodeName != nil || d.NodeSelector != nil || d.AllNodes != nil {
			errs = append(errs, field.Invalid(fldPath, nil, "`nodeName`, `nodeSelector` and `allNodes` can only be set if `perDeviceNodeSelection` is set to true in the ResourceSlice spec"))
		}
		return errs
	}
	const exactlyOne = "exactly one of `nodeName`, `nodeSelector`, or `allNodes` is required when `perDeviceNodeSelection` is set to true in the ResourceSlice spec"
	var setFields []string
	if d.NodeName != nil {
		if *d.NodeName != "" {
			setFields = append(setFields, "`nodeName`")
			errs = append(errs, validateNodeNameField(*d.NodeName, fldPath.Child("nodeName"))...)
		} else {
			errs = append(errs, field.Invalid(fldPath.Child("nodeName"), *d.NodeName, "must not be empty"))
		}
	}
	if d.NodeSelector != nil {
		setFields = append(setFields, "`nodeSelector`")
		errs = append(errs, validateNodeSelector(d.NodeSelector, fldPath.Child("nodeSelector"))...)
	}
	if d.AllNodes != nil {
		if *d.AllNodes {
			setFields = append(setFields, "`allNodes`")
		} else {
			errs = append(errs, field.Invalid(fldPath.Child("allNodes"), *d.AllNodes, "must be either unset or set to true"))
		}
	}
	switch len(setFields) {
	case 0:
		errs = append(errs, field.Required(fldPath, exactlyOne))
	case 1:
	default:
		errs = append(errs, field.Invalid(fldPath, "{"+strings.Join(setFields, ", ")+"}", exactlyOne))
	}
	return errs
}

// validateNodeNameField: a node name is a DNS subdomain.
func validateNodeNameField(name string, fldPath *field.Path) field.ErrorList {
	var errs field.ErrorList
	for _, msg := range NameIsDNSSubdomain(name, false) {
		errs = append(errs, field.Invalid(fldPath, name, msg))
	}
	return errs
}

// validateNodeSelector is the first check of upstream's ValidateNodeSelector;
// the terms' requirements themselves are not checked here.
func validateNodeSelector(ns *corev1.NodeSelector, fldPath *field.Path) field.ErrorList {
	if len(ns.NodeSelectorTerms) == 0 {
		return field.ErrorList{field.Required(fldPath.Child("nodeSelectorTerms"), "must have at least one node selector term")}
	}
	return nil
}
