package main

// The in-process benchmark (-direct): our proxiers driven directly, with
// no apiserver and no other process, in a scratch network namespace; with
// -cpuprofile it profiles the one-change syncs. It reports the time nft
// itself spent (nftables mode), which the side-by-side run cannot see.

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"os/exec"
	"runtime/pprof"
	"strings"
	"time"

	"github.com/containernetworking/plugins/pkg/ns"

	"kubik/ch01-apiserver/api/corev1"
	"kubik/ch01-apiserver/api/discoveryv1"
	"kubik/ch01-apiserver/api/metav1"
	"kubik/ch07-kube-proxy/proxy"
	"kubik/ch07-kube-proxy/proxy/healthcheck"
	"kubik/ch07-kube-proxy/proxy/iptables"
	"kubik/ch07-kube-proxy/proxy/nftables"
	"kubik/ch07-kube-proxy/proxy/nftables/nft"
	proxyutil "kubik/ch07-kube-proxy/proxy/util"
)

// timedNFT measures the time spent in nft itself (or in the netlink
// batches that replace it on partial syncs).
type timedNFT struct {
	nft.Interface
	runTime, listTime time.Duration
	deleteTime        time.Duration // chains deleted over netlink
	runs              int
	lastOps           int
	// The real Interface's counts of transactions by path, at the last report.
	netlinkBefore, nftBefore int
}

func (t *timedNFT) Run(ctx context.Context, tx *nft.Transaction) error {
	start := time.Now()
	defer func() { t.runTime += time.Since(start); t.runs++ }()
	t.lastOps = tx.NumOperations()
	return t.Interface.Run(ctx, tx)
}

func (t *timedNFT) DeleteChains(ctx context.Context, names []string) error {
	start := time.Now()
	defer func() { t.deleteTime += time.Since(start) }()
	return t.Interface.DeleteChains(ctx, names)
}

func (t *timedNFT) ListAll(ctx context.Context) (map[string][]string, error) {
	start := time.Now()
	defer func() { t.listTime += time.Since(start) }()
	return t.Interface.ListAll(ctx)
}

func (t *timedNFT) ListElements(ctx context.Context, typ, name string) ([]*nft.Element, error) {
	start := time.Now()
	defer func() { t.listTime += time.Since(start) }()
	return t.Interface.ListElements(ctx, typ, name)
}

func (t *timedNFT) reset() { t.runTime, t.listTime, t.deleteTime, t.runs = 0, 0, 0, 0 }

// syncer is what the benchmark drives: the informer handlers and a sync.
type syncer interface {
	proxy.Provider
	SyncProxyRules() error
}

var profilePath string

func service(i int) *corev1.Service {
	return &corev1.Service{ObjectMeta: metav1.ObjectMeta{Namespace: "bench", Name: fmt.Sprintf("svc-%d", i)},
		Spec: corev1.ServiceSpec{Type: corev1.ServiceTypeClusterIP, ClusterIP: fmt.Sprintf("10.96.%d.%d", i/250, i%250+1),
			Ports: []corev1.ServicePort{{Name: "http", Port: 80, Protocol: corev1.ProtocolTCP}}}}
}

func slice(i, generation int) *discoveryv1.EndpointSlice {
	name, port, proto, ready := "http", int32(8080), corev1.ProtocolTCP, true
	s := &discoveryv1.EndpointSlice{ObjectMeta: metav1.ObjectMeta{Namespace: "bench", Name: fmt.Sprintf("svc-%d-1", i),
		Labels: map[string]string{discoveryv1.LabelServiceName: fmt.Sprintf("svc-%d", i)}},
		AddressType: discoveryv1.AddressTypeIPv4,
		Ports:       []discoveryv1.EndpointPort{{Name: &name, Port: &port, Protocol: &proto}}}
	for e := 0; e < 2; e++ {
		ip := fmt.Sprintf("10.%d.%d.%d", 128+(2*i+e+generation)/62500%100, (2*i+e+generation)/250%250, (2*i+e+generation)%250+1)
		s.Endpoints = append(s.Endpoints, discoveryv1.Endpoint{Addresses: []string{ip}, Conditions: discoveryv1.EndpointConditions{Ready: &ready}})
	}
	return s
}

func mustRun(args ...string) string {
	out, err := exec.Command(args[0], args[1:]...).CombinedOutput()
	if err != nil {
		fmt.Fprintf(os.Stderr, "%s: %v\n%s", strings.Join(args, " "), err, out)
		os.Exit(1)
	}
	return string(out)
}

