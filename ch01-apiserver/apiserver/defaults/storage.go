package defaults

import (
	"kubik/ch01-apiserver/api/corev1"
	"kubik/ch01-apiserver/api/storagev1"
)

// setDefaultsStorageClass is SetDefaults_StorageClass of storage/v1: volumes
// provisioned for the class are deleted with their claim, and claims are
// bound as soon as they are created.
func setDefaultsStorageClass(sc *storagev1.StorageClass) {
	if sc.ReclaimPolicy == nil {
		sc.ReclaimPolicy = ptrTo(corev1.PersistentVolumeReclaimDelete)
	}
	if sc.VolumeBindingMode == nil {
		sc.VolumeBindingMode = ptrTo(storagev1.VolumeBindingImmediate)
	}
}

// setDefaultsCSIDriver is SetDefaults_CSIDriver of storage/v1: a driver that
// says nothing needs an attach step, wants no pod information, reports no
// capacity, supports persistent volumes only and changes ownership of
// ReadWriteOnce filesystems. seLinuxMount is defaulted because the
// SELinuxMountReadWriteOncePod gate is on by default in 1.35.
func setDefaultsCSIDriver(d *storagev1.CSIDriver) {
	s := &d.Spec
	if s.AttachRequired == nil {
		s.AttachRequired = ptrTo(true)
	}
	if s.PodInfoOnMount == nil {
		s.PodInfoOnMount = ptrTo(false)
	}
	if s.StorageCapacity == nil {
		s.StorageCapacity = ptrTo(false)
	}
	if s.FSGroupPolicy == nil {
		s.FSGroupPolicy = ptrTo(storagev1.ReadWriteOnceWithFSTypeFSGroupPolicy)
	}
	if len(s.VolumeLifecycleModes) == 0 {
		s.VolumeLifecycleModes = append(s.VolumeLifecycleModes, storagev1.VolumeLifecyclePersistent)
	}
	if s.RequiresRepublish == nil {
		s.RequiresRepublish = ptrTo(false)
	}
	if s.SELinuxMount == nil {
		s.SELinuxMount = ptrTo(false)
	}
}

// setDefaultsVolumeAttachment is the generated defaulter of VolumeAttachment
// (there is no SetDefaults_VolumeAttachment): a volume inlined in a pod and
// migrated to CSI gets the defaults of a PersistentVolume's source, its
// capacity rounded and a hostPath typed "", but none of SetDefaults_PersistentVolume.
func setDefaultsVolumeAttachment(va *storagev1.VolumeAttachment) {
	spec := va.Spec.Source.InlineVolumeSpec
	if spec == nil {
		return
	}
	roundUpResourceList(spec.Capacity)
	if spec.HostPath != nil && spec.HostPath.Type == nil {
		spec.HostPath.Type = ptrTo(corev1.HostPathUnset)
	}
}
