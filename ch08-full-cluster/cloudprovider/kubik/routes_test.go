package kubik

import (
	"context"
	"errors"
	"net"
	"net/netip"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"

	"github.com/vishvananda/netlink"

	"kubik/ch01-apiserver/api/corev1"
	"kubik/ch08-full-cluster/cloudprovider"
)

// addPodRange gives machine path a "pod" address, 10.244.i.1 on lo, and
// sends the whole pod range to the balancer, as a machine without the
// node agent's per-node routes would.
func (f *testFabric) addPodRange(path string, i int) netip.Addr {
	f.t.Helper()
	pod := netip.AddrFrom4([4]byte{10, 244, byte(i), 1})
	f.do(path, func() error {
		lo, err := netlink.LinkByName("lo")
		if err != nil {
			return err
		}
		if err := netlink.AddrAdd(lo, mustAddr(pod.String()+"/32")); err != nil {
			return err
		}
		eth0, err := netlink.LinkByName("eth0")
		if err != nil {
			return err
		}
		_, dst, _ := net.ParseCIDR("10.244.0.0/16")
		return netlink.RouteAdd(&netlink.Route{LinkIndex: eth0.Attrs().Index, Dst: dst, Gw: net.ParseIP("10.240.99.2")})
	})
	return pod
}

// TestRoutes: the route table sends each node's pod range to it, so that
// pods of machines that only know the balancer reach each other; routes
// no record wants are removed, other routes stay.
func TestRoutes(t *testing.T) {
	f := newTestFabric(t)
	ctx := context.Background()
	n1, p1, ip1 := f.addMachine(1)
	n2, p2, ip2 := f.addMachine(2)
	pod1, pod2 := f.addPodRange(p1, 1), f.addPodRange(p2, 2)
	f.serve(p2, pod2.String()+":8080", "pod on "+n2)

	cloud, err := New(f.cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cloud.Teardown() })
	cloud.Initialize(t.Context())
	for _, n := range []struct {
		node *corev1.Node
		cidr string
	}{{testNode(n1, ip1), "10.244.1.0/24"}, {testNode(n2, ip2), "10.244.2.0/24"}} {
		r := &cloudprovider.Route{TargetNode: n.node.Name, TargetNodeAddresses: n.node.Status.Addresses, DestinationCIDR: n.cidr}
		if err := cloud.CreateRoute(ctx, "kubernetes", n.node.UID, r); err != nil {
			t.Fatal(err)
		}
	}
	routes, err := cloud.ListRoutes(ctx, "kubernetes")
	if err != nil || len(routes) != 2 {
		t.Fatalf("ListRoutes: %v, %v", routes, err)
	}
	if r := routes[0]; r.Name != "kubernetes-uid-node-1" || r.TargetNode != n1 || r.DestinationCIDR != "10.244.1.0/24" || !r.EnableNodeAddresses {
		t.Errorf("route %+v", r)
	}
	if other, _ := cloud.ListRoutes(ctx, "other-cluster"); len(other) != 0 {
		t.Errorf("another cluster's routes: %v", other)
	}
	table := nsRun(t, cloud.balancer.path(), "ip", "route", "show", "proto", "75")
	for _, want := range []string{"10.244.1.0/24 via 10.240.99.11 dev eth0", "10.244.2.0/24 via 10.240.99.12 dev eth0"} {
		if !strings.Contains(table, want) {
			t.Errorf("balancer routes lack %q:\n%s", want, table)
		}
	}

	// Pod to pod across machines, through the balancer.
	if got, err := ask(p1, pod1, pod2.String()+":8080"); err != nil || got != "pod on "+n2 {
		t.Fatalf("from %s to %s: %q, %v", pod1, pod2, got, err)
	}
	r2 := &cloudprovider.Route{TargetNode: n2, DestinationCIDR: "10.244.2.0/24"}
	dup := &cloudprovider.Route{TargetNode: n1, TargetNodeAddresses: testNode(n1, ip1).Status.Addresses, DestinationCIDR: "10.244.2.0/24"}
	if err := cloud.CreateRoute(ctx, "kubernetes", "another", dup); err == nil {
		t.Error("a second route to 10.244.2.0/24 was accepted")
	}

	// A stale route of the provider's goes on the next resync; a route of
	// someone else's (not proto 75) stays.
	nsRun(t, cloud.balancer.path(), "ip", "route", "add", "10.244.9.0/24", "via", "10.240.99.13", "proto", "75")
	nsRun(t, cloud.balancer.path(), "ip", "route", "add", "10.244.8.0/24", "via", "10.240.99.13", "proto", "static")
	if err := cloud.Resync(); err != nil {
		t.Fatal(err)
	}
	table = nsRun(t, cloud.balancer.path(), "ip", "route")
	if strings.Contains(table, "10.244.9.0/24") || !strings.Contains(table, "10.244.8.0/24") {
		t.Errorf("after resync:\n%s", table)
	}

	// Deleted: node-2's pods are out of reach (the balancer has no route).
	r2.Name = "kubernetes-uid-node-2"
	if err := cloud.DeleteRoute(ctx, "kubernetes", r2); err != nil {
		t.Fatal(err)
	}
	if routes, _ := cloud.ListRoutes(ctx, "kubernetes"); len(routes) != 1 {
		t.Errorf("after DeleteRoute: %v", routes)
	}
	_, err = ask(p1, pod1, pod2.String()+":8080")
	if !errors.Is(err, syscall.ENETUNREACH) && !errors.Is(err, syscall.EHOSTUNREACH) {
		t.Errorf("to node-2's pods without a route: %v, want network or host unreachable", err)
	}
}

