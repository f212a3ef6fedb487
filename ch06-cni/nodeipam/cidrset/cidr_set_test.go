package cidrset

import (
	"math/big"
	"net"
	"slices"
	"testing"
)

func mustCIDR(t *testing.T, s string) *net.IPNet {
	t.Helper()
	_, n, err := net.ParseCIDR(s)
	if err != nil {
		t.Fatal(err)
	}
	return n
}

func newSet(t *testing.T, cluster string, mask int) *CidrSet {
	t.Helper()
	s, err := NewCIDRSet(mustCIDR(t, cluster), mask)
	if err != nil {
		t.Fatalf("NewCIDRSet(%s, %d): %v", cluster, mask, err)
	}
	return s
}

func TestCIDRSetFullyAllocated(t *testing.T) {
	for _, tc := range []struct{ cluster, want string }{
		{"127.123.234.0/30", "127.123.234.0/30"},
		{"beef:1234::/30", "beef:1234::/30"},
	} {
		a := newSet(t, tc.cluster, 30)
		for round := range 2 {
			p, err := a.AllocateNext()
			if err != nil || p.String() != tc.want {
				t.Fatalf("%s round %d: %v, %v; want %s", tc.cluster, round, p, err, tc.want)
			}
			if _, err := a.AllocateNext(); err != ErrCIDRRangeNoCIDRsRemaining {
				t.Fatalf("%s: a full range allocated again: %v", tc.cluster, err)
			}
			if err := a.Release(p); err != nil {
				t.Fatal(err)
			}
		}
	}
}

func TestIndexToCIDRBlock(t *testing.T) {
	for _, tc := range []struct {
		cluster string
		mask    int
		index   int
		want    string
	}{
		{"127.123.3.0/16", 24, 0, "127.123.0.0/24"},
		{"127.123.0.0/16", 24, 15, "127.123.15.0/24"},
		{"192.168.5.219/28", 32, 5, "192.168.5.213/32"},
		{"2001:0db8:1234:3::/48", 64, 0, "2001:db8:1234::/64"},
		{"2001:0db8:1234::/48", 64, 15, "2001:db8:1234:f::/64"},
		{"2001:0db8:85a3::8a2e:0370:7334/50", 63, 6425, "2001:db8:85a3:3232::/63"},
		{"2001:0db8::/32", 48, 0, "2001:db8::/48"},
		{"2001:0db8::/32", 48, 15, "2001:db8:f::/48"},
		{"2001:0db8:85a3::8a2e:0370:7334/32", 48, 6425, "2001:db8:1919::/48"},
		{"2001:0db8:1234:ff00::/56", 72, 0, "2001:db8:1234:ff00::/72"},
		{"2001:0db8:1234:ff00::/56", 72, 15, "2001:db8:1234:ff00:f00::/72"},
		{"2001:0db8:1234:ff00::0370:7334/56", 72, 6425, "2001:db8:1234:ff19:1900::/72"},
		{"2001:0db8:1234:0:1234::/80", 96, 0, "2001:db8:1234:0:1234::/96"},
		{"2001:0db8:1234:0:1234::/80", 96, 15, "2001:db8:1234:0:1234:f::/96"},
		{"2001:0db8:1234:ff00::0370:7334/80", 96, 6425, "2001:db8:1234:ff00:0:1919::/96"},
	} {
		if got := newSet(t, tc.cluster, tc.mask).indexToCIDRBlock(tc.index).String(); got != tc.want {
			t.Errorf("%s /%d index %d: %s, want %s", tc.cluster, tc.mask, tc.index, got, tc.want)
		}
	}
}

// allocateAll takes every block and checks that one more fails.
func allocateAll(t *testing.T, a *CidrSet, n int) []string {
	t.Helper()
	var out []string
	for i := range n {
		c, err := a.AllocateNext()
		if err != nil {
			t.Fatalf("allocation %d: %v", i, err)
		}
		out = append(out, c.String())
	}
	if _, err := a.AllocateNext(); err == nil {
		t.Fatal("allocated more than the range holds")
	}
	return out
}

func TestCIDRSetRandomishAllocation(t *testing.T) {
	for _, cluster := range []string{"127.123.234.0/16", "beef:1234::/16"} {
		a := newSet(t, cluster, 24)
		cidrs := allocateAll(t, a, 256)
		for _, c := range cidrs {
			if err := a.Release(mustCIDR(t, c)); err != nil {
				t.Fatal(err)
			}
		}
		if again := allocateAll(t, a, 256); !slices.Equal(cidrs, again) {
			t.Errorf("%s: re-allocated blocks differ", cluster)
		}
	}
}

