package networkpolicy

import (
	"net/netip"
	"slices"
)

// ipRange is the IPv4 addresses From..To, both included: one element of
// an nft interval set.
type ipRange struct{ From, To netip.Addr }

func rangeOf(p netip.Prefix) ipRange {
	p = p.Masked()
	a := p.Addr().As4()
	n := uint32(a[0])<<24 | uint32(a[1])<<16 | uint32(a[2])<<8 | uint32(a[3])
	last := n | (1<<(32-p.Bits()) - 1)
	if p.Bits() == 0 {
		last = ^uint32(0)
	}
	return ipRange{p.Addr(), fromUint32(last)}
}

func toUint32(a netip.Addr) uint32 {
	b := a.As4()
	return uint32(b[0])<<24 | uint32(b[1])<<16 | uint32(b[2])<<8 | uint32(b[3])
}

func fromUint32(n uint32) netip.Addr {
	return netip.AddrFrom4([4]byte{byte(n >> 24), byte(n >> 16), byte(n >> 8), byte(n)})
}

// subtract returns r without the addresses of cut: zero, one or two
// ranges.
func (r ipRange) subtract(cut ipRange) []ipRange {
	f, t, cf, ct := toUint32(r.From), toUint32(r.To), toUint32(cut.From), toUint32(cut.To)
	if ct < f || cf > t {
		return []ipRange{r}
	}
	var out []ipRange
	if cf > f {
		out = append(out, ipRange{r.From, fromUint32(cf - 1)})
	}
	if ct < t {
		out = append(out, ipRange{fromUint32(ct + 1), r.To})
	}
	return out
}

// ipBlockRanges is an ipBlock's addresses: cidr minus every except. The
// apiserver validated them; a value that does not parse or is not IPv4
// contributes nothing.
func ipBlockRanges(cidr string, except []string) []ipRange {
	p, err := netip.ParsePrefix(cidr)
	if err != nil || !p.Addr().Is4() {
		return nil
	}
	out := []ipRange{rangeOf(p)}
	for _, e := range except {
		ep, err := netip.ParsePrefix(e)
		if err != nil || !ep.Addr().Is4() {
			continue
		}
		var next []ipRange
		for _, r := range out {
			next = append(next, r.subtract(rangeOf(ep))...)
		}
		out = next
	}
	return out
}

// mergeRanges sorts rs and joins overlapping and adjacent ranges, which an
// nft interval set requires (it refuses overlapping elements).
func mergeRanges(rs []ipRange) []ipRange {
	slices.SortFunc(rs, func(a, b ipRange) int { return a.From.Compare(b.From) })
	var out []ipRange
	for _, r := range rs {
		if n := len(out); n > 0 {
			last := &out[n-1]
			if uint64(toUint32(r.From)) <= uint64(toUint32(last.To))+1 {
				if r.To.Compare(last.To) > 0 {
					last.To = r.To
				}
				continue
			}
		}
		out = append(out, r)
	}
	return out
}

// containsAddr reports whether a is in one of rs.
func containsAddr(rs []ipRange, a netip.Addr) bool {
	for _, r := range rs {
		if r.From.Compare(a) <= 0 && a.Compare(r.To) <= 0 {
			return true
		}
	}
	return false
}
