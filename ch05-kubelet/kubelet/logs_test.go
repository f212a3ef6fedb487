package kubelet

import (
	"bytes"
	"context"
	"net/url"
	"os"
	"path/filepath"
	"testing"
	"time"

	"kubik/ch01-apiserver/api/corev1"
)

// A CRI log file as containerd writes it: stdout and stderr entries, a
// line split into two partial entries.
const criLog = `2026-11-30T08:00:01.000000001Z stdout F one
2026-11-30T08:00:02.5Z stderr F two
2026-11-30T08:00:03.000000003Z stdout P thr
2026-11-30T08:00:03.100000000Z stdout F ee
2026-11-30T08:00:04.000000004Z stdout F four
`

func writeLog(t *testing.T, content string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "0.log")
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestReadLogs(t *testing.T) {
	path := writeLog(t, criLog)
	since := func(s string) time.Time { tm, _ := time.Parse(time.RFC3339Nano, s); return tm }
	for _, tc := range []struct {
		name string
		opts logOptions
		want string
	}{
		{"all", logOptions{tail: -1, bytes: -1}, "one\ntwo\nthree\nfour\n"},
		{"tail 1", logOptions{tail: 1, bytes: -1}, "four\n"},
		{"tail 2 counts entries, as upstream", logOptions{tail: 2, bytes: -1}, "ee\nfour\n"},
		{"tail 0", logOptions{tail: 0, bytes: -1}, ""},
		{"tail more than there are", logOptions{tail: 100, bytes: -1}, "one\ntwo\nthree\nfour\n"},
		{"timestamps only at line starts", logOptions{tail: -1, bytes: -1, timestamps: true},
			"2026-11-30T08:00:01.000000001Z one\n2026-11-30T08:00:02.500000000Z two\n" +
				"2026-11-30T08:00:03.000000003Z three\n2026-11-30T08:00:04.000000004Z four\n"},
		{"limitBytes cuts", logOptions{tail: -1, bytes: 6}, "one\ntw"},
		{"since skips older entries", logOptions{tail: -1, bytes: -1, since: since("2026-11-30T08:00:03Z")}, "three\nfour\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var out bytes.Buffer
			if err := readLogs(context.Background(), path, tc.opts, &out, nil); err != nil {
				t.Fatal(err)
			}
			if out.String() != tc.want {
				t.Errorf("got %q, want %q", out.String(), tc.want)
			}
		})
	}
}

func TestParseCRILogRejectsGarbage(t *testing.T) {
	for _, line := range []string{"no-spaces\n", "2026-11-30T08:00:01Z stdout\n", "2026-11-30T08:00:01Z other F x\n", "yesterday stdout F x\n"} {
		if _, err := parseCRILog([]byte(line)); err == nil {
			t.Errorf("parseCRILog(%q) accepted it", line)
		}
	}
	var out bytes.Buffer
	path := writeLog(t, "garbage\n"+criLog[:len("2026-11-30T08:00:01.000000001Z stdout F one\n")])
	if err := readLogs(context.Background(), path, logOptions{tail: -1, bytes: -1}, &out, nil); err != nil || out.String() != "one\n" {
		t.Errorf("unparsable entries must be skipped: %q, %v", out.String(), err)
	}
}

// Following reads what is appended, then stops once the container is no
// longer running (after reading the rest).
func TestReadLogsFollow(t *testing.T) {
	path := writeLog(t, "2026-11-30T08:00:01Z stdout F first\n")
	stopped := make(chan struct{})
	pr, pw := ioPipe()
	done := make(chan error, 1)
	go func() {
		done <- readLogs(context.Background(), path, logOptions{tail: -1, bytes: -1, follow: true}, pw, func() bool {
			select {
			case <-stopped:
				return false
			default:
				return true
			}
		})
		pw.Close()
	}()
	if got := pr.readLine(t); got != "first\n" {
		t.Fatalf("first line %q", got)
	}
	f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString("2026-11-30T08:00:02Z stdout F second\n")
	if got := pr.readLine(t); got != "second\n" {
		t.Fatalf("appended line %q", got)
	}
	f.WriteString("2026-11-30T08:00:03Z stdout F last\n")
	f.Close()
	close(stopped)
	if got := pr.readLine(t); got != "last\n" {
		t.Fatalf("line written before the exit %q", got)
	}
	if err := <-done; err != nil {
		t.Fatal(err)
	}
}

func TestParseLogOptions(t *testing.T) {
	now := time.Date(2026, 11, 30, 8, 0, 0, 0, time.UTC)
	q, _ := url.ParseQuery("follow=true&timestamps=1&tailLines=5&limitBytes=10&sinceSeconds=60")
	o, err := parseLogOptions(q, now)
	if err != nil || !o.follow || !o.timestamps || o.tail != 5 || o.bytes != 10 || !o.since.Equal(now.Add(-time.Minute)) {
		t.Errorf("got %+v, %v", o, err)
	}
	q, _ = url.ParseQuery("tail=3")
	if o, _ := parseLogOptions(q, now); o.tail != 3 {
		t.Errorf("the old tail parameter: %+v", o)
	}
	q, _ = url.ParseQuery("tailLines=x")
	if _, err := parseLogOptions(q, now); err == nil {
		t.Error("tailLines=x accepted")
	}
}

// The container whose log is read, and upstream's messages when there is none.
func TestContainerLogID(t *testing.T) {
	pod := &corev1.Pod{}
	pod.Name = "web"
	running := corev1.ContainerStatus{Name: "app", ContainerID: "containerd://cur",
		State:                corev1.ContainerState{Running: &corev1.ContainerStateRunning{}},
		LastTerminationState: corev1.ContainerState{Terminated: &corev1.ContainerStateTerminated{ContainerID: "containerd://prev"}}}
	waiting := corev1.ContainerStatus{Name: "side", State: corev1.ContainerState{Waiting: &corev1.ContainerStateWaiting{Reason: "ContainerCreating"}}}
	pulling := corev1.ContainerStatus{Name: "img", State: corev1.ContainerState{Waiting: &corev1.ContainerStateWaiting{Reason: "ImagePullBackOff"}}}
	pod.Status.ContainerStatuses = []corev1.ContainerStatus{running, waiting, pulling}
	for _, tc := range []struct {
		container string
		previous  bool
		want      string
	}{
		{"app", false, "cur"},
		{"app", true, "prev"},
		{"side", false, `container "side" in pod "web" is waiting to start: ContainerCreating`},
		{"side", true, `previous terminated container "side" in pod "web" not found`},
		{"img", false, `container "img" in pod "web" is waiting to start: trying and failing to pull image`},
		{"gone", false, `container "gone" in pod "web" is not available`},
	} {
		id, err := containerLogID(pod, tc.container, tc.previous)
		got := id
		if err != nil {
			got = err.Error()
		}
		if got != tc.want {
			t.Errorf("%s previous=%v: got %q, want %q", tc.container, tc.previous, got, tc.want)
		}
	}
}

// linePipe carries each Write of readLogs (one log line) to the test.
type linePipe chan string

func (c linePipe) Write(p []byte) (int, error) { c <- string(p); return len(p), nil }
func (c linePipe) Close() error                { close(c); return nil }

func ioPipe() (linePipe, linePipe) {
	c := make(linePipe, 16)
	return c, c
}

func (c linePipe) readLine(t *testing.T) string {
	t.Helper()
	s, ok := <-c
	if !ok {
		t.Fatal("the log ended")
	}
	return s
}
