//go:build linux

package main_test

import (
	"regexp"
	"sort"
	"strings"
	"testing"
)

// testDNS: the cluster DNS, as pods see it through their resolv.conf:
// a Service's name resolves to its ClusterIP (and wget by the short name
// reaches it, through the search path), SRV records name its ports, a
// headless Service resolves to its pods, a missing name is NXDOMAIN.
func testDNS(t *testing.T, c *testCluster, w *webFixture) {
	c.apply(t, `apiVersion: v1
kind: Service
metadata: {name: web-headless, namespace: web}
spec:
  clusterIP: None
  selector: {app: web}
  ports: [{name: http, port: 8080}]
`)
	t.Cleanup(func() { c.kubectlErr("delete", "service", "web-headless", "-n", w.ns) })

	resolv, err := c.podExec(w.ns, w.client, "cat", "/etc/resolv.conf")
	if want := "search web.svc.cluster.local svc.cluster.local cluster.local\nnameserver 10.96.0.10\noptions ndots:5"; err != nil || resolv != want {
		t.Errorf("the pod's /etc/resolv.conf:\n%s\nwant:\n%s (%v)", resolv, want, err)
	}

	for name, ip := range map[string]string{"web.web.svc.cluster.local": w.clusterIP, "kube-dns.kube-system.svc.cluster.local": "10.96.0.10"} {
		out, err := c.podExec(w.ns, w.client, "nslookup", name)
		if err != nil || !strings.Contains(out+"\n", "Name:\t"+name+"\nAddress: "+ip+"\n") {
			t.Errorf("nslookup %s (want %s): %v\n%s", name, ip, err, out)
		}
	}
	// Short names go through the search path of resolv.conf (busybox's
	// resolver, which wget uses, applies it; its nslookup does not).
	for _, name := range []string{"web", "web.web"} {
		out, err := c.podExec(w.ns, w.client, "wget", "-qO-", "http://"+name)
		if err != nil || !helloRE.MatchString(out) {
			t.Errorf("wget http://%s from the pod: %v\n%s", name, err, out)
		}
	}

	srv := "_http._tcp.web.web.svc.cluster.local"
	out, err := c.podExec(w.ns, w.client, "nslookup", "-type=SRV", srv)
	if err != nil || !strings.Contains(out, srv+"\tservice = 0 100 80 web.web.svc.cluster.local") {
		t.Errorf("nslookup -type=SRV %s: %v\n%s", srv, err, out)
	}

	headless := "web-headless.web.svc.cluster.local"
	var want []string
	for _, p := range w.pods {
		want = append(want, p.ip)
	}
	sort.Strings(want)
	eventually(t, "the headless Service's records", func() (string, bool) {
		out, _ := c.podExec(w.ns, w.client, "nslookup", headless)
		var got []string
		for _, m := range regexp.MustCompile(`(?m)^Address: (\S+)$`).FindAllStringSubmatch(out, -1) {
			got = append(got, m[1])
		}
		sort.Strings(got)
		return out, strings.Join(got, " ") == strings.Join(want, " ")
	})

	out, err = c.podExec(w.ns, w.client, "nslookup", "nope.web.svc.cluster.local")
	if err == nil || !strings.Contains(out, "** server can't find nope.web.svc.cluster.local: NXDOMAIN") {
		t.Errorf("nslookup of a missing name: %v\n%s", err, out)
	}
}
