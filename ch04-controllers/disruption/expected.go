package disruption

import (
	"fmt"
	"sort"
	"strings"
	"time"

	"kubik/ch01-apiserver/api/corev1"
	"kubik/ch01-apiserver/api/intstr"
	"kubik/ch01-apiserver/api/metav1"
	"kubik/ch01-apiserver/api/policyv1"
	"kubik/ch04-controllers/deployment"
)

// getExpectedPodCount turns the PDB's spec into desiredHealthy, with the
// number of pods expected: maxUnavailable and a percentage minAvailable are
// taken from the scale of the pods' controllers (pods without one are
// unmanagedPods), an integer minAvailable from the pods there are.
func (dc *DisruptionController) getExpectedPodCount(pdb *policyv1.PodDisruptionBudget, pods []*corev1.Pod) (expectedCount, desiredHealthy int32, unmanagedPods []string, err error) {
	switch {
	case pdb.Spec.MaxUnavailable != nil:
		expectedCount, unmanagedPods, err = dc.getExpectedScale(pods)
		if err != nil {
			return
		}
		var maxUnavailable int
		maxUnavailable, err = deployment.GetScaledValueFromIntOrPercent(pdb.Spec.MaxUnavailable, int(expectedCount), true)
		if err != nil {
			return
		}
		desiredHealthy = max(expectedCount-int32(maxUnavailable), 0)
	case pdb.Spec.MinAvailable != nil && pdb.Spec.MinAvailable.Type == intstr.Int:
		desiredHealthy = pdb.Spec.MinAvailable.IntVal
		expectedCount = int32(len(pods))
	case pdb.Spec.MinAvailable != nil:
		expectedCount, unmanagedPods, err = dc.getExpectedScale(pods)
		if err != nil {
			return
		}
		var minAvailable int
		minAvailable, err = deployment.GetScaledValueFromIntOrPercent(pdb.Spec.MinAvailable, int(expectedCount), true)
		if err != nil {
			return
		}
		desiredHealthy = int32(minAvailable)
	}
	return
}

// getExpectedScale sums the scale (spec.replicas) of the controllers of
// the pods, each controller once: a ReplicaSet owned by a Deployment counts
// as the Deployment. A pod without a controller is unmanaged; one whose
// controller is not found is an error.
func (dc *DisruptionController) getExpectedScale(pods []*corev1.Pod) (int32, []string, error) {
	controllerScale := map[string]int32{} // by UID
	var unmanagedPods []string
	for _, pod := range pods {
		ref := metav1.GetControllerOf(&pod.ObjectMeta)
		if ref == nil {
			unmanagedPods = append(unmanagedPods, pod.Name)
			continue
		}
		if _, found := controllerScale[ref.UID]; found {
			continue
		}
		uid, scale, found := dc.findController(ref, pod.Namespace)
		if !found {
			return 0, nil, fmt.Errorf("found no controllers for pod %q", pod.Name)
		}
		controllerScale[uid] = scale
	}
	var expected int32
	for _, n := range controllerScale {
		expected += n
	}
	return expected, unmanagedPods, nil
}

// findController is upstream's finders in their order: ReplicationController,
// Deployment (through its ReplicaSet), ReplicaSet, StatefulSet.
func (dc *DisruptionController) findController(ref *metav1.OwnerReference, namespace string) (uid string, scale int32, found bool) {
	group, _, _ := strings.Cut(ref.APIVersion, "/")
	if !strings.Contains(ref.APIVersion, "/") {
		group = ""
	}
	switch {
	case ref.Kind == "ReplicationController" && group == "":
		if rc, ok := dc.rcInformer.GetStore().Get(namespace, ref.Name); ok && rc.UID == ref.UID {
			return rc.UID, replicasOf(rc.Spec.Replicas), true
		}
	case ref.Kind == "ReplicaSet" && (group == "apps" || group == "extensions"):
		rs, ok := dc.rsInformer.GetStore().Get(namespace, ref.Name)
		if !ok || rs.UID != ref.UID {
			return "", 0, false
		}
		if dref := metav1.GetControllerOf(&rs.ObjectMeta); dref != nil && dref.Kind == "Deployment" {
			d, ok := dc.dInformer.GetStore().Get(namespace, dref.Name)
			if ok && d.UID == dref.UID {
				return d.UID, replicasOf(d.Spec.Replicas), true
			}
			return "", 0, false
		}
		return rs.UID, replicasOf(rs.Spec.Replicas), true
	case ref.Kind == "StatefulSet" && group == "apps":
		if ss, ok := dc.ssInformer.GetStore().Get(namespace, ref.Name); ok && ss.UID == ref.UID {
			return ss.UID, replicasOf(ss.Spec.Replicas), true
		}
	}
	return "", 0, false
}

