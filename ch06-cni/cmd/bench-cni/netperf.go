package main

import (
	"bufio"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/containernetworking/plugins/pkg/ns"

	"kubik/ch01-apiserver/api/corev1"
	"kubik/ch03-scheduler/clientgo/rest"
)

// This file is the third part: TCP between pods, iperf3's two numbers —
// the throughput of one stream and the round-trip time of a one-byte
// request and its answer. Both ends are sockets of this program made inside
// a pod's network namespace (entered through /proc/<pid>/ns/net of a
// process of the pod, as `nsenter --net` would): the traffic goes exactly
// the way the pods' own would — the pod's eth0, its veth, the node's bridge
// and, across nodes, the routes or the VXLAN device.

const perfPort = 5201 // iperf3's

// perfRow is one line of part 3's table.
type perfRow struct {
	backend, path string
	gbps          []float64 // one per stream
	cpuPerGB      []float64 // CPU seconds (all CPUs, the whole machine) per GB moved, one per stream
	rtt           summary
}

func (r perfRow) median() float64 { return median(r.gbps) }

func median(v []float64) float64 {
	if len(v) == 0 {
		return 0
	}
	s := slices.Clone(v)
	slices.Sort(s)
	return s[len(s)/2]
}

// measurePerf places a server pod on node-1 and clients on node-1 and
// node-2, and measures from each client to the server.
func measurePerf(ctx context.Context, p *program, backend string) ([]perfRow, error) {
	run := fmt.Sprintf("perf-%d", time.Now().UnixNano()%100000)
	placement := []struct{ name, node string }{{run + "-server", "node-1"}, {run + "-same", "node-1"}, {run + "-cross", "node-2"}}
	for _, pl := range placement {
		if err := create(ctx, p.admin, sleeperPod(pl.name, run, pl.node)); err != nil {
			return nil, err
		}
	}
	defer deletePods(context.WithoutCancel(ctx), p.admin, run)
	netns := map[string]ns.NetNS{}
	defer func() {
		for _, n := range netns {
			n.Close()
		}
	}()
	var serverIP string
	for _, pl := range placement {
		pod, err := waitRunningPod(ctx, p.admin, pl.name)
		if err != nil {
			return nil, err
		}
		if pod.Spec.NodeName != pl.node {
			return nil, fmt.Errorf("%s runs on %s, not %s", pl.name, pod.Spec.NodeName, pl.node)
		}
		pid, err := podPID(string(pod.UID))
		if err != nil {
			return nil, err
		}
		if netns[pl.name], err = ns.GetNS(fmt.Sprintf("/proc/%d/ns/net", pid)); err != nil {
			return nil, err
		}
		if pl.name == run+"-server" {
			serverIP = pod.Status.PodIP
		}
	}

	ln, err := listenIn(netns[run+"-server"], ":"+strconv.Itoa(perfPort))
	if err != nil {
		return nil, err
	}
	defer ln.Close()
	go serve(ln)
	server := net.JoinHostPort(serverIP, strconv.Itoa(perfPort))
	servers := []string{server, server}

	mtu := "MTU 1500"
	if backend == "vxlan" {
		mtu = "MTU 1450"
	}
	rows := []perfRow{
		{backend: backend, path: "same node (" + mtu + ")"},
		{backend: backend, path: "cross-node " + backend + " (" + mtu + ")"},
	}
	clients := []string{run + "-same", run + "-cross"}
	if backend == "host-gw" {
		// The underlay the pods' traffic crosses between nodes: node-2's
		// eth0 to node-1's, over the bridge in the host's namespace that
		// stands for the machines' network. Cross-node pod traffic cannot be
		// faster than this.
		for _, node := range []string{"node-1", "node-2"} {
			if netns[node], err = ns.GetNS(p.nodeNetNS[node]); err != nil {
				return nil, err
			}
		}
		nln, err := listenIn(netns["node-1"], net.JoinHostPort(p.nodeIPs["node-1"], strconv.Itoa(perfPort)))
		if err != nil {
			return nil, err
		}
		defer nln.Close()
		go serve(nln)
		rows = append(rows, perfRow{backend: backend, path: "node to node, eth0 (the underlay)"})
		clients = append(clients, "node-2")
		servers = append(servers, nln.Addr().String())
	}
	// Streams alternate between the pairs, so that a change of the
	// machine's load hits both alike.
	for range *repeats {
		for i, c := range clients {
			busy0 := cpuBusy()
			gbps, took, err := stream(netns[c], servers[i], *seconds)
			if err != nil {
				return nil, fmt.Errorf("%s: stream: %w", rows[i].path, err)
			}
			gb := gbps * took.Seconds() / 8
			rows[i].gbps = append(rows[i].gbps, gbps)
			rows[i].cpuPerGB = append(rows[i].cpuPerGB, (cpuBusy()-busy0).Seconds()/gb)
		}
	}
	for i, c := range clients {
		rtts, err := pingPong(netns[c], servers[i], *pings)
		if err != nil {
			return nil, fmt.Errorf("%s: round trips: %w", rows[i].path, err)
		}
		rows[i].rtt = summarize(rtts)
		fmt.Printf("  %-34s %s Gbit/s, round trip p50 %v p99 %v (load average %s)\n", rows[i].path,
			gbpsList(rows[i].gbps), rows[i].rtt.P50.Round(time.Microsecond), rows[i].rtt.P99.Round(time.Microsecond), loadavg())
	}
	return rows, nil
}

