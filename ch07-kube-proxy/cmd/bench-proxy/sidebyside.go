package main

// One proxier process on its node, measured.

import (
	"bufio"
	"context"
	"fmt"
	"math"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"kubik/internal/testenv"
)

// result is one proxier in one mode at one Service count.
type result struct {
	who, mode     string // "ours" or "upstream"
	services      int
	start         time.Duration // process start → first sync in the kernel
	firstSync     time.Duration // that sync's own duration
	oneChange     time.Duration // endpoint change request → its sync finished (mean)
	oneChangeSync time.Duration // that sync's own duration (mean)
	resync        time.Duration // a full resync's duration
	rules         int
	err           error
}

// medianResult is the median of each measurement over runs of one
// proxier (the first failed run, if any run failed).
func medianResult(runs []result) result {
	for _, r := range runs {
		if r.err != nil {
			return r
		}
	}
	r := runs[0]
	median := func(get func(result) time.Duration) time.Duration {
		v := make([]time.Duration, len(runs))
		for i, x := range runs {
			v[i] = get(x)
		}
		slices.Sort(v)
		return v[len(v)/2]
	}
	r.start = median(func(x result) time.Duration { return x.start })
	r.firstSync = median(func(x result) time.Duration { return x.firstSync })
	r.oneChange = median(func(x result) time.Duration { return x.oneChange })
	r.oneChangeSync = median(func(x result) time.Duration { return x.oneChangeSync })
	r.resync = median(func(x result) time.Duration { return x.resync })
	return r
}

// syncMetrics are the IPv4 sync metrics of a proxier.
type syncMetrics struct {
	count, sum, full, last float64
	ok                     bool
}

var wantMetrics = map[string]bool{
	"kubeproxy_sync_proxy_rules_duration_seconds_count":      true,
	"kubeproxy_sync_proxy_rules_duration_seconds_sum":        true,
	"kubeproxy_sync_full_proxy_rules_duration_seconds_count": true,
	"kubeproxy_sync_proxy_rules_last_timestamp_seconds":      true,
}

// readMetrics reads them from /metrics (upstream labels them
// ip_family="IPv4"/"IPv6", ours has one family and no label).
func readMetrics(hc *http.Client) (syncMetrics, error) {
	resp, err := hc.Get("http://127.0.0.1:10249/metrics")
	if err != nil {
		return syncMetrics{}, err
	}
	defer resp.Body.Close()
	var m syncMetrics
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		if line == "" || line[0] == '#' {
			continue
		}
		name, rest, ok := strings.Cut(line, " ")
		if !ok {
			continue
		}
		if i := strings.IndexByte(name, '{'); i >= 0 {
			// The labels may contain spaces only inside quotes; ours have none.
			labels := name[i:]
			if j := strings.IndexByte(line, '}'); j > 0 {
				labels, rest = line[i:j+1], strings.TrimSpace(line[j+1:])
			}
			if !strings.Contains(labels, `ip_family="IPv4"`) {
				continue
			}
			name = name[:i]
		}
		if !wantMetrics[name] {
			continue
		}
		v, err := strconv.ParseFloat(strings.TrimSpace(rest), 64)
		if err != nil {
			continue
		}
		switch name {
		case "kubeproxy_sync_proxy_rules_duration_seconds_count":
			m.count = v
		case "kubeproxy_sync_proxy_rules_duration_seconds_sum":
			m.sum = v
		case "kubeproxy_sync_full_proxy_rules_duration_seconds_count":
			m.full = v
		case "kubeproxy_sync_proxy_rules_last_timestamp_seconds":
			m.last, m.ok = v, true
		}
	}
	return m, sc.Err()
}

func secs(f float64) time.Duration { return time.Duration(f * float64(time.Second)) }

// since is the time from t to the metric timestamp ts (seconds since the
// epoch).
func since(t time.Time, ts float64) time.Duration {
	return secs(ts - float64(t.UnixNano())/1e9)
}

