package nftables

import "github.com/vishvananda/netlink"

// conntrackNone is a conntrack table without entries.
type conntrackNone struct{}

func (conntrackNone) ListEntries(uint8) ([]*netlink.ConntrackFlow, error) { return nil, nil }
func (conntrackNone) ClearEntries(uint8, ...netlink.CustomConntrackFilter) (int, error) {
	return 0, nil
}
