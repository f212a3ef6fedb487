package labtest

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"kubik/internal/testenv"
)

// recorder is a testing.TB that keeps Errorf calls instead of failing, so a
// test can check that Run reports a broken lab.
type recorder struct {
	testing.TB
	errors []string
}

func (r *recorder) Errorf(format string, args ...any) {
	r.errors = append(r.errors, fmt.Sprintf(format, args...))
}

// fakeKubectl writes a script that stands in for kubectl and prints its
// arguments and KUBECONFIG.
func fakeKubectl(t *testing.T) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "kubectl-fake")
	script := "#!/bin/sh\n" +
		"if [ \"$1\" = fail ]; then echo 'error: you asked for it' >&2; exit 3; fi\n" +
		"echo \"kubectl $* (KUBECONFIG=$KUBECONFIG)\"\n"
	if err := os.WriteFile(path, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	return path
}

func writeDoc(t *testing.T, text string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "ch99-lab.md")
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestRunPasses(t *testing.T) {
	doc := writeDoc(t, "# Лабораторная\n\n"+
		"```console\n"+
		"$ kubectl get ns\n"+
		"kubectl get ns (KUBECONFIG=/tmp/admin.conf)\n"+
		"$ cat > pod.yaml <<'EOF'\n"+
		"kind: Pod\n"+
		"metadata: {name: $NOT_EXPANDED}\n"+
		"EOF\n"+
		"$ cat pod.yaml\n"+
		"kind: Pod\n"+
		"metadata: {name: $NOT_EXPANDED}\n"+
		"$ mkdir sub && cd sub && export GREETING=privet\n"+
		"$ echo \"$GREETING from $(basename \"$PWD\")\"\n"+
		"privet from sub\n"+
		"$ kubectl fail   # exit 3\n"+
		"error: you asked for it\n"+
		"$ kubectl fail\n"+
		"error: you asked for it\n"+
		"$ echo one; echo two >&2; echo three\n"+
		"one\n"+
		"two\n"+
		"three\n"+
		"$ date -u +%Y-%m-%dT%H:%M:%SZ\n"+
		"<TIME>\n"+
		"```\n")
	Run(t, doc, Env{Kubectl: fakeKubectl(t), Kubeconfig: "/tmp/admin.conf"})
}

func TestRunReportsDifferences(t *testing.T) {
	pidFile := filepath.Join(t.TempDir(), "pid")
	doc := writeDoc(t, "```console\n"+
		"$ echo 'default   Terminating   5s'\n"+ // line 2
		"default   Active   <AGE>\n"+
		"$ kubectl fail   # exit 1\n"+ // line 4: output matches, exit code does not
		"error: you asked for it\n"+
		"$ echo fine\n"+ // line 6: passes
		"fine\n"+
		"$ echo 'Error from server (NotFound): pods \"x\" not found'\n"+ // line 8
		"Error from server (NotFound): pods \"y\" not found\n"+
		"```\n"+
		"```console lab-timeout=1s\n"+
		"$ sh -c 'echo $$ >"+pidFile+"; exec sleep 1000' | cat\n"+ // line 12
		"```\n")
	rec := &recorder{TB: t}
	Run(rec, doc, Env{Kubectl: fakeKubectl(t)})
	// The timeout stops the whole pipeline, not just bash: the sleep at its
	// head (which would run for 1000 s) is killed too.
	if _, err := os.Stat("/proc/self/cmdline"); err == nil {
		b, err := os.ReadFile(pidFile)
		if err != nil {
			t.Fatalf("the timed-out pipeline's first command did not run: %v", err)
		}
		pid, err := strconv.Atoi(strings.TrimSpace(string(b)))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() {
			if sleeping(pid) {
				if p, err := os.FindProcess(pid); err == nil {
					p.Kill() // our sleep, by its PID
				}
			}
		})
		testenv.Eventually(t, "the timed-out pipeline's sleep killed", time.Minute, func() (string, bool) {
			return fmt.Sprintf("pid %d still sleeping", pid), !sleeping(pid)
		})
	}

	want := []string{
		":2: $ echo 'default   Terminating   5s'",
		":4: $ kubectl fail   # exit 1\nexit code 3, the doc says 1",
		":8: $ echo",
		":12: $ sh -c 'echo $$ >" + pidFile + "; exec sleep 1000' | cat\ntimed out after 1s",
	}
	if len(rec.errors) != len(want) {
		t.Fatalf("got %d errors, want %d:\n%s", len(rec.errors), len(want), strings.Join(rec.errors, "\n---\n"))
	}
	for i, w := range want {
		if !strings.Contains(rec.errors[i], w) {
			t.Errorf("error %d:\n%s\nwant it to contain %q", i, rec.errors[i], w)
		}
	}
	if !strings.Contains(rec.errors[0], "-default   Active   <AGE>\n+default   Terminating   5s") {
		t.Errorf("error without a diff:\n%s", rec.errors[0])
	}
}

// sleeping: pid is the test's "sleep 1000", alive (a zombie's command line
// reads empty, another process's differs).
func sleeping(pid int) bool {
	cmdline, err := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid))
	return err == nil && string(cmdline) == "sleep\x001000\x00"
}

// TestRunRealKubectl runs a lab step with a real kubectl binary through the
// PATH symlink.
func TestRunRealKubectl(t *testing.T) {
	kubectl := "/usr/lib/google-cloud-sdk/bin/kubectl.1.33"
	if _, err := os.Stat(kubectl); err != nil {
		t.Skipf("real kubectl not available: %v", err)
	}
	doc := writeDoc(t, "```console\n"+
		"$ kubectl version --client\n"+
		"Client Version: v1.33.<N>\n"+
		"Kustomize Version: v<N>.<N>.<N>\n"+
		"```\n")
	Run(t, doc, Env{Kubectl: kubectl})
}

// TestRunNamedLab: a block marked lab=NAME runs only when Env.Lab asks for
// NAME, and the main lab leaves it out; each run sees only its own steps.
func TestRunNamedLab(t *testing.T) {
	doc := writeDoc(t, "```console\n$ echo main\nmain\n```\n"+
		"```console lab=extra\n$ echo extra\nnot what it prints\n```\n")
	rec := &recorder{TB: t}
	Run(rec, doc, Env{})
	if len(rec.errors) != 0 {
		t.Errorf("the main lab ran the named block: %q", rec.errors)
	}
	rec = &recorder{TB: t}
	Run(rec, doc, Env{Lab: "extra"})
	if len(rec.errors) != 1 || !strings.Contains(rec.errors[0], ":6: $ echo extra") {
		t.Errorf("lab extra: errors %q, want one, of its own step at line 6", rec.errors)
	}
}
