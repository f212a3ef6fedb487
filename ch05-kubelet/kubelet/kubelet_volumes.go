package kubelet

// The pods' directories (upstream's kubelet_volumes.go and
// kubelet_getters.go): <root-dir>/pods/<uid> holds a pod's volumes
// (package volumemanager), its etc-hosts and its containers'
// termination-log files; the kubelet removes those of pods it no longer
// has.

import (
	"context"
	"os"
	"path/filepath"

	cri "k8s.io/cri-api/pkg/apis/runtime/v1"

	"kubik/ch05-kubelet/kubelet/volumemanager"
)

// podDir is <root-dir>/pods/<uid>.
func (k *Kubelet) podDir(uid string) string {
	return filepath.Join(k.cfg.RootDir, "pods", uid)
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
		if err := k.volumes.UnmountVolumes(uid); err != nil {
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
	for _, m := range volumemanager.MountsUnder(dir) {
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
	return volumemanager.RemovePodDir(filepath.Join(rootDir, "pods"))
}
