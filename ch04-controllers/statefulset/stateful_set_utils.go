package statefulset

import (
	"encoding/json"
	"fmt"
	"log/slog"
	"maps"
	"reflect"
	"regexp"
	"strconv"
	"time"

	"kubik/ch01-apiserver/api/appsv1"
	"kubik/ch01-apiserver/api/corev1"
	"kubik/ch01-apiserver/api/intstr"
	"kubik/ch01-apiserver/api/metav1"
	"kubik/ch01-apiserver/apiserver/patch"
	"kubik/ch04-controllers/controller"
	"kubik/ch04-controllers/controller/history"
	"kubik/ch04-controllers/deployment"
)

// The identity of a StatefulSet's pods and claims, their states, and the
// revisions. Upstream: stateful_set_utils.go.

// controllerKind is the StatefulSet's (the pods' and revisions'
// controllerRef); podKind the pod's (a claim's ownerReference when it
// is deleted with its pod on scale-down).
var (
	controllerKind = gvk{APIVersion: "apps/v1", Kind: "StatefulSet"}
	podKind        = gvk{APIVersion: "v1", Kind: "Pod"}
)

type gvk struct{ APIVersion, Kind string }

// statefulPodRegex splits a pod name into its StatefulSet's name and its
// ordinal: web-12 → web, 12.
var statefulPodRegex = regexp.MustCompile("(.*)-([0-9]+)$")

// getParentNameAndOrdinal is the StatefulSet name and ordinal in the pod's
// name, or "" and -1.
func getParentNameAndOrdinal(pod *corev1.Pod) (string, int) {
	m := statefulPodRegex.FindStringSubmatch(pod.Name)
	if len(m) < 3 {
		return "", -1
	}
	ordinal := -1
	if i, err := strconv.ParseInt(m[2], 10, 32); err == nil {
		ordinal = int(i)
	}
	return m[1], ordinal
}

func getParentName(pod *corev1.Pod) string { p, _ := getParentNameAndOrdinal(pod); return p }

// getOrdinal is the pod's ordinal, -1 if it has none.
func getOrdinal(pod *corev1.Pod) int { _, o := getParentNameAndOrdinal(pod); return o }

func replicasOf(set *appsv1.StatefulSet) int {
	if set.Spec.Replicas == nil {
		return 1
	}
	return int(*set.Spec.Replicas)
}

// getStartOrdinal is spec.ordinals.start, or 0.
func getStartOrdinal(set *appsv1.StatefulSet) int {
	if set.Spec.Ordinals != nil {
		return int(set.Spec.Ordinals.Start)
	}
	return 0
}

// getEndOrdinal is the last ordinal the set runs (inclusive).
func getEndOrdinal(set *appsv1.StatefulSet) int { return getStartOrdinal(set) + replicasOf(set) - 1 }

// podInOrdinalRange: the pod's ordinal is one the set runs now.
func podInOrdinalRange(pod *corev1.Pod, set *appsv1.StatefulSet) bool {
	o := getOrdinal(pod)
	return o >= getStartOrdinal(set) && o <= getEndOrdinal(set)
}

// getPodName is <set>-<ordinal>.
func getPodName(set *appsv1.StatefulSet, ordinal int) string {
	return fmt.Sprintf("%s-%d", set.Name, ordinal)
}

// getPersistentVolumeClaimName is <claim template>-<set>-<ordinal>.
func getPersistentVolumeClaimName(set *appsv1.StatefulSet, claim *corev1.PersistentVolumeClaim, ordinal int) string {
	return fmt.Sprintf("%s-%s-%d", claim.Name, set.Name, ordinal)
}

// isMemberOf: the pod's name says it belongs to set.
func isMemberOf(set *appsv1.StatefulSet, pod *corev1.Pod) bool { return getParentName(pod) == set.Name }

