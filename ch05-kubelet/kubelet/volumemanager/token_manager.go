package volumemanager

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strings"
	"sync"
	"time"

	"kubik/ch01-apiserver/api/authenticationv1"
	"kubik/ch01-apiserver/api/corev1"
	"kubik/ch03-scheduler/clientgo/rest"
)

// tokenManager is upstream's pkg/kubelet/token: the service-account
// tokens of projected volumes, one TokenRequest per (service account,
// audiences, lifetime, bound pod), cached and asked for again when 80% of
// its lifetime has passed (or after 24 hours), with up to 10 s of jitter
// so that a node's pods do not all refresh in the same second.
//
// The token is bound to the pod (boundObjectRef Pod name+uid): the
// apiserver refuses it once the pod is gone, and the Node authorizer lets
// a kubelet ask only for tokens bound to its own pods.
type tokenManager struct {
	// request does the TokenRequest: POST .../serviceaccounts/<name>/token.
	request func(ctx context.Context, namespace, name string, tr *authenticationv1.TokenRequest) (*authenticationv1.TokenRequest, error)
	now     func() time.Time
	jitter  func() time.Duration

	mu    sync.Mutex
	cache map[string]*authenticationv1.TokenRequest
}

const (
	tokenMaxTTL    = 24 * time.Hour
	tokenMaxJitter = 10 * time.Second
)

func newTokenManager(c *rest.Client) *tokenManager {
	return &tokenManager{
		request: func(ctx context.Context, namespace, name string, tr *authenticationv1.TokenRequest) (*authenticationv1.TokenRequest, error) {
			out := &authenticationv1.TokenRequest{}
			err := rest.CreateSubresource[corev1.ServiceAccount](ctx, c, namespace, name, "token", tr, out)
			return out, err
		},
		now:    time.Now,
		jitter: func() time.Duration { return time.Duration(rand.Float64() * float64(tokenMaxJitter)) },
		cache:  map[string]*authenticationv1.TokenRequest{},
	}
}

// tokenKey identifies a request in the cache, as upstream's keyFunc.
func tokenKey(namespace, name string, tr *authenticationv1.TokenRequest) string {
	var exp int64
	if tr.Spec.ExpirationSeconds != nil {
		exp = *tr.Spec.ExpirationSeconds
	}
	ref := tr.Spec.BoundObjectRef
	return fmt.Sprintf("%q/%q/%q/%d/%s/%s/%s", name, namespace, tr.Spec.Audiences, exp, ref.Kind, ref.Name, ref.UID)
}

// GetServiceAccountToken returns a cached token while it is fresh, and a
// new one once the old needs a refresh. If the refresh fails and the old
// token is still valid, the old one is returned (upstream does the same).
func (m *tokenManager) GetServiceAccountToken(ctx context.Context, namespace, name string, tr *authenticationv1.TokenRequest) (*authenticationv1.TokenRequest, error) {
	key := tokenKey(namespace, name, tr)
	m.mu.Lock()
	cached := m.cache[key]
	m.mu.Unlock()
	if cached != nil && !m.requiresRefresh(cached) {
		return cached, nil
	}
	got, err := m.request(ctx, namespace, name, tr)
	if err != nil {
		if cached != nil && m.now().Before(cached.Status.ExpirationTimestamp.Time) {
			return cached, nil
		}
		return nil, err
	}
	if got.Spec.ExpirationSeconds == nil { // the answer's spec is the request's, defaulted
		got.Spec.ExpirationSeconds = tr.Spec.ExpirationSeconds
	}
	m.mu.Lock()
	m.cache[key] = got
	m.mu.Unlock()
	return got, nil
}

// requiresRefresh: older than 24 h, or less than 20% of its lifetime left
// (minus the jitter).
func (m *tokenManager) requiresRefresh(tr *authenticationv1.TokenRequest) bool {
	if tr.Spec.ExpirationSeconds == nil {
		return false
	}
	now := m.now()
	ttl := time.Duration(*tr.Spec.ExpirationSeconds) * time.Second
	exp := tr.Status.ExpirationTimestamp.Time
	iat := exp.Add(-ttl)
	jitter := m.jitter()
	if now.After(iat.Add(tokenMaxTTL - jitter)) {
		return true
	}
	return now.After(exp.Add(-ttl*20/100 - jitter))
}

// dueForRefresh reports whether any of the pod's cached tokens needs a
// refresh: its projected volume is then written again.
func (m *tokenManager) dueForRefresh(podUID string) bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	for key, tr := range m.cache {
		if strings.HasSuffix(key, "/"+podUID) && m.requiresRefresh(tr) {
			return true
		}
	}
	return false
}

// DeleteServiceAccountToken forgets the tokens bound to a pod that is gone.
func (m *tokenManager) DeleteServiceAccountToken(podUID string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	for key := range m.cache {
		if strings.HasSuffix(key, "/"+podUID) {
			delete(m.cache, key)
		}
	}
}
