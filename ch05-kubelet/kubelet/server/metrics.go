package server

import (
	"context"
	"net/http"

	"kubik/ch03-scheduler/resourcemetrics"
)

// ResourceMetricsProvider is what /metrics/resource asks of the kubelet
// when its HostInterface has it (upstream's stats.SummaryProvider).
type ResourceMetricsProvider interface {
	// GetCPUAndMemoryStats is the node's, its pods' and their
	// containers' CPU and memory usage.
	GetCPUAndMemoryStats(ctx context.Context) (*resourcemetrics.Summary, error)
}

// serveResourceMetrics answers /metrics/resource (authorized as
// nodes/metrics) in the Prometheus text format. Stats that cannot be read
// are resource_scrape_error 1 with status 200, as upstream.
func (s *Server) serveResourceMetrics(w http.ResponseWriter, r *http.Request) {
	var sum *resourcemetrics.Summary
	if p, ok := s.host.(ResourceMetricsProvider); ok {
		var err error
		if sum, err = p.GetCPUAndMemoryStats(r.Context()); err != nil {
			s.log.Error("Error getting summary for resourceMetric prometheus endpoint", "err", err)
			sum = nil
		}
	}
	w.Header().Set("Content-Type", resourcemetrics.ContentType)
	resourcemetrics.Write(w, sum)
}
