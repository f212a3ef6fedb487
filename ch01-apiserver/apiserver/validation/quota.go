package validation

import (
	"fmt"
	"slices"
	"strings"

	"kubik/ch01-apiserver/api/corev1"
	"kubik/ch01-apiserver/api/resource"
	"kubik/ch01-apiserver/apiserver/validation/field"
)

// LimitRanges and ResourceQuotas, as upstream's ValidateLimitRange and
// ValidateResourceQuota (pkg/apis/core/validation), with the resource name
// rules of pkg/apis/core/helper. Resource lists are walked in sorted order
// (upstream walks Go maps, in no fixed order).

// standardResources are the resource names that need no domain prefix.
var standardResources = map[corev1.ResourceName]bool{
	"cpu": true, "memory": true, "ephemeral-storage": true,
	"requests.cpu": true, "requests.memory": true, "requests.ephemeral-storage": true,
	"limits.cpu": true, "limits.memory": true, "limits.ephemeral-storage": true,
	"pods": true, "resourcequotas": true, "services": true, "replicationcontrollers": true,
	"secrets": true, "configmaps": true, "persistentvolumeclaims": true,
	"storage": true, "requests.storage": true, "services.nodeports": true, "services.loadbalancers": true,
}

// standardQuotaResources are the unprefixed names a quota may limit.
var standardQuotaResources = map[corev1.ResourceName]bool{
	"cpu": true, "memory": true, "ephemeral-storage": true,
	"requests.cpu": true, "requests.memory": true, "requests.storage": true, "requests.ephemeral-storage": true,
	"limits.cpu": true, "limits.memory": true, "limits.ephemeral-storage": true,
	"pods": true, "services": true, "replicationcontrollers": true, "resourcequotas": true,
	"secrets": true, "persistentvolumeclaims": true, "configmaps": true,
	"services.nodeports": true, "services.loadbalancers": true,
}

// integerResources are counted in whole objects.
var integerResources = map[corev1.ResourceName]bool{
	"pods": true, "services": true, "replicationcontrollers": true, "resourcequotas": true,
	"services.nodeports": true, "services.loadbalancers": true, "secrets": true, "configmaps": true,
	"persistentvolumeclaims": true,
}

func isHugePageQuotaResource(name corev1.ResourceName) bool {
	return strings.HasPrefix(string(name), "hugepages-") || strings.HasPrefix(string(name), "requests.hugepages-")
}

// IsStandardResourceName is helper.IsStandardResourceName.
func IsStandardResourceName(name corev1.ResourceName) bool {
	return standardResources[name] || isHugePageQuotaResource(name)
}

// IsStandardQuotaResourceName is helper.IsStandardQuotaResourceName.
func IsStandardQuotaResourceName(name corev1.ResourceName) bool {
	return standardQuotaResources[name] || isHugePageQuotaResource(name)
}

// IsNativeResource: no domain, or a kubernetes.io one.
func IsNativeResource(name corev1.ResourceName) bool {
	return !strings.Contains(string(name), "/") || strings.Contains(string(name), "kubernetes.io/")
}

// IsExtendedResourceName: a domain-prefixed name that is not native and
// that stays a qualified name with "requests." in front (count/pods is one).
func IsExtendedResourceName(name corev1.ResourceName) bool {
	if IsNativeResource(name) || strings.HasPrefix(string(name), "requests.") {
		return false
	}
	return len(IsQualifiedName("requests."+string(name))) == 0
}

// IsIntegerResourceName is helper.IsIntegerResourceName.
func IsIntegerResourceName(name corev1.ResourceName) bool {
	return integerResources[name] || IsExtendedResourceName(name)
}

// validateResourceName is upstream's validateResourceName: qualified, and
// standard unless it has a domain.
func validateResourceName(value corev1.ResourceName, fldPath *field.Path) field.ErrorList {
	var errs field.ErrorList
	for _, msg := range IsQualifiedName(string(value)) {
		errs = append(errs, field.Invalid(fldPath, value, msg))
	}
	if len(errs) != 0 {
		return errs
	}
	if !strings.Contains(string(value), "/") && !IsStandardResourceName(value) {
		errs = append(errs, field.Invalid(fldPath, value, "must be a standard resource type or fully qualified"))
	}
	return errs
}

