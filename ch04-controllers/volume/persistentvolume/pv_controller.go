package persistentvolume

import (
	"context"
	"fmt"
	"maps"

	"kubik/ch01-apiserver/api/corev1"
	"kubik/ch01-apiserver/api/metav1"
	"kubik/ch03-scheduler/clientgo/rest"
)

// Annotations of a binding, as upstream (pkg/controller/volume/persistentvolume/util).
const (
	// annBindCompleted on a PVC: the binding is complete; from now on the
	// claim is handled as bound (and lost if its volume disappears).
	annBindCompleted = "pv.kubernetes.io/bind-completed"
	// annBoundByController on a PV or PVC: the controller, not the user,
	// filled claimRef (PV) or volumeName (PVC), so it may undo that.
	annBoundByController = "pv.kubernetes.io/bound-by-controller"
)

// Event reasons, as upstream (pkg/controller/volume/events).
const (
	FailedBinding              = "FailedBinding"
	ProvisioningFailed         = "ProvisioningFailed"
	ClaimLost                  = "ClaimLost"
	ClaimMisbound              = "ClaimMisbound"
	VolumeFailedRecycle        = "VolumeFailedRecycle"
	VolumeUnknownReclaimPolicy = "VolumeUnknownReclaimPolicy"
)

func claimRef(pvc *corev1.PersistentVolumeClaim) corev1.ObjectReference {
	return corev1.ObjectReference{Kind: "PersistentVolumeClaim", APIVersion: "v1", Namespace: pvc.Namespace,
		Name: pvc.Name, UID: pvc.UID, ResourceVersion: pvc.ResourceVersion}
}

func volumeRef(pv *corev1.PersistentVolume) corev1.ObjectReference {
	return corev1.ObjectReference{Kind: "PersistentVolume", APIVersion: "v1", Name: pv.Name, UID: pv.UID,
		ResourceVersion: pv.ResourceVersion}
}

// syncClaim is the claim's reconcile: bound claims (bind-completed) are
// checked, the others get a volume if one fits.
func (ctrl *PersistentVolumeController) syncClaim(ctx context.Context, claim *corev1.PersistentVolumeClaim) error {
	if claim.Annotations[annBindCompleted] == "" {
		return ctrl.syncUnboundClaim(ctx, claim)
	}
	return ctrl.syncBoundClaim(ctx, claim)
}

// syncUnboundClaim finds a volume for the claim, or the volume the user
// named in spec.volumeName, and binds them.
func (ctrl *PersistentVolumeController) syncUnboundClaim(ctx context.Context, claim *corev1.PersistentVolumeClaim) error {
	if claim.Spec.VolumeName == "" {
		volume := findBestMatchForClaim(ctrl.volumes.GetStore().List(), claim)
		if volume == nil {
			if class := getClaimClass(claim); class != "" {
				// Upstream would provision a volume of the class; no
				// StorageClass API is served here, so the class is not found.
				ctrl.recorder.Eventf(claimRef(claim), corev1.EventTypeWarning, ProvisioningFailed,
					"storageclass.storage.k8s.io %q not found", class)
			} else {
				ctrl.recorder.Eventf(claimRef(claim), corev1.EventTypeNormal, FailedBinding,
					"no persistent volumes available for this claim and no storage class is set")
			}
			_, err := ctrl.updateClaimStatus(ctx, claim, corev1.ClaimPending, nil)
			return err
		}
		ctrl.log.Info("binding", "claim", claim.Namespace+"/"+claim.Name, "volume", volume.Name)
		return ctrl.bind(ctx, volume, claim)
	}
	// The user asked for a particular volume.
	volume, ok := ctrl.volumes.GetStore().Get("", claim.Spec.VolumeName)
	if !ok {
		// Not (yet) there: the claim waits.
		_, err := ctrl.updateClaimStatus(ctx, claim, corev1.ClaimPending, nil)
		return err
	}
	if volume.Spec.ClaimRef == nil || isVolumeBoundToClaim(volume, claim) {
		if err := checkVolumeSatisfyClaim(volume, claim); err != nil {
			ctrl.recorder.Eventf(claimRef(claim), corev1.EventTypeWarning, FailedBinding, "Cannot bind to requested volume %q: %s", volume.Name, err)
			_, err := ctrl.updateClaimStatus(ctx, claim, corev1.ClaimPending, nil)
			return err
		}
		return ctrl.bind(ctx, volume, claim)
	}
	// The volume belongs to another claim: wait (the user may fix it).
	_, err := ctrl.updateClaimStatus(ctx, claim, corev1.ClaimPending, nil)
	return err
}

