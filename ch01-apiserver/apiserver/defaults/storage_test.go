package defaults

import (
	"testing"

	"kubik/ch01-apiserver/api/metav1"
	"kubik/ch01-apiserver/api/storagev1"
)

// What a 1.35 server returns for a StorageClass that names only its provisioner.
func TestStorageClassDefaults(t *testing.T) {
	var sc storagev1.StorageClass
	decode(t, `{"apiVersion":"storage.k8s.io/v1","kind":"StorageClass","metadata":{"name":"fast"},"provisioner":"rancher.io/local-path"}`, &sc)
	Default(&sc)
	sameJSON(t, "storageclass", sc, `{"apiVersion":"storage.k8s.io/v1","kind":"StorageClass","metadata":{"name":"fast"},
		"provisioner":"rancher.io/local-path","reclaimPolicy":"Delete","volumeBindingMode":"Immediate"}`)

	// Set values are kept.
	sc = storagev1.StorageClass{}
	decode(t, `{"metadata":{"name":"keep"},"provisioner":"p","reclaimPolicy":"Retain","volumeBindingMode":"WaitForFirstConsumer"}`, &sc)
	Default(&sc)
	if *sc.ReclaimPolicy != "Retain" || *sc.VolumeBindingMode != storagev1.VolumeBindingWaitForFirstConsumer {
		t.Errorf("set values overwritten: %v %v", *sc.ReclaimPolicy, *sc.VolumeBindingMode)
	}
}

// What a 1.35 server returns for `spec: {}` (the csi-hostpath driver before its fields were set).
func TestCSIDriverDefaults(t *testing.T) {
	var d storagev1.CSIDriver
	decode(t, `{"metadata":{"name":"hostpath.csi.k8s.io"},"spec":{}}`, &d)
	Default(&d)
	sameJSON(t, "spec", d.Spec, `{"attachRequired":true,"fsGroupPolicy":"ReadWriteOnceWithFSType","podInfoOnMount":false,
		"requiresRepublish":false,"seLinuxMount":false,"storageCapacity":false,"volumeLifecycleModes":["Persistent"]}`)

	d = storagev1.CSIDriver{}
	decode(t, `{"metadata":{"name":"x"},"spec":{"attachRequired":false,"fsGroupPolicy":"File","volumeLifecycleModes":["Ephemeral"],"seLinuxMount":true}}`, &d)
	Default(&d)
	sameJSON(t, "spec with values", d.Spec, `{"attachRequired":false,"fsGroupPolicy":"File","podInfoOnMount":false,
		"requiresRepublish":false,"seLinuxMount":true,"storageCapacity":false,"volumeLifecycleModes":["Ephemeral"]}`)
}

func TestVolumeAttachmentDefaults(t *testing.T) {
	va := func() metav1.Object { return &storagev1.VolumeAttachment{} }
	runDefaultsCases(t, []defaultsCase{{
		name: "inline volume",
		obj:  va,
		in:   `{"metadata":{"name":"va"},"spec":{"attacher":"csi.example.com","nodeName":"n1","source":{"inlineVolumeSpec":{"capacity":{"storage":"0.0001"},"hostPath":{"path":"/data"}}}}}`,
		want: `{"metadata":{"name":"va"},"spec":{"attacher":"csi.example.com","nodeName":"n1",
			"source":{"inlineVolumeSpec":{"capacity":{"storage":"1m"},"hostPath":{"path":"/data","type":""}}}},"status":{"attached":false}}`,
	}, {
		name: "persistent volume name",
		obj:  va,
		in:   `{"metadata":{"name":"va2"},"spec":{"attacher":"csi.example.com","nodeName":"n1","source":{"persistentVolumeName":"pv1"}}}`,
		want: `{"metadata":{"name":"va2"},"spec":{"attacher":"csi.example.com","nodeName":"n1","source":{"persistentVolumeName":"pv1"}},"status":{"attached":false}}`,
	}})
}
