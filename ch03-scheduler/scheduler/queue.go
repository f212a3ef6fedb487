package scheduler

import (
	"context"
	"reflect"
	"sync"
	"time"

	"kubik/ch01-apiserver/api/corev1"
	"kubik/ch03-scheduler/clientgo/tools/cache"
	"kubik/ch03-scheduler/scheduler/framework"
)

// The queue's timing, upstream's defaults.
const (
	PodInitialBackoff = 1 * time.Second
	PodMaxBackoff     = 10 * time.Second
	// PodMaxInUnschedulablePodsDuration: an unschedulable pod is retried at
	// least this often, even if no event suggested it might fit now.
	PodMaxInUnschedulablePodsDuration = 5 * time.Minute
)

// SchedulingQueue holds the pods waiting for a node, in three places
// (upstream: internal/queue.PriorityQueue):
//
//   - activeQ: ready to be tried, ordered by the QueueSort plugin (priority,
//     then time in the queue); Pop takes the first.
//   - backoffQ: failed recently; each waits 1s, 2s, 4s ... up to 10s after
//     its last attempt, then moves to activeQ.
//   - unschedulablePods: no node fitted; they wait for a cluster event that
//     might change that (a node added or changed, a pod deleted), or
//     PodMaxInUnschedulablePodsDuration.
//
// A pod a PreEnqueue plugin rejects (SchedulingGates: it still has gates;
// DefaultPreemption: its victims are still being evicted) enters none of
// them: it waits in gated, untried, and is checked again when it is
// updated or a cluster event moves pods (upstream keeps it in
// unschedulablePods, flagged Gated).
type SchedulingQueue struct {
	mu   sync.Mutex
	cond *sync.Cond
	less func(a, b *framework.QueuedPodInfo) bool
	now  func() time.Time

	activeQ       *activeQueue
	backoffQ      map[string]*framework.QueuedPodInfo
	unschedulable map[string]*framework.QueuedPodInfo
	unschedSince  map[string]time.Time
	inFlight      map[string]bool
	gated         map[string]*framework.QueuedPodInfo

	// PreEnqueue says whether a pod may enter the queue
	// (Framework.RunPreEnqueuePlugins); nil lets every pod in.
	PreEnqueue func(*corev1.Pod) *framework.Status

	// schedulingCycle counts Pops; moveRequestCycle is the cycle of the
	// last "something changed" event. A pod that fails in a cycle that
	// started before such an event goes to backoffQ, not unschedulablePods:
	// the event may have been the one that makes it fit.
	schedulingCycle  int64
	moveRequestCycle int64
	closed           bool

	// The pods nominated to nodes, kept up to date as pods come and go
	// (upstream: the PodNominator inside the PriorityQueue).
	*nominator
}

func NewSchedulingQueue(less func(a, b *framework.QueuedPodInfo) bool) *SchedulingQueue {
	q := &SchedulingQueue{less: less, now: time.Now, activeQ: newActiveQueue(less),
		backoffQ: map[string]*framework.QueuedPodInfo{}, unschedulable: map[string]*framework.QueuedPodInfo{},
		unschedSince: map[string]time.Time{}, inFlight: map[string]bool{}, gated: map[string]*framework.QueuedPodInfo{}, moveRequestCycle: -1,
		nominator: newNominator(nil)}
	q.cond = sync.NewCond(&q.mu)
	return q
}

func key(p *corev1.Pod) string { return cache.MetaNamespaceKeyFunc(p) }

// Run moves pods whose backoff ended (every second) and pods unschedulable
// for too long (every 30 s) to activeQ, until ctx ends.
func (q *SchedulingQueue) Run(ctx context.Context) {
	backoff := time.NewTicker(time.Second)
	defer backoff.Stop()
	leftover := time.NewTicker(30 * time.Second)
	defer leftover.Stop()
	for {
		select {
		case <-ctx.Done():
			q.mu.Lock()
			q.closed = true
			q.mu.Unlock()
			q.cond.Broadcast()
			return
		case <-backoff.C:
			q.flushBackoffQCompleted()
		case <-leftover.C:
			q.flushUnschedulablePodsLeftover()
		}
	}
}

