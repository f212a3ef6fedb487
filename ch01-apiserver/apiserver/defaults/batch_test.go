package defaults

import (
	"testing"

	"kubik/ch01-apiserver/api/batchv1"
	"kubik/ch01-apiserver/api/metav1"
)

// A pod failure policy pattern without a status matches True, in a Job and in
// a CronJob's job template alike.
func TestPodFailurePolicyDefaults(t *testing.T) {
	const podSpec = `{"containers":[{"name":"a","image":"busybox:1","resources":{},"terminationMessagePath":"/dev/termination-log",
		"terminationMessagePolicy":"File","imagePullPolicy":"IfNotPresent"}],"restartPolicy":"Never","terminationGracePeriodSeconds":30,
		"dnsPolicy":"ClusterFirst","securityContext":{},"schedulerName":"default-scheduler"}`
	runDefaultsCases(t, []defaultsCase{{
		name: "Job",
		obj:  func() metav1.Object { return &batchv1.Job{} },
		in: `{"metadata":{"name":"j"},"spec":{"podFailurePolicy":{"rules":[{"action":"FailJob","onPodConditions":[{"type":"DisruptionTarget"}]}]},
			"template":{"spec":{"restartPolicy":"Never","containers":[{"name":"a","image":"busybox:1"}]}}}}`,
		want: `{"metadata":{"name":"j"},"spec":{"parallelism":1,"completions":1,
			"podFailurePolicy":{"rules":[{"action":"FailJob","onPodConditions":[{"type":"DisruptionTarget","status":"True"}]}]},
			"backoffLimit":6,"manualSelector":false,"template":{"metadata":{},"spec":` + podSpec + `},
			"completionMode":"NonIndexed","suspend":false,"podReplacementPolicy":"Failed"},"status":{}}`,
	}, {
		name: "CronJob",
		obj:  func() metav1.Object { return &batchv1.CronJob{} },
		in: `{"metadata":{"name":"cj"},"spec":{"schedule":"* * * * *","jobTemplate":{"spec":{
			"podFailurePolicy":{"rules":[{"action":"Ignore","onPodConditions":[{"type":"DisruptionTarget"},{"type":"Ready","status":"False"}]}]},
			"template":{"spec":{"restartPolicy":"Never","containers":[{"name":"a","image":"busybox:1"}]}}}}}}`,
		want: `{"metadata":{"name":"cj"},"spec":{"schedule":"* * * * *","concurrencyPolicy":"Allow","suspend":false,
			"jobTemplate":{"metadata":{},"spec":{
			  "podFailurePolicy":{"rules":[{"action":"Ignore","onPodConditions":[{"type":"DisruptionTarget","status":"True"},{"type":"Ready","status":"False"}]}]},
			  "template":{"metadata":{},"spec":` + podSpec + `}}},
			"successfulJobsHistoryLimit":3,"failedJobsHistoryLimit":1},"status":{}}`,
	}})
}
