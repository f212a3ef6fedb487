package main

// The admission benchmark (`bench -admission`, `make bench-admission`): what
// one validating admission webhook and one ValidatingAdmissionPolicy add to
// a request. On each server, over a fresh etcd, -admission-creates
// sequential ConfigMap creates over one connection are timed in three
// phases, -reps rounds of them in turn:
//
//   - with no admission configured (the baseline);
//   - with one ValidatingWebhookConfiguration whose webhook (served by this
//     program over TLS on loopback, the same webhook for both servers)
//     allows every ConfigMap of the namespace;
//   - with one ValidatingAdmissionPolicy (a CEL expression on the
//     ConfigMap's data) bound to the namespace, validationActions Deny.
//
// Each phase starts only when the configuration is seen in effect: the
// webhook once a create reached it, the policy once a ConfigMap breaking
// it is refused; and ends with the configuration deleted and seen gone.
// The table shows p50 and p99 of each phase and what the webhook and the
// policy add to the baseline's (a difference of two measured percentiles:
// on a busy machine it can come out below zero, and then has no ratio).

import (
	"context"
	"encoding/json"
	"encoding/pem"
	"flag"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"time"

	"kubik/ch01-apiserver/api/admissionv1"
)

var (
	admissionMode    = flag.Bool("admission", false, "run the admission benchmark (latency added by one validating webhook and one ValidatingAdmissionPolicy) instead of the default one")
	admissionCreates = flag.Int("admission-creates", 1000, "-admission: sequential ConfigMap creates per phase")
)

const admissionNS = "bench-admission"

// benchWebhook is the admission webhook both servers call: it allows every
// request and counts them.
type benchWebhook struct {
	srv   *httptest.Server
	calls atomic.Int64
}

func startBenchWebhook() (*benchWebhook, error) {
	w := &benchWebhook{}
	w.srv = httptest.NewUnstartedServer(http.HandlerFunc(w.serve))
	w.srv.EnableHTTP2 = true
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	w.srv.Listener = ln
	w.srv.StartTLS()
	return w, nil
}

func (w *benchWebhook) serve(rw http.ResponseWriter, r *http.Request) {
	var review admissionv1.AdmissionReview
	if err := json.NewDecoder(http.MaxBytesReader(rw, r.Body, 3<<20)).Decode(&review); err != nil || review.Request == nil {
		http.Error(rw, "bad AdmissionReview", http.StatusBadRequest)
		return
	}
	w.calls.Add(1)
	out := admissionv1.AdmissionReview{TypeMeta: review.TypeMeta,
		Response: &admissionv1.AdmissionResponse{UID: review.Request.UID, Allowed: true}}
	rw.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(rw).Encode(&out)
}

// caBundle is the webhook's serving certificate, PEM, base64 in JSON.
func (w *benchWebhook) caBundle() []byte {
	return pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: w.srv.Certificate().Raw})
}

func (w *benchWebhook) configuration() []byte {
	ca, _ := json.Marshal(w.caBundle()) // []byte → base64 string
	return []byte(`{"apiVersion":"admissionregistration.k8s.io/v1","kind":"ValidatingWebhookConfiguration",
"metadata":{"name":"bench"},"webhooks":[{"name":"bench.kubik.io","admissionReviewVersions":["v1"],"sideEffects":"None",
"failurePolicy":"Fail","timeoutSeconds":5,"clientConfig":{"url":"` + w.srv.URL + `/validate","caBundle":` + string(ca) + `},
"namespaceSelector":{"matchLabels":{"kubernetes.io/metadata.name":"` + admissionNS + `"}},
"rules":[{"apiGroups":[""],"apiVersions":["v1"],"operations":["CREATE"],"resources":["configmaps"],"scope":"Namespaced"}]}]}`)
}

const benchPolicy = `{"apiVersion":"admissionregistration.k8s.io/v1","kind":"ValidatingAdmissionPolicy",
"metadata":{"name":"bench"},"spec":{"failurePolicy":"Fail",
"matchConstraints":{"resourceRules":[{"apiGroups":[""],"apiVersions":["v1"],"operations":["CREATE"],"resources":["configmaps"]}]},
"validations":[{"expression":"!has(object.data) || !('forbidden' in object.data)","message":"forbidden key"}]}}`

