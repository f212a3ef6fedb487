package util

// LocalTrafficDetector says, as iptables and nft match arguments, whether a
// packet comes from a pod on this cluster (--detect-local-mode ClusterCIDR
// with --cluster-cidr). Traffic that is not local is masqueraded on its way
// to a ClusterIP, so that replies come back through this node.
type LocalTrafficDetector interface {
	IsImplemented() bool
	IfLocal() []string
	IfNotLocal() []string
	IfLocalNFT() []string
	IfNotLocalNFT() []string
}

type detectLocal struct {
	ifLocal, ifNotLocal, ifLocalNFT, ifNotLocalNFT []string
}

func (d *detectLocal) IsImplemented() bool     { return len(d.ifLocal) > 0 }
func (d *detectLocal) IfLocal() []string       { return d.ifLocal }
func (d *detectLocal) IfNotLocal() []string    { return d.ifNotLocal }
func (d *detectLocal) IfLocalNFT() []string    { return d.ifLocalNFT }
func (d *detectLocal) IfNotLocalNFT() []string { return d.ifNotLocalNFT }

// NewNoOpLocalDetector detects nothing (no --cluster-cidr).
func NewNoOpLocalDetector() LocalTrafficDetector { return &detectLocal{} }

// NewDetectLocalByCIDR treats sources inside cidr as local pods.
func NewDetectLocalByCIDR(cidr string) LocalTrafficDetector {
	nftFamily := "ip"
	if !IsIPv4CIDRString(cidr) {
		nftFamily = "ip6"
	}
	return &detectLocal{
		ifLocal:       []string{"-s", cidr},
		ifNotLocal:    []string{"!", "-s", cidr},
		ifLocalNFT:    []string{nftFamily, "saddr", cidr},
		ifNotLocalNFT: []string{nftFamily, "saddr", "!=", cidr},
	}
}