// validateContainerResourceName: what a container may request.
func validateContainerResourceName(value corev1.ResourceName, fldPath *field.Path) field.ErrorList {
	errs := validateResourceName(value, fldPath)
	if !strings.Contains(string(value), "/") {
		switch {
		case value == "cpu", value == "memory", value == "ephemeral-storage", strings.HasPrefix(string(value), "hugepages-"):
		default:
			errs = append(errs, field.Invalid(fldPath, value, "must be a standard resource for containers"))
		}
	} else if !IsNativeResource(value) && !IsExtendedResourceName(value) {
		errs = append(errs, field.Invalid(fldPath, value, "doesn't follow extended resource name standard"))
	}
	return errs
}

// validateResourceQuotaResourceName: what a quota may limit.
func validateResourceQuotaResourceName(value corev1.ResourceName, fldPath *field.Path) field.ErrorList {
	errs := validateResourceName(value, fldPath)
	if !strings.Contains(string(value), "/") && !IsStandardQuotaResourceName(value) {
		errs = append(errs, field.Invalid(fldPath, value, "must be a standard resource for quota"))
	}
	return errs
}

// validateResourceQuantityValue: not negative, whole for counted resources.
func validateResourceQuantityValue(name corev1.ResourceName, q resource.Quantity, fldPath *field.Path) field.ErrorList {
	var errs field.ErrorList
	if q.Sign() < 0 {
		errs = append(errs, field.Invalid(fldPath, q.String(), IsNegativeErrorMsg))
	}
	if IsIntegerResourceName(name) && q.MilliValue()%1000 != 0 {
		errs = append(errs, field.Invalid(fldPath, q, "must be an integer"))
	}
	return errs
}

func validateLimitRange(lr *corev1.LimitRange) field.ErrorList {
	errs := ValidateObjectMeta(&lr.ObjectMeta, true, NameIsDNSSubdomain, field.NewPath("metadata"))
	seen := map[corev1.LimitType]bool{}
	fldPath := field.NewPath("spec", "limits")
	for i := range lr.Spec.Limits {
		idxPath := fldPath.Index(i)
		limit := &lr.Spec.Limits[i]
		errs = append(errs, validateLimitRangeTypeName(string(limit.Type), idxPath.Child("type"))...)
		if seen[limit.Type] {
			errs = append(errs, field.Duplicate(idxPath.Child("type"), limit.Type))
		}
		seen[limit.Type] = true

		keys := map[corev1.ResourceName]bool{}
		collect := func(list corev1.ResourceList, child string) {
			for _, k := range sortedResourceNames(list) {
				errs = append(errs, validateLimitRangeResourceName(limit.Type, k, idxPath.Child(child).Key(string(k)))...)
				keys[k] = true
			}
		}
		collect(limit.Max, "max")
		collect(limit.Min, "min")
		if limit.Type == corev1.LimitTypePod {
			if len(limit.Default) > 0 {
				errs = append(errs, field.Forbidden(idxPath.Child("default"), "may not be specified when `type` is 'Pod'"))
			}
			if len(limit.DefaultRequest) > 0 {
				errs = append(errs, field.Forbidden(idxPath.Child("defaultRequest"), "may not be specified when `type` is 'Pod'"))
			}
		} else {
			collect(limit.Default, "default")
			collect(limit.DefaultRequest, "defaultRequest")
		}
		if limit.Type == corev1.LimitTypePersistentVolumeClaim {
			_, minFound := limit.Min[corev1.ResourceStorage]
			_, maxFound := limit.Max[corev1.ResourceStorage]
			if !minFound && !maxFound {
				errs = append(errs, field.Required(idxPath.Child("limits"), "either minimum or maximum storage value is required, but neither was provided"))
			}
		}
		collect(limit.MaxLimitRequestRatio, "maxLimitRequestRatio")

		names := make([]corev1.ResourceName, 0, len(keys))
		for k := range keys {
			names = append(names, k)
		}
		slices.Sort(names)
		for _, k := range names {
			errs = append(errs, validateLimitRangeItemValues(limit, k, idxPath)...)
		}
	}
	return errs
}

