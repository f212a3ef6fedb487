package main

import (
	"context"
	"errors"
	"fmt"
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

// This file is the first part: CNI ADD and DEL of kubik-cni against the
// reference bridge + host-local, through libcni as containerd runs them.

type plugin struct {
	name string
	cni  *libcni.CNIConfig // where it finds its binaries
	list *libcni.NetworkConfigList
	add  []time.Duration
	del  []time.Duration
}

func runCNI(n, warmup int, refBin, ourBin string) error {
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

	// The nodes of chapter 6 exec kubik-cni as a link to the chapter's
	// program: the same plugin, but every package of the cluster
	// initialises on each call.
	progDir := filepath.Join(dir, "prog-bin")
	prog := filepath.Join(dir, "prog", "ch06-cni")
	build := exec.Command("go", "build", "-o", prog, "kubik/ch06-cni")
	build.Stdout, build.Stderr = os.Stderr, os.Stderr
	if err := build.Run(); err != nil {
		return fmt.Errorf("building the ch06 program: %w", err)
	}
	if err := os.MkdirAll(progDir, 0o755); err != nil {
		return err
	}
	if err := os.Symlink(prog, filepath.Join(progDir, kubikcni.PluginType)); err != nil {
		return err
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
	progSubnetFile := filepath.Join(dir, "subnet-prog.env")
	if err := kubikcni.WriteSubnetFile(progSubnetFile, kubikcni.SubnetConfig{
		Network: netip.MustParsePrefix("10.244.0.0/16"),
		Subnet:  netip.MustParsePrefix("10.244.3.0/24"),
	}); err != nil {
		return err
	}
	viaProg, err := libcni.ConfListFromBytes(fmt.Appendf(nil, `{"cniVersion":"1.0.0","name":"bench-kubik-prog","plugins":[
		{"type":"kubik-cni","bridge":"kubik1","subnetFile":%q,"dataDir":%q}]}`, progSubnetFile, filepath.Join(dir, "ipam-prog")))
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
	progCNI := libcni.NewCNIConfigWithCacheDir([]string{progDir, refBin}, filepath.Join(dir, "cni-cache"), pluginExec)
	plugins := []*plugin{
		{name: "kubik-cni", cni: cni, list: ours},
		{name: "kubik-cni (the ch06 program)", cni: progCNI, list: viaProg},
		{name: "bridge+host-local " + refVersion(filepath.Join(refBin, "bridge")), cni: cni, list: ref},
	}

	for i := 0; i < warmup+n; i++ {
		// Each plugin goes first, second and last in turn.
		order := append(slices.Clone(plugins[i%len(plugins):]), plugins[:i%len(plugins)]...)
		for _, p := range order {
			add, del, err := cycle(p.cni, node, p.list, fmt.Sprintf("bench%04d", i))
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

// percentile rounds p*len to the nearest rank.
func percentile(ds []time.Duration, p float64) time.Duration {
	s := slices.Clone(ds)
	slices.Sort(s)
	i := int(float64(len(s))*p+0.5) - 1
	return s[min(max(i, 0), len(s)-1)]
}

func report(n int, plugins []*plugin) {
	fmt.Printf("CNI latency through libcni from one node netns, N=%d per plugin, interleaved; %d CPUs, load average %s\n",
		n, runtime.NumCPU(), loadavg())
	fmt.Printf("%-40s %10s %10s %10s %10s %12s %12s\n", "plugin", "ADD p50", "ADD p99", "DEL p50", "DEL p99", "ADD+DEL p50", "ADD+DEL p99")
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
		fmt.Printf("%-40s %10s %10s %10s %10s %12s %12s\n", p.name, ms(v[0]), ms(v[1]), ms(v[2]), ms(v[3]), ms(v[4]), ms(v[5]))
	}
	ref := len(rows) - 1 // the reference is the last row
	for i := 0; i < ref; i++ {
		fmt.Printf("%-40s", "ratio "+plugins[i].name+"/ref")
		for k := 0; k < 6; k++ {
			w := 10
			if k >= 4 {
				w = 12
			}
			fmt.Printf(" %*s", w, fmt.Sprintf("%.2fx", float64(rows[i].v[k])/float64(rows[ref].v[k])))
		}
		if i == 0 {
			fmt.Print("   (target <= 1x)")
		}
		fmt.Println()
	}
}

func ms(d time.Duration) string { return fmt.Sprintf("%.1fms", float64(d)/float64(time.Millisecond)) }
