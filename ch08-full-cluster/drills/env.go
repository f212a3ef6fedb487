// Package drills are chapter 8's failure drills: each breaks one part of
// a running cluster the way production breaks — an apiserver killed, an
// etcd member lost, the quorum lost, every apiserver down, a kubelet
// stopped, a leader killed, a machine powered off — prints what a user
// watches while the cluster copes (the commands to type, the states as
// they change, with the time since the break), restores what it broke,
// and returns what it measured. `make drill-NAME` runs one; the chapter's
// end-to-end tests run them and assert on the results.
//
// Every drill acts through the machines' own interfaces: a machine's
// supervisor (kubik-supervisor stop|kill, systemctl on a VM), the
// hypervisor (power), kubectl and etcdctl from the host.
package drills

import (
	"bytes"
	"context"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/netip"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"kubik/ch03-scheduler/clientgo/rest"
	"kubik/ch08-full-cluster/cluster8"
	"kubik/ch08-full-cluster/pki"
	"kubik/ch08-full-cluster/provision"
	"kubik/ch08-full-cluster/supervisor"
)

// FallbackKubectl is used when no kubectl is on the PATH.
const FallbackKubectl = "/usr/lib/google-cloud-sdk/bin/kubectl.1.33"

// Env is what a drill works with.
type Env struct {
	C       *cluster8.Cluster
	Kubectl string // the kubectl binary
	Admin   *rest.Client
	out     io.Writer
	home    string // kubectl's HOME and cache
	mu      sync.Mutex
	start   time.Time // of the drill's break
}

// NewEnv is a drill environment for c, printing to out.
func NewEnv(c *cluster8.Cluster, kubectl string, out io.Writer) (*Env, error) {
	if kubectl == "" {
		if p, err := exec.LookPath("kubectl"); err == nil {
			kubectl = p
		} else {
			kubectl = FallbackKubectl
		}
	}
	if _, err := os.Stat(kubectl); err != nil {
		return nil, fmt.Errorf("kubectl: %w (give one with --kubectl)", err)
	}
	admin, err := c.Admin("kubik-ch08-drill")
	if err != nil {
		return nil, err
	}
	home := filepath.Join(c.DataDir, "drills")
	if err := os.MkdirAll(home, 0o755); err != nil {
		return nil, err
	}
	return &Env{C: c, Kubectl: kubectl, Admin: admin, out: out, home: home, start: time.Now()}, nil
}

// Drill is one drill.
type Drill struct {
	Name    string
	Summary string
	Run     func(ctx context.Context, e *Env) (any, error)
}

// All are the drills, in the order the chapter tells them.
var All = []Drill{
	{"apiserver", "kill -9 one apiserver: kubectl through the load balancer keeps working",
		func(ctx context.Context, e *Env) (any, error) { return KillAPIServer(ctx, e) }},
	{"etcd-leader", "kill -9 the etcd leader: writes continue, another member leads",
		func(ctx context.Context, e *Env) (any, error) { return KillEtcdLeader(ctx, e) }},
	{"etcd-quorum", "stop two etcd members: writes fail and /readyz says why; one back: writes work again",
		func(ctx context.Context, e *Env) (any, error) { return LoseEtcdQuorum(ctx, e) }},
	{"apiservers-down", "stop every apiserver: kubectl fails, pods keep serving; back: everything reconciles",
		func(ctx context.Context, e *Env) (any, error) { return StopAllAPIServers(ctx, e) }},
	{"leaders", "kill -9 the leading scheduler and controller manager: standbys take their Leases",
		func(ctx context.Context, e *Env) (any, error) { return KillLeaders(ctx, e) }},
	{"kubelet", "stop a worker's kubelet: Node Unknown after 50 s, tainted, its pods evicted and recreated elsewhere",
		func(ctx context.Context, e *Env) (any, error) { return StopKubelet(ctx, e) }},
	{"poweroff", "power a worker off: the cloud's node controller deletes its Node; back on: it joins again",
		func(ctx context.Context, e *Env) (any, error) { return PowerOffWorker(ctx, e) }},
}

// Run runs the drill called name.
func Run(ctx context.Context, e *Env, name string) (any, error) {
	for _, d := range All {
		if d.Name == name {
			e.header(d.Name, d.Summary)
			return d.Run(ctx, e)
		}
	}
	return nil, fmt.Errorf("no drill %q (drill list names them)", name)
}

func (e *Env) header(name, summary string) {
	fmt.Fprintf(e.out, "\n=== drill %s: %s\n\n", name, summary)
	e.start = time.Now()
}

// mark restarts the drill's clock: the break happens now.
func (e *Env) mark() {
	e.mu.Lock()
	e.start = time.Now()
	e.mu.Unlock()
}

// since is the time since the break.
func (e *Env) since() time.Duration {
	e.mu.Lock()
	defer e.mu.Unlock()
	return time.Since(e.start)
}

