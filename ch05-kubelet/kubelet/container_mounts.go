package kubelet

// The containers' CRI Mounts (upstream's makeMounts in kubelet_pods.go,
// the subPath checks of pkg/volume/util/subpath), and the termination
// message read back from the termination-log mount once a container
// exited (kuberuntime_container.go's getTerminationMessage).

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"regexp"
	"strings"

	cri "k8s.io/cri-api/pkg/apis/runtime/v1"

	"kubik/ch01-apiserver/api/corev1"
)

// containerMounts are the CRI Mounts of container c (upstream's
// makeMounts): each volumeMount binds its volume's path on the node (or a
// subPath of it) at mountPath, read-only when the mount or the volume
// says so; and the termination-log file, a fresh one per container
// instance, at terminationMessagePath. env expands subPathExpr.
func (k *Kubelet) containerMounts(pod *corev1.Pod, c corev1.Container, env []*cri.KeyValue) ([]*cri.Mount, error) {
	if k.cfg.RootDir == "" {
		return nil, nil
	}
	vols := k.volumes.GetMountedVolumesForPod(pod.UID)
	var mounts []*cri.Mount
	for _, m := range c.VolumeMounts {
		vol, ok := vols[m.Name]
		if !ok {
			return nil, fmt.Errorf("cannot find volume %q to mount into container %q", m.Name, c.Name)
		}
		hostPath := vol.Path
		subPath := m.SubPath
		if m.SubPathExpr != "" {
			subPath = expandSubPathExpr(m.SubPathExpr, env)
		}
		if subPath != "" {
			p, err := subPathOf(vol.Path, subPath)
			if err != nil {
				return nil, fmt.Errorf("failed to prepare subPath for volumeMount %q of container %q", m.Name, c.Name)
			}
			hostPath = p
		}
		mounts = append(mounts, &cri.Mount{ContainerPath: m.MountPath, HostPath: hostPath,
			Readonly: m.ReadOnly || vol.ReadOnly, SelinuxRelabel: false})
	}
	if c.TerminationMessagePath != "" {
		dir := filepath.Join(k.podDir(pod.UID), "containers", c.Name)
		if err := os.MkdirAll(dir, 0o750); err != nil {
			return nil, err
		}
		// The pod UID and container name are unique enough; a random id
		// tells the instances (restarts) of one container apart.
		file := filepath.Join(dir, fmt.Sprintf("%08x", rand.Uint32()))
		f, err := os.Create(file)
		if err != nil {
			return nil, err
		}
		f.Close()
		if err := os.Chmod(file, 0o666); err != nil { // any container user may write it
			return nil, err
		}
		mounts = append(mounts, &cri.Mount{ContainerPath: c.TerminationMessagePath, HostPath: file})
	}
	return mounts, nil
}

// subPathOf is volume/sub, which must stay inside the volume: no ".." and
// no symlink pointing out of it. A missing subPath is created as a
// directory, as upstream does.
func subPathOf(volume, sub string) (string, error) {
	if filepath.IsAbs(sub) {
		return "", fmt.Errorf("subPath %q must be relative", sub)
	}
	for _, item := range strings.Split(sub, "/") {
		if item == ".." {
			return "", fmt.Errorf("subPath %q must not contain '..'", sub)
		}
	}
	p := filepath.Join(volume, sub)
	if _, err := os.Lstat(p); os.IsNotExist(err) {
		if err := os.MkdirAll(p, 0o750); err != nil {
			return "", err
		}
	}
	root, err := filepath.EvalSymlinks(volume)
	if err != nil {
		return "", err
	}
	real, err := filepath.EvalSymlinks(p)
	if err != nil {
		return "", err
	}
	if real != root && !strings.HasPrefix(real, root+"/") {
		return "", fmt.Errorf("subPath %q is outside the volume", sub)
	}
	return real, nil
}

var subPathVar = regexp.MustCompile(`\$\(([A-Za-z_][A-Za-z0-9_.-]*)\)`)

// expandSubPathExpr replaces $(VAR) with the container's environment, as
// upstream's expandSubpathExpr (an unknown variable stays as it is).
func expandSubPathExpr(expr string, env []*cri.KeyValue) string {
	return subPathVar.ReplaceAllStringFunc(expr, func(m string) string {
		name := m[2 : len(m)-1]
		for _, e := range env {
			if e.Key == name {
				return string(e.Value)
			}
		}
		return m
	})
}

// maxTerminationMessageLength is upstream's
// kubecontainer.MaxContainerTerminationMessageLength.
const maxTerminationMessageLength = 4096

// terminationMessage reads what an exited container wrote to its
// termination-log file (found among its mounts by the container path the
// terminationMessagePath annotation names), at most 4 KiB from its end,
// and appends it to the runtime's message, as upstream's
// getTerminationMessage.
func terminationMessage(s *cri.ContainerStatus) string {
	msg := s.Message
	path := s.Annotations["io.kubernetes.container.terminationMessagePath"]
	if path == "" || s.State != cri.ContainerState_CONTAINER_EXITED {
		return msg
	}
	for _, m := range s.Mounts {
		if m.ContainerPath != path {
			continue
		}
		data, err := readAtMost(m.HostPath, maxTerminationMessageLength)
		if err != nil {
			if os.IsNotExist(err) {
				return msg
			}
			data = fmt.Appendf(nil, "Error on reading termination log %s: %v", m.HostPath, err)
		}
		if len(data) > 0 {
			if msg != "" {
				msg += ": "
			}
			msg += string(data)
		}
		return msg
	}
	return msg
}

// readAtMost reads the last max bytes of a file.
func readAtMost(path string, max int64) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if fi.Size() > max {
		if _, err := f.Seek(fi.Size()-max, 0); err != nil {
			return nil, err
		}
	}
	buf := make([]byte, min(fi.Size(), max))
	n, err := f.Read(buf)
	if err != nil && n == 0 && len(buf) > 0 {
		return nil, err
	}
	return buf[:n], nil
}
