package statefulset

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"

	"kubik/ch01-apiserver/api/appsv1"
	"kubik/ch01-apiserver/api/corev1"
	"kubik/ch01-apiserver/api/metav1"
	"kubik/ch03-scheduler/clientgo/rest"
	"kubik/ch03-scheduler/clientgo/tools/cache"
	"kubik/ch04-controllers/record"
)

// StatefulPodControl creates, updates and deletes a StatefulSet's pods and
// claims, and records an event for each (SuccessfulCreate "create Pod web-0
// in StatefulSet web successful", FailedCreate ...). Claims are created
// before their pod, and their ownerReferences follow the retention policy.
// Reads come from the informers, writes go to the apiserver. Upstream:
// stateful_pod_control.go.
type StatefulPodControl struct {
	client   *rest.Client
	pods     *cache.Informer[corev1.Pod, *corev1.Pod]
	claims   *cache.Informer[corev1.PersistentVolumeClaim, *corev1.PersistentVolumeClaim]
	recorder *record.Recorder
	log      *slog.Logger
}

// errNotFound is what getClaim returns for a claim not in the cache.
var errNotFound = errors.New("not found")

func (spc *StatefulPodControl) getClaim(namespace, name string) (*corev1.PersistentVolumeClaim, error) {
	if c, ok := spc.claims.GetStore().Get(namespace, name); ok {
		return c, nil
	}
	return nil, errNotFound
}

// CreateStatefulPod creates the pod's claims, then the pod, then sets the
// claims' ownerReferences for the retention policy.
func (spc *StatefulPodControl) CreateStatefulPod(ctx context.Context, set *appsv1.StatefulSet, pod *corev1.Pod) error {
	if err := spc.createPersistentVolumeClaims(ctx, set, pod); err != nil {
		spc.recordPodEvent("create", set, pod, err)
		return err
	}
	created, err := rest.Create(ctx, spc.client, pod)
	if rest.IsAlreadyExists(err) {
		return err
	}
	if err == nil {
		// The claims' references to the pod need its UID.
		pod = created
		if err := spc.UpdatePodClaimForRetentionPolicy(ctx, set, pod); err != nil {
			spc.recordPodEvent("update", set, pod, err)
			return err
		}
	}
	spc.recordPodEvent("create", set, pod, err)
	return err
}

// UpdateStatefulPod repairs a pod's identity and storage and its claims'
// references, retrying on conflicts with the cache's copy.
func (spc *StatefulPodControl) UpdateStatefulPod(ctx context.Context, set *appsv1.StatefulSet, pod *corev1.Pod) error {
	attemptedUpdate := false
	var err error
	for range updateRetries {
		err = func() error {
			consistent := true
			if !identityMatches(set, pod) {
				updateIdentity(set, pod)
				consistent = false
			}
			if !storageMatches(set, pod) {
				updateStorage(set, pod)
				consistent = false
				if err := spc.createPersistentVolumeClaims(ctx, set, pod); err != nil {
					spc.recordPodEvent("update", set, pod, err)
					return err
				}
			}
			if match, err := spc.ClaimsMatchRetentionPolicy(ctx, set, pod); err != nil {
				spc.recordPodEvent("update", set, pod, err)
				return err
			} else if !match {
				if err := spc.UpdatePodClaimForRetentionPolicy(ctx, set, pod); err != nil {
					spc.recordPodEvent("update", set, pod, err)
					return err
				}
				consistent = false
			}
			if consistent {
				return nil
			}
			attemptedUpdate = true
			_, updateErr := rest.Update(ctx, spc.client, pod)
			if updateErr == nil {
				return nil
			}
			if cached, ok := spc.pods.GetStore().Get(set.Namespace, pod.Name); ok {
				pod = metav1.DeepCopy(cached)
			}
			return updateErr
		}()
		if !rest.IsConflict(err) {
			break
		}
	}
	if attemptedUpdate {
		spc.recordPodEvent("update", set, pod, err)
	}
	return err
}

// DeleteStatefulPod deletes the pod.
func (spc *StatefulPodControl) DeleteStatefulPod(ctx context.Context, set *appsv1.StatefulSet, pod *corev1.Pod) error {
	err := rest.Delete[corev1.Pod](ctx, spc.client, pod.Namespace, pod.Name, nil)
	spc.recordPodEvent("delete", set, pod, err)
	return err
}

// ClaimsMatchRetentionPolicy: every existing claim of the pod has the
// ownerReferences the policy wants.
func (spc *StatefulPodControl) ClaimsMatchRetentionPolicy(ctx context.Context, set *appsv1.StatefulSet, pod *corev1.Pod) (bool, error) {
	ordinal := getOrdinal(pod)
	for i := range set.Spec.VolumeClaimTemplates {
		name := getPersistentVolumeClaimName(set, &set.Spec.VolumeClaimTemplates[i], ordinal)
		claim, err := spc.getClaim(set.Namespace, name)
		if err != nil {
			continue // missing: picked up on a later sync
		}
		if !isClaimOwnerUpToDate(spc.log, claim, set, pod) {
			return false, nil
		}
	}
	return true, nil
}

