package apiserver

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"

	"kubik/ch01-apiserver/api/corev1"
	"kubik/ch01-apiserver/api/metav1"
	"kubik/ch01-apiserver/api/resource"
	"kubik/ch01-apiserver/api/scheme"
	"kubik/ch01-apiserver/apiserver/validation"
	"kubik/ch01-apiserver/storage"
)

// The ResourceQuota admission plugin (upstream's
// plugin/pkg/admission/resourcequota with the evaluators of
// pkg/quota/v1/evaluator/core), on create: what the new object would use
// (one more pod and its requests and limits, one more Service and its node
// ports, one more claim and its storage, one more object of its kind as
// count/<resource>[.<group>]) is added to the status.used of every quota of
// the namespace that limits any of it; if that goes over a quota's
// status.hard the request is refused with upstream's 403
// "exceeded quota: <name>, requested: ..., used: ..., limited: ...",
// otherwise the quotas' new usage is written before the object is.
//
// status.hard and status.used are the quota controller's to keep; a quota
// whose status it has not filled in yet limits nothing (its hard is empty),
// one that limits a resource without a used figure refuses with
// "status unknown for quota". Updates are not charged (upstream charges
// Service and claim updates too); events are never counted.

// legacyCountNames are the core resources counted under their own name too.
var legacyCountNames = map[string]bool{"configmaps": true, "persistentvolumeclaims": true, "replicationcontrollers": true,
	"resourcequotas": true, "secrets": true, "services": true, "pods": true}

// podComputeResources are the quota names of a pod's usage.
var podComputeResources = map[corev1.ResourceName]bool{"cpu": true, "memory": true, "ephemeral-storage": true,
	"requests.cpu": true, "requests.memory": true, "requests.ephemeral-storage": true,
	"limits.cpu": true, "limits.memory": true, "limits.ephemeral-storage": true, "pods": true, "count/pods": true}

// podValidationResources must be set by every container when a quota limits
// them (a backward-compatibility rule upstream keeps).
var podValidationResources = []corev1.ResourceName{"cpu", "limits.cpu", "limits.memory", "memory", "requests.cpu", "requests.memory"}

// objectCountName is count/<resource>[.<group>].
func objectCountName(res *scheme.Resource) corev1.ResourceName {
	if res.Group == "" {
		return corev1.ResourceName("count/" + res.Resource)
	}
	return corev1.ResourceName("count/" + res.Resource + "." + res.Group)
}

// handles reports whether the quota name is one the resource's evaluator
// computes (its MatchingResources).
func handles(res *scheme.Resource, name corev1.ResourceName) bool {
	if name == objectCountName(res) || (res.Group == "" && legacyCountNames[res.Resource] && string(name) == res.Resource) {
		return true
	}
	if res.Group != "" {
		return false
	}
	s := string(name)
	switch res.Resource {
	case "pods":
		return podComputeResources[name] || strings.HasPrefix(s, "hugepages-") || strings.HasPrefix(s, "requests.hugepages-") ||
			(strings.HasPrefix(s, "requests.") && validation.IsExtendedResourceName(corev1.ResourceName(strings.TrimPrefix(s, "requests."))))
	case "services":
		return name == corev1.ResourceServicesNodePorts || name == corev1.ResourceServicesLoadBalancers
	case "persistentvolumeclaims":
		return name == corev1.ResourceRequestsStorage || strings.HasSuffix(s, ".storageclass.storage.k8s.io/requests.storage") ||
			strings.HasSuffix(s, ".storageclass.storage.k8s.io/persistentvolumeclaims")
	}
	return false
}

