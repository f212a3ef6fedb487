package kubelet

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"kubik/ch04-controllers/record"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"kubik/ch01-apiserver/api/corev1"
	"kubik/ch01-apiserver/api/resource"
)

// The kubelet's volume manager, simplified from upstream's
// pkg/kubelet/volumemanager and the volume plugins of pkg/volume. Before
// a pod's sandbox starts, every volume of its spec is set up on the node,
// under the pod's directory, as upstream lays it out:
//
//	<root-dir>/pods/<pod uid>/volumes/kubernetes.io~empty-dir/<name>   a directory (medium Memory: a tmpfs)
//	<root-dir>/pods/<pod uid>/volumes/kubernetes.io~configmap/<name>   files written by an AtomicWriter
//	<root-dir>/pods/<pod uid>/volumes/kubernetes.io~secret/<name>      the same, on a tmpfs (never on disk)
//	<root-dir>/pods/<pod uid>/volumes/kubernetes.io~downward-api/<name>
//	<root-dir>/pods/<pod uid>/volumes/kubernetes.io~projected/<name>   token, ca.crt, namespace ... on a tmpfs
//	<root-dir>/pods/<pod uid>/containers/<container>/<id>              a container's termination-log file
//
// hostPath volumes (and PVCs bound to hostPath or local PVs) are the
// node's own paths. The containers get them as CRI Mounts (containerMounts);
// the runtime bind-mounts them. A volume that cannot be set up (its
// ConfigMap missing, its PVC not bound) keeps the pod in ContainerCreating
// with a FailedMount event, and is tried again with back-off. Every minute
// the API-data volumes are written again from the current objects (a
// ConfigMap edit reaches the running pod), and a projected token when it
// is due for a refresh. When the pod is removed, its tmpfs mounts are
// unmounted and its directory removed.
//
// Simplified against upstream: no attach/detach, no CSI or network
// volumes, no fsGroup or SELinux, no volume metrics; API objects are read
// with a GET on each (re)sync instead of watched caches.

// volumeResyncPeriod is how often the API-data volumes are written again
// (upstream: the pod's periodic sync, every minute).
const volumeResyncPeriod = time.Minute

// Upstream's retry of a failed mount (nestedpendingoperations): 500 ms
// doubling to 2m2s.
const (
	mountRetryInitial = 500 * time.Millisecond
	mountRetryMax     = 2*time.Minute + 2*time.Second
)

// volumeManager is the kubelet's record of what it set up.
type volumeManager struct {
	mu      sync.Mutex
	mounted map[string]map[string]*mountedVolume // pod UID -> volume name -> what is set up
	failed  map[string]*mountFailure             // pod UID/volume -> when to try again
	tokens  *tokenManager
}

// mountedVolume is a volume set up on the node.
type mountedVolume struct {
	Path     string    // on the node: what the containers' mounts bind
	ReadOnly bool      // mounted read-only whatever the volumeMount says (API data, readOnly PVCs)
	SyncedAt time.Time // when its files were last written (API-data volumes)
	resync   bool      // API data: written again every volumeResyncPeriod
}

type mountFailure struct {
	delay   time.Duration
	retryAt time.Time
}

func (k *Kubelet) podDir(uid string) string {
	return filepath.Join(k.cfg.RootDir, "pods", uid)
}

// volumeDir is <pod dir>/volumes/kubernetes.io~<plugin>/<name>.
func (k *Kubelet) volumeDir(uid, plugin, name string) string {
	return filepath.Join(k.podDir(uid), "volumes", "kubernetes.io~"+plugin, name)
}

func (k *Kubelet) tokenManager() *tokenManager {
	k.volumes.mu.Lock()
	defer k.volumes.mu.Unlock()
	if k.volumes.tokens == nil {
		k.volumes.tokens = newTokenManager(k.c)
	}
	return k.volumes.tokens
}

// mountedVolumes is a copy of the pod's set-up volumes.
func (k *Kubelet) mountedVolumes(uid string) map[string]mountedVolume {
	k.volumes.mu.Lock()
	defer k.volumes.mu.Unlock()
	out := map[string]mountedVolume{}
	for name, mv := range k.volumes.mounted[uid] {
		out[name] = *mv
	}
	return out
}

