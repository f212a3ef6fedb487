// Package lifecycle runs a container's postStart and preStop hooks
// (upstream's pkg/kubelet/lifecycle/handlers.go): exec a command in the
// container, GET a URL of the pod, or sleep. When they run and what a
// failure does is the kubelet's business (killContainer,
// runPostStartHook).
//
// As the prober, the handler runner gets from the kubelet a
// probe.CommandRunner (the CRI's ExecSync) and a probe.DialFunc (the
// pod's IP is reached from inside the node's network namespace).
package lifecycle

import (
	"context"
	"errors"
	"fmt"
	"io"
	"time"

	"kubik/ch01-apiserver/api/corev1"
	"kubik/ch05-kubelet/kubelet/probe"
	"kubik/ch05-kubelet/kubelet/util/format"
)

// maxRespBodyLength is how much of a hook's HTTP response is read (10 KiB).
const maxRespBodyLength = 10 * 1 << 10

// HandlerRunner runs lifecycle hooks (upstream's handlerRunner).
type HandlerRunner struct {
	runner probe.CommandRunner
	dial   probe.DialFunc
}

// NewHandlerRunner runs exec hooks with runner and connects httpGet hooks
// through dial.
func NewHandlerRunner(runner probe.CommandRunner, dial probe.DialFunc) *HandlerRunner {
	return &HandlerRunner{runner: runner, dial: dial}
}

// Run runs a postStart or preStop handler of container c (its ID
// containerID) of pod, whose IP is podIP. The message explains a failure
// with upstream's words; it goes to the container's status, not to events
// (it may hold secrets).
func (hr *HandlerRunner) Run(ctx context.Context, pod *corev1.Pod, c *corev1.Container, containerID, podIP string, h *corev1.LifecycleHandler) (string, error) {
	switch {
	case h.Exec != nil:
		output, err := hr.runner(ctx, containerID, h.Exec.Command, 0)
		if err != nil {
			return fmt.Sprintf("Exec lifecycle hook (%v) for Container %q in Pod %q failed - error: %v, message: %q",
				h.Exec.Command, c.Name, format.Pod(pod), err, string(output)), err
		}
		return "", nil
	case h.HTTPGet != nil:
		if err := hr.runHTTPHandler(ctx, c, podIP, h.HTTPGet); err != nil {
			return fmt.Sprintf("HTTP lifecycle hook (%s) for Container %q in Pod %q failed - error: %v",
				h.HTTPGet.Path, c.Name, format.Pod(pod), err), err
		}
		return "", nil
	case h.Sleep != nil:
		select {
		case <-ctx.Done():
			err := errors.New("container terminated before sleep hook finished")
			return fmt.Sprintf("Sleep lifecycle hook (%d) for Container %q in Pod %q failed - error: %v",
				h.Sleep.Seconds, c.Name, format.Pod(pod), err), err
		case <-time.After(time.Duration(h.Sleep.Seconds) * time.Second):
			return "", nil
		}
	}
	err := fmt.Errorf("invalid handler: %v", h)
	return fmt.Sprintf("Cannot run handler: %v", err), err
}

// runHTTPHandler GETs the hook's URL. Only a failed request fails the
// hook: the status code does not matter, as upstream's runHTTPHandler.
func (hr *HandlerRunner) runHTTPHandler(ctx context.Context, c *corev1.Container, podIP string, g *corev1.HTTPGetAction) error {
	if g.Host == "" && podIP == "" {
		return errors.New("failed to find networking container: the pod has no IP")
	}
	req, err := probe.NewRequestForHTTPGetAction(ctx, g, c, podIP, "lifecycle")
	if err != nil {
		return err
	}
	resp, err := probe.NewHTTPClient(hr.dial, 0).Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	io.Copy(io.Discard, io.LimitReader(resp.Body, maxRespBodyLength))
	return nil
}
