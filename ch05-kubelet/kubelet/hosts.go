package kubelet

// The pod's /etc/hosts, written by the kubelet (upstream's
// makeHostsMount in pkg/kubelet/kubelet_pods.go): <pod dir>/etc-hosts with
// localhost, the pod's own IP and hostname, and spec.hostAliases, mounted
// into every container that does not mount something at /etc/hosts
// itself. A hostNetwork pod gets the node's /etc/hosts plus its aliases.

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	cri "k8s.io/cri-api/pkg/apis/runtime/v1"

	"kubik/ch01-apiserver/api/corev1"
)

const etcHostsPath = "/etc/hosts"

// etcHostsMount writes the pod's hosts file and returns its mount for c;
// none while the pod has no IP yet, or when c mounts /etc/hosts itself.
func (k *Kubelet) etcHostsMount(pod *corev1.Pod, c corev1.Container, podIP string) ([]*cri.Mount, error) {
	if k.cfg.RootDir == "" || (podIP == "" && !pod.Spec.HostNetwork) {
		return nil, nil
	}
	for _, m := range c.VolumeMounts {
		if m.MountPath == etcHostsPath {
			return nil, nil
		}
	}
	var content []byte
	if pod.Spec.HostNetwork {
		node, err := os.ReadFile(etcHostsPath)
		if err != nil {
			return nil, err
		}
		content = append([]byte("# Kubernetes-managed hosts file (host network).\n"), node...)
		content = append(content, hostsEntriesFromHostAliases(pod.Spec.HostAliases)...)
	} else {
		hostname, domain := podHostnameAndDomain(pod, k.cfg.ClusterDomain)
		content = managedHostsFileContent(podIP, hostname, domain, pod.Spec.HostAliases)
	}
	file := filepath.Join(k.podDir(pod.UID), "etc-hosts")
	if err := os.MkdirAll(filepath.Dir(file), 0o750); err != nil {
		return nil, err
	}
	if err := os.WriteFile(file, content, 0o644); err != nil {
		return nil, err
	}
	return []*cri.Mount{{ContainerPath: etcHostsPath, HostPath: file}}, nil
}

// podHostnameAndDomain is upstream's GeneratePodHostNameAndDomain:
// spec.hostname or the pod's name (at most 63 characters), and with
// spec.subdomain the domain <subdomain>.<namespace>.svc.<cluster domain>.
func podHostnameAndDomain(pod *corev1.Pod, clusterDomain string) (string, string) {
	hostname := pod.Name
	if pod.Spec.Hostname != "" {
		hostname = pod.Spec.Hostname
	}
	if len(hostname) > 63 {
		hostname = strings.TrimRight(hostname[:63], "-.")
	}
	domain := ""
	if pod.Spec.Subdomain != "" {
		domain = fmt.Sprintf("%s.%s.svc.%s", pod.Spec.Subdomain, pod.Namespace, clusterDomain)
	}
	return hostname, domain
}

// managedHostsFileContent is upstream's, byte for byte.
func managedHostsFileContent(podIP, hostname, domain string, aliases []corev1.HostAlias) []byte {
	var b strings.Builder
	b.WriteString("# Kubernetes-managed hosts file.\n")
	b.WriteString("127.0.0.1\tlocalhost\n")
	b.WriteString("::1\tlocalhost ip6-localhost ip6-loopback\n")
	b.WriteString("fe00::0\tip6-localnet\n")
	b.WriteString("fe00::0\tip6-mcastprefix\n")
	b.WriteString("fe00::1\tip6-allnodes\n")
	b.WriteString("fe00::2\tip6-allrouters\n")
	if domain != "" {
		fmt.Fprintf(&b, "%s\t%s.%s\t%s\n", podIP, hostname, domain, hostname)
	} else {
		fmt.Fprintf(&b, "%s\t%s\n", podIP, hostname)
	}
	b.Write(hostsEntriesFromHostAliases(aliases))
	return []byte(b.String())
}

func hostsEntriesFromHostAliases(aliases []corev1.HostAlias) []byte {
	if len(aliases) == 0 {
		return nil
	}
	var b strings.Builder
	b.WriteString("\n# Entries added by HostAliases.\n")
	for _, a := range aliases {
		fmt.Fprintf(&b, "%s\t%s\n", a.IP, strings.Join(a.Hostnames, "\t"))
	}
	return []byte(b.String())
}
