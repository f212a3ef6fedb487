package main

import (
	"fmt"
	"io"
	"strconv"
	"text/tabwriter"
	"time"
)

// printReport prints the curve: per mode and Service count, ours next to
// upstream's and the ratio ours/upstream (below 1: ours is faster or
// smaller), then the DNS load.
func printReport(w io.Writer, results []result, dns []dnsResult, withUpstream bool) {
	type key struct {
		mode     string
		services int
	}
	byKey := map[key]map[string]result{}
	var order []key
	for _, r := range results {
		k := key{r.mode, r.services}
		if byKey[k] == nil {
			byKey[k] = map[string]result{}
			order = append(order, k)
		}
		byKey[k][r.who] = r
	}
	fmt.Fprintln(w, "\nkube-proxy, ours vs upstream v1.35.4 (times in ms; ratio = ours/upstream)")
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "mode\tservices\tstart ours\tupstream\tratio\tone change ours\t(sync)\tupstream\t(sync)\tratio\tfull resync ours\tupstream\tratio\trules ours\tupstream\tratio\t")
	for _, k := range order {
		o, u := byKey[k]["ours"], byKey[k]["upstream"]
		if !withUpstream {
			u = result{}
		}
		fmt.Fprintf(tw, "%s\t%d\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t\n", k.mode, k.services,
			ms(o.start), ms(u.start), ratio(o.start, u.start),
			ms(o.oneChange), ms(o.oneChangeSync), ms(u.oneChange), ms(u.oneChangeSync), ratio(o.oneChange, u.oneChange),
			ms(o.resync), ms(u.resync), ratio(o.resync, u.resync),
			count(o.rules), count(u.rules), intRatio(o.rules, u.rules))
	}
	tw.Flush()
	for _, r := range results {
		if r.err != nil {
			fmt.Fprintf(w, "  %s %s at %d Services: %v\n", r.who, r.mode, r.services, r.err)
		}
	}
	if len(dns) == 0 {
		return
	}
	fmt.Fprintln(w, "\ncluster DNS (ours), A queries for random Services over UDP: from this machine's loopback to the server, or from a pod to 10.96.0.10 through our kube-proxy")
	tw = tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "from\tservices\tclients\tqueries/s\tp50 ms\tp99 ms\tfailed\t")
	for _, d := range dns {
		fmt.Fprintf(tw, "%s\t%d\t%d\t%.0f\t%s\t%s\t%d\t\n", d.from, d.services, d.clients, d.qps, msFine(d.p50), msFine(d.p99), d.errs)
	}
	tw.Flush()
	for _, d := range dns {
		if d.err != nil {
			fmt.Fprintf(w, "  DNS from %s at %d Services: %v\n", d.from, d.services, d.err)
		}
	}
}

func count(n int) string {
	if n <= 0 {
		return "-"
	}
	return strconv.Itoa(n)
}

func msFine(d time.Duration) string {
	return fmt.Sprintf("%.2f", float64(d)/float64(time.Millisecond))
}
