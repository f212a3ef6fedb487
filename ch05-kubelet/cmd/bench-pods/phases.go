package main

import (
	"bufio"
	"io"
	"regexp"
	"strings"
	"time"
)

// kubeletTimes are one pod's milestones from the kubelet's log lines.
type kubeletTimes struct {
	volumes      time.Time // the last "volume set up" (none when the pod has no volumes)
	sandboxBegin time.Time // "sandbox started" minus its took: RunPodSandbox sent
	sandboxDone  time.Time // "sandbox started" logged
	started      time.Time // the last "container started" (attempt 0)
	statusSent   time.Time // "pod status" phase=Running: the status write returned
}

var logField = regexp.MustCompile(`(\w+)=("(?:[^"\\]|\\.)*"|\S+)`)

// parseLogLine splits a log/slog text line into its key=value fields.
func parseLogLine(line string) map[string]string {
	f := map[string]string{}
	for _, m := range logField.FindAllStringSubmatch(line, -1) {
		f[m[1]] = strings.Trim(m[2], `"`)
	}
	return f
}

// kubeletPhases reads the kubelet's milestones of the pods in namespace
// ns from the program's log.
func kubeletPhases(r io.Reader, ns string) map[string]*kubeletTimes {
	out := map[string]*kubeletTimes{}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		f := parseLogLine(sc.Text())
		if f["component"] != "kubelet" || !strings.HasPrefix(f["pod"], ns+"/") {
			continue
		}
		at, err := time.Parse(time.RFC3339Nano, f["time"])
		if err != nil {
			continue
		}
		name := strings.TrimPrefix(f["pod"], ns+"/")
		t := out[name]
		if t == nil {
			t = &kubeletTimes{}
			out[name] = t
		}
		switch f["msg"] {
		case "volume set up":
			t.volumes = at
		case "sandbox started":
			took, _ := time.ParseDuration(f["took"])
			t.sandboxBegin, t.sandboxDone = at.Add(-took), at
		case "container started":
			if f["attempt"] == "0" {
				t.started = at
			}
		case "pod status":
			if f["phase"] == "Running" && t.statusSent.IsZero() {
				t.statusSent = at
			}
		}
	}
	return out
}

// phase is one step of a pod's start, measured between two milestones.
type phase struct {
	name     string
	from, to func(p *podTimes, k *kubeletTimes) time.Time
}

// phases split "create call → observed running" into consecutive steps
// (one sub-step, indented).
var phases = []phase{
	{"create call → bound (scheduler, seen by watch)",
		func(p *podTimes, _ *kubeletTimes) time.Time { return p.called },
		func(p *podTimes, _ *kubeletTimes) time.Time { return p.scheduled }},
	{"bound → RunPodSandbox sent (kubelet queue, volumes)",
		func(p *podTimes, _ *kubeletTimes) time.Time { return p.scheduled },
		func(_ *podTimes, k *kubeletTimes) time.Time { return k.sandboxBegin }},
	{"  of which bound → last volume set up",
		func(p *podTimes, _ *kubeletTimes) time.Time { return p.scheduled },
		func(_ *podTimes, k *kubeletTimes) time.Time { return k.volumes }},
	{"RunPodSandbox (pause, netns, CNI)",
		func(_ *podTimes, k *kubeletTimes) time.Time { return k.sandboxBegin },
		func(_ *podTimes, k *kubeletTimes) time.Time { return k.sandboxDone }},
	{"ImageStatus+CreateContainer+StartContainer",
		func(_ *podTimes, k *kubeletTimes) time.Time { return k.sandboxDone },
		func(_ *podTimes, k *kubeletTimes) time.Time { return k.started }},
	{"observe + status write (PUT .../status)",
		func(_ *podTimes, k *kubeletTimes) time.Time { return k.started },
		func(_ *podTimes, k *kubeletTimes) time.Time { return k.statusSent }},
	{"status written → seen by our watch",
		func(_ *podTimes, k *kubeletTimes) time.Time { return k.statusSent },
		func(p *podTimes, _ *kubeletTimes) time.Time { return p.running }},
}
