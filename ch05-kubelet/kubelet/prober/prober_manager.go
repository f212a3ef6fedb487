package prober

import (
	"context"
	"log/slog"
	"strings"
	"sync"
	"time"

	"kubik/ch01-apiserver/api/corev1"
	"kubik/ch05-kubelet/kubelet/probe"
)

// StatusProvider is where the workers read a pod's last status: which
// container runs under which ID, its state, the pod's IP (upstream's
// status.Manager's GetPodStatus).
type StatusProvider interface {
	GetPodStatus(uid string) (corev1.PodStatus, bool)
}

// probeKey names a worker.
type probeKey struct {
	podUID, container string
	probeType         probeType
}

// Manager runs the workers and holds their results (upstream's
// prober.Manager).
type Manager struct {
	prober                       *prober
	statuses                     StatusProvider
	liveness, readiness, startup *resultsCache
	log                          *slog.Logger
	now                          func() time.Time // time.Now; a fake clock in tests
	start                        time.Time        // when the kubelet started: probes spread out after it

	mu      sync.Mutex
	workers map[probeKey]*worker
}

// NewManager returns a Manager whose probes run commands with runner and
// connect through dial; event records their events, onUpdate is called
// with the pod when a verdict changes (the kubelet syncs it again).
func NewManager(statuses StatusProvider, runner probe.CommandRunner, dial probe.DialFunc, event EventFunc, onUpdate func(*corev1.Pod), log *slog.Logger) *Manager {
	return &Manager{
		prober:    &prober{runner: runner, dial: dial, event: event},
		statuses:  statuses,
		liveness:  newResultsCache(onUpdate),
		readiness: newResultsCache(onUpdate),
		startup:   newResultsCache(onUpdate),
		log:       log, now: time.Now, start: time.Now(),
		workers: map[probeKey]*worker{},
	}
}

// AddPod starts the workers of pod's probes that are not running yet.
func (m *Manager) AddPod(ctx context.Context, pod *corev1.Pod) {
	m.mu.Lock()
	defer m.mu.Unlock()
	for _, c := range pod.Spec.Containers {
		for t, spec := range [...]*corev1.Probe{liveness: c.LivenessProbe, readiness: c.ReadinessProbe, startup: c.StartupProbe} {
			key := probeKey{pod.UID, c.Name, probeType(t)}
			if _, ok := m.workers[key]; spec == nil || ok {
				continue
			}
			w := newWorker(m, probeType(t), pod, c)
			m.workers[key] = w
			go w.run(ctx)
		}
	}
}

// StopLivenessAndStartup stops the workers that could kill a container:
// the pod is being deleted, its containers stop anyway.
func (m *Manager) StopLivenessAndStartup(pod *corev1.Pod) {
	m.stopWorkers(pod.UID, liveness, startup)
}

// RemovePod stops every worker of the pod.
func (m *Manager) RemovePod(uid string) {
	m.stopWorkers(uid, liveness, readiness, startup)
}

func (m *Manager) stopWorkers(uid string, types ...probeType) {
	m.mu.Lock()
	defer m.mu.Unlock()
	for key, w := range m.workers {
		for _, t := range types {
			if key.podUID == uid && key.probeType == t {
				w.stop()
			}
		}
	}
}

func (m *Manager) removeWorker(w *worker) {
	m.mu.Lock()
	defer m.mu.Unlock()
	key := probeKey{w.pod.UID, w.container.Name, w.probeType}
	if m.workers[key] == w {
		delete(m.workers, key)
	}
}

// ProbedContainer is what the probes say of a running container.
type ProbedContainer struct{ Started, Ready bool }

// Probed is the started and ready of each running container of pod, by
// container ID, from the cached results (upstream's UpdatePodStatus).
// running maps the names of the pod's running containers to their IDs.
// A container with a startup probe is started once that probe succeeded;
// a started container is ready when its readiness probe last succeeded,
// or when it has none. Before its first readiness result a container is
// not ready.
func (m *Manager) Probed(pod *corev1.Pod, running map[string]string) map[string]ProbedContainer {
	out := map[string]ProbedContainer{}
	for _, c := range pod.Spec.Containers {
		id, ok := running[c.Name]
		if !ok {
			continue
		}
		started := c.StartupProbe == nil
		if r, ok := m.startup.get(id); ok {
			started = r == resultSuccess
		}
		ready := false
		if started {
			r, ok := m.readiness.get(id)
			ready = (ok && r == resultSuccess) || c.ReadinessProbe == nil
		}
		out[id] = ProbedContainer{Started: started, Ready: ready}
	}
	return out
}

// LivenessFailed reports whether the liveness probe of the container
// with this ID decided Failure: the kubelet kills it.
func (m *Manager) LivenessFailed(containerID string) bool {
	r, ok := m.liveness.get(containerID)
	return ok && r == resultFailure
}

// StartupFailed reports whether the startup probe of the container with
// this ID decided Failure: the kubelet kills it.
func (m *Manager) StartupFailed(containerID string) bool {
	r, ok := m.startup.get(containerID)
	return ok && r == resultFailure
}

// trimContainerID is a status's containerID without its runtime prefix:
// the ID the CRI and the results caches use.
func trimContainerID(id string) string {
	if _, after, ok := strings.Cut(id, "://"); ok {
		return after
	}
	return id
}
