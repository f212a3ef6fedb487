package docs_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// The Makefile is the reader's entry point; these tests check what the
// README and the chapters promise about it, through the real make: each
// chapter's own state directory, PORT= and ARGS= passed through, a clean
// that keeps the upstream build and refuses when nodes may be left, and a
// help that prints no unexpanded variable.

func makeCmd(t *testing.T, args ...string) (string, error) {
	t.Helper()
	if _, err := exec.LookPath("make"); err != nil {
		t.Skip("no make")
	}
	cmd := exec.Command("make", append([]string{"--no-print-directory", "-s"}, args...)...)
	cmd.Dir = root
	out, err := cmd.CombinedOutput()
	return string(out), err
}

func mustMake(t *testing.T, args ...string) string {
	t.Helper()
	out, err := makeCmd(t, args...)
	if err != nil {
		t.Fatalf("make %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return out
}

var runTarget = regexp.MustCompile(`(?m)^\s+(ch\d\d-run)\s`)

// runTargets are the chNN-run targets `make help` lists.
func runTargets(t *testing.T) []string {
	t.Helper()
	var out []string
	for _, m := range runTarget.FindAllStringSubmatch(mustMake(t, "help"), -1) {
		out = append(out, m[1])
	}
	if len(out) < 5 {
		t.Fatalf("make help lists %d chNN-run targets: %v", len(out), out)
	}
	return out
}

// runLine is the command line `make -n target vars...` would run the
// chapter's program with, split into words.
func runLine(t *testing.T, target string, vars ...string) []string {
	t.Helper()
	out := mustMake(t, append([]string{"-n", target}, vars...)...)
	for _, l := range strings.Split(out, "\n") {
		f := strings.Fields(l)
		if len(f) > 0 && strings.HasPrefix(filepath.Base(f[0]), "ch") && slices.Contains(f, "--data-dir") {
			return f
		}
	}
	t.Fatalf("make -n %s runs no chapter program with --data-dir:\n%s", target, out)
	return nil
}

func flagValue(args []string, name string) string {
	for i, a := range args {
		if a == name && i+1 < len(args) {
			return args[i+1]
		}
	}
	return ""
}

// TestMakeChapterStateDirs: every chapter runs on a directory of its own
// under KUBIK_DIR (.kubik), so a chapter never starts on what an earlier one
// left behind; DATA_DIR on make's command line overrides it, an exported
// DATA_DIR does not.
func TestMakeChapterStateDirs(t *testing.T) {
	kubik := t.TempDir()
	seen := map[string]string{}
	for _, target := range runTargets(t) {
		dir := flagValue(runLine(t, target, "KUBIK_DIR="+kubik), "--data-dir")
		want := filepath.Join(kubik, strings.TrimSuffix(target, "-run"))
		if dir != want {
			t.Errorf("make %s runs on --data-dir %q, want %q", target, dir, want)
		}
		if other, ok := seen[dir]; ok {
			t.Errorf("make %s and make %s share the data dir %s", other, target, dir)
		}
		seen[dir] = target
		if got := flagValue(runLine(t, target, "DATA_DIR=/elsewhere"), "--data-dir"); got != "/elsewhere" {
			t.Errorf("make %s DATA_DIR=/elsewhere runs on %q", target, got)
		}
	}
	// The labs of chapters 1 and 5 export a DATA_DIR of their own: an
	// exported one must not move a later `make chNN-run`.
	t.Setenv("DATA_DIR", "/from-the-environment")
	if d := flagValue(runLine(t, "ch05-run"), "--data-dir"); d != ".kubik/ch05" {
		t.Errorf("make ch05-run's default data dir is %q, the docs say .kubik/ch05", d)
	}
}

// TestMakePassesPortAndArgs: PORT=N becomes --secure-port N and ARGS are
// appended, for every chapter (the busy-port error message tells the reader
// to use them).
func TestMakePassesPortAndArgs(t *testing.T) {
	for _, target := range runTargets(t) {
		args := runLine(t, target, "PORT=6444", "ARGS=--log-level debug")
		if p := flagValue(args, "--secure-port"); p != "6444" {
			t.Errorf("make %s PORT=6444: --secure-port is %q in %v", target, p, args)
		}
		if n := len(args); n < 2 || args[n-2] != "--log-level" || args[n-1] != "debug" {
			t.Errorf("make %s ARGS=...: the arguments do not end with them: %v", target, args)
		}
		if flagValue(runLine(t, target), "--secure-port") != "" {
			t.Errorf("make %s passes --secure-port without PORT", target)
		}
	}
}

// TestMakeHelp prints every variable expanded.
func TestMakeHelp(t *testing.T) {
	out := mustMake(t, "help")
	if strings.Contains(out, "$(") {
		t.Errorf("make help prints an unexpanded variable:\n%s", out)
	}
	for _, target := range []string{"clean", "clean-nodes", "images", "test"} {
		if !regexp.MustCompile(`(?m)^\s+` + target + `\s`).MatchString(out) {
			t.Errorf("make help does not list %s", target)
		}
	}
}

// TestMakeClean removes the chapters' state and the images, keeps the
// upstream build, and refuses while a chapter runs or when a chapter that
// ran nodes left its PID file behind (make clean-nodes first).
func TestMakeClean(t *testing.T) {
	kubik := t.TempDir()
	mkdirs := func(dirs ...string) {
		for _, d := range dirs {
			if err := os.MkdirAll(filepath.Join(kubik, d), 0o755); err != nil {
				t.Fatal(err)
			}
		}
	}
	exists := func(d string) bool {
		_, err := os.Stat(filepath.Join(kubik, d))
		return err == nil
	}
	writePID := func(dir string, pid int) {
		if err := os.WriteFile(filepath.Join(kubik, dir, "cluster.pid"), []byte(strconv.Itoa(pid)+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	// A PID that names no process: spawn one and wait for it to end.
	gone := exec.Command("true")
	if err := gone.Run(); err != nil {
		t.Fatal(err)
	}
	deadPID := gone.ProcessState.Pid()

	mkdirs("ch01/pki", "ch04/etcd", "ch05/kubelet", "images", "ref/bin")
	writePID("ch04", deadPID) // chapters without nodes: a stale PID file is no obstacle

	writePID("ch05", os.Getpid()) // running
	out, err := makeCmd(t, "clean", "KUBIK_DIR="+kubik)
	if err == nil || !strings.Contains(out, "in use by pid "+strconv.Itoa(os.Getpid())) {
		t.Errorf("make clean with a chapter running: err %v, output:\n%s", err, out)
	}
	writePID("ch05", deadPID) // killed: its nodes may be left
	out, err = makeCmd(t, "clean", "KUBIK_DIR="+kubik)
	if err == nil || !strings.Contains(out, "make clean-nodes") {
		t.Errorf("make clean after a chapter with nodes was killed: err %v, output:\n%s", err, out)
	}
	if !exists("ch01") || !exists("ch05") {
		t.Fatal("a refused make clean removed something")
	}

	os.Remove(filepath.Join(kubik, "ch05", "cluster.pid")) // what make clean-nodes does after cleaning up
	mustMake(t, "clean", "KUBIK_DIR="+kubik)
	for _, d := range []string{"ch01", "ch04", "ch05", "images"} {
		if exists(d) {
			t.Errorf("make clean left %s", d)
		}
	}
	if !exists("ref/bin") {
		t.Error("make clean removed the upstream build in ref/")
	}
}

// TestMakeCleanNodesCoversChapters: clean-nodes goes through the data dir
// of every chapter that runs nodes, or DATA_DIR alone.
func TestMakeCleanNodesCoversChapters(t *testing.T) {
	kubik := t.TempDir()
	for _, d := range []string{"ch04", "ch05", "ch06", "ch07"} {
		if err := os.MkdirAll(filepath.Join(kubik, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	out := mustMake(t, "-n", "clean-nodes", "KUBIK_DIR="+kubik)
	for _, d := range []string{"ch05", "ch06", "ch07"} {
		if !strings.Contains(out, filepath.Join(kubik, d)) {
			t.Errorf("make clean-nodes does not cover %s:\n%s", d, out)
		}
	}
	if strings.Contains(out, filepath.Join(kubik, "ch04")) {
		t.Errorf("make clean-nodes covers chapter 4, which runs no nodes:\n%s", out)
	}
	if out := mustMake(t, "-n", "clean-nodes", "KUBIK_DIR="+kubik, "DATA_DIR=/elsewhere"); !strings.Contains(out, "in /elsewhere;") || strings.Contains(out, kubik) {
		t.Errorf("make clean-nodes DATA_DIR=/elsewhere:\n%s", out)
	}
}
