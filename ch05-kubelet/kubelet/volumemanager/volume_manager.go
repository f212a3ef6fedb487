// Package volumemanager sets up the volumes of the kubelet's pods on the
// node and tears them down: upstream's pkg/kubelet/volumemanager with the
// volume plugins of pkg/volume (emptydir, hostpath, configmap, secret,
// downwardapi, projected, the PVC's local and hostPath volumes), its
// atomicWriter (pkg/volume/util) and the service-account token manager
// (pkg/kubelet/token), simplified. Before a pod's sandbox starts, every
// volume of its spec is set up under the pod's directory, as upstream
// lays it out:
//
//	<root-dir>/pods/<pod uid>/volumes/kubernetes.io~empty-dir/<name>   a directory (medium Memory: a tmpfs)
//	<root-dir>/pods/<pod uid>/volumes/kubernetes.io~configmap/<name>   files written by an atomicWriter
//	<root-dir>/pods/<pod uid>/volumes/kubernetes.io~secret/<name>      the same, on a tmpfs (never on disk)
//	<root-dir>/pods/<pod uid>/volumes/kubernetes.io~downward-api/<name>
//	<root-dir>/pods/<pod uid>/volumes/kubernetes.io~projected/<name>   token, ca.crt, namespace ... on a tmpfs
//
// hostPath volumes (and PVCs bound to hostPath or local PVs) are the
// node's own paths. The kubelet turns what is set up into the containers'
// CRI Mounts; the runtime bind-mounts them. A volume that cannot be set
// up (its ConfigMap missing, its PVC not bound) keeps the pod in
// ContainerCreating with a FailedMount event, and is tried again with
// back-off. Every minute the API-data volumes are written again from the
// current objects (a ConfigMap edit reaches the running pod), and a
// projected token when it is due for a refresh. When the pod is removed,
// its tmpfs mounts are unmounted and its directory removed.
//
// Simplified against upstream: no attach/detach, no CSI or network
// volumes, no fsGroup or SELinux, no volume metrics; API objects are read
// with a GET on each (re)sync instead of watched caches; no desired and
// actual state of the world with a reconciler: the pod's sync sets its
// volumes up.
package volumemanager

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"kubik/ch01-apiserver/api/corev1"
	"kubik/ch03-scheduler/clientgo/rest"
	"kubik/ch04-controllers/record"
)

// volumeResyncPeriod is how often the API-data volumes are written again
// (upstream: the pod's periodic sync, every minute).
const volumeResyncPeriod = time.Minute

// Upstream's retry of a failed mount (nestedpendingoperations): 500 ms
// doubling to 2m2s.
const (
	mountRetryInitial = 500 * time.Millisecond
	mountRetryMax     = 2*time.Minute + 2*time.Second
)

// NodeAllocatable stands in for limits a container does not set, in the
// downward API and in the size of a memory-backed emptyDir (upstream: the
// node's allocatable resources).
type NodeAllocatable struct {
	MilliCPU int64
	Memory   int64
}

// Manager is the kubelet's volume manager: what it set up for each pod.
type Manager struct {
	rootDir     string
	client      *rest.Client // ConfigMaps, Secrets, PVCs, PVs, service-account tokens
	recorder    *record.Recorder
	allocatable func() NodeAllocatable
	log         *slog.Logger
	tokens      *tokenManager

	mu      sync.Mutex
	mounted map[string]map[string]*MountedVolume // pod UID -> volume name -> what is set up
	failed  map[string]*mountFailure             // pod UID/volume -> when to try again
}

// MountedVolume is a volume set up on the node.
type MountedVolume struct {
	Path     string // on the node: what the containers' mounts bind
	ReadOnly bool   // mounted read-only whatever the volumeMount says (API data, readOnly PVCs)
	syncedAt time.Time
	resync   bool // API data: written again every volumeResyncPeriod
}

type mountFailure struct {
	delay   time.Duration
	retryAt time.Time
}

// New returns the volume manager of a kubelet whose --root-dir is rootDir
// (empty: no volume support, for unit tests). It reads the volumes' API
// objects with c, records FailedMount events with recorder and logs to
// log; allocatable is the node's allocatable CPU and memory.
func New(rootDir string, c *rest.Client, recorder *record.Recorder, allocatable func() NodeAllocatable, log *slog.Logger) *Manager {
	return &Manager{rootDir: rootDir, client: c, recorder: recorder, allocatable: allocatable, log: log,
		tokens: newTokenManager(c)}
}

func (m *Manager) podDir(uid string) string {
	return filepath.Join(m.rootDir, "pods", uid)
}

// volumeDir is <pod dir>/volumes/kubernetes.io~<plugin>/<name>.
func (m *Manager) volumeDir(uid, plugin, name string) string {
	return filepath.Join(m.podDir(uid), "volumes", "kubernetes.io~"+plugin, name)
}

