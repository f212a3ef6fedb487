package namespace

import (
	"errors"
	"fmt"
	"sort"
	"strings"

	"kubik/ch01-apiserver/api/corev1"
	"kubik/ch01-apiserver/api/metav1"
	"kubik/ch04-controllers/controller"
)

// The conditions of a terminating namespace: each is True with the
// trouble, or False with an "all is well" reason, so `kubectl describe ns`
// says why a namespace is stuck in Terminating. Reasons and messages are
// upstream's (deletion/status_condition_utils.go).

var (
	conditionTypes = []corev1.NamespaceConditionType{
		corev1.NamespaceDeletionDiscoveryFailure,
		corev1.NamespaceDeletionGVParsingFailure,
		corev1.NamespaceDeletionContentFailure,
		corev1.NamespaceContentRemaining,
		corev1.NamespaceFinalizersRemaining,
	}
	okMessages = map[corev1.NamespaceConditionType]string{
		corev1.NamespaceDeletionDiscoveryFailure: "All resources successfully discovered",
		corev1.NamespaceDeletionGVParsingFailure: "All legacy kube types successfully parsed",
		corev1.NamespaceDeletionContentFailure:   "All content successfully deleted, may be waiting on finalization",
		corev1.NamespaceContentRemaining:         "All content successfully removed",
		corev1.NamespaceFinalizersRemaining:      "All content-preserving finalizers finished",
	}
	okReasons = map[corev1.NamespaceConditionType]string{
		corev1.NamespaceDeletionDiscoveryFailure: "ResourcesDiscovered",
		corev1.NamespaceDeletionGVParsingFailure: "ParsedGroupVersions",
		corev1.NamespaceDeletionContentFailure:   "ContentDeleted",
		corev1.NamespaceContentRemaining:         "ContentRemoved",
		corev1.NamespaceFinalizersRemaining:      "ContentHasNoFinalizers",
	}
)

// namespaceConditionUpdater collects the outcome of one pass of the deleter
// and turns it into conditions.
type namespaceConditionUpdater struct {
	newConditions       []corev1.NamespaceCondition
	deleteContentErrors []error
}

// ProcessDiscoverResourcesErr: some API groups could not be discovered.
func (u *namespaceConditionUpdater) ProcessDiscoverResourcesErr(err error) {
	msg := err.Error()
	var derr *controller.ErrGroupDiscoveryFailed
	if errors.As(err, &derr) {
		msg = fmt.Sprintf("Discovery failed for some groups, %d failing: %v", len(derr.Groups), err)
	}
	u.newConditions = append(u.newConditions, corev1.NamespaceCondition{Type: corev1.NamespaceDeletionDiscoveryFailure,
		Status: corev1.ConditionTrue, LastTransitionTime: metav1.Now(), Reason: "DiscoveryFailed", Message: msg})
}

// ProcessContentTotals: what remains, by resource and by finalizer.
func (u *namespaceConditionUpdater) ProcessContentTotals(totals allGVRDeletionMetadata) {
	if len(totals.gvrToNumRemaining) != 0 {
		var remaining []string
		for r, n := range totals.gvrToNumRemaining {
			if n != 0 {
				remaining = append(remaining, fmt.Sprintf("%s.%s has %d resource instances", r.Resource, r.Group, n))
			}
		}
		sort.Strings(remaining)
		u.newConditions = append(u.newConditions, corev1.NamespaceCondition{Type: corev1.NamespaceContentRemaining,
			Status: corev1.ConditionTrue, LastTransitionTime: metav1.Now(), Reason: "SomeResourcesRemain",
			Message: "Some resources are remaining: " + strings.Join(remaining, ", ")})
	}
	if len(totals.finalizersToNumRemaining) != 0 {
		var remaining []string
		for f, n := range totals.finalizersToNumRemaining {
			if n != 0 {
				remaining = append(remaining, fmt.Sprintf("%s in %d resource instances", f, n))
			}
		}
		sort.Strings(remaining)
		u.newConditions = append(u.newConditions, corev1.NamespaceCondition{Type: corev1.NamespaceFinalizersRemaining,
			Status: corev1.ConditionTrue, LastTransitionTime: metav1.Now(), Reason: "SomeFinalizerRemain",
			Message: "Some finalizers are remaining: " + strings.Join(remaining, ", ")})
	}
}

// ProcessDeleteContentErr: deleting one resource's objects failed.
func (u *namespaceConditionUpdater) ProcessDeleteContentErr(err error) {
	u.deleteContentErrors = append(u.deleteContentErrors, err)
}

// Update writes the conditions into ns.Status; true if anything changed.
func (u *namespaceConditionUpdater) Update(ns *corev1.Namespace) bool {
	if getCondition(u.newConditions, corev1.NamespaceDeletionContentFailure) == nil && len(u.deleteContentErrors) > 0 {
		msgs := make([]string, 0, len(u.deleteContentErrors))
		for _, e := range u.deleteContentErrors {
			msgs = append(msgs, e.Error())
		}
		sort.Strings(msgs)
		u.newConditions = append(u.newConditions, corev1.NamespaceCondition{Type: corev1.NamespaceDeletionContentFailure,
			Status: corev1.ConditionTrue, LastTransitionTime: metav1.Now(), Reason: "ContentDeletionFailed",
			Message: fmt.Sprintf("Failed to delete all resource types, %d remaining: %v", len(u.deleteContentErrors), strings.Join(msgs, ", "))})
	}
	return updateConditions(&ns.Status, u.newConditions)
}

func updateConditions(status *corev1.NamespaceStatus, newConditions []corev1.NamespaceCondition) (changed bool) {
	for _, t := range conditionTypes {
		c := getCondition(newConditions, t)
		if c == nil {
			c = &corev1.NamespaceCondition{Type: t, Status: corev1.ConditionFalse, LastTransitionTime: metav1.Now(),
				Reason: okReasons[t], Message: okMessages[t]}
		}
		old := getCondition(status.Conditions, t)
		switch {
		case old == nil:
			status.Conditions = append(status.Conditions, *c)
			changed = true
		case old.Status != c.Status || old.Message != c.Message || old.Reason != c.Reason:
			if old.Status != c.Status {
				old.LastTransitionTime = metav1.Now()
			}
			old.Status, old.Reason, old.Message = c.Status, c.Reason, c.Message
			changed = true
		}
	}
	return changed
}

func getCondition(conditions []corev1.NamespaceCondition, t corev1.NamespaceConditionType) *corev1.NamespaceCondition {
	for i := range conditions {
		if conditions[i].Type == t {
			return &conditions[i]
		}
	}
	return nil
}