// identityMatches: the pod has the name, namespace and pod-name label of a
// member of set.
func identityMatches(set *appsv1.StatefulSet, pod *corev1.Pod) bool {
	parent, ordinal := getParentNameAndOrdinal(pod)
	return ordinal >= 0 && set.Name == parent && pod.Name == getPodName(set, ordinal) &&
		pod.Namespace == set.Namespace && pod.Labels[appsv1.StatefulSetPodNameLabel] == pod.Name
}

// storageMatches: the pod mounts each of its claims under the template's name.
func storageMatches(set *appsv1.StatefulSet, pod *corev1.Pod) bool {
	ordinal := getOrdinal(pod)
	if ordinal < 0 {
		return false
	}
	volumes := map[string]corev1.Volume{}
	for _, v := range pod.Spec.Volumes {
		volumes[v.Name] = v
	}
	for i := range set.Spec.VolumeClaimTemplates {
		claim := &set.Spec.VolumeClaimTemplates[i]
		v, ok := volumes[claim.Name]
		if !ok || v.PersistentVolumeClaim == nil || v.PersistentVolumeClaim.ClaimName != getPersistentVolumeClaimName(set, claim, ordinal) {
			return false
		}
	}
	return true
}

// getPersistentVolumeClaimRetentionPolicy is the set's policy, Retain/Retain if unset.
func getPersistentVolumeClaimRetentionPolicy(set *appsv1.StatefulSet) appsv1.StatefulSetPersistentVolumeClaimRetentionPolicy {
	policy := appsv1.StatefulSetPersistentVolumeClaimRetentionPolicy{
		WhenDeleted: appsv1.RetainPersistentVolumeClaimRetentionPolicyType,
		WhenScaled:  appsv1.RetainPersistentVolumeClaimRetentionPolicyType,
	}
	if set.Spec.PersistentVolumeClaimRetentionPolicy != nil {
		policy = *set.Spec.PersistentVolumeClaimRetentionPolicy
	}
	return policy
}

// matchesRef: ref names obj (kind and name; the UID may differ).
func matchesRef(ref *metav1.OwnerReference, obj *metav1.ObjectMeta, kind gvk) bool {
	return ref.APIVersion == kind.APIVersion && ref.Kind == kind.Kind && ref.Name == obj.Name
}

// hasUnexpectedController: with a Delete policy, the claim is controlled
// by something other than the set or the pod (or by an older set or pod of
// the same name), so the policy leaves it alone.
func hasUnexpectedController(claim *corev1.PersistentVolumeClaim, set *appsv1.StatefulSet, pod *corev1.Pod) bool {
	policy := getPersistentVolumeClaimRetentionPolicy(set)
	const retain = appsv1.RetainPersistentVolumeClaimRetentionPolicyType
	if policy.WhenScaled == retain && policy.WhenDeleted == retain {
		return false
	}
	for _, ref := range claim.OwnerReferences {
		if matchesRef(&ref, &set.ObjectMeta, controllerKind) {
			if ref.UID != set.UID {
				return true
			}
			continue
		}
		if matchesRef(&ref, &pod.ObjectMeta, podKind) {
			if ref.UID != pod.UID {
				return true
			}
			continue
		}
		if ref.Controller != nil && *ref.Controller {
			return true
		}
	}
	return false
}

// hasNonControllerOwner: the set or pod owns the claim without being its controller.
func hasNonControllerOwner(claim *corev1.PersistentVolumeClaim, set *appsv1.StatefulSet, pod *corev1.Pod) bool {
	for _, ref := range claim.OwnerReferences {
		if (ref.UID == set.UID || ref.UID == pod.UID) && (ref.Controller == nil || !*ref.Controller) {
			return true
		}
	}
	return false
}

func removeRefs(refs []metav1.OwnerReference, predicate func(*metav1.OwnerReference) bool) []metav1.OwnerReference {
	out := []metav1.OwnerReference{}
	for _, ref := range refs {
		if !predicate(&ref) {
			out = append(out, ref)
		}
	}
	return out
}

