package main

// The custom resource benchmark (`bench -crd`, `make bench-crd`): on each
// server, over a fresh etcd, the same CustomResourceDefinition is created,
// then
//
//   - -crd-creates Widgets (a custom resource) created by -crd-clients
//     concurrent clients: creates/s;
//   - the same number of ConfigMaps, the same way;
//   - LIST of -crd-list Widgets in one namespace, whole: ms and bytes;
//   - the same for ConfigMaps.
//
// A custom object has no Go type: the server decodes it, prunes, defaults
// and validates it against the schema, and converts and defaults it again
// on every read; the ConfigMap columns say what that costs on each server.

import (
	"context"
	"flag"
	"fmt"
	"net/http"
	"path/filepath"
	"sync"
	"sync/atomic"
	"time"

	"kubik/internal/testenv"
)

var (
	crdMode    = flag.Bool("crd", false, "run the custom resource benchmark (creates/s and LIST of a custom resource vs ConfigMaps) instead of the default one")
	crdCreates = flag.Int("crd-creates", 5000, "-crd: objects of each kind created for creates/s")
	crdClients = flag.Int("crd-clients", 4, "-crd: concurrent clients creating")
	crdList    = flag.Int("crd-list", 10000, "-crd: objects of each kind listed")
)

// benchCRD is the CustomResourceDefinition both servers get: a schema with
// an enum, a default and a pattern, so that pruning, defaulting and
// validation all run.
const benchCRD = `{"apiVersion":"apiextensions.k8s.io/v1","kind":"CustomResourceDefinition",
"metadata":{"name":"widgets.bench.kubik.io"},
"spec":{"group":"bench.kubik.io","scope":"Namespaced","names":{"plural":"widgets","singular":"widget","kind":"Widget","listKind":"WidgetList"},
"versions":[{"name":"v1","served":true,"storage":true,"schema":{"openAPIV3Schema":{"type":"object","properties":{
"spec":{"type":"object","properties":{"color":{"type":"string","enum":["red","green"]},"replicas":{"type":"integer","default":1},
"key":{"type":"string","pattern":"^[a-z]+$"}}}}}}}]}}`

func widgetJSON(name string) []byte {
	return []byte(`{"apiVersion":"bench.kubik.io/v1","kind":"Widget","metadata":{"name":"` + name + `"},"spec":{"color":"red","key":"value"}}`)
}

// crdKind is one of the two kinds measured.
type crdKind struct {
	name, collection string // "widgets", its namespaced collection path
	body             func(name string) []byte
}

func crdKinds(ns string) []crdKind {
	return []crdKind{
		{"widgets", "/apis/bench.kubik.io/v1/namespaces/" + ns + "/widgets", widgetJSON},
		{"configmaps", "/api/v1/namespaces/" + ns + "/configmaps", configMapJSON},
	}
}

// measureCRDServer starts a fresh etcd and the server on it, runs the
// custom resource measurements, and stops both.
func measureCRDServer(ctx context.Context, dir, etcdPath string, start func(dir, etcdURL string) (*testenv.Proc, string, error)) (result, error) {
	return withServer(ctx, dir, etcdPath, start, func(c *client) (result, error) { return measureCRD(ctx, c) })
}

func measureCRD(ctx context.Context, c *client) (result, error) {
	r := result{}
	for _, ns := range []string{"bench-create", "bench-list"} {
		if err := c.setupNamespace(ctx, ns); err != nil {
			return nil, err
		}
	}
	if err := c.installCRD(ctx); err != nil {
		return nil, err
	}
	for _, k := range crdKinds("bench-create") {
		if err := c.createMany(ctx, k, "warm", 50, *crdClients); err != nil {
			return nil, err
		}
		t0 := time.Now()
		if err := c.createMany(ctx, k, "obj", *crdCreates, *crdClients); err != nil {
			return nil, err
		}
		rate := float64(*crdCreates) / time.Since(t0).Seconds()
		r[k.name+".create.rate"] = rate
		fmt.Printf("  %d %s by %d clients: %.0f creates/s\n", *crdCreates, k.name, *crdClients, rate)
	}
	for _, k := range crdKinds("bench-list") {
		if err := c.createMany(ctx, k, "obj", *crdList, 8); err != nil {
			return nil, err
		}
		if _, err := c.listBytes(ctx, k); err != nil { // warm-up
			return nil, err
		}
		var times []float64
		var size int
		for range *reps {
			t0 := time.Now()
			n, err := c.listBytes(ctx, k)
			if err != nil {
				return nil, err
			}
			times = append(times, ms(time.Since(t0)))
			size = n
		}
		r[k.name+".list.ms"], r[k.name+".list.bytes"] = median(times), float64(size)
		fmt.Printf("  LIST %d %s: %v ms, %d bytes\n", *crdList, k.name, fmtList(times), size)
	}
	return r, nil
}