// validateLimitRangeItemValues compares one resource's min, max, defaults
// and ratio within one item.
func validateLimitRangeItemValues(limit *corev1.LimitRangeItem, k corev1.ResourceName, idxPath *field.Path) field.ErrorList {
	var errs field.ErrorList
	minQ, minFound := limit.Min[k]
	maxQ, maxFound := limit.Max[k]
	def, defFound := limit.Default[k]
	defReq, defReqFound := limit.DefaultRequest[k]
	if limit.Type == corev1.LimitTypePod {
		defFound, defReqFound = false, false
	}
	ratio, ratioFound := limit.MaxLimitRequestRatio[k]
	key := string(k)
	if minFound && maxFound && minQ.Cmp(maxQ) > 0 {
		errs = append(errs, field.Invalid(idxPath.Child("min").Key(key), minQ.String(), fmt.Sprintf("min value %s is greater than max value %s", minQ.String(), maxQ.String())))
	}
	if defReqFound && minFound && minQ.Cmp(defReq) > 0 {
		errs = append(errs, field.Invalid(idxPath.Child("defaultRequest").Key(key), defReq.String(), fmt.Sprintf("min value %s is greater than default request value %s", minQ.String(), defReq.String())))
	}
	if defReqFound && maxFound && defReq.Cmp(maxQ) > 0 {
		errs = append(errs, field.Invalid(idxPath.Child("defaultRequest").Key(key), defReq.String(), fmt.Sprintf("default request value %s is greater than max value %s", defReq.String(), maxQ.String())))
	}
	if defReqFound && defFound && defReq.Cmp(def) > 0 {
		errs = append(errs, field.Invalid(idxPath.Child("defaultRequest").Key(key), defReq.String(), fmt.Sprintf("default request value %s is greater than default limit value %s", defReq.String(), def.String())))
	}
	if defFound && minFound && minQ.Cmp(def) > 0 {
		errs = append(errs, field.Invalid(idxPath.Child("default").Key(key), minQ.String(), fmt.Sprintf("min value %s is greater than default value %s", minQ.String(), def.String())))
	}
	if defFound && maxFound && def.Cmp(maxQ) > 0 {
		errs = append(errs, field.Invalid(idxPath.Child("default").Key(key), maxQ.String(), fmt.Sprintf("default value %s is greater than max value %s", def.String(), maxQ.String())))
	}
	if ratioFound && ratio.Cmp(*resource.NewQuantity(1, resource.DecimalSI)) < 0 {
		errs = append(errs, field.Invalid(idxPath.Child("maxLimitRequestRatio").Key(key), ratio.String(), fmt.Sprintf("ratio %s is less than 1", ratio.String())))
	}
	if ratioFound && minFound && maxFound {
		ratioValue := float64(ratio.Value())
		minValue, maxValue := minQ.Value(), maxQ.Value()
		if ratio.Value() < maxMilliValue && minValue < maxMilliValue && maxValue < maxMilliValue {
			ratioValue = float64(ratio.MilliValue()) / 1000
			minValue, maxValue = minQ.MilliValue(), maxQ.MilliValue()
		}
		maxRatio := float64(maxValue) / float64(minValue)
		if ratioValue > maxRatio {
			errs = append(errs, field.Invalid(idxPath.Child("maxLimitRequestRatio").Key(key), ratio.String(), fmt.Sprintf("ratio %s is greater than max/min = %f", ratio.String(), maxRatio)))
		}
	}
	// Resources that cannot be overcommitted (hugepages, extended
	// resources) have equal default limit and request.
	overcommit := IsNativeResource(k) && !strings.HasPrefix(key, "hugepages-")
	if !overcommit && defFound && defReqFound && def.Cmp(defReq) != 0 {
		errs = append(errs, field.Invalid(idxPath.Child("defaultRequest").Key(key), defReq.String(), fmt.Sprintf("default value %s must equal to defaultRequest value %s in %s", def.String(), defReq.String(), key)))
	}
	return errs
}

// maxMilliValue is the largest value whose milli-value fits in an int64
// (resource.MaxMilliValue upstream).
const maxMilliValue = int64(^uint64(0)>>1) / 1000

