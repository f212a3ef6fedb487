package storagev1

import (
	"os"
	"testing"

	"kubik/internal/apitest"
)

// The documents below are what a 1.35 apiserver returns, defaults applied.

const standardClass = `{"kind":"StorageClass","apiVersion":"storage.k8s.io/v1",
 "metadata":{"name":"standard","uid":"5f0c2a61-7d0e-4c55-9b1a-2f8a1c3e9d01","resourceVersion":"312","creationTimestamp":"2026-11-30T02:10:00Z",
  "annotations":{"storageclass.kubernetes.io/is-default-class":"true"}},
 "provisioner":"rancher.io/local-path","parameters":{"type":"pd-ssd"},"reclaimPolicy":"Delete","mountOptions":["discard"],
 "allowVolumeExpansion":true,"volumeBindingMode":"WaitForFirstConsumer",
 "allowedTopologies":[{"matchLabelExpressions":[{"key":"topology.kubernetes.io/zone","values":["eu-west-1a","eu-west-1b"]}]}]}`

func TestStorageClassRoundTrip(t *testing.T) {
	var sc StorageClass
	apitest.RoundTrip(t, []byte(standardClass), &sc)
	if sc.Provisioner != "rancher.io/local-path" || *sc.VolumeBindingMode != VolumeBindingWaitForFirstConsumer ||
		sc.Annotations[AnnotationIsDefaultStorageClass] != "true" || sc.AllowedTopologies[0].MatchLabelExpressions[0].Values[1] != "eu-west-1b" {
		t.Errorf("decoded %+v", sc)
	}
}

const hostpathDriver = `{"kind":"CSIDriver","apiVersion":"storage.k8s.io/v1",
 "metadata":{"name":"hostpath.csi.k8s.io","uid":"0b6f0e1e-33a4-4c4a-8a38-6a3f3c2e0a11","resourceVersion":"401","creationTimestamp":"2026-11-30T02:11:00Z"},
 "spec":{"attachRequired":false,"podInfoOnMount":true,"volumeLifecycleModes":["Persistent","Ephemeral"],"storageCapacity":true,
  "fsGroupPolicy":"File","tokenRequests":[{"audience":"vault","expirationSeconds":3600}],"requiresRepublish":false,"seLinuxMount":false,
  "nodeAllocatableUpdatePeriodSeconds":60,"serviceAccountTokenInSecrets":true}}`

func TestCSIDriverRoundTrip(t *testing.T) {
	var d CSIDriver
	apitest.RoundTrip(t, []byte(hostpathDriver), &d)
	if *d.Spec.AttachRequired || *d.Spec.FSGroupPolicy != FileFSGroupPolicy || d.Spec.VolumeLifecycleModes[1] != VolumeLifecycleEphemeral ||
		*d.Spec.TokenRequests[0].ExpirationSeconds != 3600 {
		t.Errorf("decoded %+v", d.Spec)
	}
}

// A CSINode as the kubelet writes it; a node without CSI drivers has "drivers":null.
const workerCSINode = `{"kind":"CSINode","apiVersion":"storage.k8s.io/v1",
 "metadata":{"name":"worker-1","uid":"a1a2a3a4-0000-4000-8000-00000000c5e1","resourceVersion":"77","creationTimestamp":"2026-11-30T02:12:00Z",
  "annotations":{"storage.alpha.kubernetes.io/migrated-plugins":"kubernetes.io/aws-ebs,kubernetes.io/gce-pd"},
  "ownerReferences":[{"apiVersion":"v1","kind":"Node","name":"worker-1","uid":"b1b2b3b4-0000-4000-8000-000000000001"}]},
 "spec":{"drivers":[{"name":"hostpath.csi.k8s.io","nodeID":"worker-1","topologyKeys":["topology.hostpath.csi/node"],"allocatable":{"count":32}}]}}`

func TestCSINodeRoundTrip(t *testing.T) {
	var n CSINode
	apitest.RoundTrip(t, []byte(workerCSINode), &n)
	if d := n.Spec.Drivers[0]; d.NodeID != "worker-1" || *d.Allocatable.Count != 32 {
		t.Errorf("decoded %+v", d)
	}
	apitest.RoundTrip(t, []byte(`{"metadata":{"name":"worker-2"},"spec":{"drivers":null}}`), &CSINode{})
}

const capacity = `{"kind":"CSIStorageCapacity","apiVersion":"storage.k8s.io/v1",
 "metadata":{"name":"csisc-7x2kq","generateName":"csisc-","namespace":"kube-system","uid":"c0c1c2c3-0000-4000-8000-000000000002","resourceVersion":"512","creationTimestamp":"2026-11-30T02:13:00Z"},
 "nodeTopology":{"matchLabels":{"topology.hostpath.csi/node":"worker-1"}},"storageClassName":"csi-hostpath-fast",
 "capacity":"100Gi","maximumVolumeSize":"10Gi"}`

