// Package logs reads a container's log file — written by the runtime in
// the CRI log format — back for `kubectl logs`, as upstream's kubelet does
// (k8s.io/cri-client/pkg/logs, pkg/kubelet/kuberuntime/logs before it).
// The runtime writes each container's stdout and stderr to the file the
// kubelet named in CreateContainer
// (<pod-logs-dir>/<ns>_<pod>_<uid>/<container>/<attempt>.log), one line
// per write:
//
//	2026-11-30T08:00:00.123456789Z stdout F hello
//	2026-11-30T08:00:00.123456789Z stderr P a long line, first part,
//	2026-11-30T08:00:00.223456789Z stderr F and the rest
//
// (F: full line, P: partial: the line goes on in the next entry).
// Tail counts entries from the end, Since skips older entries,
// Timestamps puts each line's time in front, Bytes cuts the output,
// Follow keeps reading until the container exits or the client goes away.
package logs

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"time"
)

// Time formats of the CRI log: written with a fixed number of digits,
// read leniently.
const (
	timeFormatOut = "2006-01-02T15:04:05.000000000Z07:00"
	timeFormatIn  = time.RFC3339Nano
)

// logPollInterval is how often a followed log is read again after its
// end (upstream waits for fsnotify events instead).
const logPollInterval = 200 * time.Millisecond

// LogOptions are the PodLogOptions the reader needs (upstream's
// logs.LogOptions).
type LogOptions struct {
	Tail       int64 // entries from the end; -1: all
	Bytes      int64 // at most this many bytes; -1: no limit
	Since      time.Time
	Follow     bool
	Timestamps bool
}

// ReadLogs copies the log file at path to w as opts say. With follow it
// keeps reading new entries until running reports the container stopped
// (then the rest is read) or ctx ends.
func ReadLogs(ctx context.Context, path string, opts LogOptions, w io.Writer, running func() bool) error {
	f, err := os.Open(path)
	if err != nil {
		return fmt.Errorf("failed to open log file %q: %v", path, err)
	}
	defer f.Close()
	start, err := tailStart(f, opts.Tail)
	if err != nil {
		return err
	}
	if _, err := f.Seek(start, io.SeekStart); err != nil {
		return err
	}
	r := bufio.NewReader(f)
	lw := &logWriter{w: w, opts: opts, remain: opts.Bytes, newLine: true}
	lastPass := false
	for {
		line, err := r.ReadBytes('\n')
		if err == io.EOF {
			if !opts.Follow || lastPass {
				if len(line) > 0 && !opts.Follow { // an unfinished last line
					return lw.write(line)
				}
				return nil
			}
			// The end for now: wait for more, unless the container is done.
			if _, err := f.Seek(-int64(len(line)), io.SeekCurrent); err != nil {
				return err
			}
			r.Reset(f)
			select {
			case <-ctx.Done():
				return ctx.Err()
			case <-time.After(logPollInterval):
			}
			lastPass = !running()
			continue
		}
		if err != nil {
			return err
		}
		if err := lw.write(line); err != nil {
			if errors.Is(err, errLimitReached) {
				return nil
			}
			return err
		}
	}
}

// tailStart is the offset of the n-th entry from the end (0 for all;
// the end for n = 0).
func tailStart(f *os.File, n int64) (int64, error) {
	if n < 0 {
		return 0, nil
	}
	var starts []int64 // the starts of the last n entries
	var off int64
	r := bufio.NewReader(f)
	for {
		line, err := r.ReadBytes('\n')
		if len(line) > 0 && line[len(line)-1] == '\n' {
			starts = append(starts, off)
			if int64(len(starts)) > n {
				starts = starts[1:]
			}
		}
		off += int64(len(line))
		if err == io.EOF {
			break
		}
		if err != nil {
			return 0, err
		}
	}
	if len(starts) == 0 || n == 0 {
		return off, nil
	}
	if int64(len(starts)) < n {
		return 0, nil
	}
	return starts[0], nil
}

// logMessage is one parsed entry.
type logMessage struct {
	timestamp time.Time
	stream    string // stdout or stderr
	log       []byte // with its newline when the entry is a full line
}

// parseCRILog parses one entry of the CRI log format.
func parseCRILog(line []byte) (logMessage, error) {
	var msg logMessage
	ts, rest, ok := bytes.Cut(line, []byte{' '})
	if !ok {
		return msg, errors.New("timestamp is not found")
	}
	t, err := time.Parse(timeFormatIn, string(ts))
	if err != nil {
		return msg, fmt.Errorf("unexpected timestamp format %q: %v", timeFormatIn, err)
	}
	stream, rest, ok := bytes.Cut(rest, []byte{' '})
	if !ok {
		return msg, errors.New("stream type is not found")
	}
	if s := string(stream); s != "stdout" && s != "stderr" {
		return msg, fmt.Errorf("unexpected stream type %q", s)
	}
	tag, rest, ok := bytes.Cut(rest, []byte{' '})
	if !ok {
		return msg, errors.New("log tag is not found")
	}
	if tags := bytes.Split(tag, []byte{':'}); string(tags[0]) == "P" {
		rest = bytes.TrimSuffix(rest, []byte{'\n'}) // a partial line continues in the next entry
	}
	return logMessage{timestamp: t, stream: string(stream), log: rest}, nil
}

// errLimitReached ends a read at limitBytes.
var errLimitReached = errors.New("maximum write")

// logWriter writes parsed entries as the options say.
type logWriter struct {
	w       io.Writer
	opts    LogOptions
	remain  int64 // bytes still allowed; -1: no limit
	newLine bool  // the next entry starts a new line (and gets a timestamp)
}

func (lw *logWriter) write(line []byte) error {
	msg, err := parseCRILog(line)
	if err != nil {
		return nil // upstream logs and skips entries it cannot parse
	}
	if msg.timestamp.Before(lw.opts.Since) {
		return nil
	}
	out := msg.log
	if lw.opts.Timestamps && lw.newLine {
		out = append([]byte(msg.timestamp.Format(timeFormatOut)+" "), out...)
	}
	lw.newLine = len(msg.log) == 0 || msg.log[len(msg.log)-1] == '\n'
	if lw.remain >= 0 && int64(len(out)) > lw.remain {
		out = out[:lw.remain]
	}
	n, err := lw.w.Write(out)
	if lw.remain >= 0 {
		lw.remain -= int64(n)
		if err == nil && lw.remain <= 0 {
			return errLimitReached
		}
	}
	return err
}