// isClaimOwnerUpToDate: the claim's ownerReferences say what the retention
// policy wants, which the garbage collector then carries out:
//
//	whenScaled Retain, whenDeleted Retain: no reference
//	whenScaled Retain, whenDeleted Delete: the set only
//	whenScaled Delete, whenDeleted Retain: the pod only, once scaled down
//	whenScaled Delete, whenDeleted Delete: the set, or the pod once scaled down
//
// A claim with stale references (an older set or pod of the same name) or
// another controller is left as it is.
func isClaimOwnerUpToDate(log *slog.Logger, claim *corev1.PersistentVolumeClaim, set *appsv1.StatefulSet, pod *corev1.Pod) bool {
	if hasStaleOwnerRef(claim, &set.ObjectMeta, controllerKind) || hasStaleOwnerRef(claim, &pod.ObjectMeta, podKind) {
		return true
	}
	if hasUnexpectedController(claim, set, pod) {
		return !hasOwnerRef(&claim.ObjectMeta, set.UID) && !hasOwnerRef(&claim.ObjectMeta, pod.UID)
	}
	if hasNonControllerOwner(claim, set, pod) {
		return false
	}
	policy := getPersistentVolumeClaimRetentionPolicy(set)
	const retain = appsv1.RetainPersistentVolumeClaimRetentionPolicyType
	const del = appsv1.DeletePersistentVolumeClaimRetentionPolicyType
	setRef, podRef := hasOwnerRef(&claim.ObjectMeta, set.UID), hasOwnerRef(&claim.ObjectMeta, pod.UID)
	scaledDown := !podInOrdinalRange(pod, set)
	switch {
	default:
		log.Error("Unknown policy, treating as Retain", "policy", set.Spec.PersistentVolumeClaimRetentionPolicy)
		fallthrough
	case policy.WhenScaled == retain && policy.WhenDeleted == retain:
		return !setRef && !podRef
	case policy.WhenScaled == retain && policy.WhenDeleted == del:
		return setRef && !podRef
	case policy.WhenScaled == del && policy.WhenDeleted == retain:
		return !setRef && scaledDown == podRef
	case policy.WhenScaled == del && policy.WhenDeleted == del:
		return scaledDown != setRef && scaledDown == podRef
	}
}

// updateClaimOwnerRefForSetAndPod rewrites the claim's references to the
// set and pod as the retention policy wants (isClaimOwnerUpToDate).
func updateClaimOwnerRefForSetAndPod(log *slog.Logger, claim *corev1.PersistentVolumeClaim, set *appsv1.StatefulSet, pod *corev1.Pod) {
	unexpectedController := hasUnexpectedController(claim, set, pod)
	refs := removeRefs(claim.OwnerReferences, func(ref *metav1.OwnerReference) bool {
		return matchesRef(ref, &set.ObjectMeta, controllerKind) || matchesRef(ref, &pod.ObjectMeta, podKind)
	})
	if unexpectedController {
		claim.OwnerReferences = refs
		return
	}
	policy := getPersistentVolumeClaimRetentionPolicy(set)
	const retain = appsv1.RetainPersistentVolumeClaimRetentionPolicyType
	const del = appsv1.DeletePersistentVolumeClaimRetentionPolicyType
	scaledDown := !podInOrdinalRange(pod, set)
	switch {
	default:
		log.Error("Unknown policy, treating as Retain", "policy", set.Spec.PersistentVolumeClaimRetentionPolicy)
	case policy.WhenScaled == retain && policy.WhenDeleted == retain:
	case policy.WhenScaled == retain && policy.WhenDeleted == del:
		refs = addControllerRef(refs, &set.ObjectMeta, controllerKind)
	case policy.WhenScaled == del && policy.WhenDeleted == retain:
		if scaledDown {
			refs = addControllerRef(refs, &pod.ObjectMeta, podKind)
		}
	case policy.WhenScaled == del && policy.WhenDeleted == del:
		if scaledDown {
			refs = addControllerRef(refs, &pod.ObjectMeta, podKind)
		} else {
			refs = addControllerRef(refs, &set.ObjectMeta, controllerKind)
		}
	}
	claim.OwnerReferences = refs
}

