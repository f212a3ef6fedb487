package apiserver

import (
	"fmt"
	"net/http"
	"runtime"
	"sort"
	"strings"
)

// serveHealth answers /healthz and /livez: the process is alive.
func (s *Server) serveHealth(w http.ResponseWriter, r *http.Request) {
	s.writeChecks(w, r, []check{{"ping", nil}, {"log", nil}}, strings.TrimPrefix(strings.Split(strings.Trim(r.URL.Path, "/"), "/")[0], "/"))
}

// serveReady answers /readyz: ok once bootstrap is done and every ready check passes.
func (s *Server) serveReady(w http.ResponseWriter, r *http.Request) {
	checks := []check{{"ping", nil}, {"log", nil}}
	names := make([]string, 0, len(s.cfg.ReadyChecks))
	for name := range s.cfg.ReadyChecks {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		checks = append(checks, check{name, s.cfg.ReadyChecks[name](r.Context())})
	}
	var bootstrap error
	if !s.ready.Load() {
		bootstrap = fmt.Errorf("bootstrap not finished")
	}
	checks = append(checks, check{"poststarthook/kubik-bootstrap", bootstrap})
	s.writeChecks(w, r, checks, "readyz")
}

type check struct {
	name string
	err  error
}

// writeChecks prints "ok", or upstream's verbose list ("[+]ping ok") when
// asked with ?verbose or when something failed.
func (s *Server) writeChecks(w http.ResponseWriter, r *http.Request, checks []check, endpoint string) {
	failed := false
	var b strings.Builder
	for _, c := range checks {
		if c.err != nil {
			failed = true
			fmt.Fprintf(&b, "[-]%s failed: reason withheld\n", c.name)
		} else {
			fmt.Fprintf(&b, "[+]%s ok\n", c.name)
		}
	}
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	w.Header().Set("X-Content-Type-Options", "nosniff")
	if failed {
		for _, c := range checks {
			if c.err != nil {
				s.log.Info("check failed", "endpoint", endpoint, "check", c.name, "err", c.err)
			}
		}
		w.WriteHeader(http.StatusInternalServerError)
		fmt.Fprintf(w, "%s%s check failed\n", b.String(), endpoint)
		return
	}
	if _, verbose := r.URL.Query()["verbose"]; verbose {
		fmt.Fprintf(w, "%s%s check passed\n", b.String(), endpoint)
		return
	}
	fmt.Fprint(w, "ok")
}

func (s *Server) serveVersion(w http.ResponseWriter, r *http.Request) {
	v := Version
	v.GoVersion = runtime.Version()
	v.Platform = runtime.GOOS + "/" + runtime.GOARCH
	writeRawJSON(w, http.StatusOK, v)
}
