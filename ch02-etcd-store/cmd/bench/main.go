// Command bench measures the chapter 2 apiserver against upstream
// kube-apiserver (`make bench-apiserver`), with the same Go HTTP/2 client and
// the same etcd binary, everything on loopback:
//
//   - 1000 sequential ConfigMap creates over one connection: creates/s, p50, p99;
//   - LIST of 10,000 pods: whole, in pages of 500, and with resourceVersion=0;
//   - watch fan-out: 100 and 1000 watchers of pods, N pods created by 8
//     clients; events/s delivered and how long after the last create every
//     watcher had every event;
//   - the same in protobuf (bodies, answers and watch frames), as the
//     control plane's components speak to the apiserver (protobuf.go).
//
// The servers run one after another, each on a fresh etcd process with an
// empty data directory (so they never share etcd or compete for the CPU):
// upstream (from -ref-bin, skipped with a message when it is not built),
// Kubik with --watch-cache and Kubik with --watch-cache=false. Then Kubik's
// watch fan-out runs once more inside this process, with and without the
// cache, to count allocations per delivered event.
//
// With -crd it runs the custom resource benchmark instead (crd.go), with
// -admission the admission benchmark (admission.go).
package main

import (
	"bufio"
	"bytes"
	"context"
	"crypto/tls"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"kubik/ch01-apiserver/app"
	"kubik/ch01-apiserver/pki"
	"kubik/ch01-apiserver/storage"
	"kubik/ch02-etcd-store/cacher"
	"kubik/ch02-etcd-store/etcdstore"
	"kubik/internal/testenv"
)

var (
	refBin   = flag.String("ref-bin", ".kubik/ref/bin", "directory with upstream kube-apiserver (scripts/ref-build.sh)")
	etcdBin  = flag.String("etcd", "etcd", "etcd binary")
	kubikBin = flag.String("kubik-bin", "", "the ch02 binary (empty: go build it)")
	creates  = flag.Int("creates", 1000, "sequential ConfigMap creates per repetition")
	pods     = flag.Int("pods", 10000, "pods to list")
	reps     = flag.Int("reps", 3, "repetitions of each measurement (the median is printed)")
	fanout   = flag.String("fanout", "100:500,1000:200", "watch fan-out runs, watchers:creates")
	only     = flag.String("only", "", "comma-separated servers to run (upstream, kubik, kubik-nocache, inprocess); empty: all")
)

func main() { testenv.BenchMain("bench", run) }

// result is one server's numbers: name → value.
type result map[string]float64

// metric is one line of the table; higher says whether more is better.
type metric struct {
	key, label string
	higher     bool
}

