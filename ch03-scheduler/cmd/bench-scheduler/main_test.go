package main

import (
	"context"
	"os/exec"
	"slices"
	"testing"
	"time"

	"kubik/ch01-apiserver/api/corev1"
	"kubik/internal/testenv"
)

func TestNodeCapacityFitsEveryPodTwice(t *testing.T) {
	cpu, mem := int64(100), int64(128<<20) // podCPU, podMemory
	for _, c := range []struct{ nodes, pods int }{{100, 5500}, {1000, 5500}, {5000, 5500}, {10, 5500}, {1, 300}} {
		capacity := nodeCapacity(c.nodes, c.pods)
		perNode := int64((c.pods + c.nodes - 1) / c.nodes)
		if got := capacity[corev1.ResourcePods]; got.Value() < 2*perNode {
			t.Errorf("%d nodes × %d pods: pods capacity %v, want ≥ %d", c.nodes, c.pods, got.String(), 2*perNode)
		}
		if got := capacity[corev1.ResourceCPU]; got.MilliValue() < 2*perNode*cpu {
			t.Errorf("%d nodes × %d pods: cpu %v, want ≥ %dm", c.nodes, c.pods, got.String(), 2*perNode*cpu)
		}
		if got := capacity[corev1.ResourceMemory]; got.Value() < 2*perNode*mem {
			t.Errorf("%d nodes × %d pods: memory %v, want ≥ %d", c.nodes, c.pods, got.String(), 2*perNode*mem)
		}
	}
}

func TestPercentile(t *testing.T) {
	var d []time.Duration
	for i := 1; i <= 100; i++ {
		d = append(d, time.Duration(i)*time.Millisecond)
	}
	if got := percentile(d, 50); got != 51*time.Millisecond {
		t.Errorf("p50 = %v, want 51ms", got)
	}
	if got := percentile(d, 99); got != 100*time.Millisecond {
		t.Errorf("p99 = %v, want 100ms", got)
	}
	if got := percentile(nil, 99); got != 0 {
		t.Errorf("p99 of nothing = %v, want 0", got)
	}
}

// TestRunOneKubik runs the whole measurement, small, with our scheduler
// against our apiserver: every pod of both phases must be seen bound, on
// the benchmark's nodes, and the probe must find the core resources.
func TestRunOneKubik(t *testing.T) {
	if testing.Short() {
		t.Skip("end-to-end")
	}
	etcd, err := exec.LookPath("etcd")
	if err != nil {
		t.Skip("etcd not installed (make deps)")
	}
	bins := binaries{etcd: etcd,
		kubikAPIServer: testenv.Build(t, "kubik/ch02-etcd-store"),
		kubikScheduler: testenv.Build(t, "kubik/ch03-scheduler/cmd/kube-scheduler")}
	*podsFlag, *steadyPods, *steadyRate, *timeout = 40, 10, 20, 2*time.Minute
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()

	dir := t.TempDir()
	cp, err := startControlPlane(ctx, "kubik", dir, bins)
	if err != nil {
		t.Fatal(err)
	}
	c, err := newClient(cp.adminKubeconfig, "bench-scheduler-test")
	if err != nil {
		t.Fatal(err)
	}
	missing, err := missingForUpstreamScheduler(ctx, c)
	cp.stop()
	if err != nil {
		t.Fatal(err)
	}
	for _, served := range []string{"v1/pods", "v1/nodes", "apps/v1/replicasets"} {
		if slices.Contains(missing, served) {
			t.Errorf("the probe says %s is missing; Kubik serves it", served)
		}
	}

	r := runOne(ctx, "kubik", "kubik", 4, 0, bins, t.TempDir())
	if r.err != nil {
		t.Fatal(r.err)
	}
	if r.bound != *podsFlag || r.steadyBound != *steadyPods {
		t.Errorf("bound %d of %d pods in phase 1 and %d of %d in phase 2", r.bound, *podsFlag, r.steadyBound, *steadyPods)
	}
	// 40 pods over 4 equal nodes: the scoring spreads them.
	if r.minPerNode == 0 || r.maxPerNode > *podsFlag {
		t.Errorf("pods per node %d..%d: some node got none", r.minPerNode, r.maxPerNode)
	}
	if r.rate <= 0 || r.p99 < r.p50 {
		t.Errorf("rate %v, p50 %v, p99 %v", r.rate, r.p50, r.p99)
	}
}

func TestRequestTotals(t *testing.T) {
	before := parseRequestTotals([]byte(`# HELP apiserver_request_total Counter of apiserver requests
apiserver_request_total{code="201",component="apiserver",dry_run="",group="",resource="pods",scope="resource",subresource="binding",verb="POST",version="v1"} 10
apiserver_request_total{code="201",component="apiserver",dry_run="",group="events.k8s.io",resource="events",scope="resource",subresource="",verb="POST",version="v1"} 3
`))
	after := parseRequestTotals([]byte(`apiserver_request_total{code="201",component="apiserver",dry_run="",group="",resource="pods",scope="resource",subresource="binding",verb="POST",version="v1"} 5010
apiserver_request_total{code="409",component="apiserver",dry_run="",group="",resource="pods",scope="resource",subresource="binding",verb="POST",version="v1"} 2
apiserver_request_total{code="201",component="apiserver",dry_run="",group="events.k8s.io",resource="events",scope="resource",subresource="",verb="POST",version="v1"} 4003
apiserver_request_total{code="200",component="apiserver",dry_run="",group="coordination.k8s.io",resource="leases",scope="resource",subresource="",verb="PUT",version="v1"} 20
apiserver_request_duration_seconds_bucket{verb="POST",le="0.1"} 99999
`))
	if got, want := requestDelta(before, after, 50), "POST pods/binding 5002, POST events 4000"; got != want {
		t.Errorf("requestDelta = %q, want %q", got, want)
	}
}
