package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"kubik/internal/testenv"
)

// containerdPID is the node's containerd, from the pid file package
// containerd writes.
func (n *node) containerdPID() int {
	b, _ := os.ReadFile(filepath.Join(n.rc.Dir, "containerd.pid"))
	pid, _ := strconv.Atoi(strings.TrimSpace(string(b)))
	return pid
}

// cpu is the CPU time the ch05 program and its containerd have used.
func (n *node) cpu() time.Duration {
	return testenv.CPUTime(n.Cmd.Process.Pid) + testenv.CPUTime(n.containerdPID())
}

// idleCPU is the CPU the ch05 program and its containerd use per second
// over d while nothing changes: with pods running, that is the price of the
// kubelet's housekeeping (every pod synced through the CRI each second, in
// place of upstream's PLEG).
func idleCPU(n *node, what string, d time.Duration) {
	ctrd := n.containerdPID()
	p0, c0 := testenv.CPUTime(n.Cmd.Process.Pid), testenv.CPUTime(ctrd)
	time.Sleep(d)
	per := func(t time.Duration) string { return fmt.Sprintf("%3.0f%%", 100*t.Seconds()/d.Seconds()) }
	fmt.Printf("  steady state, %s: ch05 program %s of a CPU, containerd %s (over %v)\n", what,
		per(testenv.CPUTime(n.Cmd.Process.Pid)-p0), per(testenv.CPUTime(ctrd)-c0), d)
}
