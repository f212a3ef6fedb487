package supervisor

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// Unit is a service unit file (systemd.service(5)), the part of it the
// supervisor acts on.
type Unit struct {
	Name        string // kubelet.service
	Path        string // the file
	Description string

	// [Unit]: order and dependencies. After= only orders; Requires= and
	// Wants= also start the other unit; Requires= also stops this one when
	// the other is stopped.
	After, Requires, Wants []string

	// [Service]
	Type            string    // simple (default), exec, notify (treated as simple), oneshot
	ExecStartPre    []Command // run one after the other before ExecStart
	ExecStart       []Command // one for simple; several for oneshot
	Environment     []string  // KEY=VALUE, in order (a later KEY wins)
	WorkingDir      string
	Restart         string        // no (default), on-failure, always
	RestartSec      time.Duration // default 100ms, as systemd
	KillSignal      syscall.Signal
	TimeoutStopSec  time.Duration // default 90s, as systemd
	RemainAfterExit bool

	// [Install]: WantedBy=multi-user.target is "enabled": started at boot.
	WantedBy []string

	// Warnings are the lines the supervisor ignored (keys it does not
	// implement), as systemd logs "Unknown key name".
	Warnings []string
}

// Command is one Exec*= line: its words, after quote removal; a leading
// "-" in the file means its failure is ignored.
type Command struct {
	Argv          []string
	IgnoreFailure bool
}

// Enabled reports whether the unit starts at boot.
func (u *Unit) Enabled() bool {
	for _, t := range u.WantedBy {
		if t == "multi-user.target" || t == "default.target" {
			return true
		}
	}
	return false
}

// Limits of what is read: a unit file is a few KiB.
const (
	maxUnitFileSize = 64 << 10
	maxUnits        = 256
)

// LoadUnits reads every *.service file of dir.
func LoadUnits(dir string) ([]*Unit, error) {
	paths, err := filepath.Glob(filepath.Join(dir, "*.service"))
	if err != nil {
		return nil, err
	}
	if len(paths) > maxUnits {
		return nil, fmt.Errorf("%s: more than %d units", dir, maxUnits)
	}
	var units []*Unit
	for _, p := range paths {
		u, err := LoadUnit(p)
		if err != nil {
			return nil, err
		}
		units = append(units, u)
	}
	return units, nil
}

// LoadUnit reads one unit file.
func LoadUnit(path string) (*Unit, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, maxUnitFileSize+1))
	if err != nil {
		return nil, err
	}
	if len(data) > maxUnitFileSize {
		return nil, fmt.Errorf("%s: larger than %d bytes", path, maxUnitFileSize)
	}
	u, err := ParseUnit(filepath.Base(path), data)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	u.Path = path
	return u, nil
}

