package hollownode

// The hollow node's kubelet API, when Config.KubeletAPI asks for one (as
// kubemark's hollow kubelet serves one): HTTPS on the node's InternalIP (a
// loopback address), a free port reported in the Node's
// status.daemonEndpoints.kubeletEndpoint, with two paths:
//
//	GET /healthz            ok
//	GET /metrics/resource   SIMULATED usage (package resourcemetrics' format)
//
// Everything else is 404: no containers run here, so there are no logs,
// no exec, no port-forward. Callers are authenticated by a client
// certificate of KubeletAPI.ClientCA and authorized as the kubelet does it,
// by a SubjectAccessReview for nodes/metrics (nodes/healthz) of this node.
//
// The usage is steered by two annotations on a pod (ours, SIMULATION only):
// kubik.io/simulated-cpu (e.g. 500m: the pod uses half a core) and
// kubik.io/simulated-memory (e.g. 64Mi), split evenly between its
// containers; without them a pod uses nothing. CPU time accumulates at that
// rate from the moment the pod runs, so a metrics server computes exactly
// the annotated rate; the node uses what its pods use.

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"net"
	"net/http"
	"strings"
	"sync"
	"time"

	"kubik/ch01-apiserver/api/authorizationv1"
	"kubik/ch01-apiserver/api/corev1"
	"kubik/ch01-apiserver/api/resource"
	"kubik/ch03-scheduler/clientgo/delegated"
	"kubik/ch03-scheduler/resourcemetrics"
)

// The SIMULATION annotations of a pod (see above).
const (
	AnnotationSimulatedCPU    = "kubik.io/simulated-cpu"
	AnnotationSimulatedMemory = "kubik.io/simulated-memory"
)

// KubeletAPI turns on a hollow node's kubelet API.
type KubeletAPI struct {
	ServingCert tls.Certificate // for the node's InternalIP
	ClientCA    *x509.CertPool  // whose client certificates are accepted
}

// simulated is the cumulative CPU time of the node's containers.
type simulated struct {
	mu      sync.Mutex
	last    time.Time
	nodeCPU uint64                       // nanoseconds, pods that left included
	pods    map[string]map[string]uint64 // pod UID -> container -> nanoseconds
}

// listenKubeletAPI listens on the node's address, a free port, which goes
// into the Node's status.
func (n *node) listenKubeletAPI() (net.Listener, error) {
	ln, err := net.Listen("tcp", net.JoinHostPort(n.cfg.InternalIP, "0"))
	if err != nil {
		return nil, fmt.Errorf("hollownode %s: kubelet API: %w", n.cfg.Name, err)
	}
	n.kubeletPort = int32(ln.Addr().(*net.TCPAddr).Port)
	n.sim = &simulated{last: time.Now(), pods: map[string]map[string]uint64{}}
	return ln, nil
}

// runKubeletAPI serves on ln until ctx ends (once the pod informer exists).
func (n *node) runKubeletAPI(ctx context.Context, ln net.Listener) {
	api := n.cfg.KubeletAPI
	srv := &http.Server{
		Handler: http.HandlerFunc(n.serveKubeletAPI),
		TLSConfig: &tls.Config{Certificates: []tls.Certificate{api.ServingCert}, ClientAuth: tls.VerifyClientCertIfGiven,
			ClientCAs: api.ClientCA, MinVersion: tls.VersionTLS12},
		ReadHeaderTimeout: 10 * time.Second,
		BaseContext:       func(net.Listener) context.Context { return ctx },
	}
	go func() {
		<-ctx.Done()
		srv.Close()
	}()
	n.log.Info("serving a SIMULATED kubelet API (healthz, metrics/resource)", "address", ln.Addr().String())
	if err := srv.ServeTLS(ln, "", ""); err != nil && !errors.Is(err, http.ErrServerClosed) {
		n.log.Error("kubelet API stopped", "err", err)
	}
}

