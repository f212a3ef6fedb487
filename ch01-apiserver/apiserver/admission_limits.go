package apiserver

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"

	"kubik/ch01-apiserver/api/corev1"
	"kubik/ch01-apiserver/api/resource"
	"kubik/ch01-apiserver/api/scheme"
)

// The LimitRanger admission plugin (upstream's plugin/pkg/admission/limitranger),
// for the LimitRanges of the object's namespace:
//
//   - mutating, on pod create: containers and init containers get the
//     Container item's default limits and default requests for what they do
//     not set, and the pod says so in its kubernetes.io/limit-ranger
//     annotation;
//   - validating, on pod create and on PersistentVolumeClaim create and
//     update: every min, max and maxLimitRequestRatio is checked, per
//     container and (for the Pod item) for the pod's total, and a violation
//     is a 403 listing every one of them.
//
// Objects being deleted are left alone. Upstream reads the LimitRanges from
// an informer; this apiserver lists them from its storage.

const limitRangerAnnotation = "kubernetes.io/limit-ranger"

// limitRanges lists the LimitRanges of a namespace.
func (s *Server) limitRanges(ctx context.Context, namespace string) ([]*corev1.LimitRange, error) {
	items, _, err := s.list(ctx, scheme.Lookup("", "v1", "limitranges"), namespace, listOptions{ResourceVersion: "0"})
	if err != nil {
		return nil, err
	}
	out := make([]*corev1.LimitRange, 0, len(items))
	for _, it := range items {
		out = append(out, it.(*corev1.LimitRange))
	}
	return out, nil
}

// admitLimitRanger is the plugin's Admit: the defaults, on pod create.
func (s *Server) admitLimitRanger(ctx context.Context, pod *corev1.Pod) error {
	ranges, err := s.limitRanges(ctx, pod.Namespace)
	if err != nil {
		return err
	}
	for _, lr := range ranges {
		requests, limits := defaultContainerResourceRequirements(lr)
		mergePodResourceRequirements(pod, requests, limits)
	}
	return nil
}

// validateLimitRanger is the plugin's Validate, for pods (create) and
// PersistentVolumeClaims (create and update).
func (s *Server) validateLimitRanger(ctx context.Context, res *scheme.Resource, obj any, namespace, name string) error {
	ranges, err := s.limitRanges(ctx, namespace)
	if err != nil {
		return err
	}
	for _, lr := range ranges {
		var errs []error
		switch o := obj.(type) {
		case *corev1.Pod:
			errs = podValidateLimitFunc(lr, o)
		case *corev1.PersistentVolumeClaim:
			errs = persistentVolumeClaimValidateLimitFunc(lr, o)
		}
		if len(errs) > 0 {
			return ErrForbidden(res.Group, res.Resource, res.GroupResource(), name, aggregate(errs))
		}
	}
	return nil
}

// aggregate joins errors as upstream's utilerrors.NewAggregate prints them:
// one message alone, several as "[a, b]", repeated messages once.
func aggregate(errs []error) error {
	var msgs []string
	seen := map[string]bool{}
	for _, err := range errs {
		if m := err.Error(); !seen[m] {
			seen[m] = true
			msgs = append(msgs, m)
		}
	}
	if len(msgs) == 1 {
		return errors.New(msgs[0])
	}
	return errors.New("[" + strings.Join(msgs, ", ") + "]")
}

// defaultContainerResourceRequirements: the Container item's defaultRequest
// and default.
func defaultContainerResourceRequirements(lr *corev1.LimitRange) (requests, limits corev1.ResourceList) {
	requests, limits = corev1.ResourceList{}, corev1.ResourceList{}
	for _, item := range lr.Spec.Limits {
		if item.Type != corev1.LimitTypeContainer {
			continue
		}
		for k, v := range item.DefaultRequest {
			requests[k] = v.DeepCopy()
		}
		for k, v := range item.Default {
			limits[k] = v.DeepCopy()
		}
	}
	return requests, limits
}

// mergeContainerResources fills in what one container does not set and
// returns the annotation's notes about it.
func mergeContainerResources(c *corev1.Container, requests, limits corev1.ResourceList, kind string, notes []string) []string {
	if c.Resources.Limits == nil {
		c.Resources.Limits = corev1.ResourceList{}
	}
	if c.Resources.Requests == nil {
		c.Resources.Requests = corev1.ResourceList{}
	}
	var setRequests, setLimits []string
	for k, v := range limits {
		if _, ok := c.Resources.Limits[k]; !ok {
			c.Resources.Limits[k] = v.DeepCopy()
			setLimits = append(setLimits, string(k))
		}
	}
	for k, v := range requests {
		if _, ok := c.Resources.Requests[k]; !ok {
			c.Resources.Requests[k] = v.DeepCopy()
			setRequests = append(setRequests, string(k))
		}
	}
	if len(setRequests) > 0 {
		sort.Strings(setRequests)
		notes = append(notes, fmt.Sprintf("%s request for %s %s", strings.Join(setRequests, ", "), kind, c.Name))
	}
	if len(setLimits) > 0 {
		sort.Strings(setLimits)
		notes = append(notes, fmt.Sprintf("%s limit for %s %s", strings.Join(setLimits, ", "), kind, c.Name))
	}
	return notes
}