// quotaUsage is the usage the new object adds (an evaluator's Usage).
func quotaUsage(res *scheme.Resource, obj metav1.Object) corev1.ResourceList {
	one := func() resource.Quantity { return *resource.NewQuantity(1, resource.DecimalSI) }
	usage := corev1.ResourceList{objectCountName(res): one()}
	if res.Group == "" && legacyCountNames[res.Resource] {
		usage[corev1.ResourceName(res.Resource)] = one()
	}
	switch o := obj.(type) {
	case *corev1.Pod:
		if o.Status.Phase == corev1.PodSucceeded || o.Status.Phase == corev1.PodFailed {
			return corev1.ResourceList{objectCountName(res): one()}
		}
		for k, v := range podComputeUsage(podRequests(o), podLimits(o)) {
			usage[k] = v
		}
	case *corev1.Service:
		ports := int64(len(o.Spec.Ports))
		switch o.Spec.Type {
		case corev1.ServiceTypeNodePort:
			usage[corev1.ResourceServicesNodePorts] = *resource.NewQuantity(ports, resource.DecimalSI)
		case corev1.ServiceTypeLoadBalancer:
			if o.Spec.AllocateLoadBalancerNodePorts != nil && !*o.Spec.AllocateLoadBalancerNodePorts {
				ports = 0
				for _, p := range o.Spec.Ports {
					if p.NodePort != 0 {
						ports++
					}
				}
			}
			usage[corev1.ResourceServicesNodePorts] = *resource.NewQuantity(ports, resource.DecimalSI)
			usage[corev1.ResourceServicesLoadBalancers] = one()
		}
	case *corev1.PersistentVolumeClaim:
		class := ""
		if o.Spec.StorageClassName != nil {
			class = *o.Spec.StorageClassName
		}
		if class != "" {
			usage[corev1.ResourceName(class+".storageclass.storage.k8s.io/persistentvolumeclaims")] = one()
		}
		if q, ok := o.Spec.Resources.Requests[corev1.ResourceStorage]; ok {
			usage[corev1.ResourceRequestsStorage] = q
			if class != "" {
				usage[corev1.ResourceName(class+".storageclass.storage.k8s.io/requests.storage")] = q
			}
		}
	}
	for k, v := range usage {
		if v.IsZero() {
			delete(usage, k)
		}
	}
	return usage
}

// podComputeUsage is upstream's podComputeUsageHelper.
func podComputeUsage(requests, limits corev1.ResourceList) corev1.ResourceList {
	out := corev1.ResourceList{corev1.ResourcePods: *resource.NewQuantity(1, resource.DecimalSI)}
	for _, r := range []corev1.ResourceName{corev1.ResourceCPU, corev1.ResourceMemory, corev1.ResourceEphemeralStorage} {
		if q, ok := requests[r]; ok {
			out[r] = q
			out["requests."+r] = q
		}
		if q, ok := limits[r]; ok {
			out["limits."+r] = q
		}
	}
	for r, q := range requests {
		if strings.HasPrefix(string(r), "hugepages-") {
			out[r] = q
			out["requests."+r] = q
		}
		if validation.IsExtendedResourceName(r) {
			out["requests."+r] = q
		}
	}
	return out
}

// podConstraints: when a quota limits cpu or memory, every container says
// how much it needs.
func podConstraints(required []corev1.ResourceName, pod *corev1.Pod) error {
	var req []corev1.ResourceName
	for _, r := range required {
		if slices.Contains(podValidationResources, r) {
			req = append(req, r)
		}
	}
	missing := map[corev1.ResourceName][]string{}
	check := func(c *corev1.Container) {
		have := podComputeUsage(c.Resources.Requests, c.Resources.Limits)
		for _, r := range req {
			if _, ok := have[r]; !ok && !slices.Contains(missing[r], c.Name) {
				missing[r] = append(missing[r], c.Name)
			}
		}
	}
	for i := range pod.Spec.Containers {
		check(&pod.Spec.Containers[i])
	}
	for i := range pod.Spec.InitContainers {
		check(&pod.Spec.InitContainers[i])
	}
	if len(missing) == 0 {
		return nil
	}
	names := make([]corev1.ResourceName, 0, len(missing))
	for r := range missing {
		names = append(names, r)
	}
	slices.Sort(names)
	msgs := make([]string, len(names))
	for i, r := range names {
		containers := missing[r]
		sort.Strings(containers)
		msgs[i] = fmt.Sprintf("%s for: %s", r, strings.Join(containers, ","))
	}
	return fmt.Errorf("must specify %s", strings.Join(msgs, "; "))
}

// quotaScopes are a quota's scopes and scope selector as requirements.
func quotaScopes(q *corev1.ResourceQuota) []corev1.ScopedResourceSelectorRequirement {
	var out []corev1.ScopedResourceSelectorRequirement
	for _, s := range q.Spec.Scopes {
		out = append(out, corev1.ScopedResourceSelectorRequirement{ScopeName: s, Operator: corev1.ScopeSelectorOpExists})
	}
	if q.Spec.ScopeSelector != nil {
		out = append(out, q.Spec.ScopeSelector.MatchExpressions...)
	}
	return out
}