// waitRunningPod waits until the pod's container runs and it has an IP.
func waitRunningPod(ctx context.Context, c *rest.Client, name string) (*corev1.Pod, error) {
	deadline := time.Now().Add(3 * time.Minute)
	for {
		pod, err := rest.Get[corev1.Pod](ctx, c, "default", name)
		if err == nil && allRunning(pod) && pod.Status.PodIP != "" {
			return pod, nil
		}
		if time.Now().After(deadline) {
			return nil, fmt.Errorf("pod %s not running after 3 minutes (last error %v)", name, err)
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// podPID finds a process of the pod: one whose cgroup path has the pod's
// directory, pod<uid> (the kubelet's cgroup of the pod, which holds its
// sandbox's pause and its containers).
func podPID(uid string) (int, error) {
	mark := "/pod" + uid + "/"
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return 0, err
	}
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		f, err := os.Open(filepath.Join("/proc", e.Name(), "cgroup"))
		if err != nil {
			continue
		}
		found := false
		sc := bufio.NewScanner(io.LimitReader(f, 64<<10))
		for sc.Scan() && !found {
			found = strings.Contains(sc.Text(), mark)
		}
		f.Close()
		if found {
			return pid, nil
		}
	}
	return 0, fmt.Errorf("no process in a cgroup of pod %s", uid)
}

// The protocol: the client's first byte says what follows. 'T': bytes
// until the client closes its side, then the server answers with how many
// it read (8 bytes, big-endian). 'P': one byte at a time, each sent back.
const (
	modeStream   = 'T'
	modePingPong = 'P'
	bufSize      = 128 << 10
)

func serve(ln net.Listener) {
	for {
		c, err := ln.Accept()
		if err != nil {
			return
		}
		go func() {
			defer c.Close()
			var mode [1]byte
			if _, err := io.ReadFull(c, mode[:]); err != nil {
				return
			}
			switch mode[0] {
			case modeStream:
				buf := make([]byte, bufSize)
				var total uint64
				for {
					n, err := c.Read(buf)
					total += uint64(n)
					if err != nil {
						break
					}
				}
				binary.Write(c, binary.BigEndian, total)
			case modePingPong:
				var b [1]byte
				for {
					if _, err := io.ReadFull(c, b[:]); err != nil {
						return
					}
					if _, err := c.Write(b[:]); err != nil {
						return
					}
				}
			}
		}()
	}
}

// listenIn listens on addr inside the network namespace n.
func listenIn(n ns.NetNS, addr string) (net.Listener, error) {
	var ln net.Listener
	err := n.Do(func(ns.NetNS) (err error) {
		ln, err = net.Listen("tcp", addr)
		return err
	})
	return ln, err
}

// dialFrom connects to server from inside the network namespace n.
func dialFrom(n ns.NetNS, server string) (net.Conn, error) {
	var c net.Conn
	err := n.Do(func(ns.NetNS) (err error) {
		c, err = net.DialTimeout("tcp", server, 10*time.Second)
		return err
	})
	return c, err
}

// stream sends for d and returns the throughput the server counted, in
// Gbit/s, over the time until its count arrived (also returned).
func stream(n ns.NetNS, server string, d time.Duration) (float64, time.Duration, error) {
	c, err := dialFrom(n, server)
	if err != nil {
		return 0, 0, err
	}
	defer c.Close()
	if _, err := c.Write([]byte{modeStream}); err != nil {
		return 0, 0, err
	}
	buf := make([]byte, bufSize)
	start := time.Now()
	for time.Since(start) < d {
		if _, err := c.Write(buf); err != nil {
			return 0, 0, err
		}
	}
	if err := c.(*net.TCPConn).CloseWrite(); err != nil {
		return 0, 0, err
	}
	var total uint64
	if err := binary.Read(c, binary.BigEndian, &total); err != nil {
		return 0, 0, err
	}
	el := time.Since(start)
	if total == 0 {
		return 0, 0, errors.New("the server counted nothing")
	}
	return float64(total) * 8 / el.Seconds() / 1e9, el, nil
}

// cpuBusy is the CPU time the whole machine has spent so far, all CPUs,
// idle and I/O wait excepted (/proc/stat): other work on the machine
// counts too.
func cpuBusy() time.Duration {
	data, err := os.ReadFile("/proc/stat")
	if err != nil {
		return 0
	}
	line, _, _ := strings.Cut(string(data), "\n")
	f := strings.Fields(line) // cpu user nice system idle iowait irq softirq steal ...
	var ticks int64
	for i, v := range f[1:min(len(f), 9)] {
		if i == 3 || i == 4 {
			continue // idle, iowait
		}
		t, _ := strconv.ParseInt(v, 10, 64)
		ticks += t
	}
	return time.Duration(ticks) * time.Second / 100 // USER_HZ
}

// pingPong times count round trips of one byte on one connection.
func pingPong(n ns.NetNS, server string, count int) ([]time.Duration, error) {
	c, err := dialFrom(n, server)
	if err != nil {
		return nil, err
	}
	defer c.Close()
	if _, err := c.Write([]byte{modePingPong}); err != nil {
		return nil, err
	}
	rtts := make([]time.Duration, 0, count)
	var b [1]byte
	for range count {
		start := time.Now()
		if _, err := c.Write(b[:]); err != nil {
			return nil, err
		}
		if _, err := io.ReadFull(c, b[:]); err != nil {
			return nil, err
		}
		rtts = append(rtts, time.Since(start))
	}
	return rtts, nil
}

func gbpsList(v []float64) string {
	var s []string
	for _, x := range v {
		s = append(s, fmt.Sprintf("%.2f", x))
	}
	return strings.Join(s, " ")
}

func printPerf(rows []perfRow) {
	fmt.Printf("\npod-to-pod TCP: one stream of %v (median of %d), %d round trips of 1 byte\n", *seconds, *repeats, *pings)
	fmt.Printf("%-36s %8s  %-20s %9s %9s %9s  %s\n", "path", "Gbit/s", "(streams)", "CPU s/GB", "RTT p50", "RTT p99", "vs same node (host-gw cluster)")
	var base float64
	for _, r := range rows {
		if r.backend == "host-gw" && strings.HasPrefix(r.path, "same node") {
			base = r.median()
		}
	}
	for _, r := range rows {
		ratio := ""
		if base > 0 {
			ratio = fmt.Sprintf("%.2fx", r.median()/base)
			if r.path == "cross-node host-gw (MTU 1500)" {
				verdict := "ok"
				if r.median() < 0.9*base {
					verdict = "BELOW"
				}
				ratio += " (target >= 0.90x: " + verdict + ")"
			}
		}
		fmt.Printf("%-36s %8.2f  %-20s %9.2f %7dµs %7dµs  %s\n", r.path, r.median(), "("+gbpsList(r.gbps)+")",
			median(r.cpuPerGB), r.rtt.P50.Microseconds(), r.rtt.P99.Microseconds(), ratio)
	}
}