// syncBoundClaim checks a claim whose binding completed: its volume must
// still exist and point back at it.
func (ctrl *PersistentVolumeController) syncBoundClaim(ctx context.Context, claim *corev1.PersistentVolumeClaim) error {
	if claim.Spec.VolumeName == "" {
		if claim.Status.Phase != corev1.ClaimLost {
			ctrl.recorder.Eventf(claimRef(claim), corev1.EventTypeWarning, ClaimLost, "Bound claim has lost reference to PersistentVolume. Data on the volume is lost!")
		}
		_, err := ctrl.updateClaimStatus(ctx, claim, corev1.ClaimLost, nil)
		return err
	}
	volume, ok := ctrl.volumes.GetStore().Get("", claim.Spec.VolumeName)
	if !ok {
		if claim.Status.Phase != corev1.ClaimLost {
			ctrl.recorder.Eventf(claimRef(claim), corev1.EventTypeWarning, ClaimLost, "Bound claim has lost its PersistentVolume. Data on the volume is lost!")
		}
		_, err := ctrl.updateClaimStatus(ctx, claim, corev1.ClaimLost, nil)
		return err
	}
	switch {
	case volume.Spec.ClaimRef == nil:
		// The volume forgot the claim (an interrupted bind): bind again.
		return ctrl.bind(ctx, volume, claim)
	case volume.Spec.ClaimRef.UID == claim.UID:
		// Both sides agree; finish a bind that stopped half way.
		return ctrl.bind(ctx, volume, claim)
	default:
		if claim.Status.Phase != corev1.ClaimLost {
			ctrl.recorder.Eventf(claimRef(claim), corev1.EventTypeWarning, ClaimMisbound, "Two claims are bound to the same volume, this one is bound incorrectly")
		}
		_, err := ctrl.updateClaimStatus(ctx, claim, corev1.ClaimLost, nil)
		return err
	}
}

// bind completes a binding in upstream's order (each step is a no-op when
// already done): PV.spec.claimRef, PV.status, PVC.spec.volumeName and
// annotations, PVC.status. A crash between steps is repaired by the next
// sync of either side.
func (ctrl *PersistentVolumeController) bind(ctx context.Context, volume *corev1.PersistentVolume, claim *corev1.PersistentVolumeClaim) error {
	volume, err := ctrl.bindVolumeToClaim(ctx, volume, claim)
	if err != nil {
		return err
	}
	if volume, err = ctrl.updateVolumePhase(ctx, volume, corev1.VolumeBound, ""); err != nil {
		return err
	}
	if claim, err = ctrl.bindClaimToVolume(ctx, claim, volume); err != nil {
		return err
	}
	_, err = ctrl.updateClaimStatus(ctx, claim, corev1.ClaimBound, volume)
	return err
}

