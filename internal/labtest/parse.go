// Package labtest runs the lab of a docs chapter against a live cluster and
// checks that every command still prints what the doc says it prints, so the
// docs cannot drift from the code.
//
// # Markup
//
// A lab step is a fenced block with the info string "console", written like
// a terminal transcript: lines starting with "$ " are commands, the lines
// below a command up to the next "$ " line are its expected output. One block
// may hold several commands. GitHub renders such blocks as shell sessions.
//
//	```console
//	$ kubectl get ns
//	NAME              STATUS   AGE
//	default           Active   <AGE>
//	kube-node-lease   Active   <AGE>
//	kube-public       Active   <AGE>
//	kube-system       Active   <AGE>
//	$ kubectl get pod nope   # exit 1
//	Error from server (NotFound): pods "nope" not found
//	```
//
// A command continues on the next line when its line ends with "\", and a
// heredoc (<<EOF, <<'EOF', <<-EOF) takes the lines up to its delimiter, so
// files are written naturally:
//
//	```console
//	$ cat > pod.yaml <<'EOF'
//	apiVersion: v1
//	kind: Pod
//	...
//	EOF
//	$ kubectl apply -f pod.yaml
//	pod/web created
//	```
//
// Only "console" blocks are run; ```sh, ```yaml and others are plain text.
// Words after "console" in the info string change how a block runs:
//
//	lab-skip           the block is shown to the reader but not run or parsed
//	lab-timeout=90s    each command of the block gets this timeout instead of the default
//	lab=NAME           the block belongs to the lab NAME, run only by a test that asks
//	                   for it (Env.Lab) — for a part of a chapter that needs a cluster
//	                   of its own; blocks without it make the chapter's main lab
//
// # Expected output
//
// Trailing spaces of every line and trailing empty lines are ignored (a reader
// cannot see them). Everything else is compared literally, except:
//
//   - Placeholders, written in capitals between angle brackets, match values
//     that change from run to run: <AGE> (a kubectl duration such as 5s, 2m3s,
//     10d or <invalid>), <UID>, <RV> (a resourceVersion), <N> (any number),
//     <TIME> (RFC 3339), <HASH> (a pod-template-hash), <SUFFIX> (the five
//     random characters of generateName), <IP>, <PORT> and <ANY> (any one word;
//     use sparingly). A placeholder may sit inside a word: web-<HASH>-<SUFFIX>.
//     Lower-case words such as <none> are kubectl's own and literal. An unknown
//     capitalised placeholder is a parse error, so typos do not pass silently.
//   - A line that is exactly "..." matches any number of lines (zero or more),
//     for long outputs of which the doc shows only the interesting part.
//
// If a command's expected output has no placeholder, its lines must equal the
// actual lines exactly, column padding included. If it has one, a placeholder
// changes the width of its column, so lines are compared word by word: the
// leading indentation (which matters in YAML) and every word must match, the
// amount of space between words need not.
//
// # Exit codes
//
// A failing command is written naturally: its expected output shows the error
// kubectl prints. The exit code is checked only if the command ends with a
// comment "# exit N"; then it must be N. Otherwise it is only logged.
//
// # Environment
//
// Each command runs as "bash -c" in the lab's working directory with stdout
// and stderr combined, as a reader sees them. [Env] chooses the kubectl binary
// (put first on PATH as "kubectl"), KUBECONFIG and the directory. Exported
// variables and the current directory carry over from one command to the
// next, as in a terminal; plain shell variables and functions do not. Every
// command has a timeout, so a watch must be stopped by the doc itself, e.g.
// "timeout 3 kubectl get pods -w".
package labtest

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"time"
)

// AnyExit is Step.WantExit when the doc does not ask for an exit code.
const AnyExit = -1

// Step is one command of a lab and what it must print.
type Step struct {
	Line     int           // line of the "$ " in the Markdown file, 1-based
	Command  string        // shell text without "$ ", continuation lines and heredoc bodies included
	Expected string        // expected output as written in the doc, without trailing newline
	WantExit int           // exit code from "# exit N", or AnyExit
	Timeout  time.Duration // from lab-timeout; 0 means Env's default
	Lab      string        // from lab=NAME; "" for the chapter's main lab
}

var (
	fenceOpen   = regexp.MustCompile("^([ \t]*)(`{3,}|~{3,})[ \t]*([^`]*)$")
	heredocOp   = regexp.MustCompile(`<<(-?)[ \t]*(?:'([^']+)'|"([^"]+)"|\\?([A-Za-z_][A-Za-z0-9_]*))`)
	exitComment = regexp.MustCompile(`[ \t]#[ \t]*exit[ \t]+(\d+)[ \t]*$`)
)

// Parse extracts the lab steps from a Markdown document.
func Parse(markdown []byte) ([]Step, error) {
	lines := strings.Split(strings.ReplaceAll(string(markdown), "\r\n", "\n"), "\n")
	var steps []Step
	for i := 0; i < len(lines); i++ {
		m := fenceOpen.FindStringSubmatch(lines[i])
		if m == nil {
			continue
		}
		indent, fence, info := len(m[1]), m[2], strings.Fields(m[3])
		start := i + 1 // index of the first content line
		end := start
		for end < len(lines) && !isFenceClose(lines[end], fence) {
			end++
		}
		if end == len(lines) {
			return nil, fmt.Errorf("line %d: code block is never closed", i+1)
		}
		i = end
		if len(info) == 0 || info[0] != "console" {
			continue
		}
		opts, err := parseOptions(info[1:])
		if err != nil {
			return nil, fmt.Errorf("line %d: %w", start, err)
		}
		if opts.skip {
			continue
		}
		body := make([]string, end-start)
		for j, l := range lines[start:end] {
			body[j] = stripIndent(l, indent)
		}
		blockSteps, err := parseConsole(body, start+1)
		if err != nil {
			return nil, err
		}
		for _, s := range blockSteps {
			s.Timeout = opts.timeout
			s.Lab = opts.lab
			steps = append(steps, s)
		}
	}
	return steps, nil
}