// waitMetrics polls until cond holds; the limit only turns a stuck proxier
// into an error.
func waitMetrics(ctx context.Context, hc *http.Client, p *testenv.Proc, what string, cond func(syncMetrics) bool) (syncMetrics, error) {
	deadline := time.Now().Add(10 * time.Minute)
	for {
		m, err := readMetrics(hc)
		if err == nil && m.ok && cond(m) {
			return m, nil
		}
		switch {
		case ctx.Err() != nil:
			return m, ctx.Err()
		case p.Exited():
			return m, fmt.Errorf("the proxier exited while waiting for %s (log: %s)", what, p.LogPath)
		case time.Now().After(deadline):
			return m, fmt.Errorf("waiting for %s: no sync within 10 minutes (log: %s)", what, p.LogPath)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// measure runs one proxier binary on a fresh node with the apiserver's n
// Services and measures it.
func measure(ctx context.Context, dir string, a *apiserver, mode, who, bin string, n int, generation *int) (r result) {
	r = result{who: who, mode: mode, services: n}
	nd, err := newNode(fmt.Sprintf("kubik-pbench-%d-%s", os.Getpid(), who))
	if err != nil {
		r.err = err
		return r
	}
	defer nd.remove()
	relay, err := nd.startRelay("127.0.0.1:" + strconv.Itoa(a.port))
	if err != nil {
		r.err = err
		return r
	}
	base := filepath.Join(dir, fmt.Sprintf("%s-%s-%d", who, mode, n))
	kubeconfig := base + ".kubeconfig"
	if err := a.kubeconfig("kube-proxy", "https://"+relay, kubeconfig); err != nil {
		r.err = err
		return r
	}
	// The same flags for both: the chapter's node flags, a sync period long
	// enough not to fire during the run, and upstream's conntrack sizing off
	// (those sysctls are global on this kernel, not per namespace).
	args := []string{"netns", "exec", nd.name, bin, "--kubeconfig", kubeconfig, "--proxy-mode", mode,
		"--hostname-override", nodeName, "--bind-address", nodeIP, "--cluster-cidr", clusterCIDR,
		"--iptables-sync-period", "1h", "--metrics-bind-address", "127.0.0.1:10249", "--healthz-bind-address", "127.0.0.1:10256",
		"--conntrack-max-per-core", "0", "--conntrack-min", "0",
		"--conntrack-tcp-timeout-established", "0", "--conntrack-tcp-timeout-close-wait", "0"}
	started := time.Now()
	p, err := testenv.Spawn(who, base+".log", "ip", args...)
	if err != nil {
		r.err = err
		return r
	}
	defer p.Stop(30 * time.Second)
	hc := nd.httpClient()

	first, err := waitMetrics(ctx, hc, p, "the first sync", func(m syncMetrics) bool { return m.count >= 1 })
	if err != nil {
		r.err = err
		return r
	}
	r.start = since(started, first.last)
	r.firstSync = secs(first.sum / first.count)
	time.Sleep(1500 * time.Millisecond) // past --iptables-min-sync-period (1s)
	if r.rules, err = countRules(nd, mode); err != nil {
		r.err = err
		return r
	}

	var total, totalSync time.Duration
	for range *rounds {
		prev, err := readMetrics(hc)
		if err != nil {
			r.err = err
			return r
		}
		*generation++
		sent := time.Now()
		if err := a.changeEndpoint(ctx, n/2, *generation); err != nil {
			r.err = err
			return r
		}
		m, err := waitMetrics(ctx, hc, p, "the one-change sync", func(m syncMetrics) bool {
			return m.count > prev.count && m.last > float64(sent.UnixNano())/1e9
		})
		if err != nil {
			r.err = err
			return r
		}
		total += since(sent, m.last)
		totalSync += secs((m.sum - prev.sum) / (m.count - prev.count))
		time.Sleep(1200 * time.Millisecond)
	}
	r.oneChange, r.oneChangeSync = total/time.Duration(*rounds), totalSync/time.Duration(*rounds)

	// Full resyncs: the median of -resyncs (they take long enough for the
	// machine's other load to show).
	var resyncs []time.Duration
	for range *resyncCount {
		prev, err := readMetrics(hc)
		if err != nil {
			r.err = err
			return r
		}
		*generation++
		if err := a.setZone(ctx, fmt.Sprintf("zone-%d", *generation)); err != nil {
			r.err = err
			return r
		}
		m, err := waitMetrics(ctx, hc, p, "the full resync", func(m syncMetrics) bool { return m.full > prev.full })
		if err != nil {
			r.err = err
			return r
		}
		resyncs = append(resyncs, secs((m.sum-prev.sum)/(m.count-prev.count)))
		time.Sleep(1200 * time.Millisecond)
	}
	slices.Sort(resyncs)
	r.resync = resyncs[len(resyncs)/2]
	return r
}

// countRules is what the kernel holds for kube-proxy in the namespace:
// iptables rules (IPv4), or lines of the nftables table.
func countRules(nd *node, mode string) (int, error) {
	if mode == "nftables" {
		out, err := nd.exec("nft", "list", "table", "ip", "kube-proxy")
		return strings.Count(out, "\n"), err
	}
	out, err := nd.exec("iptables-save")
	count := 0
	for _, l := range strings.Split(out, "\n") {
		if strings.HasPrefix(l, "-A ") {
			count++
		}
	}
	return count, err
}

// sideBySide runs everything: for each Service count, each mode, ours then
// upstream's; then the DNS load.
func sideBySide(ctx context.Context, dir string, counts []int, modes []string, upstream string) ([]result, []dnsResult, error) {
	ours, err := testenv.BuildBinary("kubik/ch07-kube-proxy/cmd/kube-proxy")
	if err != nil {
		return nil, nil, err
	}
	a, err := startAPIServer(ctx, dir)
	if err != nil {
		return nil, nil, err
	}
	defer a.stop()
	defer testenv.RemoveBuilt()
	var results []result
	var dnsResults []dnsResult
	generation := 0
	for _, n := range counts {
		createStart := time.Now()
		if err := a.ensureServices(ctx, n); err != nil {
			return results, dnsResults, err
		}
		fmt.Fprintf(os.Stderr, "%d Services with their EndpointSlices in the apiserver (%s)\n", n, time.Since(createStart).Round(time.Millisecond))
		for _, mode := range modes {
			procs := [][2]string{{"ours", ours}}
			if upstream != "" {
				procs = append(procs, [2]string{"upstream", upstream})
			}
			// -reps pairs, ours and upstream's in turn, so that the machine's
			// drift between runs falls on both; each metric is the median.
			runs := map[string][]result{}
			for range max(*reps, 1) {
				for _, pr := range procs {
					r := measure(ctx, dir, a, mode, pr[0], pr[1], n, &generation)
					fmt.Fprintf(os.Stderr, "  %-8s %-8s start %v (first sync %v), one change %v (sync %v), full resync %v, %d rules %v\n", mode, r.who,
						r.start.Round(time.Millisecond), r.firstSync.Round(time.Millisecond), r.oneChange.Round(time.Millisecond), r.oneChangeSync.Round(time.Millisecond),
						r.resync.Round(time.Millisecond), r.rules, errString(r.err))
					runs[r.who] = append(runs[r.who], r)
					if r.err != nil && ctx.Err() != nil {
						return append(results, r), dnsResults, ctx.Err()
					}
				}
			}
			for _, pr := range procs {
				results = append(results, medianResult(runs[pr[0]]))
			}
		}
		if *dnsSeconds > 0 {
			var loads []dnsResult
			if *dnsFrom != "pod" {
				loads = append(loads, dnsLoad(ctx, dir, a, n))
			}
			if *dnsFrom != "loopback" {
				loads = append(loads, dnsLoadFromPod(ctx, dir, a, n, ours, modes[0]))
			}
			for _, d := range loads {
				fmt.Fprintf(os.Stderr, "  dns      from %s: %.0f queries/s, p50 %v, p99 %v %v\n", d.from, d.qps, d.p50, d.p99, errString(d.err))
			}
			dnsResults = append(dnsResults, loads...)
		}
	}
	return results, dnsResults, nil
}

func errString(err error) string {
	if err == nil {
		return ""
	}
	return "ERROR: " + err.Error()
}

// ratio is a/b as "0.85x", or "-".
func ratio(a, b time.Duration) string {
	if a <= 0 || b <= 0 {
		return "-"
	}
	return fmt.Sprintf("%.2fx", float64(a)/float64(b))
}

func intRatio(a, b int) string {
	if a <= 0 || b <= 0 {
		return "-"
	}
	return fmt.Sprintf("%.2fx", float64(a)/float64(b))
}

func ms(d time.Duration) string {
	if d <= 0 {
		return "-"
	}
	v := float64(d) / float64(time.Millisecond)
	if v < 10 {
		return fmt.Sprintf("%.1f", v)
	}
	return strconv.Itoa(int(math.Round(v)))
}
