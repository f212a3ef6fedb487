package batchv1

import (
	"testing"

	"kubik/internal/apitest"
)

// A finished Job as a 1.33 server returns it.
const job = `{"kind":"Job","apiVersion":"batch/v1",
 "metadata":{"name":"pi","namespace":"default","uid":"9e8d7c6b-0000-4000-8000-000000000001","resourceVersion":"830","generation":1,"creationTimestamp":"2026-11-30T02:40:00Z",
  "labels":{"batch.kubernetes.io/controller-uid":"9e8d7c6b-0000-4000-8000-000000000001","batch.kubernetes.io/job-name":"pi","controller-uid":"9e8d7c6b-0000-4000-8000-000000000001","job-name":"pi"}},
 "spec":{"parallelism":1,"completions":1,"backoffLimit":6,
  "selector":{"matchLabels":{"batch.kubernetes.io/controller-uid":"9e8d7c6b-0000-4000-8000-000000000001"}},
  "template":{"metadata":{"labels":{"batch.kubernetes.io/controller-uid":"9e8d7c6b-0000-4000-8000-000000000001","batch.kubernetes.io/job-name":"pi","controller-uid":"9e8d7c6b-0000-4000-8000-000000000001","job-name":"pi"}},
   "spec":{"containers":[{"name":"pi","image":"perl:5.34","command":["perl","-Mbignum=bpi","-wle","print bpi(200)"],"resources":{},"terminationMessagePath":"/dev/termination-log","terminationMessagePolicy":"File","imagePullPolicy":"IfNotPresent"}],
    "restartPolicy":"Never","terminationGracePeriodSeconds":30,"dnsPolicy":"ClusterFirst","securityContext":{},"schedulerName":"default-scheduler"}},
  "completionMode":"NonIndexed","suspend":false,"podReplacementPolicy":"TerminatingOrFailed"},
 "status":{"conditions":[
   {"type":"SuccessCriteriaMet","status":"True","lastProbeTime":"2026-11-30T02:40:30Z","lastTransitionTime":"2026-11-30T02:40:30Z","reason":"CompletionsReached","message":"Reached expected number of succeeded pods"},
   {"type":"Complete","status":"True","lastProbeTime":"2026-11-30T02:40:30Z","lastTransitionTime":"2026-11-30T02:40:30Z","reason":"CompletionsReached","message":"Reached expected number of succeeded pods"}],
  "startTime":"2026-11-30T02:40:00Z","completionTime":"2026-11-30T02:40:30Z","succeeded":1,"terminating":0,"uncountedTerminatedPods":{},"ready":0}}`

const cronJob = `{"kind":"CronJob","apiVersion":"batch/v1",
 "metadata":{"name":"hello","namespace":"default","uid":"9e8d7c6b-0000-4000-8000-000000000002","resourceVersion":"900","generation":1,"creationTimestamp":"2026-11-30T02:40:00Z"},
 "spec":{"schedule":"*/1 * * * *","timeZone":"Etc/UTC","concurrencyPolicy":"Forbid","suspend":false,
  "jobTemplate":{"metadata":{"name":"hello"},
   "spec":{"template":{"metadata":{},
    "spec":{"containers":[{"name":"hello","image":"busybox:1.36","command":["date"],"resources":{},"terminationMessagePath":"/dev/termination-log","terminationMessagePolicy":"File","imagePullPolicy":"IfNotPresent"}],
     "restartPolicy":"OnFailure","terminationGracePeriodSeconds":30,"dnsPolicy":"ClusterFirst","securityContext":{},"schedulerName":"default-scheduler"}}}},
  "successfulJobsHistoryLimit":3,"failedJobsHistoryLimit":1},
 "status":{"active":[{"kind":"Job","namespace":"default","name":"hello-29400162","uid":"9e8d7c6b-0000-4000-8000-000000000003","apiVersion":"batch/v1","resourceVersion":"901"}],
  "lastScheduleTime":"2026-11-30T02:42:00Z","lastSuccessfulTime":"2026-11-30T02:41:03Z"}}`

func TestJobRoundTrip(t *testing.T) {
	var j Job
	apitest.RoundTrip(t, []byte(job), &j)
	if j.Labels[JobNameLabel] != "pi" || j.Labels[LegacyControllerUidLabel] == "" ||
		*j.Spec.CompletionMode != NonIndexedCompletion || j.Status.Conditions[1].Type != JobComplete ||
		j.Status.UncountedTerminatedPods == nil {
		t.Errorf("decoded %+v", j)
	}
}

func TestCronJobRoundTrip(t *testing.T) {
	var c CronJob
	apitest.RoundTrip(t, []byte(cronJob), &c)
	if c.Spec.ConcurrencyPolicy != ForbidConcurrent || len(c.Status.Active) != 1 || c.Status.Active[0].Name != "hello-29400162" {
		t.Errorf("decoded %+v", c)
	}
}
