package kubelet

// The pod's network settings the runtime applies when it creates the
// sandbox: the resolver configuration (containerd writes the pod's
// /etc/resolv.conf from PodSandboxConfig.DnsConfig) and the hostPorts
// (PortMappings: containerd hands them to the CNI portmap plugin, which
// DNATs <node address>:<hostPort> to <pod IP>:<containerPort>).
// Upstream: pkg/kubelet/network/dns/dns.go, kuberuntime_sandbox.go.

import (
	"bufio"
	"fmt"
	"kubik/ch04-controllers/record"
	"os"
	"strings"

	cri "k8s.io/cri-api/pkg/apis/runtime/v1"

	"kubik/ch01-apiserver/api/corev1"
	"kubik/ch05-kubelet/kubelet/util/format"
)

// The resolver's limits (upstream's validation.MaxDNSNameservers and
// MaxDNSSearchPaths).
const (
	maxDNSNameservers = 3
	maxDNSSearchPaths = 32
)

// podDNS is upstream's GetPodDNS. By dnsPolicy:
//
//	ClusterFirst (the default)  the cluster's DNS server (--cluster-dns) only, searches
//	                            <ns>.svc.<domain> svc.<domain> <domain> then the node's, ndots:5;
//	                            without --cluster-dns: a MissingClusterDNS warning and Default
//	ClusterFirstWithHostNet     ClusterFirst, also for hostNetwork pods (ClusterFirst means Default there)
//	Default                     the node's resolver: --resolv-conf (/etc/resolv.conf)
//	None                        only what spec.dnsConfig says
//
// and spec.dnsConfig's nameservers, searches and options are added to it.
func (k *Kubelet) podDNS(pod *corev1.Pod) (*cri.DNSConfig, error) {
	dns, err := readResolvConf(k.cfg.ResolvConf)
	if err != nil {
		return nil, err
	}
	policy := pod.Spec.DNSPolicy
	if policy == corev1.DNSClusterFirst && pod.Spec.HostNetwork {
		policy = corev1.DNSDefault
	}
	switch policy {
	case corev1.DNSNone:
		dns = &cri.DNSConfig{}
	case corev1.DNSDefault:
		k.hostDNS(dns)
	default: // ClusterFirst, ClusterFirstWithHostNet, or unknown (upstream falls back to ClusterFirst too)
		if len(k.cfg.ClusterDNS) > 0 {
			dns.Servers = append([]string{}, k.cfg.ClusterDNS...)
			if d := k.cfg.ClusterDomain; d != "" {
				dns.Searches = omitDuplicates(append([]string{pod.Namespace + ".svc." + d, "svc." + d, d}, dns.Searches...))
			}
			dns.Options = []string{"ndots:5"}
			break
		}
		msg := fmt.Sprintf("kubelet does not have ClusterDNS IP configured and cannot create Pod using %q policy. Falling back to %q policy.",
			corev1.DNSClusterFirst, corev1.DNSDefault)
		k.rec.Eventf(record.ObjectRef{Kind: "Node", Name: k.cfg.NodeName, UID: k.cfg.NodeName}, corev1.EventTypeWarning, "MissingClusterDNS", "%s", msg)
		k.rec.Eventf(record.RefFor(&pod.ObjectMeta, "v1", "Pod"), corev1.EventTypeWarning, "MissingClusterDNS", "pod: %q. %s", format.Pod(pod), msg)
		k.hostDNS(dns)
	}
	if c := pod.Spec.DNSConfig; c != nil {
		dns.Servers = omitDuplicates(append(dns.Servers, c.Nameservers...))
		dns.Searches = omitDuplicates(append(dns.Searches, c.Searches...))
		dns.Options = mergeDNSOptions(dns.Options, c.Options)
	}
	if len(dns.Servers) > maxDNSNameservers {
		dns.Servers = dns.Servers[:maxDNSNameservers]
		k.rec.Eventf(record.RefFor(&pod.ObjectMeta, "v1", "Pod"), corev1.EventTypeWarning, "DNSConfigForming",
			"Nameserver limits were exceeded, some nameservers have been omitted, the applied nameserver line is: %s", strings.Join(dns.Servers, " "))
	}
	if len(dns.Searches) > maxDNSSearchPaths {
		dns.Searches = dns.Searches[:maxDNSSearchPaths]
		k.rec.Eventf(record.RefFor(&pod.ObjectMeta, "v1", "Pod"), corev1.EventTypeWarning, "DNSConfigForming",
			"Search Line limits were exceeded, some search paths have been omitted, the applied search line is: %s", strings.Join(dns.Searches, " "))
	}
	return dns, nil
}

