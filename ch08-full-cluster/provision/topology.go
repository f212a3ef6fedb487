// Package provision turns one cluster topology into every machine's
// files: the systemd unit of each component, with upstream's flags, the
// certificates and kubeconfigs it names (copied from the cluster's PKI,
// package pki), the load balancer's haproxy.cfg, the cloud provider's
// configuration. The same function renders a machine for any root: the
// machine's directory on this host (chapter 8's network-namespace
// machines, run by package supervisor) or "/" on a VM (run by systemd):
//
//	files, err := provision.Render(topology, pkiDir, "cp-1", "/")
//	provision.Write(stagingDir, files) // then copy stagingDir/ to the VM's /
//
// What a machine needs besides its files — the component binaries in
// /usr/local/bin (Binaries), the nodes' image tarballs in
// /var/lib/kubik/images, Debian's haproxy, etcd-client and
// containernetworking-plugins — the runner provides.
//
// The layout is Kubernetes The Hard Way's: /etc/etcd for etcd's
// certificates, /var/lib/kubernetes for the control plane's,
// /var/lib/kubelet and /var/lib/kube-proxy for the workers'.
//
// Upstream: no one program — kubeadm's phases write static pod manifests
// instead of units; The Hard Way writes these units by hand.
package provision

import (
	"errors"
	"fmt"
	"net/netip"
	"slices"
	"time"

	"kubik/ch08-full-cluster/cloudprovider/kubik"
	"kubik/ch08-full-cluster/pki"
)

// Role is what a machine is for.
type Role string

const (
	// ControlPlane machines run an etcd member, kube-apiserver,
	// kube-scheduler, kube-controller-manager and cloud-controller-manager.
	ControlPlane Role = "control-plane"
	// LoadBalancer is haproxy in front of the apiservers.
	LoadBalancer Role = "load-balancer"
	// Worker machines run the kubelet (with its containerd), kube-proxy
	// and the node agent, and the pods.
	Worker Role = "worker"
)

// Machine is one machine of the topology.
type Machine struct {
	Name string     `json:"name"`
	Role Role       `json:"role"`
	IP   netip.Addr `json:"ip"` // on the node network
}

// Topology is the whole cluster: its machines and its settings.
type Topology struct {
	ClusterName string       `json:"clusterName"`
	Machines    []Machine    `json:"machines"`
	NodeCIDR    netip.Prefix `json:"nodeCIDR"`
	// Interface is every machine's link on the node network: eth0 for a
	// network-namespace machine, the private network's (eth1) on a VM.
	Interface   string `json:"interface"`
	SecurePort  int    `json:"securePort"`  // the apiservers' and the load balancer's port
	ClusterCIDR string `json:"clusterCIDR"` // the pods' range
	ServiceCIDR string `json:"serviceCIDR"`
	// ClusterDNS and ClusterDomain are the kubelets' --cluster-dns and
	// --cluster-domain (the DNS addon's Service address).
	ClusterDNS    string `json:"clusterDNS"`
	ClusterDomain string `json:"clusterDomain"`
	Backend       string `json:"backend"`   // the node agent's: host-gw or vxlan
	ProxyMode     string `json:"proxyMode"` // kube-proxy's: iptables or nftables
	// NodeMonitorGracePeriod is how long a Node may go without a
	// heartbeat before the controller manager marks it Unknown.
	NodeMonitorGracePeriod time.Duration `json:"nodeMonitorGracePeriod"`
	// Cloud is the cloud provider's configuration (the kubik cloud's:
	// its balancer, address pool and machines); nil: no
	// cloud-controller-manager.
	Cloud    *kubik.Config `json:"cloud,omitempty"`
	LogLevel string        `json:"logLevel"`
	// EtcdUnsafeNoFsync runs the etcd members with --unsafe-no-fsync:
	// their writes stay in the page cache until the kernel flushes them.
	// A member killed keeps what it wrote (the host's cache has it), a
	// host that crashes loses it. The local runner sets it: its members
	// share one host's disk with everything else there, where one fsync
	// can wait tens of seconds and cost the members their leader.
	EtcdUnsafeNoFsync bool `json:"etcdUnsafeNoFsync,omitempty"`
	// UpstreamControlPlane: the control-plane machines' kube-apiserver,
	// kube-scheduler and kube-controller-manager are upstream's binaries
	// (the runner puts them in /usr/local/bin): the same flags, except
	// the log verbosity, which is klog's --v.
	UpstreamControlPlane bool `json:"upstreamControlPlane,omitempty"`
	// Upstream names more components that run upstream's binaries, each
	// rendered with upstream's flags where they differ from ours: a
	// component's name ("kube-apiserver", "kube-scheduler",
	// "kube-controller-manager" on every control-plane machine, "kubelet",
	// "kube-proxy" on every worker), or MACHINE/COMPONENT for one
	// machine's ("w-2/kubelet").
	Upstream []string `json:"upstream,omitempty"`
}

// IsUpstream reports whether machine's component is upstream's binary
// (UpstreamControlPlane, or named in Upstream).
func (t Topology) IsUpstream(machine, component string) bool {
	if t.UpstreamControlPlane && (component == "kube-apiserver" || component == "kube-scheduler" || component == "kube-controller-manager") {
		return true
	}
	return slices.Contains(t.Upstream, component) || slices.Contains(t.Upstream, machine+"/"+component)
}

// The machines' names.
const LoadBalancerName = "lb"

