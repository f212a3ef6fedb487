package ingress

import (
	"cmp"
	"crypto/tls"
	"fmt"
	"net"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"

	"kubik/ch01-apiserver/api/corev1"
	"kubik/ch01-apiserver/api/discoveryv1"
	"kubik/ch01-apiserver/api/networkingv1"
)

// Objects is what a routing table is built from: this controller's
// Ingresses and the Services, EndpointSlices and Secrets they refer to.
type Objects struct {
	Ingresses []*networkingv1.Ingress
	// Services by "namespace/name".
	Services map[string]*corev1.Service
	// EndpointSlices by "namespace/service" (their kubernetes.io/service-name label).
	EndpointSlices map[string][]*discoveryv1.EndpointSlice
	// Secrets by "namespace/name".
	Secrets map[string]*corev1.Secret
}

// Table is one immutable routing table: the nginx.conf of ingress-nginx.
// The controller builds a new one on every change and swaps it in.
type Table struct {
	// hosts are the servers of rules with a host, wildcards those of rules
	// with "*.suffix" (keyed by the suffix), catchAll the one of rules
	// without a host (ingress-nginx's server "_").
	hosts     map[string]*server
	wildcards map[string]*server
	catchAll  *server
	// defaultBackend is the spec.defaultBackend of the oldest Ingress
	// without rules: requests matching no rule go there; nil answers 404.
	defaultBackend *Backend

	certs         map[string]*tls.Certificate // by host, wildcard hosts as "*.suffix"
	wildcardCerts map[string]*tls.Certificate // by suffix

	// Warnings are the problems found while building (a Secret that is
	// missing, a Service without the port): logged and reported as Events.
	Warnings []Warning
}

// Warning is a problem with one Ingress.
type Warning struct {
	Namespace, Name string // the Ingress
	Reason, Message string
}

// server is one host's paths, most specific first.
type server struct {
	routes []route
	// fallback is where a request for the host matching none of its
	// paths goes: the defaultBackend of the oldest Ingress of the host that
	// has one, else the table's.
	fallback *Backend
}

// route is one path of one Ingress rule.
type route struct {
	path     string // as written
	prefix   string // for Prefix: path without the trailing "/"
	exact    bool
	backend  *Backend
	ingress  string // namespace/name, for logs
	sortBase int    // the length the precedence compares
}

// Backend is a Service port with its ready endpoints, shared by every path
// pointing at it so that round robin spans them all.
type Backend struct {
	Namespace, Service string
	Port               string // the Service port as the Ingress names it: "80" or "http"
	// Endpoints are "podIP:targetPort" of the ready endpoints, sorted.
	Endpoints []string
	// Err says why there are no endpoints ("" when there are).
	Err  string
	next atomic.Uint64
}

// String is "namespace/service:port".
func (b *Backend) String() string { return b.Namespace + "/" + b.Service + ":" + b.Port }

// Next returns the endpoint after the last one handed out (round robin)
// and false when there is none.
func (b *Backend) Next() (string, bool) {
	if len(b.Endpoints) == 0 {
		return "", false
	}
	n := b.next.Add(1) - 1
	return b.Endpoints[n%uint64(len(b.Endpoints))], true
}

// Route is a match: the backend and the rule that chose it.
type Route struct {
	Backend *Backend
	Ingress string // "namespace/name" of the rule's Ingress; "" for a default backend
	Path    string
}

