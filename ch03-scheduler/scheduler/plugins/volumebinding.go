package plugins

import (
	"context"
	"fmt"

	"kubik/ch01-apiserver/api/corev1"
	"kubik/ch01-apiserver/api/storagev1"
	"kubik/ch03-scheduler/scheduler/framework"
)

// VolumeBinding looks at a pod's PersistentVolumeClaims (upstream:
// plugins/volumebinding).
//
//   - PreFilter, for every node at once: a claim that does not exist, is
//     being deleted or has lost its volume makes the pod unschedulable with
//     that reason; so does a claim not yet bound whose StorageClass binds
//     immediately ("pod has unbound immediate PersistentVolumeClaims") —
//     the PersistentVolume controller (chapter 4) binds it, and the claim's
//     update brings the pod back to the queue.
//   - Filter, per node: the volume of every bound claim must be usable
//     there (its spec.nodeAffinity, which a local volume has).
//
// Claims of a WaitForFirstConsumer class are left alone: upstream picks
// their volume per node here and binds it before the pod (PreBind); Kubik
// does not (see the chapter's «Что упрощено»).
type VolumeBinding struct {
	// Listers reads the informers' caches; nil: the plugin passes every
	// pod (unit tests of other plugins).
	Listers *VolumeListers
}

// VolumeListers are the scheduler's claims, volumes and classes.
type VolumeListers struct {
	Claim        func(namespace, name string) (*corev1.PersistentVolumeClaim, bool)
	Volume       func(name string) (*corev1.PersistentVolume, bool)
	StorageClass func(name string) (*storagev1.StorageClass, bool)
}

// annBindCompleted: the PersistentVolume controller finished binding the
// claim (upstream: volume.AnnBindCompleted).
const annBindCompleted = "pv.kubernetes.io/bind-completed"

// Upstream's Filter reasons.
const (
	errReasonNodeConflict = "node(s) had volume node affinity conflict"
	errReasonPVNotExist   = "node(s) unavailable due to one or more pvc(s) bound to non-existent pv(s)"
)

const volumeBindingStateKey = "PreFilterVolumeBinding"

// volumeBindingState: the pod's bound claims, for Filter.
type volumeBindingState struct {
	bound []*corev1.PersistentVolumeClaim
}

func (VolumeBinding) Name() string { return "VolumeBinding" }

func (pl VolumeBinding) PreFilter(_ context.Context, state *framework.CycleState, pod *corev1.Pod, _ []*framework.NodeInfo) *framework.Status {
	if pl.Listers == nil {
		return framework.NewStatus(framework.Skip)
	}
	var bound []*corev1.PersistentVolumeClaim
	unboundImmediate := false
	for _, vol := range pod.Spec.Volumes {
		name, ephemeral := "", false
		switch {
		case vol.PersistentVolumeClaim != nil:
			name = vol.PersistentVolumeClaim.ClaimName
		case vol.Ephemeral != nil:
			name, ephemeral = corev1.EphemeralVolumeClaimName(pod, &vol), true
		default:
			continue
		}
		pvc, ok := pl.Listers.Claim(pod.Namespace, name)
		switch {
		case !ok && ephemeral:
			return framework.NewStatus(framework.UnschedulableAndUnresolvable,
				fmt.Sprintf("waiting for ephemeral volume controller to create the persistentvolumeclaim %q", name))
		case !ok:
			return framework.NewStatus(framework.UnschedulableAndUnresolvable, fmt.Sprintf("persistentvolumeclaim %q not found", name))
		case pvc.Status.Phase == corev1.ClaimLost:
			return framework.NewStatus(framework.UnschedulableAndUnresolvable,
				fmt.Sprintf("persistentvolumeclaim %q bound to non-existent persistentvolume %q", pvc.Name, pvc.Spec.VolumeName))
		case pvc.DeletionTimestamp != nil:
			return framework.NewStatus(framework.UnschedulableAndUnresolvable, fmt.Sprintf("persistentvolumeclaim %q is being deleted", pvc.Name))
		}
		if _, done := pvc.Annotations[annBindCompleted]; pvc.Spec.VolumeName != "" && done {
			bound = append(bound, pvc)
			continue
		}
		if !pl.delayBinding(pvc) {
			unboundImmediate = true
		}
	}
	if unboundImmediate {
		return framework.NewStatus(framework.UnschedulableAndUnresolvable, "pod has unbound immediate PersistentVolumeClaims")
	}
	if len(bound) == 0 {
		return framework.NewStatus(framework.Skip)
	}
	state.Write(volumeBindingStateKey, &volumeBindingState{bound: bound})
	return nil
}

// delayBinding: the claim's StorageClass has volumeBindingMode
// WaitForFirstConsumer (upstream: IsDelayBindingMode). No class, or a class
// that does not exist (yet): immediate.
func (pl VolumeBinding) delayBinding(pvc *corev1.PersistentVolumeClaim) bool {
	if pvc.Spec.StorageClassName == nil || *pvc.Spec.StorageClassName == "" {
		return false
	}
	class, ok := pl.Listers.StorageClass(*pvc.Spec.StorageClassName)
	return ok && class.VolumeBindingMode != nil && *class.VolumeBindingMode == storagev1.VolumeBindingWaitForFirstConsumer
}

func (pl VolumeBinding) Filter(_ context.Context, state *framework.CycleState, _ *corev1.Pod, n *framework.NodeInfo) *framework.Status {
	v, ok := state.Read(volumeBindingStateKey)
	if !ok {
		return nil
	}
	var reasons []string
	for _, pvc := range v.(*volumeBindingState).bound {
		pv, ok := pl.Listers.Volume(pvc.Spec.VolumeName)
		if !ok {
			// Possibly not seen yet; a volume really gone makes the claim Lost.
			reasons = appendReason(reasons, errReasonPVNotExist)
			continue
		}
		if a := pv.Spec.NodeAffinity; a != nil && a.Required != nil && !nodeSelectorMatches(a.Required, n.Node) {
			reasons = appendReason(reasons, errReasonNodeConflict)
		}
	}
	if len(reasons) > 0 {
		return framework.NewStatus(framework.UnschedulableAndUnresolvable, reasons...)
	}
	return nil
}

func appendReason(reasons []string, r string) []string {
	for _, have := range reasons {
		if have == r {
			return reasons
		}
	}
	return append(reasons, r)
}
