package supervisor

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"
)

// Status is what `systemctl status` shows of a unit.
type Status struct {
	Name        string    `json:"name"`
	Description string    `json:"description"`
	Path        string    `json:"path"`
	Enabled     bool      `json:"enabled"`
	ActiveState string    `json:"activeState"`
	SubState    string    `json:"subState"`
	Since       time.Time `json:"since"`
	MainPID     int       `json:"mainPID,omitempty"`
	Restarts    int       `json:"restarts"`
	Result      string    `json:"result,omitempty"` // how the last run ended
	Command     []string  `json:"command"`
	LogFile     string    `json:"logFile"`
}

// Running reports whether the unit's main process runs.
func (s Status) Running() bool { return s.ActiveState == Active && s.SubState == SubRunning }

// Status is every unit's status, by name.
func (s *Supervisor) Status() []Status {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []Status
	for _, sv := range s.units {
		out = append(out, s.statusLocked(sv))
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// UnitStatus is one unit's status.
func (s *Supervisor) UnitStatus(name string) (Status, error) {
	sv, err := s.service(name)
	if err != nil {
		return Status{}, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.statusLocked(sv), nil
}

func (s *Supervisor) statusLocked(sv *service) Status {
	return Status{Name: sv.unit.Name, Description: sv.unit.Description, Path: sv.unit.Path,
		Enabled: sv.unit.Enabled(), ActiveState: sv.active, SubState: sv.sub, Since: sv.since,
		MainPID: sv.pid, Restarts: sv.restarts, Result: sv.result, Command: sv.unit.ExecStart[0].Argv,
		LogFile: s.cfg.LogFile(sv.unit.Name)}
}

// WriteStatus writes st as `systemctl status` does, with the last lines
// of its log.
func WriteStatus(w io.Writer, st Status, logLines int) {
	dot := "○"
	switch st.ActiveState {
	case Active, Activating, Deactivating:
		dot = "●"
	case Failed:
		dot = "×"
	}
	enabled := "disabled"
	if st.Enabled {
		enabled = "enabled"
	}
	fmt.Fprintf(w, "%s %s - %s\n", dot, st.Name, st.Description)
	fmt.Fprintf(w, "     Loaded: loaded (%s; %s)\n", st.Path, enabled)
	ago := time.Since(st.Since).Round(time.Second)
	state := fmt.Sprintf("%s (%s)", st.ActiveState, st.SubState)
	if st.Result != "" && st.Result != "success" && st.ActiveState != Active {
		state += " (Result: " + st.Result + ")"
	}
	fmt.Fprintf(w, "     Active: %s since %s; %s ago\n", state, st.Since.Format("Mon 2006-01-02 15:04:05 MST"), ago)
	if st.MainPID > 0 {
		fmt.Fprintf(w, "   Main PID: %d (%s)\n", st.MainPID, filepath.Base(st.Command[0]))
	}
	fmt.Fprintf(w, "   Restarts: %d\n", st.Restarts)
	fmt.Fprintf(w, "        Log: %s\n", st.LogFile)
	if logLines > 0 {
		if lines, err := Tail(st.LogFile, logLines); err == nil && len(lines) > 0 {
			fmt.Fprintf(w, "\n%s\n", strings.Join(lines, "\n"))
		}
	}
}

// WriteList writes one line per unit, as `systemctl list-units` does.
func WriteList(w io.Writer, units []Status) {
	fmt.Fprintf(w, "%-34s %-8s %-12s %-8s %s\n", "UNIT", "ACTIVE", "SUB", "PID", "RESTARTS")
	for _, st := range units {
		pid := "-"
		if st.MainPID > 0 {
			pid = fmt.Sprint(st.MainPID)
		}
		fmt.Fprintf(w, "%-34s %-8s %-12s %-8s %d\n", st.Name, st.ActiveState, st.SubState, pid, st.Restarts)
	}
}

// maxTailRead bounds what Tail reads from the end of a log.
const maxTailRead = 1 << 20

// Tail is the last n lines of a file (of its last MiB).
func Tail(path string, n int) ([]string, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, err
	}
	off := max(fi.Size()-maxTailRead, 0)
	buf := make([]byte, fi.Size()-off)
	if _, err := f.ReadAt(buf, off); err != nil && err != io.EOF {
		return nil, err
	}
	lines := strings.Split(strings.TrimRight(string(buf), "\n"), "\n")
	if off > 0 && len(lines) > 0 {
		lines = lines[1:] // a partial first line
	}
	if len(lines) == 1 && lines[0] == "" {
		return nil, nil
	}
	return lines[max(len(lines)-n, 0):], nil
}