// NewTable builds the routing table of objs. Ingresses are taken oldest
// first (creationTimestamp, then namespace/name), as ingress-nginx does:
// when two Ingresses give the same host the same path, the older wins.
func NewTable(objs Objects) *Table {
	t := &Table{hosts: map[string]*server{}, wildcards: map[string]*server{}, catchAll: &server{},
		certs: map[string]*tls.Certificate{}, wildcardCerts: map[string]*tls.Certificate{}}
	ings := slices.Clone(objs.Ingresses)
	slices.SortStableFunc(ings, func(a, b *networkingv1.Ingress) int {
		if c := a.CreationTimestamp.Compare(b.CreationTimestamp.Time); c != 0 {
			return c
		}
		return cmp.Compare(a.Namespace+"/"+a.Name, b.Namespace+"/"+b.Name)
	})
	backends := map[string]*Backend{}
	resolve := func(ing *networkingv1.Ingress, b *networkingv1.IngressBackend) *Backend {
		if b == nil {
			return nil
		}
		if b.Service == nil {
			t.warn(ing, "UnsupportedBackend", "resource backends are not supported, only services")
			return nil
		}
		key := backendKey(objs, ing.Namespace, b.Service)
		if be, ok := backends[key]; ok {
			return be
		}
		be := resolveBackend(objs, ing.Namespace, b.Service)
		backends[key] = be
		return be
	}

	// Default backends first: every host's fallback needs the table's.
	// The catch-all is the oldest Ingress of only a defaultBackend; one
	// with rules too is its hosts' fallback (ingress-nginx's createServers).
	hostFallback := map[*server]*Backend{}
	for _, ing := range ings {
		if be := resolve(ing, ing.Spec.DefaultBackend); be != nil && len(ing.Spec.Rules) == 0 && t.defaultBackend == nil {
			t.defaultBackend = be
		}
	}
	for _, ing := range ings {
		ingDefault := resolve(ing, ing.Spec.DefaultBackend)
		for _, rule := range ing.Spec.Rules {
			s := t.serverFor(strings.ToLower(rule.Host))
			if ingDefault != nil && hostFallback[s] == nil {
				hostFallback[s] = ingDefault
			}
			if rule.HTTP == nil {
				continue
			}
			for _, p := range rule.HTTP.Paths {
				be := resolve(ing, &p.Backend)
				if be == nil {
					continue
				}
				s.routes = append(s.routes, newRoute(p, be, ing.Namespace+"/"+ing.Name))
			}
		}
		t.addCertificates(objs, ing)
	}
	for _, s := range t.servers() {
		// Longest path first; at equal length Exact before Prefix; then
		// the older Ingress (the stable sort keeps their order).
		slices.SortStableFunc(s.routes, func(a, b route) int {
			if c := cmp.Compare(b.sortBase, a.sortBase); c != 0 {
				return c
			}
			switch {
			case a.exact && !b.exact:
				return -1
			case b.exact && !a.exact:
				return 1
			}
			return 0
		})
		s.fallback = hostFallback[s]
		if s.fallback == nil {
			s.fallback = t.defaultBackend
		}
	}
	return t
}

func (t *Table) servers() []*server {
	out := []*server{t.catchAll}
	for _, s := range t.hosts {
		out = append(out, s)
	}
	for _, s := range t.wildcards {
		out = append(out, s)
	}
	return out
}

func (t *Table) serverFor(host string) *server {
	m, key := t.hosts, host
	switch {
	case host == "":
		return t.catchAll
	case strings.HasPrefix(host, "*."):
		m, key = t.wildcards, host[2:]
	}
	s := m[key]
	if s == nil {
		s = &server{}
		m[key] = s
	}
	return s
}

func (t *Table) warn(ing *networkingv1.Ingress, reason, format string, args ...any) {
	t.Warnings = append(t.Warnings, Warning{Namespace: ing.Namespace, Name: ing.Name, Reason: reason, Message: fmt.Sprintf(format, args...)})
}

func newRoute(p networkingv1.HTTPIngressPath, be *Backend, ingress string) route {
	r := route{path: p.Path, backend: be, ingress: ingress}
	if r.path == "" {
		r.path = "/"
	}
	// ImplementationSpecific is matched as Prefix (ingress-nginx matches it
	// as a prefix too, and as a regular expression with an annotation we do
	// not have).
	if p.PathType != nil && *p.PathType == networkingv1.PathTypeExact {
		r.exact, r.sortBase = true, len(r.path)
	} else {
		r.prefix = strings.TrimSuffix(r.path, "/")
		r.sortBase = len(r.prefix)
	}
	return r
}

// matches says whether the route's path matches a request path: Exact is
// equality (case-sensitive); Prefix compares element by element, so
// "/foo" matches "/foo", "/foo/" and "/foo/bar" but not "/foobar", and a
// trailing "/" of either side does not matter.
func (r *route) matches(path string) bool {
	if r.exact {
		return path == r.path
	}
	return r.prefix == "" || path == r.prefix || strings.HasPrefix(path, r.prefix+"/")
}

// Match routes a request for host and path. ok is false when nothing
// matches and there is no default backend: a 404.
func (t *Table) Match(host, path string) (Route, bool) {
	s := t.lookupServer(NormalizeHost(host))
	for i := range s.routes {
		if r := &s.routes[i]; r.matches(path) {
			return Route{Backend: r.backend, Ingress: r.ingress, Path: r.path}, true
		}
	}
	if s.fallback == nil {
		return Route{}, false
	}
	return Route{Backend: s.fallback}, true
}

