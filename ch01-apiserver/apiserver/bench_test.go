package apiserver_test

// Benchmarks of the apiserver as a client sees it: a real server in-process
// on a loopback port, HTTPS with the admin's client certificate, HTTP/2, JSON
// bodies — everything kubectl or a controller pays for, storage in memory.
// `make bench-apiserver` runs them.

import (
	"bufio"
	"context"
	"crypto/tls"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"kubik/ch01-apiserver/app"
	"kubik/ch01-apiserver/storage"
	"kubik/internal/testenv"
)

// benchServer is a private apiserver on in-memory storage and an admin client.
type benchServer struct {
	url    string
	client *http.Client
}

// startBenchServer starts an apiserver on a free loopback port with a fresh
// PKI in a temporary directory; it stops when tb ends.
func startBenchServer(tb testing.TB) *benchServer {
	tb.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	opts := &app.Options{DataDir: tb.TempDir(), SecurePort: 0, BindAddress: "127.0.0.1",
		ServiceClusterIPRange: "10.96.0.0/12", ServiceNodePortRange: "30000-32767",
		MinRequestTimeout: 1800, RequestTimeout: time.Minute, LogLevel: "error"}
	c, errc, err := app.Start(ctx, opts, storage.NewMemory(0), slog.New(slog.DiscardHandler), nil)
	if err != nil {
		cancel()
		tb.Fatal(err)
	}
	certPEM, keyPEM, err := c.CA.IssueClientCert("kubernetes-admin", []string{"system:masters"})
	if err != nil {
		tb.Fatal(err)
	}
	cert, err := tls.X509KeyPair(certPEM, keyPEM)
	if err != nil {
		tb.Fatal(err)
	}
	tr := &http.Transport{
		TLSClientConfig:     &tls.Config{RootCAs: c.CA.CertPool(), Certificates: []tls.Certificate{cert}},
		ForceAttemptHTTP2:   true,
		MaxIdleConnsPerHost: 100,
	}
	s := &benchServer{url: c.URL, client: &http.Client{Transport: tr}}
	tb.Cleanup(func() {
		cancel()
		tr.CloseIdleConnections()
		select {
		case <-errc:
		case <-time.After(10 * time.Second):
			tb.Error("the apiserver did not stop within 10s")
		}
	})
	// Check the protocol once: the numbers are for HTTP/2, as kubectl and client-go use.
	resp, err := s.client.Get(s.url + "/version")
	if err != nil {
		tb.Fatal(err)
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	if resp.ProtoMajor != 2 {
		tb.Fatalf("the client speaks %s, want HTTP/2", resp.Proto)
	}
	return s
}

// do sends one request and returns the status code and the body. It does not
// fail the test, so that any goroutine may call it.
func (s *benchServer) do(ctx context.Context, method, path string, body []byte) (int, []byte, error) {
	resp, data, err := testenv.DoJSON(ctx, s.client, s.url, method, path, body)
	if err != nil {
		return 0, nil, err
	}
	return resp.StatusCode, data, nil
}

// mustDo is do that expects a status code.
func (s *benchServer) mustDo(tb testing.TB, method, path string, body []byte, code int) []byte {
	tb.Helper()
	got, data, err := s.do(context.Background(), method, path, body)
	if err != nil {
		tb.Fatalf("%s %s: %v", method, path, err)
	}
	if got != code {
		tb.Fatalf("%s %s: got %d, want %d: %s", method, path, got, code, data)
	}
	return data
}

func (s *benchServer) createNamespace(tb testing.TB, name string) {
	tb.Helper()
	s.mustDo(tb, http.MethodPost, "/api/v1/namespaces", []byte(`{"metadata":{"name":"`+name+`"}}`), http.StatusCreated)
}

func benchPodJSON(name string) []byte {
	return []byte(`{"apiVersion":"v1","kind":"Pod","metadata":{"name":"` + name + `","labels":{"app":"bench"}},` +
		`"spec":{"containers":[{"name":"app","image":"nginx:1.27","ports":[{"containerPort":80}]}]}}`)
}

func benchConfigMapJSON(name string) []byte {
	return []byte(`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"` + name + `"},"data":{"key":"value"}}`)
}

// createPods creates n pods named prefix-0 … in namespace ns with 8 concurrent clients.
func (s *benchServer) createPods(tb testing.TB, ns, prefix string, n int) {
	tb.Helper()
	const clients = 8
	var next atomic.Int64
	errs := make(chan error, clients)
	var wg sync.WaitGroup
	for range clients {
		wg.Go(func() {
			for i := next.Add(1) - 1; i < int64(n); i = next.Add(1) - 1 {
				code, body, err := s.do(context.Background(), http.MethodPost, "/api/v1/namespaces/"+ns+"/pods",
					benchPodJSON(fmt.Sprintf("%s-%05d", prefix, i)))
				if err == nil && code != http.StatusCreated {
					err = fmt.Errorf("create pod: %d %s", code, body)
				}
				if err != nil {
					errs <- err
					return
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	if err := <-errs; err != nil {
		tb.Fatal(err)
	}
}

// latencies collects one duration per request and reports percentiles.
type latencies []time.Duration

func (l latencies) report(b *testing.B) {
	if len(l) == 0 {
		return
	}
	s := slices.Clone(l)
	slices.Sort(s)
	pct := func(p float64) float64 {
		return float64(s[int(p*float64(len(s)-1))].Microseconds()) / 1000
	}
	b.ReportMetric(pct(0.50), "p50-ms")
	b.ReportMetric(pct(0.99), "p99-ms")
}

// BenchmarkCreateConfigMap: one client POSTs ConfigMaps one after another.
func BenchmarkCreateConfigMap(b *testing.B) {
	s := startBenchServer(b)
	s.createNamespace(b, "bench")
	ctx := context.Background()
	lat := make(latencies, 0, b.N)
	b.ResetTimer()
	start := time.Now()
	for i := range b.N {
		t0 := time.Now()
		code, body, err := s.do(ctx, http.MethodPost, "/api/v1/namespaces/bench/configmaps", benchConfigMapJSON(fmt.Sprintf("cm-%d", i)))
		if err != nil || code != http.StatusCreated {
			b.Fatalf("create: %d %v %s", code, err, body)
		}
		lat = append(lat, time.Since(t0))
	}
	elapsed := time.Since(start)
	b.StopTimer()
	b.ReportMetric(float64(b.N)/elapsed.Seconds(), "creates/s")
	lat.report(b)
}

// BenchmarkGetPod: one client GETs the same pod again and again.
func BenchmarkGetPod(b *testing.B) {
	s := startBenchServer(b)
	s.createNamespace(b, "bench")
	s.mustDo(b, http.MethodPost, "/api/v1/namespaces/bench/pods", benchPodJSON("web"), http.StatusCreated)
	ctx := context.Background()
	lat := make(latencies, 0, b.N)
	b.ResetTimer()
	start := time.Now()
	for range b.N {
		t0 := time.Now()
		code, body, err := s.do(ctx, http.MethodGet, "/api/v1/namespaces/bench/pods/web", nil)
		if err != nil || code != http.StatusOK {
			b.Fatalf("get: %d %v %s", code, err, body)
		}
		lat = append(lat, time.Since(t0))
	}
	elapsed := time.Since(start)
	b.StopTimer()
	b.ReportMetric(float64(b.N)/elapsed.Seconds(), "gets/s")
	lat.report(b)
}

// BenchmarkList10kPods: a namespace of 10,000 pods, listed whole (what an
// informer's first list does without pagination) and in pages of 500 (what
// kubectl and client-go's pager do).
func BenchmarkList10kPods(b *testing.B) {
	const pods = 10000
	s := startBenchServer(b)
	s.createNamespace(b, "bench")
	t0 := time.Now()
	s.createPods(b, "bench", "pod", pods)
	b.Logf("setup: %d pods created in %v with 8 clients", pods, time.Since(t0).Round(time.Millisecond))
	ctx := context.Background()

	type listPage struct {
		Metadata struct {
			Continue string `json:"continue"`
		} `json:"metadata"`
		Items []json.RawMessage `json:"items"`
	}
	list := func(b *testing.B, path string) (listPage, int) {
		code, body, err := s.do(ctx, http.MethodGet, path, nil)
		if err != nil || code != http.StatusOK {
			b.Fatalf("list %s: %d %v %.200s", path, code, err, body)
		}
		var page listPage
		if err := json.Unmarshal(body, &page); err != nil {
			b.Fatal(err)
		}
		return page, len(body)
	}

	b.Run("full", func(b *testing.B) {
		for range b.N {
			page, size := list(b, "/api/v1/namespaces/bench/pods")
			if len(page.Items) != pods {
				b.Fatalf("listed %d pods, want %d", len(page.Items), pods)
			}
			b.SetBytes(int64(size))
		}
		b.ReportMetric(float64(pods*b.N)/b.Elapsed().Seconds(), "pods/s")
	})
	b.Run("limit500", func(b *testing.B) {
		for range b.N {
			n, pages := 0, 0
			token := ""
			for {
				path := "/api/v1/namespaces/bench/pods?limit=500"
				if token != "" {
					path += "&continue=" + token
				}
				page, _ := list(b, path)
				n += len(page.Items)
				pages++
				if token = page.Metadata.Continue; token == "" {
					break
				}
			}
			if n != pods || pages != pods/500 {
				b.Fatalf("listed %d pods in %d pages, want %d in %d", n, pages, pods, pods/500)
			}
		}
		b.ReportMetric(float64(pods*b.N)/b.Elapsed().Seconds(), "pods/s")
	})
	b.Run("limit500-first-page", func(b *testing.B) {
		for range b.N {
			if page, _ := list(b, "/api/v1/namespaces/bench/pods?limit=500"); len(page.Items) != 500 {
				b.Fatalf("first page has %d pods, want 500", len(page.Items))
			}
		}
	})
}

// BenchmarkWatchFanout100: 100 clients watch pods; one client creates b.N
// pods. Measured: from the first create until every watcher has decoded
// every ADDED event.
func BenchmarkWatchFanout100(b *testing.B) {
	const watchers = 100
	s := startBenchServer(b)
	s.createNamespace(b, "bench")
	body := s.mustDo(b, http.MethodGet, "/api/v1/namespaces/bench/pods", nil, http.StatusOK)
	var list struct {
		Metadata struct {
			ResourceVersion string `json:"resourceVersion"`
		} `json:"metadata"`
	}
	if err := json.Unmarshal(body, &list); err != nil {
		b.Fatal(err)
	}

	ctx, cancel := context.WithCancel(context.Background())
	var all sync.WaitGroup     // done when every watcher has seen b.N events (or failed)
	var readers sync.WaitGroup // the watchers' goroutines
	all.Add(watchers)
	watchErr := make(chan error, watchers)
	for range watchers {
		req, err := http.NewRequestWithContext(ctx, http.MethodGet,
			s.url+"/api/v1/namespaces/bench/pods?watch=true&resourceVersion="+list.Metadata.ResourceVersion, nil)
		if err != nil {
			b.Fatal(err)
		}
		resp, err := s.client.Do(req)
		if err != nil {
			b.Fatal(err)
		}
		if resp.StatusCode != http.StatusOK {
			b.Fatalf("watch: %d", resp.StatusCode)
		}
		readers.Go(func() {
			defer resp.Body.Close()
			sc := bufio.NewScanner(resp.Body)
			sc.Buffer(make([]byte, 64<<10), 4<<20)
			seen := 0
			for seen < b.N && sc.Scan() {
				var ev struct {
					Type   string `json:"type"`
					Object struct {
						Metadata struct {
							Name string `json:"name"`
						} `json:"metadata"`
					} `json:"object"`
				}
				if err := json.Unmarshal(sc.Bytes(), &ev); err != nil || ev.Type != "ADDED" {
					watchErr <- fmt.Errorf("watch event %q: %v", sc.Text(), err)
					all.Done()
					return
				}
				seen++
			}
			if seen < b.N {
				watchErr <- fmt.Errorf("watch ended after %d of %d events: %v", seen, b.N, sc.Err())
			}
			all.Done()
		})
	}
	b.Cleanup(func() { cancel(); readers.Wait() })

	b.ResetTimer()
	start := time.Now()
	for i := range b.N {
		code, body, err := s.do(context.Background(), http.MethodPost, "/api/v1/namespaces/bench/pods", benchPodJSON(fmt.Sprintf("w-%d", i)))
		if err != nil || code != http.StatusCreated {
			b.Fatalf("create: %d %v %s", code, err, body)
		}
	}
	created := time.Since(start)
	done := make(chan struct{})
	go func() { all.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(time.Minute):
		b.Fatal("the watchers did not get every event within a minute")
	}
	elapsed := time.Since(start)
	b.StopTimer()
	select {
	case err := <-watchErr:
		b.Fatal(err)
	default:
	}
	b.ReportMetric(float64(watchers*b.N)/elapsed.Seconds(), "events/s")
	b.ReportMetric(float64(b.N)/created.Seconds(), "creates/s")
}
