package logs

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"
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
		opts LogOptions
		want string
	}{
		{"all", LogOptions{Tail: -1, Bytes: -1}, "one\ntwo\nthree\nfour\n"},
		{"tail 1", LogOptions{Tail: 1, Bytes: -1}, "four\n"},
		{"tail 2 counts entries, as upstream", LogOptions{Tail: 2, Bytes: -1}, "ee\nfour\n"},
		{"tail 0", LogOptions{Tail: 0, Bytes: -1}, ""},
		{"tail more than there are", LogOptions{Tail: 100, Bytes: -1}, "one\ntwo\nthree\nfour\n"},
		{"timestamps only at line starts", LogOptions{Tail: -1, Bytes: -1, Timestamps: true},
			"2026-11-30T08:00:01.000000001Z one\n2026-11-30T08:00:02.500000000Z two\n" +
				"2026-11-30T08:00:03.000000003Z three\n2026-11-30T08:00:04.000000004Z four\n"},
		{"limitBytes cuts", LogOptions{Tail: -1, Bytes: 6}, "one\ntw"},
		{"since skips older entries", LogOptions{Tail: -1, Bytes: -1, Since: since("2026-11-30T08:00:03Z")}, "three\nfour\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var out bytes.Buffer
			if err := ReadLogs(context.Background(), path, tc.opts, &out, nil); err != nil {
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
	if err := ReadLogs(context.Background(), path, LogOptions{Tail: -1, Bytes: -1}, &out, nil); err != nil || out.String() != "one\n" {
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
		done <- ReadLogs(context.Background(), path, LogOptions{Tail: -1, Bytes: -1, Follow: true}, pw, func() bool {
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
