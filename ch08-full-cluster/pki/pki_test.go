package pki

import (
	"crypto/x509"
	"encoding/pem"
	"net/netip"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	kpki "kubik/ch01-apiserver/pki"
	"kubik/ch08-full-cluster/encryption"
)

func topology() Topology {
	return Topology{
		ControlPlane: []Machine{{"cp-1", netip.MustParseAddr("10.240.0.11")}, {"cp-2", netip.MustParseAddr("10.240.0.12")}, {"cp-3", netip.MustParseAddr("10.240.0.13")}},
		Workers:      []Machine{{"node-0", netip.MustParseAddr("10.240.0.20")}, {"node-1", netip.MustParseAddr("10.240.0.21")}},
		LoadBalancer: "10.240.0.10",
	}
}

func readCert(t *testing.T, dir, name string) *x509.Certificate {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(dir, name+".crt"))
	if err != nil {
		t.Fatal(err)
	}
	block, _ := pem.Decode(data)
	if block == nil {
		t.Fatalf("%s.crt: no PEM", name)
	}
	c, err := x509.ParseCertificate(block.Bytes)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func sans(c *x509.Certificate) []string {
	out := slices.Clone(c.DNSNames)
	for _, ip := range c.IPAddresses {
		out = append(out, ip.String())
	}
	slices.Sort(out)
	return out
}

// TestWrite: every file of The Hard Way's layout is there, every
// certificate is signed by the CA with the identity and names it should
// have, every kubeconfig reaches the right server as the right user, keys
// are private, and the encryption configuration is valid.
func TestWrite(t *testing.T) {
	dir := t.TempDir()
	if err := Write(dir, topology()); err != nil {
		t.Fatal(err)
	}
	ca := readCert(t, dir, CA)
	roots := x509.NewCertPool()
	roots.AddCert(ca)

	// Each certificate: subject, usages, names.
	for _, c := range []struct {
		name, cn, org  string
		client, server bool
		hosts          []string
	}{
		{APIServer, "kube-apiserver", "", false, true, []string{"10.240.0.10", "10.240.0.11", "10.240.0.12", "10.240.0.13", "10.96.0.1", "127.0.0.1",
			"cp-1", "cp-2", "cp-3", "kubernetes", "kubernetes.default", "kubernetes.default.svc", "kubernetes.default.svc.cluster.local", "localhost"}},
		{KubeletClient, "kube-apiserver-kubelet-client", "system:masters", true, false, nil},
		{EtcdClient, "kube-apiserver-etcd-client", "", true, false, nil},
		{EtcdServer("cp-2"), "cp-2", "", true, true, []string{"10.240.0.12", "127.0.0.1", "cp-2", "localhost"}},
		{EtcdPeer("cp-3"), "cp-3", "", true, true, []string{"10.240.0.13", "127.0.0.1", "cp-3", "localhost"}},
		{KubeletClientCert("node-0"), "system:node:node-0", "system:nodes", true, false, nil},
		{KubeletServing("node-1"), "node-1", "", false, true, []string{"10.240.0.21", "127.0.0.1", "localhost", "node-1"}},
		{NodeAgent("node-1"), "system:kubik-node-agent:node-1", "system:kubik-node-agents", true, false, nil},
		{KubeProxy, "system:kube-proxy", "", true, false, nil},
		{KubeScheduler, "system:kube-scheduler", "", true, false, nil},
		{KubeControllerManager, "system:kube-controller-manager", "", true, false, nil},
		{CloudControllerManager, "system:cloud-controller-manager", "", true, false, nil},
		{Admin, "kubernetes-admin", "system:masters", true, false, nil},
	} {
		cert := readCert(t, dir, c.name)
		if cert.Subject.CommonName != c.cn || strings.Join(cert.Subject.Organization, ",") != c.org {
			t.Errorf("%s: subject %v, want CN=%s O=%s", c.name, cert.Subject, c.cn, c.org)
		}
		for usage, want := range map[x509.ExtKeyUsage]bool{x509.ExtKeyUsageClientAuth: c.client, x509.ExtKeyUsageServerAuth: c.server} {
			_, err := cert.Verify(x509.VerifyOptions{Roots: roots, KeyUsages: []x509.ExtKeyUsage{usage}})
			if (err == nil) != want {
				t.Errorf("%s: usage %v verifies: %v, want %v", c.name, usage, err == nil, want)
			}
		}
		if got, want := sans(cert), slices.Sorted(slices.Values(c.hosts)); !slices.Equal(got, want) {
			t.Errorf("%s: names %v, want %v", c.name, got, want)
		}
		if st, err := os.Stat(filepath.Join(dir, c.name+".key")); err != nil || st.Mode().Perm() != 0o600 {
			t.Errorf("%s.key: %v %v", c.name, st.Mode(), err)
		}
	}

	// Kubeconfigs: the workers' and admin's through the load balancer,
	// the control plane's to their local apiserver.
	for name, server := range map[string]string{
		Admin: "https://10.240.0.10:6443", KubeProxy: "https://10.240.0.10:6443", "node-0": "https://10.240.0.10:6443",
		NodeAgent("node-1"): "https://10.240.0.10:6443", KubeScheduler: "https://127.0.0.1:6443",
		KubeControllerManager: "https://127.0.0.1:6443", CloudControllerManager: "https://127.0.0.1:6443",
	} {
		k, err := kpki.LoadKubeconfig(filepath.Join(dir, name+".kubeconfig"))
		if err != nil {
			t.Fatal(err)
		}
		if k.Server != server || k.Cluster != "kubik" || len(k.TLS.Certificates) != 1 {
			t.Errorf("%s.kubeconfig: server %s cluster %s, want %s", name, k.Server, k.Cluster, server)
		}
	}

	if _, err := encryption.LoadEncryptionConfig(filepath.Join(dir, EncryptionConfig)); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{ServiceAccountKey, ServiceAccountPub, CA + ".key"} {
		if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
			t.Error(err)
		}
	}
}

