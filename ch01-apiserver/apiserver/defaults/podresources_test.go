package defaults

import (
	"testing"

	"kubik/ch01-apiserver/api/corev1"
	"kubik/ch01-apiserver/api/metav1"
)

// Pod-level resources (PodLevelResources, on by default in 1.35).
func TestPodLevelResourcesDefaults(t *testing.T) {
	pod := func() metav1.Object { return &corev1.Pod{} }
	// The pod-independent part of every expected spec below.
	const container = `"terminationMessagePath":"/dev/termination-log","terminationMessagePolicy":"File","imagePullPolicy":"IfNotPresent"`
	const podSpec = `"restartPolicy":"Always","terminationGracePeriodSeconds":30,"dnsPolicy":"ClusterFirst","securityContext":{},
		"schedulerName":"default-scheduler","enableServiceLinks":true`
	runDefaultsCases(t, []defaultsCase{{
		// cpu: max(500m+250m+sidecar 250m, init 1500m) = 1500m; memory:
		// 200Mi+50Mi (more than init's 100Mi); hugepages-1Gi limit: 2Gi +
		// sidecar 1Gi; extended resources are never pod-level.
		name: "limits only, with init container and sidecar",
		obj:  pod,
		in: `{"metadata":{"name":"p"},"spec":{"resources":{"limits":{"cpu":"2","memory":"1Gi","hugepages-2Mi":"4Mi"}},
			"initContainers":[
			  {"name":"init","image":"busybox:1","resources":{"requests":{"cpu":"1500m","memory":"100Mi"}}},
			  {"name":"sidecar","image":"busybox:1","restartPolicy":"Always","resources":{"requests":{"cpu":"250m","memory":"50Mi"},"limits":{"hugepages-1Gi":"1Gi"}}}],
			"containers":[
			  {"name":"a","image":"nginx:1.27","resources":{"requests":{"cpu":"500m","memory":"200Mi"}}},
			  {"name":"b","image":"nginx:1.27","resources":{"limits":{"cpu":"250m","hugepages-1Gi":"2Gi","example.com/gpu":"1"}}}]}}`,
		want: `{"metadata":{"name":"p"},"spec":{
			"initContainers":[
			  {"name":"init","image":"busybox:1","resources":{"requests":{"cpu":"1500m","memory":"100Mi"}},` + container + `},
			  {"name":"sidecar","image":"busybox:1","restartPolicy":"Always","resources":{"limits":{"hugepages-1Gi":"1Gi"},
			    "requests":{"cpu":"250m","hugepages-1Gi":"1Gi","memory":"50Mi"}},` + container + `}],
			"containers":[
			  {"name":"a","image":"nginx:1.27","resources":{"requests":{"cpu":"500m","memory":"200Mi"}},` + container + `},
			  {"name":"b","image":"nginx:1.27","resources":{"limits":{"cpu":"250m","example.com/gpu":"1","hugepages-1Gi":"2Gi"},
			    "requests":{"cpu":"250m","example.com/gpu":"1","hugepages-1Gi":"2Gi"}},` + container + `}],
			` + podSpec + `,
			"resources":{"limits":{"cpu":"2","hugepages-1Gi":"3Gi","hugepages-2Mi":"4Mi","memory":"1Gi"},
			  "requests":{"cpu":"1500m","hugepages-1Gi":"3Gi","hugepages-2Mi":"4Mi","memory":"250Mi"}}},"status":{}}`,
	}, {
		// Requests alone: the hugepages limit comes from the containers, and
		// memory is requested as the containers do.
		name: "requests only",
		obj:  pod,
		in: `{"metadata":{"name":"p2"},"spec":{"resources":{"requests":{"cpu":"1"}},
			"containers":[{"name":"a","image":"nginx:1.27","resources":{"limits":{"hugepages-2Mi":"2Mi","memory":"64Mi"}}}]}}`,
		want: `{"metadata":{"name":"p2"},"spec":{
			"containers":[{"name":"a","image":"nginx:1.27","resources":{"limits":{"hugepages-2Mi":"2Mi","memory":"64Mi"},
			  "requests":{"hugepages-2Mi":"2Mi","memory":"64Mi"}},` + container + `}],
			` + podSpec + `,
			"resources":{"limits":{"hugepages-2Mi":"2Mi"},"requests":{"cpu":"1","hugepages-2Mi":"2Mi","memory":"64Mi"}}},"status":{}}`,
	}, {
		// A pod-level hugepages request blocks the limit default; memory
		// requests its pod-level limit.
		name: "hugepages requested at pod level",
		obj:  pod,
		in: `{"metadata":{"name":"p3"},"spec":{"resources":{"limits":{"memory":"1Gi"},"requests":{"hugepages-2Mi":"2Mi"}},
			"containers":[{"name":"a","image":"nginx:1.27","resources":{"limits":{"hugepages-2Mi":"2Mi"}}}]}}`,
		want: `{"metadata":{"name":"p3"},"spec":{
			"containers":[{"name":"a","image":"nginx:1.27","resources":{"limits":{"hugepages-2Mi":"2Mi"},"requests":{"hugepages-2Mi":"2Mi"}},` + container + `}],
			` + podSpec + `,
			"resources":{"limits":{"memory":"1Gi"},"requests":{"hugepages-2Mi":"2Mi","memory":"1Gi"}}},"status":{}}`,
	}, {
		name: "empty pod-level resources stay empty",
		obj:  pod,
		in:   `{"metadata":{"name":"p4"},"spec":{"resources":{},"containers":[{"name":"a","image":"nginx:1.27","resources":{"requests":{"cpu":"1"}}}]}}`,
		want: `{"metadata":{"name":"p4"},"spec":{
			"containers":[{"name":"a","image":"nginx:1.27","resources":{"requests":{"cpu":"1"}},` + container + `}],
			` + podSpec + `,"resources":{}},"status":{}}`,
	}})
}
