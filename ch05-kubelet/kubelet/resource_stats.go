package kubelet

// The numbers behind the kubelet API's /metrics/resource (upstream's
// GetCPUAndMemoryStats of the CRI stats provider, pkg/kubelet/stats):
// containers and pods from the runtime (CRI ListContainerStats and
// ListPodSandboxStats, which containerd reads from the pods' cgroups), the
// node from the kernel (/proc/stat, /proc/meminfo).

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"

	cri "k8s.io/cri-api/pkg/apis/runtime/v1"

	"kubik/ch03-scheduler/resourcemetrics"
	"kubik/ch05-kubelet/kubelet/server"
)

var _ server.ResourceMetricsProvider = (*Kubelet)(nil)

// GetCPUAndMemoryStats is the node's, its running pods' and their running
// containers' CPU and memory usage.
func (k *Kubelet) GetCPUAndMemoryStats(ctx context.Context) (*resourcemetrics.Summary, error) {
	s := &resourcemetrics.Summary{Node: resourcemetrics.NodeStats{NodeName: k.cfg.NodeName}}
	var err error
	if s.Node.CPU, s.Node.Memory, err = nodeStats(); err != nil {
		return nil, err
	}
	running, err := k.rt.ListContainers(ctx, &cri.ListContainersRequest{Filter: &cri.ContainerFilter{
		State: &cri.ContainerStateValue{State: cri.ContainerState_CONTAINER_RUNNING}}})
	if err != nil {
		return nil, fmt.Errorf("list containers: %w", err)
	}
	cstats, err := k.rt.ListContainerStats(ctx, &cri.ListContainerStatsRequest{})
	if err != nil {
		return nil, fmt.Errorf("list container stats: %w", err)
	}
	byID := map[string]*cri.ContainerStats{}
	for _, st := range cstats.Stats {
		byID[st.GetAttributes().GetId()] = st
	}
	pods := map[string]*resourcemetrics.PodStats{} // by pod UID
	var order []string
	pod := func(labels map[string]string) *resourcemetrics.PodStats {
		uid := labels[labelPodUID]
		p := pods[uid]
		if p == nil {
			p = &resourcemetrics.PodStats{PodRef: resourcemetrics.PodReference{
				Name: labels[labelPodName], Namespace: labels[labelPodNamespace], UID: uid}}
			pods[uid] = p
			order = append(order, uid)
		}
		return p
	}
	for _, c := range running.Containers {
		st := byID[c.Id]
		if st == nil || c.Labels[labelPodUID] == "" {
			continue
		}
		cs := resourcemetrics.ContainerStats{Name: c.Labels[labelContainerName], StartTime: time.Unix(0, c.CreatedAt)}
		if u := st.Cpu; u != nil && u.UsageCoreNanoSeconds != nil {
			v := u.UsageCoreNanoSeconds.Value
			cs.CPU = &resourcemetrics.CPUStats{Time: time.Unix(0, u.Timestamp), UsageCoreNanoSeconds: &v}
		}
		if m := st.Memory; m != nil && m.WorkingSetBytes != nil {
			v := m.WorkingSetBytes.Value
			cs.Memory = &resourcemetrics.MemoryStats{Time: time.Unix(0, m.Timestamp), WorkingSetBytes: &v}
		}
		p := pod(c.Labels)
		p.Containers = append(p.Containers, cs)
	}
	// The pods' own cgroups (containers and sandbox together). A runtime
	// that cannot say: the sum of the containers, as upstream falls back.
	sstats, err := k.rt.ListPodSandboxStats(ctx, &cri.ListPodSandboxStatsRequest{})
	sandboxes := map[string]*cri.PodSandboxStats{}
	if err == nil {
		for _, st := range sstats.Stats {
			if uid := st.GetAttributes().GetMetadata().GetUid(); uid != "" {
				sandboxes[uid] = st
			}
		}
	} else {
		k.log.Debug("pod sandbox stats unavailable: pods' usage is their containers' sum", "err", err)
	}
	for _, uid := range order {
		p := pods[uid]
		if lx := sandboxes[uid].GetLinux(); lx != nil {
			if u := lx.Cpu; u != nil && u.UsageCoreNanoSeconds != nil {
				v := u.UsageCoreNanoSeconds.Value
				p.CPU = &resourcemetrics.CPUStats{Time: time.Unix(0, u.Timestamp), UsageCoreNanoSeconds: &v}
			}
			if m := lx.Memory; m != nil && m.WorkingSetBytes != nil {
				v := m.WorkingSetBytes.Value
				p.Memory = &resourcemetrics.MemoryStats{Time: time.Unix(0, m.Timestamp), WorkingSetBytes: &v}
			}
		}
		if p.CPU == nil || p.Memory == nil {
			sumContainers(p)
		}
		s.Pods = append(s.Pods, *p)
	}
	return s, nil
}

