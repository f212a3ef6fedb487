package ipam

import (
	"errors"
	"fmt"
	"net/netip"
	"os"
	"path/filepath"
	"sort"
	"sync"
	"testing"
)

func newAllocator(t *testing.T, dataDir, subnet string) *Allocator {
	t.Helper()
	var p netip.Prefix
	if subnet != "" {
		p = netip.MustParsePrefix(subnet)
	}
	a, err := New(dataDir, "kubik-pods", p)
	if err != nil {
		t.Fatal(err)
	}
	return a
}

func att(i int) Attachment { return Attachment{ContainerID: fmt.Sprintf("ctr%03d", i), IfName: "eth0"} }

// ipFiles lists the allocation files in the network's directory.
func ipFiles(t *testing.T, a *Allocator) []string {
	t.Helper()
	entries, err := os.ReadDir(a.Dir())
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range entries {
		if _, err := netip.ParseAddr(e.Name()); err == nil {
			names = append(names, e.Name())
		}
	}
	sort.Strings(names)
	return names
}

func TestAllocateRelease(t *testing.T) {
	a := newAllocator(t, t.TempDir(), "10.244.1.0/24")

	ip, err := a.Allocate(att(1))
	if err != nil {
		t.Fatal(err)
	}
	if want := netip.MustParseAddr("10.244.1.2"); ip != want {
		t.Fatalf("first address = %s, want %s (network and gateway are excluded)", ip, want)
	}
	data, err := os.ReadFile(filepath.Join(a.Dir(), "10.244.1.2"))
	if err != nil {
		t.Fatal(err)
	}
	if string(data) != "ctr001\r\neth0" {
		t.Fatalf("IP file holds %q, want host-local's format %q", data, "ctr001\r\neth0")
	}
	got, err := a.Lookup(att(1))
	if err != nil || len(got) != 1 || got[0] != ip {
		t.Fatalf("Lookup = %v, %v; want [%s]", got, err, ip)
	}

	// The same attachment may not allocate twice; another ifname of the same
	// container is another attachment.
	var dup *DuplicateError
	if _, err := a.Allocate(att(1)); !errors.As(err, &dup) {
		t.Fatalf("second Allocate of one attachment: err = %v, want a DuplicateError", err)
	}
	ip2, err := a.Allocate(Attachment{ContainerID: "ctr001", IfName: "net1"})
	if err != nil || ip2 == ip {
		t.Fatalf("Allocate for a second ifname = %s, %v", ip2, err)
	}

	released, err := a.Release(att(1))
	if err != nil || len(released) != 1 || released[0] != ip {
		t.Fatalf("Release = %v, %v; want [%s]", released, err, ip)
	}
	// Release is idempotent.
	released, err = a.Release(att(1))
	if err != nil || len(released) != 0 {
		t.Fatalf("second Release = %v, %v; want nothing and no error", released, err)
	}
	if _, err := a.Release(Attachment{ContainerID: "unknown", IfName: "eth0"}); err != nil {
		t.Fatalf("Release of an unknown attachment: %v", err)
	}
	if files := ipFiles(t, a); len(files) != 1 || files[0] != ip2.String() {
		t.Fatalf("IP files after release = %v, want [%s]", files, ip2)
	}
}

func TestRoundRobin(t *testing.T) {
	a := newAllocator(t, t.TempDir(), "10.244.1.0/24")
	first, _ := a.Allocate(att(1))
	if _, err := a.Release(att(1)); err != nil {
		t.Fatal(err)
	}
	second, _ := a.Allocate(att(2))
	if second == first {
		t.Fatalf("a released address was handed out again at once: %s", second)
	}
	if second != first.Next() {
		t.Fatalf("second address = %s, want %s", second, first.Next())
	}
}

func TestExhaustion(t *testing.T) {
	a := newAllocator(t, t.TempDir(), "10.244.1.0/29")
	var got []string
	for i := 0; i < 5; i++ {
		ip, err := a.Allocate(att(i))
		if err != nil {
			t.Fatalf("allocation %d of 5: %v", i, err)
		}
		got = append(got, ip.String())
	}
	sort.Strings(got)
	want := []string{"10.244.1.2", "10.244.1.3", "10.244.1.4", "10.244.1.5", "10.244.1.6"}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("a /29 handed out %v, want %v", got, want)
	}
	_, err := a.Allocate(att(5))
	var ex *ExhaustedError
	if !errors.As(err, &ex) {
		t.Fatalf("sixth allocation: err = %v, want an ExhaustedError", err)
	}
	if msg := err.Error(); msg != "no IP addresses available in subnet 10.244.1.0/29: all 5 usable addresses are allocated" {
		t.Fatalf("message = %q", msg)
	}
	// Freeing one makes exactly that one available again.
	if _, err := a.Release(att(2)); err != nil {
		t.Fatal(err)
	}
	ip, err := a.Allocate(att(6))
	if err != nil || ip.String() != "10.244.1.4" {
		t.Fatalf("allocation after a release = %s, %v; want 10.244.1.4", ip, err)
	}
}

