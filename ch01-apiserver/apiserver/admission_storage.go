package apiserver

import (
	"slices"

	"kubik/ch01-apiserver/api/storagev1"
)

// admitStorageObjectInUseProtection is upstream's StorageObjectInUseProtection
// plugin for VolumeAttributesClasses: a new class gets the
// kubernetes.io/vac-protection finalizer, which the controller manager's
// volumeattributesclass-protection controller removes once no claim or
// volume uses the class. (Kubik leaves out the plugin's PersistentVolume
// and PersistentVolumeClaim finalizers: no controller of its removes them.)
func admitStorageObjectInUseProtection(vac *storagev1.VolumeAttributesClass) {
	if !slices.Contains(vac.Finalizers, storagev1.VACProtectionFinalizer) {
		vac.Finalizers = append(vac.Finalizers, storagev1.VACProtectionFinalizer)
	}
}
