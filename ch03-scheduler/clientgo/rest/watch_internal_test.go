package rest

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"strings"
	"testing"

	"kubik/ch01-apiserver/api/corev1"
	"kubik/ch01-apiserver/api/metav1"
	"kubik/ch01-apiserver/api/resource"
)

// receive decodes each event in one pass; an ERROR event's object is a
// Status, not a T.
func TestReceiveDecodesEvents(t *testing.T) {
	stream := `{"type":"ADDED","object":{"kind":"Pod","apiVersion":"v1","metadata":{"name":"a","resourceVersion":"5"},"spec":{"nodeName":"n1"}}}
{"type":"BOOKMARK","object":{"kind":"Pod","apiVersion":"v1","metadata":{"resourceVersion":"7"}}}
{"type":"ERROR","object":{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"too old resource version: 5 (9)","reason":"Expired","code":410}}
{"object":{"kind":"Status","apiVersion":"v1","status":"Failure","message":"internal","code":500},"type":"ERROR"}
{"type":"SURPRISE","object":{}}
`
	w := &Watcher[corev1.Pod]{events: make(chan Event[corev1.Pod]), done: make(chan struct{})}
	go w.receive(context.Background(), io.NopCloser(strings.NewReader(stream)))
	var got []Event[corev1.Pod]
	for ev := range w.events {
		got = append(got, ev)
	}
	if len(got) != 5 {
		t.Fatalf("got %d events: %+v", len(got), got)
	}
	if got[0].Type != metav1.Added || got[0].Object.Name != "a" || got[0].Object.Spec.NodeName != "n1" || got[0].Object.ResourceVersion != "5" {
		t.Errorf("ADDED: %+v", got[0])
	}
	if got[1].Type != metav1.Bookmark || got[1].Object.ResourceVersion != "7" {
		t.Errorf("BOOKMARK: %+v", got[1])
	}
	if got[2].Type != metav1.Error || !IsGone(got[2].Err) || got[2].Err.Error() != "too old resource version: 5 (9)" || got[2].Object != nil {
		t.Errorf("ERROR 410: %+v", got[2])
	}
	// "object" before "type": nothing says the object is a Status when it
	// is read; the event is still an error.
	if got[3].Type != metav1.Error || got[3].Err == nil || got[3].Object != nil {
		t.Errorf("ERROR, object first: %+v", got[3])
	}
	if got[4].Type != metav1.Error || got[4].Err == nil || got[4].Err.Error() != `watch stream: unknown event type "SURPRISE"` {
		t.Errorf("unknown type: %+v", got[4])
	}
}

// BenchmarkWatchDecode: a stream of MODIFIED events of a pod as the
// apiserver stores it (defaults, a projected token volume, managedFields),
// decoded as receive does, and — for comparison — as the envelope with a
// json.RawMessage object decoded again into the pod.
func BenchmarkWatchDecode(b *testing.B) {
	pod := benchPod()
	obj, err := json.Marshal(pod)
	if err != nil {
		b.Fatal(err)
	}
	const events = 100
	var stream bytes.Buffer
	for range events {
		stream.WriteString(`{"type":"MODIFIED","object":`)
		stream.Write(obj)
		stream.WriteString("}\n")
	}
	b.Run("one pass", func(b *testing.B) {
		b.SetBytes(int64(stream.Len()))
		for b.Loop() {
			w := &Watcher[corev1.Pod]{events: make(chan Event[corev1.Pod], events), done: make(chan struct{})}
			w.receive(context.Background(), io.NopCloser(bytes.NewReader(stream.Bytes())))
			for ev := range w.events {
				if ev.Object == nil || ev.Object.Name != pod.Name {
					b.Fatalf("%+v", ev)
				}
			}
		}
	})
	b.Run("RawMessage then object", func(b *testing.B) {
		b.SetBytes(int64(stream.Len()))
		for b.Loop() {
			dec := json.NewDecoder(bytes.NewReader(stream.Bytes()))
			for range events {
				var we metav1.WatchEvent
				if err := dec.Decode(&we); err != nil {
					b.Fatal(err)
				}
				var p corev1.Pod
				if err := json.Unmarshal(we.Object, &p); err != nil {
					b.Fatal(err)
				}
			}
		}
	})
}

func benchPod() *corev1.Pod {
	mode, exp, grace := int32(420), int64(3607), int64(30)
	return &corev1.Pod{
		TypeMeta: metav1.TypeMeta{Kind: "Pod", APIVersion: "v1"},
		ObjectMeta: metav1.ObjectMeta{Name: "pod-1234", Namespace: "bench", UID: "6f1c2d3e-4b5a-4c6d-8e9f-0a1b2c3d4e5f",
			ResourceVersion: "123456", CreationTimestamp: metav1.Now(), Labels: map[string]string{"app": "bench"},
			ManagedFields: []metav1.ManagedFieldsEntry{{Manager: "bench-scheduler", Operation: "Update", APIVersion: "v1",
				FieldsType: "FieldsV1", FieldsV1: &metav1.FieldsV1{Raw: []byte(`{"f:metadata":{"f:labels":{".":{},"f:app":{}}},` +
					`"f:spec":{"f:containers":{"k:{\"name\":\"app\"}":{".":{},"f:image":{},"f:name":{},"f:resources":{".":{},"f:requests":{".":{},"f:cpu":{},"f:memory":{}}}}}}}`)}}}},
		Spec: corev1.PodSpec{
			Containers: []corev1.Container{{Name: "app", Image: "registry.k8s.io/pause:3.10",
				Resources: corev1.ResourceRequirements{Requests: corev1.ResourceList{
					corev1.ResourceCPU: resource.MustParse("10m"), corev1.ResourceMemory: resource.MustParse("10Mi")}},
				TerminationMessagePath: "/dev/termination-log", TerminationMessagePolicy: "File", ImagePullPolicy: "IfNotPresent",
				VolumeMounts: []corev1.VolumeMount{{Name: "kube-api-access-abcde", ReadOnly: true, MountPath: "/var/run/secrets/kubernetes.io/serviceaccount"}}}},
			Volumes: []corev1.Volume{{Name: "kube-api-access-abcde", VolumeSource: corev1.VolumeSource{Projected: &corev1.ProjectedVolumeSource{
				DefaultMode: &mode, Sources: []corev1.VolumeProjection{
					{ServiceAccountToken: &corev1.ServiceAccountTokenProjection{ExpirationSeconds: &exp, Path: "token"}},
					{ConfigMap: &corev1.ConfigMapProjection{LocalObjectReference: corev1.LocalObjectReference{Name: "kube-root-ca.crt"},
						Items: []corev1.KeyToPath{{Key: "ca.crt", Path: "ca.crt"}}}},
				}}}}},
			RestartPolicy: "Always", TerminationGracePeriodSeconds: &grace, DNSPolicy: "ClusterFirst", ServiceAccountName: "default",
			SchedulerName: "default-scheduler", NodeName: "node-17",
			Tolerations: []corev1.Toleration{
				{Key: "node.kubernetes.io/not-ready", Operator: "Exists", Effect: "NoExecute", TolerationSeconds: &exp},
				{Key: "node.kubernetes.io/unreachable", Operator: "Exists", Effect: "NoExecute", TolerationSeconds: &exp}},
		},
		Status: corev1.PodStatus{Phase: "Pending", QOSClass: "Burstable",
			Conditions: []corev1.PodCondition{{Type: corev1.PodScheduled, Status: corev1.ConditionTrue, LastTransitionTime: metav1.Now()}}},
	}
}
