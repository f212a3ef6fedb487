package volumemanager

// The volume plugins' SetUp (upstream's pkg/volume/emptydir, hostpath,
// configmap, secret, downwardapi, projected and the PVC's local and
// hostPath volumes), reduced to what a kubelet without attach/detach
// needs: a directory, a tmpfs, or files written by an atomicWriter.

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"kubik/ch01-apiserver/api/corev1"
	"kubik/ch01-apiserver/api/resource"
)

func isOptional(b *bool) bool { return b != nil && *b }

// setUpVolume is the volume plugins' SetUp: what is read from the
// apiserver is read first, so that a missing object leaves nothing
// half-written on the node. again: the volume is set up and only its
// contents are refreshed.
func (m *Manager) setUpVolume(ctx context.Context, pod *corev1.Pod, v *corev1.Volume, again bool) (MountedVolume, error) {
	switch {
	case v.EmptyDir != nil:
		dir := m.volumeDir(pod.UID, "empty-dir", v.Name)
		switch v.EmptyDir.Medium {
		case corev1.StorageMediumDefault:
			return MountedVolume{Path: dir}, makeVolumeDir(dir)
		case corev1.StorageMediumMemory:
			size := emptyDirMemorySize(m.allocatable().Memory, v.EmptyDir.SizeLimit, pod)
			return MountedVolume{Path: dir}, setUpTmpfs(dir, size)
		}
		return MountedVolume{}, fmt.Errorf("unsupported emptyDir medium %q", v.EmptyDir.Medium)

	case v.HostPath != nil:
		t := corev1.HostPathUnset
		if v.HostPath.Type != nil {
			t = *v.HostPath.Type
		}
		return MountedVolume{Path: v.HostPath.Path}, checkHostPathType(v.HostPath.Path, t)

	case v.ConfigMap != nil:
		src := v.ConfigMap
		cm, err := m.getConfigMap(ctx, pod.Namespace, src.Name, isOptional(src.Optional))
		if err != nil {
			return MountedVolume{}, err
		}
		payload, err := configMapPayload(src.Items, cm, src.DefaultMode, isOptional(src.Optional))
		if err != nil {
			return MountedVolume{}, err
		}
		return m.writeVolume(pod, "configmap", v.Name, false, payload, again)

	case v.Secret != nil:
		src := v.Secret
		s, err := m.getSecret(ctx, pod.Namespace, src.SecretName, isOptional(src.Optional))
		if err != nil {
			return MountedVolume{}, err
		}
		payload, err := secretPayload(src.Items, s, src.DefaultMode, isOptional(src.Optional))
		if err != nil {
			return MountedVolume{}, err
		}
		return m.writeVolume(pod, "secret", v.Name, true, payload, again)

	case v.DownwardAPI != nil:
		payload, err := downwardAPIPayload(v.DownwardAPI.Items, pod, m.allocatable(), v.DownwardAPI.DefaultMode)
		if err != nil {
			return MountedVolume{}, err
		}
		return m.writeVolume(pod, "downward-api", v.Name, false, payload, again)

	case v.Projected != nil:
		payload, err := m.projectedPayload(ctx, pod, v.Projected)
		if err != nil {
			return MountedVolume{}, err
		}
		return m.writeVolume(pod, "projected", v.Name, true, payload, again)

	case v.PersistentVolumeClaim != nil:
		return m.pvcVolume(ctx, pod, v.PersistentVolumeClaim)
	}
	return MountedVolume{}, errors.New("no volume plugin matched")
}

// reconstructVolume finds an API-data volume a previous kubelet wrote
// (its ..data link is there): after a restart, a pod that runs keeps it
// even if its source is gone now — upstream reconstructs volumes from
// disk the same way. mv is filled in when found.
func (m *Manager) reconstructVolume(pod *corev1.Pod, v *corev1.Volume, mv *MountedVolume) bool {
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
	dir := m.volumeDir(pod.UID, plugin, v.Name)
	if _, err := os.Lstat(filepath.Join(dir, dataDirName)); err != nil {
		return false
	}
	*mv = MountedVolume{Path: dir, ReadOnly: true, resync: true}
	return true
}

// writeVolume writes an API-data volume: its directory (on a tmpfs for
// secrets and projected volumes, as upstream wraps them in a
// memory-backed emptyDir), then the payload through an atomicWriter. A
// first set-up that fails is undone.
func (m *Manager) writeVolume(pod *corev1.Pod, plugin, name string, tmpfs bool, payload map[string]fileProjection, again bool) (MountedVolume, error) {
	dir := m.volumeDir(pod.UID, plugin, name)
	mv := MountedVolume{Path: dir, ReadOnly: true, resync: true}
	var err error
	if !again {
		if tmpfs {
			err = setUpTmpfs(dir, emptyDirMemorySize(m.allocatable().Memory, nil, pod))
		} else {
			err = makeVolumeDir(dir)
		}
		if err != nil {
			return mv, err
		}
	}
	w, err := newAtomicWriter(dir)
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