func run(ctx context.Context) error {
	tmp, err := os.MkdirTemp("", "kubik-bench-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	want := func(name string) bool { return *only == "" || slices.Contains(strings.Split(*only, ","), name) }

	etcdPath, err := exec.LookPath(*etcdBin)
	if err != nil {
		return fmt.Errorf("etcd not found (Debian: apt-get install etcd-server): %w", err)
	}
	bin := *kubikBin
	if bin == "" && (want("kubik") || want("kubik-nocache")) {
		bin = filepath.Join(tmp, "kubik-ch02")
		fmt.Println("building ./ch02-etcd-store ...")
		if out, err := exec.CommandContext(ctx, "go", "build", "-o", bin, "./ch02-etcd-store").CombinedOutput(); err != nil {
			return fmt.Errorf("go build: %v\n%s", err, out)
		}
	}
	upstream := filepath.Join(*refBin, "kube-apiserver")
	if _, err := os.Stat(upstream); err != nil && want("upstream") {
		fmt.Printf("upstream kube-apiserver is not built (%s missing): run `make ref-build`; measuring Kubik only\n", upstream)
		upstream = ""
	}

	if *crdMode {
		fmt.Printf("machine: %d CPUs, load average %s; etcd %s\n", runtime.NumCPU(), loadavg(), etcdVersion(etcdPath))
		return runCRD(ctx, tmp, etcdPath, bin, upstream, want)
	}
	if *admissionMode {
		fmt.Printf("machine: %d CPUs, load average %s; etcd %s\n", runtime.NumCPU(), loadavg(), etcdVersion(etcdPath))
		return runAdmission(ctx, tmp, etcdPath, bin, upstream, want)
	}
	var fanouts [][2]int
	for _, f := range strings.Split(*fanout, ",") {
		w, n, _ := strings.Cut(f, ":")
		wi, err1 := strconv.Atoi(w)
		ni, err2 := strconv.Atoi(n)
		if err1 != nil || err2 != nil {
			return fmt.Errorf("-fanout %q: want watchers:creates", f)
		}
		fanouts = append(fanouts, [2]int{wi, ni})
	}

	fmt.Printf("machine: %d CPUs, load average %s; etcd %s\n", runtime.NumCPU(), loadavg(), etcdVersion(etcdPath))
	results, columns, err := measureEach(servers(ctx, bin, upstream, want, true), func(s server) (result, error) {
		return measureServer(ctx, filepath.Join(tmp, s.name), etcdPath, s.start, fanouts)
	})
	if err != nil {
		return err
	}
	if want("inprocess") {
		fmt.Printf("\n== kubik in-process (allocations per delivered event)\n")
		if err := measureInProcess(ctx, filepath.Join(tmp, "inprocess"), etcdPath, fanouts, results); err != nil {
			return fmt.Errorf("in-process: %w", err)
		}
	}
	printTable(columns, results, fanouts)
	return nil
}

// server is one apiserver to measure: a name and how to start it on an
// etcd.
type server struct {
	name  string
	start func(dir, etcdURL string) (*testenv.Proc, string, error)
}

// servers are the servers -only asks for, in the table's order: upstream
// (when built), Kubik with the watch cache and, with nocache, without it.
func servers(ctx context.Context, bin, upstream string, want func(string) bool, nocache bool) []server {
	var list []server
	if upstream != "" && want("upstream") {
		list = append(list, server{"upstream", func(dir, etcdURL string) (*testenv.Proc, string, error) {
			return startUpstream(ctx, upstream, dir, etcdURL)
		}})
	}
	for _, cache := range []bool{true, false} {
		name := "kubik"
		if !cache {
			if !nocache {
				continue
			}
			name = "kubik-nocache"
		}
		if want(name) {
			list = append(list, server{name, func(dir, etcdURL string) (*testenv.Proc, string, error) {
				return startKubik(ctx, bin, dir, etcdURL, cache)
			}})
		}
	}
	return list
}

// measureEach measures the servers one after another and returns their
// results and the table's columns.
func measureEach(list []server, measure func(server) (result, error)) (map[string]result, []string, error) {
	results := map[string]result{}
	var columns []string
	for _, s := range list {
		fmt.Printf("\n== %s\n", s.name)
		r, err := measure(s)
		if err != nil {
			return nil, nil, fmt.Errorf("%s: %w", s.name, err)
		}
		results[s.name] = r
		columns = append(columns, s.name)
	}
	return results, columns, nil
}

// measureServer starts a fresh etcd and the server on it, measures, and stops both.
func measureServer(ctx context.Context, dir, etcdPath string, start func(dir, etcdURL string) (*testenv.Proc, string, error), fanouts [][2]int) (result, error) {
	return withServer(ctx, dir, etcdPath, start, func(c *client) (result, error) { return measure(ctx, c, fanouts, nil) })
}

// withServer starts a fresh etcd in dir and the server on it, waits until it
// is ready, runs run with a client of it, and stops both.
func withServer(ctx context.Context, dir, etcdPath string, start func(dir, etcdURL string) (*testenv.Proc, string, error), run func(*client) (result, error)) (result, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	etcd, etcdURL, err := testenv.StartEtcd(ctx, etcdPath, dir)
	if err != nil {
		return nil, err
	}
	defer etcd.Stop(10 * time.Second)
	srv, kubeconfig, err := start(dir, etcdURL)
	if err != nil {
		return nil, err
	}
	defer srv.Stop(10 * time.Second)
	c, err := newClient(kubeconfig)
	if err != nil {
		return nil, err
	}
	defer c.close()
	if err := c.waitReady(ctx, 2*time.Minute); err != nil {
		return nil, fmt.Errorf("%w (log: %s)", err, srv.LogPath)
	}
	return run(c)
}

// measure runs every measurement against one server.
func measure(ctx context.Context, c *client, fanouts [][2]int, allocs func() uint64) (result, error) {
	r := result{}
	for _, ns := range []string{"bench", "watch"} {
		if err := c.setupNamespace(ctx, ns); err != nil {
			return nil, err
		}
	}

	if allocs == nil { // the in-process run measures fan-out only
		// 1. Sequential creates over one connection.
		one := c.single()
		for i := range 20 { // warm up the connection and the server
			if _, err := one.create(ctx, "bench", "configmaps", configMapJSON(fmt.Sprintf("warm-%d", i))); err != nil {
				return nil, err
			}
		}
		var rates, p50s, p99s []float64
		for rep := range *reps {
			lat := make([]time.Duration, 0, *creates)
			start := time.Now()
			for i := range *creates {
				d, err := one.create(ctx, "bench", "configmaps", configMapJSON(fmt.Sprintf("cm-%d-%d", rep, i)))
				if err != nil {
					return nil, err
				}
				lat = append(lat, d)
			}
			el := time.Since(start)
			slices.Sort(lat)
			rates = append(rates, float64(*creates)/el.Seconds())
			p50s = append(p50s, ms(lat[len(lat)/2]))
			p99s = append(p99s, ms(lat[len(lat)*99/100]))
			fmt.Printf("  creates rep %d: %.0f/s p50 %.2f ms p99 %.2f ms\n", rep+1, rates[rep], p50s[rep], p99s[rep])
		}
		r["create.rate"], r["create.p50"], r["create.p99"] = median(rates), median(p50s), median(p99s)
		if err := measureCreatesProtobuf(ctx, one, r); err != nil {
			return nil, err
		}

		// 2. Lists of 10k pods.
		t0 := time.Now()
		if err := c.createPods(ctx, "bench", "pod", *pods, 8); err != nil {
			return nil, err
		}
		fmt.Printf("  %d pods created by 8 clients in %v\n", *pods, time.Since(t0).Round(time.Millisecond))
		for _, l := range []struct {
			key, query string
			pb         bool
		}{
			{"list.full", "", false}, {"list.paged", "limit=500", false}, {"list.rv0", "resourceVersion=0", false},
			{"list.pb.full", "", true}, {"list.pb.paged", "limit=500", true}, {"list.pb.rv0", "resourceVersion=0", true},
		} {
			if _, _, err := c.listAll(ctx, "bench", l.query, l.pb); err != nil { // warm-up
				return nil, err
			}
			var times []float64
			for range *reps {
				t0 := time.Now()
				n, pages, err := c.listAll(ctx, "bench", l.query, l.pb)
				if err != nil {
					return nil, err
				}
				if n != *pods {
					return nil, fmt.Errorf("list %s: %d pods, want %d", l.query, n, *pods)
				}
				times = append(times, ms(time.Since(t0)))
				_ = pages
			}
			r[l.key] = median(times)
			fmt.Printf("  list %-18q %-8s %v ms\n", l.query, formatName(l.pb), fmtList(times))
		}
	}

	// 3. Watch fan-out, in JSON and (not in the in-process run) in protobuf.
	formats := []bool{false, true}
	if allocs != nil {
		formats = formats[:1]
	}
	for _, pb := range formats {
		for _, f := range fanouts {
			w, n := f[0], f[1]
			key := fmt.Sprintf("fanout%d", w)
			if pb {
				key += ".pb"
			}
			var rates, lags, allocsPer []float64
			rewatches := 0
			for rep := range *reps {
				fr, err := c.fanout(ctx, "watch", fmt.Sprintf("f%d-%d-%s", w, rep, formatName(pb)), w, n, allocs, pb)
				if err != nil {
					return nil, err
				}
				rates = append(rates, fr.rate)
				lags = append(lags, fr.lag)
				allocsPer = append(allocsPer, fr.allocsPerEvent)
				rewatches += fr.rewatches
				fmt.Printf("  fan-out %s %d watchers × %d creates: %.0f events/s, all delivered %.0f ms after the last create (creates took %.0f ms), %d re-watches",
					formatName(pb), w, n, fr.rate, fr.lag, fr.createMs, fr.rewatches)
				if allocs != nil {
					fmt.Printf(", %.1f allocs/event", fr.allocsPerEvent)
				}
				fmt.Println()
			}
			r[key+".rate"] = median(rates)
			r[key+".lag"] = median(lags)
			r[key+".rewatches"] = float64(rewatches)
			if allocs != nil {
				r[key+".allocs"] = median(allocsPer)
			}
		}
	}
	return r, nil
}

// measureInProcess runs Kubik's apiserver in this process over a fresh etcd,
// with and without the watch cache, and counts the allocations of the whole
// process (server and the watchers reading) per delivered watch event.
func measureInProcess(ctx context.Context, dir, etcdPath string, fanouts [][2]int, results map[string]result) error {
	for _, cache := range []bool{true, false} {
		name := "inprocess"
		if !cache {
			name = "inprocess-nocache"
		}
		sub := filepath.Join(dir, name)
		if err := os.MkdirAll(sub, 0o755); err != nil {
			return err
		}
		etcd, etcdURL, err := testenv.StartEtcd(ctx, etcdPath, sub)
		if err != nil {
			return err
		}
		r, err := func() (result, error) {
			defer etcd.Stop(10 * time.Second)
			sctx, cancel := context.WithCancel(ctx)
			defer cancel()
			log := slog.New(slog.DiscardHandler)
			store, err := etcdstore.New(etcdstore.Config{Endpoints: []string{etcdURL}, Logger: log})
			if err != nil {
				return nil, err
			}
			if err := store.WaitReady(sctx, time.Minute); err != nil {
				store.Close()
				return nil, err
			}
			var st storage.Interface = store
			if cache {
				c := cacher.New(store, []string{"/registry/pods/", "/registry/namespaces/", "/registry/serviceaccounts/"}, log)
				if err := c.WaitReady(sctx); err != nil {
					c.Close()
					return nil, err
				}
				st = c
			}
			defer st.Close()
			opts := &app.Options{} // the flags' defaults, as the binary has them
			fs := flag.NewFlagSet("kubik", flag.ContinueOnError)
			opts.AddFlags(fs)
			if err := fs.Parse([]string{"--data-dir", filepath.Join(sub, "data"), "--secure-port", "0", "--log-level", "error"}); err != nil {
				return nil, err
			}
			cl, errc, err := app.Start(sctx, opts, st, log, nil)
			if err != nil {
				return nil, err
			}
			defer func() { cancel(); <-errc }()
			c, err := newClient(cl.AdminKubeconfig)
			if err != nil {
				return nil, err
			}
			defer c.close()
			fmt.Printf("  watch cache: %v\n", cache)
			return measure(ctx, c, fanouts, func() uint64 {
				var m runtime.MemStats
				runtime.ReadMemStats(&m)
				return m.Mallocs
			})
		}()
		if err != nil {
			return err
		}
		results[name] = r
	}
	return nil
}

func printTable(columns []string, results map[string]result, fanouts [][2]int) {
	metrics := []metric{
		{"create.rate", fmt.Sprintf("ConfigMap creates/s (%d sequential, 1 conn)", *creates), true},
		{"create.p50", "  create p50, ms", false},
		{"create.p99", "  create p99, ms", false},
		{"list.full", fmt.Sprintf("LIST %d pods, whole, ms", *pods), false},
		{"list.paged", fmt.Sprintf("LIST %d pods, limit=500 (all pages), ms", *pods), false},
		{"list.rv0", fmt.Sprintf("LIST %d pods, resourceVersion=0, ms", *pods), false},
	}
	for _, f := range fanouts {
		metrics = append(metrics,
			metric{fmt.Sprintf("fanout%d.rate", f[0]), fmt.Sprintf("watch %d×%d: events/s delivered", f[0], f[1]), true},
			metric{fmt.Sprintf("fanout%d.lag", f[0]), "  all delivered after last create, ms", false},
			metric{fmt.Sprintf("fanout%d.rewatches", f[0]), fmt.Sprintf("  re-watches (slow watchers cut, all %d reps)", *reps), false})
	}
	metrics = append(metrics, protobufMetrics(fanouts)...)
	fmt.Printf("\nmedians of %d repetitions; ratio = Kubik vs upstream, >1 is better for Kubik (rates: ours/theirs, times: theirs/ours)\n\n", *reps)
	printColumns(columns, results, metrics)
	if _, ok := results["inprocess"]; ok {
		fmt.Printf("\nKubik in one process (server + watchers), allocations per delivered event (those of the same creates without watchers subtracted):\n")
		for _, f := range fanouts {
			k := fmt.Sprintf("fanout%d", f[0])
			fmt.Printf("  %4d watchers × %d creates: with the watch cache %s events/s, %.1f allocs/event; without %s events/s, %.1f allocs/event\n",
				f[0], f[1], fmtNum(results["inprocess"][k+".rate"]), results["inprocess"][k+".allocs"],
				fmtNum(results["inprocess-nocache"][k+".rate"]), results["inprocess-nocache"][k+".allocs"])
		}
	}
}

// printColumns prints one line per metric, a column per server and the
// ratio to upstream's.
func printColumns(columns []string, results map[string]result, metrics []metric) {
	fmt.Printf("%-48s", "")
	for _, c := range columns {
		fmt.Printf(" %14s", c)
		if c != "upstream" && slices.Contains(columns, "upstream") {
			fmt.Printf(" %7s", "ratio")
		}
	}
	fmt.Println()
	for _, m := range metrics {
		fmt.Printf("%-48s", m.label)
		up, hasUp := results["upstream"][m.key]
		for _, c := range columns {
			v, ok := results[c][m.key]
			if !ok {
				fmt.Printf(" %14s", "-")
			} else {
				fmt.Printf(" %14s", fmtNum(v))
			}
			if c != "upstream" && slices.Contains(columns, "upstream") {
				switch {
				case !ok || !hasUp || v <= 0 || up <= 0 || strings.HasSuffix(m.key, "rewatches"):
					fmt.Printf(" %7s", "")
				case m.higher:
					fmt.Printf(" %6.2fx", v/up)
				default:
					fmt.Printf(" %6.2fx", up/v)
				}
			}
		}
		fmt.Println()
	}
}

// startUpstream runs kube-apiserver with the flags of compare/refcluster
// and a PKI made by ch01-apiserver/pki.
func startUpstream(ctx context.Context, binary, dir, etcdURL string) (*testenv.Proc, string, error) {
	ca, err := pki.EnsureCA(dir)
	if err != nil {
		return nil, "", err
	}
	certFile, keyFile, err := ca.EnsureServingCert(dir, []string{"127.0.0.1", "10.96.0.1"})
	if err != nil {
		return nil, "", err
	}
	if _, err := pki.EnsureServiceAccountKey(dir); err != nil {
		return nil, "", err
	}
	port, err := testenv.Port()
	if err != nil {
		return nil, "", err
	}
	url := "https://127.0.0.1:" + strconv.Itoa(port)
	kubeconfig := filepath.Join(dir, "admin.kubeconfig")
	if err := ca.WriteKubeconfig(kubeconfig, url, "kubernetes-admin", []string{"system:masters"}); err != nil {
		return nil, "", err
	}
	p := func(name string) string { return filepath.Join(pki.Dir(dir), name) }
	pr, err := testenv.Spawn("kube-apiserver", filepath.Join(dir, "kube-apiserver.log"), binary,
		"--etcd-servers", etcdURL,
		"--bind-address", "127.0.0.1", "--advertise-address", "127.0.0.1", "--secure-port", strconv.Itoa(port),
		"--cert-dir", filepath.Join(dir, "apiserver-certs"),
		"--tls-cert-file", certFile, "--tls-private-key-file", keyFile, "--client-ca-file", p(pki.CACertFile),
		"--service-account-key-file", p(pki.SAPubFile), "--service-account-signing-key-file", p(pki.SAKeyFile),
		"--service-account-issuer", "https://kubernetes.default.svc.cluster.local",
		"--authorization-mode", "Node,RBAC", "--service-cluster-ip-range", "10.96.0.0/12",
		"--profiling=false")
	return pr, kubeconfig, err
}

func startKubik(ctx context.Context, binary, dir, etcdURL string, cache bool) (*testenv.Proc, string, error) {
	port, err := testenv.Port()
	if err != nil {
		return nil, "", err
	}
	data := filepath.Join(dir, "data")
	pr, err := testenv.Spawn("kubik", filepath.Join(dir, "kubik.log"), binary,
		"--data-dir", data, "--secure-port", strconv.Itoa(port), "--etcd-servers", etcdURL,
		"--watch-cache="+strconv.FormatBool(cache), "--log-level", "warn")
	if err != nil {
		return nil, "", err
	}
	// The kubeconfig is written before the server is ready.
	kubeconfig := filepath.Join(data, "admin.kubeconfig")
	for i := 0; i < 300; i++ {
		if _, err := os.Stat(kubeconfig); err == nil {
			return pr, kubeconfig, nil
		}
		select {
		case <-pr.Done:
			return nil, "", fmt.Errorf("kubik exited (log: %s)", pr.LogPath)
		case <-time.After(100 * time.Millisecond):
		}
	}
	pr.Stop(10 * time.Second)
	return nil, "", fmt.Errorf("no %s after 30s (log: %s)", kubeconfig, pr.LogPath)
}

func etcdVersion(path string) string {
	out, _ := exec.Command(path, "--version").Output()
	line, _, _ := strings.Cut(string(out), "\n")
	return strings.TrimPrefix(line, "etcd Version: ")
}

func loadavg() string {
	b, _ := os.ReadFile("/proc/loadavg")
	f := strings.Fields(string(b))
	if len(f) < 3 {
		return "?"
	}
	return strings.Join(f[:3], " ")
}

// --- the client -------------------------------------------------------------

// client is the admin's HTTP/2 client of one server.
type client struct {
	url string
	tls *tls.Config
	tr  *http.Transport
	hc  *http.Client
}

func newClient(kubeconfig string) (*client, error) {
	k, err := pki.LoadKubeconfig(kubeconfig)
	if err != nil {
		return nil, err
	}
	c := &client{url: k.Server, tls: k.TLS}
	c.tr, c.hc = c.transport()
	return c, nil
}

func (c *client) transport() (*http.Transport, *http.Client) {
	tr := &http.Transport{TLSClientConfig: c.tls.Clone(), ForceAttemptHTTP2: true, MaxIdleConnsPerHost: 100}
	return tr, &http.Client{Transport: tr}
}

// single is a client with its own transport: one HTTP/2 connection.
func (c *client) single() *client {
	s := &client{url: c.url, tls: c.tls}
	s.tr, s.hc = s.transport()
	return s
}

func (c *client) close() { c.tr.CloseIdleConnections() }

func (c *client) do(ctx context.Context, method, path string, body []byte) (int, []byte, error) {
	resp, data, err := testenv.DoJSON(ctx, c.hc, c.url, method, path, body)
	if err != nil {
		return 0, nil, err
	}
	if resp.ProtoMajor != 2 {
		return 0, nil, fmt.Errorf("%s %s: the client speaks %s, want HTTP/2", method, path, resp.Proto)
	}
	return resp.StatusCode, data, nil
}

func (c *client) waitReady(ctx context.Context, timeout time.Duration) error {
	deadline := time.Now().Add(timeout)
	for {
		code, _, err := c.do(ctx, http.MethodGet, "/readyz", nil)
		if err == nil && code == http.StatusOK {
			// Upstream is ready before its bootstrap objects are all there; wait for the default namespace.
			if code, _, err := c.do(ctx, http.MethodGet, "/api/v1/namespaces/default", nil); err == nil && code == http.StatusOK {
				return nil
			}
		}
		if time.Now().After(deadline) || ctx.Err() != nil {
			return fmt.Errorf("%s not ready within %v (last: %d %v)", c.url, timeout, code, err)
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// setupNamespace creates a namespace and its default ServiceAccount (no
// controller-manager runs: upstream's ServiceAccount admission needs it).
func (c *client) setupNamespace(ctx context.Context, ns string) error {
	for _, r := range []struct{ path, body string }{
		{"/api/v1/namespaces", `{"apiVersion":"v1","kind":"Namespace","metadata":{"name":"` + ns + `"}}`},
		{"/api/v1/namespaces/" + ns + "/serviceaccounts", `{"apiVersion":"v1","kind":"ServiceAccount","metadata":{"name":"default"}}`},
	} {
		code, body, err := c.do(ctx, http.MethodPost, r.path, []byte(r.body))
		if err != nil {
			return err
		}
		if code != http.StatusCreated && code != http.StatusConflict {
			return fmt.Errorf("POST %s: %d %s", r.path, code, body)
		}
	}
	return nil
}

func (c *client) create(ctx context.Context, ns, resource string, body []byte) (time.Duration, error) {
	t0 := time.Now()
	code, data, err := c.do(ctx, http.MethodPost, "/api/v1/namespaces/"+ns+"/"+resource, body)
	d := time.Since(t0)
	if err == nil && code != http.StatusCreated {
		err = fmt.Errorf("create %s: %d %.300s", resource, code, data)
	}
	return d, err
}

func configMapJSON(name string) []byte {
	return []byte(`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"` + name + `"},"data":{"key":"value"}}`)
}

// podJSON: a valid pod that upstream stores as it is (no service account
// token volume is injected).
func podJSON(name string) []byte {
	return []byte(`{"apiVersion":"v1","kind":"Pod","metadata":{"name":"` + name + `","labels":{"app":"bench"}},` +
		`"spec":{"automountServiceAccountToken":false,"containers":[{"name":"app","image":"nginx:1.27","ports":[{"containerPort":80}]}]}}`)
}

// createPods creates n pods with concurrent clients sharing the transport.
func (c *client) createPods(ctx context.Context, ns, prefix string, n, clients int) error {
	var next atomic.Int64
	errs := make(chan error, clients)
	var wg sync.WaitGroup
	for range clients {
		wg.Go(func() {
			for i := next.Add(1) - 1; i < int64(n); i = next.Add(1) - 1 {
				if _, err := c.create(ctx, ns, "pods", podJSON(fmt.Sprintf("%s-%05d", prefix, i))); err != nil {
					errs <- err
					return
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	return <-errs
}

// listAll lists the pods of ns, following continue tokens; it returns how
// many pods and pages it read.
func (c *client) listAll(ctx context.Context, ns, query string, pb bool) (int, int, error) {
	n, pages := 0, 0
	token := ""
	for {
		path := "/api/v1/namespaces/" + ns + "/pods"
		q := query
		if token != "" {
			q += "&continue=" + token
		}
		if q != "" {
			path += "?" + strings.TrimPrefix(q, "&")
		}
		do := c.do
		if pb {
			do = c.doProtobuf
		}
		code, body, err := do(ctx, http.MethodGet, path, nil)
		if err != nil {
			return 0, 0, err
		}
		if code != http.StatusOK {
			return 0, 0, fmt.Errorf("list %s: %d %.300s", path, code, body)
		}
		if pb {
			items, next, err := countListProtobuf(body)
			if err != nil {
				return 0, 0, err
			}
			n += items
			pages++
			if token = next; token == "" {
				return n, pages, nil
			}
			continue
		}
		var page struct {
			Metadata struct {
				Continue string `json:"continue"`
			} `json:"metadata"`
			Items []json.RawMessage `json:"items"`
		}
		if err := json.Unmarshal(body, &page); err != nil {
			return 0, 0, err
		}
		n += len(page.Items)
		pages++
		if token = page.Metadata.Continue; token == "" {
			return n, pages, nil
		}
	}
}

type fanoutResult struct {
	rate, lag, createMs, allocsPerEvent float64
	rewatches                           int
}

// fanout opens w watches of the pods of ns from the current resourceVersion
// (100 per HTTP/2 connection), creates n pods named prefix-* with 8 clients
// and waits until every watcher has read all n ADDED events. A watch the
// server ends early is resumed from the last resourceVersion it delivered,
// as client-go's reflector does. With pb the watches ask for protobuf.
func (c *client) fanout(ctx context.Context, ns, prefix string, w, n int, allocs func() uint64, pb bool) (fanoutResult, error) {
	code, body, err := c.do(ctx, http.MethodGet, "/api/v1/namespaces/"+ns+"/pods?limit=1", nil)
	if err != nil || code != http.StatusOK {
		return fanoutResult{}, fmt.Errorf("list before watch: %d %v", code, err)
	}
	var list struct {
		Metadata struct {
			ResourceVersion string `json:"resourceVersion"`
		} `json:"metadata"`
	}
	json.Unmarshal(body, &list)

	// Allocations of the creates themselves, without watchers, are subtracted.
	var baseAllocs uint64
	if allocs != nil {
		runtime.GC()
		a0 := allocs()
		if err := c.createPods(ctx, ns, "base-"+prefix, n, 8); err != nil {
			return fanoutResult{}, err
		}
		baseAllocs = allocs() - a0
	}

	wctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var transports []*http.Transport
	defer func() {
		for _, tr := range transports {
			tr.CloseIdleConnections()
		}
	}()
	var hc *http.Client
	open := func(rv string) (*http.Response, error) {
		req, err := http.NewRequestWithContext(wctx, http.MethodGet,
			c.url+"/api/v1/namespaces/"+ns+"/pods?watch=true&allowWatchBookmarks=false&resourceVersion="+rv, nil)
		if err != nil {
			return nil, err
		}
		if pb {
			req.Header.Set("Accept", acceptProtobuf)
		}
		resp, err := hc.Do(req)
		if err != nil {
			return nil, err
		}
		if resp.StatusCode != http.StatusOK {
			resp.Body.Close()
			return nil, fmt.Errorf("watch: %d", resp.StatusCode)
		}
		return resp, nil
	}
	var rewatches atomic.Int64
	var done sync.WaitGroup
	errc := make(chan error, w)
	for i := range w {
		if i%100 == 0 {
			tr, c2 := c.transport()
			transports = append(transports, tr)
			hc = c2
		}
		resp, err := open(list.Metadata.ResourceVersion)
		if err != nil {
			return fanoutResult{}, err
		}
		done.Add(1)
		go func(hc *http.Client) {
			defer done.Done()
			seen, last := 0, ""
			for {
				if pb {
					var err error
					if seen, last, err = readFrames(resp.Body, prefix, seen, n, last); err != nil {
						errc <- err
						resp.Body.Close()
						return
					}
				} else {
					rd := bufio.NewReaderSize(resp.Body, 64<<10)
					for seen < n {
						line, err := rd.ReadSlice('\n')
						if err != nil {
							break
						}
						if !bytes.HasPrefix(line, []byte(`{"type":"ADDED"`)) {
							if bytes.HasPrefix(line, []byte(`{"type":"ERROR"`)) {
								errc <- fmt.Errorf("watch error: %.300s", line)
								resp.Body.Close()
								return
							}
							continue
						}
						if bytes.Contains(line, []byte(`"name":"`+prefix+"-")) {
							seen++
							last = resourceVersionOf(line)
						}
					}
				}
				resp.Body.Close()
				if seen >= n || wctx.Err() != nil {
					return
				}
				rewatches.Add(1)
				rv := last
				if rv == "" {
					rv = list.Metadata.ResourceVersion
				}
				var err error
				if resp, err = open(rv); err != nil {
					errc <- err
					return
				}
			}
		}(hc)
	}
	runtime.GC()
	var a0 uint64
	if allocs != nil {
		a0 = allocs()
	}
	start := time.Now()
	if err := c.createPods(ctx, ns, prefix, n, 8); err != nil {
		return fanoutResult{}, err
	}
	created := time.Since(start)
	all := make(chan struct{})
	go func() { done.Wait(); close(all) }()
	select {
	case <-all:
	case err := <-errc:
		return fanoutResult{}, err
	case <-time.After(3 * time.Minute):
		return fanoutResult{}, errors.New("the watchers did not get every event within 3 minutes")
	}
	elapsed := time.Since(start)
	select {
	case err := <-errc:
		return fanoutResult{}, err
	default:
	}
	r := fanoutResult{rate: float64(w*n) / elapsed.Seconds(), lag: ms(elapsed - created), createMs: ms(created),
		rewatches: int(rewatches.Load())}
	if allocs != nil {
		r.allocsPerEvent = (float64(allocs()-a0) - float64(baseAllocs)) / float64(w*n)
	}
	return r, nil
}

// resourceVersionOf finds metadata.resourceVersion in a watch event line.
func resourceVersionOf(line []byte) string {
	const key = `"resourceVersion":"`
	i := bytes.Index(line, []byte(key))
	if i < 0 {
		return ""
	}
	rest := line[i+len(key):]
	j := bytes.IndexByte(rest, '"')
	if j < 0 {
		return ""
	}
	return string(rest[:j])
}

// --- numbers ----------------------------------------------------------------

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

func median(v []float64) float64 {
	if len(v) == 0 {
		return 0
	}
	s := slices.Clone(v)
	slices.Sort(s)
	return s[len(s)/2]
}

func fmtNum(v float64) string {
	switch {
	case v >= 100:
		return strconv.FormatFloat(v, 'f', 0, 64)
	case v >= 10:
		return strconv.FormatFloat(v, 'f', 1, 64)
	}
	return strconv.FormatFloat(v, 'f', 2, 64)
}

func fmtList(v []float64) string {
	s := make([]string, len(v))
	for i, x := range v {
		s[i] = fmtNum(x)
	}
	return strings.Join(s, " ")
}
