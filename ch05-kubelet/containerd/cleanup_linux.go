//go:build linux

package containerd

import (
	"bufio"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// Cleanup removes what a containerd of cfg left behind, in the order that
// works: processes (containerd, then shims — by PID, found by our socket
// path in their command line), mounts under cfg.Dir (deepest first), the
// network namespace, the cgroups, the CNI cache entries of our network.
// It is idempotent: Start calls it first to recover from a crashed run.
func Cleanup(cfg Config, log *slog.Logger) error {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	var errs []error
	var killed []int
	for _, pid := range ourProcesses(cfg) {
		log.Info("killing a left-over process", "pid", pid, "cmd", cmdline(pid))
		syscall.Kill(pid, syscall.SIGKILL)
		killed = append(killed, pid)
	}
	// The containers' processes outlive their shims: they are found in
	// the pods' cgroups.
	for _, pid := range cgroupProcesses(cfg) {
		log.Info("killing a left-over container process", "pid", pid, "cmd", cmdline(pid))
		syscall.Kill(pid, syscall.SIGKILL)
		killed = append(killed, pid)
	}
	for _, pid := range killed {
		waitGone(pid)
	}
	for _, m := range mountsUnder(cfg.Dir) {
		if err := syscall.Unmount(m, syscall.MNT_DETACH); err != nil && !errors.Is(err, syscall.EINVAL) && !errors.Is(err, syscall.ENOENT) {
			errs = append(errs, fmt.Errorf("umount %s: %w", m, err))
		}
	}
	if _, err := os.Stat(cfg.NetNSPath()); err == nil && cfg.NetNS == "" {
		if err := run("ip", "netns", "del", cfg.Name); err != nil {
			errs = append(errs, err)
		}
	}
	for _, dir := range cgroupDirs(cfg) {
		if err := removeCgroup(dir); err != nil {
			errs = append(errs, err)
		}
	}
	results, _ := filepath.Glob("/var/lib/cni/results/" + cfg.Name + "-*")
	for _, f := range results {
		os.Remove(f)
	}
	os.Remove(pidFile(cfg))
	return errors.Join(errs...)
}

// Leftovers lists what Cleanup would remove: empty after a clean stop.
// Tests assert on it.
func Leftovers(cfg Config) []string {
	var out []string
	for _, pid := range append(ourProcesses(cfg), cgroupProcesses(cfg)...) {
		out = append(out, fmt.Sprintf("process %d: %s", pid, cmdline(pid)))
	}
	for _, m := range mountsUnder(cfg.Dir) {
		out = append(out, "mount "+m)
	}
	if _, err := os.Stat(cfg.NetNSPath()); err == nil && cfg.NetNS == "" {
		out = append(out, "netns "+cfg.NetNSPath())
	}
	for _, d := range cgroupDirs(cfg) {
		out = append(out, "cgroup "+d)
	}
	results, _ := filepath.Glob("/var/lib/cni/results/" + cfg.Name + "-*")
	for _, f := range results {
		out = append(out, "cni result "+f)
	}
	return out
}

// ourProcesses: containerd started with our config, and shims and runc
// processes given our socket or runc root.
func ourProcesses(cfg Config) []int {
	var pids []int
	entries, _ := os.ReadDir("/proc")
	self := os.Getpid()
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil || pid == self {
			continue
		}
		cl := cmdline(pid)
		if strings.Contains(cl, filepath.Join(cfg.Dir, "config.toml")) || strings.Contains(cl, cfg.Socket()) ||
			strings.Contains(cl, filepath.Join(cfg.Dir, "runc")) {
			pids = append(pids, pid)
		}
	}
	return pids
}

func cmdline(pid int) string {
	b, _ := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid))
	return strings.TrimSpace(strings.ReplaceAll(string(b), "\x00", " "))
}

// waitGone waits (up to 2 s) until pid has exited: gone, or a zombie
// (its parent, init after ours died, reaps it in its own time).
func waitGone(pid int) {
	for i := 0; i < 100; i++ {
		stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
		if err != nil {
			return
		}
		// "pid (comm) S ...": the state follows the last ')'.
		if i := strings.LastIndexByte(string(stat), ')'); i > 0 && i+2 < len(stat) && (stat[i+2] == 'Z' || stat[i+2] == 'X') {
			return
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// cgroupProcesses are the processes in our cgroups (every hierarchy).
func cgroupProcesses(cfg Config) []int {
	seen := map[int]bool{}
	var pids []int
	for _, root := range cgroupDirs(cfg) {
		filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
			if err != nil || d.Name() != "cgroup.procs" {
				return nil
			}
			b, _ := os.ReadFile(p)
			for _, f := range strings.Fields(string(b)) {
				if pid, err := strconv.Atoi(f); err == nil && !seen[pid] && pid != os.Getpid() {
					seen[pid] = true
					pids = append(pids, pid)
				}
			}
			return nil
		})
	}
	return pids
}

// mountsUnder lists the mount points below dir (snapshots, rootfs of
// running containers, pinned pod netns, shm), deepest first.
func mountsUnder(dir string) []string {
	f, err := os.Open("/proc/self/mountinfo")
	if err != nil {
		return nil
	}
	defer f.Close()
	var out []string
	s := bufio.NewScanner(f)
	s.Buffer(make([]byte, 64<<10), 1<<20)
	for s.Scan() {
		fields := strings.Fields(s.Text())
		if len(fields) < 5 {
			continue
		}
		mp := unescapeMount(fields[4])
		if mp == dir || strings.HasPrefix(mp, dir+"/") {
			out = append(out, mp)
		}
	}
	slices.Reverse(out) // later mounts may sit on earlier ones
	return out
}

func unescapeMount(s string) string {
	r := strings.NewReplacer(`\040`, " ", `\011`, "\t", `\012`, "\n", `\134`, `\`)
	return r.Replace(s)
}

// cgroupDirs: /sys/fs/cgroup/<hierarchy>/<Name> in every cgroup v1
// hierarchy, or /sys/fs/cgroup/<Name> on cgroup v2.
func cgroupDirs(cfg Config) []string {
	var out []string
	if _, err := os.Stat(filepath.Join("/sys/fs/cgroup", cfg.Name)); err == nil {
		out = append(out, filepath.Join("/sys/fs/cgroup", cfg.Name))
	}
	m, _ := filepath.Glob(filepath.Join("/sys/fs/cgroup", "*", cfg.Name))
	return append(out, m...)
}

// removeCgroup removes a cgroup tree, deepest first (cgroup directories
// are removed with rmdir, and only once empty of processes).
func removeCgroup(root string) error {
	var dirs []string
	filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if err == nil && d.IsDir() {
			dirs = append(dirs, p)
		}
		return nil
	})
	slices.Reverse(dirs)
	var errs []error
	for _, d := range dirs {
		var err error
		for i := 0; i < 50; i++ { // a process may still be exiting
			if err = syscall.Rmdir(d); err == nil || errors.Is(err, syscall.ENOENT) {
				err = nil
				break
			}
			time.Sleep(20 * time.Millisecond)
		}
		if err != nil {
			errs = append(errs, fmt.Errorf("rmdir %s: %w", d, err))
		}
	}
	return errors.Join(errs...)
}
