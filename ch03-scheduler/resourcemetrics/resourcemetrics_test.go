package resourcemetrics

import (
	"strings"
	"testing"
	"time"
)

func u(v uint64) *uint64 { return &v }

func TestWrite(t *testing.T) {
	at := time.UnixMilli(1700000000123)
	start := time.Unix(1699999000, 500000000)
	s := &Summary{
		Node: NodeStats{NodeName: "n1", CPU: &CPUStats{Time: at, UsageCoreNanoSeconds: u(12_500_000_000)},
			Memory: &MemoryStats{Time: at, WorkingSetBytes: u(1 << 30)}},
		Pods: []PodStats{
			{PodRef: PodReference{Name: "web", Namespace: "prod"},
				Containers: []ContainerStats{
					{Name: "b", StartTime: start, CPU: &CPUStats{Time: at, UsageCoreNanoSeconds: u(2_000_000)}, Memory: &MemoryStats{Time: at, WorkingSetBytes: u(4096)}},
					{Name: "a", StartTime: start, CPU: &CPUStats{Time: at, UsageCoreNanoSeconds: u(1_000_000_000)}},
				},
				CPU:    &CPUStats{Time: at, UsageCoreNanoSeconds: u(1_002_000_000)},
				Memory: &MemoryStats{Time: at, WorkingSetBytes: u(8192)}},
			{PodRef: PodReference{Name: `q"x`, Namespace: "default"}}, // no stats: nothing printed for it
		},
	}
	var b strings.Builder
	if err := Write(&b, s); err != nil {
		t.Fatal(err)
	}
	want := `# HELP container_cpu_usage_seconds_total [STABLE] Cumulative cpu time consumed by the container in core-seconds
# TYPE container_cpu_usage_seconds_total counter
container_cpu_usage_seconds_total{container="a",namespace="prod",pod="web"} 1 1700000000123
container_cpu_usage_seconds_total{container="b",namespace="prod",pod="web"} 0.002 1700000000123
# HELP container_memory_working_set_bytes [STABLE] Current working set of the container in bytes
# TYPE container_memory_working_set_bytes gauge
container_memory_working_set_bytes{container="b",namespace="prod",pod="web"} 4096 1700000000123
# HELP container_start_time_seconds [STABLE] Start time of the container since unix epoch in seconds
# TYPE container_start_time_seconds gauge
container_start_time_seconds{container="a",namespace="prod",pod="web"} 1.6999990005e+09
container_start_time_seconds{container="b",namespace="prod",pod="web"} 1.6999990005e+09
# HELP node_cpu_usage_seconds_total [STABLE] Cumulative cpu time consumed by the node in core-seconds
# TYPE node_cpu_usage_seconds_total counter
node_cpu_usage_seconds_total 12.5 1700000000123
# HELP node_memory_working_set_bytes [STABLE] Current working set of the node in bytes
# TYPE node_memory_working_set_bytes gauge
node_memory_working_set_bytes 1.073741824e+09 1700000000123
# HELP pod_cpu_usage_seconds_total [STABLE] Cumulative cpu time consumed by the pod in core-seconds
# TYPE pod_cpu_usage_seconds_total counter
pod_cpu_usage_seconds_total{namespace="prod",pod="web"} 1.002 1700000000123
# HELP pod_memory_working_set_bytes [STABLE] Current working set of the pod in bytes
# TYPE pod_memory_working_set_bytes gauge
pod_memory_working_set_bytes{namespace="prod",pod="web"} 8192 1700000000123
# HELP resource_scrape_error [STABLE] 1 if there was an error while getting container metrics, 0 otherwise
# TYPE resource_scrape_error gauge
resource_scrape_error 0
`
	if got := b.String(); got != want {
		t.Errorf("got:\n%s\nwant:\n%s", got, want)
	}
}

func TestWriteError(t *testing.T) {
	var b strings.Builder
	Write(&b, nil)
	want := "# HELP resource_scrape_error [STABLE] 1 if there was an error while getting container metrics, 0 otherwise\n# TYPE resource_scrape_error gauge\nresource_scrape_error 1\n"
	if b.String() != want {
		t.Errorf("got:\n%s\nwant:\n%s", b.String(), want)
	}
}

func TestLabelEscaping(t *testing.T) {
	if got, want := labels("container", "a\"b\\c\nd", "pod", "p"), `{container="a\"b\\c\nd",pod="p"}`; got != want {
		t.Errorf("labels: %s, want %s", got, want)
	}
}
