package apiserver

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"time"

	"kubik/ch01-apiserver/api/corev1"
	"kubik/ch01-apiserver/api/metav1"
	"kubik/ch01-apiserver/api/policyv1"
	"kubik/ch01-apiserver/api/scheme"
	"kubik/ch01-apiserver/apiserver/selection"
	"kubik/ch01-apiserver/storage"
)

// POST pods/<name>/eviction: delete the pod if its PodDisruptionBudget
// allows one more disruption (kubectl drain, the scheduler's preemption,
// the node's pressure eviction). Upstream: EvictionREST.Create in
// pkg/registry/core/pod/storage/eviction.go, followed step by step:
//
//  1. a pod that is no disruption (Pending, Succeeded, Failed, or already
//     being deleted) is deleted without looking at budgets;
//  2. no budget selects the pod: it is deleted;
//  3. more than one: refused (the subresource does not support it);
//  4. one: the budget's status — kept by the disruption controller — must
//     be current (observedGeneration) and allow a disruption; the eviction
//     takes one (disruptionsAllowed-1, the pod noted in disruptedPods) and
//     deletes the pod, conditional on its resourceVersion, so a pod that
//     became ready meanwhile is not deleted on a stale decision.
//
// Without a disruption controller (it comes with chapter 4's issue on the
// missing controllers) a budget's status is never current, so every
// eviction of a pod it selects is refused with 429, exactly as on a cluster
// whose kube-controller-manager does not run.

// maxDisruptedPodSize is upstream's MaxDisruptedPodSize.
const maxDisruptedPodSize = 2000

var evictionKind = &scheme.Resource{Group: "policy", Version: "v1", Kind: "Eviction", Resource: "pods/eviction",
	New: func() metav1.Object { return &policyv1.Eviction{} }}

func (s *Server) handleEviction(ctx context.Context, q *request) error {
	obj, err := s.decodeBody(q, evictionKind)
	if err != nil {
		return err
	}
	ev := obj.(*policyv1.Eviction)
	if ev.Name != q.info.Name {
		return ErrBadRequest("name in URL does not match name in Eviction object")
	}
	opts, err := evictionDeleteOptions(ev, q)
	if err != nil {
		return err
	}
	if err := validateDeleteOptions(opts); err != nil {
		return err
	}
	dryRun := slices.Contains(opts.DryRun, "All")

	pod, err := s.getPod(ctx, q)
	if err != nil {
		return err
	}
	if canIgnorePDB(pod) {
		if !isTerminal(pod) && opts.Preconditions == nil {
			opts.Preconditions = &metav1.Preconditions{ResourceVersion: &pod.ResourceVersion}
		}
		return s.evict(ctx, q, opts)
	}

	pdbs, err := s.podDisruptionBudgets(ctx, pod)
	if err != nil {
		return err
	}
	switch len(pdbs) {
	case 0:
		return s.evict(ctx, q, opts)
	case 1:
	default:
		q.write(http.StatusInternalServerError, &metav1.Status{TypeMeta: metav1.TypeMeta{Kind: "Status", APIVersion: "v1"},
			Status: metav1.StatusFailure, Code: http.StatusInternalServerError,
			Message: "This pod has more than one PodDisruptionBudget, which the eviction subresource does not support."})
		return nil
	}
	pdb := pdbs[0]
	// An unready pod does not count as healthy: evicting it costs the
	// budget nothing while enough others are healthy.
	if !isPodReady(pod) && pdb.Status.CurrentHealthy >= pdb.Status.DesiredHealthy && pdb.Status.DesiredHealthy > 0 {
		opts.Preconditions = orResourceVersion(opts.Preconditions, pod.ResourceVersion)
		if err := s.evict(ctx, q, opts); err != nil {
			if isConflict(err) {
				return tooManyRequestsForBudget(pdb.Name)
			}
			return err
		}
		return nil
	}
	if err := s.takeDisruption(ctx, pod, pdb, dryRun); err != nil {
		return err
	}
	return s.evict(ctx, q, opts)
}

