// Package prober runs the liveness, readiness and startup probes of the
// containers of the kubelet's pods (upstream's pkg/kubelet/prober): a
// Manager keeps one worker goroutine per pod, container and probe type
// (worker.go), each probing every periodSeconds (prober.go: one run, with
// the Unhealthy events a failure records) and caching its verdict per
// container ID (results_manager.go). The sync loop reads the verdicts:
// readiness and startup become the container status's ready and started,
// a liveness or startup failure makes the kubelet kill the container.
//
// What only the kubelet can do comes in from outside, as upstream passes
// its ContainerCommandRunner: a probe.CommandRunner (exec in a container
// through the CRI), a probe.DialFunc (pods are reached from inside the
// node's network namespace), the pods' last statuses (a StatusProvider:
// which container runs under which ID, the pod's IP) and the event
// recorder.
package prober

import (
	"context"
	"fmt"
	"net"
	"strconv"
	"time"

	"kubik/ch01-apiserver/api/corev1"
	"kubik/ch05-kubelet/kubelet/expansion"
	"kubik/ch05-kubelet/kubelet/probe"
	"kubik/ch05-kubelet/kubelet/util/format"
)

// probeType is which probe of a container: they differ in their initial
// result and in what a failure does.
type probeType int

const (
	liveness  probeType = iota // failure: the container is killed and restarted
	readiness                  // failure: the container is not ready (no traffic)
	startup                    // gates the other two; failure: killed like liveness
)

// String is how events name the probe: "Liveness probe failed: ...".
func (t probeType) String() string {
	switch t {
	case readiness:
		return "Readiness"
	case liveness:
		return "Liveness"
	case startup:
		return "Startup"
	}
	return "UNKNOWN"
}

// maxProbeRetries is how often a probe that errors (not: fails) is run
// again at once before its error counts.
const maxProbeRetries = 3

// EventFunc records an Event about container c of pod (the kubelet's
// recordContainerEvent).
type EventFunc func(pod *corev1.Pod, c corev1.Container, eventType, reason, format string, args ...any)

// prober runs probes and records their Unhealthy events.
type prober struct {
	runner probe.CommandRunner
	dial   probe.DialFunc // reaches the pod's IP: from inside the node's network namespace
	event  EventFunc
}

// probe runs the probe of type t of container c (its ID containerID) and
// records an Unhealthy event when it fails: "Liveness probe failed:
// <output>". status is the pod's last status (its IP).
func (pb *prober) probe(ctx context.Context, t probeType, pod *corev1.Pod, status corev1.PodStatus, c corev1.Container, containerID string) (result, error) {
	var spec *corev1.Probe
	switch t {
	case readiness:
		spec = c.ReadinessProbe
	case liveness:
		spec = c.LivenessProbe
	case startup:
		spec = c.StartupProbe
	}
	if spec == nil {
		return resultSuccess, nil
	}
	var res probe.Result
	var output string
	var err error
	for range maxProbeRetries {
		if res, output, err = pb.runProbe(ctx, spec, pod, status.PodIP, c, containerID); err == nil {
			break
		}
	}
	if err != nil {
		pb.event(pod, c, corev1.EventTypeWarning, "Unhealthy", "%s probe errored and resulted in %s state: %s", t, res, err)
		return resultFailure, err
	}
	switch res {
	case probe.Success:
		return resultSuccess, nil
	case probe.Warning:
		pb.event(pod, c, corev1.EventTypeWarning, "ProbeWarning", "%s probe warning: %s", t, output)
		return resultSuccess, nil
	case probe.Failure:
		pb.event(pod, c, corev1.EventTypeWarning, "Unhealthy", "%s probe failed: %s", t, output)
	}
	return resultFailure, nil
}

// runProbe runs one probe: its result, its output (the command's output,
// the HTTP body or why it failed) and an error when it could not run.
func (pb *prober) runProbe(ctx context.Context, p *corev1.Probe, pod *corev1.Pod, podIP string, c corev1.Container, containerID string) (probe.Result, string, error) {
	timeout := time.Duration(p.TimeoutSeconds) * time.Second
	switch {
	case p.Exec != nil:
		output, err := pb.runner(ctx, containerID, expandCommandOnlyStatic(p.Exec.Command, c.Env), timeout)
		return probe.ExecResult(output, err)
	case p.HTTPGet != nil:
		req, err := probe.NewRequestForHTTPGetAction(ctx, p.HTTPGet, &c, podIP, "probe")
		if err != nil {
			return probe.Unknown, "", err
		}
		return probe.DoHTTPProbe(req, probe.NewHTTPClient(pb.dial, timeout))
	case p.TCPSocket != nil:
		port, err := probe.ResolveContainerPort(p.TCPSocket.Port, &c)
		if err != nil {
			return probe.Unknown, "", err
		}
		host := p.TCPSocket.Host
		if host == "" {
			host = podIP
		}
		return probe.DoTCPProbe(ctx, pb.dial, net.JoinHostPort(host, strconv.Itoa(port)), timeout)
	case p.GRPC != nil:
		service := ""
		if p.GRPC.Service != nil {
			service = *p.GRPC.Service
		}
		return probe.DoGRPCProbe(ctx, pb.dial, net.JoinHostPort(podIP, strconv.Itoa(int(p.GRPC.Port))), service, timeout)
	}
	return probe.Unknown, "", fmt.Errorf("missing probe handler for %s:%s", format.Pod(pod), c.Name)
}

// expandCommandOnlyStatic expands $(VAR) in an exec probe's command with
// the container's plain env values (not those from ConfigMaps, Secrets or
// the downward API), as upstream's ExpandContainerCommandOnlyStatic.
func expandCommandOnlyStatic(cmd []string, env []corev1.EnvVar) []string {
	static := map[string]string{}
	for _, e := range env {
		static[e.Name] = e.Value
	}
	mapping := expansion.MappingFuncFor(static)
	var out []string
	for _, c := range cmd {
		out = append(out, expansion.Expand(c, mapping))
	}
	return out
}