// hasOwnerRef: target has an ownerReference with uid.
func hasOwnerRef(target *metav1.ObjectMeta, uid string) bool {
	for _, ref := range target.OwnerReferences {
		if ref.UID == uid {
			return true
		}
	}
	return false
}

// hasStaleOwnerRef: target refers to obj by kind and name, but with another UID.
func hasStaleOwnerRef(target *corev1.PersistentVolumeClaim, obj *metav1.ObjectMeta, kind gvk) bool {
	for _, ref := range target.OwnerReferences {
		if matchesRef(&ref, obj, kind) {
			return ref.UID != obj.UID
		}
	}
	return false
}

// addControllerRef adds owner as the controller, unless already there.
func addControllerRef(refs []metav1.OwnerReference, owner *metav1.ObjectMeta, kind gvk) []metav1.OwnerReference {
	for _, ref := range refs {
		if ref.UID == owner.UID {
			return refs
		}
	}
	return append(refs, controller.NewControllerRef(owner, kind.APIVersion, kind.Kind))
}

// getPersistentVolumeClaims are the pod's claims, by template name, each
// named for the pod and labelled with the set's selector.
func getPersistentVolumeClaims(set *appsv1.StatefulSet, pod *corev1.Pod) map[string]corev1.PersistentVolumeClaim {
	ordinal := getOrdinal(pod)
	claims := make(map[string]corev1.PersistentVolumeClaim, len(set.Spec.VolumeClaimTemplates))
	for i := range set.Spec.VolumeClaimTemplates {
		claim := metav1.DeepCopy(&set.Spec.VolumeClaimTemplates[i])
		claim.Name = getPersistentVolumeClaimName(set, claim, ordinal)
		claim.Namespace = set.Namespace
		if claim.Labels == nil {
			claim.Labels = map[string]string{}
		}
		if set.Spec.Selector != nil {
			maps.Copy(claim.Labels, set.Spec.Selector.MatchLabels)
		}
		claims[set.Spec.VolumeClaimTemplates[i].Name] = *claim
	}
	return claims
}

// updateStorage makes the pod mount its claims, replacing any volume of
// the same name.
func updateStorage(set *appsv1.StatefulSet, pod *corev1.Pod) {
	claims := getPersistentVolumeClaims(set, pod)
	volumes := make([]corev1.Volume, 0, len(claims)+len(pod.Spec.Volumes))
	// In template order (upstream ranges over a map: any order is valid).
	for i := range set.Spec.VolumeClaimTemplates {
		name := set.Spec.VolumeClaimTemplates[i].Name
		volumes = append(volumes, corev1.Volume{Name: name, VolumeSource: corev1.VolumeSource{
			PersistentVolumeClaim: &corev1.PersistentVolumeClaimVolumeSource{ClaimName: claims[name].Name}}})
	}
	for _, v := range pod.Spec.Volumes {
		if _, ok := claims[v.Name]; !ok {
			volumes = append(volumes, v)
		}
	}
	pod.Spec.Volumes = volumes
}

// initIdentity is updateIdentity plus the hostname and subdomain, set only
// when the pod is created (they are immutable).
func initIdentity(set *appsv1.StatefulSet, pod *corev1.Pod) {
	updateIdentity(set, pod)
	pod.Spec.Hostname = pod.Name
	pod.Spec.Subdomain = set.Spec.ServiceName
}

// updateIdentity sets the pod's name, namespace, pod-name and pod-index labels.
func updateIdentity(set *appsv1.StatefulSet, pod *corev1.Pod) {
	ordinal := getOrdinal(pod)
	pod.Name = getPodName(set, ordinal)
	pod.Namespace = set.Namespace
	if pod.Labels == nil {
		pod.Labels = map[string]string{}
	}
	pod.Labels[appsv1.StatefulSetPodNameLabel] = pod.Name
	pod.Labels[appsv1.PodIndexLabel] = strconv.Itoa(ordinal)
}

