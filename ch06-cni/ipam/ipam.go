// Package ipam hands out pod IP addresses from the node's subnet. It is the
// IPAM half of kubik-cni and corresponds to upstream's host-local IPAM plugin
// (containernetworking/plugins, plugins/ipam/host-local and its disk backend),
// reduced to one IPv4 range per node.
//
// The state lives on disk, exactly laid out as host-local lays it out, so that
// the short-lived plugin processes containerd execs on one node share it:
//
//	<dataDir>/<network>/10.244.1.7        one file per allocated IP: "<containerID>\r\n<ifname>"
//	<dataDir>/<network>/last_reserved_ip.0  the last address handed out (round-robin)
//	<dataDir>/<network>/lock              flock(2)ed around every operation
//
// An allocation is keyed by the attachment (containerID, ifname), as the CNI
// spec identifies attachments. Addresses come from the node's subnet minus the
// network address, the gateway (the first address, on the node's bridge) and
// the broadcast address. Files of addresses outside the current subnet (the
// node's subnet changed) are never handed out again and are still released by
// DEL and GC.
package ipam

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net/netip"
	"os"
	"path/filepath"
	"strings"
)

const (
	// lastReservedIPFile is host-local's file name for its first (and here
	// only) range.
	lastReservedIPFile = "last_reserved_ip.0"
	lockFile           = "lock"
	// lineBreak separates the container ID from the ifname inside an IP file,
	// as host-local writes it.
	lineBreak = "\r\n"
	// maxStateFile bounds every read of a state file: a container ID plus an
	// interface name, or an address.
	maxStateFile = 4096
)

// Attachment identifies one network attachment of a container (the CNI spec's
// (CNI_CONTAINERID, CNI_IFNAME) tuple): the key of an allocation.
type Attachment struct {
	ContainerID string
	IfName      string
}

// ExhaustedError is returned by Allocate when every usable address of the
// subnet is allocated.
type ExhaustedError struct {
	Subnet netip.Prefix
	Usable int
}

func (e *ExhaustedError) Error() string {
	return fmt.Sprintf("no IP addresses available in subnet %s: all %d usable addresses are allocated", e.Subnet, e.Usable)
}

// DuplicateError is returned by Allocate when the attachment already holds an
// address of the subnet; the CNI spec forbids a second ADD without a DEL.
type DuplicateError struct {
	Attachment Attachment
	IP         netip.Addr
}

func (e *DuplicateError) Error() string {
	return fmt.Sprintf("%s has already been allocated to container %s interface %s; duplicate allocation is not allowed",
		e.IP, e.Attachment.ContainerID, e.Attachment.IfName)
}

// Allocator manages the allocations of one network on one node. It holds no
// state in memory: every call takes the directory's lock, so allocators in
// different processes (or goroutines) never hand out the same address.
type Allocator struct {
	dir    string
	subnet netip.Prefix
}

// New returns the allocator of network's directory under dataDir, creating the
// directory. subnet is the node's current subnet; it may be the zero Prefix
// when only Release, Lookup or GC are used (a DEL needs no subnet).
func New(dataDir, network string, subnet netip.Prefix) (*Allocator, error) {
	if network == "" || network == "." || network == ".." || strings.ContainsRune(network, '/') {
		return nil, fmt.Errorf("invalid network name %q for the IPAM directory", network)
	}
	if subnet.IsValid() {
		if err := ValidateSubnet(subnet); err != nil {
			return nil, err
		}
	}
	dir := filepath.Join(dataDir, network)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("creating the IPAM directory: %w", err)
	}
	return &Allocator{dir: dir, subnet: subnet}, nil
}

// Dir is the network's state directory.
func (a *Allocator) Dir() string { return a.dir }

// ValidateSubnet checks that subnet is a canonical IPv4 prefix between a /16
// (65533 pods, which bounds every scan) and a /30 (one address besides
// network, gateway and broadcast).
func ValidateSubnet(subnet netip.Prefix) error {
	switch {
	case !subnet.IsValid():
		return errors.New("invalid subnet")
	case !subnet.Addr().Is4():
		return fmt.Errorf("subnet %s is not IPv4", subnet)
	case subnet.Masked() != subnet:
		return fmt.Errorf("subnet %s has host bits set (did you mean %s?)", subnet, subnet.Masked())
	case subnet.Bits() > 30:
		return fmt.Errorf("subnet %s is too small: a node needs at least a /30", subnet)
	case subnet.Bits() < 16:
		return fmt.Errorf("subnet %s is too large for one node: at most a /16", subnet)
	}
	return nil
}

// Gateway is the subnet's first address, the one the node's bridge carries.
func Gateway(subnet netip.Prefix) netip.Addr { return subnet.Addr().Next() }

// usableRange is the first and last address Allocate may hand out.
func usableRange(subnet netip.Prefix) (first, last netip.Addr) {
	return Gateway(subnet).Next(), broadcast(subnet).Prev()
}

// broadcast is the subnet's last address.
func broadcast(subnet netip.Prefix) netip.Addr {
	a := subnet.Addr().As4()
	host := uint32(1)<<(32-subnet.Bits()) - 1
	binary.BigEndian.PutUint32(a[:], binary.BigEndian.Uint32(a[:])|host)
	return netip.AddrFrom4(a)
}

