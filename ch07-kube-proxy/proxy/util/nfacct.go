package util

import (
	"errors"
	"fmt"
	"syscall"

	"github.com/vishvananda/netlink/nl"
	"golang.org/x/sys/unix"
)

// NFAcct creates the named nfacct packet counters that kube-proxy's
// iptables rules count with (-m nfacct --nfacct-name ...): the packets
// dropped as conntrack-INVALID and the localhost NodePort packets accepted.
// It speaks nfnetlink_acct in the caller's network namespace.
//
// Upstream: k8s.io/kubernetes/pkg/proxy/util/nfacct.
type NFAcct struct{}

const (
	nfacctCmdNew   = 0
	nfacctCmdGet   = 1
	nfacctAttrName = 1
	// NFAcctMaxLength is the longest counter name the kernel takes.
	NFAcctMaxLength = 31
)

// errNFAcctNotFound is the kernel's ENOENT for a counter that does not exist.
var errNFAcctNotFound = errors.New("object not found")

// NewNFAcct checks that the kernel has nfacct; upstream asks for a counter
// that may not exist and treats anything but "not found" as unsupported.
func NewNFAcct() (*NFAcct, error) {
	r := &NFAcct{}
	if _, err := r.get("IMayExist"); err != nil && !errors.Is(err, errNFAcctNotFound) {
		return nil, fmt.Errorf("nfacct sub-system not available: %w", err)
	}
	return r, nil
}

// Ensure creates the counter name unless it exists.
func (r *NFAcct) Ensure(name string) error {
	if len(name) == 0 || len(name) > NFAcctMaxLength {
		return fmt.Errorf("bad nfacct counter name %q", name)
	}
	found, err := r.get(name)
	if found {
		return nil
	}
	if err != nil && !errors.Is(err, errNFAcctNotFound) {
		return err
	}
	req := r.request(nfacctCmdNew, unix.NLM_F_CREATE|unix.NLM_F_ACK, name)
	if _, err := req.Execute(unix.NETLINK_NETFILTER, 0); err != nil && !errors.Is(err, syscall.EBUSY) {
		return fmt.Errorf("creating nfacct counter %s: %w", name, err)
	}
	return nil
}

func (r *NFAcct) get(name string) (bool, error) {
	msgs, err := r.request(nfacctCmdGet, unix.NLM_F_ACK, name).Execute(unix.NETLINK_NETFILTER, 0)
	if errors.Is(err, syscall.ENOENT) {
		return false, errNFAcctNotFound
	}
	if err != nil {
		return false, err
	}
	return len(msgs) > 0, nil
}

func (r *NFAcct) request(cmd int, flags int, name string) *nl.NetlinkRequest {
	req := nl.NewNetlinkRequest(cmd|(unix.NFNL_SUBSYS_ACCT<<8), flags)
	req.AddData(&nl.Nfgenmsg{NfgenFamily: uint8(unix.AF_NETLINK), Version: nl.NFNETLINK_V0})
	req.AddData(nl.NewRtAttr(nfacctAttrName, nl.ZeroTerminated(name)))
	return req
}
