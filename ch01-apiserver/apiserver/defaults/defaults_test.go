package defaults

import (
	"encoding/json"
	"reflect"
	"testing"

	"kubik/ch01-apiserver/api/appsv1"
	"kubik/ch01-apiserver/api/batchv1"
	"kubik/ch01-apiserver/api/corev1"
	"kubik/ch01-apiserver/api/metav1"
)

// The inputs are the manifests of the reference run; the expected specs are
// what the real 1.35 server returned for them (`kubectl get -o yaml`), minus
// what admission plugins add (service account volume, tolerations, priority)
// and what the registry allocates (clusterIP, ipFamilies).

func decode(t *testing.T, s string, obj any) {
	t.Helper()
	if err := json.Unmarshal([]byte(s), obj); err != nil {
		t.Fatal(err)
	}
}

// sameJSON compares got (marshalled) with want as JSON values, ignoring key order.
func sameJSON(t *testing.T, what string, got any, want string) {
	t.Helper()
	b, err := json.Marshal(got)
	if err != nil {
		t.Fatal(err)
	}
	var g, w any
	if err := json.Unmarshal(b, &g); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal([]byte(want), &w); err != nil {
		t.Fatalf("bad want: %v", err)
	}
	if !reflect.DeepEqual(g, w) {
		t.Errorf("%s:\ngot  %s\nwant %s", what, b, want)
	}
}

func TestPodLikeRealServer(t *testing.T) {
	var pod corev1.Pod
	decode(t, `{"apiVersion":"v1","kind":"Pod","metadata":{"name":"web","labels":{"app":"web"}},
		"spec":{"containers":[{"name":"nginx","image":"nginx:1.27","ports":[{"containerPort":80}]}]}}`, &pod)
	Default(&pod)
	PreparePodForCreate(&pod)
	sameJSON(t, "spec", pod.Spec, `{
		"containers":[{"image":"nginx:1.27","imagePullPolicy":"IfNotPresent","name":"nginx",
			"ports":[{"containerPort":80,"protocol":"TCP"}],"resources":{},
			"terminationMessagePath":"/dev/termination-log","terminationMessagePolicy":"File"}],
		"dnsPolicy":"ClusterFirst","enableServiceLinks":true,"restartPolicy":"Always",
		"schedulerName":"default-scheduler","securityContext":{},"terminationGracePeriodSeconds":30}`)
	if pod.Status.Phase != corev1.PodPending || pod.Status.QOSClass != corev1.PodQOSBestEffort {
		t.Errorf("status = %+v", pod.Status)
	}
	if pod.Generation != 1 {
		t.Errorf("generation = %d", pod.Generation)
	}
}

func TestDeploymentLikeRealServer(t *testing.T) {
	var d appsv1.Deployment
	decode(t, `{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"nginx","labels":{"app":"nginx"}},
		"spec":{"replicas":3,"selector":{"matchLabels":{"app":"nginx"}},
		"template":{"metadata":{"labels":{"app":"nginx"}},"spec":{"containers":[{"name":"nginx","image":"nginx:1.27",
		"ports":[{"containerPort":80}],"resources":{"requests":{"cpu":"100m","memory":"64Mi"}}}]}}}}`, &d)
	Default(&d)
	sameJSON(t, "spec", d.Spec, `{
		"progressDeadlineSeconds":600,"replicas":3,"revisionHistoryLimit":10,
		"selector":{"matchLabels":{"app":"nginx"}},
		"strategy":{"rollingUpdate":{"maxSurge":"25%","maxUnavailable":"25%"},"type":"RollingUpdate"},
		"template":{"metadata":{"labels":{"app":"nginx"}},"spec":{
			"containers":[{"image":"nginx:1.27","imagePullPolicy":"IfNotPresent","name":"nginx",
				"ports":[{"containerPort":80,"protocol":"TCP"}],
				"resources":{"requests":{"cpu":"100m","memory":"64Mi"}},
				"terminationMessagePath":"/dev/termination-log","terminationMessagePolicy":"File"}],
			"dnsPolicy":"ClusterFirst","restartPolicy":"Always","schedulerName":"default-scheduler",
			"securityContext":{},"terminationGracePeriodSeconds":30}}}`)
}