// Allocate reserves an address of the subnet for the attachment and returns
// it. The search is round-robin: it starts after the last address handed out,
// so a crash-looping pod does not get the address it just released.
func (a *Allocator) Allocate(att Attachment) (netip.Addr, error) {
	if !a.subnet.IsValid() {
		return netip.Addr{}, errors.New("allocator has no subnet")
	}
	unlock, err := a.lock()
	if err != nil {
		return netip.Addr{}, err
	}
	defer unlock()

	allocated, err := a.list()
	if err != nil {
		return netip.Addr{}, err
	}
	for ip, owner := range allocated {
		if owner == att && a.subnet.Contains(ip) {
			return netip.Addr{}, &DuplicateError{Attachment: att, IP: ip}
		}
	}

	first, last := usableRange(a.subnet)
	start := first
	if prev, err := a.lastReserved(); err == nil && prev.Compare(first) >= 0 && prev.Compare(last) < 0 {
		start = prev.Next()
	}
	ip := start
	for {
		if _, taken := allocated[ip]; !taken {
			reserved, err := a.reserve(ip, att)
			if err != nil {
				return netip.Addr{}, err
			}
			if reserved {
				return ip, nil
			}
		}
		if ip == last {
			ip = first
		} else {
			ip = ip.Next()
		}
		if ip == start {
			return netip.Addr{}, &ExhaustedError{Subnet: a.subnet, Usable: usableCount(a.subnet)}
		}
	}
}

func usableCount(subnet netip.Prefix) int { return 1<<(32-subnet.Bits()) - 3 }

// reserve creates ip's file; false means it exists already.
func (a *Allocator) reserve(ip netip.Addr, att Attachment) (bool, error) {
	f, err := os.OpenFile(filepath.Join(a.dir, ip.String()), os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o600)
	if errors.Is(err, os.ErrExist) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	_, err = f.WriteString(att.ContainerID + lineBreak + att.IfName)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		os.Remove(f.Name())
		return false, err
	}
	if err := os.WriteFile(filepath.Join(a.dir, lastReservedIPFile), []byte(ip.String()), 0o600); err != nil {
		os.Remove(f.Name())
		return false, err
	}
	return true, nil
}

func (a *Allocator) lastReserved() (netip.Addr, error) {
	data, err := readBounded(filepath.Join(a.dir, lastReservedIPFile))
	if err != nil {
		return netip.Addr{}, err
	}
	return netip.ParseAddr(strings.TrimSpace(string(data)))
}

// Release frees every address held by the attachment, in any subnet, and
// returns them. Releasing an attachment that holds nothing is not an error.
func (a *Allocator) Release(att Attachment) ([]netip.Addr, error) {
	unlock, err := a.lock()
	if err != nil {
		return nil, err
	}
	defer unlock()
	return a.releaseIf(func(owner Attachment) bool { return owner == att })
}

// GC frees every address whose attachment is not in valid, as the CNI GC
// command asks, and returns them.
func (a *Allocator) GC(valid map[Attachment]bool) ([]netip.Addr, error) {
	unlock, err := a.lock()
	if err != nil {
		return nil, err
	}
	defer unlock()
	return a.releaseIf(func(owner Attachment) bool { return !valid[owner] })
}

func (a *Allocator) releaseIf(match func(Attachment) bool) ([]netip.Addr, error) {
	allocated, err := a.list()
	if err != nil {
		return nil, err
	}
	var released []netip.Addr
	var errs []error
	for ip, owner := range allocated {
		if !match(owner) {
			continue
		}
		if err := os.Remove(filepath.Join(a.dir, ip.String())); err != nil && !errors.Is(err, os.ErrNotExist) {
			errs = append(errs, err)
			continue
		}
		released = append(released, ip)
	}
	return released, errors.Join(errs...)
}

// Lookup returns the addresses the attachment holds (CHECK uses it).
func (a *Allocator) Lookup(att Attachment) ([]netip.Addr, error) {
	unlock, err := a.lock()
	if err != nil {
		return nil, err
	}
	defer unlock()
	allocated, err := a.list()
	if err != nil {
		return nil, err
	}
	var ips []netip.Addr
	for ip, owner := range allocated {
		if owner == att {
			ips = append(ips, ip)
		}
	}
	return ips, nil
}

// Allocated returns every allocation of the network, in any subnet.
func (a *Allocator) Allocated() (map[netip.Addr]Attachment, error) {
	unlock, err := a.lock()
	if err != nil {
		return nil, err
	}
	defer unlock()
	return a.list()
}

// list reads the allocation files; the caller holds the lock. A file that
// cannot be parsed still occupies its address, under an empty Attachment.
func (a *Allocator) list() (map[netip.Addr]Attachment, error) {
	entries, err := os.ReadDir(a.dir)
	if err != nil {
		return nil, err
	}
	allocated := make(map[netip.Addr]Attachment, len(entries))
	for _, e := range entries {
		ip, err := netip.ParseAddr(e.Name())
		if err != nil || e.IsDir() {
			continue // lock, last_reserved_ip.0, foreign files
		}
		var owner Attachment
		if data, err := readBounded(filepath.Join(a.dir, e.Name())); err == nil {
			id, ifName, _ := strings.Cut(string(data), lineBreak)
			owner = Attachment{ContainerID: strings.TrimSpace(id), IfName: strings.TrimSpace(ifName)}
		} else if errors.Is(err, os.ErrNotExist) {
			continue
		}
		allocated[ip] = owner
	}
	return allocated, nil
}

func readBounded(path string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, maxStateFile+1))
	if err != nil {
		return nil, err
	}
	if len(data) > maxStateFile {
		return nil, fmt.Errorf("%s is larger than %d bytes", path, maxStateFile)
	}
	return data, nil
}