// TestWriteIdempotent: a second run changes nothing; a topology with a new
// worker and another load balancer adds the worker's files and reissues
// only the certificates whose names changed, with the same keys.
func TestWriteIdempotent(t *testing.T) {
	dir := t.TempDir()
	topo := topology()
	if err := Write(dir, topo); err != nil {
		t.Fatal(err)
	}
	snapshot := func() map[string]string {
		m := map[string]string{}
		entries, _ := os.ReadDir(dir)
		for _, e := range entries {
			data, _ := os.ReadFile(filepath.Join(dir, e.Name()))
			m[e.Name()] = string(data)
		}
		return m
	}
	first := snapshot()
	if err := Write(dir, topo); err != nil {
		t.Fatal(err)
	}
	for name, data := range snapshot() {
		if first[name] != data {
			t.Errorf("%s changed on a second run", name)
		}
	}

	topo.Workers = append(topo.Workers, Machine{"node-2", netip.MustParseAddr("10.240.0.22")})
	topo.LoadBalancer = "10.240.0.9:8443"
	if err := Write(dir, topo); err != nil {
		t.Fatal(err)
	}
	after := snapshot()
	for name, data := range first {
		changed := after[name] != data
		wantChanged := name == APIServer+".crt" || (strings.HasSuffix(name, ".kubeconfig") && !slices.Contains([]string{KubeScheduler, KubeControllerManager, CloudControllerManager}, strings.TrimSuffix(name, ".kubeconfig")))
		if changed != wantChanged {
			t.Errorf("%s changed: %v, want %v", name, changed, wantChanged)
		}
	}
	if after[APIServer+".key"] != first[APIServer+".key"] {
		t.Error("the apiserver's key was replaced")
	}
	if !slices.Contains(sans(readCert(t, dir, APIServer)), "10.240.0.9") {
		t.Error("the new load balancer is not in the apiserver's certificate")
	}
	if k, err := kpki.LoadKubeconfig(filepath.Join(dir, "node-2.kubeconfig")); err != nil || k.Server != "https://10.240.0.9:8443" {
		t.Errorf("node-2.kubeconfig: %v %v", k, err)
	}
}

func TestTopologyErrors(t *testing.T) {
	for _, c := range []struct {
		name string
		edit func(*Topology)
		want string
	}{
		{"no control plane", func(t *Topology) { t.ControlPlane = nil }, "at least one control-plane machine"},
		{"no load balancer", func(t *Topology) { t.LoadBalancer = "" }, "load balancer's address is required"},
		{"bad port", func(t *Topology) { t.LoadBalancer = "10.0.0.1:x" }, "bad port"},
		{"bad service CIDR", func(t *Topology) { t.ServiceClusterIPRange = "10.96.0.0" }, "service CIDR"},
		{"bad name", func(t *Topology) { t.Workers[0].Name = "Node_0" }, `machine name "Node_0"`},
		{"twice", func(t *Topology) { t.Workers[1].Name = "node-0" }, "appears twice"},
		{"a component's name", func(t *Topology) { t.Workers[0].Name = "admin" }, "its file admin is the cluster's"},
		{"another's file", func(t *Topology) { t.Workers[1].Name = "node-0-serving" }, `its file node-0-serving is node-0's`},
		{"no IP", func(t *Topology) { t.Workers[0].IP = netip.Addr{} }, "has no IP address"},
	} {
		topo := topology()
		c.edit(&topo)
		if err := Write(t.TempDir(), topo); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want %q", c.name, err, c.want)
		}
	}
}

func TestParseMachines(t *testing.T) {
	m, err := ParseMachines(" cp-1=10.0.0.1, cp-2=10.0.0.2 ,")
	if err != nil || len(m) != 2 || m[1].Name != "cp-2" || m[1].IP.String() != "10.0.0.2" {
		t.Fatalf("%v %v", m, err)
	}
	for _, bad := range []string{"cp-1", "cp-1=", "cp-1=10.0.0.300"} {
		if _, err := ParseMachines(bad); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
}
