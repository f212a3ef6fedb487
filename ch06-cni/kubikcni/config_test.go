package kubikcni_test

import (
	"errors"
	"net/netip"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/containernetworking/cni/pkg/types"
	"github.com/containernetworking/cni/pkg/utils"

	"kubik/ch06-cni/kubikcni"
)

const validConf = `{"cniVersion":"1.0.0","name":"kubik","type":"kubik-cni","subnetFile":"/run/kubik/subnet.env","dataDir":"/var/lib/kubik/ipam"}`

func TestParseConfigDefaults(t *testing.T) {
	c, err := kubikcni.ParseConfig([]byte(validConf))
	if err != nil {
		t.Fatal(err)
	}
	if c.Bridge != "kubik0" || !c.Hairpin() || c.MTU != 0 || c.Name != "kubik" {
		t.Fatalf("defaults: %+v", c)
	}
	c, err = kubikcni.ParseConfig([]byte(`{"cniVersion":"1.1.0","name":"kubik","type":"kubik-cni","bridge":"br-pods",
		"subnetFile":"/s","dataDir":"/d","mtu":1450,"hairpinMode":false,"dns":{"nameservers":["10.96.0.10"]},
		"runtimeConfig":{},"args":{},"capabilities":{"portMappings":true},"cni.dev/valid-attachments":[{"containerID":"a","ifname":"eth0"}],
		"prevResult":{"cniVersion":"1.1.0","interfaces":[{"name":"eth0"}]}}`))
	if err != nil {
		t.Fatal(err)
	}
	if c.Bridge != "br-pods" || c.Hairpin() || c.MTU != 1450 || len(c.DNS.Nameservers) != 1 || len(c.ValidAttachments) != 1 {
		t.Fatalf("explicit fields: %+v", c)
	}
}

func TestParseConfigErrors(t *testing.T) {
	for _, tc := range []struct {
		name, conf string
		code       uint
		contains   string
	}{
		{"not JSON", `{"cniVersion":`, types.ErrDecodingFailure, "not a JSON object"},
		{"array", `[]`, types.ErrDecodingFailure, "not a JSON object"},
		{"null", `null`, types.ErrDecodingFailure, "null"},
		{"unknown field", `{"cniVersion":"1.0.0","name":"kubik","subnetfile":"/s","dataDir":"/d"}`, types.ErrUnsupportedField, `"subnetfile"="/s"`},
		{"unknown version", `{"cniVersion":"9.9.9","name":"kubik","subnetFile":"/s","dataDir":"/d"}`, types.ErrIncompatibleCNIVersion, "9.9.9"},
		{"no version", `{"name":"kubik","subnetFile":"/s","dataDir":"/d"}`, types.ErrIncompatibleCNIVersion, "plugin supports"},
		{"bad name", `{"cniVersion":"1.0.0","name":"../x","subnetFile":"/s","dataDir":"/d"}`, types.ErrInvalidNetworkConfig, "name"},
		{"no subnetFile", `{"cniVersion":"1.0.0","name":"kubik","dataDir":"/d"}`, types.ErrInvalidNetworkConfig, "subnetFile is required"},
		{"relative dataDir", `{"cniVersion":"1.0.0","name":"kubik","subnetFile":"/s","dataDir":"ipam"}`, types.ErrInvalidNetworkConfig, "absolute"},
		{"mtu type", `{"cniVersion":"1.0.0","name":"kubik","subnetFile":"/s","dataDir":"/d","mtu":"1500"}`, types.ErrInvalidNetworkConfig, "mtu"},
		{"mtu range", `{"cniVersion":"1.0.0","name":"kubik","subnetFile":"/s","dataDir":"/d","mtu":20}`, types.ErrInvalidNetworkConfig, "between"},
		{"bridge name", `{"cniVersion":"1.0.0","name":"kubik","subnetFile":"/s","dataDir":"/d","bridge":"a-very-long-bridge-name"}`, types.ErrInvalidNetworkConfig, "bridge"},
		{"ipam section", `{"cniVersion":"1.0.0","name":"kubik","subnetFile":"/s","dataDir":"/d","ipam":{"type":"host-local"}}`, types.ErrInvalidNetworkConfig, "remove the ipam section"},
		{"hairpin type", `{"cniVersion":"1.0.0","name":"kubik","subnetFile":"/s","dataDir":"/d","hairpinMode":"yes"}`, types.ErrInvalidNetworkConfig, "hairpinMode"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := kubikcni.ParseConfig([]byte(tc.conf))
			var cniErr *types.Error
			if !errors.As(err, &cniErr) {
				t.Fatalf("err = %v, want a *types.Error", err)
			}
			if cniErr.Code != tc.code || !strings.Contains(cniErr.Error(), tc.contains) {
				t.Fatalf("err = code %d %q, want code %d containing %q", cniErr.Code, cniErr.Error(), tc.code, tc.contains)
			}
		})
	}
	big := `{"cniVersion":"1.0.0","name":"kubik","pad":"` + strings.Repeat("x", kubikcni.MaxConfigSize) + `"}`
	if _, err := kubikcni.ParseConfig([]byte(big)); err == nil || err.(*types.Error).Code != types.ErrDecodingFailure {
		t.Fatalf("oversized config: err = %v", err)
	}
}

