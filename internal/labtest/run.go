package labtest

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// DefaultTimeout bounds each command unless Env or the block says otherwise.
const DefaultTimeout = time.Minute

// Env is where a lab runs.
type Env struct {
	// Kubectl is the kubectl binary the lab uses, e.g. a real kubectl 1.33.
	// It is linked as "kubectl" into a directory put first on PATH. Empty:
	// whatever kubectl PATH already has.
	Kubectl string
	// Kubeconfig becomes KUBECONFIG. The caller's KUBECONFIG is never
	// inherited, so a lab cannot reach a cluster by accident.
	Kubeconfig string
	// Dir is the working directory of the first command. Empty: a new
	// temporary directory.
	Dir string
	// Vars are extra environment variables, "NAME=value".
	Vars []string
	// Timeout bounds each command; 0 means DefaultTimeout.
	Timeout time.Duration
	// Lab is the named lab to run (the blocks marked lab=NAME); empty: the
	// chapter's main lab, the blocks without a name.
	Lab string
	// NetNS, when set, is the network namespace every command runs in
	// (`ip netns exec`), for a cluster that lives in one.
	NetNS string
}

// Run executes the lab of the Markdown file at docPath step by step and
// reports every step whose output (or requested exit code) differs from the
// doc with t.Errorf, then goes on with the next step.
func Run(t testing.TB, docPath string, env Env) {
	t.Helper()
	doc, err := os.ReadFile(docPath)
	if err != nil {
		t.Fatal(err)
	}
	all, err := Parse(doc)
	if err != nil {
		t.Fatalf("%s: %v", docPath, err)
	}
	var steps []Step
	for _, s := range all {
		if s.Lab == env.Lab {
			steps = append(steps, s)
		}
	}
	if len(steps) == 0 {
		t.Fatalf("%s: no lab steps (```console blocks) of lab %q", docPath, env.Lab)
	}
	sh, err := newShell(t.TempDir, env)
	if err != nil {
		t.Fatal(err)
	}
	for _, step := range steps {
		where := docPath + ":" + strconv.Itoa(step.Line)
		t.Logf("%s: $ %s", where, firstLine(step.Command))
		res := sh.run(step)
		if res.timedOut {
			t.Errorf("%s: $ %s\ntimed out after %v; output so far:\n%s", where, step.Command, res.timeout, res.output)
			continue
		}
		if res.err != nil {
			t.Errorf("%s: $ %s\n%v", where, step.Command, res.err)
			continue
		}
		diff, ok, err := Match(step.Expected, res.output)
		if err != nil {
			t.Errorf("%s: %v", where, err)
			continue
		}
		if !ok {
			t.Errorf("%s: $ %s\noutput differs from the doc (exit code %d):\n--- doc\n+++ actual\n%s", where, step.Command, res.exit, diff)
		}
		switch {
		case step.WantExit != AnyExit && res.exit != step.WantExit:
			t.Errorf("%s: $ %s\nexit code %d, the doc says %d", where, step.Command, res.exit, step.WantExit)
		case res.exit != 0:
			t.Logf("%s: exit code %d", where, res.exit)
		}
	}
}

// shell runs the commands of one lab, carrying the exported environment and
// the working directory from each command to the next.
type shell struct {
	dir      string
	env      []string
	stateDir string // where each command leaves its environment and directory
	timeout  time.Duration
	netns    string // run every command in this network namespace
}

func newShell(tempDir func() string, env Env) (*shell, error) {
	sh := &shell{dir: env.Dir, stateDir: tempDir(), timeout: env.Timeout, netns: env.NetNS}
	if sh.dir == "" {
		sh.dir = tempDir()
	}
	if sh.timeout == 0 {
		sh.timeout = DefaultTimeout
	}
	path := os.Getenv("PATH")
	if env.Kubectl != "" {
		kubectl, err := filepath.Abs(env.Kubectl)
		if err != nil {
			return nil, err
		}
		if _, err := os.Stat(kubectl); err != nil {
			return nil, err
		}
		bin := tempDir()
		if err := os.Symlink(kubectl, filepath.Join(bin, "kubectl")); err != nil {
			return nil, err
		}
		path = bin + string(os.PathListSeparator) + path
	}
	for _, kv := range os.Environ() {
		switch name, _, _ := strings.Cut(kv, "="); name {
		case "PATH", "HOME", "KUBECONFIG", "PWD", "OLDPWD":
		default:
			sh.env = append(sh.env, kv)
		}
	}
	// A fresh HOME keeps kubectl's cache and any ~/.kube/config out of the lab.
	sh.env = append(sh.env, "PATH="+path, "HOME="+tempDir())
	if env.Kubeconfig != "" {
		sh.env = append(sh.env, "KUBECONFIG="+env.Kubeconfig)
	}
	sh.env = append(sh.env, env.Vars...)
	return sh, nil
}