// evictionDeleteOptions are the eviction's deleteOptions, with the
// request's dryRun (they must agree when both are given).
func evictionDeleteOptions(ev *policyv1.Eviction, q *request) (*metav1.DeleteOptions, error) {
	query := q.r.URL.Query()["dryRun"]
	opts := ev.DeleteOptions
	if opts == nil {
		opts = &metav1.DeleteOptions{}
	}
	switch {
	case len(opts.DryRun) == 0:
		opts.DryRun = query
	case len(query) > 0 && !slices.Equal(query, opts.DryRun):
		// Upstream answers 500; it is the client's mistake.
		return nil, ErrBadRequest(fmt.Sprintf("Non-matching dry-run options in request and content: %v and %v", query, opts.DryRun))
	}
	return opts, nil
}

// evict deletes the pod as the eviction decided and answers 201 Success.
func (s *Server) evict(ctx context.Context, q *request, opts *metav1.DeleteOptions) error {
	if _, _, err := s.delete(ctx, q, q.info.Namespace, q.info.Name, opts); err != nil {
		return err
	}
	q.write(http.StatusCreated, &metav1.Status{TypeMeta: metav1.TypeMeta{Kind: "Status", APIVersion: "v1"},
		Status: metav1.StatusSuccess, Code: http.StatusCreated})
	return nil
}

// canIgnorePDB: the pod causes no disruption by going (upstream's canIgnorePDB).
func canIgnorePDB(pod *corev1.Pod) bool {
	return isTerminal(pod) || pod.Status.Phase == corev1.PodPending
}

// isTerminal: finished, or already being deleted — no resourceVersion
// precondition is needed for those (upstream's shouldEnforceResourceVersion).
func isTerminal(pod *corev1.Pod) bool {
	return pod.Status.Phase == corev1.PodSucceeded || pod.Status.Phase == corev1.PodFailed || pod.DeletionTimestamp != nil
}

func isPodReady(pod *corev1.Pod) bool {
	for _, c := range pod.Status.Conditions {
		if c.Type == corev1.PodReady {
			return c.Status == corev1.ConditionTrue
		}
	}
	return false
}

func orResourceVersion(p *metav1.Preconditions, rv string) *metav1.Preconditions {
	if p != nil && p.ResourceVersion != nil {
		return p
	}
	out := &metav1.Preconditions{ResourceVersion: &rv}
	if p != nil {
		out.UID = p.UID
	}
	return out
}

func isConflict(err error) bool {
	var se *StatusError
	return errors.As(err, &se) && se.Status.Code == http.StatusConflict
}

// podDisruptionBudgets are the budgets of the pod's namespace whose
// selector selects it; an empty or broken selector selects nothing.
func (s *Server) podDisruptionBudgets(ctx context.Context, pod *corev1.Pod) ([]*policyv1.PodDisruptionBudget, error) {
	res := scheme.Lookup("policy", "v1", "poddisruptionbudgets")
	items, _, err := s.list(ctx, res, pod.Namespace, listOptions{Labels: selection.Everything()})
	if err != nil {
		return nil, err
	}
	var out []*policyv1.PodDisruptionBudget
	for _, it := range items {
		pdb := it.(*policyv1.PodDisruptionBudget)
		sel := pdb.Spec.Selector
		if sel == nil || len(sel.MatchLabels)+len(sel.MatchExpressions) == 0 {
			continue
		}
		ls, err := selection.FromLabelSelector(sel)
		if err != nil || !ls.Matches(pod.Labels) {
			continue
		}
		out = append(out, pdb)
	}
	return out, nil
}

