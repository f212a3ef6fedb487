package app_test

import (
	"bytes"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"kubik/internal/testenv"
)

func TestMain(m *testing.M) { testenv.Main(m) }

// TestMainPIDFileAndExit runs chapter 1's program as a reader does and
// checks what app.Main promises: DIR/apiserver.pid holds its PID while it
// runs (the banner says so), a second program on the same data dir is
// refused, Ctrl-C (SIGINT) ends it with exit status 0 — so make prints no
// error — and the PID file is gone afterwards.
func TestMainPIDFileAndExit(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs the chapter 1 program")
	}
	bin := testenv.Build(t, "kubik/ch01-apiserver")
	dir := t.TempDir()
	logs := &testenv.SyncBuffer{}
	cmd := exec.Command(bin, "--data-dir", dir, "--secure-port", "0")
	cmd.Stdout, cmd.Stderr = logs, logs
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	t.Cleanup(func() {
		cmd.Process.Kill()
		<-done
	})
	pidFile := filepath.Join(dir, "apiserver.pid")
	want := "\npid: " + strconv.Itoa(cmd.Process.Pid) + " (in " + pidFile + ")\n"
	testenv.Eventually(t, "the banner's pid: line", time.Minute, func() (string, bool) {
		return logs.String(), strings.Contains(logs.String(), want)
	})
	if b, err := os.ReadFile(pidFile); err != nil || strings.TrimSpace(string(b)) != strconv.Itoa(cmd.Process.Pid) {
		t.Errorf("%s: %q, %v; want the PID %d", pidFile, b, err, cmd.Process.Pid)
	}

	out, err := exec.Command(bin, "--data-dir", dir, "--secure-port", "0").CombinedOutput()
	if err == nil || !strings.Contains(string(out), "process "+strconv.Itoa(cmd.Process.Pid)+" is already running in "+dir) {
		t.Errorf("a second program on the same data dir: %v\n%s", err, out)
	}

	if err := cmd.Process.Signal(syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-done:
		done <- err // for the cleanup
		if err != nil {
			t.Errorf("after Ctrl-C (SIGINT): %v, want exit status 0\n%s", err, logs.String())
		}
	case <-time.After(time.Minute):
		t.Fatalf("still running a minute after SIGINT\n%s", logs.String())
	}
	if _, err := os.Stat(pidFile); !os.IsNotExist(err) {
		t.Errorf("%s is still there after a clean exit (%v)", pidFile, err)
	}
}

// TestMainBusyPort: a taken port is an error that says how to pick another.
func TestMainBusyPort(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs the chapter 1 program")
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	port := strconv.Itoa(ln.Addr().(*net.TCPAddr).Port)
	cmd := exec.Command(testenv.Build(t, "kubik/ch01-apiserver"), "--data-dir", t.TempDir(), "--secure-port", port)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err = cmd.Run()
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 1 {
		t.Fatalf("on a taken port: %v\n%s", err, out.String())
	}
	for _, want := range []string{"port " + port + " is already in use", "--secure-port=N", "PORT=N"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("the error does not say %q:\n%s", want, out.String())
		}
	}
}
