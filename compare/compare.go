package compare

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"kubik/internal/labtest"
)

// Scenario is a list of kubectl commands in the docs-lab format (```console
// blocks, see ch01-apiserver/labtest). Expected outputs in the file are
// ignored here: the goldens recorded from real Kubernetes are the reference.
//
// Front matter in an HTML comment sets the chapter, the reference
// components and, optionally, extra flags for the Kubik binary and for the
// reference components (comma-separated; a reference flag is prefixed with
// the component it is for, so both sides can be given the same setting):
//
//	<!-- compare: chapter=ch01-apiserver ref-components= -->
//	<!-- compare: chapter=ch03-scheduler ref-components=kube-scheduler args=--hollow-nodes=0 -->
//	<!-- compare: chapter=ch04-controllers ref-components=kube-controller-manager args=--node-monitor-grace-period=20s
//	     ref-args=kube-controller-manager:--node-monitor-grace-period=20s -->
//
// A command whose difference is known and explained carries a comment
// "# known: <why>" — it is still run and shown, but not scored.
type Scenario struct {
	Name          string
	Path          string
	Chapter       string              // e.g. ch01-apiserver: the Kubik binary to compare
	RefComponents []string            // what the reference cluster must run besides kube-apiserver
	Args          []string            // extra flags for the Kubik binary
	RefArgs       map[string][]string // extra flags per reference component
	Steps         []labtest.Step
}

var (
	frontMatter = regexp.MustCompile(`<!--\s*compare:([^>]*)-->`)
	knownRe     = regexp.MustCompile(`#\s*known:\s*(.+)$`)
)

// Known returns why a step is expected to differ, or "".
func Known(step labtest.Step) string {
	first, _, _ := strings.Cut(step.Command, "\n")
	if m := knownRe.FindStringSubmatch(first); m != nil {
		return strings.TrimSpace(m[1])
	}
	return ""
}

// LoadScenario reads a scenario file.
func LoadScenario(path string) (*Scenario, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	steps, err := labtest.Parse(b)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	s := &Scenario{Name: strings.TrimSuffix(filepath.Base(path), ".md"), Path: path, Steps: steps}
	if m := frontMatter.FindSubmatch(b); m != nil {
		for _, kv := range strings.Fields(string(m[1])) {
			k, v, _ := strings.Cut(kv, "=")
			switch k {
			case "chapter":
				s.Chapter = v
			case "ref-components":
				s.RefComponents = splitList(v)
			case "args":
				s.Args = splitList(v)
			case "ref-args":
				for _, a := range splitList(v) {
					component, flag, ok := strings.Cut(a, ":")
					if !ok || component == "" || !strings.HasPrefix(flag, "-") {
						return nil, fmt.Errorf("%s: ref-args wants component:--flag, not %q", path, a)
					}
					if s.RefArgs == nil {
						s.RefArgs = map[string][]string{}
					}
					s.RefArgs[component] = append(s.RefArgs[component], flag)
				}
			}
		}
	}
	for component := range s.RefArgs {
		if component != "kube-apiserver" && !slices.Contains(s.RefComponents, component) {
			return nil, fmt.Errorf("%s: ref-args for %s, which ref-components does not start", path, component)
		}
	}
	if s.Chapter == "" {
		return nil, fmt.Errorf("%s: no <!-- compare: chapter=... --> line", path)
	}
	return s, nil
}

func splitList(v string) []string {
	var out []string
	for _, c := range strings.Split(v, ",") {
		if c != "" {
			out = append(out, c)
		}
	}
	return out
}

// Output is what one command printed, normalised.
type Output struct {
	Command string
	Text    string
	Exit    int
}

// Run executes the scenario with kubectl against the cluster of kubeconfig.
func Run(s *Scenario, kubectl, kubeconfig string) ([]Output, error) {
	kubeconfig, err := filepath.Abs(kubeconfig) // commands run in a temporary directory
	if err != nil {
		return nil, err
	}
	if _, err := os.Stat(kubeconfig); err != nil {
		return nil, fmt.Errorf("kubeconfig: %w (is the cluster up? make ref-up)", err)
	}
	sh, err := labtest.NewShell(labtest.Env{Kubectl: kubectl, Kubeconfig: kubeconfig})
	if err != nil {
		return nil, err
	}
	defer sh.Close()
	var outs []Output
	for _, step := range s.Steps {
		text, exit, err := sh.Exec(step)
		if err != nil {
			text += "\n<error: " + err.Error() + ">"
		}
		outs = append(outs, Output{Command: step.Command, Text: Normalize(text), Exit: exit})
	}
	return outs, nil
}

// WriteGolden stores outputs in the golden format: the command (each of its
// lines behind "### $ " or, for continuation lines, "### | "), its
// normalised output, and its exit code.
//
//	### $ kubectl get ns
//	NAME  STATUS  AGE
//	default  Active  <AGE>
//	### exit 0
func WriteGolden(w io.Writer, outs []Output) error {
	bw := bufio.NewWriter(w)
	for _, o := range outs {
		for i, line := range strings.Split(o.Command, "\n") {
			if i == 0 {
				fmt.Fprintf(bw, "### $ %s\n", line)
			} else {
				fmt.Fprintf(bw, "### | %s\n", line)
			}
		}
		if o.Text != "" {
			fmt.Fprintln(bw, o.Text)
		}
		fmt.Fprintf(bw, "### exit %d\n", o.Exit)
	}
	return bw.Flush()
}

