package drills

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/netip"
	"strings"
	"sync"
	"time"

	"kubik/ch08-full-cluster/provision"
)

// EtcdLeaderResult is what the etcd leader drill measured.
type EtcdLeaderResult struct {
	OldLeader, NewLeader string // machines
	Writes               int
	Failed               []string
	FailedAfterElection  int // writes sent once the new leader was known that failed
	ElectionTook         time.Duration
}

// KillEtcdLeader kills the etcd leader with SIGKILL while kubectl creates
// ConfigMaps through the load balancer in a loop: the two members left
// are a quorum and elect a leader within an election timeout or two, the
// writes in flight at that moment may fail, those after do not. The
// supervisor restarts the member, which rejoins as a follower.
func KillEtcdLeader(ctx context.Context, e *Env) (*EtcdLeaderResult, error) {
	cps := e.machines(provision.ControlPlane)
	if len(cps) < 3 {
		return nil, errors.New("the etcd drills need three control-plane machines (CONTROL_PLANE=3)")
	}
	members, err := e.etcdMembers(ctx)
	if err != nil {
		return nil, err
	}
	res := &EtcdLeaderResult{OldLeader: etcdLeader(members)}
	if res.OldLeader == "" {
		return nil, fmt.Errorf("no etcd leader: %+v", members)
	}
	e.showEtcdStatus(ctx, cps...)
	e.Say("the leader is %s's member; a client creates ConfigMaps through the load balancer in a loop", res.OldLeader)

	ns := fmt.Sprintf("drill-etcd-%d", time.Now().Unix())
	if out, err := e.KubectlRun(ctx, "create", "namespace", ns); err != nil {
		return nil, fmt.Errorf("kubectl create namespace %s: %v: %s", ns, err, out)
	}
	defer e.KubectlRun(context.WithoutCancel(ctx), "delete", "namespace", ns, "--wait=false")
	var mu sync.Mutex
	var elected time.Time
	loopCtx, stopLoop := context.WithCancel(ctx)
	loopDone := make(chan struct{})
	go func() {
		defer close(loopDone)
		for i := 0; loopCtx.Err() == nil; i++ {
			mu.Lock()
			underNewLeader := !elected.IsZero()
			mu.Unlock()
			out, err := e.KubectlRun(ctx, "-n", ns, "create", "configmap", fmt.Sprintf("write-%d", i), "--from-literal=i="+fmt.Sprint(i), "--request-timeout=30s")
			mu.Lock()
			res.Writes++
			if err != nil {
				res.Failed = append(res.Failed, out)
				if underNewLeader {
					res.FailedAfterElection++
				}
				e.Say("write %d FAILED: %s", i, out)
			}
			mu.Unlock()
		}
	}()
	time.Sleep(3 * time.Second)

	e.mark()
	e.Say("kill -9 etcd on %s", res.OldLeader)
	e.Show(e.supervisorCommand(res.OldLeader, "kill", "--signal", "SIGKILL", "etcd"), "")
	if err := e.C.Supervisor(res.OldLeader).Kill(ctx, "etcd", "SIGKILL"); err != nil {
		stopLoop()
		<-loopDone
		return nil, err
	}
	var others []provision.Machine
	for _, m := range cps {
		if m.Name != res.OldLeader {
			others = append(others, m)
		}
	}
	err = e.Eventually(ctx, "a new etcd leader", 2*time.Minute, func() (string, bool) {
		ms, err := e.etcdMembers(ctx, others...)
		if err != nil {
			return err.Error(), false
		}
		l := etcdLeader(ms)
		if l == "" || l == res.OldLeader {
			return "the members left have no leader yet", false
		}
		mu.Lock()
		res.NewLeader, elected, res.ElectionTook = l, time.Now(), e.since()
		mu.Unlock()
		return fmt.Sprintf("%s's member leads now", l), true
	})
	if err == nil {
		e.showEtcdStatus(ctx, others...)
		time.Sleep(5 * time.Second) // writes under the new leader
	}
	stopLoop()
	<-loopDone
	err = errors.Join(err, e.Eventually(ctx, "the killed member rejoins", 2*time.Minute, func() (string, bool) {
		ms, err := e.etcdMembers(ctx)
		if err != nil {
			return err.Error(), false
		}
		return fmt.Sprintf("%d of %d members answer; leader %s", len(ms), len(cps), etcdLeader(ms)), len(ms) == len(cps) && etcdLeader(ms) != ""
	}))
	e.showEtcdStatus(ctx, cps...)
	e.Say("result: %d writes, %d failed (%d after the election); the new leader was known %s after the kill",
		res.Writes, len(res.Failed), res.FailedAfterElection, res.ElectionTook.Round(100*time.Millisecond))
	return res, err
}

// QuorumResult is what the quorum drill saw.
type QuorumResult struct {
	Stopped        []string // the machines whose members were stopped
	WriteError     string   // kubectl's answer to a write without a quorum
	Readyz         string   // an apiserver's /readyz?verbose meanwhile
	ReadyzCode     int
	RecoveredAfter time.Duration // from the first member back to a write that works
}

