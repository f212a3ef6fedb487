// Package cidrset hands out equal blocks of one cluster CIDR: with
// --cluster-cidr=10.244.0.0/16 and --node-cidr-mask-size=24 the blocks are
// 10.244.0.0/24, 10.244.1.0/24, ... 10.244.255.0/24, one per Node. A bitmap
// (one bit per block, big.Int) says which are taken.
//
// AllocateNext goes round-robin, as upstream: it starts after the block it
// handed out last, so a block just released is not handed out again until
// the others have been (a deleted node's pods may still be dying with IPs
// from it). Occupy and Release take any CIDR overlapping the cluster CIDR —
// a node's block, or a larger range such as the Service range, which marks
// every block it covers.
//
// Upstream: pkg/controller/nodeipam/ipam/cidrset/cidr_set.go (without the
// metrics).
package cidrset

import (
	"errors"
	"fmt"
	"math/big"
	"net"
	"sync"
)

// clusterSubnetMaxDiff: an IPv6 node mask may be at most 16 bits longer
// than the cluster mask (a bitmap of 65536 blocks), as upstream.
const clusterSubnetMaxDiff = 16

var (
	// ErrCIDRRangeNoCIDRsRemaining: every block is taken.
	ErrCIDRRangeNoCIDRsRemaining = errors.New(
		"CIDR allocation failed; there are no remaining CIDRs left to allocate in the accepted range")
	// ErrCIDRSetSubNetTooBig: too many IPv6 blocks for the bitmap.
	ErrCIDRSetSubNetTooBig = errors.New(
		"New CIDR set failed; the node CIDR size is too big")
)

// CidrSet is the bitmap of one cluster CIDR's blocks. Safe for concurrent use.
type CidrSet struct {
	mu sync.Mutex
	// clusterCIDR is the range the blocks are cut from; clusterIP its
	// first address as a number.
	clusterCIDR     *net.IPNet
	clusterIP       *big.Int
	clusterMaskSize int
	// nodeMask is the mask of one block (nodeMaskSize bits); bits is 32 or 128.
	nodeMask     net.IPMask
	nodeMaskSize int
	bits         int
	// maxCIDRs is the number of blocks; allocatedCIDRs how many are taken.
	maxCIDRs       int
	allocatedCIDRs int
	// nextCandidate is where AllocateNext starts looking.
	nextCandidate int
	used          big.Int
}

// NewCIDRSet cuts clusterCIDR into blocks of subNetMaskSize bits. The
// caller has checked that subNetMaskSize is not shorter than the cluster's
// mask (the controller's "Invalid --cluster-cidr" error).
func NewCIDRSet(clusterCIDR *net.IPNet, subNetMaskSize int) (*CidrSet, error) {
	clusterMaskSize, bits := clusterCIDR.Mask.Size()
	isIPv6 := clusterCIDR.IP.To4() == nil
	if isIPv6 && subNetMaskSize-clusterMaskSize > clusterSubnetMaxDiff {
		return nil, ErrCIDRSetSubNetTooBig
	}
	if subNetMaskSize < clusterMaskSize || subNetMaskSize > bits {
		return nil, fmt.Errorf("New CIDR set failed; the node CIDR mask size %d does not fit the cluster CIDR %v", subNetMaskSize, clusterCIDR)
	}
	ip := clusterCIDR.IP.Mask(clusterCIDR.Mask)
	return &CidrSet{
		clusterCIDR:     &net.IPNet{IP: ip, Mask: clusterCIDR.Mask},
		clusterIP:       new(big.Int).SetBytes(ip),
		clusterMaskSize: clusterMaskSize,
		nodeMask:        net.CIDRMask(subNetMaskSize, bits),
		nodeMaskSize:    subNetMaskSize,
		bits:            bits,
		maxCIDRs:        1 << (subNetMaskSize - clusterMaskSize),
	}, nil
}

// indexToCIDRBlock is block index: the cluster's first address plus index
// blocks.
func (s *CidrSet) indexToCIDRBlock(index int) *net.IPNet {
	n := new(big.Int).Lsh(big.NewInt(int64(index)), uint(s.bits-s.nodeMaskSize))
	return &net.IPNet{IP: s.ipOf(n.Or(n, s.clusterIP)), Mask: s.nodeMask}
}

