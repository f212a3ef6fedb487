package main

import (
	"strings"
	"testing"
	"time"
)

func TestPercentile(t *testing.T) {
	var d []time.Duration
	for i := 30; i >= 1; i-- { // unsorted on purpose: summarize sorts
		d = append(d, time.Duration(i)*time.Second)
	}
	s := summarize(d)
	want := summary{N: 30, P50: 15 * time.Second, P90: 27 * time.Second, P99: 30 * time.Second, Max: 30 * time.Second}
	if s != want {
		t.Errorf("summarize(1..30 s) = %+v, want %+v", s, want)
	}
	if d[0] != 30*time.Second {
		t.Errorf("summarize changed its input: %v", d[:3])
	}
	// 200 samples: p99 is the 198th, not the maximum.
	d = d[:0]
	for i := 1; i <= 200; i++ {
		d = append(d, time.Duration(i)*time.Millisecond)
	}
	if s := summarize(d); s.P99 != 198*time.Millisecond || s.P50 != 100*time.Millisecond || s.Max != 200*time.Millisecond {
		t.Errorf("summarize(1..200 ms) = %+v", s)
	}
	if s := summarize([]time.Duration{7}); s.P50 != 7 || s.P99 != 7 || s.N != 1 {
		t.Errorf("one sample: %+v", s)
	}
	if s := summarize(nil); s != (summary{}) {
		t.Errorf("no samples: %+v", s)
	}
}

func TestVerdict(t *testing.T) {
	if got := verdict(time.Second, 2*time.Second); got != "ok   0.50x" {
		t.Errorf("verdict(1s, 2s) = %q", got)
	}
	if got := verdict(3*time.Second, 2*time.Second); got != "OVER 1.50x" {
		t.Errorf("verdict(3s, 2s) = %q", got)
	}
}

// TestKubeletPhases reads the kubelet's milestones from log lines as the
// ch05 program writes them (log/slog's text handler).
func TestKubeletPhases(t *testing.T) {
	log := `time=2026-11-30T08:30:00.700Z level=INFO msg="volume set up" component=kubelet node=n pod=default/paced-001 volume=kube-api-access-x path=/p
time=2026-11-30T08:30:01.100Z level=INFO msg="sandbox started" component=kubelet node=n pod=default/paced-001 sandbox=0123456789ab took=300ms
time=2026-11-30T08:30:01.150Z level=INFO msg="sandbox started" component=kubelet node=n pod=other/paced-001 sandbox=0123456789ab took=1s
time=2026-11-30T08:30:01.400Z level=INFO msg="container started" component=kubelet node=n pod=default/paced-001 container=sleep attempt=0 id=abc
time=2026-11-30T08:30:09.000Z level=INFO msg="container started" component=kubelet node=n pod=default/paced-001 container=sleep attempt=1 id=def
time=2026-11-30T08:30:01.450Z level=INFO msg="pod status" component=kubelet node=n pod=default/paced-001 phase=Running podIP=10.244.0.2
time=2026-11-30T08:30:20.000Z level=INFO msg="pod status" component=kubelet node=n pod=default/paced-001 phase=Succeeded podIP=10.244.0.2
time=2026-11-30T08:30:01.500Z level=INFO msg="sandbox started" component=containerd pod=default/paced-002 took=1ms
`
	got := kubeletPhases(strings.NewReader(log), "default")
	if len(got) != 1 || got["paced-001"] == nil {
		t.Fatalf("pods = %v, want only paced-001", got)
	}
	at := func(s string) time.Time { v, _ := time.Parse(time.RFC3339Nano, "2026-11-30T08:30:"+s+"Z"); return v }
	want := kubeletTimes{volumes: at("00.700"), sandboxBegin: at("00.800"), sandboxDone: at("01.100"), started: at("01.400"), statusSent: at("01.450")}
	if *got["paced-001"] != want {
		t.Errorf("paced-001 = %+v, want %+v", *got["paced-001"], want)
	}
}
