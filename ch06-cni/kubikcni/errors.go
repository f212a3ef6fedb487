package kubikcni

import (
	"github.com/containernetworking/cni/pkg/types"
)

// Error codes of kubik-cni. Codes 0-99 are the CNI spec's (types.Err*); the
// spec leaves 100 and above to plugins.
const (
	// ErrIPAMExhausted: every usable address of the node's subnet is
	// allocated. The message names the subnet.
	ErrIPAMExhausted uint = 100
	// ErrInvalidSubnetFile: the node agent's subnet file exists but cannot be
	// parsed or holds an invalid subnet.
	ErrInvalidSubnetFile uint = 101
)

// invalidConfig is the spec's error 7, "invalid network config": a field has
// an invalid value. details says which and why.
func invalidConfig(details string) *types.Error {
	return types.NewError(types.ErrInvalidNetworkConfig, "invalid network config", details)
}

// decodeFailure is the spec's error 6, "failed to decode content".
func decodeFailure(details string) *types.Error {
	return types.NewError(types.ErrDecodingFailure, "failed to decode content", details)
}
