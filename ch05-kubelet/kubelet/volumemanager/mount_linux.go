//go:build linux

package volumemanager

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"
	"syscall"
)

// mountTmpfs mounts a tmpfs of size bytes (0: the kernel's default, half
// the memory) on dir: mount -t tmpfs -o size=<size> tmpfs <dir>.
func mountTmpfs(dir string, size int64) error {
	opts := ""
	if size > 0 {
		opts = fmt.Sprintf("size=%d", size)
	}
	if err := syscall.Mount("tmpfs", dir, "tmpfs", 0, opts); err != nil {
		return fmt.Errorf("mount -t tmpfs -o %s tmpfs %s: %w", opts, dir, err)
	}
	return nil
}

// unmount unmounts dir; a busy mount is detached (MNT_DETACH) — the
// containers that used it are gone by then.
func unmount(dir string) error {
	err := syscall.Unmount(dir, 0)
	if errors.Is(err, syscall.EBUSY) {
		err = syscall.Unmount(dir, syscall.MNT_DETACH)
	}
	if errors.Is(err, syscall.EINVAL) || errors.Is(err, syscall.ENOENT) {
		return nil // not (or no longer) a mount point
	}
	return err
}

// isMountPoint: is something mounted exactly on dir?
func isMountPoint(dir string) bool {
	return slices.Contains(mountPoints(), dir)
}

// MountsUnder lists the mount points at or below dir, deepest (latest) first.
func MountsUnder(dir string) []string {
	var out []string
	for _, mp := range mountPoints() {
		if mp == dir || strings.HasPrefix(mp, dir+"/") {
			out = append(out, mp)
		}
	}
	slices.Reverse(out)
	return out
}

// mountPoints are the mount points of /proc/self/mountinfo, in order.
func mountPoints() []string {
	f, err := os.Open("/proc/self/mountinfo")
	if err != nil {
		return nil
	}
	defer f.Close()
	unescape := strings.NewReplacer(`\040`, " ", `\011`, "\t", `\012`, "\n", `\134`, `\`)
	var out []string
	s := bufio.NewScanner(f)
	s.Buffer(make([]byte, 64<<10), 1<<20)
	for s.Scan() {
		if fields := strings.Fields(s.Text()); len(fields) >= 5 {
			out = append(out, unescape.Replace(fields[4]))
		}
	}
	return out
}