func TestServiceLikeRealServer(t *testing.T) {
	var svc corev1.Service
	decode(t, `{"apiVersion":"v1","kind":"Service","metadata":{"name":"nginx"},
		"spec":{"type":"ClusterIP","selector":{"app":"nginx"},"ports":[{"name":"http","port":80,"targetPort":80,"protocol":"TCP"}]}}`, &svc)
	Default(&svc)
	sameJSON(t, "spec", svc.Spec, `{
		"internalTrafficPolicy":"Cluster",
		"ports":[{"name":"http","port":80,"protocol":"TCP","targetPort":80}],
		"selector":{"app":"nginx"},"sessionAffinity":"None","type":"ClusterIP"}`)

	var bare corev1.Service
	decode(t, `{"spec":{"type":"NodePort","ports":[{"port":8080}]}}`, &bare)
	Default(&bare)
	if p := bare.Spec.Ports[0]; p.Protocol != "TCP" || p.TargetPort.IntVal != 8080 {
		t.Errorf("port = %+v", p)
	}
	if bare.Spec.ExternalTrafficPolicy != corev1.ServiceExternalTrafficPolicyCluster {
		t.Errorf("externalTrafficPolicy = %q", bare.Spec.ExternalTrafficPolicy)
	}
}

func TestContainerDefaults(t *testing.T) {
	var pod corev1.Pod
	decode(t, `{"spec":{"containers":[
		{"name":"a","image":"nginx","livenessProbe":{"httpGet":{"port":80}},
		 "env":[{"name":"NS","valueFrom":{"fieldRef":{"fieldPath":"metadata.namespace"}}}],
		 "resources":{"limits":{"cpu":"1","memory":"1Gi"}}},
		{"name":"b","image":"registry:5000/app"},
		{"name":"c","image":"app@sha256:0123"},
		{"name":"d","image":"app:latest"}],
		"volumes":[{"name":"x"},{"name":"s","secret":{"secretName":"s"}},{"name":"h","hostPath":{"path":"/tmp"}}]}}`, &pod)
	Default(&pod)
	PreparePodForCreate(&pod)
	c := pod.Spec.Containers
	for i, want := range []corev1.PullPolicy{"Always", "Always", "IfNotPresent", "Always"} {
		if c[i].ImagePullPolicy != want {
			t.Errorf("container %s: imagePullPolicy %q, want %q", c[i].Name, c[i].ImagePullPolicy, want)
		}
	}
	sameJSON(t, "probe", c[0].LivenessProbe, `{"httpGet":{"path":"/","port":80,"scheme":"HTTP"},
		"timeoutSeconds":1,"periodSeconds":10,"successThreshold":1,"failureThreshold":3}`)
	if c[0].Env[0].ValueFrom.FieldRef.APIVersion != "v1" {
		t.Error("fieldRef apiVersion not defaulted")
	}
	sameJSON(t, "requests", c[0].Resources.Requests, `{"cpu":"1","memory":"1Gi"}`)
	sameJSON(t, "volumes", pod.Spec.Volumes, `[{"name":"x","emptyDir":{}},
		{"name":"s","secret":{"secretName":"s","defaultMode":420}},
		{"name":"h","hostPath":{"path":"/tmp","type":""}}]`)
	// Only one of four containers limits cpu and memory: Burstable.
	if pod.Status.QOSClass != corev1.PodQOSBurstable {
		t.Errorf("qosClass = %q", pod.Status.QOSClass)
	}
}

func TestQOS(t *testing.T) {
	cases := map[string]corev1.PodQOSClass{
		`{"containers":[{"name":"a"}]}`: corev1.PodQOSBestEffort,
		`{"containers":[{"name":"a","resources":{"limits":{"cpu":"1","memory":"1Gi"}}}]}`:                                       corev1.PodQOSGuaranteed,
		`{"containers":[{"name":"a","resources":{"requests":{"cpu":"1"}}}]}`:                                                    corev1.PodQOSBurstable,
		`{"containers":[{"name":"a","resources":{"requests":{"cpu":"1","memory":"1Gi"},"limits":{"cpu":"2","memory":"1Gi"}}}]}`: corev1.PodQOSBurstable,
	}
	for spec, want := range cases {
		var pod corev1.Pod
		decode(t, `{"spec":`+spec+`}`, &pod)
		Default(&pod)
		if got := GetPodQOS(&pod); got != want {
			t.Errorf("%s: %q, want %q", spec, got, want)
		}
	}
}