func TestConcurrentAllocators(t *testing.T) {
	dataDir := t.TempDir()
	const n = 50
	ips := make([]netip.Addr, n)
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i := 0; i < n; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			// A separate allocator per goroutine: only the file lock keeps
			// them apart, as it does for separate plugin processes.
			a, err := New(dataDir, "kubik-pods", netip.MustParsePrefix("10.244.1.0/24"))
			if err != nil {
				errs[i] = err
				return
			}
			ips[i], errs[i] = a.Allocate(att(i))
		}()
	}
	wg.Wait()
	seen := map[netip.Addr]int{}
	for i := 0; i < n; i++ {
		if errs[i] != nil {
			t.Fatalf("goroutine %d: %v", i, errs[i])
		}
		if j, dup := seen[ips[i]]; dup {
			t.Fatalf("goroutines %d and %d both got %s", j, i, ips[i])
		}
		seen[ips[i]] = i
	}
	a := newAllocator(t, dataDir, "10.244.1.0/24")
	if files := ipFiles(t, a); len(files) != n {
		t.Fatalf("%d IP files, want %d", len(files), n)
	}

	// Concurrent releases of all of them leave nothing.
	for i := 0; i < n; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			b, err := New(dataDir, "kubik-pods", netip.Prefix{})
			if err == nil {
				_, err = b.Release(att(i))
			}
			errs[i] = err
		}()
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Fatalf("release %d: %v", i, err)
		}
	}
	if files := ipFiles(t, a); len(files) != 0 {
		t.Fatalf("IP files left after releasing all: %v", files)
	}
}

func TestRestart(t *testing.T) {
	dataDir := t.TempDir()
	a := newAllocator(t, dataDir, "10.244.1.0/24")
	ip1, _ := a.Allocate(att(1))
	ip2, _ := a.Allocate(att(2))

	// A new allocator (a new plugin process) sees the same state.
	b := newAllocator(t, dataDir, "10.244.1.0/24")
	got, err := b.Allocated()
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || got[ip1] != att(1) || got[ip2] != att(2) {
		t.Fatalf("after restart: %v", got)
	}
	ip3, err := b.Allocate(att(3))
	if err != nil || ip3 != ip2.Next() {
		t.Fatalf("after restart Allocate = %s, %v; want %s (round-robin continues)", ip3, err, ip2.Next())
	}
	if _, err := b.Allocate(att(1)); err == nil {
		t.Fatal("after restart a held attachment allocated twice")
	}
}

func TestSubnetChange(t *testing.T) {
	dataDir := t.TempDir()
	old := newAllocator(t, dataDir, "10.244.1.0/24")
	oldIP, _ := old.Allocate(att(1))

	// The node's subnet changed: only the new subnet is used, the old file
	// does not block the attachment, and DEL still releases it.
	cur := newAllocator(t, dataDir, "10.244.7.0/24")
	ip, err := cur.Allocate(att(2))
	if err != nil || ip.String() != "10.244.7.2" {
		t.Fatalf("Allocate in the new subnet = %s, %v; want 10.244.7.2", ip, err)
	}
	ip1, err := cur.Allocate(att(1))
	if err != nil || !netip.MustParsePrefix("10.244.7.0/24").Contains(ip1) {
		t.Fatalf("Allocate for an attachment holding an old-subnet address = %s, %v", ip1, err)
	}
	released, err := cur.Release(att(1))
	if err != nil || len(released) != 2 {
		t.Fatalf("Release = %v, %v; want both the old %s and the new %s", released, err, oldIP, ip1)
	}
}

func TestGC(t *testing.T) {
	a := newAllocator(t, t.TempDir(), "10.244.1.0/24")
	for i := 0; i < 4; i++ {
		if _, err := a.Allocate(att(i)); err != nil {
			t.Fatal(err)
		}
	}
	// A file that is not ours to parse is garbage too.
	if err := os.WriteFile(filepath.Join(a.Dir(), "10.244.1.200"), make([]byte, maxStateFile+1), 0o600); err != nil {
		t.Fatal(err)
	}
	released, err := a.GC(map[Attachment]bool{att(1): true, att(3): true})
	if err != nil {
		t.Fatal(err)
	}
	if len(released) != 3 {
		t.Fatalf("GC released %v, want 3 addresses", released)
	}
	got, _ := a.Allocated()
	if len(got) != 2 {
		t.Fatalf("after GC: %v", got)
	}
	for _, owner := range got {
		if owner != att(1) && owner != att(3) {
			t.Fatalf("GC kept %v", owner)
		}
	}
}

func TestValidateSubnet(t *testing.T) {
	for _, s := range []string{"10.244.1.0/31", "10.244.1.0/32", "10.244.1.5/24", "fd00::/64", "10.0.0.0/8"} {
		if err := ValidateSubnet(netip.MustParsePrefix(s)); err == nil {
			t.Errorf("ValidateSubnet(%s) accepted", s)
		}
	}
	for _, s := range []string{"10.244.1.0/30", "10.244.0.0/16"} {
		if err := ValidateSubnet(netip.MustParsePrefix(s)); err != nil {
			t.Errorf("ValidateSubnet(%s): %v", s, err)
		}
	}
	if _, err := New(t.TempDir(), "../x", netip.Prefix{}); err == nil {
		t.Error("New accepted a network name that leaves dataDir")
	}
}
