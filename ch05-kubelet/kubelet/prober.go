package kubelet

// One probe run (upstream's pkg/kubelet/prober/prober.go): exec, httpGet,
// tcpSocket or grpc against a container, with the events a failed probe
// records. The workers (prober_worker.go) decide when to probe and what a
// run of results means.

import (
	"context"
	"errors"
	"fmt"
	"net"
	"strconv"
	"time"

	"kubik/ch01-apiserver/api/corev1"
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

// probeResult is the outcome of one run (upstream's probe.Result).
type probeResult string

const (
	probeSuccess probeResult = "success"
	probeWarning probeResult = "warning" // succeeded, but say something (a redirect not followed)
	probeFailure probeResult = "failure"
	probeUnknown probeResult = "unknown" // could not probe: an error
)

// result is what the kubelet holds per container and probe type
// (upstream's results.Result).
type result int

const (
	resultUnknown result = iota
	resultSuccess
	resultFailure
)

func (r result) String() string {
	switch r {
	case resultSuccess:
		return "Success"
	case resultFailure:
		return "Failure"
	}
	return "UNKNOWN"
}

// maxProbeRetries is how often a probe that errors (not: fails) is run
// again at once before its error counts.
const maxProbeRetries = 3

// eventFunc records an Event about a container of a pod (Kubelet.event).
type eventFunc func(pod *corev1.Pod, c corev1.Container, eventType, reason, format string, args ...any)

// prober runs probes and records their Unhealthy events.
type prober struct {
	handlerRunner
	event eventFunc
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
	var res probeResult
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
	case probeSuccess:
		return resultSuccess, nil
	case probeWarning:
		pb.event(pod, c, corev1.EventTypeWarning, "ProbeWarning", "%s probe warning: %s", t, output)
		return resultSuccess, nil
	case probeFailure:
		pb.event(pod, c, corev1.EventTypeWarning, "Unhealthy", "%s probe failed: %s", t, output)
	}
	return resultFailure, nil
}

// runProbe runs one probe: its result, its output (the command's output,
// the HTTP body or why it failed) and an error when it could not run.
func (pb *prober) runProbe(ctx context.Context, p *corev1.Probe, pod *corev1.Pod, podIP string, c corev1.Container, containerID string) (probeResult, string, error) {
	timeout := time.Duration(p.TimeoutSeconds) * time.Second
	switch {
	case p.Exec != nil:
		output, err := pb.run(ctx, containerID, expandCommandOnlyStatic(p.Exec.Command, c.Env), timeout)
		return execProbeResult(output, err)
	case p.HTTPGet != nil:
		req, err := newRequestForHTTPGetAction(ctx, p.HTTPGet, &c, podIP, "probe")
		if err != nil {
			return probeUnknown, "", err
		}
		return doHTTPProbe(req, httpClient(pb.nsPath, timeout))
	case p.TCPSocket != nil:
		port, err := resolveContainerPort(p.TCPSocket.Port, &c)
		if err != nil {
			return probeUnknown, "", err
		}
		host := p.TCPSocket.Host
		if host == "" {
			host = podIP
		}
		return doTCPProbe(ctx, pb.nsPath, net.JoinHostPort(host, strconv.Itoa(port)), timeout)
	case p.GRPC != nil:
		service := ""
		if p.GRPC.Service != nil {
			service = *p.GRPC.Service
		}
		return doGRPCProbe(ctx, pb.nsPath, net.JoinHostPort(podIP, strconv.Itoa(int(p.GRPC.Port))), service, timeout)
	}
	return probeUnknown, "", fmt.Errorf("missing probe handler for %s:%s", podRef(pod), c.Name)
}

// execProbeResult reads an exec probe (pkg/probe/exec): exit 0 succeeds,
// another exit code or a timeout fails, with the command's output (stdout
// then stderr) as the message; an error of the runtime is unknown.
func execProbeResult(output []byte, err error) (probeResult, string, error) {
	if len(output) > maxRespBodyLength {
		output = output[:maxRespBodyLength]
	}
	var exit *exitError
	switch {
	case err == nil:
		return probeSuccess, string(output), nil
	case errors.As(err, &exit):
		return probeFailure, string(output), nil
	case errors.Is(err, errCommandTimedOut):
		return probeFailure, err.Error(), nil
	}
	return probeUnknown, "", err
}

// expandCommandOnlyStatic expands $(VAR) in an exec probe's command with
// the container's plain env values (not those from ConfigMaps, Secrets or
// the downward API), as upstream's ExpandContainerCommandOnlyStatic.
func expandCommandOnlyStatic(cmd []string, env []corev1.EnvVar) []string {
	static := map[string]string{}
	for _, e := range env {
		static[e.Name] = e.Value
	}
	mapping := MappingFuncFor(static)
	var out []string
	for _, c := range cmd {
		out = append(out, Expand(c, mapping))
	}
	return out
}