// FuzzParseConfig: any input gives a config satisfying the invariants or a
// CNI error with one of the parser's codes, never a panic.
func FuzzParseConfig(f *testing.F) {
	f.Add([]byte(validConf))
	f.Add([]byte(`{"cniVersion":"0.3.1","name":"n","subnetFile":"/s","dataDir":"/d","mtu":9000,"hairpinMode":false,"bridge":"b"}`))
	f.Add([]byte(`{"cniVersion":"1.1.0","name":"n","subnetFile":"/s","dataDir":"/d","prevResult":{"cniVersion":"1.1.0","ips":[{"address":"10.0.0.2/24"}]}}`))
	f.Add([]byte(`{"mtu":1e99}`))
	f.Add([]byte(`{"dns":{"nameservers":[1]}}`))
	f.Add([]byte(`[`))
	f.Fuzz(func(t *testing.T, data []byte) {
		c, err := kubikcni.ParseConfig(data)
		if err != nil {
			var cniErr *types.Error
			if !errors.As(err, &cniErr) {
				t.Fatalf("not a CNI error: %v", err)
			}
			switch cniErr.Code {
			case types.ErrIncompatibleCNIVersion, types.ErrUnsupportedField, types.ErrDecodingFailure, types.ErrInvalidNetworkConfig:
			default:
				t.Fatalf("unexpected code %d: %v", cniErr.Code, err)
			}
			return
		}
		if utils.ValidateInterfaceName(c.Bridge) != nil || utils.ValidateNetworkName(c.Name) != nil {
			t.Fatalf("accepted bridge %q / name %q", c.Bridge, c.Name)
		}
		if !filepath.IsAbs(c.SubnetFile) || !filepath.IsAbs(c.DataDir) {
			t.Fatalf("accepted relative paths %q %q", c.SubnetFile, c.DataDir)
		}
		if c.MTU != 0 && (c.MTU < 68 || c.MTU > 65535) {
			t.Fatalf("accepted mtu %d", c.MTU)
		}
	})
}

func TestSubnetFileRoundTrip(t *testing.T) {
	path := filepath.Join(t.TempDir(), "run", "subnet.env")
	want := kubikcni.SubnetConfig{
		Network: netip.MustParsePrefix("10.244.0.0/16"),
		Subnet:  netip.MustParsePrefix("10.244.1.0/24"),
		MTU:     1450,
	}
	if err := kubikcni.WriteSubnetFile(path, want); err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(path)
	if string(data) != "KUBIK_NETWORK=10.244.0.0/16\nKUBIK_SUBNET=10.244.1.0/24\nKUBIK_MTU=1450\n" {
		t.Fatalf("file = %q", data)
	}
	got, err := kubikcni.ReadSubnetFile(path)
	if err != nil || got != want {
		t.Fatalf("ReadSubnetFile = %+v, %v; want %+v", got, err, want)
	}
	entries, _ := os.ReadDir(filepath.Dir(path))
	if len(entries) != 1 {
		t.Fatalf("WriteSubnetFile left temporary files: %v", entries)
	}
	if _, err := kubikcni.ReadSubnetFile(filepath.Join(t.TempDir(), "missing")); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("missing file: err = %v, want ErrNotExist", err)
	}
	if err := kubikcni.WriteSubnetFile(path, kubikcni.SubnetConfig{Subnet: netip.MustParsePrefix("10.244.1.7/24")}); err == nil {
		t.Fatal("WriteSubnetFile accepted a subnet with host bits")
	}
}

func TestParseSubnetFile(t *testing.T) {
	ok := "# written by the node agent\n\nKUBIK_SUBNET=10.244.3.0/24\nFLANNEL_IPMASQ=true\n"
	s, err := kubikcni.ParseSubnetFile([]byte(ok))
	if err != nil || s.Subnet.String() != "10.244.3.0/24" || s.MTU != 0 || s.Network.IsValid() {
		t.Fatalf("ParseSubnetFile = %+v, %v", s, err)
	}
	for _, bad := range []string{
		"",
		"KUBIK_NETWORK=10.244.0.0/16\n",
		"KUBIK_SUBNET=10.244.1.0/24\nKUBIK_SUBNET=10.244.2.0/24\n",
		"KUBIK_SUBNET 10.244.1.0/24\n",
		"KUBIK_SUBNET=10.244.1.0/31\n",
		"KUBIK_SUBNET=fd00::/64\n",
		"KUBIK_SUBNET=10.244.1.0/24\nKUBIK_NETWORK=10.245.0.0/16\n",
		"KUBIK_SUBNET=10.244.1.0/24\nKUBIK_MTU=0\n",
		"KUBIK_SUBNET=10.244.1.0/24\nKUBIK_MTU=99999999999999999999\n",
		"KUBIK_SUBNET=10.244.1.0/24\nKUBIK_MTU=70000\n",
		"KUBIK_SUBNET=" + strings.Repeat("1", 5000) + "\n",
	} {
		if s, err := kubikcni.ParseSubnetFile([]byte(bad)); err == nil {
			t.Errorf("ParseSubnetFile(%.40q) = %+v, want an error", bad, s)
		}
	}
	path := filepath.Join(t.TempDir(), "big")
	os.WriteFile(path, []byte("KUBIK_SUBNET=10.244.1.0/24\n#"+strings.Repeat("x", kubikcni.MaxSubnetFileSize)), 0o644)
	if _, err := kubikcni.ReadSubnetFile(path); err == nil || !strings.Contains(err.Error(), "larger than") {
		t.Fatalf("oversized subnet file: err = %v", err)
	}
}
