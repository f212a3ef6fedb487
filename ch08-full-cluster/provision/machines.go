package provision

import (
	"fmt"
	"net/netip"
	"path/filepath"
	"strings"

	"kubik/ch08-full-cluster/pki"
)

// CNIConfPath is where a worker's node agent installs the CNI
// configuration, once the node's subnet is known: the net.d of the
// kubelet's containerd (relative to the root).
const CNIConfPath = kubeletDir + "/containerd/net.d/10-kubik.conflist"

// The directories of the layout, relative to the root.
const (
	etcdDir       = "etc/etcd"
	kubernetesDir = "var/lib/kubernetes"
	kubeletDir    = "var/lib/kubelet"
	kubeProxyDir  = "var/lib/kube-proxy"
	nodeAgentDir  = "var/lib/kubik-node-agent"
	haproxyDir    = "etc/haproxy"
)

// controlPlane is an etcd member, an apiserver, and the three
// leader-elected managers, which talk to their own machine's apiserver.
func (r *renderer) controlPlane() {
	t, m := r.t, r.m
	for _, f := range []string{"ca.crt", pki.EtcdServer(m.Name) + ".crt", pki.EtcdServer(m.Name) + ".key",
		pki.EtcdPeer(m.Name) + ".crt", pki.EtcdPeer(m.Name) + ".key",
		pki.EtcdHealthcheckClient + ".crt", pki.EtcdHealthcheckClient + ".key"} {
		r.copyPKI(etcdDir, f, "")
	}
	for _, f := range []string{"ca.crt", pki.APIServer + ".crt", pki.APIServer + ".key",
		pki.EtcdClient + ".crt", pki.EtcdClient + ".key", pki.KubeletClient + ".crt", pki.KubeletClient + ".key",
		pki.ServiceAccountKey, pki.ServiceAccountPub, pki.EncryptionConfig,
		pki.KubeScheduler + ".kubeconfig", pki.KubeControllerManager + ".kubeconfig"} {
		r.copyPKI(kubernetesDir, f, "")
	}
	r.file("etc/kubik/etcdctl.env", 0o644, r.etcdctlEnv())

	// etcd: TLS for clients and peers, each side verifying the other's
	// certificate. The longer heartbeat and election timeout (defaults
	// 100 ms and 1 s) keep a busy two-core host from electing a new
	// leader whenever a member is slow to answer.
	var initial []string
	for _, cp := range t.ByRole(ControlPlane) {
		initial = append(initial, fmt.Sprintf("%s=https://%s", cp.Name, netip.AddrPortFrom(cp.IP, EtcdPeerPort)))
	}
	client := "https://" + netip.AddrPortFrom(m.IP, EtcdClientPort).String()
	peer := "https://" + netip.AddrPortFrom(m.IP, EtcdPeerPort).String()
	etc := func(f string) string { return r.path(filepath.Join(etcdDir, f)) }
	etcd := []string{r.bin("etcd"),
		"--name=" + m.Name,
		"--data-dir=" + r.path("var/lib/etcd"),
		"--listen-client-urls=" + client + ",https://127.0.0.1:2379",
		"--advertise-client-urls=" + client,
		"--listen-peer-urls=" + peer,
		"--initial-advertise-peer-urls=" + peer,
		"--initial-cluster=" + strings.Join(initial, ","),
		"--initial-cluster-state=new",
		"--initial-cluster-token=" + t.ClusterName + "-etcd",
		"--cert-file=" + etc(pki.EtcdServer(m.Name)+".crt"),
		"--key-file=" + etc(pki.EtcdServer(m.Name)+".key"),
		"--client-cert-auth",
		"--trusted-ca-file=" + etc("ca.crt"),
		"--peer-cert-file=" + etc(pki.EtcdPeer(m.Name)+".crt"),
		"--peer-key-file=" + etc(pki.EtcdPeer(m.Name)+".key"),
		"--peer-client-cert-auth",
		"--peer-trusted-ca-file=" + etc("ca.crt"),
		"--heartbeat-interval=200",
		"--election-timeout=2000",
	}
	if t.EtcdUnsafeNoFsync {
		etcd = append(etcd, "--unsafe-no-fsync")
	}
	r.unit(unit{Name: "etcd", Description: "etcd", Documentation: "https://github.com/etcd-io/etcd",
		After: []string{"network.target"}, Exec: [][]string{etcd}, Restart: "on-failure", RestartSec: "5"})

	k := func(f string) string { return r.path(filepath.Join(kubernetesDir, f)) }
	r.unit(unit{Name: "kube-apiserver", Description: "Kubernetes API Server", Documentation: "https://github.com/kubernetes/kubernetes",
		After: []string{"network.target", "etcd.service"}, Wants: []string{"etcd.service"},
		Exec: [][]string{append([]string{r.bin("kube-apiserver"),
			"--advertise-address=" + m.IP.String(),
			"--bind-address=0.0.0.0",
			fmt.Sprintf("--secure-port=%d", t.SecurePort),
			"--etcd-servers=" + strings.Join(t.EtcdEndpoints(), ","),
			"--etcd-cafile=" + k("ca.crt"),
			"--etcd-certfile=" + k(pki.EtcdClient+".crt"),
			"--etcd-keyfile=" + k(pki.EtcdClient+".key"),
			"--tls-cert-file=" + k(pki.APIServer+".crt"),
			"--tls-private-key-file=" + k(pki.APIServer+".key"),
			"--client-ca-file=" + k("ca.crt"),
			"--kubelet-client-certificate=" + k(pki.KubeletClient+".crt"),
			"--kubelet-client-key=" + k(pki.KubeletClient+".key"),
			"--kubelet-certificate-authority=" + k("ca.crt"),
			"--service-account-key-file=" + k(pki.ServiceAccountPub),
			"--service-account-signing-key-file=" + k(pki.ServiceAccountKey),
			"--service-account-issuer=https://kubernetes.default.svc." + t.ClusterDomain,
			"--service-cluster-ip-range=" + t.ServiceCIDR,
			"--service-node-port-range=30000-32767",
			"--encryption-provider-config=" + k(pki.EncryptionConfig),
			"--endpoint-reconciler-type=lease",
			"--authorization-mode=Node,RBAC",
			r.logFlag("kube-apiserver"),
		}, r.upstreamAPIServerFlags()...)},
		Restart: "on-failure", RestartSec: "5"})

	r.unit(unit{Name: "kube-scheduler", Description: "Kubernetes Scheduler", Documentation: "https://github.com/kubernetes/kubernetes",
		After: []string{"kube-apiserver.service"},
		Exec: [][]string{{r.bin("kube-scheduler"),
			"--kubeconfig=" + k(pki.KubeScheduler+".kubeconfig"),
			"--leader-elect=true",
			r.logFlag("kube-scheduler"),
		}},
		Restart: "on-failure", RestartSec: "5"})

	r.unit(unit{Name: "kube-controller-manager", Description: "Kubernetes Controller Manager", Documentation: "https://github.com/kubernetes/kubernetes",
		After: []string{"kube-apiserver.service"},
		Exec: [][]string{append([]string{r.bin("kube-controller-manager"),
			"--kubeconfig=" + k(pki.KubeControllerManager+".kubeconfig"),
			"--leader-elect=true",
			"--allocate-node-cidrs=true",
			"--cluster-cidr=" + t.ClusterCIDR,
			"--node-cidr-mask-size=24",
			"--service-cluster-ip-range=" + t.ServiceCIDR,
			"--root-ca-file=" + k("ca.crt"),
			"--node-monitor-grace-period=" + t.NodeMonitorGracePeriod.String(),
			r.logFlag("kube-controller-manager"),
		}, r.upstreamControllerManagerFlags()...)},
		Restart: "on-failure", RestartSec: "5"})

	if t.Cloud == nil {
		return
	}
	r.copyPKI(kubernetesDir, pki.CloudControllerManager+".kubeconfig", "")
	r.file("etc/kubernetes/cloud-config.yaml", 0o644, r.cloudConfig())
	// The pods' routes stay the node agent's (host-gw): the route
	// controller would only write them into the cloud's router as well.
	r.unit(unit{Name: "cloud-controller-manager", Description: "Kubernetes Cloud Controller Manager", Documentation: "https://github.com/kubernetes/cloud-provider",
		After: []string{"kube-apiserver.service"},
		Exec: [][]string{{r.bin("cloud-controller-manager"),
			"--kubeconfig=" + k(pki.CloudControllerManager+".kubeconfig"),
			"--cloud-provider=kubik",
			"--cloud-config=" + r.path("etc/kubernetes/cloud-config.yaml"),
			"--cluster-cidr=" + t.ClusterCIDR,
			"--configure-cloud-routes=false",
			"--leader-elect=true",
			"--log-level=" + t.LogLevel,
		}},
		Restart: "on-failure", RestartSec: "5"})
}