// Say prints one line of the drill, stamped with the time since the break.
func (e *Env) Say(format string, args ...any) {
	e.mu.Lock()
	defer e.mu.Unlock()
	fmt.Fprintf(e.out, "[%6.1fs] %s\n", time.Since(e.start).Seconds(), fmt.Sprintf(format, args...))
}

// Show prints a command a user would type and what it printed, indented.
func (e *Env) Show(command, output string) {
	e.mu.Lock()
	defer e.mu.Unlock()
	fmt.Fprintf(e.out, "         $ %s\n", command)
	if strings.TrimSpace(output) == "" {
		return
	}
	for _, l := range strings.Split(strings.TrimRight(output, "\n"), "\n") {
		fmt.Fprintf(e.out, "           %s\n", l)
	}
}

// KubectlRun runs kubectl as admin through the load balancer.
func (e *Env) KubectlRun(ctx context.Context, args ...string) (string, error) {
	ctx, cancel := context.WithTimeout(ctx, 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, e.Kubectl, append([]string{"--kubeconfig", e.C.AdminKubeconfig,
		"--cache-dir", filepath.Join(e.home, "kubectl-cache")}, args...)...)
	cmd.Env = append(os.Environ(), "HOME="+e.home, "KUBECONFIG=")
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err := cmd.Run()
	return strings.TrimSpace(out.String()), err
}

// kubectlIn runs kubectl with a manifest on stdin.
func (e *Env) kubectlIn(ctx context.Context, stdin string, args ...string) (string, error) {
	cmd := exec.CommandContext(ctx, e.Kubectl, append([]string{"--kubeconfig", e.C.AdminKubeconfig,
		"--cache-dir", filepath.Join(e.home, "kubectl-cache")}, args...)...)
	cmd.Env = append(os.Environ(), "HOME="+e.home, "KUBECONFIG=")
	cmd.Stdin = strings.NewReader(stdin)
	out, err := cmd.CombinedOutput()
	return strings.TrimSpace(string(out)), err
}

// supervisorCommand is how a user types a supervisor command on machine:
// through the machine's shell, as `systemctl` over ssh on a VM.
func (e *Env) supervisorCommand(machine string, args ...string) string {
	return e.shellCommand(machine, append([]string{"kubik-supervisor"}, args...)...)
}

// shellCommand is a command run on machine (ch08-full-cluster shell).
func (e *Env) shellCommand(machine string, args ...string) string {
	return fmt.Sprintf("ch08-full-cluster shell%s %s %s", e.dataDirFlag(), machine, strings.Join(args, " "))
}

// dataDirFlag is the --data-dir a command needs, none for the default.
func (e *Env) dataDirFlag() string {
	if def, err := cluster8.AbsDir(cluster8.NewConfig().DataDir); err == nil && def == e.C.DataDir {
		return ""
	}
	return " --data-dir " + e.C.DataDir
}

// unit is a unit's status on machine.
func (e *Env) unit(ctx context.Context, machine, unit string) (supervisor.Status, error) {
	return e.C.Supervisor(machine).Status(ctx, unit)
}

// Eventually polls f every 500 ms until it reports done, printing what it
// reports whenever that changes; the timeout turns a hang into an error.
func (e *Env) Eventually(ctx context.Context, what string, timeout time.Duration, f func() (state string, done bool)) error {
	deadline := time.Now().Add(timeout)
	last := ""
	for {
		state, done := f()
		if state != last && state != "" {
			e.Say("%s", state)
			last = state
		}
		if done {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("%s: not after %s (last: %s)", what, timeout, state)
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(500 * time.Millisecond):
		}
	}
}

// machines are the topology's machines of role.
func (e *Env) machines(role provision.Role) []provision.Machine { return e.C.Topology.ByRole(role) }

// haproxyServers is each apiserver's state in haproxy's eyes (UP, DOWN,
// "DOWN 1/2" while a check is failing), from its statistics CSV.
func (e *Env) haproxyServers(ctx context.Context) (map[string]string, error) {
	lb := e.machines(provision.LoadBalancer)[0]
	url := fmt.Sprintf("http://%s/stats;csv", netip.AddrPortFrom(lb.IP, provision.HAProxyStatsPort))
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	r := csv.NewReader(io.LimitReader(resp.Body, 1<<20))
	r.FieldsPerRecord = -1
	rows, err := r.ReadAll()
	if err != nil || len(rows) == 0 {
		return nil, fmt.Errorf("haproxy stats: %v", err)
	}
	col := slices.Index(rows[0], "status")
	if col < 0 {
		return nil, fmt.Errorf("haproxy stats: no status column")
	}
	out := map[string]string{}
	for _, row := range rows[1:] {
		if len(row) > col && row[0] == "kube-apiserver" && row[1] != "BACKEND" && row[1] != "FRONTEND" && !strings.HasSuffix(row[1], "-unchecked") {
			out[row[1]] = row[col]
		}
	}
	return out, nil
}

