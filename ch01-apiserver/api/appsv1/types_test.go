package appsv1

import (
	"encoding/json"
	"os"
	"reflect"
	"testing"

	"kubik/internal/apitest"
)

// roundTrip decodes a real server's JSON strictly into v, encodes it again and
// checks that nothing was lost or added: the JSON names and omitempty choices
// of our types are the server's.
func roundTrip(t *testing.T, file string, v any) {
	t.Helper()
	in, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	apitest.RoundTrip(t, in, v)
}

func TestDeploymentRoundTrip(t *testing.T) {
	var d Deployment
	roundTrip(t, "testdata/deployment-nginx.json", &d)
	if d.Spec.Strategy.Type != RollingUpdateDeploymentStrategyType ||
		d.Spec.Strategy.RollingUpdate.MaxSurge.String() != "25%" ||
		*d.Spec.Replicas != 2 || len(d.Status.Conditions) != 2 ||
		d.Status.Conditions[0].Type != DeploymentAvailable {
		t.Errorf("decoded %+v", d.Spec)
	}
}

func TestReplicaSetListRoundTrip(t *testing.T) {
	var l ReplicaSetList
	roundTrip(t, "testdata/replicasets-list.json", &l)
	if l.Kind != "ReplicaSetList" || len(l.Items) != 2 {
		t.Fatalf("decoded %s with %d items", l.Kind, len(l.Items))
	}
	if _, ok := l.Items[0].Spec.Selector.MatchLabels[DefaultDeploymentUniqueLabelKey]; !ok {
		t.Errorf("selector %v has no %s", l.Items[0].Spec.Selector.MatchLabels, DefaultDeploymentUniqueLabelKey)
	}
}

func TestControllerRevisionData(t *testing.T) {
	in := `{"metadata":{"name":"web-5d8f9c6b7a"},"data":{"spec":{"template":{"$patch":"replace"}}},"revision":3}`
	var cr ControllerRevision
	if err := json.Unmarshal([]byte(in), &cr); err != nil {
		t.Fatal(err)
	}
	out, _ := json.Marshal(cr)
	var a, b map[string]any
	json.Unmarshal([]byte(in), &a)
	json.Unmarshal(out, &b)
	if !reflect.DeepEqual(a, b) {
		t.Errorf("got %s", out)
	}
}

// A StatefulSet and a DaemonSet as a 1.33 server returns them.
const statefulSet = `{"kind":"StatefulSet","apiVersion":"apps/v1",
 "metadata":{"name":"web","namespace":"default","uid":"4d3c2b1a-0000-4000-8000-000000000001","resourceVersion":"1000","generation":1,"creationTimestamp":"2026-11-30T02:50:00Z"},
 "spec":{"replicas":2,"selector":{"matchLabels":{"app":"web"}},
  "template":{"metadata":{"labels":{"app":"web"}},
   "spec":{"containers":[{"name":"nginx","image":"nginx:1.25","resources":{},"terminationMessagePath":"/dev/termination-log","terminationMessagePolicy":"File","imagePullPolicy":"IfNotPresent"}],
    "restartPolicy":"Always","terminationGracePeriodSeconds":30,"dnsPolicy":"ClusterFirst","securityContext":{},"schedulerName":"default-scheduler"}},
  "volumeClaimTemplates":[{"kind":"PersistentVolumeClaim","apiVersion":"v1","metadata":{"name":"www"},
   "spec":{"accessModes":["ReadWriteOnce"],"resources":{"requests":{"storage":"1Gi"}},"volumeMode":"Filesystem"},"status":{"phase":"Pending"}}],
  "serviceName":"web","podManagementPolicy":"OrderedReady",
  "updateStrategy":{"type":"RollingUpdate","rollingUpdate":{"partition":0}},"revisionHistoryLimit":10,
  "persistentVolumeClaimRetentionPolicy":{"whenDeleted":"Retain","whenScaled":"Retain"}},
 "status":{"observedGeneration":1,"replicas":2,"readyReplicas":2,"currentReplicas":2,"updatedReplicas":2,
  "currentRevision":"web-6b9f8c7d5","updateRevision":"web-6b9f8c7d5","collisionCount":0,"availableReplicas":2}}`

const daemonSet = `{"kind":"DaemonSet","apiVersion":"apps/v1",
 "metadata":{"name":"agent","namespace":"kube-system","uid":"4d3c2b1a-0000-4000-8000-000000000002","resourceVersion":"1010","generation":1,"creationTimestamp":"2026-11-30T02:50:00Z",
  "annotations":{"deprecated.daemonset.template.generation":"1"}},
 "spec":{"selector":{"matchLabels":{"app":"agent"}},
  "template":{"metadata":{"labels":{"app":"agent"}},
   "spec":{"containers":[{"name":"agent","image":"busybox:1.36","resources":{},"terminationMessagePath":"/dev/termination-log","terminationMessagePolicy":"File","imagePullPolicy":"IfNotPresent"}],
    "restartPolicy":"Always","terminationGracePeriodSeconds":30,"dnsPolicy":"ClusterFirst","securityContext":{},"schedulerName":"default-scheduler"}},
  "updateStrategy":{"type":"RollingUpdate","rollingUpdate":{"maxUnavailable":1,"maxSurge":0}},"revisionHistoryLimit":10},
 "status":{"currentNumberScheduled":1,"numberMisscheduled":0,"desiredNumberScheduled":1,"numberReady":1,"observedGeneration":1,
  "updatedNumberScheduled":1,"numberAvailable":1}}`

func TestStatefulSetAndDaemonSetRoundTrip(t *testing.T) {
	for name, doc := range map[string]string{"statefulset": statefulSet, "daemonset": daemonSet} {
		dir := t.TempDir()
		file := dir + "/" + name + ".json"
		if err := os.WriteFile(file, []byte(doc), 0o644); err != nil {
			t.Fatal(err)
		}
		var v any = &StatefulSet{}
		if name == "daemonset" {
			v = &DaemonSet{}
		}
		roundTrip(t, file, v)
	}
}

func TestControllerRevisionRoundTrip(t *testing.T) {
	var cr ControllerRevision
	roundTrip(t, "testdata/controllerrevision-web.json", &cr)
	if cr.Revision != 2 || len(cr.Data.Raw) == 0 {
		t.Errorf("decoded %+v", cr)
	}
}