// The pod states the controller acts on.
func isRunningAndReady(pod *corev1.Pod) bool {
	return pod.Status.Phase == corev1.PodRunning && controller.IsPodReady(pod)
}
func isRunningAndAvailable(pod *corev1.Pod, minReadySeconds int32) bool {
	return controller.IsPodAvailable(pod, minReadySeconds, time.Now())
}

// isCreated: the apiserver has the pod (a pod built here has no phase yet).
func isCreated(pod *corev1.Pod) bool     { return pod.Status.Phase != "" }
func isPending(pod *corev1.Pod) bool     { return pod.Status.Phase == corev1.PodPending }
func isFailed(pod *corev1.Pod) bool      { return pod.Status.Phase == corev1.PodFailed }
func isSucceeded(pod *corev1.Pod) bool   { return pod.Status.Phase == corev1.PodSucceeded }
func isTerminating(pod *corev1.Pod) bool { return pod.DeletionTimestamp != nil }

// isUnavailable: created and not available, or terminating.
func isUnavailable(pod *corev1.Pod, minReadySeconds int32) bool {
	return !isCreated(pod) || isTerminating(pod) || !isRunningAndAvailable(pod, minReadySeconds)
}

// allowsBurst: podManagementPolicy Parallel.
func allowsBurst(set *appsv1.StatefulSet) bool {
	return set.Spec.PodManagementPolicy == appsv1.ParallelPodManagement
}

func setPodRevision(pod *corev1.Pod, revision string) {
	if pod.Labels == nil {
		pod.Labels = map[string]string{}
	}
	pod.Labels[appsv1.StatefulSetRevisionLabel] = revision
}

// getPodRevision is the pod's controller-revision-hash label.
func getPodRevision(pod *corev1.Pod) string { return pod.Labels[appsv1.StatefulSetRevisionLabel] }

// newStatefulSetPod is the pod of ordinal built from set's template.
func newStatefulSetPod(set *appsv1.StatefulSet, ordinal int) *corev1.Pod {
	ref := controller.NewControllerRef(&set.ObjectMeta, controllerKind.APIVersion, controllerKind.Kind)
	pod, err := controller.GetPodFromTemplate(&set.Spec.Template, &set.ObjectMeta, &ref)
	if err != nil { // a template without labels: validation refuses it
		pod = &corev1.Pod{TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "Pod"},
			ObjectMeta: metav1.ObjectMeta{Namespace: set.Namespace, OwnerReferences: []metav1.OwnerReference{ref}},
			Spec:       *metav1.DeepCopy(&set.Spec.Template.Spec)}
	}
	pod.GenerateName = ""
	pod.Name = getPodName(set, ordinal)
	initIdentity(set, pod)
	updateStorage(set, pod)
	return pod
}

// newVersionedStatefulSetPod builds the pod of ordinal at the current
// revision if the rolling update keeps it there (below the partition), at
// the update revision otherwise.
func newVersionedStatefulSetPod(currentSet, updateSet *appsv1.StatefulSet, currentRevision, updateRevision string, ordinal int) *corev1.Pod {
	ru := currentSet.Spec.UpdateStrategy.RollingUpdate
	if currentSet.Spec.UpdateStrategy.Type == appsv1.RollingUpdateStatefulSetStrategyType &&
		(ru == nil && ordinal < getStartOrdinal(currentSet)+int(currentSet.Status.CurrentReplicas)) ||
		(ru != nil && ru.Partition != nil && ordinal < getStartOrdinal(currentSet)+int(*ru.Partition)) {
		pod := newStatefulSetPod(currentSet, ordinal)
		setPodRevision(pod, currentRevision)
		return pod
	}
	pod := newStatefulSetPod(updateSet, ordinal)
	setPodRevision(pod, updateRevision)
	return pod
}

