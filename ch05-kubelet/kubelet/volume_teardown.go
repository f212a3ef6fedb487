package kubelet

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	cri "k8s.io/cri-api/pkg/apis/runtime/v1"
)

// unmountVolumes tears the pod's volumes down once its containers are
// gone: every mount under the pod's directory is unmounted, then the
// directory is removed — only when nothing is mounted there any more
// (a bind mount left there would make RemoveAll delete the node's files).
func (k *Kubelet) unmountVolumes(uid string) error {
	if k.cfg.RootDir == "" || uid == "" {
		return nil
	}
	k.volumes.mu.Lock()
	delete(k.volumes.mounted, uid)
	for key := range k.volumes.failed {
		if strings.HasPrefix(key, uid+"/") {
			delete(k.volumes.failed, key)
		}
	}
	tokens := k.volumes.tokens
	k.volumes.mu.Unlock()
	if tokens != nil {
		tokens.DeleteServiceAccountToken(uid)
	}
	return removePodDir(k.podDir(uid))
}

// removePodDir unmounts what is mounted under dir, then removes it.
func removePodDir(dir string) error {
	for _, m := range mountsUnder(dir) {
		if err := unmount(m); err != nil {
			return fmt.Errorf("unmount %s: %w", m, err)
		}
	}
	if left := mountsUnder(dir); len(left) > 0 {
		return fmt.Errorf("still mounted under %s: %v", dir, left)
	}
	return os.RemoveAll(dir)
}

// cleanupOrphanedPodDirs removes the directories of pods this kubelet no
// longer has (upstream's cleanupOrphanedPodDirs): left by a crash, or by
// a pod deleted while the kubelet was down. all: every pod's (Shutdown).
func (k *Kubelet) cleanupOrphanedPodDirs(ctx context.Context, all bool) {
	if k.cfg.RootDir == "" {
		return
	}
	known := map[string]bool{} // pods we have, or whose sandbox is still there
	if !all {
		for _, p := range k.pods.GetStore().List() {
			known[p.UID] = true
		}
		k.staticUIDs(known)
		resp, err := k.rt.ListPodSandbox(ctx, &cri.ListPodSandboxRequest{})
		if err != nil {
			return
		}
		for _, sb := range resp.Items {
			known[sb.Metadata.Uid] = true // removeOrphans removes it first
		}
	}
	entries, _ := os.ReadDir(filepath.Join(k.cfg.RootDir, "pods"))
	for _, e := range entries {
		uid := e.Name()
		if _, busy := k.terminating.Load(uid); known[uid] || (busy && !all) {
			continue
		}
		if err := k.unmountVolumes(uid); err != nil {
			k.log.Warn("cannot remove an orphaned pod directory", "podUID", uid, "err", err)
		} else {
			k.log.Info("removed the directory of a pod that is gone", "podUID", uid)
		}
	}
}

// VolumeLeftovers lists what pods left under rootDir/pods: mounts and pod
// directories. Empty after a clean stop; the end-to-end tests assert it.
func VolumeLeftovers(rootDir string) []string {
	dir := filepath.Join(rootDir, "pods")
	var out []string
	for _, m := range mountsUnder(dir) {
		out = append(out, "mount "+m)
	}
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		out = append(out, "pod directory "+filepath.Join(dir, e.Name()))
	}
	return out
}

// CleanupVolumes unmounts and removes what VolumeLeftovers lists.
func CleanupVolumes(rootDir string) error {
	return removePodDir(filepath.Join(rootDir, "pods"))
}