func mergePodResourceRequirements(pod *corev1.Pod, requests, limits corev1.ResourceList) {
	var notes []string
	for i := range pod.Spec.Containers {
		notes = mergeContainerResources(&pod.Spec.Containers[i], requests, limits, "container", notes)
	}
	for i := range pod.Spec.InitContainers {
		notes = mergeContainerResources(&pod.Spec.InitContainers[i], requests, limits, "init container", notes)
	}
	if len(notes) > 0 {
		if pod.Annotations == nil {
			pod.Annotations = map[string]string{}
		}
		pod.Annotations[limitRangerAnnotation] = "LimitRanger plugin set: " + strings.Join(notes, "; ")
	}
}

// maxMilliValue is the largest value whose milli-value fits in an int64.
const maxMilliValue = int64(^uint64(0)>>1) / 1000

// requestLimitEnforcedValues: the three values at a common precision
// (milli-units unless one of them would overflow).
func requestLimitEnforcedValues(request, limit, enforced resource.Quantity) (r, l, e int64) {
	r, l, e = request.Value(), limit.Value(), enforced.Value()
	if r <= maxMilliValue && l <= maxMilliValue && e <= maxMilliValue {
		r, l, e = request.MilliValue(), limit.MilliValue(), enforced.MilliValue()
	}
	return r, l, e
}

func minConstraint(limitType string, name corev1.ResourceName, enforced resource.Quantity, request, limit corev1.ResourceList) error {
	req, reqExists := request[name]
	lim, limExists := limit[name]
	r, l, e := requestLimitEnforcedValues(req, lim, enforced)
	if !reqExists {
		return fmt.Errorf("minimum %s usage per %s is %s.  No request is specified", name, limitType, enforced.String())
	}
	if r < e {
		return fmt.Errorf("minimum %s usage per %s is %s, but request is %s", name, limitType, enforced.String(), req.String())
	}
	if limExists && l < e {
		return fmt.Errorf("minimum %s usage per %s is %s, but limit is %s", name, limitType, enforced.String(), lim.String())
	}
	return nil
}

// maxRequestConstraint is maxConstraint for kinds that have no limits (claims).
func maxRequestConstraint(limitType string, name corev1.ResourceName, enforced resource.Quantity, request corev1.ResourceList) error {
	req, reqExists := request[name]
	r, _, e := requestLimitEnforcedValues(req, resource.Quantity{}, enforced)
	if !reqExists {
		return fmt.Errorf("maximum %s usage per %s is %s.  No request is specified", name, limitType, enforced.String())
	}
	if r > e {
		return fmt.Errorf("maximum %s usage per %s is %s, but request is %s", name, limitType, enforced.String(), req.String())
	}
	return nil
}

func maxConstraint(limitType string, name corev1.ResourceName, enforced resource.Quantity, request, limit corev1.ResourceList) error {
	req, reqExists := request[name]
	lim, limExists := limit[name]
	r, l, e := requestLimitEnforcedValues(req, lim, enforced)
	if !limExists {
		return fmt.Errorf("maximum %s usage per %s is %s.  No limit is specified", name, limitType, enforced.String())
	}
	if l > e {
		return fmt.Errorf("maximum %s usage per %s is %s, but limit is %s", name, limitType, enforced.String(), lim.String())
	}
	if reqExists && r > e {
		return fmt.Errorf("maximum %s usage per %s is %s, but request is %s", name, limitType, enforced.String(), req.String())
	}
	return nil
}

func limitRequestRatioConstraint(limitType string, name corev1.ResourceName, enforced resource.Quantity, request, limit corev1.ResourceList) error {
	req, reqExists := request[name]
	lim, limExists := limit[name]
	r, l, _ := requestLimitEnforcedValues(req, lim, enforced)
	if !reqExists || r == 0 {
		return fmt.Errorf("%s max limit to request ratio per %s is %s, but no request is specified or request is 0", name, limitType, enforced.String())
	}
	if !limExists || l == 0 {
		return fmt.Errorf("%s max limit to request ratio per %s is %s, but no limit is specified or limit is 0", name, limitType, enforced.String())
	}
	observed := float64(l) / float64(r)
	display := observed
	maxRatio := float64(enforced.Value())
	if enforced.Value() <= maxMilliValue {
		observed *= 1000
		maxRatio = float64(enforced.MilliValue())
	}
	if observed > maxRatio {
		return fmt.Errorf("%s max limit to request ratio per %s is %s, but provided ratio is %f", name, limitType, enforced.String(), display)
	}
	return nil
}