func (ctrl *PersistentVolumeController) bindVolumeToClaim(ctx context.Context, volume *corev1.PersistentVolume, claim *corev1.PersistentVolumeClaim) (*corev1.PersistentVolume, error) {
	ref := volume.Spec.ClaimRef
	if ref != nil && ref.UID == claim.UID && ref.Name == claim.Name && ref.Namespace == claim.Namespace {
		return volume, nil
	}
	v := *volume
	v.Annotations = maps.Clone(volume.Annotations)
	newRef := claimRef(claim)
	v.Spec.ClaimRef = &newRef
	if !isVolumeBoundToClaim(volume, claim) {
		// Not pre-bound to this claim by the user: the controller chose.
		if v.Annotations == nil {
			v.Annotations = map[string]string{}
		}
		v.Annotations[annBoundByController] = "yes"
	}
	return rest.Update(ctx, ctrl.client, &v)
}

func (ctrl *PersistentVolumeController) bindClaimToVolume(ctx context.Context, claim *corev1.PersistentVolumeClaim, volume *corev1.PersistentVolume) (*corev1.PersistentVolumeClaim, error) {
	if claim.Spec.VolumeName == volume.Name && claim.Annotations[annBindCompleted] == "yes" {
		return claim, nil
	}
	c := *claim
	c.Annotations = maps.Clone(claim.Annotations)
	if c.Annotations == nil {
		c.Annotations = map[string]string{}
	}
	if c.Spec.VolumeName != volume.Name {
		c.Spec.VolumeName = volume.Name
		c.Annotations[annBoundByController] = "yes"
	}
	c.Annotations[annBindCompleted] = "yes"
	return rest.Update(ctx, ctrl.client, &c)
}

// updateClaimStatus sets the claim's phase and, when bound, the volume's
// access modes and capacity.
func (ctrl *PersistentVolumeController) updateClaimStatus(ctx context.Context, claim *corev1.PersistentVolumeClaim, phase corev1.PersistentVolumeClaimPhase, volume *corev1.PersistentVolume) (*corev1.PersistentVolumeClaim, error) {
	c := *claim
	c.Status.Phase = phase
	if volume != nil {
		c.Status.AccessModes = volume.Spec.AccessModes
		if q, ok := volume.Spec.Capacity[corev1.ResourceStorage]; ok {
			c.Status.Capacity = corev1.ResourceList{corev1.ResourceStorage: q}
		}
	} else if phase == corev1.ClaimPending {
		c.Status.AccessModes, c.Status.Capacity = nil, nil
	}
	if claimStatusEqual(claim.Status, c.Status) {
		return claim, nil
	}
	return rest.UpdateStatus(ctx, ctrl.client, &c)
}

func claimStatusEqual(a, b corev1.PersistentVolumeClaimStatus) bool {
	qa, okA := a.Capacity[corev1.ResourceStorage]
	qb, okB := b.Capacity[corev1.ResourceStorage]
	return a.Phase == b.Phase && fmt.Sprint(a.AccessModes) == fmt.Sprint(b.AccessModes) &&
		okA == okB && (!okA || qa.Cmp(qb) == 0)
}

// updateVolumePhase sets the volume's phase (and message), stamping
// lastPhaseTransitionTime when the phase changes.
func (ctrl *PersistentVolumeController) updateVolumePhase(ctx context.Context, volume *corev1.PersistentVolume, phase corev1.PersistentVolumePhase, message string) (*corev1.PersistentVolume, error) {
	if volume.Status.Phase == phase && volume.Status.Message == message {
		return volume, nil
	}
	v := *volume
	if v.Status.Phase != phase {
		now := metav1.NewTime(ctrl.now())
		v.Status.LastPhaseTransitionTime = &now
	}
	v.Status.Phase, v.Status.Message = phase, message
	return rest.UpdateStatus(ctx, ctrl.client, &v)
}