// mountVolumes sets up the pod's volumes that are not set up yet and
// refreshes the API-data ones that are due. It returns an error when a
// volume the containers need is not set up: the sandbox must wait.
// A failed refresh leaves the volume's previous contents.
func (k *Kubelet) mountVolumes(ctx context.Context, pod *corev1.Pod) error {
	if k.cfg.RootDir == "" {
		return nil // no volume support configured (unit tests)
	}
	have := k.mountedVolumes(pod.UID)
	var unmounted []string
	var firstErr error
	for i := range pod.Spec.Volumes {
		v := &pod.Spec.Volumes[i]
		mv, done := have[v.Name]
		if done && !(mv.resync && (time.Since(mv.SyncedAt) >= volumeResyncPeriod ||
			(v.Projected != nil && k.tokenManager().dueForRefresh(pod.UID)))) {
			continue
		}
		failKey := pod.UID + "/" + v.Name
		if !done && !k.mountRetryDue(failKey) {
			unmounted = append(unmounted, v.Name)
			continue
		}
		got, err := k.setUpVolume(ctx, pod, v, done)
		if err != nil {
			k.podEvent(pod, corev1.EventTypeWarning, "FailedMount", "MountVolume.SetUp failed for volume %q : %v", v.Name, err)
			k.log.Warn("volume set-up failed", "pod", pod.Namespace+"/"+pod.Name, "volume", v.Name, "err", err)
			switch {
			case done:
				got = mv // a failed refresh keeps the old contents; next try in a period
			case k.reconstructVolume(pod, v, &got):
				k.log.Info("volume found on disk", "pod", pod.Namespace+"/"+pod.Name, "volume", v.Name, "path", got.Path)
			default:
				k.mountFailed(failKey)
				unmounted = append(unmounted, v.Name)
				firstErr = cmp.Or(firstErr, err)
				continue
			}
		} else if !done {
			k.log.Info("volume set up", "pod", pod.Namespace+"/"+pod.Name, "volume", v.Name, "path", got.Path)
		}
		got.SyncedAt = time.Now()
		k.volumes.mu.Lock()
		if k.volumes.mounted == nil {
			k.volumes.mounted = map[string]map[string]*mountedVolume{}
		}
		if k.volumes.mounted[pod.UID] == nil {
			k.volumes.mounted[pod.UID] = map[string]*mountedVolume{}
		}
		k.volumes.mounted[pod.UID][v.Name] = &got
		delete(k.volumes.failed, failKey)
		k.volumes.mu.Unlock()
	}
	if len(unmounted) > 0 {
		return fmt.Errorf("unmounted volumes=[%s]: %w", strings.Join(unmounted, " "), cmp.Or(firstErr, errors.New("waiting to retry")))
	}
	return nil
}

// mountRetryDue: has key's back-off after its last failure passed?
func (k *Kubelet) mountRetryDue(key string) bool {
	k.volumes.mu.Lock()
	defer k.volumes.mu.Unlock()
	f := k.volumes.failed[key]
	return f == nil || !time.Now().Before(f.retryAt)
}

func (k *Kubelet) mountFailed(key string) {
	k.volumes.mu.Lock()
	defer k.volumes.mu.Unlock()
	if k.volumes.failed == nil {
		k.volumes.failed = map[string]*mountFailure{}
	}
	f := k.volumes.failed[key]
	if f == nil {
		f = &mountFailure{}
		k.volumes.failed[key] = f
	}
	f.delay = min(max(mountRetryInitial, 2*f.delay), mountRetryMax)
	f.retryAt = time.Now().Add(f.delay)
}

// podEvent records an Event about the pod itself (no container).
func (k *Kubelet) podEvent(pod *corev1.Pod, eventType, reason, format string, args ...any) {
	k.rec.Eventf(record.RefFor(&pod.ObjectMeta, "v1", "Pod"), eventType, reason, format, args...)
}

// setUpVolume is the volume plugins' SetUp: what is read from the
// apiserver is read first, so that a missing object leaves nothing
// half-written on the node. again: the volume is set up and only its
// contents are refreshed.
func (k *Kubelet) setUpVolume(ctx context.Context, pod *corev1.Pod, v *corev1.Volume, again bool) (mountedVolume, error) {
	switch {
	case v.EmptyDir != nil:
		dir := k.volumeDir(pod.UID, "empty-dir", v.Name)
		switch v.EmptyDir.Medium {
		case corev1.StorageMediumDefault:
			return mountedVolume{Path: dir}, makeVolumeDir(dir)
		case corev1.StorageMediumMemory:
			size := emptyDirMemorySize(machineAllocatable().Memory, v.EmptyDir.SizeLimit, pod)
			return mountedVolume{Path: dir}, setUpTmpfs(dir, size)
		}
		return mountedVolume{}, fmt.Errorf("unsupported emptyDir medium %q", v.EmptyDir.Medium)

	case v.HostPath != nil:
		t := corev1.HostPathUnset
		if v.HostPath.Type != nil {
			t = *v.HostPath.Type
		}
		return mountedVolume{Path: v.HostPath.Path}, checkHostPathType(v.HostPath.Path, t)

	case v.ConfigMap != nil:
		src := v.ConfigMap
		cm, err := k.getConfigMap(ctx, pod.Namespace, src.Name, isOptional(src.Optional))
		if err != nil {
			return mountedVolume{}, err
		}
		payload, err := configMapPayload(src.Items, cm, src.DefaultMode, isOptional(src.Optional))
		if err != nil {
			return mountedVolume{}, err
		}
		return k.writeVolume(pod, "configmap", v.Name, false, payload, again)

	case v.Secret != nil:
		src := v.Secret
		s, err := k.getSecret(ctx, pod.Namespace, src.SecretName, isOptional(src.Optional))
		if err != nil {
			return mountedVolume{}, err
		}
		payload, err := secretPayload(src.Items, s, src.DefaultMode, isOptional(src.Optional))
		if err != nil {
			return mountedVolume{}, err
		}
		return k.writeVolume(pod, "secret", v.Name, true, payload, again)

	case v.DownwardAPI != nil:
		payload, err := downwardAPIPayload(v.DownwardAPI.Items, pod, machineAllocatable(), v.DownwardAPI.DefaultMode)
		if err != nil {
			return mountedVolume{}, err
		}
		return k.writeVolume(pod, "downward-api", v.Name, false, payload, again)

	case v.Projected != nil:
		payload, err := k.projectedPayload(ctx, pod, v.Projected)
		if err != nil {
			return mountedVolume{}, err
		}
		return k.writeVolume(pod, "projected", v.Name, true, payload, again)

	case v.PersistentVolumeClaim != nil:
		return k.pvcVolume(ctx, pod, v.PersistentVolumeClaim)
	}
	return mountedVolume{}, errors.New("no volume plugin matched")
}

