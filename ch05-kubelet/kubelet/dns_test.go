package kubelet

import (
	"os"
	"path/filepath"
	"reflect"
	"testing"

	cri "k8s.io/cri-api/pkg/apis/runtime/v1"

	"kubik/ch01-apiserver/api/corev1"
)

// TestPodDNS: the sandbox's DNSConfig per dnsPolicy, as upstream's
// GetPodDNS builds it.
func TestPodDNS(t *testing.T) {
	resolv := filepath.Join(t.TempDir(), "resolv.conf")
	os.WriteFile(resolv, []byte("# node\nnameserver 10.0.0.53\nnameserver 10.0.0.54\nsearch old.example\nsearch corp.example. .\noptions ndots:2 timeout:1\noptions ndots:3\n"), 0o644)
	five := "5"
	pod := func(policy corev1.DNSPolicy, hostNet bool, extra *corev1.PodDNSConfig) *corev1.Pod {
		p := &corev1.Pod{}
		p.Name, p.Namespace = "web", "shop"
		p.Spec.DNSPolicy, p.Spec.HostNetwork, p.Spec.DNSConfig = policy, hostNet, extra
		return p
	}
	type want struct{ servers, searches, options []string }
	clusterFirst := want{[]string{"10.96.0.10"}, []string{"shop.svc.cluster.local", "svc.cluster.local", "cluster.local", "corp.example"}, []string{"ndots:5"}}
	nodeDNS := want{[]string{"10.0.0.53", "10.0.0.54"}, []string{"corp.example"}, []string{"ndots:3", "timeout:1"}}
	for _, c := range []struct {
		name       string
		clusterDNS []string
		resolvConf string
		pod        *corev1.Pod
		want       want
	}{
		{"ClusterFirst", []string{"10.96.0.10"}, resolv, pod(corev1.DNSClusterFirst, false, nil), clusterFirst},
		{"ClusterFirst without --cluster-dns falls back to Default", nil, resolv, pod(corev1.DNSClusterFirst, false, nil), nodeDNS},
		{"ClusterFirst on the host network is Default", []string{"10.96.0.10"}, resolv, pod(corev1.DNSClusterFirst, true, nil), nodeDNS},
		{"ClusterFirstWithHostNet", []string{"10.96.0.10"}, resolv, pod(corev1.DNSClusterFirstWithHostNet, true, nil), clusterFirst},
		{"Default", []string{"10.96.0.10"}, resolv, pod(corev1.DNSDefault, false, nil), nodeDNS},
		{"Default with --resolv-conf=\"\"", nil, "", pod(corev1.DNSDefault, false, nil), want{[]string{"127.0.0.1"}, []string{"."}, nil}},
		{"None with dnsConfig", []string{"10.96.0.10"}, resolv, pod(corev1.DNSNone, false, &corev1.PodDNSConfig{
			Nameservers: []string{"1.1.1.1"}, Searches: []string{"a.example"},
			Options: []corev1.PodDNSConfigOption{{Name: "ndots", Value: &five}, {Name: "edns0"}}}),
			want{[]string{"1.1.1.1"}, []string{"a.example"}, []string{"ndots:5", "edns0"}}},
		{"ClusterFirst plus dnsConfig", []string{"10.96.0.10"}, resolv, pod(corev1.DNSClusterFirst, false, &corev1.PodDNSConfig{
			Nameservers: []string{"1.1.1.1", "10.96.0.10"}, Options: []corev1.PodDNSConfigOption{{Name: "ndots", Value: &five}, {Name: "edns0"}}}),
			want{[]string{"10.96.0.10", "1.1.1.1"}, clusterFirst.searches, []string{"ndots:5", "edns0"}}},
		{"at most 3 nameservers", nil, resolv, pod(corev1.DNSDefault, false, &corev1.PodDNSConfig{Nameservers: []string{"1.1.1.1", "8.8.8.8"}}),
			want{[]string{"10.0.0.53", "10.0.0.54", "1.1.1.1"}, nodeDNS.searches, nodeDNS.options}},
	} {
		k := &Kubelet{cfg: Config{NodeName: "n", ClusterDNS: c.clusterDNS, ClusterDomain: "cluster.local", ResolvConf: c.resolvConf}}
		got, err := k.podDNS(c.pod)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if !reflect.DeepEqual(got.Servers, c.want.servers) || !reflect.DeepEqual(got.Searches, c.want.searches) || !reflect.DeepEqual(got.Options, c.want.options) {
			t.Errorf("%s:\n got servers %q searches %q options %q\nwant servers %q searches %q options %q", c.name,
				got.Servers, got.Searches, got.Options, c.want.servers, c.want.searches, c.want.options)
		}
	}
	k := &Kubelet{cfg: Config{ResolvConf: filepath.Join(t.TempDir(), "missing")}}
	if _, err := k.podDNS(pod(corev1.DNSDefault, false, nil)); err == nil {
		t.Error("a missing --resolv-conf is an error")
	}
}

