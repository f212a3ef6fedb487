package provision

import (
	"fmt"
	"net/netip"
	"path/filepath"
	"strings"
)

// haproxyConfig is the load balancer: TCP in, TCP out (TLS stays end to
// end: clients see the apiservers' certificate, the apiservers the
// clients'), each apiserver health-checked on GET /readyz over TLS,
// verified against the cluster CA and the machine's name. An apiserver
// whose /readyz fails twice (every second) takes no new connections; one
// that refuses a connection is retried on another at once.
//
// The backup servers are the same apiservers without a check, used only
// when every checked one is down: when etcd loses its quorum every
// /readyz fails, and clients then still reach an apiserver, which tells
// them why (a 5xx, its /readyz) instead of the connection being closed.
func (r *renderer) haproxyConfig() []byte {
	t := r.t
	lb := netip.AddrPortFrom(r.m.IP, uint16(t.SecurePort))
	ca := r.path(filepath.Join(haproxyDir, "ca.crt"))
	var b strings.Builder
	fmt.Fprintf(&b, `# The load balancer in front of the apiservers (rendered from the cluster's topology).
global
    log stdout format raw local0 info
    maxconn 4096

defaults
    log global
    mode tcp
    option tcplog
    option dontlognull
    timeout connect 5s
    # Watches are long-lived: an hour before an idle connection is cut.
    timeout client 1h
    timeout server 1h
    retries 3
    option redispatch 1

frontend kube-apiserver
    bind %s
    default_backend kube-apiserver

backend kube-apiserver
    balance roundrobin
    option httpchk GET /readyz
    http-check expect status 200
    default-server inter 1s fall 2 rise 2 check-ssl verify required ca-file %s
`, lb, ca)
	for _, cp := range t.ByRole(ControlPlane) {
		fmt.Fprintf(&b, "    server %s %s check verifyhost %s\n", cp.Name, netip.AddrPortFrom(cp.IP, uint16(t.SecurePort)), cp.Name)
	}
	for _, cp := range t.ByRole(ControlPlane) {
		fmt.Fprintf(&b, "    server %s-unchecked %s backup no-check-ssl\n", cp.Name, netip.AddrPortFrom(cp.IP, uint16(t.SecurePort)))
	}
	fmt.Fprintf(&b, `
# The statistics page: http://%s/stats (;csv for a machine).
frontend stats
    mode http
    bind %s
    stats enable
    stats uri /stats
    stats refresh 2s
`, netip.AddrPortFrom(r.m.IP, HAProxyStatsPort), netip.AddrPortFrom(r.m.IP, HAProxyStatsPort))
	return []byte(b.String())
}