// podMatchesScope is upstream's podMatchesScopeFunc.
func podMatchesScope(sel corev1.ScopedResourceSelectorRequirement, pod *corev1.Pod) bool {
	terminating := pod.Spec.ActiveDeadlineSeconds != nil && *pod.Spec.ActiveDeadlineSeconds >= 0
	switch sel.ScopeName {
	case corev1.ResourceQuotaScopeTerminating:
		return terminating
	case corev1.ResourceQuotaScopeNotTerminating:
		return !terminating
	case corev1.ResourceQuotaScopeBestEffort:
		return isBestEffort(pod)
	case corev1.ResourceQuotaScopeNotBestEffort:
		return !isBestEffort(pod)
	case corev1.ResourceQuotaScopePriorityClass:
		name := pod.Spec.PriorityClassName
		switch sel.Operator {
		case corev1.ScopeSelectorOpExists:
			return name != ""
		case corev1.ScopeSelectorOpDoesNotExist:
			return name == ""
		case corev1.ScopeSelectorOpIn:
			return name != "" && slices.Contains(sel.Values, name)
		case corev1.ScopeSelectorOpNotIn:
			return !slices.Contains(sel.Values, name)
		}
	case corev1.ResourceQuotaScopeCrossNamespacePodAffinity:
		return usesCrossNamespacePodAffinity(pod)
	}
	return false
}

// isBestEffort: no container asks for or is limited in cpu or memory.
func isBestEffort(pod *corev1.Pod) bool {
	all := append(append([]corev1.Container{}, pod.Spec.Containers...), pod.Spec.InitContainers...)
	for _, c := range all {
		for _, r := range []corev1.ResourceName{corev1.ResourceCPU, corev1.ResourceMemory} {
			if q, ok := c.Resources.Requests[r]; ok && !q.IsZero() {
				return false
			}
			if q, ok := c.Resources.Limits[r]; ok && !q.IsZero() {
				return false
			}
		}
	}
	return true
}

// usesCrossNamespacePodAffinity: a pod (anti-)affinity term names other
// namespaces or selects them.
func usesCrossNamespacePodAffinity(pod *corev1.Pod) bool {
	a := pod.Spec.Affinity
	if a == nil {
		return false
	}
	var terms []corev1.PodAffinityTerm
	if a.PodAffinity != nil {
		terms = append(terms, a.PodAffinity.RequiredDuringSchedulingIgnoredDuringExecution...)
		for _, w := range a.PodAffinity.PreferredDuringSchedulingIgnoredDuringExecution {
			terms = append(terms, w.PodAffinityTerm)
		}
	}
	if a.PodAntiAffinity != nil {
		terms = append(terms, a.PodAntiAffinity.RequiredDuringSchedulingIgnoredDuringExecution...)
		for _, w := range a.PodAntiAffinity.PreferredDuringSchedulingIgnoredDuringExecution {
			terms = append(terms, w.PodAffinityTerm)
		}
	}
	for _, t := range terms {
		if len(t.Namespaces) > 0 || t.NamespaceSelector != nil {
			return true
		}
	}
	return false
}

// prettyPrint is "a=1,b=2" in name order.
func prettyPrint(list corev1.ResourceList) string {
	parts := make([]string, 0, len(list))
	for _, k := range sortedNames(list) {
		v := list[k]
		parts = append(parts, string(k)+"="+v.String())
	}
	return strings.Join(parts, ",")
}

func mask(list corev1.ResourceList, names []corev1.ResourceName) corev1.ResourceList {
	out := corev1.ResourceList{}
	for _, n := range names {
		if q, ok := list[n]; ok {
			out[n] = q
		}
	}
	return out
}