// GetMountedVolumesForPod is a copy of the pod's set-up volumes, by name.
func (m *Manager) GetMountedVolumesForPod(uid string) map[string]MountedVolume {
	m.mu.Lock()
	defer m.mu.Unlock()
	out := map[string]MountedVolume{}
	for name, mv := range m.mounted[uid] {
		out[name] = *mv
	}
	return out
}

// WaitForAttachAndMount sets up the pod's volumes that are not set up yet
// and refreshes the API-data ones that are due. It returns an error when a
// volume the containers need is not set up: the sandbox must wait.
// A failed refresh leaves the volume's previous contents.
func (m *Manager) WaitForAttachAndMount(ctx context.Context, pod *corev1.Pod) error {
	if m.rootDir == "" {
		return nil // no volume support configured (unit tests)
	}
	have := m.GetMountedVolumesForPod(pod.UID)
	var unmounted []string
	var firstErr error
	for i := range pod.Spec.Volumes {
		v := &pod.Spec.Volumes[i]
		mv, done := have[v.Name]
		if done && !(mv.resync && (time.Since(mv.syncedAt) >= volumeResyncPeriod ||
			(v.Projected != nil && m.tokens.dueForRefresh(pod.UID)))) {
			continue
		}
		failKey := pod.UID + "/" + v.Name
		if !done && !m.mountRetryDue(failKey) {
			unmounted = append(unmounted, v.Name)
			continue
		}
		got, err := m.setUpVolume(ctx, pod, v, done)
		if err != nil {
			m.podEvent(pod, corev1.EventTypeWarning, "FailedMount", "MountVolume.SetUp failed for volume %q : %v", v.Name, err)
			m.log.Warn("volume set-up failed", "pod", pod.Namespace+"/"+pod.Name, "volume", v.Name, "err", err)
			switch {
			case done:
				got = mv // a failed refresh keeps the old contents; next try in a period
			case m.reconstructVolume(pod, v, &got):
				m.log.Info("volume found on disk", "pod", pod.Namespace+"/"+pod.Name, "volume", v.Name, "path", got.Path)
			default:
				m.mountFailed(failKey)
				unmounted = append(unmounted, v.Name)
				firstErr = cmp.Or(firstErr, err)
				continue
			}
		} else if !done {
			m.log.Info("volume set up", "pod", pod.Namespace+"/"+pod.Name, "volume", v.Name, "path", got.Path)
		}
		got.syncedAt = time.Now()
		m.mu.Lock()
		if m.mounted == nil {
			m.mounted = map[string]map[string]*MountedVolume{}
		}
		if m.mounted[pod.UID] == nil {
			m.mounted[pod.UID] = map[string]*MountedVolume{}
		}
		m.mounted[pod.UID][v.Name] = &got
		delete(m.failed, failKey)
		m.mu.Unlock()
	}
	if len(unmounted) > 0 {
		return fmt.Errorf("unmounted volumes=[%s]: %w", strings.Join(unmounted, " "), cmp.Or(firstErr, errors.New("waiting to retry")))
	}
	return nil
}

// mountRetryDue: has key's back-off after its last failure passed?
func (m *Manager) mountRetryDue(key string) bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	f := m.failed[key]
	return f == nil || !time.Now().Before(f.retryAt)
}

func (m *Manager) mountFailed(key string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.failed == nil {
		m.failed = map[string]*mountFailure{}
	}
	f := m.failed[key]
	if f == nil {
		f = &mountFailure{}
		m.failed[key] = f
	}
	f.delay = min(max(mountRetryInitial, 2*f.delay), mountRetryMax)
	f.retryAt = time.Now().Add(f.delay)
}

// podEvent records an Event about the pod itself (no container).
func (m *Manager) podEvent(pod *corev1.Pod, eventType, reason, format string, args ...any) {
	m.recorder.Eventf(record.RefFor(&pod.ObjectMeta, "v1", "Pod"), eventType, reason, format, args...)
}

// UnmountVolumes tears the pod's volumes down once its containers are
// gone: every mount under the pod's directory is unmounted, then the
// directory is removed — only when nothing is mounted there any more
// (a bind mount left there would make RemoveAll delete the node's files).
// The pod's service-account tokens are forgotten.
func (m *Manager) UnmountVolumes(uid string) error {
	if m.rootDir == "" || uid == "" {
		return nil
	}
	m.mu.Lock()
	delete(m.mounted, uid)
	for key := range m.failed {
		if strings.HasPrefix(key, uid+"/") {
			delete(m.failed, key)
		}
	}
	m.mu.Unlock()
	m.tokens.DeleteServiceAccountToken(uid)
	return RemovePodDir(m.podDir(uid))
}

// RemovePodDir unmounts what is mounted under dir, then removes it.
func RemovePodDir(dir string) error {
	for _, mp := range MountsUnder(dir) {
		if err := unmount(mp); err != nil {
			return fmt.Errorf("unmount %s: %w", mp, err)
		}
	}
	if left := MountsUnder(dir); len(left) > 0 {
		return fmt.Errorf("still mounted under %s: %v", dir, left)
	}
	return os.RemoveAll(dir)
}