// installCRD creates the CustomResourceDefinition and waits until its
// resource is served.
func (c *client) installCRD(ctx context.Context) error {
	code, body, err := c.do(ctx, http.MethodPost, "/apis/apiextensions.k8s.io/v1/customresourcedefinitions", []byte(benchCRD))
	if err != nil {
		return err
	}
	if code != http.StatusCreated {
		return fmt.Errorf("create CRD: %d %.300s", code, body)
	}
	deadline := time.Now().Add(time.Minute)
	for {
		code, body, err = c.do(ctx, http.MethodGet, crdKinds("bench-create")[0].collection, nil)
		if err == nil && code == http.StatusOK {
			return nil
		}
		if time.Now().After(deadline) || ctx.Err() != nil {
			return fmt.Errorf("widgets not served within a minute: %d %v %.200s", code, err, body)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// createMany creates n objects of k with concurrent clients sharing the
// transport.
func (c *client) createMany(ctx context.Context, k crdKind, prefix string, n, clients int) error {
	var next atomic.Int64
	errs := make(chan error, clients)
	var wg sync.WaitGroup
	for range clients {
		wg.Go(func() {
			for i := next.Add(1) - 1; i < int64(n); i = next.Add(1) - 1 {
				code, data, err := c.do(ctx, http.MethodPost, k.collection, k.body(fmt.Sprintf("%s-%05d", prefix, i)))
				if err == nil && code != http.StatusCreated {
					err = fmt.Errorf("create %s: %d %.300s", k.name, code, data)
				}
				if err != nil {
					errs <- err
					return
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	return <-errs
}

// listBytes lists k's collection whole and returns the body's size.
func (c *client) listBytes(ctx context.Context, k crdKind) (int, error) {
	code, body, err := c.do(ctx, http.MethodGet, k.collection, nil)
	if err != nil {
		return 0, err
	}
	if code != http.StatusOK {
		return 0, fmt.Errorf("list %s: %d %.300s", k.name, code, body)
	}
	return len(body), nil
}

// runCRD measures upstream (when built) and Kubik with the watch cache,
// one after another, and prints the table.
func runCRD(ctx context.Context, tmp, etcdPath, bin, upstream string, want func(string) bool) error {
	results, columns, err := measureEach(servers(ctx, bin, upstream, want, false), func(s server) (result, error) {
		return measureCRDServer(ctx, filepath.Join(tmp, "crd-"+s.name), etcdPath, s.start)
	})
	if err != nil {
		return err
	}
	var metrics []metric
	for _, k := range []string{"widgets", "configmaps"} {
		metrics = append(metrics,
			metric{k + ".create.rate", fmt.Sprintf("%s creates/s (%d, %d clients)", k, *crdCreates, *crdClients), true},
			metric{k + ".list.ms", fmt.Sprintf("LIST %d %s, whole, ms", *crdList, k), false},
			metric{k + ".list.bytes", "  response bytes", false})
	}
	fmt.Printf("\nlist times: medians of %d repetitions; ratio = Kubik vs upstream, >1 is better for Kubik (rates: ours/theirs, times and bytes: theirs/ours)\n\n", *reps)
	printColumns(columns, results, metrics)
	// Within each server: what a custom resource costs against a ConfigMap.
	fmt.Println()
	for _, c := range columns {
		r := results[c]
		fmt.Printf("%s: widgets vs configmaps: creates/s %.2fx, LIST time %.2fx\n", c,
			r["widgets.create.rate"]/r["configmaps.create.rate"], r["widgets.list.ms"]/r["configmaps.list.ms"])
	}
	return nil
}