// logFlag is the log flag of the machine's component: ours take
// --log-level, upstream's klog's --v.
func (r *renderer) logFlag(component string) string {
	if r.t.IsUpstream(r.m.Name, component) {
		return "--v=1"
	}
	return "--log-level=" + r.t.LogLevel
}

// upstreamAPIServerFlags are what upstream's apiserver needs besides:
// the kubelets dialed at their InternalIP (logs, exec, port-forward).
// Upstream's default order starts with Hostname, which it would look up
// in the machine's DNS; ours dials only an address that is an IP, in
// this order (kubeadm's).
func (r *renderer) upstreamAPIServerFlags() []string {
	if !r.t.IsUpstream(r.m.Name, "kube-apiserver") {
		return nil
	}
	return []string{"--kubelet-preferred-address-types=InternalIP,ExternalIP,Hostname"}
}

// upstreamControllerManagerFlags are what upstream's controller manager
// needs besides: the key that signs ServiceAccount tokens, and on
// upstream's apiserver each controller under its own ServiceAccount,
// with the roles upstream's RBAC gives each one (system:controller:*, as
// kubeadm runs it; its own identity may do little). Kubik's apiserver
// has no such roles: there, as ours, it runs every controller as
// system:kube-controller-manager, whose role holds every controller's
// rights (upstream's flag --use-service-account-credentials=false).
func (r *renderer) upstreamControllerManagerFlags() []string {
	if !r.t.IsUpstream(r.m.Name, "kube-controller-manager") {
		return nil
	}
	return []string{fmt.Sprintf("--use-service-account-credentials=%t", r.t.IsUpstream(r.m.Name, "kube-apiserver")),
		"--service-account-private-key-file=" + r.path(filepath.Join(kubernetesDir, pki.ServiceAccountKey))}
}