type blockOptions struct {
	skip    bool
	timeout time.Duration
	lab     string
}

func parseOptions(words []string) (blockOptions, error) {
	var o blockOptions
	for _, w := range words {
		switch name, value, _ := strings.Cut(w, "="); name {
		case "lab-skip":
			o.skip = true
		case "lab":
			if value == "" {
				return o, fmt.Errorf("lab= needs a name")
			}
			o.lab = value
		case "lab-timeout":
			d, err := time.ParseDuration(value)
			if err != nil || d <= 0 {
				return o, fmt.Errorf("bad lab-timeout %q", value)
			}
			o.timeout = d
		default:
			if strings.HasPrefix(name, "lab-") {
				return o, fmt.Errorf("unknown block option %q (known: lab-skip, lab-timeout=DURATION, lab=NAME)", w)
			}
		}
	}
	return o, nil
}

// parseConsole splits the body of a console block into steps. firstLine is
// the Markdown line number of body[0].
func parseConsole(body []string, firstLine int) ([]Step, error) {
	var steps []Step
	var out []string
	flush := func() {
		if len(steps) > 0 {
			steps[len(steps)-1].Expected = trimTrailingEmpty(out)
		}
		out = nil
	}
	for i := 0; i < len(body); i++ {
		line := body[i]
		cmd, isCmd := strings.CutPrefix(line, "$ ")
		if !isCmd && strings.TrimRight(line, " \t") == "$" {
			cmd, isCmd = "", true
		}
		if !isCmd {
			if len(steps) == 0 && strings.TrimSpace(line) != "" {
				return nil, fmt.Errorf("line %d: output before the first \"$ \" command", firstLine+i)
			}
			out = append(out, line)
			continue
		}
		flush()
		step := Step{Line: firstLine + i, WantExit: AnyExit}

		// A trailing backslash continues the command on the next line.
		cmdLines := []string{cmd}
		for strings.HasSuffix(cmdLines[len(cmdLines)-1], `\`) {
			i++
			if i == len(body) {
				return nil, fmt.Errorf("line %d: command continues past the end of the block", step.Line)
			}
			cmdLines = append(cmdLines, body[i])
		}
		last := cmdLines[len(cmdLines)-1]
		if m := exitComment.FindStringSubmatch(last); m != nil {
			step.WantExit, _ = strconv.Atoi(m[1])
		}

		// Heredoc bodies follow the logical command line, in order.
		for _, hd := range heredocs(strings.Join(cmdLines, "\n")) {
			for {
				i++
				if i == len(body) {
					return nil, fmt.Errorf("line %d: heredoc %q is never closed", step.Line, hd.delim)
				}
				cmdLines = append(cmdLines, body[i])
				l := body[i]
				if hd.stripTabs {
					l = strings.TrimLeft(l, "\t")
				}
				if l == hd.delim {
					break
				}
			}
		}
		step.Command = strings.Join(cmdLines, "\n")
		if strings.TrimSpace(step.Command) == "" {
			return nil, fmt.Errorf("line %d: empty command", step.Line)
		}
		steps = append(steps, step)
	}
	flush()
	for _, s := range steps {
		if _, err := compileExpected(s.Expected); err != nil {
			return nil, fmt.Errorf("line %d: %w", s.Line, err)
		}
	}
	return steps, nil
}

type heredoc struct {
	delim     string
	stripTabs bool
}

// heredocs finds the heredoc operators of a command line, skipping
// here-strings (<<<).
func heredocs(cmd string) []heredoc {
	var hds []heredoc
	for _, m := range heredocOp.FindAllStringSubmatchIndex(cmd, -1) {
		if m[0] > 0 && cmd[m[0]-1] == '<' {
			continue
		}
		hd := heredoc{stripTabs: m[3] > m[2]}
		for g := 2; g <= 4; g++ {
			if m[2*g] >= 0 {
				hd.delim = cmd[m[2*g]:m[2*g+1]]
			}
		}
		hds = append(hds, hd)
	}
	return hds
}

func isFenceClose(line, fence string) bool {
	t := strings.TrimLeft(line, " \t")
	run := len(t) - len(strings.TrimLeft(t, fence[:1]))
	return run >= len(fence) && strings.TrimSpace(t[run:]) == ""
}

// stripIndent removes up to n leading spaces: the indentation of a fence
// nested in a list item.
func stripIndent(line string, n int) string {
	for n > 0 && strings.HasPrefix(line, " ") {
		line = line[1:]
		n--
	}
	return line
}

func trimTrailingEmpty(lines []string) string {
	for len(lines) > 0 && strings.TrimSpace(lines[len(lines)-1]) == "" {
		lines = lines[:len(lines)-1]
	}
	return strings.Join(lines, "\n")
}