// syncVolume is the volume's reconcile: Available when unclaimed, Bound
// while its claim lives, Released (then reclaimed) when the claim is gone.
func (ctrl *PersistentVolumeController) syncVolume(ctx context.Context, volume *corev1.PersistentVolume) error {
	ref := volume.Spec.ClaimRef
	if ref == nil || ref.UID == "" {
		// Unused, or pre-bound by the user to a claim not bound yet.
		_, err := ctrl.updateVolumePhase(ctx, volume, corev1.VolumeAvailable, "")
		return err
	}
	claim, found := ctrl.claims.GetStore().Get(ref.Namespace, ref.Name)
	if !found {
		// The cache may be behind: ask the apiserver before releasing.
		live, err := rest.Get[corev1.PersistentVolumeClaim](ctx, ctrl.client, ref.Namespace, ref.Name)
		switch {
		case err == nil:
			claim, found = live, true
		case !rest.IsNotFound(err):
			return err
		}
	}
	if found && claim.UID != ref.UID {
		found = false // deleted and created again: not our claim
	}
	if !found {
		// The claim is gone: release the volume and apply its policy.
		if volume.Status.Phase != corev1.VolumeReleased && volume.Status.Phase != corev1.VolumeFailed {
			var err error
			if volume, err = ctrl.updateVolumePhase(ctx, volume, corev1.VolumeReleased, ""); err != nil {
				return err
			}
		}
		return ctrl.reclaimVolume(ctx, volume)
	}
	if claim.Spec.VolumeName == "" {
		// Bound on the volume's side; the claim's side follows (queued).
		ctrl.claimQueue.Add(claim.Namespace + "/" + claim.Name)
		return nil
	}
	if claim.Spec.VolumeName == volume.Name {
		_, err := ctrl.updateVolumePhase(ctx, volume, corev1.VolumeBound, "")
		return err
	}
	// The claim is bound to another volume: if we bound this one, undo it.
	if volume.Annotations[annBoundByController] == "yes" {
		v := *volume
		v.Spec.ClaimRef = nil
		v.Annotations = maps.Clone(volume.Annotations)
		delete(v.Annotations, annBoundByController)
		updated, err := rest.Update(ctx, ctrl.client, &v)
		if err != nil {
			return err
		}
		_, err = ctrl.updateVolumePhase(ctx, updated, corev1.VolumeAvailable, "")
		return err
	}
	return nil
}

// reclaimVolume applies a Released volume's reclaim policy.
func (ctrl *PersistentVolumeController) reclaimVolume(ctx context.Context, volume *corev1.PersistentVolume) error {
	switch volume.Spec.PersistentVolumeReclaimPolicy {
	case corev1.PersistentVolumeReclaimRetain:
		return nil // kept for the administrator
	case corev1.PersistentVolumeReclaimDelete:
		// Upstream asks the volume's plugin to delete the storage, then
		// deletes the PV. There is no storage here: only the object goes.
		ctrl.log.Info("deleting released volume (reclaim policy Delete; no storage to delete)", "volume", volume.Name)
		uid := volume.UID
		err := rest.Delete[corev1.PersistentVolume](ctx, ctrl.client, "", volume.Name,
			&metav1.DeleteOptions{Preconditions: &metav1.Preconditions{UID: &uid}})
		if rest.IsNotFound(err) {
			return nil
		}
		return err
	case corev1.PersistentVolumeReclaimRecycle:
		if volume.Status.Phase == corev1.VolumeFailed {
			return nil
		}
		const msg = "No recycler plugin found for the volume!"
		ctrl.recorder.Eventf(volumeRef(volume), corev1.EventTypeWarning, VolumeFailedRecycle, msg)
		_, err := ctrl.updateVolumePhase(ctx, volume, corev1.VolumeFailed, msg)
		return err
	default:
		if volume.Status.Phase == corev1.VolumeFailed {
			return nil
		}
		const msg = "Volume has unrecognized PersistentVolumeReclaimPolicy"
		ctrl.recorder.Eventf(volumeRef(volume), corev1.EventTypeWarning, VolumeUnknownReclaimPolicy, msg)
		_, err := ctrl.updateVolumePhase(ctx, volume, corev1.VolumeFailed, msg)
		return err
	}
}