func benchDirect(mode string, n int) error {
	name := fmt.Sprintf("kubik-pbench-%d", os.Getpid())
	mustRun("ip", "netns", "add", name)
	defer exec.Command("ip", "netns", "del", name).Run()
	netns, err := ns.GetNS("/run/netns/" + name)
	if err != nil {
		return err
	}
	defer netns.Close()
	log := slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))

	return netns.Do(func(ns.NetNS) error {
		var p syncer
		var timed *timedNFT
		nftTime := func() string {
			if timed == nil {
				return ""
			}
			defer timed.reset()
			how := ""
			if c, ok := timed.Interface.(interface{ Transactions() (int, int) }); ok {
				overNetlink, byNFT := c.Transactions()
				how = fmt.Sprintf(": %d over netlink, %d by nft -f", overNetlink-timed.netlinkBefore, byNFT-timed.nftBefore)
				timed.netlinkBefore, timed.nftBefore = overNetlink, byNFT
			}
			return fmt.Sprintf(" (%d transactions %s%s; nft list %s, chain deletions %s)", timed.runs, timed.runTime.Round(time.Millisecond), how,
				timed.listTime.Round(time.Millisecond), timed.deleteTime.Round(time.Millisecond))
		}
		common := func() (proxyutil.LocalTrafficDetector, healthcheck.ServiceHealthServer) {
			return proxyutil.NewDetectLocalByCIDR("10.128.0.0/9"), healthcheck.FakeServiceHealthServer{}
		}
		det, hs := common()
		switch mode {
		case "iptables":
			ipt, err := iptables.New()
			if err != nil {
				return err
			}
			p, err = iptables.NewProxier(iptables.Config{IPTables: ipt, SyncPeriod: 30 * time.Second, MasqueradeBit: 14,
				LocalhostNodePorts: true, LocalDetector: det, NodeName: "node-1", ServiceHealthServer: hs, Logger: log})
			if err != nil {
				return err
			}
		case "nftables":
			real, err := nft.New(nft.IPv4Family, "kube-proxy")
			if err != nil {
				return err
			}
			timed = &timedNFT{Interface: real}
			p, err = nftables.NewProxier(nftables.Config{NFTables: timed, SyncPeriod: 30 * time.Second, MasqueradeBit: 14,
				LocalDetector: det, NodeName: "node-1", NodePortAddresses: []string{"10.240.0.11/32"}, ServiceHealthServer: hs, Logger: log})
			if err != nil {
				return err
			}
		default:
			return fmt.Errorf("unknown mode %q", mode)
		}
		for i := 0; i < n; i++ {
			p.OnServiceAdd(service(i))
			p.OnEndpointSliceAdd(slice(i, 0))
		}
		start := time.Now()
		p.OnServiceSynced() // not initialized yet: no sync
		p.OnEndpointSlicesSynced()
		full := time.Since(start)
		fullDetail := nftTime()

		// One Service's endpoints change; time until the kernel has it.
		var one time.Duration
		const rounds = 5
		if profilePath != "" {
			f, err := os.Create(profilePath)
			if err != nil {
				return err
			}
			defer f.Close()
			if err := pprof.StartCPUProfile(f); err != nil {
				return err
			}
		}
		for r := 1; r <= rounds; r++ {
			// More than a second apart, as in the side-by-side run: each
			// sync then also deletes the chains the previous one left stale.
			time.Sleep(1100 * time.Millisecond)
			p.OnEndpointSliceUpdate(slice(n/2, r-1), slice(n/2, r))
			start = time.Now()
			if err := p.SyncProxyRules(); err != nil {
				return err
			}
			one += time.Since(start)
		}
		one /= rounds
		if profilePath != "" {
			pprof.StopCPUProfile()
		}
		oneDetail := nftTime()

		// A forced full resync (what a topology change or a flush causes).
		p.OnTopologyChange(map[string]string{"topology.kubernetes.io/zone": "a"})
		start = time.Now()
		if err := p.SyncProxyRules(); err != nil {
			return err
		}
		resync := time.Since(start)
		resyncDetail := nftTime()

		var count int
		if mode == "iptables" {
			for _, l := range strings.Split(mustRun("iptables-save"), "\n") {
				if strings.HasPrefix(l, "-A ") {
					count++
				}
			}
		} else {
			count = strings.Count(mustRun("nft", "list", "table", "ip", "kube-proxy"), "\n")
		}
		unit := "rules"
		if mode == "nftables" {
			unit = "table lines"
		}
		fmt.Printf("%-8s services=%-6d %s=%d\n  first sync      %s%s\n  one-change sync %s%s (average of %d)\n  full resync     %s%s\n",
			mode, n, unit, count, full.Round(time.Millisecond), fullDetail, one.Round(time.Millisecond), oneDetail, rounds,
			resync.Round(time.Millisecond), resyncDetail)
		return nil
	})
}