// ParseUnit parses a unit file's text (systemd.syntax(7)): [Section]
// headers, Key=Value lines, "#" and ";" comments, a backslash at the end
// of a line continuing it. An empty value resets a list (ExecStart= then
// ExecStart=... replaces it).
func ParseUnit(name string, data []byte) (*Unit, error) {
	if len(data) > maxUnitFileSize {
		return nil, fmt.Errorf("larger than %d bytes", maxUnitFileSize)
	}
	u := &Unit{Name: name, Type: "simple", Restart: "no", RestartSec: 100 * time.Millisecond,
		KillSignal: syscall.SIGTERM, TimeoutStopSec: 90 * time.Second}
	s := bufio.NewScanner(bytes.NewReader(data))
	s.Buffer(make([]byte, 4096), maxUnitFileSize)
	section, lineNo := "", 0
	var pending strings.Builder
	for s.Scan() {
		lineNo++
		line := strings.TrimSpace(s.Text())
		if pending.Len() == 0 && (line == "" || line[0] == '#' || line[0] == ';') {
			continue
		}
		if strings.HasSuffix(line, `\`) {
			pending.WriteString(strings.TrimSuffix(line, `\`))
			pending.WriteByte(' ')
			continue
		}
		pending.WriteString(line)
		line = strings.TrimSpace(pending.String())
		pending.Reset()
		if strings.HasPrefix(line, "[") {
			if !strings.HasSuffix(line, "]") {
				return nil, fmt.Errorf("line %d: bad section header %q", lineNo, line)
			}
			section = line[1 : len(line)-1]
			continue
		}
		key, value, ok := strings.Cut(line, "=")
		if !ok {
			return nil, fmt.Errorf("line %d: %q is not Key=Value", lineNo, line)
		}
		if err := u.set(section, strings.TrimSpace(key), strings.TrimSpace(value)); err != nil {
			return nil, fmt.Errorf("line %d: %s=: %w", lineNo, strings.TrimSpace(key), err)
		}
	}
	if err := s.Err(); err != nil {
		return nil, err
	}
	return u, u.check()
}

func (u *Unit) set(section, key, value string) error {
	list := func(l *[]string) {
		if value == "" {
			*l = nil
			return
		}
		*l = append(*l, strings.Fields(value)...)
	}
	var err error
	switch section + "." + key {
	case "Unit.Description":
		u.Description = value
	case "Unit.After":
		list(&u.After)
	case "Unit.Requires":
		list(&u.Requires)
	case "Unit.Wants":
		list(&u.Wants)
	case "Unit.Documentation", "Unit.Before":
		// Documentation is for people; no unit here is ordered Before= another.
	case "Service.Type":
		switch value {
		case "simple", "exec", "notify", "oneshot":
			u.Type = value
		default:
			return fmt.Errorf("type %q is not supported (simple, exec, notify, oneshot)", value)
		}
	case "Service.ExecStart", "Service.ExecStartPre":
		l := &u.ExecStart
		if key == "ExecStartPre" {
			l = &u.ExecStartPre
		}
		if value == "" {
			*l = nil
			return nil
		}
		c := Command{}
		if strings.HasPrefix(value, "-") {
			c.IgnoreFailure, value = true, value[1:]
		}
		if c.Argv, err = SplitCommand(value); err != nil {
			return err
		}
		if len(c.Argv) == 0 {
			return errors.New("empty command")
		}
		*l = append(*l, c)
	case "Service.Environment":
		if value == "" {
			u.Environment = nil
			return nil
		}
		words, err := SplitCommand(value)
		if err != nil {
			return err
		}
		for _, w := range words {
			if !strings.Contains(w, "=") {
				return fmt.Errorf("%q is not KEY=VALUE", w)
			}
		}
		u.Environment = append(u.Environment, words...)
	case "Service.WorkingDirectory":
		u.WorkingDir = value
	case "Service.Restart":
		switch value {
		case "no", "on-failure", "always":
			u.Restart = value
		default:
			return fmt.Errorf("%q is not supported (no, on-failure, always)", value)
		}
	case "Service.RestartSec":
		u.RestartSec, err = ParseTimespan(value)
	case "Service.TimeoutStopSec":
		u.TimeoutStopSec, err = ParseTimespan(value)
	case "Service.KillSignal":
		u.KillSignal, err = ParseSignal(value)
	case "Service.RemainAfterExit":
		u.RemainAfterExit, err = parseBool(value)
	case "Install.WantedBy":
		list(&u.WantedBy)
	default:
		u.Warnings = append(u.Warnings, fmt.Sprintf("unknown key %s in section [%s], ignoring", key, section))
	}
	return err
}

func (u *Unit) check() error {
	switch {
	case len(u.ExecStart) == 0:
		return errors.New("no ExecStart=")
	case len(u.ExecStart) > 1 && u.Type != "oneshot":
		return errors.New("more than one ExecStart= is only allowed for Type=oneshot")
	}
	return nil
}

// SplitCommand splits a command line as systemd does: words separated by
// spaces, "..." and '...' quoting, backslash escapes. Variables are left as
// they are (Expand substitutes them when the command runs).
func SplitCommand(s string) ([]string, error) {
	var words []string
	var w strings.Builder
	inWord := false
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == ' ' || c == '\t':
			if inWord {
				words = append(words, w.String())
				w.Reset()
				inWord = false
			}
		case c == '"' || c == '\'':
			end := strings.IndexByte(s[i+1:], c)
			if end < 0 {
				return nil, fmt.Errorf("unterminated quote in %q", s)
			}
			w.WriteString(unescape(s[i+1 : i+1+end]))
			i += end + 1
			inWord = true
		case c == '\\' && i+1 < len(s):
			i++
			w.WriteByte(s[i])
			inWord = true
		default:
			w.WriteByte(c)
			inWord = true
		}
	}
	if inWord {
		words = append(words, w.String())
	}
	return words, nil
}

func unescape(s string) string {
	return strings.NewReplacer(`\"`, `"`, `\'`, `'`, `\\`, `\`).Replace(s)
}

// Expand substitutes ${NAME} in each word with env's value, and replaces a
// word that is exactly $NAME with the value's whitespace-separated words,
// as systemd does for ExecStart=.
func Expand(argv []string, env map[string]string) []string {
	var out []string
	for _, w := range argv {
		if name, ok := strings.CutPrefix(w, "$"); ok && !strings.HasPrefix(name, "{") && name != "" {
			out = append(out, strings.Fields(env[name])...)
			continue
		}
		out = append(out, os.Expand(w, func(k string) string { return env[k] }))
	}
	return out
}

// ParseTimespan reads systemd's time spans: "5", "5s", "100ms", "1min",
// "1h 30min" (a bare number is seconds).
func ParseTimespan(s string) (time.Duration, error) {
	var total time.Duration
	fields := strings.Fields(s)
	if len(fields) == 0 {
		return 0, errors.New("empty time span")
	}
	for _, f := range fields {
		i := strings.IndexFunc(f, func(r rune) bool { return (r < '0' || r > '9') && r != '.' })
		num, unit := f, "s"
		if i >= 0 {
			num, unit = f[:i], f[i:]
		}
		n, err := strconv.ParseFloat(num, 64)
		if err != nil || n < 0 || n > 1e6 {
			return 0, fmt.Errorf("bad time span %q", s)
		}
		scale, ok := map[string]time.Duration{"us": time.Microsecond, "ms": time.Millisecond, "s": time.Second,
			"sec": time.Second, "m": time.Minute, "min": time.Minute, "h": time.Hour}[unit]
		if !ok {
			return 0, fmt.Errorf("bad time unit %q in %q", unit, s)
		}
		total += time.Duration(n * float64(scale))
	}
	return total, nil
}

// signals are the names the supervisor accepts, with or without "SIG".
var signals = map[string]syscall.Signal{
	"HUP": syscall.SIGHUP, "INT": syscall.SIGINT, "QUIT": syscall.SIGQUIT, "KILL": syscall.SIGKILL,
	"USR1": syscall.SIGUSR1, "USR2": syscall.SIGUSR2, "TERM": syscall.SIGTERM,
	"CONT": syscall.SIGCONT, "STOP": syscall.SIGSTOP,
}

// ParseSignal reads "SIGTERM", "TERM" or "15".
func ParseSignal(s string) (syscall.Signal, error) {
	if n, err := strconv.Atoi(s); err == nil && n > 0 && n < 65 {
		return syscall.Signal(n), nil
	}
	if sig, ok := signals[strings.TrimPrefix(strings.ToUpper(s), "SIG")]; ok {
		return sig, nil
	}
	return 0, fmt.Errorf("unknown signal %q", s)
}

// SignalName is "SIGKILL" for syscall.SIGKILL.
func SignalName(sig syscall.Signal) string {
	for name, s := range signals {
		if s == sig {
			return "SIG" + name
		}
	}
	return strconv.Itoa(int(sig))
}

func parseBool(s string) (bool, error) {
	switch strings.ToLower(s) {
	case "yes", "true", "on", "1":
		return true, nil
	case "no", "false", "off", "0":
		return false, nil
	}
	return false, fmt.Errorf("%q is not a boolean", s)
}
