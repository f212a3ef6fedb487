package kubelet

import (
	"sync"

	"kubik/ch01-apiserver/api/corev1"
)

// statusManager keeps the status the sync loop last computed for each pod
// (by UID), in memory only: the stand-in for upstream's
// pkg/kubelet/status manager, whose writes to the apiserver are
// writeStatus's. The probe workers read container IDs, states and the
// pod's IP from it (it is their prober.StatusProvider), the preStop hook
// the pod's IP.
type statusManager struct {
	mu       sync.Mutex
	statuses map[string]corev1.PodStatus
}

// GetPodStatus is the pod's last computed status.
func (m *statusManager) GetPodStatus(uid string) (corev1.PodStatus, bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	st, ok := m.statuses[uid]
	return st, ok
}

// SetPodStatus records the status the sync loop computed for the pod.
func (m *statusManager) SetPodStatus(uid string, st corev1.PodStatus) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.statuses == nil {
		m.statuses = map[string]corev1.PodStatus{}
	}
	m.statuses[uid] = st
}

// RemovePodStatus forgets a pod that is gone.
func (m *statusManager) RemovePodStatus(uid string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	delete(m.statuses, uid)
}
