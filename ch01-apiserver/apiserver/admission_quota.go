package apiserver

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"kubik/ch01-apiserver/api/corev1"
	"kubik/ch01-apiserver/api/metav1"
	"kubik/ch01-apiserver/api/scheme"
	"kubik/ch01-apiserver/apiserver/quota"
	"kubik/ch01-apiserver/storage"
)

// The ResourceQuota admission plugin (upstream's
// plugin/pkg/admission/resourcequota, with the evaluators of package quota),
// on create: what the new object would use
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
// "status unknown for quota". Updates of the kinds whose usage an update
// can change (pods, Services, claims) are charged what they add (a
// Service turned NodePort, a claim grown); nothing is given back for what
// an update frees until the controller recalculates. Object counts are
// charged on create only; events are never counted.

// quotaEvaluators measure the new object of a core kind; any other kind is
// counted as count/<resource>[.<group>] (quotaEvaluatorFor).
var quotaEvaluators = quota.NewEvaluators(quota.Listers{}, time.Now)

// quotaEvaluatorFor is the registry's evaluator of the resource, or an
// object count evaluator made for it.
func quotaEvaluatorFor(res *scheme.Resource) quota.Evaluator {
	gr := res.GroupResource()
	for _, e := range quotaEvaluators {
		if e.GroupResource() == gr {
			return e
		}
	}
	return quota.NewObjectCountEvaluator[metav1.PartialObjectMetadata](gr, nil, "")
}

// hasUsageStats: the quota has a used figure for every restricted name it
// limits.
func hasUsageStats(q *corev1.ResourceQuota, restricted []corev1.ResourceName) bool {
	for name := range q.Status.Hard {
		if _, ok := q.Status.Used[name]; !ok && slices.Contains(restricted, name) {
			return false
		}
	}
	return true
}

// prettyPrint is "a=1,b=2" in name order.
func prettyPrint(list corev1.ResourceList) string {
	parts := make([]string, 0, len(list))
	for _, k := range quota.ResourceNames(list) {
		v := list[k]
		parts = append(parts, string(k)+"="+v.String())
	}
	return strings.Join(parts, ",")
}

// prettyPrintResourceNames is "a,b" in name order.
func prettyPrintResourceNames(names []corev1.ResourceName) string {
	sorted := slices.Clone(names)
	slices.Sort(sorted)
	parts := make([]string, len(sorted))
	for i, n := range sorted {
		parts[i] = string(n)
	}
	return strings.Join(parts, ",")
}

// chargedOnUpdate are the resources whose evaluators handle updates
// (upstream's pod, service and persistentvolumeclaim evaluators).
var chargedOnUpdate = map[string]bool{"pods": true, "services": true, "persistentvolumeclaims": true}

// admitResourceQuota is the plugin's Validate, on create and (old not nil)
// on update. Conflicting writes of a quota's status are retried with the
// quotas read again.
func (s *Server) admitResourceQuota(ctx context.Context, q *request, obj, old metav1.Object) error {
	res := q.res
	if !res.Namespaced || (res.Group == "" && res.Resource == "events") {
		return nil
	}
	if old != nil && !(res.Group == "" && chargedOnUpdate[res.Resource]) {
		return nil
	}
	var err error
	for attempt := 0; attempt < 5; attempt++ {
		if err = s.chargeQuotas(ctx, q, obj, old); !errors.Is(err, storage.ErrConflict) {
			return err
		}
	}
	verb := "create"
	if old != nil {
		verb = "update"
	}
	return ErrForbidden(res.Group, res.Resource, res.GroupResource(), obj.GetObjectMeta().Name,
		fmt.Errorf("unable to %s %s at this time because there was an error enforcing quota", verb, res.GroupResource()))
}

func (s *Server) chargeQuotas(ctx context.Context, q *request, obj, old metav1.Object) error {
	res := q.res
	meta := obj.GetObjectMeta()
	quotaRes := scheme.Lookup("", "v1", "resourcequotas")
	items, _, err := s.list(ctx, quotaRes, meta.Namespace, listOptions{ResourceVersion: "0"})
	if err != nil || len(items) == 0 {
		return err
	}
	forbid := func(format string, args ...any) error {
		return ErrForbidden(res.Group, res.Resource, res.GroupResource(), meta.Name, fmt.Errorf(format, args...))
	}
	evaluator := quotaEvaluatorFor(res)
	var interesting []*corev1.ResourceQuota
	for _, it := range items {
		rq := it.(*corev1.ResourceQuota)
		match, err := evaluator.Matches(rq, obj)
		if err != nil {
			return ErrInternal(err)
		}
		if !match {
			continue
		}
		restricted := evaluator.MatchingResources(quota.ResourceNames(rq.Status.Hard))
		if err := evaluator.Constraints(restricted, obj); err != nil {
			return forbid("failed quota: %s: %v", rq.Name, err)
		}
		if !hasUsageStats(rq, restricted) {
			return forbid("status unknown for quota: %s, resources: %s", rq.Name, prettyPrintResourceNames(restricted))
		}
		interesting = append(interesting, rq)
	}
	if len(interesting) == 0 {
		return nil
	}
	delta, err := evaluator.Usage(obj)
	if err != nil {
		return ErrInternal(err)
	}
	if old != nil {
		prev, err := evaluator.Usage(old)
		if err != nil {
			return ErrInternal(err)
		}
		delta = quota.SubtractWithNonNegativeResult(delta, prev)
	}
	delta = quota.RemoveZeros(delta)
	if len(delta) == 0 {
		return nil
	}
	var charged []*corev1.ResourceQuota
	for _, rq := range interesting {
		requested := quota.Mask(delta, quota.ResourceNames(rq.Status.Hard))
		if len(requested) == 0 {
			continue
		}
		newUsage := quota.Add(rq.Status.Used, requested)
		maskedNewUsage := quota.Mask(newUsage, quota.ResourceNames(requested))
		if ok, exceeded := quota.LessThanOrEqual(maskedNewUsage, rq.Status.Hard); !ok {
			return forbid("exceeded quota: %s, requested: %s, used: %s, limited: %s", rq.Name,
				prettyPrint(quota.Mask(requested, exceeded)), prettyPrint(quota.Mask(rq.Status.Used, exceeded)), prettyPrint(quota.Mask(rq.Status.Hard, exceeded)))
		}
		rq.Status.Used = newUsage
		charged = append(charged, rq)
	}
	if q.dryRun() {
		return nil
	}
	for _, rq := range charged {
		if err := s.writeQuotaStatus(ctx, quotaRes, rq); err != nil {
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
