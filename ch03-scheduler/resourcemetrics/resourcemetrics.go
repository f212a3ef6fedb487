// Package resourcemetrics is the kubelet's /metrics/resource endpoint: the
// CPU and memory a node, its pods and their containers use, in the
// Prometheus text format, with the names, HELP texts and labels of
// upstream's pkg/kubelet/metrics/collectors/resource_metrics.go. It is the
// only thing a metrics server reads from a kubelet.
//
// The numbers come from a Summary (upstream's stats/v1alpha1 names): chapter
// 5's kubelet fills it from the container runtime's statistics (CRI
// ListContainerStats, ListPodSandboxStats) and the node's /proc; chapter 3's
// hollow nodes fill it with simulated usage. Both print it with Write.
package resourcemetrics

import (
	"bufio"
	"io"
	"slices"
	"strconv"
	"strings"
	"time"
)

// Summary is the CPU and memory of a node and its pods (upstream's
// stats/v1alpha1.Summary, the part GetCPUAndMemoryStats fills).
type Summary struct {
	Node NodeStats
	Pods []PodStats
}

// NodeStats is the node's usage.
type NodeStats struct {
	NodeName string
	CPU      *CPUStats
	Memory   *MemoryStats
}

// PodStats is a pod's usage: its containers' and, as a whole, its cgroup's.
type PodStats struct {
	PodRef     PodReference
	Containers []ContainerStats
	CPU        *CPUStats
	Memory     *MemoryStats
}

// PodReference names a pod.
type PodReference struct {
	Name, Namespace, UID string
}

// ContainerStats is one container's usage.
type ContainerStats struct {
	Name      string
	StartTime time.Time
	CPU       *CPUStats
	Memory    *MemoryStats
}

// CPUStats is cumulative CPU time, as read at Time.
type CPUStats struct {
	Time                 time.Time
	UsageCoreNanoSeconds *uint64
}

// MemoryStats is the working set (memory in use that cannot be reclaimed
// without swapping), as read at Time.
type MemoryStats struct {
	Time            time.Time
	WorkingSetBytes *uint64
}

// The metrics, as upstream declares them: name, stability, help.
const (
	ContainerCPU       = "container_cpu_usage_seconds_total"
	ContainerMemory    = "container_memory_working_set_bytes"
	ContainerStartTime = "container_start_time_seconds"
	NodeCPU            = "node_cpu_usage_seconds_total"
	NodeMemory         = "node_memory_working_set_bytes"
	PodCPU             = "pod_cpu_usage_seconds_total"
	PodMemory          = "pod_memory_working_set_bytes"
	ScrapeError        = "resource_scrape_error"
)

type family struct {
	name, typ, help string
}

// families are printed sorted by name, as the Prometheus client gathers
// them. (scrape_error, deprecated since 1.29, is hidden in 1.35 as
// upstream hides deprecated metrics after one release.)
var families = []family{
	{ContainerCPU, "counter", "[STABLE] Cumulative cpu time consumed by the container in core-seconds"},
	{ContainerMemory, "gauge", "[STABLE] Current working set of the container in bytes"},
	{ContainerStartTime, "gauge", "[STABLE] Start time of the container since unix epoch in seconds"},
	{NodeCPU, "counter", "[STABLE] Cumulative cpu time consumed by the node in core-seconds"},
	{NodeMemory, "gauge", "[STABLE] Current working set of the node in bytes"},
	{PodCPU, "counter", "[STABLE] Cumulative cpu time consumed by the pod in core-seconds"},
	{PodMemory, "gauge", "[STABLE] Current working set of the pod in bytes"},
	{ScrapeError, "gauge", "[STABLE] 1 if there was an error while getting container metrics, 0 otherwise"},
}

// ContentType is the Prometheus text format's media type.
const ContentType = "text/plain; version=0.0.4; charset=utf-8"

type sample struct {
	labels string // {container="c",namespace="ns",pod="p"} or ""
	value  float64
	ts     time.Time // zero: none
}

// Write prints s in the Prometheus text format; a nil s (the stats could
// not be read) prints only resource_scrape_error 1, as upstream.
func Write(w io.Writer, s *Summary) error {
	samples := map[string][]sample{}
	add := func(name, labels string, v float64, ts time.Time) {
		samples[name] = append(samples[name], sample{labels, v, ts})
	}
	scrapeError := 1.0
	if s != nil {
		scrapeError = 0
		if c := s.Node.CPU; c != nil && c.UsageCoreNanoSeconds != nil {
			add(NodeCPU, "", seconds(*c.UsageCoreNanoSeconds), c.Time)
		}
		if m := s.Node.Memory; m != nil && m.WorkingSetBytes != nil {
			add(NodeMemory, "", float64(*m.WorkingSetBytes), m.Time)
		}
		for _, p := range s.Pods {
			podLabels := labels("namespace", p.PodRef.Namespace, "pod", p.PodRef.Name)
			for _, c := range p.Containers {
				l := labels("container", c.Name, "namespace", p.PodRef.Namespace, "pod", p.PodRef.Name)
				if c.StartTime.Unix() > 0 {
					add(ContainerStartTime, l, float64(c.StartTime.UnixNano())/float64(time.Second), time.Time{})
				}
				if u := c.CPU; u != nil && u.UsageCoreNanoSeconds != nil {
					add(ContainerCPU, l, seconds(*u.UsageCoreNanoSeconds), u.Time)
				}
				if m := c.Memory; m != nil && m.WorkingSetBytes != nil {
					add(ContainerMemory, l, float64(*m.WorkingSetBytes), m.Time)
				}
			}
			if u := p.CPU; u != nil && u.UsageCoreNanoSeconds != nil {
				add(PodCPU, podLabels, seconds(*u.UsageCoreNanoSeconds), u.Time)
			}
			if m := p.Memory; m != nil && m.WorkingSetBytes != nil {
				add(PodMemory, podLabels, float64(*m.WorkingSetBytes), m.Time)
			}
		}
	}
	add(ScrapeError, "", scrapeError, time.Time{})

	bw := bufio.NewWriter(w)
	for _, f := range families {
		list := samples[f.name]
		if len(list) == 0 {
			continue
		}
		slices.SortStableFunc(list, func(a, b sample) int { return strings.Compare(a.labels, b.labels) })
		bw.WriteString("# HELP " + f.name + " " + f.help + "\n# TYPE " + f.name + " " + f.typ + "\n")
		for _, s := range list {
			bw.WriteString(f.name + s.labels + " " + strconv.FormatFloat(s.value, 'g', -1, 64))
			if !s.ts.IsZero() {
				bw.WriteString(" " + strconv.FormatInt(s.ts.UnixMilli(), 10))
			}
			bw.WriteByte('\n')
		}
	}
	return bw.Flush()
}

func seconds(ns uint64) float64 { return float64(ns) / float64(time.Second) }

// labels renders name/value pairs (given sorted by name) as {a="x",b="y"},
// escaped as the text format wants.
func labels(kv ...string) string {
	var b strings.Builder
	b.WriteByte('{')
	for i := 0; i+1 < len(kv); i += 2 {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(kv[i] + `="` + escape(kv[i+1]) + `"`)
	}
	b.WriteByte('}')
	return b.String()
}

var escaper = strings.NewReplacer(`\`, `\\`, "\n", `\n`, `"`, `\"`)

func escape(s string) string { return escaper.Replace(s) }