func TestCSIStorageCapacityRoundTrip(t *testing.T) {
	var c CSIStorageCapacity
	apitest.RoundTrip(t, []byte(capacity), &c)
	if c.Capacity.String() != "100Gi" || c.NodeTopology.MatchLabels["topology.hostpath.csi/node"] != "worker-1" {
		t.Errorf("decoded %+v", c)
	}
}

const attachment = `{"kind":"VolumeAttachment","apiVersion":"storage.k8s.io/v1",
 "metadata":{"name":"csi-2f7c0c4e3b9d","uid":"d0d1d2d3-0000-4000-8000-000000000003","resourceVersion":"640","creationTimestamp":"2026-11-30T02:14:00Z",
  "annotations":{"csi.alpha.kubernetes.io/node-id":"worker-1"},"finalizers":["external-attacher/hostpath-csi-k8s-io"]},
 "spec":{"attacher":"hostpath.csi.k8s.io","source":{"persistentVolumeName":"pvc-9a8b"},"nodeName":"worker-1"},
 "status":{"attached":true,"attachmentMetadata":{"devicePath":"/dev/sdb"},
  "detachError":{"time":"2026-11-30T02:15:00Z","message":"rpc error: code = Unavailable","errorCode":14}}}`

// An inline volume (CSI migration) and a fresh attachment: "attached":false is always written.
const inlineAttachment = `{"metadata":{"name":"csi-inline"},
 "spec":{"attacher":"pd.csi.storage.gke.io","nodeName":"worker-2",
  "source":{"inlineVolumeSpec":{"csi":{"driver":"pd.csi.storage.gke.io","volumeHandle":"projects/p/zones/z/disks/d","fsType":"ext4"},"accessModes":["ReadWriteOnce"]}}},
 "status":{"attached":false}}`

func TestVolumeAttachmentRoundTrip(t *testing.T) {
	var va VolumeAttachment
	apitest.RoundTrip(t, []byte(attachment), &va)
	if *va.Spec.Source.PersistentVolumeName != "pvc-9a8b" || !va.Status.Attached || *va.Status.DetachError.ErrorCode != 14 {
		t.Errorf("decoded %+v", va)
	}
	var inline VolumeAttachment
	apitest.RoundTrip(t, []byte(inlineAttachment), &inline)
	if inline.Spec.Source.InlineVolumeSpec.CSI.Driver != "pd.csi.storage.gke.io" {
		t.Errorf("decoded %+v", inline.Spec.Source)
	}
}

func TestListsRoundTrip(t *testing.T) {
	apitest.RoundTrip(t, []byte(`{"kind":"StorageClassList","apiVersion":"storage.k8s.io/v1","metadata":{"resourceVersion":"700"},"items":[`+standardClass+`]}`), &StorageClassList{})
	apitest.RoundTrip(t, []byte(`{"kind":"CSIDriverList","apiVersion":"storage.k8s.io/v1","metadata":{"resourceVersion":"700"},"items":[]}`), &CSIDriverList{})
	apitest.RoundTrip(t, []byte(`{"kind":"CSINodeList","apiVersion":"storage.k8s.io/v1","metadata":{"resourceVersion":"700"},"items":[`+workerCSINode+`]}`), &CSINodeList{})
	apitest.RoundTrip(t, []byte(`{"kind":"CSIStorageCapacityList","apiVersion":"storage.k8s.io/v1","metadata":{"resourceVersion":"700"},"items":[`+capacity+`]}`), &CSIStorageCapacityList{})
	apitest.RoundTrip(t, []byte(`{"kind":"VolumeAttachmentList","apiVersion":"storage.k8s.io/v1","metadata":{"resourceVersion":"700"},"items":[`+attachment+`]}`), &VolumeAttachmentList{})
}

// Recorded from a real v1.35 apiserver: a class being deleted, held by its finalizer.
func TestVolumeAttributesClassRoundTrip(t *testing.T) {
	doc, err := os.ReadFile("testdata/volumeattributesclass-gold.json")
	if err != nil {
		t.Fatal(err)
	}
	var vac VolumeAttributesClass
	apitest.RoundTrip(t, doc, &vac)
	if vac.DriverName != "pd.csi.storage.gke.io" || vac.Parameters["iops"] != "3000" || vac.Finalizers[0] != VACProtectionFinalizer {
		t.Errorf("decoded %+v", vac)
	}
}
