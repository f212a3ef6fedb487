package labtest

import (
	"strings"
	"testing"
	"time"
)

func TestParse(t *testing.T) {
	doc := "# Lab\n" + // 1
		"\n" + // 2
		"```console\n" + // 3
		"$ kubectl get ns\n" + // 4
		"NAME      STATUS   AGE\n" + // 5
		"default   Active   <AGE>\n" + // 6
		"\n" + // 7
		"$ kubectl get pod nope   # exit 1\n" + // 8
		"Error from server (NotFound): pods \"nope\" not found\n" + // 9
		"$ kubectl run web \\\n" + // 10
		"    --image=nginx\n" + // 11
		"pod/web created\n" + // 12
		"```\n" + // 13
		"\n" + // 14
		"```sh\n" + // 15
		"$ not a lab step\n" + // 16
		"```\n" + // 17
		"1. Write the manifest:\n" + // 18
		"   ```console lab-timeout=90s\n" + // 19
		"   $ cat > pod.yaml <<'EOF'\n" + // 20
		"   kind: Pod\n" + // 21
		"   $ this line is YAML, not a command\n" + // 22
		"   EOF\n" + // 23
		"   $ echo done\n" + // 24
		"   done\n" + // 25
		"   ```\n" + // 26
		"```console lab-skip\n" + // 27
		"output before a command is fine here\n" + // 28
		"```\n" // 29

	steps, err := Parse([]byte(doc))
	if err != nil {
		t.Fatal(err)
	}
	want := []Step{
		{Line: 4, Command: "kubectl get ns", Expected: "NAME      STATUS   AGE\ndefault   Active   <AGE>", WantExit: AnyExit},
		{Line: 8, Command: "kubectl get pod nope   # exit 1", Expected: `Error from server (NotFound): pods "nope" not found`, WantExit: 1},
		{Line: 10, Command: "kubectl run web \\\n    --image=nginx", Expected: "pod/web created", WantExit: AnyExit},
		{Line: 20, Command: "cat > pod.yaml <<'EOF'\nkind: Pod\n$ this line is YAML, not a command\nEOF", WantExit: AnyExit, Timeout: 90 * time.Second},
		{Line: 24, Command: "echo done", Expected: "done", WantExit: AnyExit, Timeout: 90 * time.Second},
	}
	if len(steps) != len(want) {
		t.Fatalf("got %d steps, want %d: %#v", len(steps), len(want), steps)
	}
	for i := range want {
		if steps[i] != want[i] {
			t.Errorf("step %d:\n got %#v\nwant %#v", i, steps[i], want[i])
		}
	}
}

func TestParseHeredocs(t *testing.T) {
	for _, tc := range []struct {
		cmd  string
		want []heredoc
	}{
		{`cat <<EOF`, []heredoc{{delim: "EOF"}}},
		{`cat <<-'END' > f`, []heredoc{{delim: "END", stripTabs: true}}},
		{`cat <<"X" && cat << Y`, []heredoc{{delim: "X"}, {delim: "Y"}}},
		{`cat <<\EOF`, []heredoc{{delim: "EOF"}}},
		{`grep a <<< "$x"`, nil},
		{`grep a <<<EOF`, nil},
	} {
		got := heredocs(tc.cmd)
		if len(got) != len(tc.want) {
			t.Errorf("%s: got %v, want %v", tc.cmd, got, tc.want)
			continue
		}
		for i := range got {
			if got[i] != tc.want[i] {
				t.Errorf("%s: got %v, want %v", tc.cmd, got, tc.want)
			}
		}
	}

	steps, err := Parse([]byte("```console\n$ cat <<-EOF\n\tx\n\tEOF\n$ true\n```\n"))
	if err != nil {
		t.Fatal(err)
	}
	if len(steps) != 2 || steps[0].Command != "cat <<-EOF\n\tx\n\tEOF" {
		t.Errorf("<<- heredoc: %#v", steps)
	}
}

func TestParseErrors(t *testing.T) {
	for name, doc := range map[string]string{
		"output before command": "```console\nNAME\n$ kubectl get ns\n```\n",
		"unclosed heredoc":      "```console\n$ cat <<EOF\nx\n```\n",
		"unclosed fence":        "```console\n$ true\n",
		"continuation at end":   "```console\n$ kubectl get \\\n```\n",
		"unknown option":        "```console lab-skipp\n$ true\n```\n",
		"bad timeout":           "```console lab-timeout=soon\n$ true\n```\n",
		"lab without a name":    "```console lab=\n$ true\n```\n",
		"unknown placeholder":   "```console\n$ kubectl get ns\ndefault   Active   <AGEE>\n```\n",
		"empty command":         "```console\n$\n```\n",
	} {
		if steps, err := Parse([]byte(doc)); err == nil {
			t.Errorf("%s: no error, steps %#v", name, steps)
		} else if !strings.Contains(err.Error(), "line ") {
			t.Errorf("%s: error without a line number: %v", name, err)
		}
	}
}

func TestParseFences(t *testing.T) {
	// A longer fence may contain a shorter one; ~~~ fences work too.
	doc := "````markdown\n```console\n$ not run\n```\n````\n~~~console\n$ echo hi\nhi\n~~~\n"
	steps, err := Parse([]byte(doc))
	if err != nil {
		t.Fatal(err)
	}
	if len(steps) != 1 || steps[0].Command != "echo hi" || steps[0].Expected != "hi" {
		t.Errorf("got %#v", steps)
	}
}
