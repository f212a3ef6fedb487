package main_test

// The whole chapter 4 cluster runs in a network namespace that counts every
// packet sent anywhere but loopback: creating, scheduling, running and
// reaching pods (exec, logs, port-forward to simulated nodes) must send none
// — nothing of the cluster may try to reach the machine's network.

import (
	"slices"
	"strings"
	"testing"
	"time"

	"kubik/internal/testenv"
)

func TestNoTrafficLeavesTheMachine(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and starts the chapter 4 cluster")
	}
	testenv.Kubectl(t, kubectl133)
	sb := testenv.NewSandbox(t)
	bin := testenv.Build(t, "kubik/ch04-controllers")
	c := testenv.Start(t, bin, testenv.Options{Args: []string{"--hollow-nodes=3"}, Sandbox: sb})
	k := func(args ...string) testenv.Result { t.Helper(); return c.Kubectl(t, kubectl133, "", args...) }

	testenv.Eventually(t, "nodes Ready", 60*time.Second, func() (string, bool) {
		out := k("get", "nodes", "-o", `jsonpath={range .items[*]}{.status.conditions[?(@.type=="Ready")].status}{end}`).Stdout
		return out, out == "TrueTrueTrue"
	})
	if r := k("create", "deployment", "web", "--image=nginx", "--replicas=3"); r.ExitCode != 0 {
		t.Fatal(r.Combined())
	}
	if r := k("rollout", "status", "deployment/web", "--timeout=120s"); r.ExitCode != 0 {
		t.Fatal(r.Combined())
	}
	// Every node address is loopback.
	if ips := k("get", "nodes", "-o", `jsonpath={.items[*].status.addresses[?(@.type=="InternalIP")].address}`).Stdout; !allLoopback(ips) {
		t.Errorf("hollow nodes advertise %q", ips)
	}
	pod := strings.TrimPrefix(k("get", "pods", "-l", "app=web", "-o", "name").Stdout, "pod/")
	pod = strings.Fields(pod)[0]
	const refused = "reports no kubelet endpoint (status.daemonEndpoints.kubeletEndpoint.Port is 0): nothing on it answers for its pods"
	for _, args := range [][]string{
		{"logs", pod},
		{"exec", pod, "--", "date"},
		{"port-forward", pod, "18080:80"},
		{"attach", pod},
	} {
		r := k(args...)
		if r.ExitCode == 0 || !strings.Contains(r.Stderr, refused) {
			t.Errorf("kubectl %s: exit %d\n%s", strings.Join(args, " "), r.ExitCode, r.Combined())
		}
	}
	// The counting works: one deliberate packet, and it is the only one.
	probe := sb.Probe(t)
	if got := sb.Destinations(t); !slices.Equal(got, []string{probe}) {
		t.Errorf("packets were sent outside loopback to %v (only the probe %s expected)", got, probe)
	}
}

func allLoopback(ips string) bool {
	f := strings.Fields(ips)
	for _, ip := range f {
		if !strings.HasPrefix(ip, "127.") {
			return false
		}
	}
	return len(f) > 0
}
