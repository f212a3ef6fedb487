package app

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
)

// pidFile is the PID file Main wrote for this process ("" outside Main);
// PrintWelcome names it, so that a reader signals this very process
// (kill -HUP $(cat DIR/cluster.pid)) and never every process of that name
// on a shared machine.
var pidFile string

// stalePID is the process a PID file left by an earlier run named, when
// that process is gone: the run did not end cleanly (kill -9, a crash).
type stalePID struct {
	file string
	pid  int
}

// writePIDFile writes this process's PID to dataDir/<component>.pid. A PID
// file that names a live chapter program (one started with --data-dir) is
// an error: two programs on one data dir would share its etcd and its
// nodes. One that names a process that is gone is replaced, and returned
// so that Main can say so.
func writePIDFile(dataDir, component string) (path string, stale *stalePID, err error) {
	if err := os.MkdirAll(dataDir, 0o755); err != nil {
		return "", nil, err
	}
	path, err = filepath.Abs(filepath.Join(dataDir, component+".pid"))
	if err != nil {
		return "", nil, err
	}
	if pid, err := readPID(path); err == nil && pid != os.Getpid() {
		if runningWithDataDir(pid) {
			return "", nil, fmt.Errorf("%s: process %d is already running in %s; stop it first (Ctrl-C in its terminal, or kill %d), or give this one another --data-dir (make chNN-run DATA_DIR=...)",
				path, pid, dataDir, pid)
		}
		stale = &stalePID{file: path, pid: pid}
	} else if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return "", nil, err
	}
	if err := os.WriteFile(path, []byte(strconv.Itoa(os.Getpid())+"\n"), 0o644); err != nil {
		return "", nil, err
	}
	return path, stale, nil
}

// readPID reads a PID file: one decimal number and a newline.
func readPID(path string) (int, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return 0, err
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil || pid <= 0 {
		return 0, fmt.Errorf("%s: not a PID file (%q)", path, b)
	}
	return pid, nil
}

// runningWithDataDir reports whether pid is a live process whose command
// line has a --data-dir flag: a chapter program, not a stranger that got
// the PID of one that died.
func runningWithDataDir(pid int) bool {
	if err := syscall.Kill(pid, 0); err != nil && !errors.Is(err, syscall.EPERM) {
		return false
	}
	cmdline, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/cmdline")
	if err != nil {
		return true // no /proc (not Linux): trust the signal
	}
	return bytes.Contains(cmdline, []byte("-data-dir"))
}