// reconstructVolume finds an API-data volume a previous kubelet wrote
// (its ..data link is there): after a restart, a pod that runs keeps it
// even if its source is gone now — upstream reconstructs volumes from
// disk the same way. mv is filled in when found.
func (k *Kubelet) reconstructVolume(pod *corev1.Pod, v *corev1.Volume, mv *mountedVolume) bool {
	var plugin string
	switch {
	case v.ConfigMap != nil:
		plugin = "configmap"
	case v.Secret != nil:
		plugin = "secret"
	case v.DownwardAPI != nil:
		plugin = "downward-api"
	case v.Projected != nil:
		plugin = "projected"
	default:
		return false
	}
	dir := k.volumeDir(pod.UID, plugin, v.Name)
	if _, err := os.Lstat(filepath.Join(dir, dataDirName)); err != nil {
		return false
	}
	*mv = mountedVolume{Path: dir, ReadOnly: true, resync: true}
	return true
}

// writeVolume writes an API-data volume: its directory (on a tmpfs for
// secrets and projected volumes, as upstream wraps them in a
// memory-backed emptyDir), then the payload through an AtomicWriter. A
// first set-up that fails is undone.
func (k *Kubelet) writeVolume(pod *corev1.Pod, plugin, name string, tmpfs bool, payload map[string]FileProjection, again bool) (mountedVolume, error) {
	dir := k.volumeDir(pod.UID, plugin, name)
	mv := mountedVolume{Path: dir, ReadOnly: true, resync: true}
	var err error
	if !again {
		if tmpfs {
			err = setUpTmpfs(dir, emptyDirMemorySize(machineAllocatable().Memory, nil, pod))
		} else {
			err = makeVolumeDir(dir)
		}
		if err != nil {
			return mv, err
		}
	}
	w, err := NewAtomicWriter(dir)
	if err == nil {
		err = w.Write(payload)
	}
	if err != nil && !again {
		tearDownVolumeDir(dir)
	}
	return mv, err
}

// makeVolumeDir creates a plain volume directory, 0777 like upstream's
// emptyDir: any container user may write into it.
func makeVolumeDir(dir string) error {
	if err := os.MkdirAll(dir, 0o750); err != nil {
		return err
	}
	return os.Chmod(dir, 0o777)
}

// setUpTmpfs creates dir and mounts a tmpfs of size bytes on it (once).
func setUpTmpfs(dir string, size int64) error {
	if err := makeVolumeDir(dir); err != nil {
		return err
	}
	if isMountPoint(dir) {
		return nil
	}
	return mountTmpfs(dir, size)
}

// tearDownVolumeDir unmounts dir if it is a mount point and removes it.
func tearDownVolumeDir(dir string) {
	if isMountPoint(dir) {
		if err := unmount(dir); err != nil {
			return // never remove what is still mounted
		}
	}
	os.RemoveAll(dir)
}

// emptyDirMemorySize is upstream's calculateEmptyDirMemorySize: the node's
// memory, or less: the pod's memory limit (when every container has one),
// or less: the volume's sizeLimit.
func emptyDirMemorySize(nodeMemory int64, sizeLimit *resource.Quantity, pod *corev1.Pod) int64 {
	size := nodeMemory
	if lim := podMemoryLimit(pod); lim > 0 && lim <= size {
		size = lim
	}
	if sizeLimit != nil {
		if s := sizeLimit.Value(); s > 0 && s <= size {
			size = s
		}
	}
	return size
}

// podMemoryLimit: the sum of the containers' memory limits (at least the
// largest init container's), or 0 when a container has none.
func podMemoryLimit(pod *corev1.Pod) int64 {
	var sum, initMax int64
	for _, c := range pod.Spec.Containers {
		q, ok := c.Resources.Limits[corev1.ResourceMemory]
		if !ok {
			return 0
		}
		sum += q.Value()
	}
	for _, c := range pod.Spec.InitContainers {
		q, ok := c.Resources.Limits[corev1.ResourceMemory]
		if !ok {
			return 0
		}
		initMax = max(initMax, q.Value())
	}
	return max(sum, initMax)
}
