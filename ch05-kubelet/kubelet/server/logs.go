package server

// GET /containerLogs/<ns>/<pod>/<container>: `kubectl logs`. The query is
// upstream's PodLogOptions (follow, previous, timestamps, tailLines,
// limitBytes, sinceSeconds, sinceTime); the kubelet names the log file,
// package logs reads it.

import (
	"fmt"
	"io"
	"net/http"
	"strconv"
	"time"

	"kubik/ch05-kubelet/kubelet/kuberuntime/logs"
)

// parseLogOptions reads the query of /containerLogs.
func parseLogOptions(q map[string][]string, now time.Time) (logs.LogOptions, error) {
	get := func(k string) string {
		if v := q[k]; len(v) > 0 {
			return v[0]
		}
		return ""
	}
	opts := logs.LogOptions{Tail: -1, Bytes: -1}
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
	opts.Follow, opts.Timestamps = boolean("follow"), boolean("timestamps")
	if tail := get("tail"); tail != "" && tail != "all" && get("tailLines") == "" {
		q["tailLines"] = []string{tail} // the old name of tailLines
	}
	opts.Tail = integer("tailLines", -1)
	opts.Bytes = integer("limitBytes", -1)
	if s := integer("sinceSeconds", 0); s > 0 {
		opts.Since = now.Add(-time.Duration(s) * time.Second)
	}
	if st := get("sinceTime"); st != "" {
		t, e := time.Parse(time.RFC3339, st)
		if e != nil {
			err = e
		} else if t.After(opts.Since) {
			opts.Since = t
		}
	}
	return opts, err
}

// serveContainerLogs: GET /containerLogs/<ns>/<pod>/<container>.
func (s *Server) serveContainerLogs(w http.ResponseWriter, r *http.Request) {
	ns, name, container := r.PathValue("namespace"), r.PathValue("pod"), r.PathValue("container")
	query := r.URL.Query()
	opts, err := parseLogOptions(query, time.Now())
	if err != nil {
		writeError(w, http.StatusBadRequest, `{"message": "Unable to decode query."}`)
		return
	}
	if opts.Tail < -1 || opts.Bytes == 0 || opts.Bytes < -1 {
		writeError(w, http.StatusUnprocessableEntity, `{"message": "Invalid request."}`)
		return
	}
	pod, ok := s.host.GetPodByName(ns, name)
	if !ok {
		writeError(w, http.StatusNotFound, fmt.Sprintf("pod %q does not exist", name))
		return
	}
	if !containerSpec(pod, container) {
		writeError(w, http.StatusNotFound, fmt.Sprintf("container %q not found in pod %q", container, name))
		return
	}
	previous, _ := strconv.ParseBool(query.Get("previous"))
	path, running, err := s.host.GetContainerLogFile(r.Context(), pod, container, previous)
	if err != nil {
		writeError(w, http.StatusBadRequest, err.Error())
		return
	}
	w.Header().Set("Content-Type", "text/plain")
	w.WriteHeader(http.StatusOK)
	out := &flushWriter{w: w, rc: http.NewResponseController(w)}
	if err := logs.ReadLogs(r.Context(), path, opts, out, running); err != nil && r.Context().Err() == nil {
		s.log.Warn("reading container log failed", "pod", ns+"/"+name, "container", container, "err", err)
	}
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