const benchPolicyBinding = `{"apiVersion":"admissionregistration.k8s.io/v1","kind":"ValidatingAdmissionPolicyBinding",
"metadata":{"name":"bench"},"spec":{"policyName":"bench","validationActions":["Deny"],
"matchResources":{"namespaceSelector":{"matchLabels":{"kubernetes.io/metadata.name":"` + admissionNS + `"}}}}}`

func forbiddenConfigMap(name string) []byte {
	return []byte(`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"` + name + `"},"data":{"forbidden":"x"}}`)
}

const (
	vwcPath     = "/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations"
	vapPath     = "/apis/admissionregistration.k8s.io/v1/validatingadmissionpolicies"
	vapBindPath = "/apis/admissionregistration.k8s.io/v1/validatingadmissionpolicybindings"
)

// measureAdmission runs the three phases against one server, -reps times
// in turn (so that a slow stretch of the machine falls on every phase
// alike), and pools each phase's latencies.
func measureAdmission(ctx context.Context, c *client, hook *benchWebhook) (result, error) {
	if err := c.setupNamespace(ctx, admissionNS); err != nil {
		return nil, err
	}
	one := c.single()
	defer one.close()
	a := &admissionRun{c: c, one: one, hook: hook, lat: map[string][]float64{}}
	for range *reps {
		if err := a.round(ctx); err != nil {
			return nil, err
		}
	}
	r := result{}
	for _, p := range []string{"none", "webhook", "policy"} {
		lat := a.lat[p]
		slices.Sort(lat)
		r[p+".p50"], r[p+".p99"] = lat[len(lat)/2], lat[len(lat)*99/100]
		if p != "none" {
			r[p+".added.p50"] = r[p+".p50"] - r["none.p50"]
			r[p+".added.p99"] = r[p+".p99"] - r["none.p99"]
		}
	}
	return r, nil
}

// admissionRun is one server's measurement: the clients, the webhook and
// every phase's latencies so far.
type admissionRun struct {
	c, one *client
	hook   *benchWebhook
	seq    int
	lat    map[string][]float64
}

func (a *admissionRun) name(prefix string) string {
	a.seq++
	return fmt.Sprintf("%s-%06d", prefix, a.seq)
}

// phase times -admission-creates sequential creates over one connection,
// after 50 not timed.
func (a *admissionRun) phase(ctx context.Context, name string) error {
	for range 50 {
		if _, err := a.one.create(ctx, admissionNS, "configmaps", configMapJSON(a.name("warm"))); err != nil {
			return err
		}
	}
	lat := make([]float64, 0, *admissionCreates)
	for range *admissionCreates {
		d, err := a.one.create(ctx, admissionNS, "configmaps", configMapJSON(a.name("cm")))
		if err != nil {
			return err
		}
		lat = append(lat, ms(d))
	}
	a.lat[name] = append(a.lat[name], lat...)
	slices.Sort(lat)
	fmt.Printf("  %-8s %d creates: p50 %s ms, p99 %s ms\n", name, len(lat), fmtNum(lat[len(lat)/2]), fmtNum(lat[len(lat)*99/100]))
	return nil
}

// hookCalled creates a ConfigMap and says whether the webhook was called.
func (a *admissionRun) hookCalled(ctx context.Context) (bool, error) {
	before := a.hook.calls.Load()
	_, err := a.c.create(ctx, admissionNS, "configmaps", configMapJSON(a.name("probe")))
	return a.hook.calls.Load() > before, err
}

// policyRefuses creates a ConfigMap breaking the policy and says whether
// the policy refused it.
func (a *admissionRun) policyRefuses(ctx context.Context) (bool, error) {
	code, body, err := a.c.do(ctx, http.MethodPost, "/api/v1/namespaces/"+admissionNS+"/configmaps", forbiddenConfigMap(a.name("bad")))
	if err != nil || code == http.StatusCreated {
		return false, err
	}
	if !strings.Contains(string(body), "forbidden key") {
		return false, fmt.Errorf("a refusal not by the policy: %d %.300s", code, body)
	}
	return true, nil
}

