// Command bench-ingress measures the ingress controller on a running
// chapter 7 cluster (`make ch07-run`, then `make bench-ingress`): the
// same HTTP load through the controller's node port (Ingress host
// bench.example) and straight to the Service's ClusterIP (kube-proxy's
// rules only), from one node's network namespace: requests/s, p50, p99
// and the ratio of the two.
//
// It creates the namespace bench-ingress (a demo Deployment of -replicas
// pods, its Service, an Ingress) with kubectl, waits for the routes, runs
// -clients concurrent keep-alive clients for -duration against each
// target in turn (a copy of itself inside the node's namespace: -load),
// prints a table, and deletes the namespace. It needs root (ip netns exec).
package main

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"slices"
	"strings"
	"sync"
	"time"
)

var (
	kubeconfig = flag.String("kubeconfig", os.Getenv("KUBECONFIG"), "the cluster's admin kubeconfig")
	kubectl    = flag.String("kubectl", "kubectl", "kubectl binary")
	netns      = flag.String("netns", "", "network namespace of the node to send from (ip netns list: kubik-<id>-node-1)")
	clients    = flag.Int("clients", 16, "concurrent clients")
	duration   = flag.Duration("duration", 10*time.Second, "how long each target is loaded")
	replicas   = flag.Int("replicas", 3, "demo pods behind the Service")

	// -load: one run of the load inside a namespace (the program runs itself).
	load     = flag.Bool("load", false, "internal: run the load against -url and print the result as JSON")
	loadURL  = flag.String("url", "", "internal: the URL to load")
	loadHost = flag.String("host", "", "internal: the Host header")
)

const namespace = "bench-ingress"

const manifest = `apiVersion: v1
kind: Namespace
metadata: {name: bench-ingress}
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: web, namespace: bench-ingress}
spec:
  replicas: %d
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec:
      containers:
      - name: web
        image: kubik.local/demo:1.0
        ports: [{name: http, containerPort: 8080}]
        env:
        - {name: POD_NAME, valueFrom: {fieldRef: {fieldPath: metadata.name}}}
        readinessProbe:
          httpGet: {path: /healthz, port: 8080}
          periodSeconds: 1
---
apiVersion: v1
kind: Service
metadata: {name: web, namespace: bench-ingress}
spec:
  selector: {app: web}
  ports: [{name: http, port: 80, targetPort: http}]
---
apiVersion: networking.k8s.io/v1
kind: Ingress
metadata: {name: web, namespace: bench-ingress}
spec:
  ingressClassName: kubik
  rules:
  - host: bench.example
    http:
      paths:
      - {path: /, pathType: Prefix, backend: {service: {name: web, port: {number: 80}}}}
`

// result is one target's load.
type result struct {
	Requests, Errors int
	Seconds          float64
	P50, P99         time.Duration
}

func main() {
	flag.Parse()
	if *load {
		r := runLoad(*loadURL, *loadHost, *clients, *duration)
		json.NewEncoder(os.Stdout).Encode(r)
		return
	}
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "bench-ingress:", err)
		os.Exit(1)
	}
}

