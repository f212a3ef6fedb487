package kubelet

// Container logs (`kubectl logs`). The runtime writes each container's
// stdout and stderr to the file the kubelet named in CreateContainer
// (<pod-logs-dir>/<ns>_<pod>_<uid>/<container>/<attempt>.log), one line
// per write in the CRI log format:
//
//	2026-11-30T08:00:00.123456789Z stdout F hello
//	2026-11-30T08:00:00.123456789Z stderr P a long line, first part,
//	2026-11-30T08:00:00.223456789Z stderr F and the rest
//
// (F: full line, P: partial: the line goes on in the next entry). The
// kubelet reads them back as upstream does (k8s.io/cri-client/pkg/logs):
// tailLines counts entries from the end, sinceSeconds/sinceTime skip older
// entries, timestamps puts each line's time in front, limitBytes cuts the
// output, follow keeps reading until the container exits or the client
// goes away.

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"strconv"
	"strings"
	"time"

	cri "k8s.io/cri-api/pkg/apis/runtime/v1"

	"kubik/ch01-apiserver/api/corev1"
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

// logOptions are PodLogOptions as the reader needs them.
type logOptions struct {
	tail       int64 // entries from the end; -1: all
	bytes      int64 // at most this many bytes; -1: no limit
	since      time.Time
	follow     bool
	timestamps bool
}

// parseLogOptions reads the query of /containerLogs.
func parseLogOptions(q map[string][]string, now time.Time) (logOptions, error) {
	get := func(k string) string {
		if v := q[k]; len(v) > 0 {
			return v[0]
		}
		return ""
	}
	opts := logOptions{tail: -1, bytes: -1}
	var err error
	boolean := func(k string) bool {
		b, e := strconv.ParseBool(get(k))
		if get(k) != "" && e != nil {
			err = e
		}
		return b
	}
	integer := func(k string, def int64) int64 {
		if get(k) == "" {
			return def
		}
		n, e := strconv.ParseInt(get(k), 10, 64)
		if e != nil {
			err = e
		}
		return n
	}
	opts.follow, opts.timestamps = boolean("follow"), boolean("timestamps")
	if tail := get("tail"); tail != "" && tail != "all" && get("tailLines") == "" {
		q["tailLines"] = []string{tail} // the old name of tailLines
	}
	opts.tail = integer("tailLines", -1)
	opts.bytes = integer("limitBytes", -1)
	if s := integer("sinceSeconds", 0); s > 0 {
		opts.since = now.Add(-time.Duration(s) * time.Second)
	}
	if st := get("sinceTime"); st != "" {
		t, e := time.Parse(time.RFC3339, st)
		if e != nil {
			err = e
		} else if t.After(opts.since) {
			opts.since = t
		}
	}
	return opts, err
}

// serveContainerLogs: GET /containerLogs/<ns>/<pod>/<container>.
func (k *Kubelet) serveContainerLogs(w http.ResponseWriter, r *http.Request) {
	ns, name, container := r.PathValue("namespace"), r.PathValue("pod"), r.PathValue("container")
	query := r.URL.Query()
	opts, err := parseLogOptions(query, time.Now())
	if err != nil {
		writeError(w, http.StatusBadRequest, `{"message": "Unable to decode query."}`)
		return
	}
	if opts.tail < -1 || opts.bytes == 0 || opts.bytes < -1 {
		writeError(w, http.StatusUnprocessableEntity, `{"message": "Invalid request."}`)
		return
	}
	pod, ok := k.podByName(ns, name)
	if !ok {
		writeError(w, http.StatusNotFound, fmt.Sprintf("pod %q does not exist", name))
		return
	}
	if !containerSpec(pod, container) {
		writeError(w, http.StatusNotFound, fmt.Sprintf("container %q not found in pod %q", container, name))
		return
	}
	previous, _ := strconv.ParseBool(query.Get("previous"))
	id, err := containerLogID(pod, container, previous)
	if err != nil {
		writeError(w, http.StatusBadRequest, err.Error())
		return
	}
	st, err := k.rt.ContainerStatus(r.Context(), &cri.ContainerStatusRequest{ContainerId: id})
	if err != nil {
		writeError(w, http.StatusBadRequest, fmt.Sprintf("failed to get container status %q: %v", id, grpcMessage(err)))
		return
	}
	running := func() bool {
		s, err := k.rt.ContainerStatus(r.Context(), &cri.ContainerStatusRequest{ContainerId: id})
		return err == nil && s.Status.State == cri.ContainerState_CONTAINER_RUNNING
	}
	w.Header().Set("Content-Type", "text/plain")
	w.WriteHeader(http.StatusOK)
	out := &flushWriter{w: w, rc: http.NewResponseController(w)}
	if err := readLogs(r.Context(), st.Status.LogPath, opts, out, running); err != nil && r.Context().Err() == nil {
		k.log.Warn("reading container log failed", "pod", ns+"/"+name, "container", container, "err", err)
	}
}

