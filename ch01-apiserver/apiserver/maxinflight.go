package apiserver

import (
	"context"
	"net/http"
	"slices"

	"kubik/ch01-apiserver/apiserver/auth"
)

// withMaxInFlight bounds how many requests the apiserver works on at once:
// at most Config.MaxRequestsInFlight reads and MaxMutatingRequestsInFlight
// writes (kube-apiserver's --max-requests-inflight 400 and
// --max-mutating-requests-inflight 200). Without such a bound a burst of
// thousands of writes (a scheduler binding 5000 pods) reaches etcd all at
// once, and the last ones wait longer than the storage timeout.
//
// Upstream's default filter here is API Priority and Fairness: those two
// numbers become the server's seats, shared out among priority levels, and
// a request without a seat waits in a queue for at most a quarter of its
// deadline, then gets 429. Kubik keeps the shape and drops the fairness:
// one first-come-first-served line for reads and one for writes. As in
// upstream:
//   - long-running requests (watches, proxy, exec, attach, portforward,
//     log) take no seat;
//   - system:masters is exempt (APF's "exempt" priority level);
//   - the refusal is a plain-text 429 "Too many requests, please try again
//     later." with Retry-After: 1, which client-go retries by itself.
func (s *Server) withMaxInFlight(next http.Handler) http.Handler {
	reads := newSeats(s.cfg.MaxRequestsInFlight)
	writes := newSeats(s.cfg.MaxMutatingRequestsInFlight)
	if reads == nil && writes == nil {
		return next
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		info := requestInfoFrom(r)
		seats := reads
		if isMutatingVerb(info.Verb) {
			seats = writes
		}
		if seats == nil || isLongRunning(info) || isMaster(r.Context()) {
			next.ServeHTTP(w, r)
			return
		}
		wait, cancel := context.WithTimeout(r.Context(), s.cfg.RequestTimeout/4)
		defer cancel()
		select {
		case seats <- struct{}{}: // blocked senders are let in first come, first served
		case <-wait.Done():
			w.Header().Set("Retry-After", "1")
			http.Error(w, "Too many requests, please try again later.", http.StatusTooManyRequests)
			return
		}
		defer func() { <-seats }()
		next.ServeHTTP(w, r)
	})
}

// newSeats is a semaphore of n seats; nil (no bound) when n <= 0, as
// upstream's 0 means "no limit".
func newSeats(n int) chan struct{} {
	if n <= 0 {
		return nil
	}
	return make(chan struct{}, n)
}

func isMutatingVerb(verb string) bool {
	return verb != "get" && verb != "list" && verb != "watch"
}

// isLongRunning is upstream's BasicLongRunningRequestCheck with
// kube-apiserver's sets: verbs watch and proxy, subresources attach, exec,
// proxy, log and portforward.
func isLongRunning(info *RequestInfo) bool {
	return info.Verb == "watch" || info.Verb == "proxy" ||
		slices.Contains([]string{"attach", "exec", "proxy", "log", "portforward"}, info.Subresource)
}

func isMaster(ctx context.Context) bool {
	u, ok := auth.UserFrom(ctx)
	return ok && u != nil && slices.Contains(u.Groups, auth.GroupMasters)
}