// TestInstances: a machine exists while its namespace does, is shut down
// while nothing runs in it, and has its eth0's address.
func TestInstances(t *testing.T) {
	f := newTestFabric(t)
	ctx := context.Background()
	name, path, ip := f.addMachine(1)
	cloud, err := New(f.cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	node := testNode(name, netip.Addr{})

	if ok, err := cloud.InstanceExists(ctx, node); err != nil || !ok {
		t.Fatalf("InstanceExists: %v, %v", ok, err)
	}
	if off, err := cloud.InstanceShutdown(ctx, node); err != nil || !off {
		t.Fatalf("InstanceShutdown with nothing running: %v, %v", off, err)
	}
	sleep := exec.Command("nsenter", "--net="+path, "--", "sleep", "300")
	if err := sleep.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { sleep.Process.Kill(); sleep.Wait() })
	eventually(t, "a process in the machine", func() (string, bool) {
		off, err := cloud.InstanceShutdown(ctx, node)
		return errString(err), err == nil && !off
	})
	meta, err := cloud.InstanceMetadata(ctx, node)
	if err != nil {
		t.Fatal(err)
	}
	if meta.ProviderID != "kubik://node-1" || meta.InstanceType != InstanceType || len(meta.NodeAddresses) != 1 ||
		meta.NodeAddresses[0] != (corev1.NodeAddress{Type: corev1.NodeInternalIP, Address: ip.String()}) {
		t.Errorf("metadata %+v", meta)
	}

	// By provider ID; a foreign one is an error.
	byID := testNode("renamed", netip.Addr{})
	byID.Spec.ProviderID = "kubik://node-1"
	if ok, err := cloud.InstanceExists(ctx, byID); err != nil || !ok {
		t.Errorf("by provider ID: %v, %v", ok, err)
	}
	byID.Spec.ProviderID = "gce://project/zone/node-1"
	if _, err := cloud.InstanceExists(ctx, byID); err == nil {
		t.Error("a gce:// provider ID was accepted")
	}

	// The namespace removed: gone, and no metadata.
	sleep.Process.Kill()
	sleep.Wait()
	if out, err := exec.Command("ip", "netns", "del", f.prefix+name).CombinedOutput(); err != nil {
		t.Fatalf("ip netns del: %v: %s", err, out)
	}
	if ok, err := cloud.InstanceExists(ctx, node); err != nil || ok {
		t.Errorf("InstanceExists after the namespace went: %v, %v", ok, err)
	}
	if off, err := cloud.InstanceShutdown(ctx, node); err != nil || off {
		t.Errorf("InstanceShutdown of a gone machine: %v, %v", off, err)
	}
	if _, err := cloud.InstanceMetadata(ctx, node); !errors.Is(err, cloudprovider.InstanceNotFound) {
		t.Errorf("InstanceMetadata of a gone machine: %v", err)
	}
	if _, err := os.Stat(path); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("%s: %v", path, err)
	}
}