// admitResourceQuota is the plugin's Validate, on create. Conflicting
// writes of a quota's status are retried with the quotas read again.
func (s *Server) admitResourceQuota(ctx context.Context, q *request, obj metav1.Object) error {
	res := q.res
	if !res.Namespaced || (res.Group == "" && res.Resource == "events") {
		return nil
	}
	var err error
	for attempt := 0; attempt < 5; attempt++ {
		if err = s.chargeQuotas(ctx, q, obj); !errors.Is(err, storage.ErrConflict) {
			return err
		}
	}
	return ErrForbidden(res.Group, res.Resource, res.GroupResource(), obj.GetObjectMeta().Name,
		fmt.Errorf("unable to %s %s at this time because there was an error enforcing quota", "create", res.GroupResource()))
}

func (s *Server) chargeQuotas(ctx context.Context, q *request, obj metav1.Object) error {
	res := q.res
	meta := obj.GetObjectMeta()
	quotaRes := scheme.Lookup("", "v1", "resourcequotas")
	items, _, err := s.list(ctx, quotaRes, meta.Namespace, listOptions{ResourceVersion: "0"})
	if err != nil || len(items) == 0 {
		return err
	}
	delta := quotaUsage(res, obj)
	if len(delta) == 0 {
		return nil
	}
	forbid := func(format string, args ...any) error {
		return ErrForbidden(res.Group, res.Resource, res.GroupResource(), meta.Name, fmt.Errorf(format, args...))
	}
	pod, _ := obj.(*corev1.Pod)
	var charged []*corev1.ResourceQuota
	for _, it := range items {
		quota := it.(*corev1.ResourceQuota)
		var restricted []corev1.ResourceName
		for _, name := range sortedNames(quota.Status.Hard) {
			if handles(res, name) {
				restricted = append(restricted, name)
			}
		}
		if len(restricted) == 0 {
			continue
		}
		// Scopes select pods only (upstream also matches claims by
		// VolumeAttributesClass): a quota with scopes counts no other kind.
		matches := true
		for _, sel := range quotaScopes(quota) {
			matches = matches && pod != nil && podMatchesScope(sel, pod)
		}
		if !matches {
			continue
		}
		if pod != nil {
			if err := podConstraints(restricted, pod); err != nil {
				return forbid("failed quota: %s: %v", quota.Name, err)
			}
		}
		for _, name := range restricted {
			if _, ok := quota.Status.Used[name]; !ok {
				names := make([]string, len(restricted))
				for i, n := range restricted {
					names[i] = string(n)
				}
				return forbid("status unknown for quota: %s, resources: %s", quota.Name, strings.Join(names, ","))
			}
		}
		requested := mask(delta, sortedNames(quota.Status.Hard))
		if len(requested) == 0 {
			continue
		}
		newUsage := corev1.ResourceList{}
		for k, v := range quota.Status.Used {
			newUsage[k] = v
		}
		addResourceList(newUsage, requested)
		var exceeded []corev1.ResourceName
		for _, k := range sortedNames(requested) {
			if hard, ok := quota.Status.Hard[k]; ok && newUsage[k].Cmp(hard) > 0 {
				exceeded = append(exceeded, k)
			}
		}
		if len(exceeded) > 0 {
			return forbid("exceeded quota: %s, requested: %s, used: %s, limited: %s", quota.Name,
				prettyPrint(mask(requested, exceeded)), prettyPrint(mask(quota.Status.Used, exceeded)), prettyPrint(mask(quota.Status.Hard, exceeded)))
		}
		quota.Status.Used = newUsage
		charged = append(charged, quota)
	}
	if q.dryRun() {
		return nil
	}
	for _, quota := range charged {
		if err := s.writeQuotaStatus(ctx, quotaRes, quota); err != nil {
			return err
		}
	}
	return nil
}

// writeQuotaStatus stores a quota's new usage if the quota is still the
// revision it was read at (storage.ErrConflict otherwise).
func (s *Server) writeQuotaStatus(ctx context.Context, res *scheme.Resource, quota *corev1.ResourceQuota) error {
	rev, err := strconv.ParseInt(quota.ResourceVersion, 10, 64)
	if err != nil {
		return ErrInternal(err)
	}
	data, err := encodeForStorage(res, quota)
	if err != nil {
		return ErrInternal(err)
	}
	if _, err := s.cfg.Storage.Update(ctx, storageKey(res, quota.Namespace, quota.Name), data, rev); err != nil {
		if errors.Is(err, storage.ErrConflict) {
			return err
		}
		return storageError(err)
	}
	return nil
}
