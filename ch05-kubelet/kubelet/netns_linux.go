package kubelet

import (
	"context"
	"fmt"
	"net"
	"os"
	"runtime"

	"golang.org/x/sys/unix"
)

// dialInNetNS connects from inside the network namespace at nsPath (the
// node's), as a kubelet running on that node would: the pods' IPs and the
// runtime's streaming server (127.0.0.1 inside the node) are reachable
// only from there. With nsPath empty it dials from where we are.
//
// A socket belongs to the namespace its creating thread was in, and stays
// there; so one OS thread is moved into the namespace, creates the socket
// and connects, and is then thrown away (a goroutine that exits while
// locked to its thread takes the thread with it), never returning to Go's
// pool in the wrong namespace.
func dialInNetNS(ctx context.Context, nsPath, network, addr string) (net.Conn, error) {
	var d net.Dialer
	if nsPath == "" {
		return d.DialContext(ctx, network, addr)
	}
	type result struct {
		conn net.Conn
		err  error
	}
	done := make(chan result, 1)
	go func() {
		runtime.LockOSThread() // never unlocked: the thread ends with this goroutine
		f, err := os.Open(nsPath)
		if err != nil {
			done <- result{err: err}
			return
		}
		defer f.Close()
		if err := unix.Setns(int(f.Fd()), unix.CLONE_NEWNET); err != nil {
			done <- result{err: fmt.Errorf("entering network namespace %s: %w", nsPath, err)}
			return
		}
		c, err := d.DialContext(ctx, network, addr)
		done <- result{c, err}
	}()
	r := <-done
	return r.conn, r.err
}