// Add queues a new pod (and its nomination, if its status has one: a
// restarted scheduler learns them so).
func (q *SchedulingQueue) Add(pod *corev1.Pod) {
	q.AddNominatedPod(pod, nil)
	q.mu.Lock()
	defer q.mu.Unlock()
	k := key(pod)
	q.removeLocked(k)
	q.addOrGateLocked(&framework.QueuedPodInfo{Pod: pod, Timestamp: q.now()})
}

// addOrGateLocked puts a pod into activeQ, or into gated if a PreEnqueue
// plugin rejects it.
func (q *SchedulingQueue) addOrGateLocked(p *framework.QueuedPodInfo) {
	if q.PreEnqueue != nil {
		if s := q.PreEnqueue(p.Pod); !s.IsSuccess() {
			q.gated[key(p.Pod)] = p
			return
		}
	}
	q.activeQ.add(p)
	q.cond.Broadcast()
}

// Update replaces a queued pod. An unschedulable pod whose spec, labels or
// annotations changed (say, a toleration was added) is tried again.
func (q *SchedulingQueue) Update(oldPod, newPod *corev1.Pod) {
	q.UpdateNominatedPod(oldPod, newPod)
	q.mu.Lock()
	defer q.mu.Unlock()
	k := key(newPod)
	if p, ok := q.gated[k]; ok {
		delete(q.gated, k)
		p.Pod = newPod
		q.addOrGateLocked(p) // in, once its last gate is gone
		return
	}
	if p, ok := q.activeQ.get(k); ok {
		p.Pod = newPod
		q.activeQ.add(p) // its priority may have changed
		return
	}
	if p, ok := q.backoffQ[k]; ok {
		p.Pod = newPod
		return
	}
	if p, ok := q.unschedulable[k]; ok {
		p.Pod = newPod
		if podUpdated(oldPod, newPod) {
			delete(q.unschedulable, k)
			delete(q.unschedSince, k)
			q.requeueLocked(p)
		}
		return
	}
	if !q.inFlight[k] {
		q.addOrGateLocked(&framework.QueuedPodInfo{Pod: newPod, Timestamp: q.now()})
	}
}

// podUpdated ignores what changes without the pod's author doing anything:
// resourceVersion, managedFields, status.
func podUpdated(a, b *corev1.Pod) bool {
	return !reflect.DeepEqual(a.Spec, b.Spec) || !reflect.DeepEqual(a.Labels, b.Labels) || !reflect.DeepEqual(a.Annotations, b.Annotations)
}

// Delete forgets a pod (deleted, or bound: no longer pending).
func (q *SchedulingQueue) Delete(pod *corev1.Pod) {
	q.DeleteNominatedPodIfExists(pod)
	q.mu.Lock()
	defer q.mu.Unlock()
	q.removeLocked(key(pod))
}

func (q *SchedulingQueue) removeLocked(k string) {
	q.activeQ.remove(k)
	delete(q.backoffQ, k)
	delete(q.unschedulable, k)
	delete(q.unschedSince, k)
	delete(q.gated, k)
}

// Pop waits for a pod in activeQ and takes the first by QueueSort; nil
// once the queue is closed.
func (q *SchedulingQueue) Pop() (*framework.QueuedPodInfo, int64) {
	q.mu.Lock()
	defer q.mu.Unlock()
	for q.activeQ.len() == 0 && !q.closed {
		q.cond.Wait()
	}
	if q.closed {
		return nil, 0
	}
	p := q.activeQ.pop()
	q.schedulingCycle++
	p.Attempts++
	if p.InitialAttemptTimestamp.IsZero() {
		p.InitialAttemptTimestamp = q.now()
	}
	q.inFlight[key(p.Pod)] = true
	return p, q.schedulingCycle
}

// Done: the pod's scheduling attempt is over (bound, or requeued).
func (q *SchedulingQueue) Done(pod *corev1.Pod) {
	q.mu.Lock()
	delete(q.inFlight, key(pod))
	q.mu.Unlock()
}

// AddUnschedulable puts back a pod that failed in podCycle: into
// unschedulablePods if no node fitted and nothing changed since, otherwise
// into backoffQ.
func (q *SchedulingQueue) AddUnschedulable(p *framework.QueuedPodInfo, podCycle int64, noNodeFits bool) {
	q.mu.Lock()
	defer q.mu.Unlock()
	k := key(p.Pod)
	delete(q.inFlight, k)
	q.removeLocked(k)
	p.Timestamp = q.now()
	if noNodeFits && q.moveRequestCycle < podCycle {
		q.unschedulable[k] = p
		q.unschedSince[k] = q.now()
		return
	}
	q.backoffQ[k] = p
}

