package main

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"kubik/ch01-apiserver/pki"
)

// requestCounts reads kube-apiserver's apiserver_request_total from
// /metrics, summed by "VERB resource/subresource" (all codes). An apiserver
// without /metrics (ours) gives nil. The difference of two readings shows
// what a scheduler asked of the apiserver, request by request.
func requestCounts(ctx context.Context, adminKubeconfig string) map[string]float64 {
	k, err := pki.LoadKubeconfig(adminKubeconfig)
	if err != nil {
		return nil
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, strings.TrimSuffix(k.Server, "/")+"/metrics", nil)
	if err != nil {
		return nil
	}
	resp, err := k.HTTPClient().Do(req)
	if err != nil {
		return nil
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil || resp.StatusCode != http.StatusOK {
		return nil
	}
	return parseRequestTotals(body)
}

var metricLabel = regexp.MustCompile(`(\w+)="([^"]*)"`)

func parseRequestTotals(body []byte) map[string]float64 {
	out := map[string]float64{}
	sc := bufio.NewScanner(bytes.NewReader(body))
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		if !strings.HasPrefix(line, "apiserver_request_total{") {
			continue
		}
		end := strings.LastIndexByte(line, '}')
		v, err := strconv.ParseFloat(strings.TrimSpace(line[end+1:]), 64)
		if end < 0 || err != nil {
			continue
		}
		labels := map[string]string{}
		for _, m := range metricLabel.FindAllStringSubmatch(line[:end], -1) {
			labels[m[1]] = m[2]
		}
		key := labels["verb"] + " " + labels["resource"]
		if labels["subresource"] != "" {
			key += "/" + labels["subresource"]
		}
		out[key] += v
	}
	return out
}

// requestDelta formats after-before, the largest first, counts of at least
// min: "POST pods/binding 5000, POST events 5000, ...".
func requestDelta(before, after map[string]float64, min float64) string {
	type kv struct {
		k string
		v float64
	}
	var d []kv
	for k, v := range after {
		if dv := v - before[k]; dv >= min {
			d = append(d, kv{k, dv})
		}
	}
	slices.SortFunc(d, func(a, b kv) int {
		if a.v != b.v {
			if a.v > b.v {
				return -1
			}
			return 1
		}
		return strings.Compare(a.k, b.k)
	})
	var parts []string
	for _, e := range d {
		parts = append(parts, fmt.Sprintf("%s %.0f", e.k, e.v))
	}
	return strings.Join(parts, ", ")
}