// checkItem runs an item's min, max and ratio checks on one set of
// requests and limits, in the item's resource order.
func checkItem(item corev1.LimitRangeItem, request, limit corev1.ResourceList) []error {
	var errs []error
	t := string(item.Type)
	for _, k := range sortedNames(item.Min) {
		if err := minConstraint(t, k, item.Min[k], request, limit); err != nil {
			errs = append(errs, err)
		}
	}
	for _, k := range sortedNames(item.Max) {
		if err := maxConstraint(t, k, item.Max[k], request, limit); err != nil {
			errs = append(errs, err)
		}
	}
	for _, k := range sortedNames(item.MaxLimitRequestRatio) {
		if err := limitRequestRatioConstraint(t, k, item.MaxLimitRequestRatio[k], request, limit); err != nil {
			errs = append(errs, err)
		}
	}
	return errs
}

func sortedNames(list corev1.ResourceList) []corev1.ResourceName {
	names := make([]corev1.ResourceName, 0, len(list))
	for k := range list {
		names = append(names, k)
	}
	sort.Slice(names, func(i, j int) bool { return names[i] < names[j] })
	return names
}

// podValidateLimitFunc checks the Container item on every container and
// init container, the Pod item on the pod's total.
func podValidateLimitFunc(lr *corev1.LimitRange, pod *corev1.Pod) []error {
	var errs []error
	for _, item := range lr.Spec.Limits {
		switch item.Type {
		case corev1.LimitTypeContainer:
			for _, c := range pod.Spec.Containers {
				errs = append(errs, checkItem(item, c.Resources.Requests, c.Resources.Limits)...)
			}
			for _, c := range pod.Spec.InitContainers {
				errs = append(errs, checkItem(item, c.Resources.Requests, c.Resources.Limits)...)
			}
		case corev1.LimitTypePod:
			errs = append(errs, checkItem(item, podRequests(pod), podLimits(pod))...)
		}
	}
	return errs
}

// persistentVolumeClaimValidateLimitFunc: the PersistentVolumeClaim item's
// min and max bound the claim's requests.
func persistentVolumeClaimValidateLimitFunc(lr *corev1.LimitRange, pvc *corev1.PersistentVolumeClaim) []error {
	var errs []error
	for _, item := range lr.Spec.Limits {
		if item.Type != corev1.LimitTypePersistentVolumeClaim {
			continue
		}
		t := string(item.Type)
		for _, k := range sortedNames(item.Min) {
			if err := minConstraint(t, k, item.Min[k], pvc.Spec.Resources.Requests, corev1.ResourceList{}); err != nil {
				errs = append(errs, err)
			}
		}
		for _, k := range sortedNames(item.Max) {
			if err := maxRequestConstraint(t, k, item.Max[k], pvc.Spec.Resources.Requests); err != nil {
				errs = append(errs, err)
			}
		}
	}
	return errs
}

// podRequests is the pod's effective requests (upstream's PodRequests
// without in-place resize): the sum of its containers and of its sidecars
// (restartable init containers), at least the largest init container's
// need (plus the sidecars started before it).
func podRequests(pod *corev1.Pod) corev1.ResourceList {
	return podTotal(pod, func(c *corev1.Container) corev1.ResourceList { return c.Resources.Requests })
}

// podLimits is podRequests for limits.
func podLimits(pod *corev1.Pod) corev1.ResourceList {
	return podTotal(pod, func(c *corev1.Container) corev1.ResourceList { return c.Resources.Limits })
}

func podTotal(pod *corev1.Pod, of func(*corev1.Container) corev1.ResourceList) corev1.ResourceList {
	total := corev1.ResourceList{}
	for i := range pod.Spec.Containers {
		addResourceList(total, of(&pod.Spec.Containers[i]))
	}
	sidecars, initMax := corev1.ResourceList{}, corev1.ResourceList{}
	for i := range pod.Spec.InitContainers {
		c := &pod.Spec.InitContainers[i]
		need := of(c)
		if c.RestartPolicy != nil && *c.RestartPolicy == corev1.ContainerRestartPolicyAlways {
			addResourceList(total, need)
			addResourceList(sidecars, need)
			need = sidecars
		} else {
			tmp := corev1.ResourceList{}
			addResourceList(tmp, need)
			addResourceList(tmp, sidecars)
			need = tmp
		}
		maxResourceList(initMax, need)
	}
	maxResourceList(total, initMax)
	return total
}

func addResourceList(list, add corev1.ResourceList) {
	for name, q := range add {
		if v, ok := list[name]; ok {
			v.Add(q)
			list[name] = v
		} else {
			list[name] = q.DeepCopy()
		}
	}
}

func maxResourceList(list, other corev1.ResourceList) {
	for name, q := range other {
		if v, ok := list[name]; !ok || q.Cmp(v) > 0 {
			list[name] = q.DeepCopy()
		}
	}
}
