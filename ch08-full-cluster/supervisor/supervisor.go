// Package supervisor is a small stand-in for systemd, for the machines of
// chapter 8's local runner (network namespaces, which have no init): it
// reads the machine's unit files — the same files a Vagrant VM's systemd
// runs — starts the enabled ones in their After= order, restarts them as
// Restart= and RestartSec= say, stops them in the reverse order, and logs
// each unit's output to a file of its own, the journal's part.
//
//	<root>/etc/systemd/system/*.service   the units (WantedBy=multi-user.target: started at boot)
//	<root>/var/log/<unit>.log             a unit's output and the supervisor's lines about it
//	<root>/run/kubik-supervisor/          its control socket and PID file
//
// What `systemctl` and `journalctl` do on a VM, the control socket and the
// log files do here (cmd/kubik-supervisor):
//
//	systemctl status kubelet      kubik-supervisor status kubelet
//	systemctl stop kubelet        kubik-supervisor stop kubelet
//	systemctl kill -s KILL etcd   kubik-supervisor kill --signal SIGKILL etcd
//	journalctl -u kubelet -f      kubik-supervisor logs -f kubelet
//
// What it implements of systemd.service(5): Type=simple (exec and notify
// are treated as simple: nothing waits for a readiness notification) and
// oneshot with RemainAfterExit=; ExecStartPre=, ExecStart= (a leading "-"
// ignores a failure), Environment=, WorkingDirectory=; Restart=no,
// on-failure, always with RestartSec=; KillSignal= and TimeoutStopSec=
// (then SIGKILL); After=, Requires=, Wants=, WantedBy=. Each unit runs in a
// process group of its own (systemd uses a cgroup): stop and kill signal
// the whole group. There is no start rate limit, no cgroup accounting and
// no socket activation.
//
// Upstream: systemd's service manager (src/core/service.c), in miniature.
package supervisor

import (
	"errors"
	"fmt"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"
	"syscall"
	"time"
)

// Config is where a machine's files are.
type Config struct {
	// Root is the machine's root directory: "/" on a real machine, the
	// machine's directory for a network-namespace machine.
	Root   string
	Logger *slog.Logger
}

// UnitDir holds the unit files.
func (c Config) UnitDir() string { return filepath.Join(c.Root, "etc", "systemd", "system") }

// RunDir holds the control socket and the PID file.
func (c Config) RunDir() string { return filepath.Join(c.Root, "run", "kubik-supervisor") }

// Socket is the control socket.
func (c Config) Socket() string { return filepath.Join(c.RunDir(), "control.sock") }

// PIDFile holds the supervisor's PID.
func (c Config) PIDFile() string { return filepath.Join(c.RunDir(), "supervisor.pid") }

// LogFile is unit's log: <root>/var/log/<unit without .service>.log.
func (c Config) LogFile(unit string) string {
	return filepath.Join(c.Root, "var", "log", strings.TrimSuffix(unit, ".service")+".log")
}

// UnitName completes "kubelet" to "kubelet.service".
func UnitName(name string) string {
	if strings.HasSuffix(name, ".service") {
		return name
	}
	return name + ".service"
}

// The states a unit shows (systemctl's ActiveState and SubState).
const (
	Active       = "active"
	Inactive     = "inactive"
	Failed       = "failed"
	Activating   = "activating"
	Deactivating = "deactivating"

	SubRunning     = "running"
	SubExited      = "exited"
	SubDead        = "dead"
	SubAutoRestart = "auto-restart"
	SubStart       = "start"
	SubStop        = "stop"
)

// Supervisor runs one machine's units.
type Supervisor struct {
	cfg   Config
	log   *slog.Logger
	mu    sync.Mutex
	cond  *sync.Cond // broadcast on every state change
	units map[string]*service
	boot  []string // the start order at boot
}