// sumContainers sets the pod's missing CPU and memory to its containers'
// sums, at the latest of their times.
func sumContainers(p *resourcemetrics.PodStats) {
	var cpu, mem uint64
	var ct, mt time.Time
	for _, c := range p.Containers {
		if c.CPU != nil && c.CPU.UsageCoreNanoSeconds != nil {
			cpu += *c.CPU.UsageCoreNanoSeconds
			ct = later(ct, c.CPU.Time)
		}
		if c.Memory != nil && c.Memory.WorkingSetBytes != nil {
			mem += *c.Memory.WorkingSetBytes
			mt = later(mt, c.Memory.Time)
		}
	}
	if p.CPU == nil && !ct.IsZero() {
		p.CPU = &resourcemetrics.CPUStats{Time: ct, UsageCoreNanoSeconds: &cpu}
	}
	if p.Memory == nil && !mt.IsZero() {
		p.Memory = &resourcemetrics.MemoryStats{Time: mt, WorkingSetBytes: &mem}
	}
}

func later(a, b time.Time) time.Time {
	if b.After(a) {
		return b
	}
	return a
}

// userHZ is the unit of /proc/stat's times (USER_HZ, 100 on Linux).
const userHZ = 100

// nodeStats reads the machine's CPU time (every CPU's time not idle or
// waiting for I/O) and memory working set (used memory less the inactive
// file cache, as cAdvisor computes it for the root cgroup).
func nodeStats() (*resourcemetrics.CPUStats, *resourcemetrics.MemoryStats, error) {
	now := time.Now()
	stat, err := os.ReadFile("/proc/stat")
	if err != nil {
		return nil, nil, err
	}
	line, _, _ := strings.Cut(string(stat), "\n")
	fields := strings.Fields(line)
	if len(fields) < 8 || fields[0] != "cpu" {
		return nil, nil, fmt.Errorf("/proc/stat: unexpected first line %q", line)
	}
	var ticks uint64
	for i, f := range fields[1:8] { // user nice system idle iowait irq softirq
		if i == 3 || i == 4 {
			continue
		}
		v, err := strconv.ParseUint(f, 10, 64)
		if err != nil {
			return nil, nil, fmt.Errorf("/proc/stat: %w", err)
		}
		ticks += v
	}
	if len(fields) > 8 { // steal
		if v, err := strconv.ParseUint(fields[8], 10, 64); err == nil {
			ticks += v
		}
	}
	cpu := ticks * uint64(time.Second/userHZ)

	f, err := os.Open("/proc/meminfo")
	if err != nil {
		return nil, nil, err
	}
	defer f.Close()
	mem := map[string]uint64{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		k, v, ok := strings.Cut(sc.Text(), ":")
		if !ok {
			continue
		}
		n, err := strconv.ParseUint(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 10, 64)
		if err == nil {
			mem[k] = n * 1024
		}
	}
	ws := mem["MemTotal"] - mem["MemFree"]
	if inactive := mem["Inactive(file)"]; inactive < ws {
		ws -= inactive
	}
	return &resourcemetrics.CPUStats{Time: now, UsageCoreNanoSeconds: &cpu},
		&resourcemetrics.MemoryStats{Time: now, WorkingSetBytes: &ws}, nil
}