// AllocateNext takes the first free block at or after nextCandidate
// (wrapping around) and returns it.
func (s *CidrSet) AllocateNext() (*net.IPNet, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.allocatedCIDRs == s.maxCIDRs {
		return nil, ErrCIDRRangeNoCIDRsRemaining
	}
	candidate := s.nextCandidate
	for s.used.Bit(candidate) != 0 {
		candidate = (candidate + 1) % s.maxCIDRs
	}
	s.nextCandidate = (candidate + 1) % s.maxCIDRs
	s.used.SetBit(&s.used, candidate, 1)
	s.allocatedCIDRs++
	return s.indexToCIDRBlock(candidate), nil
}

// getBeginningAndEndIndices are the first and last block cidr covers: all
// of them for a cidr as large as the cluster's or larger, an error for one
// outside it.
func (s *CidrSet) getBeginningAndEndIndices(cidr *net.IPNet) (begin, end int, err error) {
	if cidr == nil {
		return -1, -1, fmt.Errorf("error getting indices for cluster cidr %v, cidr is nil", s.clusterCIDR)
	}
	if !s.clusterCIDR.Contains(cidr.IP.Mask(s.clusterCIDR.Mask)) && !cidr.Contains(s.clusterCIDR.IP.Mask(cidr.Mask)) {
		return -1, -1, fmt.Errorf("cidr %v is out the range of cluster cidr %v", cidr, s.clusterCIDR)
	}
	maskSize, bits := cidr.Mask.Size()
	if bits != s.bits {
		return -1, -1, fmt.Errorf("cidr %v is out the range of cluster cidr %v", cidr, s.clusterCIDR)
	}
	if maskSize <= s.clusterMaskSize {
		return 0, s.maxCIDRs - 1, nil
	}
	// The blocks of cidr's first and last address.
	first := new(big.Int).SetBytes(cidr.IP.Mask(cidr.Mask))
	last := new(big.Int).Lsh(big.NewInt(1), uint(bits-maskSize))
	last.Sub(last, big.NewInt(1)).Or(last, first)
	if begin, err = s.getIndex(first); err != nil {
		return -1, -1, err
	}
	if end, err = s.getIndex(last); err != nil {
		return -1, -1, err
	}
	return begin, end, nil
}

// Release frees every block cidr covers.
func (s *CidrSet) Release(cidr *net.IPNet) error {
	begin, end, err := s.getBeginningAndEndIndices(cidr)
	if err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	for i := begin; i <= end; i++ {
		if s.used.Bit(i) != 0 { // count only what changes: a double release is harmless
			s.used.SetBit(&s.used, i, 0)
			s.allocatedCIDRs--
		}
	}
	return nil
}

// Occupy marks every block cidr covers as taken, whether it was or not.
func (s *CidrSet) Occupy(cidr *net.IPNet) error {
	begin, end, err := s.getBeginningAndEndIndices(cidr)
	if err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	for i := begin; i <= end; i++ {
		if s.used.Bit(i) == 0 {
			s.used.SetBit(&s.used, i, 1)
			s.allocatedCIDRs++
		}
	}
	return nil
}

// getIndexForIP is the block ip falls in.
func (s *CidrSet) getIndexForIP(ip net.IP) (int, error) {
	if v4 := ip.To4(); v4 != nil && s.bits == 32 {
		ip = v4
	}
	if len(ip) != s.bits/8 {
		return 0, fmt.Errorf("invalid IP: %v", ip)
	}
	return s.getIndex(new(big.Int).SetBytes(ip))
}

// getIndex is the block of the address ip (as a number).
func (s *CidrSet) getIndex(ip *big.Int) (int, error) {
	n := new(big.Int).Xor(ip, s.clusterIP)
	n.Rsh(n, uint(s.bits-s.nodeMaskSize))
	if !n.IsInt64() || n.Int64() >= int64(s.maxCIDRs) {
		return 0, fmt.Errorf("CIDR: %v/%v is out of the range of CIDR allocator", s.ipOf(ip), s.nodeMaskSize)
	}
	return int(n.Int64()), nil
}

// ipOf turns a number back into an address of the cluster's family.
func (s *CidrSet) ipOf(n *big.Int) net.IP {
	ip := make(net.IP, s.bits/8)
	n.FillBytes(ip)
	return ip
}