func TestCIDRSetAllocationOccupied(t *testing.T) {
	for _, cluster := range []string{"127.123.234.0/16", "beef:1234::/16"} {
		a := newSet(t, cluster, 24)
		cidrs := allocateAll(t, a, 256)
		for _, c := range cidrs {
			a.Release(mustCIDR(t, c))
		}
		for _, c := range cidrs[128:] {
			a.Occupy(mustCIDR(t, c))
		}
		a.Occupy(mustCIDR(t, cidrs[128])) // twice: still one block
		// The allocator's round-robin restarts at 0 after wrapping: the
		// first 128 blocks come back, in order.
		got := allocateAll(t, a, 128)
		if !slices.Equal(got, cidrs[:128]) {
			t.Errorf("%s: got %v", cluster, got[:3])
		}
	}
}

func TestDoubleOccupyRelease(t *testing.T) {
	a := newSet(t, "10.42.0.0/16", 24)
	for _, op := range []struct {
		cidr, op    string
		numOccupied int
	}{
		{"10.42.5.0/24", "occupy", 1},
		{"10.42.9.0/24", "occupy", 2},
		{"10.42.8.0/22", "occupy", 5}, // 8..11, 9 already taken
		{"10.42.9.0/24", "occupy", 5},
		{"10.42.9.0/24", "release", 4},
		{"10.42.9.0/24", "release", 4},
		{"10.42.4.0/22", "release", 3}, // 4..7, only 5 taken
	} {
		c := mustCIDR(t, op.cidr)
		if op.op == "occupy" {
			a.Occupy(c)
		} else {
			a.Release(c)
		}
		if a.allocatedCIDRs != op.numOccupied {
			t.Fatalf("after %s %s: %d occupied, want %d", op.op, op.cidr, a.allocatedCIDRs, op.numOccupied)
		}
	}
	allocateAll(t, a, 256-3)
}

func TestGetIndexForIP(t *testing.T) {
	for _, tc := range []struct {
		cluster string
		mask    int
		subnet  string
		want    int
		wantErr bool
	}{
		{"127.0.0.0/8", 16, "127.0.0.0/16", 0, false},
		{"be00::/8", 16, "be00::/16", 0, false},
		{"127.0.0.0/8", 16, "127.123.0.0/16", 123, false},
		{"be00::/8", 16, "beef::/16", 0xef, false},
		{"127.0.0.0/8", 16, "127.168.0.0/16", 168, false},
		{"be00::/8", 16, "be68::/16", 0x68, false},
		{"127.0.0.0/8", 16, "127.224.0.0/16", 224, false},
		{"be00::/8", 16, "be24::/16", 0x24, false},
		{"192.168.0.0/16", 24, "192.168.12.0/24", 12, false},
		{"beef::/16", 24, "beef:1200::/24", 0x12, false},
		{"192.168.0.0/16", 24, "192.168.151.0/24", 151, false},
		{"beef::/16", 24, "beef:9700::/24", 0x97, false},
		{"192.168.0.0/16", 24, "127.168.224.0/24", 0, true},
		{"beef::/16", 24, "2001:db00::/24", 0, true},
	} {
		got, err := newSet(t, tc.cluster, tc.mask).getIndexForIP(mustCIDR(t, tc.subnet).IP)
		if (err != nil) != tc.wantErr || got != tc.want {
			t.Errorf("%s /%d %s: %d, %v; want %d (error %t)", tc.cluster, tc.mask, tc.subnet, got, err, tc.want, tc.wantErr)
		}
	}
}

