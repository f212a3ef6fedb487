// Package testenv starts a chapter's real binary for end-to-end tests and
// runs the real kubectl binaries against it. Every chapter's tests use it.
package testenv

import (
	"bytes"
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// KubectlDir holds kubectl.1.27 … kubectl.1.33 on the machines this course targets.
var KubectlDir = "/usr/lib/google-cloud-sdk/bin"

// Kubectl returns the path of kubectl <version> ("1.27", "1.33"), skipping the
// test when it is not installed.
func Kubectl(t testing.TB, version string) string {
	t.Helper()
	p := filepath.Join(KubectlDir, "kubectl."+version)
	if _, err := os.Stat(p); err != nil {
		t.Skipf("kubectl %s not found at %s", version, p)
	}
	return p
}

var (
	buildMu    sync.Mutex
	buildCache = map[string]string{}
)

// Build compiles a main package ("kubik/ch01-apiserver") once per test process.
func Build(t testing.TB, pkg string) string {
	t.Helper()
	bin, err := BuildBinary(pkg)
	if err != nil {
		t.Fatal(err)
	}
	return bin
}

// BuildBinary is Build without a test.
func BuildBinary(pkg string) (string, error) {
	buildMu.Lock()
	defer buildMu.Unlock()
	if bin, ok := buildCache[pkg]; ok {
		return bin, nil
	}
	dir, err := os.MkdirTemp("", "kubik-bin-")
	if err != nil {
		return "", err
	}
	builtDirs = append(builtDirs, dir)
	bin := filepath.Join(dir, filepath.Base(pkg))
	cmd := exec.Command("go", "build", "-o", bin, pkg)
	if out, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("go build %s: %v\n%s", pkg, err, out)
	}
	buildCache[pkg] = bin
	return bin, nil
}

// FreePort asks the kernel for a free loopback TCP port.
func FreePort(t testing.TB) int {
	t.Helper()
	port, err := Port()
	if err != nil {
		t.Fatal(err)
	}
	return port
}

// Cluster is a running chapter binary.
type Cluster struct {
	URL        string
	Port       int
	DataDir    string
	Kubeconfig string
	cmd        *exec.Cmd
	logs       *SyncBuffer
	done       chan struct{}
	stopGrace  time.Duration
	wrap       func(argv ...string) []string
	dial       func(ctx context.Context, network, addr string) (net.Conn, error)
}

// Options for Start.
type Options struct {
	DataDir string   // default: a new temp dir
	Args    []string // extra flags
	// Sandbox, when set, runs the binary and every kubectl of the cluster
	// inside it (see NewSandbox).
	Sandbox *Sandbox
	// StopGrace is how long Stop waits after SIGTERM before SIGKILL
	// (default 5 s; chapters with machines stop their nodes first).
	StopGrace time.Duration
}

// Start runs binary with --data-dir and --secure-port on a free port, waits
// for /readyz, and stops it (by PID) when the test ends.
func Start(t testing.TB, binary string, o Options) *Cluster {
	t.Helper()
	if o.DataDir == "" {
		o.DataDir = t.TempDir()
	}
	c, err := Launch(binary, o)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		c.Stop()
		if t.Failed() {
			t.Logf("logs of %s:\n%s", binary, c.Logs())
		}
	})
	return c
}

// Launch is Start without a test: the caller must Stop the cluster.
// o.DataDir must be set.
func Launch(binary string, o Options) (*Cluster, error) {
	if o.DataDir == "" {
		return nil, errors.New("testenv.Launch: Options.DataDir is required")
	}
	var lastErr error
	for attempt := 0; attempt < 3; attempt++ {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return nil, err
		}
		port := ln.Addr().(*net.TCPAddr).Port
		ln.Close()
		c := &Cluster{Port: port, DataDir: o.DataDir, URL: "https://127.0.0.1:" + strconv.Itoa(port),
			Kubeconfig: filepath.Join(o.DataDir, "admin.kubeconfig"), logs: &SyncBuffer{}, done: make(chan struct{})}
		if o.Sandbox != nil {
			c.wrap, c.dial = o.Sandbox.Wrap, o.Sandbox.DialContext
		}
		c.stopGrace = o.StopGrace
		argv := c.argv(append([]string{binary, "--data-dir", o.DataDir, "--secure-port", strconv.Itoa(port)}, o.Args...)...)
		c.cmd = exec.Command(argv[0], argv[1:]...)
		c.cmd.Stdout = c.logs
		c.cmd.Stderr = c.cmd.Stdout
		c.cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
		if err := c.cmd.Start(); err != nil {
			return nil, err
		}
		go func() { c.cmd.Wait(); close(c.done) }()
		if err := c.waitReady(30 * time.Second); err != nil {
			c.Stop()
			lastErr = fmt.Errorf("%s did not become ready: %v\n%s", binary, err, c.Logs())
			continue // another program may have taken the port in between
		}
		return c, nil
	}
	return nil, lastErr
}

