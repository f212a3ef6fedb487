package webhook

import (
	"bytes"
	"context"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"sync"
	"time"

	"kubik/ch01-apiserver/api/admissionv1"
)

// maxResponseBytes bounds a webhook's answer (its patch included).
const maxResponseBytes = 8 << 20

// clientManager keeps one HTTP client per CA bundle (upstream's
// webhookutil.ClientManager caches rest clients by client config).
type clientManager struct {
	mu      sync.Mutex
	clients map[string]*http.Client
}

// maxCachedClients bounds the cache; when full it starts over.
const maxCachedClients = 256

func (m *clientManager) client(caBundle []byte) (*http.Client, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if c, ok := m.clients[string(caBundle)]; ok {
		return c, nil
	}
	cfg := &tls.Config{MinVersion: tls.VersionTLS12}
	if len(caBundle) > 0 {
		pool := x509.NewCertPool()
		if !pool.AppendCertsFromPEM(caBundle) {
			return nil, errors.New("unable to load root certificates: unable to parse bytes as PEM block")
		}
		cfg.RootCAs = pool
	}
	c := &http.Client{Transport: &http.Transport{
		Proxy:               nil, // webhooks are called directly, never through an environment proxy
		TLSClientConfig:     cfg,
		DialContext:         (&net.Dialer{Timeout: 30 * time.Second, KeepAlive: 30 * time.Second}).DialContext,
		TLSHandshakeTimeout: 10 * time.Second,
		MaxIdleConnsPerHost: 25,
		IdleConnTimeout:     90 * time.Second,
		ForceAttemptHTTP2:   true,
	}}
	if m.clients == nil || len(m.clients) >= maxCachedClients {
		m.clients = map[string]*http.Client{}
	}
	m.clients[string(caBundle)] = c
	return c, nil
}

// webhookURL is where the AdmissionReview goes, with ?timeout= as
// upstream's rest client adds it. A Service reference is resolved as
// upstream names it (name.namespace.svc:port); this apiserver has no
// Service routing before chapter 7, so such a call fails as upstream's
// does for a Service that cannot be resolved.
func webhookURL(h *hook, timeout time.Duration) (string, error) {
	cc := h.clientConfig
	var u *url.URL
	switch {
	case cc.URL != nil:
		p, err := url.Parse(*cc.URL)
		if err != nil {
			return "", err
		}
		u = p
	case cc.Service != nil:
		port := int32(443)
		if cc.Service.Port != nil {
			port = *cc.Service.Port
		}
		path := ""
		if cc.Service.Path != nil {
			path = *cc.Service.Path
		}
		u = &url.URL{Scheme: "https", Host: fmt.Sprintf("%s.%s.svc:%d", cc.Service.Name, cc.Service.Namespace, port), Path: path}
	default:
		return "", errors.New("invalid webhook client config: neither url nor service")
	}
	if u.Path == "" {
		u.Path = "/" // upstream's rest client always sends a path
	}
	if timeout > 0 {
		q := u.Query()
		q.Set("timeout", timeout.String())
		u.RawQuery = q.Encode()
	}
	return u.String(), nil
}

// call POSTs the review and decodes the answer. Errors are the client's:
// the dispatcher wraps them as "failed to call webhook: ...".
func (m *clientManager) call(ctx context.Context, h *hook, review *admissionv1.AdmissionReview) (*admissionv1.AdmissionReview, error) {
	ctx, cancel := context.WithTimeout(ctx, time.Duration(h.timeoutSeconds)*time.Second)
	defer cancel()
	var timeout time.Duration
	if deadline, ok := ctx.Deadline(); ok {
		if timeout = time.Until(deadline); timeout > 0 {
			if t := timeout.Truncate(time.Second); t != timeout {
				timeout = t + time.Second
			}
		}
	}
	target, err := webhookURL(h, timeout)
	if err != nil {
		return nil, err
	}
	if h.clientConfig.URL == nil {
		svc := h.clientConfig.Service
		return nil, &url.Error{Op: "Post", URL: target, Err: fmt.Errorf("service %q not found", svc.Name)}
	}
	client, err := m.client(h.clientConfig.CABundle)
	if err != nil {
		return nil, err
	}
	body, err := json.Marshal(review)
	if err != nil {
		return nil, err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, target, bytes.NewReader(body))
	if err != nil {
		return nil, err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, */*")
	resp, err := client.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(resp.Body, maxResponseBytes+1))
	if err != nil {
		return nil, &url.Error{Op: "Post", URL: target, Err: err}
	}
	if len(data) > maxResponseBytes {
		return nil, fmt.Errorf("the webhook's response is larger than %d bytes", maxResponseBytes)
	}
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		return nil, fmt.Errorf("the server responded with the status code %d but did not return more information", resp.StatusCode)
	}
	out := &admissionv1.AdmissionReview{}
	if err := json.Unmarshal(data, out); err != nil {
		return nil, err
	}
	return out, nil
}

// newUID is a random UUID (version 4) for AdmissionRequest.uid.
func newUID() string {
	var b [16]byte
	rand.Read(b[:])
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	return fmt.Sprintf("%x-%x-%x-%x-%x", b[0:4], b[4:6], b[6:8], b[8:10], b[10:])
}
