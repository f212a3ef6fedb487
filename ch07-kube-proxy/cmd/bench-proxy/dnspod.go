package main

// The DNS load as a pod sends it (-dns-from pod): the queries leave a pod's
// network namespace for the Service address 10.96.0.10, and the node's
// kube-proxy (ours) DNATs them to the DNS server's endpoint, as in a
// chapter 7 cluster. The node is one namespace like the proxiers' (see
// netns.go) running our kube-proxy and our kube-dns (its endpoint is the
// node's address, as a DNS pod on the host network would be); the client
// pod is a second namespace joined to it by a veth pair, with an address
// of the cluster CIDR and its default route through the node.

import (
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/miekg/dns"

	"kubik/ch01-apiserver/api/corev1"
	"kubik/ch01-apiserver/api/discoveryv1"
	"kubik/ch01-apiserver/api/metav1"
	"kubik/ch03-scheduler/clientgo/rest"
	"kubik/internal/testenv"
)

const (
	dnsServiceIP = "10.96.0.10" // the kube-dns Service, as in chapter 7
	podIP        = "10.128.0.2" // the client pod, inside clusterCIDR
	podGateway   = "10.128.0.1" // the node's end of the pod's veth
)

// ensureDNSService creates kube-system/kube-dns at 10.96.0.10 (port 53,
// UDP and TCP) with one endpoint: the node's address.
func (a *apiserver) ensureDNSService(ctx context.Context) error {
	if _, err := rest.Create(ctx, a.admin, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "kube-system"}}); err != nil && !rest.IsAlreadyExists(err) {
		return err
	}
	svc := &corev1.Service{ObjectMeta: metav1.ObjectMeta{Namespace: "kube-system", Name: "kube-dns", Labels: map[string]string{"k8s-app": "kube-dns"}},
		Spec: corev1.ServiceSpec{Type: corev1.ServiceTypeClusterIP, ClusterIP: dnsServiceIP, Ports: []corev1.ServicePort{
			{Name: "dns", Port: 53, Protocol: corev1.ProtocolUDP}, {Name: "dns-tcp", Port: 53, Protocol: corev1.ProtocolTCP}}}}
	if _, err := rest.Create(ctx, a.admin, svc); err != nil && !rest.IsAlreadyExists(err) {
		return err
	}
	udp, tcp, port, ready := corev1.ProtocolUDP, corev1.ProtocolTCP, int32(53), true
	dnsName, dnsTCPName := "dns", "dns-tcp"
	slice := &discoveryv1.EndpointSlice{ObjectMeta: metav1.ObjectMeta{Namespace: "kube-system", Name: "kube-dns-1",
		Labels: map[string]string{discoveryv1.LabelServiceName: "kube-dns"}},
		AddressType: discoveryv1.AddressTypeIPv4,
		Ports:       []discoveryv1.EndpointPort{{Name: &dnsName, Port: &port, Protocol: &udp}, {Name: &dnsTCPName, Port: &port, Protocol: &tcp}},
		Endpoints:   []discoveryv1.Endpoint{{Addresses: []string{nodeIP}, Conditions: discoveryv1.EndpointConditions{Ready: &ready}}}}
	if _, err := rest.Create(ctx, a.admin, slice); err != nil && !rest.IsAlreadyExists(err) {
		return err
	}
	return nil
}

// deleteDNSService removes them again, so that the proxiers measured at
// the next Service count see only the bench Services.
func (a *apiserver) deleteDNSService(ctx context.Context) {
	_ = rest.Delete[discoveryv1.EndpointSlice](ctx, a.admin, "kube-system", "kube-dns-1", nil)
	_ = rest.Delete[corev1.Service](ctx, a.admin, "kube-system", "kube-dns", nil)
}

// addPod makes the client pod's namespace, joined to the node's.
func addPod(nd *node, name string) (*node, error) {
	pod := &node{name: name}
	steps := [][]string{
		{"ip", "netns", "add", name},
		{"ip", "-n", nd.name, "link", "add", "vpod0", "type", "veth", "peer", "name", "eth0", "netns", name},
		{"ip", "-n", nd.name, "addr", "add", podGateway + "/24", "dev", "vpod0"},
		{"ip", "-n", nd.name, "link", "set", "vpod0", "up"},
		{"ip", "-n", name, "addr", "add", podIP + "/24", "dev", "eth0"},
		{"ip", "-n", name, "link", "set", "lo", "up"},
		{"ip", "-n", name, "link", "set", "eth0", "up"},
		{"ip", "-n", name, "route", "add", "default", "via", podGateway},
	}
	for _, s := range steps {
		if out, err := exec.Command(s[0], s[1:]...).CombinedOutput(); err != nil {
			pod.remove()
			return nil, fmt.Errorf("%s: %v: %s", strings.Join(s, " "), err, out)
		}
	}
	return pod, nil
}

