package apiserver_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"kubik/internal/testenv"
)

// Custom resources against ConfigMaps on the same server: creates one
// after another, and LIST of 10,000 objects whole. A custom object has no Go
// type: it is decoded, pruned, defaulted and validated against its schema,
// and every read converts it to the version asked for and defaults it
// again, so its numbers say what the schema costs.

const benchCRD = `{"apiVersion":"apiextensions.k8s.io/v1","kind":"CustomResourceDefinition",
"metadata":{"name":"widgets.bench.example.com"},
"spec":{"group":"bench.example.com","scope":"Namespaced","names":{"plural":"widgets","kind":"Widget"},
"versions":[{"name":"v1","served":true,"storage":true,"schema":{"openAPIV3Schema":{"type":"object","properties":{
"spec":{"type":"object","properties":{"color":{"type":"string","enum":["red","green"]},"replicas":{"type":"integer","default":1},
"key":{"type":"string"}}}}}}}]}}`

func benchWidgetJSON(name string) []byte {
	return []byte(`{"apiVersion":"bench.example.com/v1","kind":"Widget","metadata":{"name":"` + name + `"},"spec":{"color":"red","key":"value"}}`)
}

const benchWidgets = "/apis/bench.example.com/v1/namespaces/bench/widgets"

// installBenchCRD creates the CRD and waits until its resource is served.
func (s *benchServer) installBenchCRD(tb testing.TB) {
	tb.Helper()
	s.mustDo(tb, http.MethodPost, "/apis/apiextensions.k8s.io/v1/customresourcedefinitions", []byte(benchCRD), http.StatusCreated)
	testenv.Eventually(tb, "the widgets resource is served", 30*time.Second, func() (string, bool) {
		code, body, err := s.do(context.Background(), http.MethodGet, benchWidgets, nil)
		return fmt.Sprintf("%d %v %.100s", code, err, body), err == nil && code == http.StatusOK
	})
}

// BenchmarkCreateCustomResource: one client POSTs Widgets one after another
// (compare BenchmarkCreateConfigMap).
func BenchmarkCreateCustomResource(b *testing.B) {
	s := startBenchServer(b)
	s.createNamespace(b, "bench")
	s.installBenchCRD(b)
	ctx := context.Background()
	lat := make(latencies, 0, b.N)
	b.ResetTimer()
	start := time.Now()
	for i := range b.N {
		t0 := time.Now()
		code, body, err := s.do(ctx, http.MethodPost, benchWidgets, benchWidgetJSON(fmt.Sprintf("w-%d", i)))
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

// BenchmarkList10kCustomResources: 10,000 Widgets and 10,000 ConfigMaps,
// each listed whole.
func BenchmarkList10kCustomResources(b *testing.B) {
	const n = 10000
	s := startBenchServer(b)
	s.createNamespace(b, "bench")
	s.installBenchCRD(b)
	create := func(path string, body func(string) []byte) {
		var next atomic.Int64
		var wg sync.WaitGroup
		for range 8 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for i := next.Add(1) - 1; i < n; i = next.Add(1) - 1 {
					code, out, err := s.do(context.Background(), http.MethodPost, path, body(fmt.Sprintf("o-%d", i)))
					if err != nil || code != http.StatusCreated {
						b.Errorf("create: %d %v %s", code, err, out)
						return
					}
				}
			}()
		}
		wg.Wait()
	}
	create(benchWidgets, benchWidgetJSON)
	create("/api/v1/namespaces/bench/configmaps", benchConfigMapJSON)
	if b.Failed() {
		b.FailNow()
	}
	for _, kind := range []struct{ name, path string }{
		{"widgets", benchWidgets}, {"configmaps", "/api/v1/namespaces/bench/configmaps"},
	} {
		b.Run(kind.name, func(b *testing.B) {
			for range b.N {
				code, body, err := s.do(context.Background(), http.MethodGet, kind.path, nil)
				if err != nil || code != http.StatusOK {
					b.Fatalf("list: %d %v %.200s", code, err, body)
				}
				var list struct {
					Items []json.RawMessage `json:"items"`
				}
				if err := json.Unmarshal(body, &list); err != nil || len(list.Items) < n {
					b.Fatalf("listed %d items (%v), want at least %d", len(list.Items), err, n)
				}
				b.SetBytes(int64(len(body)))
			}
			b.ReportMetric(float64(n*b.N)/b.Elapsed().Seconds(), "objects/s")
		})
	}
}