// round is one turn of the three phases, each configuration seen in effect
// before and seen gone after its phase.
func (a *admissionRun) round(ctx context.Context) error {
	c := a.c
	if err := a.phase(ctx, "none"); err != nil {
		return err
	}

	if err := c.mustCreate(ctx, vwcPath, a.hook.configuration()); err != nil {
		return err
	}
	if err := c.until(ctx, "the webhook to be called", func() (bool, error) { return a.hookCalled(ctx) }); err != nil {
		return err
	}
	calls := a.hook.calls.Load()
	if err := a.phase(ctx, "webhook"); err != nil {
		return err
	}
	if got := a.hook.calls.Load() - calls; got < int64(*admissionCreates) {
		return fmt.Errorf("the webhook saw %d of the phase's %d creates", got, *admissionCreates)
	}
	if err := c.mustDelete(ctx, vwcPath+"/bench"); err != nil {
		return err
	}
	if err := c.until(ctx, "the webhook to be gone", func() (bool, error) {
		called, err := a.hookCalled(ctx)
		return !called, err
	}); err != nil {
		return err
	}

	if err := c.mustCreate(ctx, vapPath, []byte(benchPolicy)); err != nil {
		return err
	}
	if err := c.mustCreate(ctx, vapBindPath, []byte(benchPolicyBinding)); err != nil {
		return err
	}
	if err := c.until(ctx, "the policy to refuse", func() (bool, error) { return a.policyRefuses(ctx) }); err != nil {
		return err
	}
	if err := a.phase(ctx, "policy"); err != nil {
		return err
	}
	for _, path := range []string{vapBindPath + "/bench", vapPath + "/bench"} {
		if err := c.mustDelete(ctx, path); err != nil {
			return err
		}
	}
	return c.until(ctx, "the policy to be gone", func() (bool, error) {
		refused, err := a.policyRefuses(ctx)
		return !refused, err
	})
}

func (c *client) mustCreate(ctx context.Context, path string, body []byte) error {
	code, data, err := c.do(ctx, http.MethodPost, path, body)
	if err == nil && code != http.StatusCreated {
		err = fmt.Errorf("POST %s: %d %.300s", path, code, data)
	}
	return err
}

func (c *client) mustDelete(ctx context.Context, path string) error {
	code, data, err := c.do(ctx, http.MethodDelete, path, nil)
	if err == nil && code != http.StatusOK {
		err = fmt.Errorf("DELETE %s: %d %.300s", path, code, data)
	}
	return err
}

// until polls cond every 50 ms for up to a minute.
func (c *client) until(ctx context.Context, what string, cond func() (bool, error)) error {
	deadline := time.Now().Add(time.Minute)
	for {
		ok, err := cond()
		if err != nil {
			return fmt.Errorf("waiting for %s: %w", what, err)
		}
		if ok {
			return nil
		}
		if time.Now().After(deadline) || ctx.Err() != nil {
			return fmt.Errorf("waited a minute for %s", what)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// runAdmission measures upstream (when built) and Kubik, one after another,
// with the same webhook, and prints the table.
func runAdmission(ctx context.Context, tmp, etcdPath, bin, upstream string, want func(string) bool) error {
	hook, err := startBenchWebhook()
	if err != nil {
		return err
	}
	defer hook.srv.Close()
	results, columns, err := measureEach(servers(ctx, bin, upstream, want, false), func(s server) (result, error) {
		return withServer(ctx, filepath.Join(tmp, "admission-"+s.name), etcdPath, s.start, func(c *client) (result, error) {
			return measureAdmission(ctx, c, hook)
		})
	})
	if err != nil {
		return err
	}
	var metrics []metric
	for _, p := range []struct{ key, label string }{{"none", "no admission"}, {"webhook", "one webhook"}, {"policy", "one policy"}} {
		metrics = append(metrics,
			metric{p.key + ".p50", "create, " + p.label + ", p50 ms", false},
			metric{p.key + ".p99", "create, " + p.label + ", p99 ms", false})
	}
	for _, p := range []string{"webhook", "policy"} {
		metrics = append(metrics,
			metric{p + ".added.p50", "added by one " + p + ", p50 ms", false},
			metric{p + ".added.p99", "added by one " + p + ", p99 ms", false})
	}
	fmt.Printf("\n%d sequential ConfigMap creates per phase, %d rounds of the three phases, over one HTTP/2 connection; latencies pooled; ratio = upstream's time / Kubik's, >1 is better for Kubik\n\n", *admissionCreates, *reps)
	printColumns(columns, results, metrics)
	return nil
}