// takeDisruption is upstream's checkAndDecrement, retried on conflicts:
// the budget must be current and allow a disruption; it then allows one
// fewer and lists the pod as disrupted, so the disruption controller does
// not count it while it goes.
func (s *Server) takeDisruption(ctx context.Context, pod *corev1.Pod, pdb *policyv1.PodDisruptionBudget, dryRun bool) error {
	res := scheme.Lookup("policy", "v1", "poddisruptionbudgets")
	key := storageKey(res, pdb.Namespace, pdb.Name)
	for attempt := 0; ; attempt++ {
		if attempt > 0 {
			kv, err := s.cfg.Storage.Get(ctx, key)
			if err != nil {
				return conflictOrStorage(res, pdb.Name, err)
			}
			obj, err := decodeFromStorage(res, kv)
			if err != nil {
				return ErrInternal(err)
			}
			pdb = obj.(*policyv1.PodDisruptionBudget)
		}
		st := &pdb.Status
		switch {
		case st.ObservedGeneration < pdb.Generation:
			return tooManyRequestsForBudget(pdb.Name)
		case st.DisruptionsAllowed < 0:
			return budgetForbidden(pdb.Name, "pdb disruptions allowed is negative")
		case len(st.DisruptedPods) > maxDisruptedPodSize:
			return budgetForbidden(pdb.Name, "DisruptedPods map too big - too many evictions not confirmed by PDB controller")
		case st.DisruptionsAllowed == 0:
			err := ErrTooManyRequests("Cannot evict pod as it would violate the pod's disruption budget.", 0)
			err.Status.Details.Causes = append(err.Status.Details.Causes, metav1.StatusCause{Type: policyv1.DisruptionBudgetCause,
				Message: fmt.Sprintf("The disruption budget %s needs %d healthy pods and has %d currently", pdb.Name, st.DesiredHealthy, st.CurrentHealthy)})
			return err
		}
		st.DisruptionsAllowed--
		if st.DisruptionsAllowed == 0 {
			setDisruptionAllowedCondition(pdb)
		}
		if dryRun {
			return nil
		}
		if st.DisruptedPods == nil {
			st.DisruptedPods = map[string]metav1.Time{}
		}
		st.DisruptedPods[pod.Name] = metav1.Now()
		data, err := encodeForStorage(res, pdb)
		if err != nil {
			return ErrInternal(err)
		}
		rev, err := parseRV(pdb.ResourceVersion)
		if err != nil {
			return ErrInternal(err)
		}
		if _, err := s.cfg.Storage.Update(ctx, key, data, rev); err != nil {
			if errors.Is(err, storage.ErrConflict) && attempt < 20 {
				continue
			}
			if errors.Is(err, storage.ErrConflict) {
				return ErrTimeout(fmt.Sprintf("couldn't update PodDisruptionBudget %q due to conflicts", pdb.Name))
			}
			return conflictOrStorage(res, pdb.Name, err)
		}
		return nil
	}
}

// setDisruptionAllowedCondition is upstream's
// pdbhelper.UpdateDisruptionAllowedCondition for a budget that has just
// run out.
func setDisruptionAllowedCondition(pdb *policyv1.PodDisruptionBudget) {
	c := metav1.Condition{Type: policyv1.DisruptionAllowedCondition, Status: "False",
		Reason: policyv1.InsufficientPodsReason, ObservedGeneration: pdb.Status.ObservedGeneration}
	for i, old := range pdb.Status.Conditions {
		if old.Type == c.Type {
			if old.Status == c.Status {
				c.LastTransitionTime = old.LastTransitionTime
			} else {
				c.LastTransitionTime = metav1.NewTime(time.Now())
			}
			pdb.Status.Conditions[i] = c
			return
		}
	}
	c.LastTransitionTime = metav1.NewTime(time.Now())
	pdb.Status.Conditions = append(pdb.Status.Conditions, c)
}

// tooManyRequestsForBudget is upstream's createTooManyRequestsError: the
// budget's status is not current yet; try again in 10 seconds.
func tooManyRequestsForBudget(name string) error {
	err := ErrTooManyRequests("Cannot evict pod as it would violate the pod's disruption budget.", 10)
	err.Status.Details.Causes = append(err.Status.Details.Causes, metav1.StatusCause{Type: policyv1.DisruptionBudgetCause,
		Message: fmt.Sprintf("The disruption budget %s is still being processed by the server.", name)})
	return err
}

func budgetForbidden(name, why string) error {
	return ErrForbidden("policy", "poddisruptionbudget", "poddisruptionbudget.policy", name, errors.New(why))
}