// dnsLoadFromPod runs the load from a pod to 10.96.0.10 through our
// kube-proxy in mode.
func dnsLoadFromPod(ctx context.Context, dir string, a *apiserver, n int, proxyBin, mode string) (r dnsResult) {
	r = dnsResult{services: n, clients: *dnsClients, from: "pod, " + mode}
	fail := func(err error) dnsResult { r.err = err; return r }
	dnsBin, err := testenv.BuildBinary("kubik/ch07-kube-proxy/cmd/kube-dns")
	if err != nil {
		return fail(err)
	}
	if err := a.ensureDNSService(ctx); err != nil {
		return fail(err)
	}
	defer a.deleteDNSService(ctx)
	nd, err := newNode(fmt.Sprintf("kubik-pbench-%d-dns", os.Getpid()))
	if err != nil {
		return fail(err)
	}
	defer nd.remove()
	pod, err := addPod(nd, fmt.Sprintf("kubik-pbench-%d-pod", os.Getpid()))
	if err != nil {
		return fail(err)
	}
	defer pod.remove()
	relay, err := nd.startRelay("127.0.0.1:" + strconv.Itoa(a.port))
	if err != nil {
		return fail(err)
	}
	base := filepath.Join(dir, fmt.Sprintf("dns-%s-%d", mode, n))
	proxyKubeconfig, dnsKubeconfig := base+"-kube-proxy.kubeconfig", base+"-kube-dns.kubeconfig"
	if err := a.kubeconfig("kube-proxy", "https://"+relay, proxyKubeconfig); err != nil {
		return fail(err)
	}
	if err := a.kubeconfig("admin", "https://"+relay, dnsKubeconfig); err != nil {
		return fail(err)
	}

	proxy, err := testenv.Spawn("kube-proxy", base+"-kube-proxy.log", "ip", "netns", "exec", nd.name, proxyBin,
		"--kubeconfig", proxyKubeconfig, "--proxy-mode", mode, "--hostname-override", nodeName, "--bind-address", nodeIP,
		"--cluster-cidr", clusterCIDR, "--metrics-bind-address", "127.0.0.1:10249", "--healthz-bind-address", "127.0.0.1:10256",
		"--conntrack-max-per-core", "0", "--conntrack-min", "0",
		"--conntrack-tcp-timeout-established", "0", "--conntrack-tcp-timeout-close-wait", "0")
	if err != nil {
		return fail(err)
	}
	defer proxy.Stop(30 * time.Second)
	server, err := testenv.Spawn("kube-dns", base+"-kube-dns.log", "ip", "netns", "exec", nd.name, dnsBin,
		"--kubeconfig", dnsKubeconfig, "--dns-bind-address", nodeIP, "--dns-port", "53", "--lameduck", "0s",
		"--health-bind-address", "127.0.0.1:8080", "--ready-bind-address", "127.0.0.1:8181", "--metrics-bind-address", "127.0.0.1:9153")
	if err != nil {
		return fail(err)
	}
	defer server.Stop(10 * time.Second)

	// From the pod, through the Service address.
	dial := func() (*dns.Conn, error) {
		var c *dns.Conn
		err := pod.inNamespace(func() (err error) {
			c, err = dns.DialTimeout("udp", net.JoinHostPort(dnsServiceIP, "53"), 5*time.Second)
			return err
		})
		return c, err
	}
	// Ready: kube-proxy has the Service's rules and kube-dns has listed
	// everything, so the last bench Service resolves from the pod.
	last := fmt.Sprintf("svc-%d.%s.svc.cluster.local.", n-1, benchNamespace)
	deadline := time.Now().Add(10 * time.Minute)
	for {
		if reply, err := queryOnce(dial, last); err == nil && reply.Rcode == dns.RcodeSuccess && len(reply.Answer) == 1 {
			break
		}
		switch {
		case ctx.Err() != nil:
			return fail(ctx.Err())
		case proxy.Exited():
			return fail(fmt.Errorf("kube-proxy exited (log: %s)", proxy.LogPath))
		case server.Exited():
			return fail(fmt.Errorf("kube-dns exited (log: %s)", server.LogPath))
		case time.Now().After(deadline):
			return fail(fmt.Errorf("%s did not resolve from the pod within 10 minutes (logs: %s, %s)", last, proxy.LogPath, server.LogPath))
		}
		time.Sleep(200 * time.Millisecond)
	}
	load := runDNSLoad(ctx, n, dial)
	load.services, load.clients, load.from = r.services, r.clients, r.from
	return load
}

// queryOnce asks for name's A record on a new socket from dial.
func queryOnce(dial func() (*dns.Conn, error), name string) (*dns.Msg, error) {
	conn, err := dial()
	if err != nil {
		return nil, err
	}
	defer conn.Close()
	conn.SetDeadline(time.Now().Add(2 * time.Second))
	msg := new(dns.Msg)
	msg.SetQuestion(name, dns.TypeA)
	if err := conn.WriteMsg(msg); err != nil {
		return nil, err
	}
	return conn.ReadMsg()
}