// newRevision is the ControllerRevision of set's current template, number
// revision; it carries the set's annotations (kubernetes.io/change-cause
// is what `kubectl rollout history` shows).
func newRevision(set *appsv1.StatefulSet, revision int64, collisionCount *int32) (*appsv1.ControllerRevision, error) {
	p, err := history.TemplatePatch(&set.Spec.Template)
	if err != nil {
		return nil, err
	}
	cr := history.NewControllerRevision(&set.ObjectMeta, controllerKind.APIVersion, controllerKind.Kind, set.Spec.Template.Labels, p, revision, collisionCount)
	if cr.Annotations == nil {
		cr.Annotations = map[string]string{}
	}
	maps.Copy(cr.Annotations, set.Annotations)
	return cr, nil
}

var statefulSetType = reflect.TypeFor[appsv1.StatefulSet]()

// ApplyRevision is set with revision's patch applied: the set as it was at
// that revision.
func ApplyRevision(set *appsv1.StatefulSet, revision *appsv1.ControllerRevision) (*appsv1.StatefulSet, error) {
	original, err := json.Marshal(set)
	if err != nil {
		return nil, err
	}
	patched, err := patch.StrategicMergePatch(original, revision.Data.Raw, statefulSetType)
	if err != nil {
		return nil, err
	}
	restored := &appsv1.StatefulSet{}
	if err := json.Unmarshal(patched, restored); err != nil {
		return nil, err
	}
	return restored, nil
}

// nextRevision is one more than the newest of the (sorted) revisions, or 1.
func nextRevision(revisions []*appsv1.ControllerRevision) int64 {
	if len(revisions) == 0 {
		return 1
	}
	return revisions[len(revisions)-1].Revision + 1
}

// inconsistentStatus: status differs from the set's in a field worth a write.
func inconsistentStatus(set *appsv1.StatefulSet, status *appsv1.StatefulSetStatus) bool {
	return status.ObservedGeneration > set.Status.ObservedGeneration ||
		status.Replicas != set.Status.Replicas ||
		status.CurrentReplicas != set.Status.CurrentReplicas ||
		status.ReadyReplicas != set.Status.ReadyReplicas ||
		status.UpdatedReplicas != set.Status.UpdatedReplicas ||
		status.CurrentRevision != set.Status.CurrentRevision ||
		status.AvailableReplicas != set.Status.AvailableReplicas ||
		status.UpdateRevision != set.Status.UpdateRevision
}

// completeRollingUpdate: every replica is updated and ready, so the update
// revision becomes the current one.
func completeRollingUpdate(set *appsv1.StatefulSet, status *appsv1.StatefulSetStatus) {
	r := int32(replicasOf(set))
	if set.Spec.UpdateStrategy.Type == appsv1.RollingUpdateStatefulSetStrategyType &&
		status.UpdatedReplicas == r && status.ReadyReplicas == r && status.Replicas == r {
		status.CurrentReplicas = status.UpdatedReplicas
		status.CurrentRevision = status.UpdateRevision
	}
}

// ascendingOrdinal and descendingOrdinal sort pods by ordinal.
type ascendingOrdinal []*corev1.Pod

func (ao ascendingOrdinal) Len() int           { return len(ao) }
func (ao ascendingOrdinal) Swap(i, j int)      { ao[i], ao[j] = ao[j], ao[i] }
func (ao ascendingOrdinal) Less(i, j int) bool { return getOrdinal(ao[i]) < getOrdinal(ao[j]) }

type descendingOrdinal []*corev1.Pod

func (do descendingOrdinal) Len() int           { return len(do) }
func (do descendingOrdinal) Swap(i, j int)      { do[i], do[j] = do[j], do[i] }
func (do descendingOrdinal) Less(i, j int) bool { return getOrdinal(do[i]) > getOrdinal(do[j]) }

// getStatefulSetMaxUnavailable is maxUnavailable (default 1) against the
// replicas, a percentage rounded down, and at least 1.
func getStatefulSetMaxUnavailable(maxUnavailable *intstr.IntOrString, replicaCount int) (int, error) {
	v := intstr.FromInt(1)
	if maxUnavailable != nil {
		v = *maxUnavailable
	}
	n, err := deployment.GetScaledValueFromIntOrPercent(&v, replicaCount, false)
	if err != nil {
		return 0, err
	}
	return max(n, 1), nil
}
