package kubikcni

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"net/netip"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"kubik/ch06-cni/ipam"
)

// The subnet file is the contract between the node agent, which learns the
// node's pod CIDR (Node.spec.podCIDR) and writes the file, and the plugin,
// which reads it on every ADD. It is flannel's subnet.env idea with our names:
//
//	KUBIK_NETWORK=10.244.0.0/16   the cluster's pod network (optional)
//	KUBIK_SUBNET=10.244.1.0/24    this node's pod subnet; the bridge gets .1
//	KUBIK_MTU=1500                the pods' MTU (optional)
const (
	envNetwork = "KUBIK_NETWORK"
	envSubnet  = "KUBIK_SUBNET"
	envMTU     = "KUBIK_MTU"

	// MaxSubnetFileSize bounds ReadSubnetFile.
	MaxSubnetFileSize = 4096
)

// SubnetConfig is the content of the subnet file.
type SubnetConfig struct {
	Network netip.Prefix // KUBIK_NETWORK; the zero Prefix when absent
	Subnet  netip.Prefix // KUBIK_SUBNET
	MTU     int          // KUBIK_MTU; 0 when absent
}

// Validate checks the subnet config: an IPv4 subnet of at least a /30 with
// its host bits clear, inside the network when one is given, and an MTU the
// kernel accepts.
func (s SubnetConfig) Validate() error {
	if err := ipam.ValidateSubnet(s.Subnet); err != nil {
		return fmt.Errorf("%s: %w", envSubnet, err)
	}
	if s.Network.IsValid() {
		if !s.Network.Addr().Is4() || s.Network.Masked() != s.Network {
			return fmt.Errorf("%s=%s: must be a canonical IPv4 prefix", envNetwork, s.Network)
		}
		if s.Network.Bits() > s.Subnet.Bits() || !s.Network.Contains(s.Subnet.Addr()) {
			return fmt.Errorf("%s=%s is not inside %s=%s", envSubnet, s.Subnet, envNetwork, s.Network)
		}
	}
	if s.MTU != 0 && (s.MTU < minMTU || s.MTU > maxMTU) {
		return fmt.Errorf("%s=%d: must be between %d and %d", envMTU, s.MTU, minMTU, maxMTU)
	}
	return nil
}

// Marshal renders the subnet file.
func (s SubnetConfig) Marshal() []byte {
	var b bytes.Buffer
	if s.Network.IsValid() {
		fmt.Fprintf(&b, "%s=%s\n", envNetwork, s.Network)
	}
	fmt.Fprintf(&b, "%s=%s\n", envSubnet, s.Subnet)
	if s.MTU != 0 {
		fmt.Fprintf(&b, "%s=%d\n", envMTU, s.MTU)
	}
	return b.Bytes()
}

// WriteSubnetFile writes the subnet file atomically: a temporary file in the
// same directory, renamed over path, so a plugin never reads half a file.
func WriteSubnetFile(path string, s SubnetConfig) error {
	if err := s.Validate(); err != nil {
		return err
	}
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	tmp, err := os.CreateTemp(dir, "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		return err
	}
	_, err = tmp.Write(s.Marshal())
	if err == nil {
		err = tmp.Chmod(0o644)
	}
	if err == nil {
		err = tmp.Sync()
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp.Name(), path)
	}
	if err != nil {
		os.Remove(tmp.Name())
		return fmt.Errorf("writing subnet file: %w", err)
	}
	return nil
}

// ReadSubnetFile reads and validates the subnet file. A missing file gives an
// error that satisfies errors.Is(err, fs.ErrNotExist).
func ReadSubnetFile(path string) (SubnetConfig, error) {
	f, err := os.Open(path)
	if err != nil {
		return SubnetConfig{}, err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, MaxSubnetFileSize+1))
	if err != nil {
		return SubnetConfig{}, err
	}
	if len(data) > MaxSubnetFileSize {
		return SubnetConfig{}, fmt.Errorf("subnet file %s is larger than %d bytes", path, MaxSubnetFileSize)
	}
	s, err := ParseSubnetFile(data)
	if err != nil {
		return SubnetConfig{}, fmt.Errorf("subnet file %s: %w", path, err)
	}
	return s, nil
}

// ParseSubnetFile parses KEY=VALUE lines; blank lines and lines starting with
// # are skipped, unknown keys are ignored (a newer node agent may add some),
// a key given twice is an error.
func ParseSubnetFile(data []byte) (SubnetConfig, error) {
	var s SubnetConfig
	seen := map[string]bool{}
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 0, 512), MaxSubnetFileSize+1)
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		key, value, ok := strings.Cut(line, "=")
		if !ok {
			return SubnetConfig{}, fmt.Errorf("line %d: want KEY=VALUE, got %q", n, line)
		}
		key, value = strings.TrimSpace(key), strings.TrimSpace(value)
		if seen[key] {
			return SubnetConfig{}, fmt.Errorf("line %d: %s given twice", n, key)
		}
		seen[key] = true
		var err error
		switch key {
		case envNetwork:
			s.Network, err = netip.ParsePrefix(value)
		case envSubnet:
			s.Subnet, err = netip.ParsePrefix(value)
		case envMTU:
			s.MTU, err = strconv.Atoi(value)
			if err == nil && s.MTU == 0 {
				err = errors.New("must not be 0")
			}
		}
		if err != nil {
			return SubnetConfig{}, fmt.Errorf("line %d: %s: %w", n, key, err)
		}
	}
	if err := sc.Err(); err != nil {
		return SubnetConfig{}, err
	}
	if !seen[envSubnet] {
		return SubnetConfig{}, fmt.Errorf("%s is missing", envSubnet)
	}
	if err := s.Validate(); err != nil {
		return SubnetConfig{}, err
	}
	return s, nil
}
