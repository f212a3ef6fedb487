package testenv

import (
	"os"
	"runtime"
	"testing"
	"time"
)

func TestCPUTime(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("/proc is Linux's")
	}
	before := CPUTime(os.Getpid())
	for start := time.Now(); time.Since(start) < 100*time.Millisecond; { // burn CPU
	}
	if d := CPUTime(os.Getpid()) - before; d <= 0 {
		t.Errorf("100 ms of spinning used %v of CPU", d)
	}
	if d := CPUTime(-1); d != 0 {
		t.Errorf("CPUTime of no process = %v, want 0", d)
	}
}