type result struct {
	output   string
	exit     int
	timedOut bool
	timeout  time.Duration
	err      error // the command could not be run at all
}

// saveState runs when the command's shell exits, however it exits, and
// records what the next command inherits.
const saveState = `trap 'labtest_rc=$?; pwd >"$LABTEST_STATE/cwd"; env -0 >"$LABTEST_STATE/env"; exit $labtest_rc' EXIT` + "\n"

func (sh *shell) run(step Step) result {
	res := result{timeout: step.Timeout}
	if res.timeout == 0 {
		res.timeout = sh.timeout
	}
	cwdFile := filepath.Join(sh.stateDir, "cwd")
	envFile := filepath.Join(sh.stateDir, "env")
	os.Remove(cwdFile)
	os.Remove(envFile)

	ctx, cancel := context.WithTimeout(context.Background(), res.timeout)
	defer cancel()
	argv := []string{"bash", "-c", saveState + step.Command}
	if sh.netns != "" {
		argv = append([]string{"ip", "netns", "exec", sh.netns}, argv...)
	}
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	cmd.Dir = sh.dir
	cmd.Env = append(sh.env[:len(sh.env):len(sh.env)], "LABTEST_STATE="+sh.stateDir)
	var out bytes.Buffer
	cmd.Stdout = &out
	cmd.Stderr = &out
	killProcessGroup(cmd)           // a timeout stops the whole pipeline, not just bash
	cmd.WaitDelay = 2 * time.Second // don't hang on a background child holding the output pipe

	err := cmd.Run()
	res.output = out.String()
	var exitErr *exec.ExitError
	switch {
	case ctx.Err() != nil:
		res.timedOut = true
		return res
	case errors.As(err, &exitErr):
		res.exit = exitErr.ExitCode()
	case err != nil:
		res.err = err
		return res
	}

	if cwd, err := os.ReadFile(cwdFile); err == nil {
		sh.dir = strings.TrimSuffix(string(cwd), "\n")
	}
	if env, err := os.ReadFile(envFile); err == nil {
		sh.env = sh.env[:0:0]
		for _, kv := range strings.Split(strings.TrimSuffix(string(env), "\x00"), "\x00") {
			switch name, _, _ := strings.Cut(kv, "="); name {
			case "LABTEST_STATE", "labtest_rc", "SHLVL", "_", "PWD", "OLDPWD":
			default:
				sh.env = append(sh.env, kv)
			}
		}
	}
	return res
}

func firstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i] + " ..."
	}
	return s
}

// Shell runs steps one after another like one terminal session, outside of
// a test (the side-by-side comparison with real Kubernetes uses it).
type Shell struct {
	sh   *shell
	temp []string
}

// NewShell prepares a session; Close removes its temporary directories.
func NewShell(env Env) (*Shell, error) {
	s := &Shell{}
	var mkErr error
	tempDir := func() string {
		d, err := os.MkdirTemp("", "labtest-")
		if err != nil {
			mkErr = err
		}
		s.temp = append(s.temp, d)
		return d
	}
	sh, err := newShell(tempDir, env)
	if err == nil {
		err = mkErr
	}
	if err != nil {
		s.Close()
		return nil, err
	}
	s.sh = sh
	return s, nil
}

// Exec runs one step and returns what it printed (stdout and stderr
// combined) and its exit code.
func (s *Shell) Exec(step Step) (output string, exit int, err error) {
	res := s.sh.run(step)
	if res.timedOut {
		return res.output, -1, fmt.Errorf("timed out after %v", res.timeout)
	}
	return res.output, res.exit, res.err
}

// Close removes the session's temporary directories.
func (s *Shell) Close() {
	for _, d := range s.temp {
		os.RemoveAll(d)
	}
}
