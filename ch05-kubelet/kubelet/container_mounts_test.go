package kubelet

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	cri "k8s.io/cri-api/pkg/apis/runtime/v1"
)

// TestTerminationMessage: an exited container's termination-log file is
// found among its mounts and read back (the last 4 KiB), appended to the
// runtime's own message.
func TestTerminationMessage(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "0badc0de")
	os.WriteFile(file, []byte("all done"), 0o666)
	st := &cri.ContainerStatus{State: cri.ContainerState_CONTAINER_EXITED,
		Annotations: map[string]string{"io.kubernetes.container.terminationMessagePath": "/dev/termination-log"},
		Mounts:      []*cri.Mount{{ContainerPath: "/data", HostPath: dir}, {ContainerPath: "/dev/termination-log", HostPath: file}}}
	if got := terminationMessage(st); got != "all done" {
		t.Errorf("message %q, want %q", got, "all done")
	}
	st.Message = "OOMKilled"
	if got := terminationMessage(st); got != "OOMKilled: all done" {
		t.Errorf("with the runtime's message: %q", got)
	}
	os.WriteFile(file, []byte(strings.Repeat("x", 5000)+"END"), 0o666)
	st.Message = ""
	if got := terminationMessage(st); len(got) != 4096 || !strings.HasSuffix(got, "END") {
		t.Errorf("a long message: %d bytes, want the last 4096", len(got))
	}
	st.State = cri.ContainerState_CONTAINER_RUNNING
	if got := terminationMessage(st); got != "" {
		t.Errorf("a running container's message: %q", got)
	}
}

func TestExpandSubPathExpr(t *testing.T) {
	env := []*cri.KeyValue{{Key: "POD_NAME", Value: []byte("web-0")}}
	if got := expandSubPathExpr("logs/$(POD_NAME)/$(NOPE)", env); got != "logs/web-0/$(NOPE)" {
		t.Errorf("expanded %q", got)
	}
}

func TestSubPathStaysInsideTheVolume(t *testing.T) {
	vol := t.TempDir()
	os.Symlink("/etc", filepath.Join(vol, "escape"))
	if p, err := subPathOf(vol, "data/x"); err != nil || p != filepath.Join(vol, "data/x") {
		t.Errorf("subPath data/x: %q, %v", p, err)
	}
	if fi, err := os.Stat(filepath.Join(vol, "data/x")); err != nil || !fi.IsDir() {
		t.Errorf("a missing subPath is created as a directory: %v", err)
	}
	for _, bad := range []string{"../x", "/etc", "escape"} {
		if p, err := subPathOf(vol, bad); err == nil {
			t.Errorf("subPath %q accepted: %s", bad, p)
		}
	}
}
