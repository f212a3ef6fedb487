package metricsserver

import (
	"strings"
	"testing"
	"time"

	"kubik/ch03-scheduler/resourcemetrics"
)

func u(v uint64) *uint64 { return &v }

// summary is one kubelet reading at t: node CPU nodeCPU core-seconds,
// container app of default/web cpu core-seconds.
func summary(t time.Time, nodeCPU, cpu float64) *resourcemetrics.Summary {
	start := time.Unix(1700000000, 0)
	return &resourcemetrics.Summary{
		Node: resourcemetrics.NodeStats{CPU: &resourcemetrics.CPUStats{Time: t, UsageCoreNanoSeconds: u(uint64(nodeCPU * 1e9))},
			Memory: &resourcemetrics.MemoryStats{Time: t, WorkingSetBytes: u(2 << 30)}},
		Pods: []resourcemetrics.PodStats{{PodRef: resourcemetrics.PodReference{Name: "web", Namespace: "default"},
			Containers: []resourcemetrics.ContainerStats{{Name: "app", StartTime: start,
				CPU:    &resourcemetrics.CPUStats{Time: t, UsageCoreNanoSeconds: u(uint64(cpu * 1e9))},
				Memory: &resourcemetrics.MemoryStats{Time: t, WorkingSetBytes: u(64 << 20)}}}}},
	}
}

func scrapeOf(t *testing.T, s *resourcemetrics.Summary) *batch {
	t.Helper()
	var b strings.Builder
	if err := resourcemetrics.Write(&b, s); err != nil {
		t.Fatal(err)
	}
	out, err := parse(strings.NewReader(b.String()))
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// Two readings 10 s apart: the rates between them, the last working set,
// a 10 s window, in the units and formats metrics-server prints.
func TestUsageBetweenTwoScrapes(t *testing.T) {
	t0 := time.UnixMilli(1700000100000)
	st := newStorage()
	keep := map[string]bool{"n1": true}
	st.store(map[string]*batch{"n1": scrapeOf(t, summary(t0, 100, 5))}, keep)
	if _, ok := st.nodeUsage("n1"); ok {
		t.Fatal("usage after one scrape")
	}
	if _, ok := st.podUsage("n1", "default", "web"); ok {
		t.Fatal("pod usage after one scrape")
	}
	st.store(map[string]*batch{"n1": scrapeOf(t, summary(t0.Add(10*time.Second), 115, 7.5))}, keep)
	n, ok := st.nodeUsage("n1")
	if !ok {
		t.Fatal("no node usage after two scrapes")
	}
	if got := n.cpu.String() + " " + n.memory.String() + " " + n.window.String(); got != "1500m 2Gi 10s" {
		t.Errorf("node usage %s, want 1500m 2Gi 10s", got)
	}
	cs, ok := st.podUsage("n1", "default", "web")
	if !ok || len(cs) != 1 {
		t.Fatalf("pod usage %v %v", cs, ok)
	}
	if got := cs[0].name + " " + cs[0].cpu.String() + " " + cs[0].memory.String(); got != "app 250m 64Mi" {
		t.Errorf("container usage %s, want app 250m 64Mi", got)
	}
	// A node gone from the cluster is forgotten.
	st.store(map[string]*batch{}, map[string]bool{})
	if _, ok := st.nodeUsage("n1"); ok {
		t.Error("usage of a deleted node")
	}
}

// A restarted container (a new start time) has no rate until it was read
// twice.
func TestRestartedContainer(t *testing.T) {
	t0 := time.UnixMilli(1700000100000)
	st := newStorage()
	keep := map[string]bool{"n1": true}
	st.store(map[string]*batch{"n1": scrapeOf(t, summary(t0, 100, 5))}, keep)
	s := summary(t0.Add(10*time.Second), 110, 0.1)
	s.Pods[0].Containers[0].StartTime = t0.Add(5 * time.Second)
	st.store(map[string]*batch{"n1": scrapeOf(t, s)}, keep)
	if cs, ok := st.podUsage("n1", "default", "web"); ok {
		t.Errorf("usage across a restart: %v", cs)
	}
}

func TestParseErrors(t *testing.T) {
	for _, in := range []string{
		`container_cpu_usage_seconds_total{container="a} 1`,
		`container_cpu_usage_seconds_total{container} 1`,
		`node_cpu_usage_seconds_total x`,
		`node_cpu_usage_seconds_total 1 2 3`,
		`node_cpu_usage_seconds_total 1 soon`,
		`garbage`,
	} {
		if _, err := parse(strings.NewReader(in + "\n")); err == nil {
			t.Errorf("parse(%q): no error", in)
		}
	}
	b, err := parse(strings.NewReader("# HELP x y\nunknown_metric{a=\"b\"} 3\n\n"))
	if err != nil || b.hasNode || len(b.containers) != 0 {
		t.Errorf("unknown series: %+v %v", b, err)
	}
	// A label value with escapes.
	b, err = parse(strings.NewReader(`container_memory_working_set_bytes{container="a\"b",namespace="n\\s",pod="p"} 5` + "\n"))
	if err != nil || b.containers[containerKey{`n\s`, "p", `a"b`}].memory != 5 {
		t.Errorf("escaped labels: %+v %v", b, err)
	}
}
