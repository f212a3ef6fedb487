//go:build linux

package main_test

// Our kube-proxy's rules against upstream kube-proxy v1.35.4's, for the
// fixed Services of testdata/rules/services.yaml:
//
//   - always: ours (node-1's kube-proxy in the cluster), normalised and cut
//     down to the namespace "rules", must equal the golden recorded from
//     upstream (testdata/rules/<mode>.golden);
//   - when upstream's binary is built (make ref-build): upstream
//     kube-proxy runs against the cluster's apiserver in a network
//     namespace of its own that looks like node-1 to it (the same name,
//     the same eth0 address), and its whole dump must equal ours; its
//     health-check node port must answer as ours does. With -update-rules
//     its dumps are written to the goldens.

import (
	"context"
	"flag"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

var updateRules = flag.Bool("update-rules", false, "record upstream kube-proxy's normalised rules into testdata/rules/*.golden (needs the ref binary: make ref-build)")

var requireUpstream = flag.Bool("require-upstream", false, "fail, rather than compare with the golden only, when upstream kube-proxy is not built (the live comparison of make compare-proxy)")

// refKubeProxy is upstream's binary as make ref-build leaves it.
var refKubeProxy = filepath.Join("..", ".kubik", "ref", "bin", "kube-proxy")

// dumpRules is the rule dump kube-proxy's mode is compared by, from
// network namespace netns: iptables-save, or nft list ruleset.
func dumpRules(mode, netns string) (string, error) {
	args := []string{"netns", "exec", netns, "iptables-save"}
	if mode == "nftables" {
		args = []string{"netns", "exec", netns, "nft", "list", "ruleset"}
	}
	out, err := exec.Command("ip", args...).Output()
	if err != nil {
		return "", fmt.Errorf("ip %s: %v", strings.Join(args, " "), err)
	}
	return string(out), nil
}

// normalizedRules is dumpRules normalised (keepNS "" keeps every Service).
func normalizedRules(mode, netns, keepNS string) (string, error) {
	dump, err := dumpRules(mode, netns)
	if err != nil {
		return "", err
	}
	if mode == "nftables" {
		return normalizeNFT(dump, keepNS)
	}
	return normalizeIPTables(dump, keepNS)
}

func testRulesMatchUpstream(t *testing.T, c *testCluster) {
	manifest, err := os.ReadFile(filepath.Join("testdata", "rules", "services.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	c.apply(t, string(manifest))
	t.Cleanup(func() { c.kubectlErr("delete", "namespace", rulesNamespace, "--wait=false") })
	// The load balancer's address, as a cloud controller would write it.
	c.k(t, "patch", "service", "lb-local", "-n", rulesNamespace, "--subresource=status", "--type=merge",
		"-p", `{"status":{"loadBalancer":{"ingress":[{"ip":"203.0.113.10"}]}}}`)

	golden := filepath.Join("testdata", "rules", c.mode+".golden")
	node1 := c.nodes[0].netns
	synced := func(rules string) bool {
		// The last change, the load balancer's address, is in.
		return strings.Contains(rules, "203.0.113.10") && strings.Contains(rules, "rules/multiport")
	}

	if _, err := os.Stat(refKubeProxy); err == nil {
		t.Run("live", func(t *testing.T) { compareLive(t, c, golden, synced) })
	} else if *requireUpstream {
		t.Fatalf("upstream kube-proxy not built (%s): `make ref-build` builds it", refKubeProxy)
	} else {
		t.Logf("upstream kube-proxy not built (%s): comparing with the golden only; `make ref-build` builds it", refKubeProxy)
	}

	t.Run("golden", func(t *testing.T) {
		want, err := os.ReadFile(golden)
		if err != nil {
			t.Fatalf("%v (record it: sudo go test ./ch07-kube-proxy -run 'Mode/rules' -update-rules, after make ref-build)", err)
		}
		var ours string
		eventually(t, "node-1's kube-proxy to have the rules Services", func() (string, bool) {
			ours, err = normalizedRules(c.mode, node1, rulesNamespace)
			return ours, err == nil && synced(ours)
		})
		// A sync may still be on its way: compare until equal, then report.
		deadline := time.Now().Add(30 * time.Second)
		for ours != string(want) && time.Now().Before(deadline) {
			time.Sleep(time.Second)
			ours, _ = normalizedRules(c.mode, node1, rulesNamespace)
		}
		if ours != string(want) {
			t.Errorf("node-1's %s rules for namespace %q differ from upstream kube-proxy's (%s):\n%s", c.mode, rulesNamespace, golden, lineDiff(string(want), ours))
		}
	})
}

// compareLive runs upstream kube-proxy as node-1 in a namespace of its own
// and compares its rules and its health-check node port with ours.
func compareLive(t *testing.T, c *testCluster, golden string, synced func(string) bool) {
	ref := newRefNode(t, c.nodes[0].ip)
	relay := relayInto(t, ref, "127.0.0.1:"+strconv.Itoa(c.api.Port))
	kubeconfig := filepath.Join(t.TempDir(), "ref-kube-proxy.kubeconfig")
	if out, err := exec.Command(c.bin, "kubeconfig", "--data-dir", c.dir, "--component", "kube-proxy",
		"--server", "https://"+relay, "--out", kubeconfig).CombinedOutput(); err != nil {
		t.Fatalf("kubeconfig: %v\n%s", err, out)
	}
	// The flags of our nodes' kube-proxy (cluster7's nodeConfig); the
	// conntrack ones keep upstream off the conntrack sysctls, which are
	// global on this kernel, not per network namespace.
	args := []string{"netns", "exec", ref, refKubeProxy, "--kubeconfig", kubeconfig, "--proxy-mode", c.mode,
		"--cluster-cidr", clusterCIDR, "--hostname-override", c.nodes[0].name, "--bind-address", c.nodes[0].ip,
		"--conntrack-max-per-core", "0", "--conntrack-min", "0",
		"--conntrack-tcp-timeout-established", "0", "--conntrack-tcp-timeout-close-wait", "0", "--v", "2"}
	logPath := filepath.Join(t.TempDir(), "ref-kube-proxy.log")
	logf, err := os.Create(logPath)
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("ip", args...)
	cmd.Stdout, cmd.Stderr = logf, logf
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() { cmd.Wait(); logf.Close(); close(done) }()
	t.Cleanup(func() {
		cmd.Process.Signal(syscall.SIGTERM)
		select {
		case <-done:
		case <-time.After(30 * time.Second):
			cmd.Process.Kill()
			<-done
		}
		if t.Failed() {
			t.Logf("upstream kube-proxy's log:\n%s", tail(logPath, 60))
		}
	})

	var theirs, ours string
	eventually(t, "upstream kube-proxy's rules", func() (string, bool) {
		theirs, err = normalizedRules(c.mode, ref, "")
		return theirs + "\n" + tail(logPath, 10), err == nil && synced(theirs)
	})
	// Both follow the same objects; compare until they agree (a sync of
	// either may be on its way), then report.
	same := false
	deadline := time.Now().Add(60 * time.Second)
	for !same && time.Now().Before(deadline) {
		theirs, _ = normalizedRules(c.mode, ref, "")
		ours, _ = normalizedRules(c.mode, c.nodes[0].netns, "")
		if same = theirs == ours; !same {
			time.Sleep(time.Second)
		}
	}
	if !same {
		t.Errorf("%s rules of node-1 differ from upstream kube-proxy's (- upstream, + ours):\n%s", c.mode, lineDiff(theirs, ours))
	}

	// The health-check node port of the Local load balancer: node-1 has one
	// local endpoint.
	hc := "http://" + c.nodes[0].ip + ":30203/"
	var theirHC, ourHC string
	eventually(t, "both health-check node ports", func() (string, bool) {
		theirHC, err = curlHeaders(ref, hc)
		if err != nil {
			return err.Error(), false
		}
		ourHC, err = curlHeaders(c.nodes[0].netns, hc)
		return theirHC + ourHC, err == nil && theirHC == ourHC
	})
	if !strings.Contains(ourHC, `"localEndpoints": 1`) || !strings.HasPrefix(ourHC, "HTTP/1.1 200 OK") {
		t.Errorf("health-check node port of a node with a local endpoint:\n%s", ourHC)
	}

	if *updateRules {
		for _, keep := range []string{rulesNamespace} {
			theirs, err := normalizedRules(c.mode, ref, keep)
			if err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(golden, []byte(theirs), 0o644); err != nil {
				t.Fatal(err)
			}
			t.Logf("wrote %s", golden)
		}
	}
}

var dateHeader = regexp.MustCompile(`(?m)^Date: .*\r?\n`)

// curlHeaders is the whole response (status line, headers, body) of url
// from netns, without the Date header.
func curlHeaders(netns, url string) (string, error) {
	out, err := exec.Command("ip", "netns", "exec", netns, "curl", "-sS", "-i", "--max-time", "10", url).CombinedOutput()
	if err != nil {
		return string(out), fmt.Errorf("curl %s: %v: %s", url, err, out)
	}
	return strings.ReplaceAll(dateHeader.ReplaceAllString(string(out), ""), "\r", ""), nil
}

// newRefNode makes a network namespace that looks like the node with
// address ip to a kube-proxy running in it: lo, and an eth0 (one end of a
// veth pair whose other end stays inside too) with the node's address. It
// is connected to nothing.
func newRefNode(t *testing.T, ip string) string {
	t.Helper()
	name := fmt.Sprintf("kubik-ref-%d-%d", os.Getpid(), time.Now().UnixNano()%100000)
	run := func(args ...string) {
		t.Helper()
		if out, err := exec.Command(args[0], args[1:]...).CombinedOutput(); err != nil {
			t.Fatalf("%s: %v\n%s", strings.Join(args, " "), err, out)
		}
	}
	run("ip", "netns", "add", name)
	t.Cleanup(func() { exec.Command("ip", "netns", "del", name).Run() })
	run("ip", "-n", name, "link", "add", "eth0", "type", "veth", "peer", "name", "eth0-peer")
	run("ip", "-n", name, "addr", "add", ip+"/24", "dev", "eth0")
	for _, l := range []string{"lo", "eth0", "eth0-peer"} {
		run("ip", "-n", name, "link", "set", l, "up")
	}
	return name
}

// relayInto listens on 127.0.0.1 inside network namespace netns and relays
// every connection to target, dialled from this process's own namespace:
// how a process in netns reaches the apiserver on the host's loopback. It
// returns the listening address (inside netns); the listener closes when
// the test ends.
func relayInto(t *testing.T, netns, target string) string {
	t.Helper()
	type result struct {
		l   net.Listener
		err error
	}
	ch := make(chan result, 1)
	go func() {
		// The thread enters netns and is never reused (no UnlockOSThread):
		// the socket made here stays in netns.
		runtime.LockOSThread()
		f, err := os.Open("/run/netns/" + netns)
		if err != nil {
			ch <- result{nil, err}
			return
		}
		defer f.Close()
		if err := unix.Setns(int(f.Fd()), unix.CLONE_NEWNET); err != nil {
			ch <- result{nil, err}
			return
		}
		l, err := net.Listen("tcp", "127.0.0.1:0")
		ch <- result{l, err}
	}()
	r := <-ch
	if r.err != nil {
		t.Fatal(r.err)
	}
	var wg sync.WaitGroup
	t.Cleanup(func() { r.l.Close(); wg.Wait() })
	wg.Go(func() {
		for {
			in, err := r.l.Accept()
			if err != nil {
				return
			}
			go func() {
				defer in.Close()
				d := net.Dialer{Timeout: 10 * time.Second}
				out, err := d.DialContext(context.Background(), "tcp", target)
				if err != nil {
					return
				}
				defer out.Close()
				go func() { io.Copy(out, in); out.(*net.TCPConn).CloseWrite() }()
				io.Copy(in, out)
			}()
		}
	})
	return r.l.Addr().String()
}

// lineDiff shows the lines only in a ("-") and only in b ("+"), in order.
func lineDiff(a, b string) string {
	al, bl := strings.Split(a, "\n"), strings.Split(b, "\n")
	inA, inB := map[string]int{}, map[string]int{}
	for _, l := range al {
		inA[l]++
	}
	for _, l := range bl {
		inB[l]++
	}
	var out strings.Builder
	for _, l := range al {
		if inB[l] == 0 {
			fmt.Fprintf(&out, "- %s\n", l)
		} else {
			inB[l]--
		}
	}
	for _, l := range bl {
		if inA[l] == 0 {
			fmt.Fprintf(&out, "+ %s\n", l)
		} else {
			inA[l]--
		}
	}
	if out.Len() == 0 {
		return "(the same lines in another order)\n--- a:\n" + a + "\n--- b:\n" + b
	}
	return out.String()
}
