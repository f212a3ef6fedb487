// Package dns is the cluster DNS server: it answers the names of the
// Kubernetes DNS-Based Service Discovery specification for the cluster
// domain (cluster.local) and the reverse zones of the Service and pod
// ranges, from an in-memory index of Services, EndpointSlices and
// Namespaces that informers keep current. Upstream: CoreDNS's kubernetes
// plugin (github.com/coredns/coredns/plugin/kubernetes) configured as in
// kubeadm's Corefile ("pods insecure", "ttl 30"), with the health, ready,
// prometheus and loadbalance plugins' behaviour.
//
// Names outside these zones get SERVFAIL: the cluster has no upstream
// resolver, and SERVFAIL is what CoreDNS answers when its forward plugin
// cannot reach one.
//
// In this package "dns" is github.com/miekg/dns, the DNS message library
// CoreDNS is built on.
package dns

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/netip"
	"strings"
	"sync"
	"time"

	"github.com/miekg/dns"
)

// Defaults of kubeadm's Corefile.
const (
	DefaultClusterDomain = "cluster.local"
	DefaultTTL           = 30
)

// Config says what the server answers for.
type Config struct {
	// ClusterDomain is the zone of Services and pods (--cluster-domain).
	ClusterDomain string
	// ReverseCIDRs are the ranges whose PTR records are answered: the
	// Service range (10.96.0.0/12) and the pod range (10.244.0.0/16).
	ReverseCIDRs []netip.Prefix
	// TTL of every record (CoreDNS's ttl option); 0 means DefaultTTL.
	TTL uint32
	// LocalIPs are this server's own addresses (its pod IP): the Service
	// they are endpoints of is the zone's name server (NS, ns.dns.<zone>).
	LocalIPs []netip.Addr
	// HasSynced reports whether the index holds the informers' first
	// lists; until then a name not found is SERVFAIL, not NXDOMAIN. nil:
	// always synced (an index filled by hand).
	HasSynced func() bool
	Logger    *slog.Logger
}

// Server answers DNS queries from an Index. It is a dns.Handler.
type Server struct {
	cfg     Config
	zone    string          // the cluster zone, fully qualified, lower case
	zones   map[string]bool // every zone answered → whether it is a reverse zone
	index   *Index
	log     *slog.Logger
	metrics metrics
}

// NewServer returns a server answering from index.
func NewServer(cfg Config, index *Index) (*Server, error) {
	if cfg.ClusterDomain == "" {
		cfg.ClusterDomain = DefaultClusterDomain
	}
	if cfg.TTL == 0 {
		cfg.TTL = DefaultTTL
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	zone := strings.ToLower(dns.Fqdn(cfg.ClusterDomain))
	if _, ok := dns.IsDomainName(zone); !ok || zone == "." {
		return nil, fmt.Errorf("cluster domain %q is not a domain name", cfg.ClusterDomain)
	}
	s := &Server{cfg: cfg, zone: zone, zones: map[string]bool{zone: false}, index: index, log: cfg.Logger}
	for _, p := range cfg.ReverseCIDRs {
		zs, err := ReverseZones(p)
		if err != nil {
			return nil, err
		}
		for _, z := range zs {
			s.zones[z] = true
		}
	}
	return s, nil
}

// Index is the index the server answers from.
func (s *Server) Index() *Index { return s.index }

// Listener is a UDP and a TCP socket on the same address.
type Listener struct {
	UDP net.PacketConn
	TCP net.Listener
}

// Listen opens UDP and TCP on addr ("0.0.0.0:53"). With port 0 both get
// the same free port.
func Listen(addr string) (*Listener, error) {
	var lastErr error
	for range 10 {
		pc, err := net.ListenPacket("udp", addr)
		if err != nil {
			return nil, err
		}
		ln, err := net.Listen("tcp", pc.LocalAddr().String())
		if err == nil {
			return &Listener{UDP: pc, TCP: ln}, nil
		}
		pc.Close()
		lastErr = err
		if _, port, _ := net.SplitHostPort(addr); port != "0" {
			break
		}
	}
	return nil, lastErr
}

// AddrPort is the address both sockets are bound to.
func (l *Listener) AddrPort() netip.AddrPort {
	return l.UDP.LocalAddr().(*net.UDPAddr).AddrPort()
}

// Close closes both sockets.
func (l *Listener) Close() error { return errors.Join(l.UDP.Close(), l.TCP.Close()) }

// Limits of the transports.
const (
	// maxQuerySize is the read buffer of a UDP query (a query is a few
	// dozen bytes; miekg/dns reads into a pooled buffer of this size).
	maxQuerySize = dns.DefaultMsgSize
	// maxUDPSize bounds an EDNS0 client's buffer size: larger UDP answers
	// would be fragmented; clients that need more retry over TCP.
	maxUDPSize = 4096
	// maxTCPConns bounds the TCP connections served at once.
	maxTCPConns = 1024
)

// Serve answers on l until ctx ends, then closes it.
func (s *Server) Serve(ctx context.Context, l *Listener) error {
	var started sync.WaitGroup
	started.Add(2)
	udp := &dns.Server{PacketConn: l.UDP, Handler: s, UDPSize: maxQuerySize, NotifyStartedFunc: started.Done}
	tcp := &dns.Server{Listener: newLimitListener(l.TCP, maxTCPConns), Handler: s, NotifyStartedFunc: started.Done,
		ReadTimeout: 2 * time.Second, WriteTimeout: 2 * time.Second, IdleTimeout: func() time.Duration { return 8 * time.Second }}
	errc := make(chan error, 2)
	go func() { errc <- udp.ActivateAndServe() }()
	go func() { errc <- tcp.ActivateAndServe() }()
	up := make(chan struct{})
	go func() { started.Wait(); close(up) }()
	select {
	case <-up:
	case err := <-errc: // a server failed to start
		l.Close()
		return err
	}
	s.log.Info("serving DNS", "address", l.AddrPort().String(), "zone", s.zone)
	var err error
	select {
	case <-ctx.Done():
	case err = <-errc:
	}
	udp.Shutdown()
	tcp.Shutdown()
	l.Close()
	return err
}

// limitListener accepts at most n connections at once.
type limitListener struct {
	net.Listener
	sem    chan struct{}
	closed chan struct{}
	once   sync.Once
}

func newLimitListener(l net.Listener, n int) *limitListener {
	return &limitListener{Listener: l, sem: make(chan struct{}, n), closed: make(chan struct{})}
}

func (l *limitListener) Accept() (net.Conn, error) {
	select {
	case l.sem <- struct{}{}:
	case <-l.closed:
		return nil, net.ErrClosed
	}
	c, err := l.Listener.Accept()
	if err != nil {
		<-l.sem
		return nil, err
	}
	return &limitConn{Conn: c, release: sync.OnceFunc(func() { <-l.sem })}, nil
}

func (l *limitListener) Close() error {
	l.once.Do(func() { close(l.closed) })
	return l.Listener.Close()
}

type limitConn struct {
	net.Conn
	release func()
}

func (c *limitConn) Close() error {
	c.release()
	return c.Conn.Close()
}