func run() error {
	if *netns == "" {
		return fmt.Errorf("-netns is required (a node's network namespace: ip netns list)")
	}
	if _, err := k(fmt.Sprintf(manifest, *replicas), "apply", "-f", "-"); err != nil {
		return err
	}
	defer k("", "delete", "namespace", namespace, "--wait=false")
	if out, err := k("", "rollout", "status", "-n", namespace, "deployment/web", "--timeout=180s"); err != nil {
		return fmt.Errorf("%v: %s", err, out)
	}
	clusterIP, err := k("", "get", "service", "web", "-n", namespace, "-o", "jsonpath={.spec.clusterIP}")
	if err != nil {
		return err
	}
	nodeIP, err := nodeIPOf(*netns)
	if err != nil {
		return err
	}
	self, err := os.Executable()
	if err != nil {
		return err
	}
	targets := []struct{ name, url, host string }{
		{"ingress (node port 30080, Host bench.example)", "http://" + nodeIP + ":30080/", "bench.example"},
		{"ClusterIP " + clusterIP + ":80 (kube-proxy only)", "http://" + clusterIP + "/", ""},
	}
	// Wait until both answer from every pod's Service: the Ingress has
	// its status and the controller its table.
	for _, tg := range targets {
		deadline := time.Now().Add(3 * time.Minute)
		for {
			out, err := exec.Command("ip", "netns", "exec", *netns, "curl", "-sS", "--max-time", "5", "-H", "Host: "+tg.host, tg.url).CombinedOutput()
			if err == nil && strings.Contains(string(out), "Hello from web-") {
				break
			}
			if time.Now().After(deadline) {
				return fmt.Errorf("%s does not answer: %s", tg.url, out)
			}
			time.Sleep(time.Second)
		}
	}
	var res []result
	for _, tg := range targets {
		out, err := exec.Command("ip", "netns", "exec", *netns, self, "-load", "-url", tg.url, "-host", tg.host,
			fmt.Sprintf("-clients=%d", *clients), "-duration="+duration.String()).Output()
		if err != nil {
			return fmt.Errorf("load of %s: %v", tg.url, err)
		}
		var r result
		if err := json.Unmarshal(out, &r); err != nil {
			return err
		}
		res = append(res, r)
	}
	fmt.Printf("%d clients, %s each, from %s, %d demo pods\n\n", *clients, *duration, *netns, *replicas)
	fmt.Printf("%-48s %10s %8s %10s %10s\n", "target", "req/s", "errors", "p50", "p99")
	for i, tg := range targets {
		r := res[i]
		fmt.Printf("%-48s %10.0f %8d %10s %10s\n", tg.name, float64(r.Requests)/r.Seconds, r.Errors, r.P50, r.P99)
	}
	in, direct := res[0], res[1]
	fmt.Printf("\nthrough the ingress: %.2f× the ClusterIP's requests/s, p99 %.2f× the ClusterIP's\n",
		(float64(in.Requests)/in.Seconds)/(float64(direct.Requests)/direct.Seconds), float64(in.P99)/float64(direct.P99))
	return nil
}

// k runs kubectl with stdin.
func k(stdin string, args ...string) (string, error) {
	cmd := exec.Command(*kubectl, append([]string{"--kubeconfig", *kubeconfig}, args...)...)
	cmd.Stdin = strings.NewReader(stdin)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err := cmd.Run()
	if err != nil {
		return out.String(), fmt.Errorf("kubectl %s: %v: %s", strings.Join(args, " "), err, out.String())
	}
	return strings.TrimSpace(out.String()), nil
}

// nodeIPOf is the address of eth0 in the node's namespace.
func nodeIPOf(ns string) (string, error) {
	out, err := exec.Command("ip", "netns", "exec", ns, "ip", "-4", "-o", "addr", "show", "dev", "eth0").Output()
	if err != nil {
		return "", fmt.Errorf("the address of eth0 in %s: %v", ns, err)
	}
	f := strings.Fields(string(out))
	for i, s := range f {
		if s == "inet" && i+1 < len(f) {
			return strings.Split(f[i+1], "/")[0], nil
		}
	}
	return "", fmt.Errorf("no IPv4 address on eth0 in %s", ns)
}

// runLoad sends GETs from n clients until d has passed.
func runLoad(url, host string, n int, d time.Duration) result {
	tr := &http.Transport{MaxIdleConnsPerHost: n, DialContext: (&net.Dialer{Timeout: 5 * time.Second}).DialContext}
	c := &http.Client{Transport: tr, Timeout: 10 * time.Second}
	var mu sync.Mutex
	var lat []time.Duration
	errors := 0
	start := time.Now()
	end := start.Add(d)
	var wg sync.WaitGroup
	for range n {
		wg.Go(func() {
			var mine []time.Duration
			bad := 0
			for time.Now().Before(end) {
				req, _ := http.NewRequest(http.MethodGet, url, nil)
				if host != "" {
					req.Host = host
				}
				t0 := time.Now()
				resp, err := c.Do(req)
				if err == nil {
					_, err = io.Copy(io.Discard, resp.Body)
					resp.Body.Close()
					if resp.StatusCode != http.StatusOK {
						err = fmt.Errorf("%s", resp.Status)
					}
				}
				if err != nil {
					bad++
					continue
				}
				mine = append(mine, time.Since(t0))
			}
			mu.Lock()
			lat = append(lat, mine...)
			errors += bad
			mu.Unlock()
		})
	}
	wg.Wait()
	secs := time.Since(start).Seconds()
	slices.Sort(lat)
	r := result{Requests: len(lat), Errors: errors, Seconds: secs}
	if len(lat) > 0 {
		r.P50 = lat[len(lat)/2].Round(time.Microsecond)
		r.P99 = lat[len(lat)*99/100].Round(time.Microsecond)
	}
	return r
}