func validateLimitRangeTypeName(value string, fldPath *field.Path) field.ErrorList {
	var errs field.ErrorList
	for _, msg := range IsQualifiedName(value) {
		errs = append(errs, field.Invalid(fldPath, value, msg))
	}
	if len(errs) != 0 {
		return errs
	}
	if !strings.Contains(value, "/") {
		switch corev1.LimitType(value) {
		case corev1.LimitTypePod, corev1.LimitTypeContainer, corev1.LimitTypePersistentVolumeClaim:
		default:
			errs = append(errs, field.Invalid(fldPath, value, "must be a standard limit type or fully qualified"))
		}
	}
	return errs
}

func validateLimitRangeResourceName(t corev1.LimitType, value corev1.ResourceName, fldPath *field.Path) field.ErrorList {
	switch t {
	case corev1.LimitTypePod, corev1.LimitTypeContainer:
		return validateContainerResourceName(value, fldPath)
	}
	return validateResourceName(value, fldPath)
}

var standardQuotaScopes = []corev1.ResourceQuotaScope{
	corev1.ResourceQuotaScopeTerminating, corev1.ResourceQuotaScopeNotTerminating,
	corev1.ResourceQuotaScopeBestEffort, corev1.ResourceQuotaScopeNotBestEffort,
	corev1.ResourceQuotaScopePriorityClass, corev1.ResourceQuotaScopeCrossNamespacePodAffinity,
	corev1.ResourceQuotaScopeVolumeAttributesClass,
}

// isScopeValidForResource is helper.IsResourceQuotaScopeValidForResource.
func isScopeValidForResource(scope corev1.ResourceQuotaScope, name corev1.ResourceName) bool {
	podCompute := map[corev1.ResourceName]bool{"cpu": true, "memory": true, "limits.cpu": true,
		"limits.memory": true, "requests.cpu": true, "requests.memory": true}
	switch scope {
	case corev1.ResourceQuotaScopeTerminating, corev1.ResourceQuotaScopeNotTerminating, corev1.ResourceQuotaScopeNotBestEffort,
		corev1.ResourceQuotaScopePriorityClass, corev1.ResourceQuotaScopeCrossNamespacePodAffinity:
		return name == corev1.ResourcePods || podCompute[name]
	case corev1.ResourceQuotaScopeBestEffort:
		return name == corev1.ResourcePods
	case corev1.ResourceQuotaScopeVolumeAttributesClass:
		return name == corev1.ResourcePersistentVolumeClaims || name == corev1.ResourceRequestsStorage
	}
	return true
}

func validateResourceQuota(q *corev1.ResourceQuota) field.ErrorList {
	errs := ValidateObjectMeta(&q.ObjectMeta, true, NameIsDNSSubdomain, field.NewPath("metadata"))
	errs = append(errs, validateResourceQuotaSpec(&q.Spec, field.NewPath("spec"))...)
	return append(errs, validateResourceQuotaStatus(&q.Status, field.NewPath("status"))...)
}

func validateResourceQuotaUpdate(q, old *corev1.ResourceQuota) field.ErrorList {
	errs := validateResourceQuotaSpec(&q.Spec, field.NewPath("spec"))
	errs = append(errs, validateResourceQuotaStatus(&q.Status, field.NewPath("status"))...)
	if !slices.Equal(q.Spec.Scopes, old.Spec.Scopes) {
		errs = append(errs, field.Invalid(field.NewPath("spec", "scopes"), q.Spec.Scopes, FieldImmutableErrorMsg))
	}
	return errs
}

func validateQuotaList(list corev1.ResourceList, fldPath *field.Path) field.ErrorList {
	var errs field.ErrorList
	for _, k := range sortedResourceNames(list) {
		p := fldPath.Key(string(k))
		errs = append(errs, validateResourceQuotaResourceName(k, p)...)
		errs = append(errs, validateResourceQuantityValue(k, list[k], p)...)
	}
	return errs
}

func validateResourceQuotaStatus(status *corev1.ResourceQuotaStatus, fldPath *field.Path) field.ErrorList {
	errs := validateQuotaList(status.Hard, fldPath.Child("hard"))
	return append(errs, validateQuotaList(status.Used, fldPath.Child("used"))...)
}

func validateResourceQuotaSpec(spec *corev1.ResourceQuotaSpec, fldPath *field.Path) field.ErrorList {
	errs := validateQuotaList(spec.Hard, fldPath.Child("hard"))
	errs = append(errs, validateResourceQuotaScopes(spec, fldPath)...)
	return append(errs, validateScopeSelector(spec, fldPath)...)
}