func TestOccupy(t *testing.T) {
	for _, tc := range []struct {
		cluster    string
		mask       int
		subnet     string
		begin, end int
	}{
		{"127.0.0.0/8", 16, "127.0.0.0/8", 0, 255},
		{"2001:beef:1200::/40", 48, "2001:beef:1200::/40", 0, 255},
		{"127.0.0.0/8", 16, "127.0.0.0/2", 0, 255},
		{"2001:beef:1200::/40", 48, "2001:beef:1234::/34", 0, 255},
		{"127.0.0.0/8", 16, "127.0.0.0/16", 0, 0},
		{"2001:beef:1200::/40", 48, "2001:beef:1200::/48", 0, 0},
		{"127.0.0.0/8", 32, "127.0.0.0/16", 0, 65535},
		{"2001:beef:1200::/48", 64, "2001:beef:1200::/48", 0, 65535},
		{"127.0.0.0/7", 16, "127.0.0.0/15", 256, 257},
		{"2001:beef:7f00::/39", 48, "2001:beef:7f00::/47", 256, 257},
		{"127.0.0.0/7", 15, "127.0.0.0/15", 128, 128},
		{"2001:beef:7f00::/39", 47, "2001:beef:7f00::/47", 128, 128},
		{"127.0.0.0/7", 18, "127.0.0.0/15", 1024, 1031},
		{"2001:beef:7f00::/39", 50, "2001:beef:7f00::/47", 1024, 1031},
	} {
		cs := newSet(t, tc.cluster, tc.mask)
		if err := cs.Occupy(mustCIDR(t, tc.subnet)); err != nil {
			t.Errorf("%s /%d occupy %s: %v", tc.cluster, tc.mask, tc.subnet, err)
			continue
		}
		var want big.Int
		for i := tc.begin; i <= tc.end; i++ {
			want.SetBit(&want, i, 1)
		}
		if want.Cmp(&cs.used) != 0 || cs.allocatedCIDRs != tc.end-tc.begin+1 {
			t.Errorf("%s /%d occupy %s: bits %x (%d), want %d..%d", tc.cluster, tc.mask, tc.subnet, &cs.used, cs.allocatedCIDRs, tc.begin, tc.end)
		}
	}
}

// TestOccupyOutOfRange: a CIDR of another range, or of the other family,
// is an error and changes nothing.
func TestOccupyOutOfRange(t *testing.T) {
	cs := newSet(t, "10.244.0.0/16", 24)
	for _, c := range []string{"10.96.0.0/12", "192.168.0.0/24", "fd00::/64"} {
		if err := cs.Occupy(mustCIDR(t, c)); err == nil {
			t.Errorf("occupy %s: no error", c)
		}
	}
	if cs.allocatedCIDRs != 0 {
		t.Errorf("%d occupied", cs.allocatedCIDRs)
	}
	// A range containing the cluster's takes all of it.
	if err := cs.Occupy(mustCIDR(t, "10.240.0.0/12")); err != nil || cs.allocatedCIDRs != 256 {
		t.Errorf("occupy 10.240.0.0/12: %v, %d occupied", err, cs.allocatedCIDRs)
	}
}

func TestCIDRSetv6(t *testing.T) {
	for _, tc := range []struct {
		cluster     string
		mask        int
		first, next string
		wantErr     bool
	}{
		{"127.0.0.0/8", 32, "127.0.0.0/32", "127.0.0.1/32", false},
		{"beef:1234::/32", 49, "", "", true},
		{"2001:beef:1234:369b::/60", 64, "2001:beef:1234:3690::/64", "2001:beef:1234:3691::/64", false},
	} {
		a, err := NewCIDRSet(mustCIDR(t, tc.cluster), tc.mask)
		if (err != nil) != tc.wantErr {
			t.Fatalf("NewCIDRSet(%s, %d): %v", tc.cluster, tc.mask, err)
		}
		if a == nil {
			continue
		}
		for _, want := range []string{tc.first, tc.next} {
			if p, err := a.AllocateNext(); err != nil || p.String() != want {
				t.Errorf("%s: %v, %v; want %s", tc.cluster, p, err, want)
			}
		}
	}
}

// TestNewCIDRSetMaskOutOfRange: a node mask shorter than the cluster's or
// longer than the address is refused (upstream leaves that to the caller's
// check, or does not check the second at all).
func TestNewCIDRSetMaskOutOfRange(t *testing.T) {
	for _, tc := range []struct {
		cluster string
		mask    int
	}{{"10.244.0.0/16", 8}, {"10.244.0.0/16", 33}, {"fd00::/112", 129}} {
		if _, err := NewCIDRSet(mustCIDR(t, tc.cluster), tc.mask); err == nil {
			t.Errorf("NewCIDRSet(%s, %d): no error", tc.cluster, tc.mask)
		}
	}
}

// TestRoundRobin: a released block is handed out again only after the
// allocator went round (upstream's nextCandidate).
func TestRoundRobin(t *testing.T) {
	a := newSet(t, "10.244.0.0/22", 24)
	var got []string
	for range 3 {
		c, _ := a.AllocateNext()
		got = append(got, c.String())
	}
	a.Release(mustCIDR(t, "10.244.1.0/24"))
	for range 2 {
		c, err := a.AllocateNext()
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, c.String())
	}
	want := []string{"10.244.0.0/24", "10.244.1.0/24", "10.244.2.0/24", "10.244.3.0/24", "10.244.1.0/24"}
	if !slices.Equal(got, want) {
		t.Errorf("got %v, want %v", got, want)
	}
}
