package drills

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"kubik/ch08-full-cluster/provision"
)

// APIServerResult is what the apiserver drill measured.
type APIServerResult struct {
	Machine  string        // whose apiserver was killed
	Requests int           // kubectl runs through the load balancer during the drill
	Failed   []string      // the failed ones' errors
	P50, P99 time.Duration // kubectl's latency
	Max      time.Duration
	Restarts int // the unit's restarts afterwards (its supervisor brought it back)
}

// KillAPIServer kills one apiserver with SIGKILL while kubectl lists the
// Nodes through the load balancer in a loop, and counts the failures:
// none, since haproxy sends new connections elsewhere (a connection that
// is refused is retried on another apiserver at once, and the dead one is
// out after two failed checks) and kubectl retries a GET whose connection
// broke. The supervisor restarts the apiserver (Restart=on-failure).
func KillAPIServer(ctx context.Context, e *Env) (*APIServerResult, error) {
	cps := e.machines(provision.ControlPlane)
	if len(cps) < 2 {
		return nil, errors.New("the apiserver drill needs another apiserver to fail over to: two or more control-plane machines")
	}
	victim := cps[len(cps)-1].Name
	res := &APIServerResult{Machine: victim}
	before, err := e.unit(ctx, victim, "kube-apiserver")
	if err != nil {
		return nil, err
	}
	servers, _ := e.haproxyServers(ctx)
	e.Say("haproxy's apiservers: %s", formatServers(servers))
	e.Say("a client loops on `kubectl get nodes` through the load balancer https://%s", e.C.Topology.LoadBalancerAddress())

	var mu sync.Mutex
	var lat stats
	loopCtx, stopLoop := context.WithCancel(ctx)
	loopDone := make(chan struct{})
	go func() {
		defer close(loopDone)
		for loopCtx.Err() == nil {
			start := time.Now()
			out, err := e.KubectlRun(ctx, "get", "nodes", "-o", "name", "--request-timeout=30s")
			d := time.Since(start)
			mu.Lock()
			res.Requests++
			lat.add(d)
			if err != nil {
				res.Failed = append(res.Failed, fmt.Sprintf("%v: %s", err, out))
				e.Say("kubectl FAILED after %s: %s", d.Round(time.Millisecond), out)
			}
			mu.Unlock()
		}
	}()
	time.Sleep(3 * time.Second)

	e.mark()
	e.Say("kill -9 the apiserver of %s (pid %d)", victim, before.MainPID)
	e.Show(e.supervisorCommand(victim, "kill", "--signal", "SIGKILL", "kube-apiserver"), "")
	if err := e.C.Supervisor(victim).Kill(ctx, "kube-apiserver", "SIGKILL"); err != nil {
		stopLoop()
		<-loopDone
		return nil, err
	}
	err = errors.Join(
		e.Eventually(ctx, "haproxy marks it down", time.Minute, func() (string, bool) {
			s, err := e.haproxyServers(ctx)
			if err != nil {
				return err.Error(), false
			}
			return "haproxy: " + formatServers(s), strings.HasPrefix(s[victim], "DOWN")
		}),
		e.Eventually(ctx, "the supervisor restarts it", 2*time.Minute, func() (string, bool) {
			st, err := e.unit(ctx, victim, "kube-apiserver")
			if err != nil {
				return err.Error(), false
			}
			res.Restarts = st.Restarts
			return fmt.Sprintf("kube-apiserver.service on %s: %s (%s), restarts %d", victim, st.ActiveState, st.SubState, st.Restarts),
				st.Running() && st.MainPID != before.MainPID
		}),
		e.Eventually(ctx, "haproxy takes it back", 2*time.Minute, func() (string, bool) {
			s, err := e.haproxyServers(ctx)
			if err != nil {
				return err.Error(), false
			}
			return "haproxy: " + formatServers(s), s[victim] == "UP"
		}))
	time.Sleep(2 * time.Second)
	stopLoop()
	<-loopDone
	mu.Lock()
	defer mu.Unlock()
	res.P50, res.P99, res.Max = lat.quantile(0.5), lat.quantile(0.99), lat.quantile(1)
	e.Say("result: %d kubectl requests through the load balancer, %d failed; latency p50 %s, p99 %s, max %s",
		res.Requests, len(res.Failed), res.P50.Round(time.Millisecond), res.P99.Round(time.Millisecond), res.Max.Round(time.Millisecond))
	return res, err
}

func formatServers(s map[string]string) string {
	var parts []string
	for name, st := range s {
		parts = append(parts, name+" "+st)
	}
	slices.Sort(parts)
	return strings.Join(parts, ", ")
}
