package kubikcni_test

// The binary run directly with crafted environments and stdin, as a
// misbehaving runtime or a user at a shell would: every mistake gives the
// spec's error JSON on stdout and a non-zero exit status, never a panic.

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/containernetworking/cni/pkg/types"
	"github.com/containernetworking/cni/pkg/version"

	"kubik/ch06-cni/kubikcni"
)

type execResult struct {
	stdout, stderr []byte
	exitCode       int
}

func runPlugin(t *testing.T, env []string, stdin []byte) execResult {
	t.Helper()
	cmd := exec.Command(filepath.Join(binDir, kubikcni.PluginType))
	cmd.Env = env
	cmd.Stdin = bytes.NewReader(stdin)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	var exitErr *exec.ExitError
	code := 0
	if errors.As(err, &exitErr) {
		code = exitErr.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	if s := stderr.String(); strings.Contains(s, "panic") || strings.Contains(s, "goroutine ") {
		t.Fatalf("the plugin panicked:\n%s", s)
	}
	return execResult{stdout.Bytes(), stderr.Bytes(), code}
}

func cniEnv(command string, extra ...string) []string {
	return append([]string{
		"CNI_COMMAND=" + command,
		"CNI_CONTAINERID=ctr-exec-test",
		"CNI_NETNS=/run/netns/does-not-exist",
		"CNI_IFNAME=eth0",
		"CNI_PATH=" + binDir,
	}, extra...)
}

func TestBinaryErrors(t *testing.T) {
	dir := t.TempDir()
	conf := func(version, extra string) []byte {
		return []byte(fmt.Sprintf(`{"cniVersion":%q,"name":"kubik","type":"kubik-cni","subnetFile":%q,"dataDir":%q%s}`,
			version, filepath.Join(dir, "missing-subnet.env"), filepath.Join(dir, "ipam"), extra))
	}
	for _, tc := range []struct {
		name     string
		env      []string
		stdin    []byte
		code     uint
		contains string
	}{
		{"malformed stdin", cniEnv("ADD"), []byte(`{"cniVersion": "1.0.0", "name":`), types.ErrDecodingFailure, "unmarshal"},
		{"empty stdin", cniEnv("ADD"), nil, types.ErrDecodingFailure, ""},
		{"stdin too large", cniEnv("ADD"), bytes.Repeat([]byte(" "), kubikcni.MaxConfigSize+1), types.ErrDecodingFailure, "larger than"},
		{"unknown cniVersion", cniEnv("ADD"), conf("9.9.9", ""), types.ErrIncompatibleCNIVersion, "incompatible CNI versions"},
		{"unknown field", cniEnv("ADD"), conf("1.0.0", `,"subnet":"10.244.1.0/24"`), types.ErrUnsupportedField, `"subnet"`},
		{"invalid value", cniEnv("ADD"), conf("1.0.0", `,"mtu":-1`), types.ErrInvalidNetworkConfig, "mtu"},
		{"no network name", cniEnv("ADD"), []byte(`{"cniVersion":"1.0.0","type":"kubik-cni"}`), types.ErrInvalidNetworkConfig, "network name"},
		{"missing CNI_CONTAINERID etc.", []string{"CNI_COMMAND=ADD"}, conf("1.0.0", ""), types.ErrInvalidEnvironmentVariables, "CNI_CONTAINERID"},
		{"missing CNI_PATH for DEL", []string{"CNI_COMMAND=DEL", "CNI_CONTAINERID=x", "CNI_IFNAME=eth0"}, conf("1.0.0", ""), types.ErrInvalidEnvironmentVariables, "CNI_PATH"},
		{"invalid CNI_IFNAME", cniEnv("ADD", "CNI_IFNAME=a/b"), conf("1.0.0", ""), types.ErrInvalidEnvironmentVariables, "interface name"},
		{"unknown CNI_COMMAND", cniEnv("FROB"), conf("1.0.0", ""), types.ErrInvalidEnvironmentVariables, "FROB"},
		{"CHECK needs 0.4.0", cniEnv("CHECK"), conf("0.3.1", ""), types.ErrIncompatibleCNIVersion, "CHECK"},
		{"GC needs 1.1.0", cniEnv("GC"), conf("1.0.0", ""), types.ErrIncompatibleCNIVersion, "GC"},
		{"CHECK without prevResult", cniEnv("CHECK"), conf("1.0.0", ""), types.ErrInvalidNetworkConfig, "prevResult"},
		{"no subnet file yet", cniEnv("ADD"), conf("1.0.0", ""), types.ErrTryAgainLater, "the node agent has not written the node's subnet yet (is it running?)"},
		{"STATUS without subnet file", cniEnv("STATUS"), conf("1.1.0", ""), types.ErrPluginNotAvailable, "is it running?"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := runPlugin(t, tc.env, tc.stdin)
			if r.exitCode == 0 {
				t.Fatalf("exit status 0, stdout %s", r.stdout)
			}
			var e types.Error
			dec := json.NewDecoder(bytes.NewReader(r.stdout))
			dec.DisallowUnknownFields()
			if err := dec.Decode(&e); err != nil {
				t.Fatalf("stdout is not the spec's error JSON: %v\n%s", err, r.stdout)
			}
			if e.Code != tc.code || !strings.Contains(e.Error(), tc.contains) || e.Msg == "" {
				t.Fatalf("error code %d %q, want code %d containing %q", e.Code, e.Error(), tc.code, tc.contains)
			}
		})
	}
}

