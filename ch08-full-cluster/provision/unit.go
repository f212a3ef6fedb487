package provision

import (
	"strings"
)

// unit is a systemd service unit as the renderers describe it.
type unit struct {
	Name          string // kube-apiserver (the file is kube-apiserver.service)
	Description   string
	Documentation string
	After, Wants  []string
	Requires      []string
	Type          string     // "": simple
	Exec          [][]string // ExecStart= lines: one, or several for Type=oneshot
	ExecStartPre  [][]string
	Environment   []string
	Restart       string // on-failure, always
	RestartSec    string
	KillSignal    string
	TimeoutStop   string
	RemainAfter   bool
}

// render writes the unit file, one flag per line as The Hard Way's units.
func (u unit) render() []byte {
	var b strings.Builder
	b.WriteString("[Unit]\n")
	line := func(key, value string) {
		if value != "" {
			b.WriteString(key + "=" + value + "\n")
		}
	}
	line("Description", u.Description)
	line("Documentation", u.Documentation)
	line("After", strings.Join(u.After, " "))
	line("Requires", strings.Join(u.Requires, " "))
	line("Wants", strings.Join(u.Wants, " "))
	b.WriteString("\n[Service]\n")
	line("Type", u.Type)
	if u.RemainAfter {
		line("RemainAfterExit", "yes")
	}
	for _, e := range u.Environment {
		line("Environment", quote(e))
	}
	for _, argv := range u.ExecStartPre {
		line("ExecStartPre", command(argv))
	}
	for _, argv := range u.Exec {
		line("ExecStart", command(argv))
	}
	line("Restart", u.Restart)
	line("RestartSec", u.RestartSec)
	line("KillSignal", u.KillSignal)
	line("TimeoutStopSec", u.TimeoutStop)
	b.WriteString("\n[Install]\nWantedBy=multi-user.target\n")
	return []byte(b.String())
}

// command is one Exec line: the program, then each argument on a line of
// its own when there are many.
func command(argv []string) string {
	words := make([]string, len(argv))
	for i, a := range argv {
		words[i] = quote(a)
	}
	if len(words) <= 3 {
		return strings.Join(words, " ")
	}
	return words[0] + " \\\n  " + strings.Join(words[1:], " \\\n  ")
}

// quote quotes a word that holds a space or a quote for systemd.
func quote(s string) string {
	if s != "" && !strings.ContainsAny(s, " \t\"'\\") {
		return s
	}
	return `"` + strings.NewReplacer(`\`, `\\`, `"`, `\"`).Replace(s) + `"`
}