// ControlPlaneName and WorkerName are the i-th (1-based) machine's name.
func ControlPlaneName(i int) string { return fmt.Sprintf("cp-%d", i) }
func WorkerName(i int) string       { return fmt.Sprintf("w-%d", i) }

// NewTopology is the default topology on nodeCIDR: the load balancer at
// .10, control-plane machine i at .10+i (at most 9), worker i at .20+i;
// the bridge or gateway is .1 and the cloud's own balancer .2 (its pool
// .200-.250), as package fabric and the kubik cloud place them.
func NewTopology(controlPlanes, workers int, nodeCIDR netip.Prefix) (Topology, error) {
	t := Topology{ClusterName: "kubik", NodeCIDR: nodeCIDR.Masked(), Interface: "eth0", SecurePort: 6443,
		ClusterCIDR: "10.244.0.0/16", ServiceCIDR: "10.96.0.0/12", ClusterDNS: "10.96.0.10", ClusterDomain: "cluster.local",
		Backend: "host-gw", ProxyMode: "iptables", NodeMonitorGracePeriod: 50 * time.Second, LogLevel: "info"}
	if controlPlanes < 1 || controlPlanes > 9 {
		return t, fmt.Errorf("%d control-plane machines: 1 to 9 fit the addresses", controlPlanes)
	}
	if workers < 0 || workers > 179 {
		return t, fmt.Errorf("%d workers: 0 to 179 fit the addresses", workers)
	}
	if !nodeCIDR.Addr().Is4() || nodeCIDR.Bits() > 24 {
		return t, fmt.Errorf("node CIDR %s: an IPv4 /24 or larger is needed", nodeCIDR)
	}
	at := func(n int) netip.Addr {
		b := t.NodeCIDR.Addr().As4()
		b[3] += byte(n)
		return netip.AddrFrom4(b)
	}
	t.Machines = append(t.Machines, Machine{Name: LoadBalancerName, Role: LoadBalancer, IP: at(10)})
	for i := 1; i <= controlPlanes; i++ {
		t.Machines = append(t.Machines, Machine{Name: ControlPlaneName(i), Role: ControlPlane, IP: at(10 + i)})
	}
	for i := 1; i <= workers; i++ {
		t.Machines = append(t.Machines, Machine{Name: WorkerName(i), Role: Worker, IP: at(20 + i)})
	}
	return t, nil
}

// Validate checks what rendering relies on.
func (t Topology) Validate() error {
	if len(t.ByRole(ControlPlane)) == 0 {
		return errors.New("topology: no control-plane machine")
	}
	if len(t.ByRole(LoadBalancer)) != 1 {
		return errors.New("topology: one load balancer is needed")
	}
	seen := map[string]bool{}
	for _, m := range t.Machines {
		if seen[m.Name] {
			return fmt.Errorf("topology: machine %q twice", m.Name)
		}
		seen[m.Name] = true
		if !t.NodeCIDR.Contains(m.IP) {
			return fmt.Errorf("topology: %s's address %s is not in the node network %s", m.Name, m.IP, t.NodeCIDR)
		}
	}
	if t.Interface == "" || t.SecurePort < 1 || t.SecurePort > 65535 {
		return errors.New("topology: the interface and the secure port are required")
	}
	return nil
}

// ByRole is the machines of role, in order.
func (t Topology) ByRole(role Role) []Machine {
	var out []Machine
	for _, m := range t.Machines {
		if m.Role == role {
			out = append(out, m)
		}
	}
	return out
}

// Machine is the machine called name.
func (t Topology) Machine(name string) (Machine, bool) {
	i := slices.IndexFunc(t.Machines, func(m Machine) bool { return m.Name == name })
	if i < 0 {
		return Machine{}, false
	}
	return t.Machines[i], true
}

// LoadBalancerAddress is host:port of the load balancer: what admin,
// the kubelets, kube-proxy and the node agents reach the apiservers at.
func (t Topology) LoadBalancerAddress() string {
	lb := t.ByRole(LoadBalancer)[0]
	return netip.AddrPortFrom(lb.IP, uint16(t.SecurePort)).String()
}

// PKI is the topology as package pki issues certificates for it.
func (t Topology) PKI() pki.Topology {
	p := pki.Topology{ClusterName: t.ClusterName, LoadBalancer: t.LoadBalancerAddress(),
		ServiceClusterIPRange: t.ServiceCIDR, ClusterDomain: t.ClusterDomain, SecurePort: t.SecurePort}
	for _, m := range t.ByRole(ControlPlane) {
		p.ControlPlane = append(p.ControlPlane, pki.Machine{Name: m.Name, IP: m.IP})
	}
	for _, m := range t.ByRole(Worker) {
		p.Workers = append(p.Workers, pki.Machine{Name: m.Name, IP: m.IP})
	}
	return p
}

// EtcdEndpoints are the members' client URLs.
func (t Topology) EtcdEndpoints() []string {
	var out []string
	for _, m := range t.ByRole(ControlPlane) {
		out = append(out, "https://"+netip.AddrPortFrom(m.IP, EtcdClientPort).String())
	}
	return out
}

// The ports, as upstream's defaults.
const (
	EtcdClientPort = 2379
	EtcdPeerPort   = 2380
	KubeletPort    = 10250
	// HAProxyStatsPort serves haproxy's statistics page (and its CSV, which
	// the drills read) on the load balancer.
	HAProxyStatsPort = 8404
)
