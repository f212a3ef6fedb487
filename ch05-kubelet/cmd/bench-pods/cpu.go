package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// cpuTime is the user+system CPU time process pid has used so far
// (/proc/<pid>/stat, clock ticks of 1/100 s).
func cpuTime(pid int) time.Duration {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0
	}
	s := string(b)
	if i := strings.LastIndexByte(s, ')'); i >= 0 { // the command name may hold spaces
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

// containerdPID is the node's containerd, from the pid file package
// containerd writes.
func (n *node) containerdPID() int {
	b, _ := os.ReadFile(filepath.Join(n.rc.Dir, "containerd.pid"))
	pid, _ := strconv.Atoi(strings.TrimSpace(string(b)))
	return pid
}

// cpu is the CPU time the ch05 program and its containerd have used.
func (n *node) cpu() time.Duration { return cpuTime(n.Cmd.Process.Pid) + cpuTime(n.containerdPID()) }

// idleCPU is the CPU the ch05 program and its containerd use per second
// over d while nothing changes: with pods running, that is the price of the
// kubelet's housekeeping (every pod synced through the CRI each second, in
// place of upstream's PLEG).
func idleCPU(n *node, what string, d time.Duration) {
	ctrd := n.containerdPID()
	p0, c0 := cpuTime(n.Cmd.Process.Pid), cpuTime(ctrd)
	time.Sleep(d)
	per := func(t time.Duration) string { return fmt.Sprintf("%3.0f%%", 100*t.Seconds()/d.Seconds()) }
	fmt.Printf("  steady state, %s: ch05 program %s of a CPU, containerd %s (over %v)\n", what,
		per(cpuTime(n.Cmd.Process.Pid)-p0), per(cpuTime(ctrd)-c0), d)
}
