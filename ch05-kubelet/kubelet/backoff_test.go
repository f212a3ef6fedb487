package kubelet

import (
	"slices"
	"testing"
	"time"
)

// The CrashLoopBackOff sequence of upstream's kubelet: the first restart
// at once, then 10s, 20s, 40s ... capped at 5m; forgotten after 10m of
// quiet.
func TestBackoff(t *testing.T) {
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	b := NewBackoff()
	b.Now = func() time.Time { return now }
	const id = "uid/c"

	if b.IsInBackOffSince(id, now) {
		t.Fatal("first failure: no back-off, restart at once")
	}
	b.Next(id, now)
	var delays []time.Duration
	for i := 0; i < 7; i++ {
		exited := now
		if !b.IsInBackOffSince(id, exited) {
			t.Fatalf("failure %d: not in back-off", i+2)
		}
		d := b.Get(id)
		delays = append(delays, d)
		now = now.Add(d - time.Millisecond)
		if !b.IsInBackOffSince(id, exited) {
			t.Fatalf("failure %d: back-off over before %v", i+2, d)
		}
		now = now.Add(time.Millisecond)
		if b.IsInBackOffSince(id, exited) {
			t.Fatalf("failure %d: still in back-off after %v", i+2, d)
		}
		b.Next(id, exited)
	}
	want := []time.Duration{10 * time.Second, 20 * time.Second, 40 * time.Second, 80 * time.Second, 160 * time.Second, 5 * time.Minute, 5 * time.Minute}
	for i := range want {
		if delays[i] != want[i] {
			t.Errorf("delays %v, want %v", delays, want)
			break
		}
	}
	// Ten quiet minutes later the back-off starts over.
	now = now.Add(11 * time.Minute)
	if b.IsInBackOffSince(id, now) {
		t.Error("back-off not forgotten after 2×max")
	}
	b.Next(id, now)
	if b.Get(id) != 10*time.Second {
		t.Errorf("after a long run: delay %v, want 10s", b.Get(id))
	}
	b.Forget("uid/")
	if b.Get(id) != 0 {
		t.Error("Forget kept the entry")
	}
}

func TestNormalizeImage(t *testing.T) {
	for in, want := range map[string]string{
		"busybox":                        "docker.io/library/busybox:latest",
		"busybox:1.35":                   "docker.io/library/busybox:1.35",
		"library/busybox":                "docker.io/library/busybox:latest",
		"bitnami/nginx:1.2":              "docker.io/bitnami/nginx:1.2",
		"registry.k8s.io/pause:3.10":     "registry.k8s.io/pause:3.10",
		"kubik.local/demo":               "kubik.local/demo:latest",
		"localhost:5000/app":             "localhost:5000/app:latest",
		"localhost/app:v1":               "localhost/app:v1",
		"busybox@sha256:0123456789abcde": "docker.io/library/busybox@sha256:0123456789abcde",
		"docker.io/library/busybox:1.35": "docker.io/library/busybox:1.35",
	} {
		if got := NormalizeImage(in); got != want {
			t.Errorf("NormalizeImage(%q) = %q, want %q", in, got, want)
		}
	}
}

// A failed image pull waits from the failure, upstream's
// IsInBackOffSinceUpdate: retries at 10s, 20s, 40s ... 5m after each
// failed pull, whatever the time passed in is compared with.
func TestBackoffSinceUpdate(t *testing.T) {
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	b := NewBackoff()
	b.Now = func() time.Time { return now }
	const id = "uid/image/busybox"
	if b.IsInBackOffSinceUpdate(id, now) {
		t.Fatal("the first pull waits")
	}
	var delays []time.Duration
	for range 7 {
		b.Next(id, now) // a pull failed now
		d := b.Get(id)
		delays = append(delays, d)
		now = now.Add(d - time.Second)
		if !b.IsInBackOffSinceUpdate(id, now) {
			t.Fatalf("pulled again %v after a failure, before the back-off of %v", d-time.Second, d)
		}
		now = now.Add(time.Second)
		if b.IsInBackOffSinceUpdate(id, now) {
			t.Fatalf("still in back-off %v after a failure (back-off %v)", d, d)
		}
	}
	want := []time.Duration{10 * time.Second, 20 * time.Second, 40 * time.Second, 80 * time.Second, 160 * time.Second, 5 * time.Minute, 5 * time.Minute}
	if !slices.Equal(delays, want) {
		t.Errorf("delays %v, want %v", delays, want)
	}
}
