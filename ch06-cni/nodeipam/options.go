package nodeipam

import (
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"net"
	"strings"
)

// RangeAllocatorType is the one --cidr-allocator-type served.
// Upstream: ipam.RangeAllocatorType.
const RangeAllocatorType = "RangeAllocator"

// The node mask sizes used when no --node-cidr-mask-size* flag is set.
// Upstream: defaultNodeMaskCIDRIPv4, defaultNodeMaskCIDRIPv6.
const (
	defaultNodeMaskCIDRIPv4 = 24
	defaultNodeMaskCIDRIPv6 = 64
)

// Options are kube-controller-manager's flags for this controller, with
// upstream's names (KubeCloudShared: --allocate-node-cidrs, --cluster-cidr,
// --cidr-allocator-type; NodeIPAMController: --node-cidr-mask-size*).
// The zero value is upstream's defaults, under which the controller does
// nothing; DefaultOptions is chapter 6's.
type Options struct {
	// AllocateNodeCIDRs turns the controller on (upstream default false).
	AllocateNodeCIDRs bool
	// ClusterCIDR is the pod range, one CIDR or two of different families
	// ("10.244.0.0/16" or "10.244.0.0/16,fd00:10:244::/56").
	ClusterCIDR string
	// NodeCIDRMaskSize is the mask of each node's block in a single-stack
	// cluster; 0: 24 for IPv4, 64 for IPv6. NodeCIDRMaskSizeIPv4/IPv6 are
	// the per-family masks of a dual-stack one.
	NodeCIDRMaskSize     int
	NodeCIDRMaskSizeIPv4 int
	NodeCIDRMaskSizeIPv6 int
	// CIDRAllocatorType: only RangeAllocator (the others need a cloud
	// provider, which upstream has not built in since 1.31).
	CIDRAllocatorType string
	// ServiceCIDR is --service-cluster-ip-range ("primary[,secondary]"),
	// whose blocks are never given to a node. The program already has the
	// flag (the apiserver's); its caller copies the value here.
	ServiceCIDR string
	// Logger: the controller manager's when nil.
	Logger *slog.Logger
}

// DefaultOptions are chapter 6's settings but for --allocate-node-cidrs,
// which stays off as upstream's default: chapter 6 turns it on (and so
// runs what a kube-controller-manager started with
// --allocate-node-cidrs=true --cluster-cidr=10.244.0.0/16
// --node-cidr-mask-size=24 runs; a dual-stack --cluster-cidr then also
// needs --node-cidr-mask-size=0, as there).
func DefaultOptions() Options {
	return Options{ClusterCIDR: "10.244.0.0/16", NodeCIDRMaskSize: 24, CIDRAllocatorType: RangeAllocatorType}
}

// AddFlags registers the flags with upstream's names and help, o's current
// values as defaults. --service-cluster-ip-range is not among them (see
// ServiceCIDR).
func (o *Options) AddFlags(fs *flag.FlagSet) {
	if o.CIDRAllocatorType == "" {
		o.CIDRAllocatorType = RangeAllocatorType
	}
	fs.BoolVar(&o.AllocateNodeCIDRs, "allocate-node-cidrs", o.AllocateNodeCIDRs, "Should CIDRs for Pods be allocated and set on the cloud provider.")
	fs.StringVar(&o.ClusterCIDR, "cluster-cidr", o.ClusterCIDR, "CIDR Range for Pods in cluster. Requires --allocate-node-cidrs to be true")
	fs.StringVar(&o.CIDRAllocatorType, "cidr-allocator-type", o.CIDRAllocatorType, "Type of CIDR allocator to use")
	fs.IntVar(&o.NodeCIDRMaskSize, "node-cidr-mask-size", o.NodeCIDRMaskSize, "Mask size for node cidr in cluster. Default is 24 for IPv4 and 64 for IPv6.")
	fs.IntVar(&o.NodeCIDRMaskSizeIPv4, "node-cidr-mask-size-ipv4", o.NodeCIDRMaskSizeIPv4, "Mask size for IPv4 node cidr in dual-stack cluster. Default is 24.")
	fs.IntVar(&o.NodeCIDRMaskSizeIPv6, "node-cidr-mask-size-ipv6", o.NodeCIDRMaskSizeIPv6, "Mask size for IPv6 node cidr in dual-stack cluster. Default is 64.")
}

// Validate is the check of these flags upstream makes when it parses them,
// whether the controller runs or not (its options' Validate); the program
// may call it then, and NewNodeIpamController calls it in any case.
func (o *Options) Validate() error {
	if o.CIDRAllocatorType != RangeAllocatorType && o.CIDRAllocatorType != "" {
		// Every other allocator needs a cloud provider: upstream has
		// none built in since 1.31.
		return fmt.Errorf("built-in cloud providers are disabled. The ipam %s is not available", o.CIDRAllocatorType)
	}
	if len(strings.Split(o.ServiceCIDR, ",")) > 2 {
		return errors.New("--service-cluster-ip-range can not contain more than two entries")
	}
	return nil
}

// config is what the flags say once checked.
type config struct {
	clusterCIDRs         []*net.IPNet
	nodeCIDRMaskSizes    []int // one per cluster CIDR
	serviceCIDR          *net.IPNet
	secondaryServiceCIDR *net.IPNet
}

