// Command bench-cni measures CNI ADD and DEL latency of kubik-cni against
// upstream's reference plugins (bridge + host-local, Debian's build in
// /usr/lib/cni) the way containerd's CRI plugin runs them: through libcni,
// from the node's network namespace, one fresh pod netns per ADD. Both run
// interleaved in the same scratch node netns, each with its own bridge and
// subnet, and the same features: a gateway on the bridge, a default route in
// the pod, hairpin mode, no masquerade. Run as root:
//
//	go run ./ch06-cni/cmd/bench-cni -n 100
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"net/netip"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/containernetworking/cni/libcni"
	"github.com/containernetworking/cni/pkg/invoke"
	"github.com/containernetworking/cni/pkg/version"
	"github.com/containernetworking/plugins/pkg/ns"
	"github.com/containernetworking/plugins/pkg/testutils"

	"kubik/ch06-cni/kubikcni"
)

var logger = slog.New(slog.NewTextHandler(os.Stderr, nil)).With("component", "bench-cni")

func main() {
	n := flag.Int("n", 100, "ADD+DEL cycles per plugin")
	warmup := flag.Int("warmup", 3, "unmeasured cycles per plugin first (the first ADD creates the bridge)")
	refBin := flag.String("ref-bin", "/usr/lib/cni", "directory with the reference bridge and host-local plugins")
	ourBin := flag.String("bin", "", "kubik-cni binary (default: go build ./ch06-cni/cmd/kubik-cni)")
	flag.Parse()
	if err := run(*n, *warmup, *refBin, *ourBin); err != nil {
		logger.Error("benchmark failed", "err", err)
		os.Exit(1)
	}
}

type plugin struct {
	name string
	list *libcni.NetworkConfigList
	add  []time.Duration
	del  []time.Duration
}

