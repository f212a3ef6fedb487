// Package probe runs one check against a container — exec, httpGet,
// tcpSocket or grpc — and reads its outcome, as upstream's pkg/probe and
// its exec, http, tcp and grpc packages do. The prober (package prober)
// uses them for liveness, readiness and startup probes, the lifecycle
// hooks (package lifecycle) for httpGet handlers.
//
// The kubelet passes in what only it can do: run a command in a container
// (a CommandRunner: the CRI's ExecSync) and dial a pod (a DialFunc: from
// inside the node's network namespace, where the pods' IPs are).
package probe

import (
	"context"
	"errors"
	"net"
	"time"
)

// Result is the outcome of one probe run (upstream's probe.Result).
type Result string

const (
	Success Result = "success"
	Warning Result = "warning" // succeeded, but say something (a redirect not followed)
	Failure Result = "failure"
	Unknown Result = "unknown" // could not probe: an error
)

// CommandRunner runs cmd in a container and returns its stdout followed by
// its stderr (upstream's kubecontainer.CommandRunner). A timeout of 0
// means none. A command that exits non-zero returns a *CodeExitError, one
// that outlives its timeout an error wrapping ErrCommandTimedOut.
type CommandRunner func(ctx context.Context, containerID string, cmd []string, timeout time.Duration) ([]byte, error)

// DialFunc connects to a pod (net.Dialer.DialContext's signature); nil
// dials from where we are.
type DialFunc func(ctx context.Context, network, addr string) (net.Conn, error)

func (d DialFunc) dial(ctx context.Context, network, addr string) (net.Conn, error) {
	if d == nil {
		var nd net.Dialer
		return nd.DialContext(ctx, network, addr)
	}
	return d(ctx, network, addr)
}

// ErrCommandTimedOut is the runtime's exec timing out (upstream's
// remote.ErrCommandTimedOut).
var ErrCommandTimedOut = errors.New("command timed out")

// CodeExitError is a command in a container that exited non-zero
// (upstream's utilexec.CodeExitError).
type CodeExitError struct {
	Err  error
	Code int
}

func (e *CodeExitError) Error() string { return e.Err.Error() }

// userAgentVersion is the version in the User-Agent of probes and hooks:
// kube-probe/1.35, kube-lifecycle/1.35, as upstream's kubelet 1.35.
const userAgentVersion = "1.35"

// maxRespBodyLength is how much of a command's output or a response body
// a probe reads (10 KiB).
const maxRespBodyLength = 10 * 1 << 10
