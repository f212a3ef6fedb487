package testenv

import (
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"
)

// CPUTime is the user+system CPU time process pid has used so far, from
// /proc/<pid>/stat (clock ticks of 1/100 s on Linux); 0 when unreadable
// (another OS, or the process is gone). The benchmarks report it.
func CPUTime(pid int) time.Duration {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0
	}
	// The command name (field 2) may contain spaces; the fields after ')'
	// are fixed: utime is the 14th field, stime the 15th.
	s := string(b)
	if i := strings.LastIndexByte(s, ')'); i >= 0 {
		s = s[i+1:]
	}
	f := strings.Fields(s)
	if len(f) < 13 {
		return 0
	}
	utime, _ := strconv.ParseInt(f[11], 10, 64)
	stime, _ := strconv.ParseInt(f[12], 10, 64)
	return time.Duration(utime+stime) * 10 * time.Millisecond
}
