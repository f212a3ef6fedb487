package testenv

import (
	"os/exec"
	"regexp"
	"syscall"
	"testing"
)

// Process is a component started on its own by a test (a kube-scheduler,
// a kube-controller-manager), with its output kept.
type Process struct {
	Cmd  *exec.Cmd
	Logs *SyncBuffer
	Done chan struct{} // closed when it has exited
}

// StartProcess runs bin with args in its own process group and kills that
// group (by its PID) when the test ends.
func StartProcess(t testing.TB, bin string, args ...string) *Process {
	t.Helper()
	p := &Process{Logs: &SyncBuffer{}, Done: make(chan struct{})}
	p.Cmd = exec.Command(bin, args...)
	p.Cmd.Stdout, p.Cmd.Stderr = p.Logs, p.Logs
	p.Cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := p.Cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { p.Cmd.Wait(); close(p.Done) }()
	t.Cleanup(func() {
		p.Kill()
		if t.Failed() {
			t.Logf("%s (pid %d):\n%s", bin, p.Cmd.Process.Pid, p.Logs.String())
		}
	})
	return p
}

// Kill ends the process at once (SIGKILL: no clean shutdown, a leader
// cannot release its lease) and waits for it.
func (p *Process) Kill() {
	syscall.Kill(-p.Cmd.Process.Pid, syscall.SIGKILL)
	<-p.Done
}

// LogMatch is the first submatch of re in the output so far, or "".
func (p *Process) LogMatch(re *regexp.Regexp) string {
	if m := re.FindStringSubmatch(p.Logs.String()); len(m) > 1 {
		return m[1]
	}
	return ""
}
