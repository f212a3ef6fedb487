//go:build unix

package labtest

import (
	"os/exec"
	"syscall"
)

// killProcessGroup starts cmd in its own process group and makes
// cancellation kill the whole group, so "kubectl get -w | grep x" dies too.
func killProcessGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error {
		return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	}
}