func TestWorkloadDefaults(t *testing.T) {
	var ds appsv1.DaemonSet
	Default(&ds)
	sameJSON(t, "daemonset strategy", ds.Spec.UpdateStrategy, `{"type":"RollingUpdate","rollingUpdate":{"maxUnavailable":1,"maxSurge":0}}`)

	var ss appsv1.StatefulSet
	Default(&ss)
	if *ss.Spec.Replicas != 1 || ss.Spec.PodManagementPolicy != "OrderedReady" || *ss.Spec.UpdateStrategy.RollingUpdate.Partition != 0 ||
		ss.Spec.PersistentVolumeClaimRetentionPolicy.WhenDeleted != "Retain" || *ss.Spec.RevisionHistoryLimit != 10 {
		t.Errorf("statefulset spec = %+v", ss.Spec)
	}

	var job batchv1.Job
	decode(t, `{"spec":{"template":{"metadata":{"labels":{"app":"x"}},"spec":{"restartPolicy":"Never","containers":[{"name":"a","image":"busybox"}]}}}}`, &job)
	Default(&job)
	if *job.Spec.Completions != 1 || *job.Spec.Parallelism != 1 || *job.Spec.BackoffLimit != 6 ||
		*job.Spec.CompletionMode != batchv1.NonIndexedCompletion || *job.Spec.Suspend ||
		*job.Spec.PodReplacementPolicy != batchv1.TerminatingOrFailed || *job.Spec.ManualSelector {
		t.Errorf("job spec = %+v", job.Spec)
	}
	if job.Labels["app"] != "x" {
		t.Errorf("job labels = %v", job.Labels)
	}
	if job.Spec.Template.Spec.RestartPolicy != "Never" {
		t.Errorf("restartPolicy overwritten")
	}

	var work batchv1.Job
	decode(t, `{"spec":{"parallelism":3}}`, &work)
	Default(&work)
	if work.Spec.Completions != nil {
		t.Errorf("a work-queue job must keep completions unset")
	}

	var cj batchv1.CronJob
	Default(&cj)
	if cj.Spec.ConcurrencyPolicy != batchv1.AllowConcurrent || *cj.Spec.SuccessfulJobsHistoryLimit != 3 || *cj.Spec.FailedJobsHistoryLimit != 1 || *cj.Spec.Suspend {
		t.Errorf("cronjob spec = %+v", cj.Spec)
	}
}

func TestCoreDefaults(t *testing.T) {
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "team"}}
	Default(ns)
	PrepareNamespaceForCreate(ns)
	sameJSON(t, "namespace", ns, `{"metadata":{"name":"team","labels":{"kubernetes.io/metadata.name":"team"}},
		"spec":{"finalizers":["kubernetes"]},"status":{"phase":"Active"}}`)

	s := &corev1.Secret{StringData: map[string]string{"k": "v"}}
	Default(s)
	if s.Type != corev1.SecretTypeOpaque || string(s.Data["k"]) != "v" || s.StringData != nil {
		t.Errorf("secret = %+v", s)
	}

	pvc := &corev1.PersistentVolumeClaim{}
	Default(pvc)
	if *pvc.Spec.VolumeMode != corev1.PersistentVolumeFilesystem || pvc.Status.Phase != corev1.ClaimPending {
		t.Errorf("pvc = %+v", pvc)
	}
	pv := &corev1.PersistentVolume{}
	Default(pv)
	if pv.Spec.PersistentVolumeReclaimPolicy != "Retain" || *pv.Spec.VolumeMode != "Filesystem" || pv.Status.Phase != "Pending" {
		t.Errorf("pv = %+v", pv)
	}
}