// hostDNS is dnsPolicy Default: the node's resolver as read; with
// --resolv-conf="" upstream points the pod at a resolver on its own
// localhost, which in effect disables lookups.
func (k *Kubelet) hostDNS(dns *cri.DNSConfig) {
	if k.cfg.ResolvConf == "" {
		dns.Servers, dns.Searches = []string{"127.0.0.1"}, []string{"."}
	}
}

// readResolvConf is upstream's parseResolvConf: nameserver lines
// accumulate, the last search and options lines win. An empty path is an
// empty config.
func readResolvConf(path string) (*cri.DNSConfig, error) {
	dns := &cri.DNSConfig{}
	if path == "" {
		return dns, nil
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if strings.HasPrefix(line, "#") {
			continue
		}
		fields := strings.Fields(line)
		if len(fields) < 2 {
			continue
		}
		switch fields[0] {
		case "nameserver":
			dns.Servers = append(dns.Servers, fields[1])
		case "search":
			dns.Searches = nil
			for _, s := range fields[1:] {
				if s != "." {
					dns.Searches = append(dns.Searches, strings.TrimSuffix(s, "."))
				}
			}
		case "options":
			dns.Options = appendDNSOptions(dns.Options, fields[1:]...)
		}
	}
	return dns, sc.Err()
}

// appendDNSOptions adds options, a later one replacing an earlier one of
// the same name (ndots:2 then ndots:5 is ndots:5).
func appendDNSOptions(options []string, add ...string) []string {
	for _, o := range add {
		name, _, _ := strings.Cut(o, ":")
		replaced := false
		for i, old := range options {
			if oldName, _, _ := strings.Cut(old, ":"); oldName == name {
				options[i], replaced = o, true
			}
		}
		if !replaced {
			options = append(options, o)
		}
	}
	return options
}

// mergeDNSOptions adds spec.dnsConfig.options (name, optional value).
func mergeDNSOptions(options []string, add []corev1.PodDNSConfigOption) []string {
	for _, o := range add {
		s := o.Name
		if o.Value != nil && *o.Value != "" {
			s += ":" + *o.Value
		}
		options = appendDNSOptions(options, s)
	}
	return options
}

func omitDuplicates(in []string) []string {
	seen := map[string]bool{}
	out := []string{}
	for _, s := range in {
		if !seen[s] {
			seen[s] = true
			out = append(out, s)
		}
	}
	return out
}

// portMappings are the containers' ports for the sandbox (upstream's
// generatePodSandboxConfig): the runtime maps those with a hostPort.
func portMappings(pod *corev1.Pod) []*cri.PortMapping {
	var out []*cri.PortMapping
	for _, c := range pod.Spec.Containers {
		for _, p := range c.Ports {
			protocol := cri.Protocol_TCP
			switch p.Protocol {
			case corev1.ProtocolUDP:
				protocol = cri.Protocol_UDP
			case corev1.ProtocolSCTP:
				protocol = cri.Protocol_SCTP
			}
			out = append(out, &cri.PortMapping{Protocol: protocol, ContainerPort: p.ContainerPort, HostPort: p.HostPort, HostIp: p.HostIP})
		}
	}
	return out
}
