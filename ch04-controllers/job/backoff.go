package job

import (
	"sort"
	"time"

	"kubik/ch01-apiserver/api/corev1"
)

// backoffRecord is what the pod failure back-off needs: how many pods
// failed since the last success, and when the last one failed. Upstream
// keeps it in a backoffStore fed by the pod events; here it is read from the
// pods themselves (finished pods stay until the Job is deleted).
// Upstream: backoff_utils.go.
type backoffRecord struct {
	failuresAfterLastSuccess int
	lastFailureTime          time.Time
}

func newBackoffRecord(pods []*corev1.Pod) backoffRecord {
	type finish struct {
		at     time.Time
		failed bool
	}
	var fs []finish
	for _, p := range pods {
		switch {
		case p.Status.Phase == corev1.PodSucceeded:
			fs = append(fs, finish{getFinishedTime(p), false})
		case isPodFailed(p):
			fs = append(fs, finish{getFinishedTime(p), true})
		}
	}
	sort.SliceStable(fs, func(i, j int) bool { return fs[i].at.Before(fs[j].at) })
	var r backoffRecord
	for _, f := range fs {
		if !f.failed {
			r = backoffRecord{}
			continue
		}
		r.failuresAfterLastSuccess++
		r.lastFailureTime = f.at
	}
	return r
}

// getRemainingTime is how long a replacement pod must still wait:
// defaultBackoff * 2^(failures-1), at most maxBackoff, counted from the last
// failure.
func (r backoffRecord) getRemainingTime(now time.Time, defaultBackoff, maxBackoff time.Duration) time.Duration {
	if r.failuresAfterLastSuccess == 0 {
		return 0
	}
	backoff := defaultBackoff
	for i := 1; i < r.failuresAfterLastSuccess && backoff < maxBackoff; i++ {
		backoff *= 2
	}
	backoff = min(backoff, maxBackoff)
	if left := backoff - now.Sub(r.lastFailureTime); left > 0 {
		return left
	}
	return 0
}

// getFinishedTime: the last container's finish, else the Ready condition
// turning False, else the deletion time. Upstream: getFinishedTime.
func getFinishedTime(p *corev1.Pod) time.Time {
	var last time.Time
	for _, cs := range p.Status.ContainerStatuses {
		if t := cs.State.Terminated; t != nil && t.FinishedAt.After(last) {
			last = t.FinishedAt.Time
		}
	}
	if !last.IsZero() {
		return last
	}
	for _, c := range p.Status.Conditions {
		if c.Type == corev1.PodReady && c.Status == corev1.ConditionFalse && !c.LastTransitionTime.IsZero() {
			return c.LastTransitionTime.Time
		}
	}
	if p.DeletionTimestamp != nil {
		return p.DeletionTimestamp.Time
	}
	return p.CreationTimestamp.Time
}
