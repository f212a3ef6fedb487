package kubikcni

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/containernetworking/cni/pkg/types"
	"github.com/containernetworking/cni/pkg/utils"
)

const (
	// PluginType is the binary's name: the "type" of its conflist entry.
	PluginType = "kubik-cni"
	// DefaultBridge is the node's bridge when the config names none
	// (upstream's bridge plugin defaults to cni0).
	DefaultBridge = "kubik0"
	// DefaultMTU applies when neither the config nor the subnet file sets one.
	DefaultMTU = 1500
	// MaxConfigSize bounds the configuration read from stdin. A config with
	// a prevResult of a few interfaces is a few KiB.
	MaxConfigSize = 1 << 20

	minMTU = 68 // the IPv4 minimum (RFC 791)
	maxMTU = 65535
)

// SupportedVersions are the CNI spec versions kubik-cni speaks. Results are
// converted to the config's cniVersion (types.PrintResult); CHECK needs
// 0.4.0 and GC and STATUS need 1.1.0, as the spec says.
var SupportedVersions = []string{"0.3.0", "0.3.1", "0.4.0", "1.0.0", "1.1.0"}

// NetConf is kubik-cni's entry of the network configuration list, as the
// runtime passes it on stdin. Compare the bridge plugin's NetConf.
//
//	{"type": "kubik-cni", "bridge": "kubik0", "subnetFile": "/run/kubik/subnet.env",
//	 "dataDir": "/var/lib/kubik/ipam", "mtu": 1450, "hairpinMode": true}
type NetConf struct {
	// cniVersion, name, type, capabilities, ipam, dns, prevResult,
	// cni.dev/valid-attachments (GC).
	types.PluginConf

	Bridge      string `json:"bridge,omitempty"`      // the node's bridge; default kubik0
	SubnetFile  string `json:"subnetFile"`            // required: the node agent's subnet file
	DataDir     string `json:"dataDir"`               // required: IPAM state, <dataDir>/<name>/
	MTU         int    `json:"mtu,omitempty"`         // overrides KUBIK_MTU of the subnet file
	HairpinMode *bool  `json:"hairpinMode,omitempty"` // default true
}

// Hairpin reports whether the pods' bridge ports get hairpin mode, which lets
// a pod reach itself through a Service address.
func (c *NetConf) Hairpin() bool { return c.HairpinMode == nil || *c.HairpinMode }

// knownFields are the keys a plugin configuration may carry: the spec's (some
// are injected by the runtime: name, cniVersion, prevResult, runtimeConfig,
// args, cni.dev/valid-attachments and its misspelt twin) and ours.
// disableCheck, disableGC and cniVersions belong to a list, but a single
// .conf file carries them next to the plugin's own fields.
var knownFields = []string{
	"cniVersion", "cniVersions", "name", "type", "capabilities", "ipam", "dns", "args",
	"runtimeConfig", "prevResult", "cni.dev/valid-attachments", "cni.dev/attachments",
	"disableCheck", "disableGC",
	"bridge", "subnetFile", "dataDir", "mtu", "hairpinMode",
}

// ParseConfig decodes and validates kubik-cni's configuration. Every error is
// a CNI error: 6 when data is not a JSON object, 2 for an unknown field
// (naming the key and its value, as the spec asks), 1 for an unsupported
// cniVersion and 7 for an invalid value.
func ParseConfig(data []byte) (*NetConf, error) {
	if len(data) > MaxConfigSize {
		return nil, decodeFailure(fmt.Sprintf("network config is larger than %d bytes", MaxConfigSize))
	}
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(data, &fields); err != nil {
		return nil, decodeFailure(fmt.Sprintf("network config is not a JSON object: %v", err))
	}
	if fields == nil {
		return nil, decodeFailure("network config is null")
	}
	if err := checkKnownFields(fields); err != nil {
		return nil, err
	}

	conf := &NetConf{}
	if err := json.Unmarshal(data, conf); err != nil {
		var typeErr *json.UnmarshalTypeError
		if errors.As(err, &typeErr) {
			return nil, invalidConfig(fmt.Sprintf("%s: a JSON %s cannot be a %s", typeErr.Field, typeErr.Value, typeErr.Type))
		}
		return nil, decodeFailure(err.Error())
	}
	if err := conf.validate(); err != nil {
		return nil, err
	}
	return conf, nil
}

func checkKnownFields(fields map[string]json.RawMessage) error {
	var unknown []string
	for key := range fields {
		if !slices.Contains(knownFields, key) {
			unknown = append(unknown, key)
		}
	}
	if len(unknown) == 0 {
		return nil
	}
	sort.Strings(unknown)
	key := unknown[0]
	value := string(bytes.TrimSpace(fields[key]))
	if len(value) > 64 {
		value = value[:64] + "..."
	}
	return types.NewError(types.ErrUnsupportedField,
		fmt.Sprintf("unsupported field in network config: %s=%s", strconv.Quote(key), value),
		fmt.Sprintf("kubik-cni accepts the spec's fields and %q, %q, %q, %q, %q", "bridge", "subnetFile", "dataDir", "mtu", "hairpinMode"))
}

func (c *NetConf) validate() error {
	if !slices.Contains(SupportedVersions, c.CNIVersion) {
		return types.NewError(types.ErrIncompatibleCNIVersion, "incompatible CNI versions",
			fmt.Sprintf("config is %q, plugin supports %v", c.CNIVersion, SupportedVersions))
	}
	if err := utils.ValidateNetworkName(c.Name); err != nil {
		return invalidConfig(fmt.Sprintf("name %q: %s", c.Name, err.Msg))
	}
	if c.IPAM.Type != "" {
		return invalidConfig(fmt.Sprintf("ipam type %q: kubik-cni allocates addresses itself; remove the ipam section", c.IPAM.Type))
	}
	if c.Bridge == "" {
		c.Bridge = DefaultBridge
	}
	if err := utils.ValidateInterfaceName(c.Bridge); err != nil {
		return invalidConfig(fmt.Sprintf("bridge %q: %s", c.Bridge, err.Msg))
	}
	if err := absPath("subnetFile", c.SubnetFile); err != nil {
		return err
	}
	if err := absPath("dataDir", c.DataDir); err != nil {
		return err
	}
	if c.MTU != 0 && (c.MTU < minMTU || c.MTU > maxMTU) {
		return invalidConfig(fmt.Sprintf("mtu %d: must be between %d and %d", c.MTU, minMTU, maxMTU))
	}
	return nil
}

func absPath(field, path string) error {
	switch {
	case path == "":
		return invalidConfig(field + " is required")
	case !filepath.IsAbs(path):
		return invalidConfig(fmt.Sprintf("%s %q: must be an absolute path (the runtime's working directory is undefined)", field, path))
	case strings.ContainsRune(path, 0):
		return invalidConfig(field + " contains a NUL byte")
	}
	return nil
}
