package testenv

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"syscall"
	"time"
)

// Proc is a program a tool started (a benchmark's etcd, apiserver,
// scheduler): its output goes to a log file, and it is stopped by its PID
// only.
type Proc struct {
	Name    string
	Cmd     *exec.Cmd
	LogPath string
	Done    chan struct{} // closed when it has exited
}

// Spawn starts binary with args, its output in logPath.
func Spawn(name, logPath, binary string, args ...string) (*Proc, error) {
	logf, err := os.Create(logPath)
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(binary, args...)
	cmd.Stdout, cmd.Stderr = logf, logf
	if err := cmd.Start(); err != nil {
		logf.Close()
		return nil, fmt.Errorf("starting %s: %w", name, err)
	}
	p := &Proc{Name: name, Cmd: cmd, Done: make(chan struct{}), LogPath: logPath}
	go func() { cmd.Wait(); logf.Close(); close(p.Done) }()
	return p, nil
}

// Stop sends SIGTERM (a scheduler writes its CPU profile then), and
// SIGKILL if the process is still there after grace.
func (p *Proc) Stop(grace time.Duration) {
	if p == nil {
		return
	}
	p.Cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-p.Done:
	case <-time.After(grace):
		p.Cmd.Process.Kill()
		<-p.Done
	}
}

// Exited reports whether the process has ended.
func (p *Proc) Exited() bool {
	select {
	case <-p.Done:
		return true
	default:
		return false
	}
}

// Port is a free loopback port (another program may take it before it is
// used: callers retry).
func Port() (int, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port, nil
}

// StartEtcd runs a one-member etcd (the binary at etcdPath) on free
// loopback ports with its data in dir/etcd and its log in dir/etcd.log, and
// waits until /health says so; it returns the process and the client URL.
func StartEtcd(ctx context.Context, etcdPath, dir string) (*Proc, string, error) {
	cp, err1 := Port()
	pp, err2 := Port()
	if err := errors.Join(err1, err2); err != nil {
		return nil, "", err
	}
	url := "http://127.0.0.1:" + strconv.Itoa(cp)
	peer := "http://127.0.0.1:" + strconv.Itoa(pp)
	p, err := Spawn("etcd", filepath.Join(dir, "etcd.log"), etcdPath, "--name", "bench",
		"--data-dir", filepath.Join(dir, "etcd"), "--listen-client-urls", url, "--advertise-client-urls", url,
		"--listen-peer-urls", peer, "--initial-advertise-peer-urls", peer, "--initial-cluster", "bench="+peer)
	if err != nil {
		return nil, "", err
	}
	deadline := time.Now().Add(30 * time.Second)
	for {
		resp, err := http.Get(url + "/health")
		if err == nil {
			body, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if bytes.Contains(body, []byte(`"true"`)) {
				return p, url, nil
			}
		}
		if time.Now().After(deadline) || ctx.Err() != nil || p.Exited() {
			p.Stop(15 * time.Second)
			return nil, "", fmt.Errorf("etcd not healthy within 30s (log: %s)", p.LogPath)
		}
		time.Sleep(100 * time.Millisecond)
	}
}
