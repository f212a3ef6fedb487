// Package pki writes a whole cluster's certificates, keys and kubeconfigs
// into one directory, laid out as Kubernetes The Hard Way lays them out
// (ca.crt, admin.kubeconfig, node-0.crt, node-0.kubeconfig, ...), for a
// topology: the control-plane machines, the workers, the load balancer in
// front of the apiservers, the service CIDR. Each machine then gets the
// files its components name in their flags. Chapter 1's pki package is
// the CA and the issuing; this one decides who gets which certificate,
// with which names.
//
// Writing is idempotent: keys are never replaced, and a certificate is
// issued again only when what it should say changed (a new address), so
// running it again after a topology change leaves every other file as it
// was.
//
// Upstream: no one program — kubeadm's phases "certs" and "kubeconfig"
// (cmd/kubeadm/app/phases/certs) do this for kubeadm's layout; The Hard
// Way does it by hand with openssl.
package pki

import (
	"errors"
	"fmt"
	"net"
	"net/netip"
	"os"
	"slices"
	"strconv"
	"strings"

	"kubik/ch01-apiserver/apiserver/validation"
	"kubik/ch01-apiserver/pki"
)

// Machine is a node of the topology: its name (the Node's name, the
// etcd member's name) and its address on the node network.
type Machine struct {
	Name string
	IP   netip.Addr
}

// Topology is what the PKI is issued for.
type Topology struct {
	// ClusterName names the cluster in every kubeconfig (default pki.ClusterName).
	ClusterName string
	// ControlPlane machines run an etcd member, an apiserver, a
	// scheduler, a controller manager and a cloud controller manager.
	ControlPlane []Machine
	// Workers run a kubelet, kube-proxy and the node agent.
	Workers []Machine
	// LoadBalancer is the address (host or host:port, port default
	// SecurePort) in front of the apiservers: what workers and admin use.
	LoadBalancer string
	// ServiceClusterIPRange is the service CIDR; its first address is the
	// kubernetes Service's, which the apiserver certificate names
	// (default 10.96.0.0/12).
	ServiceClusterIPRange string
	// ClusterDomain completes kubernetes.default.svc.<domain> (default cluster.local).
	ClusterDomain string
	// SecurePort is the apiservers' port (default 6443).
	SecurePort int
}

// withDefaults fills the defaults and checks the topology.
func (t Topology) withDefaults() (Topology, error) {
	if t.ClusterName == "" {
		t.ClusterName = pki.ClusterName
	}
	if t.ServiceClusterIPRange == "" {
		t.ServiceClusterIPRange = "10.96.0.0/12"
	}
	if t.ClusterDomain == "" {
		t.ClusterDomain = "cluster.local"
	}
	if t.SecurePort == 0 {
		t.SecurePort = 6443
	}
	if t.SecurePort < 1 || t.SecurePort > 65535 {
		return t, fmt.Errorf("secure port %d is not a port", t.SecurePort)
	}
	if len(t.ControlPlane) == 0 {
		return t, errors.New("at least one control-plane machine is required")
	}
	if t.LoadBalancer == "" {
		return t, errors.New("the load balancer's address is required")
	}
	if _, err := pki.FirstIP(t.ServiceClusterIPRange); err != nil {
		return t, fmt.Errorf("service CIDR: %w", err)
	}
	seen := map[string]bool{}
	for _, m := range slices.Concat(t.ControlPlane, t.Workers) {
		if errs := validation.IsDNS1123Subdomain(m.Name); len(errs) > 0 {
			return t, fmt.Errorf("machine name %q: %s", m.Name, strings.Join(errs, "; "))
		}
		if seen[m.Name] {
			return t, fmt.Errorf("machine name %q appears twice", m.Name)
		}
		seen[m.Name] = true
		if !m.IP.IsValid() {
			return t, fmt.Errorf("machine %q has no IP address", m.Name)
		}
	}
	// Every file name once: a worker called "admin", or "a-serving" next
	// to "a", would overwrite another's files.
	files := map[string]string{}
	for _, n := range []string{CA, "sa", "encryption-config", APIServer, KubeletClient, EtcdClient, EtcdHealthcheckClient,
		KubeProxy, KubeScheduler, KubeControllerManager, CloudControllerManager, Admin} {
		files[n] = "the cluster"
	}
	claim := func(file, machine string) error {
		if owner, taken := files[file]; taken {
			return fmt.Errorf("machine name %q: its file %s is %s's", machine, file, owner)
		}
		files[file] = machine
		return nil
	}
	for _, m := range t.ControlPlane {
		for _, f := range []string{EtcdServer(m.Name), EtcdPeer(m.Name)} {
			if err := claim(f, m.Name); err != nil {
				return t, err
			}
		}
	}
	for _, m := range t.Workers {
		for _, f := range []string{KubeletClientCert(m.Name), KubeletServing(m.Name), NodeAgent(m.Name)} {
			if err := claim(f, m.Name); err != nil {
				return t, err
			}
		}
	}
	return t, nil
}

// lbHostPort is the load balancer as host and port.
func (t Topology) lbHostPort() (string, string, error) {
	if host, port, err := net.SplitHostPort(t.LoadBalancer); err == nil {
		if n, err := strconv.Atoi(port); err != nil || n < 1 || n > 65535 {
			return "", "", fmt.Errorf("load balancer %q: bad port", t.LoadBalancer)
		}
		return host, port, nil
	}
	return strings.Trim(t.LoadBalancer, "[]"), strconv.Itoa(t.SecurePort), nil
}

// LoadBalancerURL is what workers and admin reach the apiservers at.
func (t Topology) LoadBalancerURL() (string, error) {
	t, err := t.withDefaults()
	if err != nil {
		return "", err
	}
	host, port, err := t.lbHostPort()
	if err != nil {
		return "", err
	}
	return "https://" + net.JoinHostPort(host, port), nil
}

// LocalAPIServerURL is what a control-plane machine's own components use:
// its apiserver on loopback, as The Hard Way's controller manager and
// scheduler do (the apiserver listens on every address of its machine).
func (t Topology) LocalAPIServerURL() string {
	port := t.SecurePort
	if port == 0 {
		port = 6443
	}
	return "https://" + net.JoinHostPort("127.0.0.1", strconv.Itoa(port))
}

// ParseMachines reads "name=ip,name=ip" (a flag's value).
func ParseMachines(s string) ([]Machine, error) {
	var out []Machine
	for _, part := range strings.Split(s, ",") {
		if part = strings.TrimSpace(part); part == "" {
			continue
		}
		name, ip, ok := strings.Cut(part, "=")
		addr, err := netip.ParseAddr(strings.TrimSpace(ip))
		if !ok || err != nil {
			return nil, fmt.Errorf("%q is not name=ip", part)
		}
		out = append(out, Machine{Name: strings.TrimSpace(name), IP: addr})
	}
	return out, nil
}

// writeFile writes data at path unless the file already holds it.
func writeFile(path string, data []byte, mode os.FileMode) error {
	if old, err := os.ReadFile(path); err == nil && string(old) == string(data) {
		return nil
	}
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, data, mode); err != nil {
		return err
	}
	return os.Rename(tmp, path)
}
