package persistentvolume

import (
	"fmt"
	"slices"

	"kubik/ch01-apiserver/api/corev1"
	"kubik/ch01-apiserver/api/resource"
	"kubik/ch01-apiserver/apiserver/selection"
)

// Matching a claim to a volume. Upstream: index.go (findBestMatchForClaim)
// and util.FindMatchingVolume.

// annStorageClass is the beta annotation that named a claim's class before
// spec.storageClassName.
const annStorageClass = "volume.beta.kubernetes.io/storage-class"

// getClaimClass is the claim's storage class ("" for none). Upstream:
// storagehelpers.GetPersistentVolumeClaimClass.
func getClaimClass(claim *corev1.PersistentVolumeClaim) string {
	if class, ok := claim.Annotations[annStorageClass]; ok {
		return class
	}
	if claim.Spec.StorageClassName != nil {
		return *claim.Spec.StorageClassName
	}
	return ""
}

// isVolumeBoundToClaim: the volume's claimRef names this claim (by UID when
// it has one; a user pre-binding may give only the name).
func isVolumeBoundToClaim(volume *corev1.PersistentVolume, claim *corev1.PersistentVolumeClaim) bool {
	ref := volume.Spec.ClaimRef
	if ref == nil || ref.Name != claim.Name || ref.Namespace != claim.Namespace {
		return false
	}
	return ref.UID == "" || ref.UID == claim.UID
}

// findBestMatchForClaim returns the smallest volume that satisfies the
// claim, or nil. A volume pre-bound to this claim wins at once; volumes
// bound to other claims, being deleted, or not Available are skipped.
func findBestMatchForClaim(volumes []*corev1.PersistentVolume, claim *corev1.PersistentVolumeClaim) *corev1.PersistentVolume {
	var best *corev1.PersistentVolume
	for _, v := range volumes {
		if v.DeletionTimestamp != nil {
			continue
		}
		if v.Spec.ClaimRef != nil {
			if isVolumeBoundToClaim(v, claim) && checkVolumeSatisfyClaim(v, claim) == nil {
				return v // pre-bound to this claim
			}
			continue
		}
		if v.Status.Phase != corev1.VolumeAvailable {
			// Not yet marked Available by syncVolume (or Released): binding
			// it now would likely conflict with that update.
			continue
		}
		if checkVolumeSatisfyClaim(v, claim) != nil {
			continue
		}
		if best == nil || capacity(v).Cmp(capacity(best)) < 0 {
			best = v
		}
	}
	return best
}

func capacity(v *corev1.PersistentVolume) resource.Quantity {
	return v.Spec.Capacity[corev1.ResourceStorage]
}

// checkVolumeSatisfyClaim says why a volume does not fit a claim, or nil.
func checkVolumeSatisfyClaim(v *corev1.PersistentVolume, claim *corev1.PersistentVolumeClaim) error {
	if v.Spec.StorageClassName != getClaimClass(claim) {
		return fmt.Errorf("storageClassName does not match")
	}
	request, hasRequest := claim.Spec.Resources.Requests[corev1.ResourceStorage]
	size, hasSize := v.Spec.Capacity[corev1.ResourceStorage]
	if hasRequest && (!hasSize || size.Cmp(request) < 0) {
		return fmt.Errorf("requested PV is too small")
	}
	for _, m := range claim.Spec.AccessModes {
		if !slices.Contains(v.Spec.AccessModes, m) {
			return fmt.Errorf("incompatible accessMode")
		}
	}
	if volumeMode(v.Spec.VolumeMode) != volumeMode(claim.Spec.VolumeMode) {
		return fmt.Errorf("incompatible volumeMode")
	}
	if claim.Spec.Selector != nil {
		sel, err := selection.FromLabelSelector(claim.Spec.Selector)
		if err != nil || !sel.Matches(v.Labels) {
			return fmt.Errorf("volume labels do not match the claim's selector")
		}
	}
	return nil
}

func volumeMode(m *corev1.PersistentVolumeMode) corev1.PersistentVolumeMode {
	if m == nil {
		return corev1.PersistentVolumeFilesystem
	}
	return *m
}
