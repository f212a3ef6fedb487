package prober

// A probe worker (upstream's pkg/kubelet/prober/worker.go): probes one
// container of one pod every periodSeconds and turns runs of results into
// a verdict: failureThreshold failures in a row make Failure,
// successThreshold successes in a row make Success.

import (
	"context"
	"math/rand/v2"
	"time"

	"kubik/ch01-apiserver/api/corev1"
)

type worker struct {
	m         *Manager
	pod       *corev1.Pod
	container corev1.Container
	spec      *corev1.Probe
	probeType probeType
	results   *resultsCache
	// initialValue is the verdict for a container not probed yet:
	// readiness Failure (not ready until proven), liveness Success (alive
	// until proven dead), startup Unknown (not started).
	initialValue result
	stopCh       chan struct{}

	containerID string // the container probed now; a restart brings a new one
	lastResult  result // the last run's result ...
	resultRun   int    // ... and how many runs in a row had it
	// onHold stops probing a container whose verdict is final: liveness
	// failed (it is being killed) or startup decided (it started, or it
	// failed and is being killed). A new container ID lifts it.
	onHold bool
}

func newWorker(m *Manager, t probeType, pod *corev1.Pod, c corev1.Container) *worker {
	w := &worker{m: m, pod: pod, container: c, probeType: t, stopCh: make(chan struct{}, 1)}
	switch t {
	case readiness:
		w.spec, w.results, w.initialValue = c.ReadinessProbe, m.readiness, resultFailure
	case liveness:
		w.spec, w.results, w.initialValue = c.LivenessProbe, m.liveness, resultSuccess
	case startup:
		w.spec, w.results, w.initialValue = c.StartupProbe, m.startup, resultUnknown
	}
	return w
}

// run probes every periodSeconds until stopped, the pod ends or ctx ends.
func (w *worker) run(ctx context.Context) {
	period := time.Duration(w.spec.PeriodSeconds) * time.Second
	if period <= 0 {
		period = 10 * time.Second
	}
	// Right after the kubelet starts, every pod's workers start at once:
	// a random delay spreads their probes over a period.
	if period > time.Since(w.m.start) {
		select {
		case <-time.After(rand.N(period)):
		case <-ctx.Done():
		}
	}
	ticker := time.NewTicker(period)
	defer func() {
		ticker.Stop()
		if w.containerID != "" {
			w.results.remove(w.containerID)
		}
		w.m.removeWorker(w)
	}()
	for ctx.Err() == nil && w.doProbe(ctx) {
		select {
		case <-w.stopCh:
			return
		case <-ctx.Done():
			return
		case <-ticker.C:
		}
	}
}

// stop ends run at its next tick; it never blocks.
func (w *worker) stop() {
	select {
	case w.stopCh <- struct{}{}:
	default:
	}
}

// doProbe probes once, if it is time, and updates the verdict. It reports
// whether the worker should keep going.
func (w *worker) doProbe(ctx context.Context) (keepGoing bool) {
	status, ok := w.m.statuses.GetPodStatus(w.pod.UID)
	if !ok {
		return true // not synced yet
	}
	if status.Phase == corev1.PodFailed || status.Phase == corev1.PodSucceeded {
		return false // the pod is done: no container will run again
	}
	var c *corev1.ContainerStatus
	for i := range status.ContainerStatuses {
		if status.ContainerStatuses[i].Name == w.container.Name {
			c = &status.ContainerStatuses[i]
		}
	}
	if c == nil || c.ContainerID == "" {
		return true // not created yet
	}
	if id := trimContainerID(c.ContainerID); w.containerID != id {
		// A new container (the first, or a restart): start over.
		if w.containerID != "" {
			w.results.remove(w.containerID)
		}
		w.containerID = id
		w.results.set(id, w.initialValue, w.pod)
		w.onHold = false
	}
	if w.onHold {
		return true
	}
	if c.State.Running == nil {
		// Exited: not ready, not alive. Keep going if it may restart.
		w.results.set(w.containerID, resultFailure, w.pod)
		return c.State.Terminated == nil || w.pod.Spec.RestartPolicy != corev1.RestartPolicyNever
	}
	if int32(w.m.now().Sub(c.State.Running.StartedAt.Time).Seconds()) < w.spec.InitialDelaySeconds {
		return true
	}
	// The startup probe runs until the container started; then the
	// others take over.
	if c.Started != nil && *c.Started {
		if w.probeType == startup {
			return true
		}
	} else if w.probeType != startup {
		return true
	}

	res, err := w.m.prober.probe(ctx, w.probeType, w.pod, status, w.container, w.containerID)
	if err != nil {
		// Could not probe (not the same as a failure): keep the verdict.
		w.m.log.Debug("probe errored", "probeType", w.probeType, "pod", w.pod.Namespace+"/"+w.pod.Name, "container", w.container.Name, "err", err)
		return true
	}
	if w.lastResult == res {
		w.resultRun++
	} else {
		w.lastResult, w.resultRun = res, 1
	}
	if (res == resultFailure && w.resultRun < int(w.spec.FailureThreshold)) ||
		(res == resultSuccess && w.resultRun < int(w.spec.SuccessThreshold)) {
		return true // not enough in a row to change the verdict
	}
	w.results.set(w.containerID, res, w.pod)
	if (w.probeType == liveness && res == resultFailure) || w.probeType == startup {
		// The container is about to be killed, or has started: no more
		// probing until a new one runs.
		w.onHold, w.resultRun = true, 0
	}
	return true
}