// ReadGolden parses what WriteGolden wrote.
func ReadGolden(b []byte) ([]Output, error) {
	var outs []Output
	var cur *Output
	var cmd, text []string
	for n, line := range strings.Split(strings.TrimRight(string(b), "\n"), "\n") {
		switch {
		case strings.HasPrefix(line, "### $ "):
			if cur != nil {
				return nil, fmt.Errorf("golden line %d: command without an exit line before it", n+1)
			}
			cur, cmd, text = &Output{}, []string{strings.TrimPrefix(line, "### $ ")}, nil
		case strings.HasPrefix(line, "### | ") && cur != nil && text == nil:
			cmd = append(cmd, strings.TrimPrefix(line, "### | "))
		case strings.HasPrefix(line, "### exit "):
			if cur == nil {
				return nil, fmt.Errorf("golden line %d: exit line without a command", n+1)
			}
			code, err := strconv.Atoi(strings.TrimPrefix(line, "### exit "))
			if err != nil {
				return nil, fmt.Errorf("golden line %d: %v", n+1, err)
			}
			cur.Command, cur.Text, cur.Exit = strings.Join(cmd, "\n"), strings.Join(text, "\n"), code
			outs = append(outs, *cur)
			cur = nil
		default:
			if cur == nil {
				return nil, fmt.Errorf("golden line %d: output outside a command", n+1)
			}
			if text == nil {
				text = []string{}
			}
			text = append(text, line)
		}
	}
	if cur != nil {
		return nil, fmt.Errorf("golden: the last command has no exit line")
	}
	return outs, nil
}

// Result of comparing one command.
type Result struct {
	Command   string
	Known     string // why a difference is expected ("" if none)
	Identical bool
	Ref, Ours Output
}

// Diff compares reference outputs with ours, step by step.
func Diff(s *Scenario, ref, ours []Output) ([]Result, error) {
	if len(ref) != len(s.Steps) || len(ours) != len(s.Steps) {
		return nil, fmt.Errorf("%s: %d steps, %d reference outputs, %d of ours: re-record the goldens (make golden)",
			s.Name, len(s.Steps), len(ref), len(ours))
	}
	var res []Result
	for i, step := range s.Steps {
		r := Result{Command: step.Command, Known: Known(step), Ref: ref[i], Ours: ours[i]}
		r.Identical = ref[i].Text == ours[i].Text && ref[i].Exit == ours[i].Exit
		res = append(res, r)
	}
	return res, nil
}

// Score counts identical outputs among the scored (not known-different) ones.
func Score(results []Result) (identical, scored int) {
	for _, r := range results {
		if r.Known != "" {
			continue
		}
		scored++
		if r.Identical {
			identical++
		}
	}
	return
}

// Print writes a side-by-side report: every differing command with the
// reference on the left and Kubik on the right, then the score.
func Print(w io.Writer, s *Scenario, results []Result, width int) {
	if width < 40 {
		width = 160
	}
	col := (width - 3) / 2
	for _, r := range results {
		first, _, _ := strings.Cut(r.Command, "\n")
		switch {
		case r.Identical:
			fmt.Fprintf(w, "  same   $ %s\n", first)
			continue
		case r.Known != "":
			fmt.Fprintf(w, "  known  $ %s\n         (%s)\n", first, r.Known)
		default:
			fmt.Fprintf(w, "  DIFF   $ %s\n", first)
		}
		fmt.Fprintf(w, "  %-*s | %s\n", col, "real Kubernetes", "Kubik")
		for _, l := range sideBySide(withExit(r.Ref), withExit(r.Ours)) {
			mark := " "
			if l.a != l.b {
				mark = "!"
			}
			fmt.Fprintf(w, "%s %-*s | %s\n", mark, col, clip(l.a, col), clip(l.b, col))
		}
	}
	n, m := Score(results)
	fmt.Fprintf(w, "%s: %d of %d outputs identical", s.Name, n, m)
	if k := len(results) - m; k > 0 {
		fmt.Fprintf(w, " (%d known differences not scored)", k)
	}
	fmt.Fprintln(w)
}

func withExit(o Output) []string {
	lines := strings.Split(o.Text, "\n")
	return append(lines, fmt.Sprintf("(exit %d)", o.Exit))
}

func clip(s string, n int) string {
	if len(s) > n {
		return s[:n-1] + "…"
	}
	return s
}

type pair struct{ a, b string }

// sideBySide aligns two line lists with a longest-common-subsequence diff.
func sideBySide(a, b []string) []pair {
	n, m := len(a), len(b)
	lcs := make([][]int, n+1)
	for i := range lcs {
		lcs[i] = make([]int, m+1)
	}
	for i := n - 1; i >= 0; i-- {
		for j := m - 1; j >= 0; j-- {
			if a[i] == b[j] {
				lcs[i][j] = lcs[i+1][j+1] + 1
			} else {
				lcs[i][j] = max(lcs[i+1][j], lcs[i][j+1])
			}
		}
	}
	var out []pair
	i, j := 0, 0
	for i < n || j < m {
		switch {
		case i < n && j < m && a[i] == b[j]:
			out = append(out, pair{a[i], b[j]})
			i, j = i+1, j+1
		case i < n && j < m && lcs[i+1][j] == lcs[i][j+1] && lcs[i+1][j+1] == lcs[i][j]:
			out = append(out, pair{a[i], b[j]}) // a changed line: show it opposite its counterpart
			i, j = i+1, j+1
		case j < m && (i == n || lcs[i][j+1] >= lcs[i+1][j]):
			out = append(out, pair{"", b[j]})
			j++
		default:
			out = append(out, pair{a[i], ""})
			i++
		}
	}
	return out
}