// lookupServer picks the server of a host: the exact host's, else the
// wildcard's (one label: "*.foo.com" matches "bar.foo.com", not
// "baz.bar.foo.com" nor "foo.com"), else the one of rules without a host.
func (t *Table) lookupServer(host string) *server {
	if s := t.hosts[host]; s != nil {
		return s
	}
	if _, suffix, ok := strings.Cut(host, "."); ok {
		if s := t.wildcards[suffix]; s != nil {
			return s
		}
	}
	return t.catchAll
}

// NormalizeHost is a request's Host without the port and the final dot, in
// lower case.
func NormalizeHost(host string) string {
	if h, _, err := net.SplitHostPort(host); err == nil {
		host = h
	}
	return strings.ToLower(strings.TrimSuffix(host, "."))
}

// backendKey identifies a Service port whether an Ingress names it by
// number or by name, so that both share one Backend.
func backendKey(objs Objects, ns string, sb *networkingv1.IngressServiceBackend) string {
	key := ns + "/" + sb.Name + ":"
	if svc := objs.Services[ns+"/"+sb.Name]; svc != nil {
		for _, p := range svc.Spec.Ports {
			if (sb.Port.Name != "" && p.Name == sb.Port.Name) || (sb.Port.Name == "" && p.Port == sb.Port.Number) {
				return key + strconv.Itoa(int(p.Port))
			}
		}
	}
	return key + sb.Port.Name + "#" + strconv.Itoa(int(sb.Port.Number))
}

// resolveBackend finds the Service port an Ingress backend names and the
// ready endpoints behind it. The Ingress names the Service's port (by
// number or name); the EndpointSlices carry that port's name and the
// target port the pods listen on. The proxy dials the pods directly,
// never the ClusterIP, as ingress-nginx does.
func resolveBackend(objs Objects, ns string, sb *networkingv1.IngressServiceBackend) *Backend {
	be := &Backend{Namespace: ns, Service: sb.Name, Port: sb.Port.Name}
	if be.Port == "" {
		be.Port = strconv.Itoa(int(sb.Port.Number))
	}
	svc := objs.Services[ns+"/"+sb.Name]
	if svc == nil {
		be.Err = fmt.Sprintf("service %s/%s not found", ns, sb.Name)
		return be
	}
	if svc.Spec.Type == corev1.ServiceTypeExternalName {
		be.Err = fmt.Sprintf("service %s/%s is of type ExternalName, which is not supported", ns, sb.Name)
		return be
	}
	var sp *corev1.ServicePort
	for i, p := range svc.Spec.Ports {
		if (sb.Port.Name != "" && p.Name == sb.Port.Name) || (sb.Port.Name == "" && p.Port == sb.Port.Number) {
			sp = &svc.Spec.Ports[i]
			break
		}
	}
	if sp == nil {
		be.Err = fmt.Sprintf("service %s/%s has no port %s", ns, sb.Name, be.Port)
		return be
	}
	seen := map[string]bool{}
	for _, es := range objs.EndpointSlices[ns+"/"+sb.Name] {
		if es.AddressType != discoveryv1.AddressTypeIPv4 && es.AddressType != discoveryv1.AddressTypeIPv6 {
			continue
		}
		var port int32
		for _, p := range es.Ports {
			name := ""
			if p.Name != nil {
				name = *p.Name
			}
			if name == sp.Name && p.Port != nil && (p.Protocol == nil || *p.Protocol == corev1.ProtocolTCP) {
				port = *p.Port
			}
		}
		if port == 0 {
			continue
		}
		for _, ep := range es.Endpoints {
			// A nil ready is "unknown": ready, as the API says.
			if ep.Conditions.Ready != nil && !*ep.Conditions.Ready {
				continue
			}
			for _, a := range ep.Addresses {
				hp := net.JoinHostPort(a, strconv.Itoa(int(port)))
				if !seen[hp] {
					seen[hp] = true
					be.Endpoints = append(be.Endpoints, hp)
				}
			}
		}
	}
	slices.Sort(be.Endpoints)
	if len(be.Endpoints) == 0 {
		be.Err = fmt.Sprintf("service %s/%s port %s has no ready endpoints", ns, sb.Name, be.Port)
	}
	return be
}