func TestBinaryVersionAndAbout(t *testing.T) {
	r := runPlugin(t, []string{"CNI_COMMAND=VERSION"}, nil)
	if r.exitCode != 0 {
		t.Fatalf("VERSION: exit %d, %s", r.exitCode, r.stdout)
	}
	info, err := (&version.PluginDecoder{}).Decode(r.stdout)
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(info.SupportedVersions(), ","); got != "0.3.0,0.3.1,0.4.0,1.0.0,1.1.0" {
		t.Fatalf("supported versions %s", got)
	}
	// Run by hand without CNI_COMMAND: the about text on stderr, exit 0.
	r = runPlugin(t, nil, nil)
	if r.exitCode != 0 || !strings.Contains(string(r.stderr), "kubik-cni") || len(r.stdout) != 0 {
		t.Fatalf("no CNI_COMMAND: exit %d, stdout %q, stderr %q", r.exitCode, r.stdout, r.stderr)
	}
}

// TestBinaryDelWithoutNetns: DEL needs neither root nor the namespace when
// the pod's netns is already gone.
func TestBinaryDelWithoutNetns(t *testing.T) {
	dir := t.TempDir()
	conf := fmt.Sprintf(`{"cniVersion":"1.0.0","name":"kubik","type":"kubik-cni","subnetFile":"/nonexistent","dataDir":%q}`, dir)
	for i := 0; i < 2; i++ {
		r := runPlugin(t, cniEnv("DEL"), []byte(conf))
		if r.exitCode != 0 || len(r.stdout) != 0 {
			t.Fatalf("DEL %d: exit %d, stdout %s", i, r.exitCode, r.stdout)
		}
	}
}

func TestBinaryInvalidSubnetFile(t *testing.T) {
	dir := t.TempDir()
	subnetFile := filepath.Join(dir, "subnet.env")
	if err := os.WriteFile(subnetFile, []byte("KUBIK_SUBNET=10.244.1.0/33\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	conf := fmt.Sprintf(`{"cniVersion":"1.0.0","name":"kubik","type":"kubik-cni","subnetFile":%q,"dataDir":%q}`, subnetFile, dir)
	r := runPlugin(t, cniEnv("ADD"), []byte(conf))
	var e types.Error
	if err := json.Unmarshal(r.stdout, &e); err != nil || r.exitCode == 0 {
		t.Fatalf("exit %d, stdout %s: %v", r.exitCode, r.stdout, err)
	}
	if e.Code != kubikcni.ErrInvalidSubnetFile || !strings.Contains(e.Error(), "KUBIK_SUBNET") {
		t.Fatalf("error %d %q, want code %d naming KUBIK_SUBNET", e.Code, e.Error(), kubikcni.ErrInvalidSubnetFile)
	}
}
