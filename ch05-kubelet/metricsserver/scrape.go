package metricsserver

// Scraping: one GET /metrics/resource per node and resolution, parsed into
// the few series the metrics server keeps (upstream's pkg/scraper).

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/netip"
	"strconv"
	"strings"
	"time"

	"kubik/ch01-apiserver/api/corev1"
	"kubik/ch03-scheduler/resourcemetrics"
)

// maxScrapeBytes bounds one kubelet's answer.
const maxScrapeBytes = 16 << 20

// point is a cumulative CPU time and a working set, read at ts.
type point struct {
	start  time.Time // the container's start (zero for nodes and pods)
	ts     time.Time // when CPU was read
	cpu    float64   // core-seconds, cumulative
	memory float64   // bytes
	hasCPU bool
	hasMem bool
}

// containerKey names one container of one pod.
type containerKey struct{ namespace, pod, container string }

// batch is what one scrape of one node gave.
type batch struct {
	node       point
	hasNode    bool
	containers map[containerKey]point
}

// nodeAddress is where the node's kubelet listens: the first address of
// the preferred types that is an IP (names are never looked up: a name
// could lead off this machine), and the node's kubelet port
// (--kubelet-use-node-status-port) or --kubelet-port. ok is false when the
// node has neither.
func (s *Server) nodeAddress(n *corev1.Node) (string, error) {
	port := s.cfg.KubeletPort
	if s.cfg.KubeletUseNodeStatusPort {
		port = int(n.Status.DaemonEndpoints.KubeletEndpoint.Port)
	}
	if port <= 0 {
		return "", fmt.Errorf("node %q reports no kubelet port", n.Name)
	}
	for _, t := range s.cfg.KubeletPreferredAddressTypes {
		for _, a := range n.Status.Addresses {
			if string(a.Type) != t {
				continue
			}
			if _, err := netip.ParseAddr(a.Address); err != nil {
				continue
			}
			return net.JoinHostPort(a.Address, strconv.Itoa(port)), nil
		}
	}
	return "", fmt.Errorf("node %q has no address of the preferred types %v that is an IP", n.Name, s.cfg.KubeletPreferredAddressTypes)
}

// scrape reads one node's resource metrics.
func (s *Server) scrape(ctx context.Context, n *corev1.Node) (*batch, error) {
	addr, err := s.nodeAddress(n)
	if err != nil {
		return nil, err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, "https://"+addr+"/metrics/resource", nil)
	if err != nil {
		return nil, err
	}
	if s.token != "" {
		req.Header.Set("Authorization", "Bearer "+s.token)
	}
	resp, err := s.kubelets.Do(req)
	if err != nil {
		return nil, fmt.Errorf("request failed: %w", err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		body, _ := io.ReadAll(io.LimitReader(resp.Body, 512))
		return nil, fmt.Errorf("request failed, status: %q: %s", resp.Status, strings.TrimSpace(string(body)))
	}
	return parse(io.LimitReader(resp.Body, maxScrapeBytes))
}

// parse reads the series of the Prometheus text format the metrics server
// uses; anything else is skipped.
func parse(r io.Reader) (*batch, error) {
	b := &batch{containers: map[containerKey]point{}}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64<<10), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		if line == "" || line[0] == '#' {
			continue
		}
		name, labels, value, ts, err := parseSample(line)
		if err != nil {
			return nil, err
		}
		switch name {
		case resourcemetrics.NodeCPU:
			b.hasNode = true
			b.node.cpu, b.node.ts, b.node.hasCPU = value, ts, true
		case resourcemetrics.NodeMemory:
			b.hasNode = true
			b.node.memory, b.node.hasMem = value, true
		case resourcemetrics.ContainerCPU, resourcemetrics.ContainerMemory, resourcemetrics.ContainerStartTime:
			k := containerKey{labels["namespace"], labels["pod"], labels["container"]}
			p := b.containers[k]
			switch name {
			case resourcemetrics.ContainerCPU:
				p.cpu, p.ts, p.hasCPU = value, ts, true
			case resourcemetrics.ContainerMemory:
				p.memory, p.hasMem = value, true
			default:
				p.start = time.Unix(0, int64(value*float64(time.Second)))
			}
			b.containers[k] = p
		}
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("reading the metrics: %w", err)
	}
	return b, nil
}

// parseSample splits `name{a="x",b="y"} value [timestamp-ms]`.
func parseSample(line string) (name string, labels map[string]string, value float64, ts time.Time, err error) {
	rest := line
	if i := strings.IndexAny(rest, "{ "); i < 0 {
		return "", nil, 0, ts, fmt.Errorf("malformed sample %q", truncate(line))
	} else {
		name, rest = rest[:i], rest[i:]
	}
	if strings.HasPrefix(rest, "{") {
		labels = map[string]string{}
		rest = rest[1:]
		for !strings.HasPrefix(rest, "}") {
			eq := strings.Index(rest, `="`)
			if eq <= 0 {
				return "", nil, 0, ts, fmt.Errorf("malformed labels in %q", truncate(line))
			}
			key := rest[:eq]
			rest = rest[eq+2:]
			var v strings.Builder
			for {
				if rest == "" {
					return "", nil, 0, ts, fmt.Errorf("unterminated label value in %q", truncate(line))
				}
				c := rest[0]
				rest = rest[1:]
				if c == '"' {
					break
				}
				if c == '\\' && rest != "" {
					c = rest[0]
					rest = rest[1:]
					if c == 'n' {
						c = '\n'
					}
				}
				v.WriteByte(c)
			}
			labels[key] = v.String()
			rest = strings.TrimPrefix(rest, ",")
		}
		rest = rest[1:]
	}
	fields := strings.Fields(rest)
	if len(fields) == 0 || len(fields) > 2 {
		return "", nil, 0, ts, fmt.Errorf("malformed sample %q", truncate(line))
	}
	if value, err = strconv.ParseFloat(fields[0], 64); err != nil {
		return "", nil, 0, ts, fmt.Errorf("malformed value in %q", truncate(line))
	}
	if len(fields) == 2 {
		ms, err := strconv.ParseInt(fields[1], 10, 64)
		if err != nil {
			return "", nil, 0, ts, fmt.Errorf("malformed timestamp in %q", truncate(line))
		}
		ts = time.UnixMilli(ms)
	}
	return name, labels, value, ts, nil
}

func truncate(s string) string {
	if len(s) > 200 {
		return s[:200] + "..."
	}
	return s
}
