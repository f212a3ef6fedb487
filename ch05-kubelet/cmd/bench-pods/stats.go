package main

import (
	"fmt"
	"math"
	"slices"
	"time"
)

// summary is what the benchmark prints of one set of latencies.
type summary struct {
	N                  int
	P50, P90, P99, Max time.Duration
}

// percentile is the nearest-rank percentile (p in 0..100) of sorted: the
// smallest value with at least p% of the samples at or below it, as
// upstream's perf tests compute pod startup latency. With 30 samples p99
// is the maximum.
func percentile(sorted []time.Duration, p float64) time.Duration {
	if len(sorted) == 0 {
		return 0
	}
	rank := int(math.Ceil(p / 100 * float64(len(sorted))))
	return sorted[min(max(rank, 1), len(sorted))-1]
}

// summarize sorts a copy of d and takes its percentiles.
func summarize(d []time.Duration) summary {
	s := slices.Clone(d)
	slices.Sort(s)
	if len(s) == 0 {
		return summary{}
	}
	return summary{N: len(s), P50: percentile(s, 50), P90: percentile(s, 90), P99: percentile(s, 99), Max: s[len(s)-1]}
}

// verdict compares a p99 with a target: "ok" or "OVER", and the ratio.
func verdict(p99, target time.Duration) string {
	word := "ok"
	if p99 >= target {
		word = "OVER"
	}
	return fmt.Sprintf("%-4s %.2fx", word, float64(p99)/float64(target))
}

// ms prints a duration in milliseconds, the unit every column uses.
func ms(d time.Duration) string { return fmt.Sprintf("%d", d.Milliseconds()) }