// UpdatePodClaimForRetentionPolicy rewrites the ownerReferences of the
// pod's claims for the policy.
func (spc *StatefulPodControl) UpdatePodClaimForRetentionPolicy(ctx context.Context, set *appsv1.StatefulSet, pod *corev1.Pod) error {
	ordinal := getOrdinal(pod)
	for i := range set.Spec.VolumeClaimTemplates {
		name := getPersistentVolumeClaimName(set, &set.Spec.VolumeClaimTemplates[i], ordinal)
		claim, err := spc.getClaim(set.Namespace, name)
		if err != nil {
			continue
		}
		if hasUnexpectedController(claim, set, pod) {
			spc.recorder.Eventf(setRef(set), corev1.EventTypeWarning, "ConflictingController",
				"PersistentVolumeClaim %s has a conflicting OwnerReference that acts as a manging controller, the retention policy is ignored for this claim", name)
		}
		if !isClaimOwnerUpToDate(spc.log, claim, set, pod) {
			claim = metav1.DeepCopy(claim)
			updateClaimOwnerRefForSetAndPod(spc.log, claim, set, pod)
			if _, err := rest.Update(ctx, spc.client, claim); err != nil {
				return fmt.Errorf("could not update claim %s for delete policy ownerRefs: %w", name, err)
			}
		}
	}
	return nil
}

// PodClaimIsStale: with whenScaled Delete, a claim of the pod still
// refers to an older pod of the same name; the garbage collector is about
// to delete it, so the pod must wait.
func (spc *StatefulPodControl) PodClaimIsStale(set *appsv1.StatefulSet, pod *corev1.Pod) bool {
	if getPersistentVolumeClaimRetentionPolicy(set).WhenScaled == appsv1.RetainPersistentVolumeClaimRetentionPolicyType {
		return false
	}
	for _, claim := range getPersistentVolumeClaims(set, pod) {
		if pvc, err := spc.getClaim(claim.Namespace, claim.Name); err == nil && hasStaleOwnerRef(pvc, &pod.ObjectMeta, podKind) {
			return true
		}
	}
	return false
}

// createMissingPersistentVolumeClaims creates the claims of a pending pod
// (deleted while it waited) and sets their references.
func (spc *StatefulPodControl) createMissingPersistentVolumeClaims(ctx context.Context, set *appsv1.StatefulSet, pod *corev1.Pod) error {
	if err := spc.createPersistentVolumeClaims(ctx, set, pod); err != nil {
		return err
	}
	if err := spc.UpdatePodClaimForRetentionPolicy(ctx, set, pod); err != nil {
		spc.recordPodEvent("update", set, pod, err)
		return err
	}
	return nil
}

// createPersistentVolumeClaims creates each claim of the pod not in the
// cache; a claim being deleted is an error (the pod must wait for it).
func (spc *StatefulPodControl) createPersistentVolumeClaims(ctx context.Context, set *appsv1.StatefulSet, pod *corev1.Pod) error {
	var errs []error
	claims := getPersistentVolumeClaims(set, pod)
	for i := range set.Spec.VolumeClaimTemplates {
		claim := claims[set.Spec.VolumeClaimTemplates[i].Name]
		pvc, err := spc.getClaim(claim.Namespace, claim.Name)
		switch {
		case err != nil:
			claim.TypeMeta = metav1.TypeMeta{APIVersion: "v1", Kind: "PersistentVolumeClaim"}
			claim.Status = corev1.PersistentVolumeClaimStatus{}
			_, err := rest.Create(ctx, spc.client, &claim)
			if err != nil {
				errs = append(errs, fmt.Errorf("failed to create PVC %s: %s", claim.Name, err))
			}
			if err == nil || !rest.IsAlreadyExists(err) {
				spc.recordClaimEvent("create", set, pod, &claim, err)
			}
		case pvc.DeletionTimestamp != nil:
			errs = append(errs, fmt.Errorf("pvc %s is being deleted", claim.Name))
		}
	}
	return errors.Join(errs...)
}

func setRef(set *appsv1.StatefulSet) record.ObjectRef {
	return record.RefFor(&set.ObjectMeta, controllerKind.APIVersion, controllerKind.Kind)
}

// recordPodEvent: Successful<Verb> "<verb> Pod <pod> in StatefulSet <set>
// successful", or Failed<Verb> "... failed error: <err>".
func (spc *StatefulPodControl) recordPodEvent(verb string, set *appsv1.StatefulSet, pod *corev1.Pod, err error) {
	if err == nil {
		spc.recorder.Eventf(setRef(set), corev1.EventTypeNormal, "Successful"+title(verb),
			"%s Pod %s in StatefulSet %s successful", strings.ToLower(verb), pod.Name, set.Name)
		return
	}
	spc.recorder.Eventf(setRef(set), corev1.EventTypeWarning, "Failed"+title(verb),
		"%s Pod %s in StatefulSet %s failed error: %s", strings.ToLower(verb), pod.Name, set.Name, err)
}

// recordClaimEvent: the same for a pod's claim.
func (spc *StatefulPodControl) recordClaimEvent(verb string, set *appsv1.StatefulSet, pod *corev1.Pod, claim *corev1.PersistentVolumeClaim, err error) {
	if err == nil {
		spc.recorder.Eventf(setRef(set), corev1.EventTypeNormal, "Successful"+title(verb),
			"%s Claim %s Pod %s in StatefulSet %s success", strings.ToLower(verb), claim.Name, pod.Name, set.Name)
		return
	}
	spc.recorder.Eventf(setRef(set), corev1.EventTypeWarning, "Failed"+title(verb),
		"%s Claim %s for Pod %s in StatefulSet %s failed error: %s", strings.ToLower(verb), claim.Name, pod.Name, set.Name, err)
}

func title(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}
