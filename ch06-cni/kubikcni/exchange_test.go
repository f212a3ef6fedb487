package kubikcni_test

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/containernetworking/cni/libcni"
	"github.com/containernetworking/cni/pkg/invoke"
	current "github.com/containernetworking/cni/pkg/types/100"
	"github.com/containernetworking/cni/pkg/version"
)

var updateExchange = flag.Bool("update-exchange", false, "rewrite testdata/exchange-add.txt from a real ADD")

// recordingExec is libcni's default exec with a tap: it keeps the
// environment, stdin, stdout and stderr of kubik-cni's ADD.
type recordingExec struct {
	*invoke.DefaultExec
	env            []string
	stdin, stdout  []byte
	stderr         bytes.Buffer
	pluginPath     string
	recordedAnyAdd bool
}

func newRecordingExec() *recordingExec {
	r := &recordingExec{}
	r.DefaultExec = &invoke.DefaultExec{RawExec: &invoke.RawExec{Stderr: &r.stderr}, PluginDecoder: version.PluginDecoder{}}
	return r
}

func (r *recordingExec) ExecPlugin(ctx context.Context, pluginPath string, stdin []byte, environ []string) ([]byte, error) {
	out, err := r.DefaultExec.ExecPlugin(ctx, pluginPath, stdin, environ)
	if filepath.Base(pluginPath) == "kubik-cni" && contains(environ, "CNI_COMMAND=ADD") {
		r.recordedAnyAdd = true
		r.pluginPath, r.stdin, r.stdout = pluginPath, stdin, out
		for _, kv := range environ {
			if strings.HasPrefix(kv, "CNI_") {
				r.env = append(r.env, kv)
			}
		}
	}
	return out, err
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// TestCaptureExchange performs one ADD as containerd's CRI plugin does it
// (libcni, with the CNI_ARGS the CRI plugin sets) and checks the exchange;
// with -update-exchange it writes it to testdata/exchange-add.txt for the
// chapter's text.
func TestCaptureExchange(t *testing.T) {
	n := newNode(t, "1.0.0", "10.244.1.0/24", 1500, "")
	rec := newRecordingExec()
	n.cni = libcni.NewCNIConfigWithCacheDir([]string{binDir}, filepath.Join(n.dir, "cni-cache"), rec)
	pod := n.newPod()

	idBytes := make([]byte, 32)
	rand.Read(idBytes)
	sandboxID := hex.EncodeToString(idBytes)
	r := rt(sandboxID, pod)
	// What containerd 1.6's CRI passes for a pod default/web-1.
	r.Args = [][2]string{
		{"IgnoreUnknown", "1"},
		{"K8S_POD_NAMESPACE", "default"},
		{"K8S_POD_NAME", "web-1"},
		{"K8S_POD_INFRA_CONTAINER_ID", sandboxID},
		{"K8S_POD_UID", "7c3f2d0e-4b1a-4e8e-9a57-0d3c1f6b2a90"},
	}
	ctx, cancel := n.ctx()
	defer cancel()
	if err := n.do(func() error { _, err := n.cni.AddNetworkList(ctx, n.list, r); return err }); err != nil {
		t.Fatalf("ADD: %v", err)
	}
	t.Cleanup(func() { n.do(func() error { return n.cni.DelNetworkList(context.Background(), n.list, r) }) })

	if !rec.recordedAnyAdd {
		t.Fatal("no ADD of kubik-cni was executed")
	}
	var stdinConf map[string]any
	if err := json.Unmarshal(rec.stdin, &stdinConf); err != nil || stdinConf["name"] != networkName || stdinConf["type"] != "kubik-cni" {
		t.Fatalf("stdin %s: %v", rec.stdin, err)
	}
	res, err := current.NewResult(rec.stdout)
	if err != nil {
		t.Fatalf("stdout is not a 1.0.0 result: %v\n%s", err, rec.stdout)
	}
	if len(res.(*current.Result).IPs) != 1 {
		t.Fatalf("result: %s", rec.stdout)
	}
	for _, want := range []string{"CNI_COMMAND=ADD", "CNI_CONTAINERID=" + sandboxID, "CNI_NETNS=" + pod.Path(), "CNI_IFNAME=eth0", "CNI_PATH=" + binDir} {
		if !contains(rec.env, want) {
			t.Fatalf("environment lacks %s: %v", want, rec.env)
		}
	}

	if !*updateExchange {
		return
	}
	// The test's temporary directories stand for the node's paths.
	shorten := strings.NewReplacer(binDir, "$BIN_DIR", n.dir, "$NODE_DIR").Replace
	var b strings.Builder
	fmt.Fprintf(&b, "# One CNI ADD of kubik-cni, executed by libcni (the library containerd's CRI plugin uses)\n")
	fmt.Fprintf(&b, "# from a thread in the node's network namespace, with the CNI_ARGS containerd 1.6 passes.\n")
	fmt.Fprintf(&b, "# Captured by: go test ./ch06-cni/kubikcni -run TestCaptureExchange -update-exchange\n")
	fmt.Fprintf(&b, "# $BIN_DIR is the CNI bin_dir, $NODE_DIR the node's state directory (temporary in the test).\n\n")
	fmt.Fprintf(&b, "## exec\n%s\n\n", shorten(rec.pluginPath))
	fmt.Fprintf(&b, "## environment (CNI_* only; the runtime's other variables are passed through)\n")
	for _, kv := range rec.env {
		fmt.Fprintln(&b, shorten(kv))
	}
	var pretty bytes.Buffer
	json.Indent(&pretty, rec.stdin, "", "  ")
	fmt.Fprintf(&b, "\n## stdin (the conflist's plugin entry, with name and cniVersion injected)\n%s\n", shorten(pretty.String()))
	fmt.Fprintf(&b, "\n## stdout (exit status 0)\n%s\n", strings.TrimSpace(string(rec.stdout)))
	fmt.Fprintf(&b, "\n## stderr\n%s", rec.stderr.String())
	if err := os.WriteFile(filepath.Join("testdata", "exchange-add.txt"), []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
}
