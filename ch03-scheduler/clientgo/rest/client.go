// Package client is the typed REST client every component from chapter 3 on
// talks to the apiserver with: what client-go's rest.RESTClient and typed
// clientsets do, in a few hundred readable lines.
//
// A Client holds one identity (the client certificate of a component's
// kubeconfig), one HTTP/2 connection pool and one client-side rate limiter
// (--kube-api-qps/--kube-api-burst). Requests are JSON; the typed helpers ask
// for answers in protobuf first, as client-go's clientsets in kube-scheduler
// and kube-controller-manager do, and decode whichever format comes back
// (custom resources answer in JSON) into our API types. The generic helpers
// in typed.go find a type's REST path in the apiserver's own resource table
// (package scheme):
//
//	pod, err := client.Get[corev1.Pod](ctx, c, "default", "web")
//	nodes, err := client.List[corev1.Node](ctx, c, "", client.ListOptions{})
//	w, err := client.Watch[corev1.Pod](ctx, c, "", client.ListOptions{ResourceVersion: nodes.ResourceVersion})
//
// Upstream: k8s.io/client-go/rest and k8s.io/client-go/kubernetes.
package rest

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"mime"
	"net/http"
	"net/url"
	"reflect"
	"strconv"
	"strings"
	"sync"
	"time"

	"kubik/ch01-apiserver/api/metav1"
	"kubik/ch01-apiserver/apiserver/protobuf"
	"kubik/ch01-apiserver/pki"
	"kubik/ch03-scheduler/clientgo/util/flowcontrol"
)

// Defaults of the client-side rate limit, as kube-scheduler's
// --kube-api-qps and --kube-api-burst.
const (
	DefaultQPS   = 50
	DefaultBurst = 100
)

// Config says how to reach the apiserver and as whom.
type Config struct {
	// Kubeconfig is the resolved current context: server URL and TLS identity.
	Kubeconfig *pki.Kubeconfig
	// UserAgent names the component in the apiserver's logs and in
	// managedFields ("kube-scheduler", "kubelet/hollow-node-1").
	UserAgent string
	// QPS and Burst limit the requests per second this client sends (a token
	// bucket). 0 means the defaults above; a negative QPS disables the limit.
	QPS   float64
	Burst int
	// Timeout bounds each non-watch request (0: no limit but the context's).
	Timeout time.Duration
}

// Client talks to one apiserver as one user.
type Client struct {
	server    *url.URL
	http      *http.Client
	userAgent string
	limiter   *flowcontrol.TokenBucket // nil: no client-side limit
	timeout   time.Duration
	inflight  chan struct{} // a slot per request in flight (not watches): at most MaxInFlight
}

// MaxInFlight bounds the requests a Client has in flight at once (watches
// not counted). All of them share one HTTP/2 connection, and kube-apiserver
// allows 100 concurrent streams on a connection (ours: 250). A request over
// the server's limit makes Go's transport dial another TLS connection for
// it: a burst of 5000 bindings (a scheduler that decides faster than the
// apiserver writes) used to dial thousands of connections at once, whose
// handshakes cost both sides more CPU than the bindings. Upstream's
// client-go has no such bound; its components rarely outrun the apiserver.
const MaxInFlight = 64

// New reads the kubeconfig at path and returns a client with the default
// rate limit.
func New(kubeconfigPath, userAgent string) (*Client, error) {
	k, err := pki.LoadKubeconfig(kubeconfigPath)
	if err != nil {
		return nil, err
	}
	return NewForConfig(Config{Kubeconfig: k, UserAgent: userAgent})
}

// NewForConfig returns a client for cfg.
func NewForConfig(cfg Config) (*Client, error) {
	if cfg.Kubeconfig == nil {
		return nil, fmt.Errorf("client: no kubeconfig")
	}
	u, err := url.Parse(cfg.Kubeconfig.Server)
	if err != nil {
		return nil, fmt.Errorf("client: server URL: %w", err)
	}
	c := &Client{server: u, http: cfg.Kubeconfig.HTTPClient(), userAgent: cfg.UserAgent, timeout: cfg.Timeout,
		inflight: make(chan struct{}, MaxInFlight)}
	qps, burst := cfg.QPS, cfg.Burst
	if qps == 0 {
		qps = DefaultQPS
	}
	if burst <= 0 {
		burst = DefaultBurst
	}
	if qps > 0 {
		c.limiter = flowcontrol.NewTokenBucketRateLimiter(qps, burst)
	}
	return c, nil
}

// Server is the apiserver's URL.
func (c *Client) Server() string { return c.server.String() }

// Request is one call to the apiserver.
type Request struct {
	Method string
	Path   string // "/api/v1/namespaces/default/pods"
	Query  url.Values
	// ContentType of Body; application/json when empty.
	ContentType string
	Body        []byte
	// Accept lists the media types the answer may come in; application/json
	// when empty. The typed helpers send AcceptProtobuf for our API types.
	Accept string
}

// AcceptProtobuf is the Accept header of client-go's clientsets in the
// control plane's components: protobuf first, JSON for what has no
// protobuf form.
const AcceptProtobuf = protobuf.ContentType + ",application/json"