// validate checks the flags as upstream's newNodeIpamController and
// NewNodeIpamController do, in their order and with their messages, after
// Validate. Only called with AllocateNodeCIDRs set.
func (o *Options) validate(log *slog.Logger) (*config, error) {
	clusterCIDRs, err := validateCIDRs(o.ClusterCIDR)
	if err != nil {
		return nil, err
	}
	cfg := &config{clusterCIDRs: clusterCIDRs}

	// An unparsable Service range is logged and ignored, as upstream.
	serviceCIDRs := strings.Split(o.ServiceCIDR, ",")
	parseService := func(s string) *net.IPNet {
		if strings.TrimSpace(s) == "" {
			return nil
		}
		_, n, err := net.ParseCIDR(s)
		if err != nil {
			log.Info("Warning: unsuccessful parsing of service CIDR", "CIDR", s, "err", err)
		}
		return n
	}
	cfg.serviceCIDR = parseService(serviceCIDRs[0])
	if len(serviceCIDRs) > 1 {
		cfg.secondaryServiceCIDR = parseService(serviceCIDRs[1])
	}
	if cfg.serviceCIDR != nil && cfg.secondaryServiceCIDR != nil && isIPv6(cfg.serviceCIDR) == isIPv6(cfg.secondaryServiceCIDR) {
		return nil, errors.New("serviceCIDR and secondaryServiceCIDR are not dualstack (from different IPfamiles)")
	}

	if cfg.nodeCIDRMaskSizes, err = o.setNodeCIDRMaskSizes(clusterCIDRs); err != nil {
		return nil, err
	}
	// NewNodeIpamController's own check.
	for i, cidr := range clusterCIDRs {
		if maskSize, _ := cidr.Mask.Size(); maskSize > cfg.nodeCIDRMaskSizes[i] {
			return nil, errors.New("Controller: Invalid --cluster-cidr, mask size of cluster CIDR must be less than or equal to --node-cidr-mask-size configured for CIDR family")
		}
	}
	return cfg, nil
}

// validateCIDRs parses --cluster-cidr: one CIDR, or two of different
// families. An empty flag fails here, as upstream (whose later "Must
// specify --cluster-cidr if --allocate-node-cidrs is set" is never
// reached).
func validateCIDRs(cidrsList string) ([]*net.IPNet, error) {
	var cidrs []*net.IPNet
	for i, s := range strings.Split(strings.TrimSpace(cidrsList), ",") {
		_, cidr, err := net.ParseCIDR(s)
		if err != nil {
			return nil, fmt.Errorf("invalid CIDR[%d]: %v (%v)", i, cidr, err)
		}
		cidrs = append(cidrs, cidr)
	}
	dualStack := false
	for _, c := range cidrs[1:] {
		dualStack = dualStack || isIPv6(c) != isIPv6(cidrs[0])
	}
	if len(cidrs) > 1 && !dualStack {
		return nil, fmt.Errorf("len of ClusterCIDRs==%v and they are not configured as dual stack (at least one from each IPFamily", len(cidrs))
	}
	if len(cidrs) > 2 {
		return nil, fmt.Errorf("length of clusterCIDRs is:%v more than max allowed of 2", len(cidrs))
	}
	return cidrs, nil
}

// setNodeCIDRMaskSizes picks each cluster CIDR's node mask from the three
// flags, refusing the combinations upstream refuses.
func (o *Options) setNodeCIDRMaskSizes(clusterCIDRs []*net.IPNet) ([]int, error) {
	sortedSizes := func(ipv4, ipv6 int) []int {
		sizes := make([]int, len(clusterCIDRs))
		for i, c := range clusterCIDRs {
			sizes[i] = ipv4
			if isIPv6(c) {
				sizes[i] = ipv6
			}
		}
		return sizes
	}
	ipv4Mask, ipv6Mask := defaultNodeMaskCIDRIPv4, defaultNodeMaskCIDRIPv6
	if len(clusterCIDRs) > 1 { // dual-stack
		if o.NodeCIDRMaskSize != 0 {
			return nil, errors.New("usage of --node-cidr-mask-size is not allowed with dual-stack clusters")
		}
		if o.NodeCIDRMaskSizeIPv4 != 0 {
			ipv4Mask = o.NodeCIDRMaskSizeIPv4
		}
		if o.NodeCIDRMaskSizeIPv6 != 0 {
			ipv6Mask = o.NodeCIDRMaskSizeIPv6
		}
		return sortedSizes(ipv4Mask, ipv6Mask), nil
	}
	if o.NodeCIDRMaskSize != 0 {
		if o.NodeCIDRMaskSizeIPv4 != 0 || o.NodeCIDRMaskSizeIPv6 != 0 {
			return nil, errors.New("usage of --node-cidr-mask-size-ipv4 and --node-cidr-mask-size-ipv6 is not allowed if --node-cidr-mask-size is set. For dual-stack clusters please unset it and use IPFamily specific flags")
		}
		return sortedSizes(o.NodeCIDRMaskSize, o.NodeCIDRMaskSize), nil
	}
	singleStackIPv6 := isIPv6(clusterCIDRs[0])
	if o.NodeCIDRMaskSizeIPv4 != 0 {
		if singleStackIPv6 {
			return nil, errors.New("usage of --node-cidr-mask-size-ipv4 is not allowed for a single-stack IPv6 cluster")
		}
		ipv4Mask = o.NodeCIDRMaskSizeIPv4
	}
	if o.NodeCIDRMaskSizeIPv6 != 0 {
		if !singleStackIPv6 {
			return nil, errors.New("usage of --node-cidr-mask-size-ipv6 is not allowed for a single-stack IPv4 cluster")
		}
		ipv6Mask = o.NodeCIDRMaskSizeIPv6
	}
	return sortedSizes(ipv4Mask, ipv6Mask), nil
}

func isIPv6(n *net.IPNet) bool { return n.IP.To4() == nil }