// conflictingScopes is a quota's scopes naming both of a pair.
func conflictingScopes(scopes map[corev1.ResourceQuotaScope]bool) bool {
	return scopes[corev1.ResourceQuotaScopeBestEffort] && scopes[corev1.ResourceQuotaScopeNotBestEffort] ||
		scopes[corev1.ResourceQuotaScopeTerminating] && scopes[corev1.ResourceQuotaScopeNotTerminating]
}

func validateResourceQuotaScopes(spec *corev1.ResourceQuotaSpec, fldPath *field.Path) field.ErrorList {
	if len(spec.Scopes) == 0 {
		return nil
	}
	var errs field.ErrorList
	p := fldPath.Child("scopes")
	seen := map[corev1.ResourceQuotaScope]bool{}
	for _, scope := range spec.Scopes {
		if !slices.Contains(standardQuotaScopes, scope) {
			errs = append(errs, field.Invalid(p, spec.Scopes, "unsupported scope"))
		}
		for _, k := range sortedResourceNames(spec.Hard) {
			if IsStandardQuotaResourceName(k) && !isScopeValidForResource(scope, k) {
				errs = append(errs, field.Invalid(p, spec.Scopes, "unsupported scope applied to resource"))
			}
		}
		seen[scope] = true
	}
	if conflictingScopes(seen) {
		errs = append(errs, field.Invalid(p, spec.Scopes, "conflicting scopes"))
	}
	return errs
}

func validateScopeSelector(spec *corev1.ResourceQuotaSpec, fldPath *field.Path) field.ErrorList {
	if spec.ScopeSelector == nil {
		return nil
	}
	var errs field.ErrorList
	p := fldPath.Child("scopeSelector", "matchExpressions")
	seen := map[corev1.ResourceQuotaScope]bool{}
	for _, req := range spec.ScopeSelector.MatchExpressions {
		if !slices.Contains(standardQuotaScopes, req.ScopeName) {
			errs = append(errs, field.Invalid(p.Child("scopeName"), req.ScopeName, "unsupported scope"))
		}
		for _, k := range sortedResourceNames(spec.Hard) {
			if IsStandardQuotaResourceName(k) && !isScopeValidForResource(req.ScopeName, k) {
				errs = append(errs, field.Invalid(p, spec.ScopeSelector, "unsupported scope applied to resource"))
			}
		}
		switch req.ScopeName {
		case corev1.ResourceQuotaScopeBestEffort, corev1.ResourceQuotaScopeNotBestEffort, corev1.ResourceQuotaScopeTerminating,
			corev1.ResourceQuotaScopeNotTerminating, corev1.ResourceQuotaScopeCrossNamespacePodAffinity:
			if req.Operator != corev1.ScopeSelectorOpExists {
				errs = append(errs, field.Invalid(p.Child("operator"), req.Operator,
					"must be 'Exist' when scope is any of ResourceQuotaScopeTerminating, ResourceQuotaScopeNotTerminating, ResourceQuotaScopeBestEffort, ResourceQuotaScopeNotBestEffort or ResourceQuotaScopeCrossNamespacePodAffinity"))
			}
		}
		switch req.Operator {
		case corev1.ScopeSelectorOpIn, corev1.ScopeSelectorOpNotIn:
			if len(req.Values) == 0 {
				errs = append(errs, field.Required(p.Child("values"), "must be at least one value when `operator` is 'In' or 'NotIn' for scope selector"))
			}
		case corev1.ScopeSelectorOpExists, corev1.ScopeSelectorOpDoesNotExist:
			if len(req.Values) != 0 {
				errs = append(errs, field.Invalid(p.Child("values"), req.Values, "must be no value when `operator` is 'Exist' or 'DoesNotExist' for scope selector"))
			}
		default:
			errs = append(errs, field.Invalid(p.Child("operator"), req.Operator, "not a valid selector operator"))
		}
		seen[req.ScopeName] = true
	}
	if conflictingScopes(seen) {
		errs = append(errs, field.Invalid(p, spec.Scopes, "conflicting scopes"))
	}
	return errs
}
