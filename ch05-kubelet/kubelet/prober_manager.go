package kubelet

// The probe manager (upstream's pkg/kubelet/prober/prober_manager.go and
// results/results_manager.go): one worker goroutine per pod, container and
// probe type, for as long as the pod lives; each worker probes every
// periodSeconds and caches its verdict per container ID. The sync loop
// reads the cache: readiness and startup become the container status's
// ready and started, a liveness or startup failure kills the container.

import (
	"context"
	"log/slog"
	"strings"
	"sync"
	"time"

	"kubik/ch01-apiserver/api/corev1"
)

// resultsCache holds one probe type's verdict per container ID and
// reports changes (upstream's results.Manager; its updates channel is our
// onUpdate: the pod is synced again).
type resultsCache struct {
	mu       sync.RWMutex
	results  map[string]result // container ID -> verdict
	onUpdate func(pod *corev1.Pod)
}

func newResultsCache(onUpdate func(*corev1.Pod)) *resultsCache {
	return &resultsCache{results: map[string]result{}, onUpdate: onUpdate}
}

func (c *resultsCache) get(id string) (result, bool) {
	c.mu.RLock()
	defer c.mu.RUnlock()
	r, ok := c.results[id]
	return r, ok
}

// set caches r for container id of pod; a change syncs the pod.
func (c *resultsCache) set(id string, r result, pod *corev1.Pod) {
	c.mu.Lock()
	prev, ok := c.results[id]
	c.results[id] = r
	c.mu.Unlock()
	if (!ok || prev != r) && c.onUpdate != nil {
		c.onUpdate(pod)
	}
}

func (c *resultsCache) remove(id string) {
	c.mu.Lock()
	delete(c.results, id)
	c.mu.Unlock()
}

// probeKey names a worker.
type probeKey struct {
	podUID, container string
	probeType         probeType
}

// probeManager runs the workers and holds their results.
type probeManager struct {
	prober                       *prober
	liveness, readiness, startup *resultsCache
	log                          *slog.Logger
	now                          func() time.Time // time.Now; a fake clock in tests
	start                        time.Time        // when the kubelet started: probes spread out after it

	mu      sync.Mutex
	workers map[probeKey]*worker
	// statuses are the pods' last computed statuses (the stand-in for
	// upstream's status manager): the workers read container IDs, states
	// and the pod's IP from them.
	statuses map[string]corev1.PodStatus
	// killing are the containers being killed for a failed probe
	// (container ID -> struct{}): one kill each.
	killing sync.Map
}

func newProbeManager(run commandRunner, nsPath string, event eventFunc, onUpdate func(*corev1.Pod), log *slog.Logger) *probeManager {
	return &probeManager{
		prober:    &prober{handlerRunner: handlerRunner{run: run, nsPath: nsPath}, event: event},
		liveness:  newResultsCache(onUpdate),
		readiness: newResultsCache(onUpdate),
		startup:   newResultsCache(onUpdate),
		log:       log, now: time.Now, start: time.Now(),
		workers: map[probeKey]*worker{}, statuses: map[string]corev1.PodStatus{},
	}
}

// addPod starts the workers of pod's probes that are not running yet.
func (m *probeManager) addPod(ctx context.Context, pod *corev1.Pod) {
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

// stopLivenessAndStartup stops the workers that could kill a container:
// the pod is being deleted, its containers stop anyway.
func (m *probeManager) stopLivenessAndStartup(pod *corev1.Pod) {
	m.stopWorkers(pod.UID, liveness, startup)
}

// removePod stops every worker of the pod and forgets its status.
func (m *probeManager) removePod(uid string) {
	m.stopWorkers(uid, liveness, readiness, startup)
	m.mu.Lock()
	delete(m.statuses, uid)
	m.mu.Unlock()
}

func (m *probeManager) stopWorkers(uid string, types ...probeType) {
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

func (m *probeManager) removeWorker(w *worker) {
	m.mu.Lock()
	defer m.mu.Unlock()
	key := probeKey{w.pod.UID, w.container.Name, w.probeType}
	if m.workers[key] == w {
		delete(m.workers, key)
	}
}

// setPodStatus records the status the sync loop computed for the pod.
func (m *probeManager) setPodStatus(uid string, st corev1.PodStatus) {
	m.mu.Lock()
	m.statuses[uid] = st
	m.mu.Unlock()
}

func (m *probeManager) podStatus(uid string) (corev1.PodStatus, bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	st, ok := m.statuses[uid]
	return st, ok
}

// probedContainer is what the probes say of a running container.
type probedContainer struct{ Started, Ready bool }

// probed is the started and ready of each running container of pod, from
// the cached results (upstream's UpdatePodStatus): a container with a
// startup probe is started once that probe succeeded; a started
// container is ready when its readiness probe last succeeded, or when it
// has none. Before its first readiness result a container is not ready.
func (m *probeManager) probed(pod *corev1.Pod, obs observedPod) map[string]probedContainer {
	out := map[string]probedContainer{}
	for _, c := range pod.Spec.Containers {
		cur, ok := obs.latest(c.Name)
		if !ok || cur.State != stateRunning {
			continue
		}
		started := c.StartupProbe == nil
		if r, ok := m.startup.get(cur.ID); ok {
			started = r == resultSuccess
		}
		ready := false
		if started {
			r, ok := m.readiness.get(cur.ID)
			ready = (ok && r == resultSuccess) || c.ReadinessProbe == nil
		}
		out[cur.ID] = probedContainer{Started: started, Ready: ready}
	}
	return out
}

// trimContainerID is a status's containerID without its runtime prefix:
// the ID the CRI and the results caches use.
func trimContainerID(id string) string {
	if _, after, ok := strings.Cut(id, "://"); ok {
		return after
	}
	return id
}
