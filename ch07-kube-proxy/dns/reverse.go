package dns

import (
	"fmt"
	"net/netip"
	"strconv"
	"strings"
)

const inAddrArpa = "in-addr.arpa."

// ReverseZones are the in-addr.arpa zones that hold the PTR records of
// prefix, split at octet boundaries as CoreDNS splits a CIDR given to the
// kubernetes plugin: 10.244.0.0/16 is 244.10.in-addr.arpa., and
// 10.96.0.0/12 is the sixteen zones 96.10.in-addr.arpa. …
// 111.10.in-addr.arpa.
func ReverseZones(prefix netip.Prefix) ([]string, error) {
	if !prefix.Addr().Is4() {
		return nil, fmt.Errorf("%s: only IPv4 prefixes have in-addr.arpa zones", prefix)
	}
	prefix = prefix.Masked()
	bits := (prefix.Bits() + 7) / 8 * 8 // rounded up to whole octets
	if bits == 0 {
		return []string{inAddrArpa}, nil
	}
	octets := bits / 8
	n := 1 << (bits - prefix.Bits()) // at most 256 zones
	base := prefix.Addr().As4()
	zones := make([]string, 0, n)
	for i := 0; i < n; i++ {
		a := base
		a[octets-1] += byte(i)
		labels := make([]string, 0, octets)
		for j := octets - 1; j >= 0; j-- {
			labels = append(labels, strconv.Itoa(int(a[j])))
		}
		zones = append(zones, strings.Join(labels, ".")+"."+inAddrArpa)
	}
	return zones, nil
}

// reverseAddr reads the address of a name in a reverse zone, given the
// name's labels left of zone (lower case). partial is true for a name
// above the addresses (10.96.in-addr.arpa. in 96.10.in-addr.arpa. has
// none left: the apex); ok is false for a name that cannot be an address.
func reverseAddr(labels []string, zone string) (ip netip.Addr, partial, ok bool) {
	zoneLabels := strings.Split(strings.TrimSuffix(zone, "."+inAddrArpa), ".")
	if zone == inAddrArpa {
		zoneLabels = nil
	}
	all := append(append([]string{}, labels...), zoneLabels...)
	if len(all) > 4 {
		return netip.Addr{}, false, false
	}
	var a [4]byte
	for i, l := range all {
		v, err := strconv.Atoi(l)
		if err != nil || v < 0 || v > 255 || strconv.Itoa(v) != l {
			return netip.Addr{}, false, false
		}
		a[len(all)-1-i] = byte(v)
	}
	if len(all) < 4 {
		return netip.Addr{}, true, true
	}
	return netip.AddrFrom4(a), false, true
}