// Do sends r and decodes a successful answer's body, JSON or protobuf, into
// out (unless out is nil). An answer with status 300 or more is returned as a
// *StatusError. A 429 Too Many Requests (the apiserver's priority and
// fairness, or its max-in-flight limit) is retried after Retry-After, as
// client-go does.
func (c *Client) Do(ctx context.Context, r Request, out any) error {
	if c.timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, c.timeout)
		defer cancel()
	}
	for attempt := 0; ; attempt++ {
		resp, data, err := c.roundTrip(ctx, r)
		if err != nil {
			return err
		}
		if resp.StatusCode == http.StatusTooManyRequests && attempt < maxRetries {
			if err := sleep(ctx, retryAfter(resp)); err != nil {
				return err
			}
			continue
		}
		if resp.StatusCode >= 300 {
			return statusErrorFromResponse(resp, data)
		}
		if out == nil || len(data) == 0 {
			return nil
		}
		if err := decodeAnswer(resp.Header.Get("Content-Type"), data, out); err != nil {
			return fmt.Errorf("%s %s: decoding the answer: %w", r.Method, r.Path, err)
		}
		return nil
	}
}

// roundTrip sends r and reads the whole answer, holding one of the
// MaxInFlight slots meanwhile.
func (c *Client) roundTrip(ctx context.Context, r Request) (*http.Response, []byte, error) {
	select {
	case c.inflight <- struct{}{}:
	case <-ctx.Done():
		return nil, nil, ctx.Err()
	}
	defer func() { <-c.inflight }()
	resp, err := c.send(ctx, r)
	if err != nil {
		return nil, nil, err
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	if err != nil {
		return nil, nil, fmt.Errorf("%s %s: reading the answer: %w", r.Method, r.Path, err)
	}
	return resp, data, nil
}

// maxRetries is how many times a 429 is retried (client-go: 10).
const maxRetries = 10

// send waits for the rate limiter and sends one request; the caller closes
// the body.
func (c *Client) send(ctx context.Context, r Request) (*http.Response, error) {
	if c.limiter != nil {
		if err := c.limiter.Wait(ctx); err != nil {
			return nil, err
		}
	}
	u := *c.server
	u.Path = strings.TrimSuffix(u.Path, "/") + r.Path
	u.RawQuery = r.Query.Encode()
	var body io.Reader
	if r.Body != nil {
		body = bytes.NewReader(r.Body)
	}
	req, err := http.NewRequestWithContext(ctx, r.Method, u.String(), body)
	if err != nil {
		return nil, err
	}
	accept := r.Accept
	if accept == "" {
		accept = "application/json"
	}
	req.Header.Set("Accept", accept)
	if r.Body != nil {
		ct := r.ContentType
		if ct == "" {
			ct = "application/json"
		}
		req.Header.Set("Content-Type", ct)
	}
	if c.userAgent != "" {
		req.Header.Set("User-Agent", c.userAgent)
	}
	return c.http.Do(req)
}

func retryAfter(resp *http.Response) time.Duration {
	if s, err := strconv.Atoi(resp.Header.Get("Retry-After")); err == nil && s > 0 {
		return time.Duration(s) * time.Second
	}
	return time.Second
}

func sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

// statusErrorFromResponse turns a failed answer into a *StatusError: the
// apiserver's own Status when the body is one, otherwise one made up from
// the HTTP status code, as client-go's newUnstructuredResponseError does.
func statusErrorFromResponse(resp *http.Response, body []byte) *StatusError {
	ct, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type"))
	if ct == "application/json" || ct == protobuf.ContentType {
		var st metav1.Status
		if decodeAnswer(ct, body, &st) == nil && st.Kind == "Status" {
			if st.Code == 0 {
				st.Code = int32(resp.StatusCode)
			}
			return &StatusError{ErrStatus: st}
		}
	}
	msg := strings.TrimSpace(string(body))
	if msg == "" {
		msg = http.StatusText(resp.StatusCode)
	}
	return &StatusError{ErrStatus: metav1.Status{
		TypeMeta: metav1.TypeMeta{Kind: "Status", APIVersion: "v1"},
		Status:   metav1.StatusFailure, Code: int32(resp.StatusCode),
		Reason: reasonForCode(resp.StatusCode), Message: msg,
	}}
}

// decodeAnswer decodes a body in the format its Content-Type names: the
// protobuf envelope (whose kind and apiVersion are set on out, as a JSON
// answer sets them) or JSON.
func decodeAnswer(contentType string, data []byte, out any) error {
	ct, _, _ := mime.ParseMediaType(contentType)
	if ct != protobuf.ContentType {
		return json.Unmarshal(data, out)
	}
	apiVersion, kind, raw, err := protobuf.DecodeEnvelope(data)
	if err != nil {
		return err
	}
	if err := protobuf.Unmarshal(raw, out); err != nil {
		return err
	}
	if o, ok := out.(interface{ GetTypeMeta() *metav1.TypeMeta }); ok {
		*o.GetTypeMeta() = metav1.TypeMeta{APIVersion: apiVersion, Kind: kind}
	}
	return nil
}

// acceptFor is the Accept header for an answer decoded into out:
// AcceptProtobuf when out is one of our API types (a struct whose fields
// carry protobuf tags), JSON for anything else.
func acceptFor(out any) string {
	t := reflect.TypeOf(out)
	if t == nil || t.Kind() != reflect.Pointer || t.Elem().Kind() != reflect.Struct {
		return "application/json"
	}
	if v, ok := protobufForm.Load(t); ok {
		return v.(string)
	}
	accept := "application/json"
	for i := range t.Elem().NumField() {
		if tag := t.Elem().Field(i).Tag.Get("protobuf"); tag != "" && tag != "-" {
			accept = AcceptProtobuf
			break
		}
	}
	protobufForm.Store(t, accept)
	return accept
}

var protobufForm sync.Map // reflect.Type → the Accept header for it