// loadBalancer is haproxy in TCP mode in front of every apiserver.
func (r *renderer) loadBalancer() {
	r.copyPKI(haproxyDir, "ca.crt", "")
	cfg := r.path(filepath.Join(haproxyDir, "haproxy.cfg"))
	r.file(filepath.Join(haproxyDir, "haproxy.cfg"), 0o644, r.haproxyConfig())
	r.unit(unit{Name: "haproxy", Description: "HAProxy Load Balancer", Documentation: "man:haproxy(1)",
		After:        []string{"network.target"},
		ExecStartPre: [][]string{{"/usr/sbin/haproxy", "-c", "-q", "-f", cfg}},
		Exec:         [][]string{{"/usr/sbin/haproxy", "-W", "-db", "-f", cfg}},
		Restart:      "always", RestartSec: "2"})
}

// worker is the kubelet (which runs the machine's containerd), kube-proxy
// and the node agent, after the machine's network setup.
func (r *renderer) worker() {
	t, m := r.t, r.m
	for _, f := range []struct{ name, as string }{{"ca.crt", ""}, {pki.KubeletClientCert(m.Name) + ".kubeconfig", "kubeconfig"},
		{pki.KubeletServing(m.Name) + ".crt", "kubelet.crt"}, {pki.KubeletServing(m.Name) + ".key", "kubelet.key"}} {
		r.copyPKI(kubeletDir, f.name, f.as)
	}
	r.copyPKI(kubeProxyDir, pki.KubeProxy+".kubeconfig", "kubeconfig")
	r.copyPKI(nodeAgentDir, pki.NodeAgent(m.Name)+".kubeconfig", "kubeconfig")
	r.file("etc/kubik/cni/10-kubik.conflist", 0o644, r.cniConfList())
	// The CNI plugins containerd execs: ours, and Debian's loopback and
	// portmap (package containernetworking-plugins).
	r.link("opt/cni/bin/kubik-cni", r.bin("kubik-cni"))
	r.link("opt/cni/bin/loopback", "/usr/lib/cni/loopback")
	r.link("opt/cni/bin/portmap", "/usr/lib/cni/portmap")

	// A node routes ClusterIPs by its default route; a route of their own
	// makes them routable on a machine without one (a network namespace)
	// and on a VM whose default route is another network's.
	r.unit(unit{Name: "kubik-node-network", Description: "Route the Service range on the node network",
		After: []string{"network.target"}, Type: "oneshot", RemainAfter: true,
		Exec: [][]string{{"/usr/sbin/ip", "route", "replace", t.ServiceCIDR, "dev", t.Interface}}})

	kl := func(f string) string { return r.path(filepath.Join(kubeletDir, f)) }
	r.unit(unit{Name: "kubelet", Description: "Kubernetes Kubelet", Documentation: "https://github.com/kubernetes/kubernetes",
		After: []string{"kubik-node-network.service"}, Requires: []string{"kubik-node-network.service"},
		Exec: [][]string{{r.bin("kubelet"),
			"--kubeconfig=" + kl("kubeconfig"),
			"--hostname-override=" + m.Name,
			"--node-ip=" + m.IP.String(),
			"--tls-cert-file=" + kl("kubelet.crt"),
			"--tls-private-key-file=" + kl("kubelet.key"),
			"--client-ca-file=" + kl("ca.crt"),
			"--cluster-dns=" + t.ClusterDNS,
			"--cluster-domain=" + t.ClusterDomain,
			"--root-dir=" + r.path(kubeletDir),
			"--cni-bin-dir=" + r.path("opt/cni/bin"),
			"--image-dir=" + r.path(ImageDir),
			"--log-level=" + t.LogLevel,
		}},
		// SIGTERM: the kubelet removes its pods and stops its containerd.
		Restart: "on-failure", RestartSec: "5", TimeoutStop: "90"})

	r.unit(unit{Name: "kube-proxy", Description: "Kubernetes Kube Proxy", Documentation: "https://github.com/kubernetes/kubernetes",
		After: []string{"kubik-node-network.service"},
		Exec: [][]string{append([]string{r.bin("kube-proxy"),
			"--kubeconfig=" + r.path(filepath.Join(kubeProxyDir, "kubeconfig")),
			"--proxy-mode=" + t.ProxyMode,
			"--cluster-cidr=" + t.ClusterCIDR,
			"--hostname-override=" + m.Name,
			"--bind-address=" + m.IP.String(),
		}, r.upstreamKubeProxyFlags()...)},
		Restart: "on-failure", RestartSec: "5"})

	r.unit(unit{Name: "kubik-node-agent", Description: "Kubik node network agent (flanneld's job)",
		After: []string{"kubik-node-network.service"},
		Exec: [][]string{{r.bin("kubik-node-agent"),
			"--node-name=" + m.Name,
			"--kubeconfig=" + r.path(filepath.Join(nodeAgentDir, "kubeconfig")),
			"--backend=" + t.Backend,
			"--cluster-cidr=" + t.ClusterCIDR,
			"--iface=" + t.Interface,
			"--public-ip=" + m.IP.String(),
			"--subnet-file=" + r.path("run/kubik/subnet.env"),
			"--cni-conf-source=" + r.path("etc/kubik/cni/10-kubik.conflist"),
			"--cni-conf-path=" + r.path(CNIConfPath),
			"--log-level=" + t.LogLevel,
		}},
		Restart: "on-failure", RestartSec: "5"})
}

// upstreamKubeProxyFlags are what upstream's kube-proxy needs besides
// ours: leave the conntrack table's size and timeouts as they are (it
// would raise them, and nf_conntrack_max is the host's, not the
// machine's namespace's), and klog's verbosity. Ours never touches them.
func (r *renderer) upstreamKubeProxyFlags() []string {
	if !r.t.IsUpstream(r.m.Name, "kube-proxy") {
		return nil
	}
	return []string{"--conntrack-max-per-core=0", "--conntrack-tcp-timeout-established=0", "--conntrack-tcp-timeout-close-wait=0", "--v=1"}
}