// LoseEtcdQuorum stops two of the three members: the one left cannot
// commit anything alone, so every write fails (the apiserver answers with
// an error once etcd's request times out, or the client gives up first),
// and every apiserver's /readyz reports etcd failing (haproxy then
// marks them all down and uses its unchecked backups: clients still get
// an answer). One member back makes a quorum of two: writes work again,
// without restarting anything else.
func LoseEtcdQuorum(ctx context.Context, e *Env) (*QuorumResult, error) {
	cps := e.machines(provision.ControlPlane)
	if len(cps) < 3 {
		return nil, errors.New("the etcd drills need three control-plane machines (CONTROL_PLANE=3)")
	}
	res := &QuorumResult{Stopped: []string{cps[1].Name, cps[2].Name}}
	e.showEtcdStatus(ctx, cps...)
	e.mark()
	for _, m := range res.Stopped {
		e.Say("stop etcd on %s", m)
		e.Show(e.supervisorCommand(m, "stop", "etcd"), "")
		if err := e.C.Supervisor(m).Stop(ctx, "etcd"); err != nil {
			return nil, err
		}
	}
	// Restore whatever happens.
	defer func() {
		for _, m := range res.Stopped {
			e.C.Supervisor(m).Start(context.WithoutCancel(ctx), "etcd")
		}
	}()
	e.showEtcdStatus(ctx, cps...)

	out, err := e.KubectlRun(ctx, "create", "configmap", "drill-quorum", "--from-literal=a=b", "--request-timeout=20s")
	if err == nil {
		return res, fmt.Errorf("a write succeeded without an etcd quorum: %s", out)
	}
	res.WriteError = out
	e.Say("a write without a quorum fails:")
	e.Show("kubectl create configmap drill-quorum --from-literal=a=b --request-timeout=20s", out)

	hc, err := e.C.HTTPClient()
	if err != nil {
		return res, err
	}
	url := fmt.Sprintf("https://%s/readyz?verbose", netip.AddrPortFrom(cps[0].IP, uint16(e.C.Topology.SecurePort)))
	if err := e.Eventually(ctx, "/readyz reports etcd", time.Minute, func() (string, bool) {
		resp, err := hc.Get(url)
		if err != nil {
			return err.Error(), false
		}
		body, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<16))
		resp.Body.Close()
		res.Readyz, res.ReadyzCode = strings.TrimSpace(string(body)), resp.StatusCode
		return fmt.Sprintf("%s's /readyz: %s", cps[0].Name, resp.Status), resp.StatusCode != 200 && strings.Contains(res.Readyz, "etcd")
	}); err != nil {
		return res, err
	}
	e.Show(e.shellCommand(cps[0].Name, "curl -s --cacert var/lib/kubernetes/ca.crt", url), fmt.Sprintf("(%d)\n%s", res.ReadyzCode, res.Readyz))
	servers, _ := e.haproxyServers(ctx)
	e.Say("haproxy: %s (the unchecked backups carry the traffic)", formatServers(servers))

	back := res.Stopped[0]
	e.Say("start etcd on %s again: two of three members, a quorum", back)
	e.Show(e.supervisorCommand(back, "start", "etcd"), "")
	if err := e.C.Supervisor(back).Start(ctx, "etcd"); err != nil {
		return res, err
	}
	t0 := time.Now()
	err = e.Eventually(ctx, "a write works again", 3*time.Minute, func() (string, bool) {
		out, err := e.KubectlRun(ctx, "create", "configmap", "drill-quorum", "--from-literal=a=b", "--request-timeout=10s")
		// "already exists": an earlier attempt that timed out had been
		// committed after all.
		if err != nil && !strings.Contains(out, "already exists") {
			return "a write still fails: " + firstLine(out), false
		}
		res.RecoveredAfter = time.Since(t0)
		return "kubectl create configmap drill-quorum: " + firstLine(out), true
	})
	e.KubectlRun(ctx, "delete", "configmap", "drill-quorum", "--request-timeout=30s")
	last := res.Stopped[1]
	e.Say("start etcd on %s as well", last)
	if serr := e.C.Supervisor(last).Start(ctx, "etcd"); serr != nil {
		err = errors.Join(err, serr)
	}
	err = errors.Join(err, e.Eventually(ctx, "every member answers", 2*time.Minute, func() (string, bool) {
		ms, err := e.etcdMembers(ctx)
		if err != nil {
			return err.Error(), false
		}
		return fmt.Sprintf("%d of %d members answer", len(ms), len(cps)), len(ms) == len(cps) && etcdLeader(ms) != ""
	}), e.Eventually(ctx, "every apiserver is ready", 2*time.Minute, func() (string, bool) {
		s, err := e.haproxyServers(ctx)
		if err != nil {
			return err.Error(), false
		}
		up := 0
		for _, st := range s {
			if st == "UP" {
				up++
			}
		}
		return "haproxy: " + formatServers(s), up == len(cps)
	}))
	e.showEtcdStatus(ctx, cps...)
	e.Say("result: writes failed without a quorum (%s); a write worked %s after one member was back",
		firstLine(res.WriteError), res.RecoveredAfter.Round(100*time.Millisecond))
	return res, err
}

func firstLine(s string) string {
	l, _, _ := strings.Cut(s, "\n")
	return l
}