func (n *node) serveKubeletAPI(w http.ResponseWriter, r *http.Request) {
	text := func(code int, msg string) {
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		w.WriteHeader(code)
		fmt.Fprint(w, msg)
	}
	if r.TLS == nil || len(r.TLS.VerifiedChains) == 0 {
		text(http.StatusUnauthorized, "Unauthorized")
		return
	}
	cert := r.TLS.VerifiedChains[0][0]
	sub := "proxy"
	switch {
	case r.URL.Path == "/healthz":
		sub = "healthz"
	case r.URL.Path == "/metrics" || strings.HasPrefix(r.URL.Path, "/metrics/"):
		sub = "metrics"
	}
	verb := "get"
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		verb = strings.ToLower(r.Method)
	}
	u := &delegated.User{Name: cert.Subject.CommonName, Groups: cert.Subject.Organization}
	allowed, _, err := delegated.Authorize(r.Context(), n.c, u,
		&authorizationv1.ResourceAttributes{Verb: verb, Version: "v1", Resource: "nodes", Subresource: sub, Name: n.cfg.Name}, nil)
	if err != nil {
		text(http.StatusInternalServerError, fmt.Sprintf("Authorization error (user=%s, verb=%s, resource=nodes, subresource=%s)", cert.Subject.CommonName, verb, sub))
		return
	}
	if !allowed {
		text(http.StatusForbidden, fmt.Sprintf("Forbidden (user=%s, verb=%s, resource=nodes, subresource(s)=[%s])\n", cert.Subject.CommonName, verb, sub))
		return
	}
	switch {
	case r.Method == http.MethodGet && r.URL.Path == "/healthz":
		fmt.Fprint(w, "ok")
	case r.Method == http.MethodGet && r.URL.Path == "/metrics/resource":
		w.Header().Set("Content-Type", resourcemetrics.ContentType)
		resourcemetrics.Write(w, n.simulatedSummary(time.Now()))
	default:
		text(http.StatusNotFound, "hollow node "+n.cfg.Name+": a simulated kubelet, no containers run here")
	}
}

// simulatedUsage is the CPU (millicores) and memory (bytes) a pod's
// annotations give it.
func simulatedUsage(p *corev1.Pod) (milliCPU, memory int64) {
	if q, err := resource.ParseQuantity(p.Annotations[AnnotationSimulatedCPU]); err == nil && q.Sign() > 0 {
		milliCPU = q.MilliValue()
	}
	if q, err := resource.ParseQuantity(p.Annotations[AnnotationSimulatedMemory]); err == nil && q.Sign() > 0 {
		memory = q.Value()
	}
	return milliCPU, memory
}

// simulatedSummary advances every running pod's CPU time to now at its
// annotated rate and reports it. Times are whole milliseconds and CPU
// time whole nanoseconds (a millicore for a millisecond is 1000 ns), so
// the rate a reader computes between two readings is the annotated one,
// exactly.
func (n *node) simulatedSummary(now time.Time) *resourcemetrics.Summary {
	now = now.Truncate(time.Millisecond)
	s := n.sim
	s.mu.Lock()
	defer s.mu.Unlock()
	dtMs := now.Sub(s.last).Milliseconds()
	if dtMs < 0 {
		dtMs = 0
	}
	s.last = now
	sum := &resourcemetrics.Summary{Node: resourcemetrics.NodeStats{NodeName: n.cfg.Name}}
	var nodeMem uint64
	seen := map[string]bool{}
	for _, p := range n.pods.GetStore().List() {
		if p.Status.Phase != corev1.PodRunning || p.DeletionTimestamp != nil || len(p.Spec.Containers) == 0 {
			continue
		}
		seen[p.UID] = true
		milli, mem := simulatedUsage(p)
		k := int64(len(p.Spec.Containers))
		perMilli, perMem := milli/k, uint64(mem/k)
		cum := s.pods[p.UID]
		if cum == nil {
			cum = map[string]uint64{} // a new pod starts from 0 now
			s.pods[p.UID] = cum
		}
		var start time.Time
		if p.Status.StartTime != nil {
			start = p.Status.StartTime.Time
		}
		ps := resourcemetrics.PodStats{PodRef: resourcemetrics.PodReference{Name: p.Name, Namespace: p.Namespace, UID: p.UID}}
		var podCPU uint64
		for _, c := range p.Spec.Containers {
			if v, ok := cum[c.Name]; ok {
				inc := uint64(perMilli * dtMs * 1000)
				cum[c.Name] = v + inc
				s.nodeCPU += inc
			} else {
				cum[c.Name] = 0
			}
			podCPU += cum[c.Name]
			ps.Containers = append(ps.Containers, resourcemetrics.ContainerStats{Name: c.Name, StartTime: start,
				CPU: cpuStats(now, cum[c.Name]), Memory: memStats(now, perMem)})
		}
		ps.CPU, ps.Memory = cpuStats(now, podCPU), memStats(now, perMem*uint64(k))
		nodeMem += perMem * uint64(k)
		sum.Pods = append(sum.Pods, ps)
	}
	for uid := range s.pods {
		if !seen[uid] {
			delete(s.pods, uid)
		}
	}
	sum.Node.CPU, sum.Node.Memory = cpuStats(now, s.nodeCPU), memStats(now, nodeMem)
	return sum
}

func cpuStats(t time.Time, ns uint64) *resourcemetrics.CPUStats {
	return &resourcemetrics.CPUStats{Time: t, UsageCoreNanoSeconds: &ns}
}

func memStats(t time.Time, bytes uint64) *resourcemetrics.MemoryStats {
	return &resourcemetrics.MemoryStats{Time: t, WorkingSetBytes: &bytes}
}
