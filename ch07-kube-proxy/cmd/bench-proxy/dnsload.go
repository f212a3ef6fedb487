package main

// The DNS load: our cluster DNS server (the kube-dns binary, as its pods
// run it) on this machine's loopback, following the benchmark's
// apiserver, asked for the A records of random bench Services by
// concurrent clients, each on its own UDP socket.

import (
	"context"
	"fmt"
	"math/rand/v2"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"sync"
	"time"

	"github.com/miekg/dns"

	"kubik/internal/testenv"
)

type dnsResult struct {
	from          string // "loopback", or "pod, <mode>"
	services      int
	clients       int
	queries, errs int
	qps           float64
	p50, p99      time.Duration
	err           error
}

var servingRE = regexp.MustCompile(`msg="serving DNS".* address=(\S+)`)

func dnsLoad(ctx context.Context, dir string, a *apiserver, n int) (r dnsResult) {
	r = dnsResult{services: n, clients: *dnsClients, from: "loopback"}
	bin, err := testenv.BuildBinary("kubik/ch07-kube-proxy/cmd/kube-dns")
	if err != nil {
		r.err = err
		return r
	}
	ports := make([]int, 3)
	for i := range ports {
		if ports[i], err = testenv.Port(); err != nil {
			r.err = err
			return r
		}
	}
	addr := func(p int) string { return "127.0.0.1:" + strconv.Itoa(p) }
	log := filepath.Join(dir, fmt.Sprintf("kube-dns-%d.log", n))
	p, err := testenv.Spawn("kube-dns", log, bin, "--kubeconfig", filepath.Join(a.dir, "admin.kubeconfig"), "--log-level", "info",
		"--dns-bind-address", "127.0.0.1", "--dns-port", "0", "--lameduck", "0s",
		"--health-bind-address", addr(ports[0]), "--ready-bind-address", addr(ports[1]), "--metrics-bind-address", addr(ports[2]))
	if err != nil {
		r.err = err
		return r
	}
	defer p.Stop(10 * time.Second)

	// Ready (its informers have listed everything), and where it listens.
	server := ""
	deadline := time.Now().Add(5 * time.Minute)
	for server == "" {
		if b, _ := os.ReadFile(log); servingRE.Match(b) {
			if resp, err := http.Get("http://" + addr(ports[1]) + "/ready"); err == nil {
				resp.Body.Close()
				if resp.StatusCode == http.StatusOK {
					server = string(servingRE.FindSubmatch(b)[1])
					break
				}
			}
		}
		if p.Exited() || time.Now().After(deadline) || ctx.Err() != nil {
			r.err = fmt.Errorf("kube-dns not ready (log: %s)", log)
			return r
		}
		time.Sleep(100 * time.Millisecond)
	}

	load := runDNSLoad(ctx, n, func() (*dns.Conn, error) { return dns.DialTimeout("udp", server, 5*time.Second) })
	load.services, load.clients, load.from = r.services, r.clients, r.from
	return load
}

// runDNSLoad sends -dns-clients concurrent streams of A queries for random
// bench Services for -dns-seconds, each client on its own socket from dial.
func runDNSLoad(ctx context.Context, n int, dial func() (*dns.Conn, error)) (r dnsResult) {
	name := func(i int) string { return fmt.Sprintf("svc-%d.%s.svc.cluster.local.", i, benchNamespace) }
	var mu sync.Mutex
	var latencies []time.Duration
	end := time.Now().Add(*dnsSeconds)
	var wg sync.WaitGroup
	for range *dnsClients {
		wg.Go(func() {
			conn, err := dial()
			if err != nil {
				mu.Lock()
				r.err = err
				mu.Unlock()
				return
			}
			defer conn.Close()
			var mine []time.Duration
			errs := 0
			msg := new(dns.Msg)
			for time.Now().Before(end) && ctx.Err() == nil {
				msg.SetQuestion(name(rand.IntN(n)), dns.TypeA)
				start := time.Now()
				conn.SetDeadline(start.Add(2 * time.Second))
				if err := conn.WriteMsg(msg); err != nil {
					errs++
					continue
				}
				reply, err := conn.ReadMsg()
				took := time.Since(start)
				if err != nil || reply.Id != msg.Id || reply.Rcode != dns.RcodeSuccess || len(reply.Answer) != 1 {
					errs++
					continue
				}
				mine = append(mine, took)
			}
			mu.Lock()
			latencies = append(latencies, mine...)
			r.errs += errs
			mu.Unlock()
		})
	}
	wg.Wait()
	slices.Sort(latencies)
	r.queries = len(latencies)
	if r.queries > 0 {
		r.qps = float64(r.queries) / dnsSeconds.Seconds()
		r.p50 = latencies[r.queries*50/100]
		r.p99 = latencies[min(r.queries-1, r.queries*99/100)]
	}
	if r.errs > 0 && r.err == nil {
		r.err = fmt.Errorf("%d queries failed or timed out", r.errs)
	}
	return r
}