// SyncBuffer is a bytes.Buffer that a running process writes to while a
// test reads it.
type SyncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *SyncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *SyncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// argv is a command line as the cluster runs it: inside its sandbox, if any.
func (c *Cluster) argv(argv ...string) []string {
	if c.wrap == nil {
		return argv
	}
	return c.wrap(argv...)
}

// Logs is everything the process printed so far.
func (c *Cluster) Logs() string { return c.logs.String() }

func (c *Cluster) waitReady(timeout time.Duration) error {
	client := &http.Client{Timeout: time.Second, Transport: &http.Transport{DialContext: c.dial, TLSClientConfig: &tls.Config{InsecureSkipVerify: true}}}
	deadline := time.Now().Add(timeout)
	for time.Now().Before(deadline) {
		select {
		case <-c.done:
			return errors.New("process exited")
		default:
		}
		resp, err := client.Get(c.URL + "/readyz")
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return nil
			}
		}
		time.Sleep(50 * time.Millisecond)
	}
	return fmt.Errorf("no ok from %s/readyz within %v", c.URL, timeout)
}

// Stop ends the process (SIGTERM, then SIGKILL after Options.StopGrace,
// 5 s by default) and its children.
func (c *Cluster) Stop() {
	if c.cmd == nil || c.cmd.Process == nil {
		return
	}
	select {
	case <-c.done:
		return
	default:
	}
	syscall.Kill(-c.cmd.Process.Pid, syscall.SIGTERM)
	grace := c.stopGrace
	if grace == 0 {
		grace = 5 * time.Second
	}
	select {
	case <-c.done:
	case <-time.After(grace):
		syscall.Kill(-c.cmd.Process.Pid, syscall.SIGKILL)
		<-c.done
	}
}

// Result is what a kubectl run printed.
type Result struct {
	Stdout, Stderr string
	ExitCode       int
}

// Combined is stdout then stderr, as a reader sees them in a terminal.
func (r Result) Combined() string { return r.Stdout + r.Stderr }

// Kubectl runs kubectl <version> with the cluster's admin kubeconfig and a
// fresh cache dir, in dir (for -f files), with a timeout.
func (c *Cluster) Kubectl(t testing.TB, version, dir string, args ...string) Result {
	t.Helper()
	bin := Kubectl(t, version)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	argv := c.argv(append([]string{bin, "--kubeconfig", c.Kubeconfig, "--cache-dir", filepath.Join(t.TempDir(), "cache")}, args...)...)
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "HOME="+t.TempDir(), "KUBECTL_COMMAND_HEADERS=true")
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	code := 0
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatalf("kubectl %v: %v", args, err)
	}
	return Result{Stdout: out.String(), Stderr: errb.String(), ExitCode: code}
}

// DoJSON sends one JSON request to baseURL+path (a nil body sends none) and
// returns the response, whose body is already read and closed, and that body.
// Benchmarks use it to talk to an apiserver the way a plain client would.
func DoJSON(ctx context.Context, hc *http.Client, baseURL, method, path string, body []byte) (*http.Response, []byte, error) {
	var rd io.Reader
	if body != nil {
		rd = bytes.NewReader(body)
	}
	req, err := http.NewRequestWithContext(ctx, method, baseURL+path, rd)
	if err != nil {
		return nil, nil, err
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	req.Header.Set("Accept", "application/json")
	resp, err := hc.Do(req)
	if err != nil {
		return nil, nil, err
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	return resp, data, err
}

// MustKubectl is Kubectl that fails the test unless kubectl exits 0; it
// returns stdout without the trailing newline.
func (c *Cluster) MustKubectl(t testing.TB, version, dir string, args ...string) string {
	t.Helper()
	r := c.Kubectl(t, version, dir, args...)
	if r.ExitCode != 0 {
		t.Fatalf("kubectl %s: exit %d\n%s", strings.Join(args, " "), r.ExitCode, r.Combined())
	}
	return strings.TrimSpace(r.Stdout)
}

// Eventually polls f until it reports done: first after 10 ms, then twice
// as long each time up to every 300 ms. The timeout only turns a hang into
// a failure, with what f saw last: it is not a performance assertion.
func Eventually(t testing.TB, what string, timeout time.Duration, f func() (last string, done bool)) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	wait := 10 * time.Millisecond
	for {
		got, ok := f()
		if ok {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s: last seen:\n%s", what, got)
		}
		time.Sleep(wait)
		wait = min(2*wait, 300*time.Millisecond)
	}
}

// builtDirs are the directories BuildBinary made (under buildMu).
var builtDirs []string

// RemoveBuilt deletes every binary BuildBinary made in this process; the
// next BuildBinary builds again.
func RemoveBuilt() {
	buildMu.Lock()
	defer buildMu.Unlock()
	for _, d := range builtDirs {
		os.RemoveAll(d)
	}
	builtDirs = nil
	clear(buildCache)
}

// Main is the TestMain of a package whose tests build chapter binaries:
// it runs the tests, then removes the binaries (tens of megabytes each).
func Main(m *testing.M) {
	code := m.Run()
	RemoveBuilt()
	os.Exit(code)
}