// service is one unit and its state (under Supervisor.mu).
type service struct {
	unit     *Unit
	logFile  *os.File
	log      *slog.Logger // writes to logFile
	active   string
	sub      string
	since    time.Time
	pid      int
	restarts int
	result   string        // how the last run ended
	wanted   bool          // the last job: start (true) or stop (false)
	wake     chan struct{} // cuts a RestartSec wait short
	done     chan struct{} // closed when the run loop ends; nil: none runs
}

// New loads the units of cfg.UnitDir and opens their log files.
func New(cfg Config) (*Supervisor, error) {
	log := cfg.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	units, err := LoadUnits(cfg.UnitDir())
	if err != nil {
		return nil, err
	}
	s := &Supervisor{cfg: cfg, log: log.With("component", "kubik-supervisor"), units: map[string]*service{}}
	s.cond = sync.NewCond(&s.mu)
	if err := os.MkdirAll(filepath.Join(cfg.Root, "var", "log"), 0o755); err != nil {
		return nil, err
	}
	for _, u := range units {
		f, err := os.OpenFile(cfg.LogFile(u.Name), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
		if err != nil {
			s.Close()
			return nil, err
		}
		sv := &service{unit: u, logFile: f, active: Inactive, sub: SubDead, since: time.Now(),
			log: slog.New(slog.NewTextHandler(f, nil)).With("component", "kubik-supervisor", "unit", u.Name)}
		for _, w := range u.Warnings {
			s.log.Warn(w, "unit", u.Name)
		}
		s.units[u.Name] = sv
	}
	if s.boot, err = s.startOrder(); err != nil {
		s.Close()
		return nil, err
	}
	return s, nil
}

// Close closes the log files (after Shutdown).
func (s *Supervisor) Close() {
	for _, sv := range s.units {
		sv.logFile.Close()
	}
}

// startOrder is the enabled units and what they require or want, ordered
// so that each comes after the units it is After= (a topological sort;
// ties by name, so the order is the same on every boot).
func (s *Supervisor) startOrder() ([]string, error) {
	want := map[string]bool{}
	var add func(name string)
	add = func(name string) {
		sv, ok := s.units[name]
		if !ok || want[name] {
			return
		}
		want[name] = true
		for _, d := range slices.Concat(sv.unit.Requires, sv.unit.Wants) {
			add(d)
		}
	}
	for name, sv := range s.units {
		if sv.unit.Enabled() {
			add(name)
		}
	}
	return s.order(want)
}

// order sorts names so that every unit follows the units it is After=
// (and those that are Before= it are not used here).
func (s *Supervisor) order(set map[string]bool) ([]string, error) {
	names := make([]string, 0, len(set))
	for n := range set {
		names = append(names, n)
	}
	sort.Strings(names)
	var out []string
	state := map[string]int{} // 1: visiting, 2: done
	var visit func(n string, path []string) error
	visit = func(n string, path []string) error {
		switch state[n] {
		case 1:
			return fmt.Errorf("ordering cycle: %s", strings.Join(append(path, n), " -> "))
		case 2:
			return nil
		}
		state[n] = 1
		after := slices.Clone(s.units[n].unit.After)
		sort.Strings(after)
		for _, a := range after {
			if set[a] {
				if err := visit(a, append(path, n)); err != nil {
					return err
				}
			}
		}
		state[n] = 2
		out = append(out, n)
		return nil
	}
	for _, n := range names {
		if err := visit(n, nil); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// Boot starts the enabled units in order, each once the units it is
// After= are up (a simple service as soon as its process runs, a oneshot
// once it has exited).
func (s *Supervisor) Boot() {
	s.log.Info("booting", "root", s.cfg.Root, "units", strings.Join(s.boot, ","))
	for _, name := range s.boot {
		if err := s.Start(name); err != nil {
			s.log.Error("unit did not start", "unit", name, "err", err)
		}
	}
}

// Shutdown stops every unit, in the reverse of the boot order (units not
// started at boot first).
func (s *Supervisor) Shutdown() {
	names := make([]string, 0, len(s.units))
	for n := range s.units {
		if !slices.Contains(s.boot, n) {
			names = append(names, n)
		}
	}
	sort.Strings(names)
	for i := len(s.boot) - 1; i >= 0; i-- {
		names = append(names, s.boot[i])
	}
	for _, n := range names {
		s.Stop(n)
	}
	s.log.Info("all units stopped")
}

func (s *Supervisor) service(name string) (*service, error) {
	sv, ok := s.units[UnitName(name)]
	if !ok {
		return nil, fmt.Errorf("Unit %s could not be found.", UnitName(name))
	}
	return sv, nil
}

// Start starts a unit (and first what it requires or wants) and returns
// once it is up, or has failed.
func (s *Supervisor) Start(name string) error {
	sv, err := s.service(name)
	if err != nil {
		return err
	}
	for _, d := range slices.Concat(sv.unit.Requires, sv.unit.Wants) {
		dsv, ok := s.units[d]
		if !ok {
			continue
		}
		if err := s.Start(d); err != nil && slices.Contains(sv.unit.Requires, d) {
			s.setState(sv, Failed, SubDead, "dependency "+d+" failed")
			return fmt.Errorf("dependency failed for %s: %s: %w", sv.unit.Name, dsv.unit.Name, err)
		}
	}
	s.mu.Lock()
	if sv.done == nil && !(sv.active == Active && sv.sub == SubExited) {
		sv.wanted = true
		sv.wake = make(chan struct{}, 1)
		sv.done = make(chan struct{})
		go s.run(sv, sv.done)
	} else {
		sv.wanted = true
	}
	// As systemctl start: done once the process runs (or the oneshot has
	// exited), or once the first attempt has failed.
	for !(sv.active == Active || sv.active == Failed || sv.sub == SubAutoRestart || (sv.active == Inactive && sv.done == nil)) {
		s.cond.Wait()
	}
	active, result := sv.active, sv.result
	s.mu.Unlock()
	if active != Active && active != Inactive {
		return fmt.Errorf("%s failed: %s", sv.unit.Name, result)
	}
	return nil
}

// Stop stops a unit — first the units that require it — with its
// KillSignal, then SIGKILL after TimeoutStopSec, and returns once it is
// down. A stopped unit is not restarted.
func (s *Supervisor) Stop(name string) error { return s.stop(name, map[string]bool{}) }

func (s *Supervisor) stop(name string, stopping map[string]bool) error {
	sv, err := s.service(name)
	if err != nil {
		return err
	}
	stopping[sv.unit.Name] = true
	for _, other := range s.units {
		if slices.Contains(other.unit.Requires, sv.unit.Name) && !stopping[other.unit.Name] {
			s.stop(other.unit.Name, stopping)
		}
	}
	s.mu.Lock()
	sv.wanted = false
	done, pid := sv.done, sv.pid
	if done == nil {
		if sv.active == Active { // a oneshot that remained
			sv.active, sv.sub, sv.since = Inactive, SubDead, time.Now()
			s.cond.Broadcast()
		}
		s.mu.Unlock()
		return nil
	}
	if pid > 0 {
		sv.active, sv.sub = Deactivating, SubStop
		s.cond.Broadcast()
	}
	select {
	case sv.wake <- struct{}{}:
	default:
	}
	s.mu.Unlock()
	if pid > 0 {
		sv.log.Info("Stopping "+sv.unit.Name, "signal", SignalName(sv.unit.KillSignal), "pid", pid)
		syscall.Kill(-pid, sv.unit.KillSignal)
		syscall.Kill(pid, sv.unit.KillSignal) // in case it left its group
	}
	select {
	case <-done:
	case <-time.After(sv.unit.TimeoutStopSec):
		s.mu.Lock()
		pid = sv.pid
		s.mu.Unlock()
		if pid > 0 {
			sv.log.Warn("stop timed out; killing", "timeout", sv.unit.TimeoutStopSec, "pid", pid)
			syscall.Kill(-pid, syscall.SIGKILL)
			syscall.Kill(pid, syscall.SIGKILL)
		}
		<-done
	}
	return nil
}

// Restart stops and starts a unit.
func (s *Supervisor) Restart(name string) error {
	if err := s.Stop(name); err != nil {
		return err
	}
	return s.Start(name)
}

// Kill sends sig to a running unit's process group. What happens next is
// the unit's Restart= (a SIGKILL is a failure).
func (s *Supervisor) Kill(name string, sig syscall.Signal) error {
	sv, err := s.service(name)
	if err != nil {
		return err
	}
	s.mu.Lock()
	pid := sv.pid
	s.mu.Unlock()
	if pid <= 0 {
		return fmt.Errorf("%s is not running", sv.unit.Name)
	}
	sv.log.Info("Sending signal", "signal", SignalName(sig), "pid", pid)
	gerr := syscall.Kill(-pid, sig)
	err = syscall.Kill(pid, sig)
	if gerr == nil && errors.Is(err, syscall.ESRCH) {
		return nil // the group's signal ended it, and it has been reaped already
	}
	return err
}

func (s *Supervisor) setState(sv *service, active, sub, result string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	sv.active, sv.sub, sv.since = active, sub, time.Now()
	if result != "" {
		sv.result = result
	}
	s.cond.Broadcast()
}

func (s *Supervisor) isWanted(sv *service) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return sv.wanted
}

// run is a unit's life from a start job to its end: ExecStartPre=, then
// ExecStart=, then — if it ends while still wanted — the Restart= policy.
func (s *Supervisor) run(sv *service, done chan struct{}) {
	u := sv.unit
	defer func() {
		s.mu.Lock()
		sv.done, sv.pid = nil, 0
		if !sv.wanted && sv.active != Failed {
			sv.active, sv.sub, sv.since = Inactive, SubDead, time.Now()
		}
		close(done)
		s.cond.Broadcast()
		s.mu.Unlock()
	}()
	for {
		s.setState(sv, Activating, SubStart, "")
		err := s.runAll(sv, u.ExecStartPre)
		if err == nil && u.Type == "oneshot" {
			if err = s.runAll(sv, u.ExecStart); err == nil {
				if u.RemainAfterExit {
					s.setState(sv, Active, SubExited, "success")
				} else {
					s.setState(sv, Inactive, SubDead, "success")
				}
				sv.log.Info("Finished " + u.Name)
				return
			}
		} else if err == nil {
			err = s.runMain(sv)
		}
		if !s.isWanted(sv) {
			sv.log.Info("Stopped "+u.Name, "result", resultOf(err))
			s.setState(sv, Inactive, SubDead, resultOf(err))
			return
		}
		clean := err == nil || isCleanSignal(err)
		if u.Restart == "no" || (u.Restart == "on-failure" && clean) {
			if clean {
				sv.log.Info("Deactivated "+u.Name, "result", resultOf(err))
				s.setState(sv, Inactive, SubDead, resultOf(err))
			} else {
				sv.log.Error("Failed "+u.Name, "result", resultOf(err))
				s.setState(sv, Failed, SubDead, resultOf(err))
			}
			return
		}
		sv.log.Warn("Scheduled restart of "+u.Name, "result", resultOf(err), "in", u.RestartSec)
		s.setState(sv, Activating, SubAutoRestart, resultOf(err))
		select {
		case <-time.After(u.RestartSec):
		case <-sv.wake:
		}
		if !s.isWanted(sv) {
			s.setState(sv, Inactive, SubDead, "")
			return
		}
		s.mu.Lock()
		sv.restarts++
		s.mu.Unlock()
	}
}

// runAll runs commands one after the other, each to its end.
func (s *Supervisor) runAll(sv *service, cmds []Command) error {
	for _, c := range cmds {
		cmd, err := s.command(sv, c.Argv)
		if err == nil {
			err = cmd.Run()
		}
		if err != nil && !c.IgnoreFailure {
			sv.log.Error("command failed", "command", strings.Join(c.Argv, " "), "err", err)
			return err
		}
	}
	return nil
}

// runMain starts the main process and waits for it.
func (s *Supervisor) runMain(sv *service) error {
	cmd, err := s.command(sv, sv.unit.ExecStart[0].Argv)
	if err != nil {
		return err
	}
	if err := cmd.Start(); err != nil {
		sv.log.Error("start failed", "err", err)
		return err
	}
	s.mu.Lock()
	sv.pid = cmd.Process.Pid
	wanted := sv.wanted
	s.mu.Unlock()
	s.setState(sv, Active, SubRunning, "")
	sv.log.Info("Started "+sv.unit.Name, "pid", cmd.Process.Pid, "command", strings.Join(cmd.Args, " "))
	s.log.Info("started", "unit", sv.unit.Name, "pid", cmd.Process.Pid)
	if !wanted { // a stop came between the fork and now
		syscall.Kill(-cmd.Process.Pid, sv.unit.KillSignal)
	}
	err = cmd.Wait()
	s.mu.Lock()
	sv.pid = 0
	s.mu.Unlock()
	s.log.Info("exited", "unit", sv.unit.Name, "result", resultOf(err))
	return err
}

// command is a unit's process: the unit's environment over a clean one
// (as systemd gives services), its working directory (default: the
// machine's root), its own process group, output to the unit's log.
func (s *Supervisor) command(sv *service, argv []string) (*exec.Cmd, error) {
	u := sv.unit
	env := map[string]string{"PATH": filepath.Join(s.cfg.Root, "usr", "local", "bin") +
		":/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin", "LANG": "C.UTF-8"}
	for _, kv := range u.Environment {
		k, v, _ := strings.Cut(kv, "=")
		env[k] = v
	}
	argv = Expand(argv, env)
	if len(argv) == 0 {
		return nil, errors.New("empty command after expansion")
	}
	path := argv[0]
	if !filepath.IsAbs(path) {
		p, err := lookPath(path, env["PATH"])
		if err != nil {
			return nil, err
		}
		path = p
	}
	cmd := &exec.Cmd{Path: path, Args: argv, Stdout: sv.logFile, Stderr: sv.logFile,
		Dir: u.WorkingDir, SysProcAttr: &syscall.SysProcAttr{Setpgid: true}}
	if cmd.Dir == "" {
		cmd.Dir = s.cfg.Root
	}
	for k, v := range env {
		cmd.Env = append(cmd.Env, k+"="+v)
	}
	sort.Strings(cmd.Env)
	return cmd, nil
}

func lookPath(name, path string) (string, error) {
	for _, dir := range filepath.SplitList(path) {
		p := filepath.Join(dir, name)
		if fi, err := os.Stat(p); err == nil && !fi.IsDir() && fi.Mode()&0o111 != 0 {
			return p, nil
		}
	}
	return "", fmt.Errorf("%s: not found in %s", name, path)
}

// resultOf says how a process ended, in systemd's words.
func resultOf(err error) string {
	var ee *exec.ExitError
	switch {
	case err == nil:
		return "success"
	case errors.As(err, &ee):
		if ws, ok := ee.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
			return "signal (" + SignalName(ws.Signal()) + ")"
		}
		return fmt.Sprintf("exit-code (status=%d)", ee.ExitCode())
	default:
		return "resources (" + err.Error() + ")"
	}
}

// isCleanSignal: systemd counts a death by SIGHUP, SIGINT, SIGTERM or
// SIGPIPE as a clean exit (Restart=on-failure does not restart it).
func isCleanSignal(err error) bool {
	var ee *exec.ExitError
	if !errors.As(err, &ee) {
		return false
	}
	ws, ok := ee.Sys().(syscall.WaitStatus)
	if !ok || !ws.Signaled() {
		return false
	}
	switch ws.Signal() {
	case syscall.SIGHUP, syscall.SIGINT, syscall.SIGTERM, syscall.SIGPIPE:
		return true
	}
	return false
}