// containerLogID picks the container whose log is wanted, from the pod's
// status, with upstream's messages (validateContainerLogStatus in
// pkg/kubelet/kubelet_pods.go): the running one, else the last one that
// ran; with previous, the one before the current.
func containerLogID(pod *corev1.Pod, container string, previous bool) (string, error) {
	var cs *corev1.ContainerStatus
	for _, list := range [][]corev1.ContainerStatus{pod.Status.ContainerStatuses, pod.Status.InitContainerStatuses, pod.Status.EphemeralContainerStatuses} {
		for i := range list {
			if list[i].Name == container && cs == nil {
				cs = &list[i]
			}
		}
	}
	if cs == nil {
		return "", fmt.Errorf("container %q in pod %q is not available", container, pod.Name)
	}
	last := cs.LastTerminationState.Terminated
	var id string
	switch st := cs.State; {
	case previous:
		if last == nil || last.ContainerID == "" {
			return "", fmt.Errorf("previous terminated container %q in pod %q not found", container, pod.Name)
		}
		id = last.ContainerID
	case st.Running != nil:
		id = cs.ContainerID
	case st.Terminated != nil:
		id = st.Terminated.ContainerID
		if id == "" && last != nil {
			id = last.ContainerID
		}
		if id == "" {
			return "", fmt.Errorf("container %q in pod %q is terminated", container, pod.Name)
		}
	case last != nil:
		if last.ContainerID == "" {
			return "", fmt.Errorf("container %q in pod %q is terminated", container, pod.Name)
		}
		id = last.ContainerID
	case st.Waiting != nil:
		switch reason := st.Waiting.Reason; reason {
		case "ErrImagePull":
			return "", fmt.Errorf("container %q in pod %q is waiting to start: image can't be pulled", container, pod.Name)
		case "ImagePullBackOff":
			return "", fmt.Errorf("container %q in pod %q is waiting to start: trying and failing to pull image", container, pod.Name)
		default:
			return "", fmt.Errorf("container %q in pod %q is waiting to start: %v", container, pod.Name, reason)
		}
	default:
		return "", fmt.Errorf("container %q in pod %q is waiting to start - no logs yet", container, pod.Name)
	}
	_, id, _ = strings.Cut(id, "://") // containerd://<id>
	return id, nil
}

// readLogs copies the log file at path to w as opts say. With follow it
// keeps reading new entries until running reports the container stopped
// (then the rest is read) or ctx ends.
func readLogs(ctx context.Context, path string, opts logOptions, w io.Writer, running func() bool) error {
	f, err := os.Open(path)
	if err != nil {
		return fmt.Errorf("failed to open log file %q: %v", path, err)
	}
	defer f.Close()
	start, err := tailStart(f, opts.tail)
	if err != nil {
		return err
	}
	if _, err := f.Seek(start, io.SeekStart); err != nil {
		return err
	}
	r := bufio.NewReader(f)
	lw := &logWriter{w: w, opts: opts, remain: opts.bytes, newLine: true}
	lastPass := false
	for {
		line, err := r.ReadBytes('\n')
		if err == io.EOF {
			if !opts.follow || lastPass {
				if len(line) > 0 && !opts.follow { // an unfinished last line
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
	opts    logOptions
	remain  int64 // bytes still allowed; -1: no limit
	newLine bool  // the next entry starts a new line (and gets a timestamp)
}

func (lw *logWriter) write(line []byte) error {
	msg, err := parseCRILog(line)
	if err != nil {
		return nil // upstream logs and skips entries it cannot parse
	}
	if msg.timestamp.Before(lw.opts.since) {
		return nil
	}
	out := msg.log
	if lw.opts.timestamps && lw.newLine {
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

// flushWriter flushes every write: a followed log reaches the client as
// it is written.
type flushWriter struct {
	w  io.Writer
	rc *http.ResponseController
}

func (f *flushWriter) Write(p []byte) (int, error) {
	n, err := f.w.Write(p)
	if err == nil {
		err = f.rc.Flush()
	}
	return n, err
}
