package dns

import (
	"net/netip"
	"slices"
	"strings"
)

// The labels of the cluster zone's schema.
const (
	labelSvc        = "svc"
	labelPod        = "pod"
	labelDNSVersion = "dns-version"
	labelDNS        = "dns" // ns.dns.<zone>: the name of the zone's name server
)

// SchemaVersion is the version of the Kubernetes DNS schema these records
// follow, the TXT record of dns-version.<zone> (CoreDNS's DNSSchemaVersion).
const SchemaVersion = "1.1.0"

// maxEntries bounds what one query gathers: a DNS message (at most 64 KiB)
// holds at most about 4000 address records, so a headless Service with
// more endpoints is answered with the first maxEntries of them.
const maxEntries = 4096

// entry is one thing a name stands for (CoreDNS's msg.Service): an address
// with the name it is known by (the target of its SRV records) and the
// ports there that match the query, or the target of a CNAME.
type entry struct {
	name   string // fully qualified, lower case: "web.default.svc.cluster.local."
	addr   netip.Addr
	ports  []port
	target string // CNAME target (an ExternalName Service), fully qualified
}

// result is what a name in the cluster zone holds. A name that does not
// exist is NXDOMAIN; one that exists without records of the asked type is
// NODATA.
type result struct {
	exists  bool
	apex    bool   // the zone itself: SOA and NS
	txt     string // the schema version, for dns-version.<zone>
	entries []entry
}

// lookup resolves a name of the cluster zone given as its labels left of
// the zone, lower case ("web", "default", "svc"). It follows CoreDNS's
// parseRequest: [[_port._proto.|endpoint.]service.]namespace.(svc|pod).
func (ix *Index) lookup(labels []string, zone string, localIPs []netip.Addr) result {
	n := len(labels)
	if n == 0 {
		return result{exists: true, apex: true}
	}
	switch labels[n-1] {
	case labelDNSVersion:
		if n == 1 {
			return result{exists: true, txt: SchemaVersion}
		}
		return result{}
	case labelDNS:
		switch {
		case n == 1: // the empty non-terminal above ns.dns
			return result{exists: true}
		case n == 2 && labels[0] == "ns":
			return result{exists: true, entries: ix.nameServers(zone, localIPs)}
		}
		return result{}
	case labelSvc, labelPod:
	default:
		return result{}
	}
	if n == 1 { // svc.<zone>, pod.<zone>
		return result{exists: true}
	}

	ix.mu.RLock()
	defer ix.mu.RUnlock()
	namespace := labels[n-2]
	if _, ok := ix.namespaces[namespace]; !ok {
		return result{}
	}
	if n == 2 { // <ns>.svc.<zone>, <ns>.pod.<zone>
		return result{exists: true}
	}
	if labels[n-1] == labelPod {
		if n != 3 {
			return result{}
		}
		return podRecord(labels[0], strings.Join(labels, ".")+"."+zone)
	}

	s := ix.services[namespace+"/"+labels[n-3]]
	if s == nil {
		return result{}
	}
	var r result
	switch n {
	case 3: // service
		r = s.records(zone, "", "", "")
	case 4: // endpoint.service
		r = s.records(zone, labels[0], "", "")
	case 5: // _port._proto.service
		r = s.records(zone, "", strings.TrimPrefix(labels[0], "_"), strings.TrimPrefix(labels[1], "_"))
	}
	return r
}

// podRecord is the answer of pods insecure: a-b-c-d.<ns>.pod.<zone> is
// a.b.c.d, whether or not a pod has that address.
func podRecord(label, name string) result {
	if strings.Count(label, "-") != 3 {
		return result{}
	}
	ip, err := netip.ParseAddr(strings.ReplaceAll(label, "-", "."))
	if err != nil || !ip.Is4() {
		return result{}
	}
	return result{exists: true, entries: []entry{{name: name, addr: ip}}}
}