// MoveAllToActiveOrBackoffQueue: something changed in the cluster (event
// names the change); every unschedulable pod gets another try.
// (Upstream asks each plugin's queueing hints which pods the event may
// help; here every pod is retried.)
func (q *SchedulingQueue) MoveAllToActiveOrBackoffQueue(event string) {
	q.mu.Lock()
	defer q.mu.Unlock()
	for k, p := range q.unschedulable {
		delete(q.unschedulable, k)
		delete(q.unschedSince, k)
		q.requeueLocked(p)
	}
	q.ungateLocked()
	q.moveRequestCycle = q.schedulingCycle
}

// ungateLocked asks PreEnqueue again about every gated pod.
func (q *SchedulingQueue) ungateLocked() {
	for k, p := range q.gated {
		delete(q.gated, k)
		q.addOrGateLocked(p)
	}
}

// Activate moves pod to activeQ (through PreEnqueue) from wherever it
// waits: a plugin knows it is worth trying now (upstream: Activate).
func (q *SchedulingQueue) Activate(pod *corev1.Pod) {
	q.mu.Lock()
	defer q.mu.Unlock()
	k := key(pod)
	p, ok := q.unschedulable[k]
	if !ok {
		p, ok = q.backoffQ[k]
	}
	if !ok {
		p, ok = q.gated[k]
	}
	if !ok {
		return // in activeQ, being scheduled, or gone
	}
	q.removeLocked(k)
	q.addOrGateLocked(p)
}

// MovePodsRejectedBy is MoveAllToActiveOrBackoffQueue for an event only
// some plugins care about: it retries the unschedulable pods that one of
// plugins rejected, and leaves the others waiting (a cheap form of
// upstream's queueing hints: a pod bound elsewhere does not make a pod
// that asked for too much cpu fit).
func (q *SchedulingQueue) MovePodsRejectedBy(event string, plugins ...string) {
	q.mu.Lock()
	defer q.mu.Unlock()
	for k, p := range q.unschedulable {
		for _, pl := range plugins {
			if p.UnschedulablePlugins[pl] {
				delete(q.unschedulable, k)
				delete(q.unschedSince, k)
				q.requeueLocked(p)
				break
			}
		}
	}
	q.ungateLocked()
	q.moveRequestCycle = q.schedulingCycle
}

// requeueLocked: to backoffQ if the pod is still backing off, else activeQ.
func (q *SchedulingQueue) requeueLocked(p *framework.QueuedPodInfo) {
	if q.now().Before(q.backoffExpiry(p)) {
		q.backoffQ[key(p.Pod)] = p
		return
	}
	q.addOrGateLocked(p)
}

// backoffExpiry: the last attempt plus 1s doubled per attempt, at most 10s.
func (q *SchedulingQueue) backoffExpiry(p *framework.QueuedPodInfo) time.Time {
	d := PodInitialBackoff
	for i := 1; i < p.Attempts && d < PodMaxBackoff; i++ {
		d *= 2
	}
	return p.Timestamp.Add(min(d, PodMaxBackoff))
}

func (q *SchedulingQueue) flushBackoffQCompleted() {
	q.mu.Lock()
	defer q.mu.Unlock()
	for k, p := range q.backoffQ {
		if !q.now().Before(q.backoffExpiry(p)) {
			delete(q.backoffQ, k)
			q.addOrGateLocked(p)
		}
	}
}

func (q *SchedulingQueue) flushUnschedulablePodsLeftover() {
	q.mu.Lock()
	defer q.mu.Unlock()
	for k, p := range q.unschedulable {
		if q.now().Sub(q.unschedSince[k]) >= PodMaxInUnschedulablePodsDuration {
			delete(q.unschedulable, k)
			delete(q.unschedSince, k)
			q.requeueLocked(p)
		}
	}
}

// Lens reports the sizes of activeQ, backoffQ and unschedulablePods.
func (q *SchedulingQueue) Lens() (active, backoff, unschedulable int) {
	q.mu.Lock()
	defer q.mu.Unlock()
	return q.activeQ.len(), len(q.backoffQ), len(q.unschedulable)
}
