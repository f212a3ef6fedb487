package probe

import (
	"context"
	"time"
)

// DoTCPProbe succeeds when a TCP connection to addr opens within timeout
// (pkg/probe/tcp.DoTCPProbe); the dial error is the failure's output.
func DoTCPProbe(ctx context.Context, dial DialFunc, addr string, timeout time.Duration) (Result, string, error) {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	conn, err := dial.dial(ctx, "tcp", addr)
	if err != nil {
		return Failure, err.Error(), nil
	}
	conn.Close()
	return Success, "", nil
}
