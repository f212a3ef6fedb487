package validation

import (
	"strings"
	"testing"

	"kubik/ch01-apiserver/api/metav1"
	"kubik/ch01-apiserver/api/storagev1"
)

// expectErrors validates obj (against old on update) and checks the
// aggregate message contains each of want, or is empty when want is.
func expectErrors(t *testing.T, obj, old metav1.Object, want ...string) {
	t.Helper()
	got := AggregateMessage(Validate(obj, old))
	if len(want) == 0 && got != "" {
		t.Errorf("unexpected errors: %s", got)
	}
	for _, w := range want {
		if !strings.Contains(got, w) {
			t.Errorf("missing %s\nin %s", w, got)
		}
	}
}

func TestStorageClassValidation(t *testing.T) {
	var ok, bad storagev1.StorageClass
	load(t, `{"metadata":{"name":"fast","resourceVersion":"1"},"provisioner":"rancher.io/local-path","parameters":{"type":"ssd"}}`, &ok)
	expectErrors(t, &ok, nil)

	load(t, `{"metadata":{"name":"bad"},"provisioner":"","reclaimPolicy":"Recycle","volumeBindingMode":"Later",
		"allowedTopologies":[{"matchLabelExpressions":[{"key":"zone","values":[]},{"key":"zone","values":["a","a"]}]}]}`, &bad)
	expectErrors(t, &bad, nil,
		`provisioner: Required value`,
		`reclaimPolicy: Unsupported value: "Recycle": supported values: "Delete", "Retain"`,
		`volumeBindingMode: Unsupported value: "Later": supported values: "Immediate", "WaitForFirstConsumer"`,
		`allowedTopologies[0].matchLabelExpressions[0].values: Required value`,
		`allowedTopologies[0].matchLabelExpressions[1].values[1]: Duplicate value: "a"`,
		`allowedTopologies[0].matchLabelExpressions[1].key: Duplicate value: "zone"`)

	var badName storagev1.StorageClass
	load(t, `{"metadata":{"name":"x"},"provisioner":"example.com/a/b"}`, &badName)
	expectErrors(t, &badName, nil, `provisioner: Invalid value: "example.com/a/b": a valid label key must consist of`)

	// Update: parameters, provisioner and reclaimPolicy are frozen; the
	// messages are what `kubectl apply` prints from a real server.
	var upd storagev1.StorageClass
	load(t, `{"metadata":{"name":"fast","resourceVersion":"1"},"provisioner":"other.io/x","parameters":{"type":"hdd"},"reclaimPolicy":"Retain","volumeBindingMode":"WaitForFirstConsumer"}`, &upd)
	expectErrors(t, &upd, &ok,
		`parameters: Forbidden: updates to parameters are forbidden.`,
		`provisioner: Forbidden: updates to provisioner are forbidden.`,
		`reclaimPolicy: Forbidden: updates to reclaimPolicy are forbidden.`,
		`volumeBindingMode: Invalid value: "WaitForFirstConsumer": field is immutable`)
	var labels storagev1.StorageClass
	load(t, `{"metadata":{"name":"fast","labels":{"tier":"gold"},"resourceVersion":"1"},"provisioner":"rancher.io/local-path","parameters":{"type":"ssd"},"allowVolumeExpansion":true}`, &labels)
	expectErrors(t, &labels, &ok)
}

func TestCSIDriverValidation(t *testing.T) {
	var d storagev1.CSIDriver
	load(t, `{"metadata":{"name":"hostpath.csi.k8s.io","resourceVersion":"1"},"spec":{"tokenRequests":[{"audience":"vault","expirationSeconds":3600}]}}`, &d)
	expectErrors(t, &d, nil)

	var bad storagev1.CSIDriver
	load(t, `{"metadata":{"name":"Bad_Name"},"spec":{"fsGroupPolicy":"Sometimes","volumeLifecycleModes":["Forever"],
		"tokenRequests":[{"audience":"a","expirationSeconds":60},{"audience":"a"}],"nodeAllocatableUpdatePeriodSeconds":5}}`, &bad)
	expectErrors(t, &bad, nil,
		`metadata.name: Invalid value: "Bad_Name": a lowercase RFC 1123 subdomain`,
		`spec.fsGroupPolicy: Unsupported value: "Sometimes": supported values: "File", "None", "ReadWriteOnceWithFSType"`,
		`spec.volumeLifecycleModes: Unsupported value: "Forever": supported values: "Persistent", "Ephemeral"`,
		`spec.tokenRequests[0].expirationSeconds: Invalid value: 60: may not specify a duration less than 10 minutes`,
		`spec.tokenRequests[1].audience: Duplicate value: "a"`,
		`spec.nodeAllocatableUpdatePeriodSeconds: Invalid value: 5: must be greater than or equal to 10 seconds`)

	var sa storagev1.CSIDriver
	load(t, `{"metadata":{"name":"x.csi"},"spec":{"serviceAccountTokenInSecrets":true}}`, &sa)
	expectErrors(t, &sa, nil, `spec.serviceAccountTokenInSecrets: Invalid value: true: serviceAccountTokenInSecrets is set but no tokenRequests are specified`)

	// attachRequired and volumeLifecycleModes are immutable; podInfoOnMount is not.
	var upd storagev1.CSIDriver
	load(t, `{"metadata":{"name":"hostpath.csi.k8s.io","resourceVersion":"1"},"spec":{"attachRequired":false,"podInfoOnMount":true,"volumeLifecycleModes":["Ephemeral"],
		"tokenRequests":[{"audience":"vault","expirationSeconds":3600}]}}`, &upd)
	expectErrors(t, &upd, &d,
		`spec.attachedRequired: Invalid value: false: field is immutable`,
		`spec.volumeLifecycleModes: Invalid value: ["Ephemeral"]: field is immutable`)
	if got := AggregateMessage(Validate(&upd, &d)); strings.Contains(got, "podInfoOnMount") {
		t.Errorf("podInfoOnMount is mutable: %s", got)
	}
}