// records is what the Service's names hold: the Service itself
// (hostname, portName and proto empty), one of its endpoints (hostname
// set) or the SRV name of a port (portName and proto set). An empty
// result is NXDOMAIN, as CoreDNS answers (and the schema asks of a headless
// Service without ready endpoints).
func (s *service) records(zone, hostname, portName, proto string) result {
	svcName := s.name + "." + s.namespace + "." + labelSvc + "." + zone
	if s.externalName != "" {
		if hostname != "" || portName != "" || proto != "" {
			return result{}
		}
		return result{exists: true, entries: []entry{{name: svcName, target: s.externalName}}}
	}
	var entries []entry
	if s.headless || hostname != "" {
		add := func(e *endpoint) bool {
			if ports := matchPorts(e.ports, portName, proto); len(ports) > 0 {
				entries = append(entries, entry{name: e.hostname + "." + svcName, addr: e.addr, ports: ports})
			}
			return len(entries) < maxEntries
		}
		if hostname != "" {
			for _, i := range s.byHostname[hostname] {
				if !add(&s.endpoints[i]) {
					break
				}
			}
		} else {
			for i := range s.endpoints {
				if !add(&s.endpoints[i]) {
					break
				}
			}
		}
	} else if ports := matchPorts(s.ports, portName, proto); len(ports) > 0 {
		for _, ip := range s.clusterIPs {
			entries = append(entries, entry{name: svcName, addr: ip, ports: ports})
		}
	}
	if len(entries) == 0 {
		return result{}
	}
	return result{exists: true, entries: entries}
}

// matchPorts are the ports whose name and protocol match; an empty
// portName or proto matches any (CoreDNS's matchPortAndProtocol). The
// result aliases ports when every port matches.
func matchPorts(ports []port, portName, proto string) []port {
	if portName == "" && proto == "" {
		return ports
	}
	var out []port
	for _, p := range ports {
		if (portName == "" || portName == p.name) && (proto == "" || proto == p.protocol) {
			out = append(out, p)
		}
	}
	return out
}

// nameServers are the addresses of ns.dns.<zone>: CoreDNS's nsAddrs. The
// Services this server is an endpoint of (kube-system/kube-dns) give
// their ClusterIPs (or, if headless, their endpoints); without one, the
// server's own addresses are the name server.
func (ix *Index) nameServers(zone string, localIPs []netip.Addr) []entry {
	ix.mu.RLock()
	defer ix.mu.RUnlock()
	var out []entry
	found := false
	for _, ip := range localIPs {
		for _, k := range sortedKeys(ix.endpointIPs[ip]) {
			s := ix.services[k]
			if s == nil {
				continue
			}
			found = true
			svcName := s.name + "." + s.namespace + "." + labelSvc + "." + zone
			if s.headless {
				for _, e := range s.endpoints {
					out = append(out, entry{name: e.hostname + "." + svcName, addr: e.addr})
				}
				continue
			}
			for _, c := range s.clusterIPs {
				out = append(out, entry{name: svcName, addr: c})
			}
		}
	}
	if !found {
		for _, ip := range localIPs {
			out = append(out, entry{name: "ns." + labelDNS + "." + zone, addr: ip})
		}
	}
	if len(out) > maxEntries {
		out = out[:maxEntries]
	}
	return out
}

// reverse is what a PTR query for ip finds: the name of a Service whose
// ClusterIP it is, else the names it has as an endpoint (every Service
// it is an endpoint of). CoreDNS's serviceRecordForIP.
func (ix *Index) reverse(ip netip.Addr, zone string) []string {
	ix.mu.RLock()
	defer ix.mu.RUnlock()
	if owners := sortedKeys(ix.clusterIPs[ip]); len(owners) > 0 {
		s := ix.services[owners[0]]
		return []string{s.name + "." + s.namespace + "." + labelSvc + "." + zone}
	}
	var names []string
	for _, k := range sortedKeys(ix.endpointIPs[ip]) {
		s := ix.services[k]
		for _, e := range s.endpoints {
			if e.addr == ip {
				names = append(names, e.hostname+"."+s.name+"."+s.namespace+"."+labelSvc+"."+zone)
			}
		}
		if len(names) >= maxEntries {
			break
		}
	}
	return names
}

func sortedKeys(m map[string]bool) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}