// EtcdMember is one member as `etcdctl endpoint status` shows it.
type EtcdMember struct {
	Machine  string
	Endpoint string
	ID       string
	Leader   string // the leader's member ID, as this member knows it
	Term     string
}

// etcdctl runs Debian's etcdctl (etcd-client) from the host with the
// healthcheck client's certificate, against endpoints (default: all).
func (e *Env) etcdctl(ctx context.Context, endpoints []string, args ...string) (string, error) {
	if len(endpoints) == 0 {
		endpoints = e.C.Topology.EtcdEndpoints()
	}
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	p := func(f string) string { return filepath.Join(e.C.PKIDir(), f) }
	cmd := exec.CommandContext(ctx, "etcdctl", append([]string{"--endpoints=" + strings.Join(endpoints, ","),
		"--cacert=" + p("ca.crt"), "--cert=" + p(pki.EtcdHealthcheckClient+".crt"), "--key=" + p(pki.EtcdHealthcheckClient+".key"),
		"--command-timeout=5s", "--dial-timeout=3s"}, args...)...)
	cmd.Env = append(os.Environ(), "ETCDCTL_API=3")
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err := cmd.Run()
	// The client library's retry warnings (JSON log lines) are noise here:
	// the "Failed to get the status of endpoint" lines say it.
	var lines []string
	for _, l := range strings.Split(out.String(), "\n") {
		if !strings.HasPrefix(l, `{"level":`) {
			lines = append(lines, l)
		}
	}
	return strings.TrimSpace(strings.Join(lines, "\n")), err
}

// etcdMembers are the members that answer `endpoint status`.
func (e *Env) etcdMembers(ctx context.Context, machines ...provision.Machine) ([]EtcdMember, error) {
	if len(machines) == 0 {
		machines = e.machines(provision.ControlPlane)
	}
	var eps []string
	byEndpoint := map[string]string{}
	for _, m := range machines {
		ep := fmt.Sprintf("https://%s", netip.AddrPortFrom(m.IP, provision.EtcdClientPort))
		eps = append(eps, ep)
		byEndpoint[ep] = m.Name
	}
	out, _ := e.etcdctl(ctx, eps, "endpoint", "status", "-w", "json")
	i := strings.IndexByte(out, '[')
	if i < 0 {
		return nil, fmt.Errorf("etcdctl endpoint status: %s", out)
	}
	dec := json.NewDecoder(strings.NewReader(out[i:]))
	dec.UseNumber()
	var list []struct {
		Endpoint string
		Status   struct {
			Header struct {
				MemberID json.Number `json:"member_id"`
			} `json:"header"`
			Leader   json.Number `json:"leader"`
			RaftTerm json.Number `json:"raftTerm"`
		}
	}
	if err := dec.Decode(&list); err != nil {
		return nil, fmt.Errorf("etcdctl endpoint status: %w: %s", err, out)
	}
	var members []EtcdMember
	for _, l := range list {
		members = append(members, EtcdMember{Machine: byEndpoint[l.Endpoint], Endpoint: l.Endpoint,
			ID: l.Status.Header.MemberID.String(), Leader: l.Status.Leader.String(), Term: l.Status.RaftTerm.String()})
	}
	return members, nil
}

// etcdLeader is the machine whose member leads, as the members agree.
func etcdLeader(members []EtcdMember) string {
	for _, m := range members {
		if m.ID == m.Leader && m.Leader != "0" {
			return m.Machine
		}
	}
	return ""
}

// showEtcdStatus prints `etcdctl endpoint status -w table`.
func (e *Env) showEtcdStatus(ctx context.Context, machines ...provision.Machine) {
	var eps []string
	for _, m := range machines {
		eps = append(eps, fmt.Sprintf("https://%s", netip.AddrPortFrom(m.IP, provision.EtcdClientPort)))
	}
	out, _ := e.etcdctl(ctx, eps, "endpoint", "status", "-w", "table")
	e.Show("etcdctl endpoint status -w table", out)
}

// curlFrom fetches url from inside machine's network namespace, as
// `ip netns exec <machine> curl URL` (nsenter: ip netns exec remounts /sys).
func (e *Env) curlFrom(ctx context.Context, machine, url string) (string, error) {
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	out, err := exec.CommandContext(ctx, "nsenter", "--net="+e.C.NetNS(machine), "--", "curl", "-sS", "-m", "5", url).CombinedOutput()
	return strings.TrimSpace(string(out)), err
}

// stats are latencies, summarized.
type stats struct{ durations []time.Duration }

func (s *stats) add(d time.Duration) { s.durations = append(s.durations, d) }

func (s *stats) quantile(q float64) time.Duration {
	if len(s.durations) == 0 {
		return 0
	}
	d := slices.Clone(s.durations)
	slices.Sort(d)
	return d[min(int(q*float64(len(d))), len(d)-1)]
}