func replicasOf(r *int32) int32 {
	if r == nil {
		return 1
	}
	return *r
}

// updateDisruptionAllowedCondition sets DisruptionAllowed from
// disruptionsAllowed: True/SufficientPods or False/InsufficientPods.
// Upstream: pdbhelper.UpdateDisruptionAllowedCondition.
func updateDisruptionAllowedCondition(pdb *policyv1.PodDisruptionBudget, now time.Time) {
	cond := metav1.Condition{Type: policyv1.DisruptionAllowedCondition, Status: "False",
		Reason: policyv1.InsufficientPodsReason, ObservedGeneration: pdb.Status.ObservedGeneration}
	if pdb.Status.DisruptionsAllowed > 0 {
		cond.Status, cond.Reason = "True", policyv1.SufficientPodsReason
	}
	setStatusCondition(&pdb.Status.Conditions, cond, now)
}

// conditionsAreUpToDate: DisruptionAllowed says what disruptionsAllowed
// does, for the current generation. Upstream: pdbhelper.ConditionsAreUpToDate.
func conditionsAreUpToDate(pdb *policyv1.PodDisruptionBudget) bool {
	cond := findStatusCondition(pdb.Status.Conditions, policyv1.DisruptionAllowedCondition)
	if cond == nil || pdb.Status.ObservedGeneration != pdb.Generation {
		return false
	}
	if pdb.Status.DisruptionsAllowed > 0 {
		return cond.Status == "True" && cond.Reason == policyv1.SufficientPodsReason
	}
	return cond.Status == "False" && cond.Reason == policyv1.InsufficientPodsReason
}

func findStatusCondition(conds []metav1.Condition, t string) *metav1.Condition {
	for i := range conds {
		if conds[i].Type == t {
			return &conds[i]
		}
	}
	return nil
}

// setStatusCondition adds cond or updates the condition of its type; the
// transition time changes only with the status. Upstream:
// apimachinery's meta.SetStatusCondition.
func setStatusCondition(conds *[]metav1.Condition, cond metav1.Condition, now time.Time) {
	if *conds == nil {
		*conds = []metav1.Condition{}
	}
	cur := findStatusCondition(*conds, cond.Type)
	if cur == nil {
		if cond.LastTransitionTime.IsZero() {
			cond.LastTransitionTime = metav1.NewTime(now)
		}
		*conds = append(*conds, cond)
		return
	}
	if cur.Status != cond.Status {
		cur.Status = cond.Status
		cur.LastTransitionTime = metav1.NewTime(now)
	}
	cur.Reason, cur.Message, cur.ObservedGeneration = cond.Reason, cond.Message, cond.ObservedGeneration
}

// selectorString prints a label selector as upstream's generated String()
// does (its events show it with %v).
func selectorString(s *metav1.LabelSelector) string {
	if s == nil {
		return "nil"
	}
	keys := make([]string, 0, len(s.MatchLabels))
	for k := range s.MatchLabels {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var b strings.Builder
	b.WriteString("&LabelSelector{MatchLabels:map[string]string{")
	for _, k := range keys {
		fmt.Fprintf(&b, "%v: %v,", k, s.MatchLabels[k])
	}
	b.WriteString("},MatchExpressions:[]LabelSelectorRequirement{")
	for _, e := range s.MatchExpressions {
		fmt.Fprintf(&b, "LabelSelectorRequirement{Key:%s,Operator:%s,Values:%v,},", e.Key, e.Operator, e.Values)
	}
	b.WriteString("},}")
	return b.String()
}
