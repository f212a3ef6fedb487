package apiserver

import (
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"kubik/ch01-apiserver/apiserver/auth"
)

// TestMaxInFlight: with one write seat taken, a second write by an
// ordinary user waits in line and, after a quarter of the request timeout,
// gets upstream's 429; reads, watches and system:masters are not held up;
// the waiting write gets the seat as soon as it is free.
func TestMaxInFlight(t *testing.T) {
	s := &Server{cfg: Config{MaxRequestsInFlight: 1, MaxMutatingRequestsInFlight: 1, RequestTimeout: 400 * time.Millisecond}}
	release := make(chan struct{})
	entered := make(chan string, 10)
	h := s.withMaxInFlight(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		entered <- r.Method + " " + r.URL.String()
		if r.Header.Get("Block") != "" {
			<-release
		}
	}))
	scheduler := &auth.UserInfo{Name: "system:kube-scheduler", Groups: []string{auth.GroupAuthenticated}}
	admin := &auth.UserInfo{Name: "kubernetes-admin", Groups: []string{auth.GroupMasters, auth.GroupAuthenticated}}
	do := func(u *auth.UserInfo, method, target string, block bool) *httptest.ResponseRecorder {
		r := httptest.NewRequest(method, target, nil)
		if block {
			r.Header.Set("Block", "1")
		}
		r = r.WithContext(auth.WithUser(r.Context(), u))
		w := httptest.NewRecorder()
		h.ServeHTTP(w, r)
		return w
	}
	const binding = "/api/v1/namespaces/default/pods/web/binding"

	// The one write seat is taken by a request that blocks.
	first := make(chan *httptest.ResponseRecorder)
	go func() { first <- do(scheduler, "POST", binding, true) }()
	<-entered

	// A second write waits for 100 ms (400 ms / 4), then 429.
	w := do(scheduler, "POST", binding, false)
	if w.Code != http.StatusTooManyRequests || w.Header().Get("Retry-After") != "1" ||
		w.Body.String() != "Too many requests, please try again later.\n" {
		t.Errorf("second write: %d Retry-After=%q %q", w.Code, w.Header().Get("Retry-After"), w.Body.String())
	}
	// Reads have their own seats; a watch and system:masters need none.
	for _, c := range []struct {
		u              *auth.UserInfo
		method, target string
	}{
		{scheduler, "GET", "/api/v1/namespaces/default/pods/web"},
		{scheduler, "GET", "/api/v1/pods?watch=true"},
		{admin, "POST", binding},
	} {
		if w := do(c.u, c.method, c.target, false); w.Code != http.StatusOK {
			t.Errorf("%s %s %s: %d, want 200", c.u.Name, c.method, c.target, w.Code)
		}
	}
	// A write in line gets the seat when it is freed.
	waiting := make(chan *httptest.ResponseRecorder)
	go func() { waiting <- do(scheduler, "POST", binding, false) }()
	for len(entered) > 0 {
		<-entered
	}
	time.Sleep(20 * time.Millisecond) // it is in line now
	close(release)
	if w := <-first; w.Code != http.StatusOK {
		t.Errorf("first write: %d", w.Code)
	}
	if w := <-waiting; w.Code != http.StatusOK {
		t.Errorf("write that waited for the seat: %d, want 200", w.Code)
	}
}