func run(n, warmup int, refBin, ourBin string) error {
	if os.Geteuid() != 0 {
		return errors.New("needs root: creates network namespaces, bridges and veths")
	}
	for _, p := range []string{"bridge", "host-local"} {
		if _, err := os.Stat(filepath.Join(refBin, p)); err != nil {
			return fmt.Errorf("reference plugin: %w (apt-get install containernetworking-plugins)", err)
		}
	}
	dir, err := os.MkdirTemp("", "kubik-bench-cni-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)

	ourDir := filepath.Join(dir, "bin")
	if ourBin == "" {
		ourBin = filepath.Join(ourDir, kubikcni.PluginType)
		build := exec.Command("go", "build", "-o", ourBin, "kubik/ch06-cni/cmd/kubik-cni")
		build.Stdout, build.Stderr = os.Stderr, os.Stderr
		if err := build.Run(); err != nil {
			return fmt.Errorf("building kubik-cni: %w", err)
		}
	} else {
		if err := os.MkdirAll(ourDir, 0o755); err != nil {
			return err
		}
		abs, err := filepath.Abs(ourBin)
		if err != nil {
			return err
		}
		if err := os.Symlink(abs, filepath.Join(ourDir, kubikcni.PluginType)); err != nil {
			return err
		}
	}

	node, err := testutils.NewNS()
	if err != nil {
		return err
	}
	defer removeNS(node)
	// Clean up on ^C too.
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
	go func() {
		<-sigs
		removeNS(node)
		os.RemoveAll(dir)
		os.Exit(130)
	}()

	subnetFile := filepath.Join(dir, "subnet.env")
	if err := kubikcni.WriteSubnetFile(subnetFile, kubikcni.SubnetConfig{
		Network: netip.MustParsePrefix("10.244.0.0/16"),
		Subnet:  netip.MustParsePrefix("10.244.1.0/24"),
	}); err != nil {
		return err
	}
	ours, err := libcni.ConfListFromBytes(fmt.Appendf(nil, `{"cniVersion":"1.0.0","name":"bench-kubik","plugins":[
		{"type":"kubik-cni","subnetFile":%q,"dataDir":%q}]}`, subnetFile, filepath.Join(dir, "ipam-kubik")))
	if err != nil {
		return err
	}
	ref, err := libcni.ConfListFromBytes(fmt.Appendf(nil, `{"cniVersion":"1.0.0","name":"bench-ref","plugins":[
		{"type":"bridge","bridge":"cni0","isGateway":true,"isDefaultGateway":true,"ipMasq":false,"hairpinMode":true,
		 "ipam":{"type":"host-local","dataDir":%q,"ranges":[[{"subnet":"10.244.2.0/24","gateway":"10.244.2.1"}]]}}]}`,
		filepath.Join(dir, "ipam-ref")))
	if err != nil {
		return err
	}
	pluginExec := &invoke.DefaultExec{RawExec: &invoke.RawExec{Stderr: os.Stderr}, PluginDecoder: version.PluginDecoder{}}
	cni := libcni.NewCNIConfigWithCacheDir([]string{ourDir, refBin}, filepath.Join(dir, "cni-cache"), pluginExec)
	plugins := []*plugin{
		{name: "kubik-cni", list: ours},
		{name: "bridge+host-local " + refVersion(filepath.Join(refBin, "bridge")), list: ref},
	}

	for i := 0; i < warmup+n; i++ {
		order := plugins
		if i%2 == 1 {
			order = []*plugin{plugins[1], plugins[0]}
		}
		for _, p := range order {
			add, del, err := cycle(cni, node, p.list, fmt.Sprintf("bench%04d", i))
			if err != nil {
				return fmt.Errorf("%s cycle %d: %w", p.name, i, err)
			}
			if i >= warmup {
				p.add, p.del = append(p.add, add), append(p.del, del)
			}
		}
	}
	report(n, plugins)
	return nil
}

// cycle ADDs a fresh pod netns and DELs it, timing both.
func cycle(cni *libcni.CNIConfig, node ns.NetNS, list *libcni.NetworkConfigList, id string) (add, del time.Duration, err error) {
	pod, err := testutils.NewNS()
	if err != nil {
		return 0, 0, err
	}
	defer removeNS(pod)
	rt := &libcni.RuntimeConf{ContainerID: id, NetNS: pod.Path(), IfName: "eth0"}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	err = node.Do(func(ns.NetNS) error {
		start := time.Now()
		if _, err := cni.AddNetworkList(ctx, list, rt); err != nil {
			return fmt.Errorf("ADD: %w", err)
		}
		add = time.Since(start)
		start = time.Now()
		if err := cni.DelNetworkList(ctx, list, rt); err != nil {
			return fmt.Errorf("DEL: %w", err)
		}
		del = time.Since(start)
		return nil
	})
	return add, del, err
}

func removeNS(n ns.NetNS) {
	n.Close()
	if err := testutils.UnmountNS(n); err != nil && !errors.Is(err, os.ErrNotExist) {
		logger.Warn("removing a netns", "path", n.Path(), "err", err)
	}
}

// refVersion is the version of the reference plugins: Debian's package
// version (the binaries say "version unknown"), else their about text.
func refVersion(bin string) string {
	if out, err := exec.Command("dpkg-query", "-W", "-f", "${Version}", "containernetworking-plugins").Output(); err == nil && len(out) > 0 {
		return string(out)
	}
	out, _ := exec.Command(bin).CombinedOutput()
	if f := strings.Fields(string(out)); len(f) >= 5 && f[3] == "version" {
		return f[4]
	}
	return ""
}

func percentile(ds []time.Duration, p float64) time.Duration {
	s := slices.Clone(ds)
	slices.Sort(s)
	i := int(float64(len(s))*p+0.5) - 1
	return s[min(max(i, 0), len(s)-1)]
}

func report(n int, plugins []*plugin) {
	fmt.Printf("CNI latency through libcni from one node netns, N=%d per plugin, interleaved; %d CPUs, %s\n",
		n, runtime.NumCPU(), loadavg())
	fmt.Printf("%-34s %10s %10s %10s %10s %12s %12s\n", "plugin", "ADD p50", "ADD p99", "DEL p50", "DEL p99", "ADD+DEL p50", "ADD+DEL p99")
	type row struct{ v [6]time.Duration }
	rows := make([]row, len(plugins))
	for i, p := range plugins {
		both := make([]time.Duration, len(p.add))
		for j := range p.add {
			both[j] = p.add[j] + p.del[j]
		}
		rows[i].v = [6]time.Duration{
			percentile(p.add, .5), percentile(p.add, .99), percentile(p.del, .5), percentile(p.del, .99),
			percentile(both, .5), percentile(both, .99),
		}
		v := rows[i].v
		fmt.Printf("%-34s %10s %10s %10s %10s %12s %12s\n", p.name, ms(v[0]), ms(v[1]), ms(v[2]), ms(v[3]), ms(v[4]), ms(v[5]))
	}
	fmt.Printf("%-34s", "ratio ours/reference")
	for k := 0; k < 6; k++ {
		w := 10
		if k >= 4 {
			w = 12
		}
		fmt.Printf(" %*s", w, fmt.Sprintf("%.2fx", float64(rows[0].v[k])/float64(rows[1].v[k])))
	}
	fmt.Println("   (target <= 1x)")
}

func ms(d time.Duration) string { return fmt.Sprintf("%.1fms", float64(d)/float64(time.Millisecond)) }

func loadavg() string {
	data, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return ""
	}
	f := strings.Fields(string(data))
	return "load average " + strings.Join(f[:3], " ")
}