func TestCSINodeValidation(t *testing.T) {
	var n storagev1.CSINode
	load(t, `{"metadata":{"name":"worker-1","resourceVersion":"1"},"spec":{"drivers":[{"name":"hostpath.csi.k8s.io","nodeID":"worker-1","topologyKeys":["topology.hostpath.csi/node"],"allocatable":{"count":10}}]}}`, &n)
	expectErrors(t, &n, nil)

	var bad storagev1.CSINode
	load(t, `{"metadata":{"name":"worker-1","resourceVersion":"1"},"spec":{"drivers":[
		{"name":"a.csi","nodeID":"n","topologyKeys":["k","k"]},
		{"name":"a.csi","nodeID":"","topologyKeys":null,"allocatable":{"count":-1}}]}}`, &bad)
	expectErrors(t, &bad, nil,
		`spec.drivers[0]: Duplicate value: "k"`,
		`spec.drivers[1].name: Duplicate value: "a.csi"`,
		`spec.drivers[1].nodeID: Required value`,
		`spec.drivers[1].allocatable.count: Invalid value: -1: must be greater than or equal to 0`)

	// The allocatable count may change; the node ID may not.
	var upd storagev1.CSINode
	load(t, `{"metadata":{"name":"worker-1","resourceVersion":"1"},"spec":{"drivers":[{"name":"hostpath.csi.k8s.io","nodeID":"worker-1","topologyKeys":["topology.hostpath.csi/node"],"allocatable":{"count":20}}]}}`, &upd)
	expectErrors(t, &upd, &n)
	upd.Spec.Drivers[0].NodeID = "other"
	expectErrors(t, &upd, &n, `spec.drivers: Invalid value: `, `field is immutable`)
	if *n.Spec.Drivers[0].Allocatable.Count != 10 {
		t.Error("the update check changed the stored object")
	}
}

func TestCSIStorageCapacityValidation(t *testing.T) {
	var c storagev1.CSIStorageCapacity
	load(t, `{"metadata":{"name":"csisc-1","namespace":"kube-system","resourceVersion":"1"},"storageClassName":"fast","capacity":"10Gi","nodeTopology":{"matchLabels":{"node":"worker-1"}}}`, &c)
	expectErrors(t, &c, nil)

	var bad storagev1.CSIStorageCapacity
	load(t, `{"metadata":{"name":"csisc-2","namespace":"kube-system"},"capacity":"-1Gi"}`, &bad)
	expectErrors(t, &bad, nil,
		`storageClassName: Invalid value: "": a lowercase RFC 1123 subdomain`,
		`capacity: Invalid value: "-1Gi": must be greater than or equal to 0`)

	var upd storagev1.CSIStorageCapacity
	load(t, `{"metadata":{"name":"csisc-1","namespace":"kube-system","resourceVersion":"1"},"storageClassName":"slow","capacity":"5Gi","nodeTopology":{"matchLabels":{"node":"worker-1"}}}`, &upd)
	expectErrors(t, &upd, &c, `storageClassName: Invalid value: "slow": field is immutable`)
}

func TestVolumeAttachmentValidation(t *testing.T) {
	var va storagev1.VolumeAttachment
	load(t, `{"metadata":{"name":"csi-123","resourceVersion":"1"},"spec":{"attacher":"hostpath.csi.k8s.io","nodeName":"worker-1","source":{"persistentVolumeName":"pvc-1"}}}`, &va)
	expectErrors(t, &va, nil)

	var none, both storagev1.VolumeAttachment
	load(t, `{"metadata":{"name":"csi-1"},"spec":{"attacher":"","nodeName":"worker-1","source":{}}}`, &none)
	expectErrors(t, &none, nil,
		`spec.attacher: Required value`,
		`spec.source: Required value: must specify exactly one of inlineVolumeSpec and persistentVolumeName`)
	load(t, `{"metadata":{"name":"csi-2"},"spec":{"attacher":"a.csi","nodeName":"Worker_1","source":{"persistentVolumeName":"pv","inlineVolumeSpec":{}}}}`, &both)
	expectErrors(t, &both, nil,
		`spec.source: Forbidden: must specify exactly one of inlineVolumeSpec and persistentVolumeName`,
		`spec.nodeName: Invalid value: "Worker_1": a lowercase RFC 1123 subdomain`)

	// The status may change, the spec may not.
	upd := va
	upd.Status.Attached = true
	expectErrors(t, &upd, &va)
	upd.Spec.NodeName = "worker-2"
	expectErrors(t, &upd, &va, `spec: Invalid value: {"attacher":"hostpath.csi.k8s.io","source":{"persistentVolumeName":"pvc-1"},"nodeName":"worker-2"}: field is immutable`)
}