// TestPortMappings: every container port goes to the sandbox; the runtime
// maps those with a hostPort.
func TestPortMappings(t *testing.T) {
	p := &corev1.Pod{}
	p.Spec.Containers = []corev1.Container{
		{Name: "web", Ports: []corev1.ContainerPort{{ContainerPort: 8080, HostPort: 18080}, {ContainerPort: 53, Protocol: corev1.ProtocolUDP, HostIP: "127.0.0.1", HostPort: 5353}}},
		{Name: "side", Ports: []corev1.ContainerPort{{ContainerPort: 9090}}},
	}
	got := portMappings(p)
	want := []*cri.PortMapping{
		{Protocol: cri.Protocol_TCP, ContainerPort: 8080, HostPort: 18080},
		{Protocol: cri.Protocol_UDP, ContainerPort: 53, HostPort: 5353, HostIp: "127.0.0.1"},
		{Protocol: cri.Protocol_TCP, ContainerPort: 9090},
	}
	if len(got) != len(want) {
		t.Fatalf("got %v", got)
	}
	for i := range want {
		if got[i].String() != want[i].String() {
			t.Errorf("%d: got %v, want %v", i, got[i], want[i])
		}
	}
}

// TestEtcHosts: the hosts file upstream writes for a pod, byte for byte.
func TestEtcHosts(t *testing.T) {
	k := &Kubelet{cfg: Config{RootDir: t.TempDir(), ClusterDomain: "cluster.local"}}
	p := &corev1.Pod{}
	p.Name, p.Namespace, p.UID = "web", "shop", "uid-1"
	p.Spec.Subdomain = "db"
	p.Spec.HostAliases = []corev1.HostAlias{{IP: "10.1.2.3", Hostnames: []string{"foo.local", "bar.local"}}}
	c := corev1.Container{Name: "main"}
	if m, err := k.etcHostsMount(p, c, ""); err != nil || m != nil {
		t.Errorf("no pod IP yet: %v %v", m, err)
	}
	m, err := k.etcHostsMount(p, c, "10.244.0.7")
	if err != nil || len(m) != 1 || m[0].ContainerPath != "/etc/hosts" {
		t.Fatalf("mount %v, %v", m, err)
	}
	b, _ := os.ReadFile(m[0].HostPath)
	want := "# Kubernetes-managed hosts file.\n127.0.0.1\tlocalhost\n::1\tlocalhost ip6-localhost ip6-loopback\n" +
		"fe00::0\tip6-localnet\nfe00::0\tip6-mcastprefix\nfe00::1\tip6-allnodes\nfe00::2\tip6-allrouters\n" +
		"10.244.0.7\tweb.db.shop.svc.cluster.local\tweb\n\n# Entries added by HostAliases.\n10.1.2.3\tfoo.local\tbar.local\n"
	if string(b) != want {
		t.Errorf("etc-hosts:\n%s\nwant:\n%s", b, want)
	}
	if m[0].HostPath != filepath.Join(k.cfg.RootDir, "pods", "uid-1", "etc-hosts") {
		t.Errorf("path %s", m[0].HostPath)
	}
	c.VolumeMounts = []corev1.VolumeMount{{Name: "h", MountPath: "/etc/hosts"}}
	if m, _ := k.etcHostsMount(p, c, "10.244.0.7"); m != nil {
		t.Errorf("a container mounting /etc/hosts itself: %v", m)
	}
}
