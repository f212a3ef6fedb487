package kubik

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"strings"
	"testing"

	"kubik/ch01-apiserver/api/corev1"
	"kubik/ch01-apiserver/api/intstr"
	"kubik/ch01-apiserver/api/metav1"
)

func lbService(name, uid string, ports ...corev1.ServicePort) *corev1.Service {
	return &corev1.Service{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: name, UID: uid},
		Spec: corev1.ServiceSpec{Type: corev1.ServiceTypeLoadBalancer, Ports: ports}}
}

func tcpPort(name string, port, nodePort int32) corev1.ServicePort {
	return corev1.ServicePort{Name: name, Protocol: corev1.ProtocolTCP, Port: port, NodePort: nodePort, TargetPort: intstr.FromInt(8080)}
}

// TestLoadBalancer: a balancer forwards from the host to both nodes'
// NodePorts (TCP and UDP), follows the node list, survives its namespace
// being removed and a new provider process, and goes away.
func TestLoadBalancer(t *testing.T) {
	f := newTestFabric(t)
	ctx := context.Background()
	n1, p1, ip1 := f.addMachine(1)
	n2, p2, ip2 := f.addMachine(2)
	f.serve(p1, ip1.String()+":30080", n1)
	f.serve(p2, ip2.String()+":30080", n2)
	f.serveUDP(p1, ip1.String()+":30053", n1)
	f.serveUDP(p2, ip2.String()+":30053", n2)

	cloud, err := New(f.cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cloud.Teardown() })
	web := lbService("web", "1111-2222", tcpPort("http", 80, 30080),
		corev1.ServicePort{Name: "dns", Protocol: corev1.ProtocolUDP, Port: 53, NodePort: 30053})
	if _, exists, err := cloud.GetLoadBalancer(ctx, "kubernetes", web); err != nil || exists {
		t.Fatalf("before: exists %v, %v", exists, err)
	}
	nodes := []*corev1.Node{testNode(n1, ip1), testNode(n2, ip2)}
	status, err := cloud.EnsureLoadBalancer(ctx, "kubernetes", web, nodes)
	if err != nil {
		t.Fatal(err)
	}
	if len(status.Ingress) != 1 || status.Ingress[0].IP != "10.240.99.200" || *status.Ingress[0].IPMode != corev1.LoadBalancerIPModeVIP {
		t.Fatalf("status %+v", status)
	}
	if got, exists, err := cloud.GetLoadBalancer(ctx, "kubernetes", web); err != nil || !exists || got.Ingress[0].IP != "10.240.99.200" {
		t.Fatalf("GetLoadBalancer: %+v %v %v", got, exists, err)
	}

	// From the host, every new connection goes to one node or the other.
	seen := map[string]bool{}
	eventually(t, "connections to 10.240.99.200:80 reach both nodes", func() (string, bool) {
		got, err := ask(f.host, noAddr, "10.240.99.200:80")
		if err != nil {
			return err.Error(), false
		}
		seen[got] = true
		return strings.Join(sortedKeys(seen), ","), seen[n1] && seen[n2]
	})
	eventually(t, "UDP to 10.240.99.200:53", func() (string, bool) {
		got, err := askUDP(f.host, "10.240.99.200:53")
		return got + errString(err), err == nil && (got == n1 || got == n2)
	})
	table := nsRun(t, cloud.balancer.path(), "nft", "list", "table", "ip", TableName)
	for _, want := range []string{`comment "default/web:http"`, "numgen random mod 2", "snat to 10.240.99.2", "udp dport 53"} {
		if !strings.Contains(table, want) {
			t.Errorf("ruleset lacks %q:\n%s", want, table)
		}
	}

	// Addresses: the next Service gets the next one; a taken or foreign
	// requested address is refused.
	api := lbService("api", "3333-4444", tcpPort("", 443, 30443))
	if st, err := cloud.EnsureLoadBalancer(ctx, "kubernetes", api, nodes); err != nil || st.Ingress[0].IP != "10.240.99.201" {
		t.Fatalf("second balancer: %+v %v", st, err)
	}
	taken := lbService("taken", "5555", tcpPort("", 80, 30081))
	taken.Spec.LoadBalancerIP = "10.240.99.201"
	if _, err := cloud.EnsureLoadBalancer(ctx, "kubernetes", taken, nodes); err == nil || !strings.Contains(err.Error(), "in use by service default/api") {
		t.Errorf("taken address: %v", err)
	}
	taken.Spec.LoadBalancerIP = "10.240.99.250"
	if _, err := cloud.EnsureLoadBalancer(ctx, "kubernetes", taken, nodes); err == nil || !strings.Contains(err.Error(), "is not in the pool 10.240.99.200-10.240.99.202") {
		t.Errorf("address outside the pool: %v", err)
	}
	sctp := lbService("sctp", "6666", corev1.ServicePort{Protocol: corev1.ProtocolSCTP, Port: 9, NodePort: 30009})
	if _, err := cloud.EnsureLoadBalancer(ctx, "kubernetes", sctp, nodes); err == nil || !strings.Contains(err.Error(), "SCTP is not supported") {
		t.Errorf("SCTP: %v", err)
	}

	// Only node-2: every connection goes there.
	if err := cloud.UpdateLoadBalancer(ctx, "kubernetes", web, nodes[1:]); err != nil {
		t.Fatal(err)
	}
	for range 10 {
		if got, err := ask(f.host, noAddr, "10.240.99.200:80"); err != nil || got != n2 {
			t.Fatalf("after UpdateLoadBalancer(node-2): %q, %v", got, err)
		}
	}

	// The namespace removed by hand, and a new provider process: Resync
	// brings the balancer back, with the same address.
	if out, err := exec.Command("ip", "netns", "del", f.cfg.Balancer.NetNS).CombinedOutput(); err != nil {
		t.Fatalf("ip netns del: %v: %s", err, out)
	}
	again, err := New(f.cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := again.Resync(); err != nil {
		t.Fatal(err)
	}
	eventually(t, "the balancer back after its namespace was removed", func() (string, bool) {
		got, err := ask(f.host, noAddr, "10.240.99.200:80")
		return got + errString(err), err == nil && got == n2
	})

	// Deleted: the address and the rules go, the records forget it.
	if err := again.EnsureLoadBalancerDeleted(ctx, "kubernetes", web); err != nil {
		t.Fatal(err)
	}
	if err := again.EnsureLoadBalancerDeleted(ctx, "kubernetes", web); err != nil {
		t.Fatalf("deleting twice: %v", err)
	}
	if _, exists, _ := again.GetLoadBalancer(ctx, "kubernetes", web); exists {
		t.Error("GetLoadBalancer after deletion: exists")
	}
	addrs := nsRun(t, again.balancer.path(), "ip", "-4", "-o", "addr", "show", "dev", "eth0")
	if strings.Contains(addrs, "10.240.99.200/32") || !strings.Contains(addrs, "10.240.99.201/32") || !strings.Contains(addrs, "10.240.99.2/24") {
		t.Errorf("balancer addresses after deleting web:\n%s", addrs)
	}
	if table := nsRun(t, again.balancer.path(), "nft", "list", "table", "ip", TableName); strings.Contains(table, "default/web") {
		t.Errorf("web's rules left:\n%s", table)
	}

	// Teardown: nothing of the cloud is left.
	if err := again.Teardown(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(again.balancer.path()); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("balancer namespace after Teardown: %v", err)
	}
	if _, err := os.Stat(f.cfg.Balancer.StateFile); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("records after Teardown: %v", err)
	}
}

func errString(err error) string {
	if err == nil {
		return ""
	}
	return " (" + err.Error() + ")"
}
