//go:build !linux

package kubelet

import (
	"context"
	"net"
)

// dialInNetNS: network namespaces are Linux's; elsewhere there is only ours.
func dialInNetNS(ctx context.Context, nsPath, network, addr string) (net.Conn, error) {
	var d net.Dialer
	return d.DialContext(ctx, network, addr)
}
