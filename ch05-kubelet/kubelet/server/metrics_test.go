package server

import (
	"context"
	"errors"
	"log/slog"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"kubik/ch03-scheduler/resourcemetrics"
)

// statsHost is a kubelet whose stats provider answers sum or err.
type statsHost struct {
	fakeHost
	sum *resourcemetrics.Summary
	err error
}

func (h *statsHost) GetCPUAndMemoryStats(context.Context) (*resourcemetrics.Summary, error) {
	return h.sum, h.err
}

// /metrics/resource prints the provider's numbers; a provider error is
// resource_scrape_error 1 with status 200, as upstream.
func TestResourceMetricsEndpoint(t *testing.T) {
	cpu := uint64(1_500_000_000)
	at := time.UnixMilli(1700000000000)
	for _, tc := range []struct {
		name string
		host *statsHost
		want []string
	}{
		{"stats", &statsHost{sum: &resourcemetrics.Summary{Node: resourcemetrics.NodeStats{
			CPU: &resourcemetrics.CPUStats{Time: at, UsageCoreNanoSeconds: &cpu}}}},
			[]string{"node_cpu_usage_seconds_total 1.5 1700000000000\n", "resource_scrape_error 0\n"}},
		{"error", &statsHost{err: errors.New("runtime down")}, []string{"resource_scrape_error 1\n"}},
	} {
		s := NewServer(tc.host, nil, "node-1", nil, slog.New(slog.DiscardHandler))
		w := httptest.NewRecorder()
		s.routes().ServeHTTP(w, httptest.NewRequest("GET", "/metrics/resource", nil))
		if w.Code != 200 || w.Header().Get("Content-Type") != "text/plain; version=0.0.4; charset=utf-8" {
			t.Errorf("%s: %d %q", tc.name, w.Code, w.Header().Get("Content-Type"))
		}
		for _, want := range tc.want {
			if !strings.Contains(w.Body.String(), want) {
				t.Errorf("%s: body\n%s\nwant %q", tc.name, w.Body.String(), want)
			}
		}
		if tc.name == "error" && strings.Contains(w.Body.String(), "node_") {
			t.Errorf("error: node metrics printed:\n%s", w.Body.String())
		}
	}
}
