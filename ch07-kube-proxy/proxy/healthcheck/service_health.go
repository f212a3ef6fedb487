package healthcheck

import (
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"strconv"
	"sync"

	"kubik/ch07-kube-proxy/proxy"
	proxyutil "kubik/ch07-kube-proxy/proxy/util"
)

// ServiceHealthServer serves the health-check node ports.
type ServiceHealthServer interface {
	// SyncServices makes the set of served ports exactly newServices.
	SyncServices(newServices map[proxy.NamespacedName]uint16) error
	// SyncEndpoints sets the number of local ready endpoints per Service.
	SyncEndpoints(newEndpoints map[proxy.NamespacedName]int) error
}

type proxyHealthChecker interface {
	Health() ProxyHealth
}

type server struct {
	nodeName      string
	nodeIPs       []net.IP
	healthzServer proxyHealthChecker
	log           *slog.Logger

	lock     sync.RWMutex
	services map[proxy.NamespacedName]*hcInstance
}

// NewServiceHealthServer listens on every address (0.0.0.0), or, with
// --nodeport-addresses, only on the node IPs inside them.
func NewServiceHealthServer(nodeName string, nodePortAddresses *proxyutil.NodePortAddresses, healthzServer proxyHealthChecker, log *slog.Logger) ServiceHealthServer {
	nodeIPs := []net.IP{net.IPv4zero}
	if !nodePortAddresses.MatchAll() {
		if ips, err := nodePortAddresses.GetNodeIPs(proxyutil.RealNetwork{}); err == nil {
			nodeIPs = ips
		} else {
			log.Error("Failed to get node ip address matching node port addresses, health check port will listen to all node addresses", "nodePortAddresses", nodePortAddresses.String(), "err", err)
		}
	}
	return &server{nodeName: nodeName, nodeIPs: nodeIPs, healthzServer: healthzServer, log: log,
		services: map[proxy.NamespacedName]*hcInstance{}}
}

type hcInstance struct {
	nsn       proxy.NamespacedName
	port      uint16
	servers   []*http.Server
	endpoints int // local ready endpoints
}

func (hcs *server) SyncServices(newServices map[proxy.NamespacedName]uint16) error {
	hcs.lock.Lock()
	defer hcs.lock.Unlock()
	for nsn, svc := range hcs.services {
		if port, found := newServices[nsn]; !found || port != svc.port {
			hcs.log.Info("Closing healthcheck", "service", nsn.String(), "port", svc.port)
			svc.closeAll()
			delete(hcs.services, nsn)
		}
	}
	for nsn, port := range newServices {
		if hcs.services[nsn] != nil {
			continue
		}
		hcs.log.Info("Opening healthcheck", "service", nsn.String(), "port", port)
		svc := &hcInstance{nsn: nsn, port: port}
		if err := svc.listenAndServeAll(hcs); err != nil {
			hcs.log.Error("Failed to start healthcheck", "node", hcs.nodeName, "service", nsn.String(), "port", port, "err", err)
			continue
		}
		hcs.services[nsn] = svc
	}
	return nil
}

func (hcI *hcInstance) listenAndServeAll(hcs *server) error {
	for _, ip := range hcs.nodeIPs {
		addr := net.JoinHostPort(ip.String(), strconv.Itoa(int(hcI.port)))
		l, err := net.Listen("tcp", addr)
		if err != nil {
			hcI.closeAll()
			return err
		}
		srv := &http.Server{Handler: hcHandler{name: hcI.nsn, hcs: hcs}}
		go func() {
			if err := srv.Serve(l); err != nil && err != http.ErrServerClosed {
				hcs.log.Error("Healthcheck closed", "service", hcI.nsn.String(), "err", err)
			}
		}()
		hcI.servers = append(hcI.servers, srv)
	}
	return nil
}

func (hcI *hcInstance) closeAll() {
	for _, s := range hcI.servers {
		_ = s.Close()
	}
}

type hcHandler struct {
	name proxy.NamespacedName
	hcs  *server
}

// ServeHTTP answers 200 if the node has local ready endpoints of the
// Service (and kube-proxy itself is healthy), else 503. The
// X-Load-Balancing-Endpoint-Weight header is the number of local endpoints.
func (h hcHandler) ServeHTTP(resp http.ResponseWriter, _ *http.Request) {
	h.hcs.lock.RLock()
	svc, ok := h.hcs.services[h.name]
	if !ok || svc == nil {
		h.hcs.lock.RUnlock()
		return
	}
	count := svc.endpoints
	h.hcs.lock.RUnlock()
	healthy := h.hcs.healthzServer == nil || h.hcs.healthzServer.Health().Healthy

	resp.Header().Set("Content-Type", "application/json")
	resp.Header().Set("X-Content-Type-Options", "nosniff")
	resp.Header().Set("X-Load-Balancing-Endpoint-Weight", strconv.Itoa(count))
	if count != 0 && healthy {
		resp.WriteHeader(http.StatusOK)
	} else {
		resp.WriteHeader(http.StatusServiceUnavailable)
	}
	fmt.Fprintf(resp, "{\n\t\"service\": {\n\t\t\"namespace\": %q,\n\t\t\"name\": %q\n\t},\n\t\"localEndpoints\": %d,\n\t\"serviceProxyHealthy\": %v\n}",
		h.name.Namespace, h.name.Name, count, healthy)
}

func (hcs *server) SyncEndpoints(newEndpoints map[proxy.NamespacedName]int) error {
	hcs.lock.Lock()
	defer hcs.lock.Unlock()
	for nsn, hci := range hcs.services {
		hci.endpoints = newEndpoints[nsn]
	}
	return nil
}

// FakeServiceHealthServer does nothing (tests).
type FakeServiceHealthServer struct{}

func (FakeServiceHealthServer) SyncServices(map[proxy.NamespacedName]uint16) error { return nil }
func (FakeServiceHealthServer) SyncEndpoints(map[proxy.NamespacedName]int) error   { return nil }
