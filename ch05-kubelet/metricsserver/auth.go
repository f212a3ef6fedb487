package metricsserver

// Delegated authentication and authorization, as every aggregated API
// server does it (k8s.io/apiserver's delegating authenticator and
// authorizer, which the real metrics-server uses):
//
//   - the apiserver's front proxy: a client certificate signed by the CA of
//     requestheader-client-ca-file, with a CommonName of
//     requestheader-allowed-names (any, when the list is empty); the user is
//     then the one the request-header headers name (X-Remote-User,
//     X-Remote-Group, X-Remote-Extra-<key>);
//   - a client certificate of client-ca-file: the user is its CommonName,
//     the groups its Organization;
//   - a bearer token the apiserver vouches for (a TokenReview).
//
// The settings are ConfigMap kube-system/extension-apiserver-authentication,
// written by the apiserver and read again every minute. Then a
// SubjectAccessReview asks the apiserver whether the user may do what the
// request asks; refusals carry upstream's messages.

import (
	"context"
	"crypto/x509"
	"encoding/json"
	"encoding/pem"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"time"

	"kubik/ch01-apiserver/api/authorizationv1"
	"kubik/ch01-apiserver/api/corev1"
	"kubik/ch03-scheduler/clientgo/delegated"
	"kubik/ch03-scheduler/clientgo/rest"
)

// AuthConfigMap is where the apiserver publishes how to authenticate it.
const (
	AuthConfigMapNamespace = "kube-system"
	AuthConfigMapName      = "extension-apiserver-authentication"
)

type requestHeaderConfig struct {
	clientCA        *x509.CertPool // client-ca-file
	requestHeaderCA *x509.CertPool // requestheader-client-ca-file
	allowedNames    []string
	usernameHeaders []string
	uidHeaders      []string
	groupHeaders    []string
	extraPrefixes   []string
}

// user is an authenticated caller.
type user = delegated.User

// watchAuthConfig reads the ConfigMap now and every minute.
func (s *Server) watchAuthConfig(ctx context.Context) {
	for {
		cm, err := rest.Get[corev1.ConfigMap](ctx, s.c, AuthConfigMapNamespace, AuthConfigMapName)
		if err == nil {
			var cfg *requestHeaderConfig
			if cfg, err = parseAuthConfig(cm.Data); err == nil {
				s.authMu.Lock()
				s.authn = cfg
				s.authMu.Unlock()
			}
		}
		if err != nil && ctx.Err() == nil {
			s.log.Error("Unable to read the authentication configuration", "configmap", AuthConfigMapNamespace+"/"+AuthConfigMapName, "err", err)
		}
		wait := time.Minute
		if err != nil {
			wait = 2 * time.Second
		}
		select {
		case <-ctx.Done():
			return
		case <-time.After(wait):
		}
	}
}

func parseAuthConfig(data map[string]string) (*requestHeaderConfig, error) {
	cfg := &requestHeaderConfig{}
	pool := func(key string) (*x509.CertPool, error) {
		v := data[key]
		if v == "" {
			return nil, nil
		}
		p := x509.NewCertPool()
		rest := []byte(v)
		for {
			var b *pem.Block
			b, rest = pem.Decode(rest)
			if b == nil {
				break
			}
			c, err := x509.ParseCertificate(b.Bytes)
			if err != nil {
				return nil, fmt.Errorf("%s: %w", key, err)
			}
			p.AddCert(c)
		}
		return p, nil
	}
	list := func(key string) ([]string, error) {
		v := data[key]
		if v == "" {
			return nil, nil
		}
		var l []string
		if err := json.Unmarshal([]byte(v), &l); err != nil {
			return nil, fmt.Errorf("%s: %w", key, err)
		}
		return l, nil
	}
	var err error
	if cfg.clientCA, err = pool("client-ca-file"); err != nil {
		return nil, err
	}
	if cfg.requestHeaderCA, err = pool("requestheader-client-ca-file"); err != nil {
		return nil, err
	}
	for key, dst := range map[string]*[]string{
		"requestheader-allowed-names":        &cfg.allowedNames,
		"requestheader-username-headers":     &cfg.usernameHeaders,
		"requestheader-uid-headers":          &cfg.uidHeaders,
		"requestheader-group-headers":        &cfg.groupHeaders,
		"requestheader-extra-headers-prefix": &cfg.extraPrefixes,
	} {
		if *dst, err = list(key); err != nil {
			return nil, err
		}
	}
	return cfg, nil
}

// verify checks the client's certificate chain against pool.
func verify(r *http.Request, pool *x509.CertPool) (*x509.Certificate, bool) {
	if pool == nil || r.TLS == nil || len(r.TLS.PeerCertificates) == 0 {
		return nil, false
	}
	certs := r.TLS.PeerCertificates
	inter := x509.NewCertPool()
	for _, c := range certs[1:] {
		inter.AddCert(c)
	}
	if _, err := certs[0].Verify(x509.VerifyOptions{Roots: pool, Intermediates: inter,
		KeyUsages: []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth}}); err != nil {
		return nil, false
	}
	return certs[0], true
}

// authenticate returns the caller, or nil.
func (s *Server) authenticate(r *http.Request) (*user, error) {
	s.authMu.RLock()
	cfg := s.authn
	s.authMu.RUnlock()
	if cfg != nil {
		if cert, ok := verify(r, cfg.requestHeaderCA); ok {
			if len(cfg.allowedNames) > 0 && !slices.Contains(cfg.allowedNames, cert.Subject.CommonName) {
				return nil, fmt.Errorf("x509: subject with cn=%s is not in the allowed list", cert.Subject.CommonName)
			}
			return requestHeaderUser(r, cfg), nil
		}
		if cert, ok := verify(r, cfg.clientCA); ok {
			return &user{Name: cert.Subject.CommonName, Groups: cert.Subject.Organization}, nil
		}
	}
	token := delegated.BearerToken(r)
	if token == "" {
		return nil, nil
	}
	return delegated.ReviewToken(r.Context(), s.c, token)
}

// requestHeaderUser is the user the front proxy's headers name; nil
// without a user name.
func requestHeaderUser(r *http.Request, cfg *requestHeaderConfig) *user {
	u := &user{}
	for _, h := range cfg.usernameHeaders {
		if v := r.Header.Get(h); v != "" {
			u.Name = v
			break
		}
	}
	if u.Name == "" {
		return nil
	}
	for _, h := range cfg.uidHeaders {
		if v := r.Header.Get(h); v != "" {
			u.UID = v
			break
		}
	}
	for _, h := range cfg.groupHeaders {
		u.Groups = append(u.Groups, r.Header.Values(h)...)
	}
	for name, values := range r.Header {
		for _, prefix := range cfg.extraPrefixes {
			if len(name) <= len(prefix) || !strings.EqualFold(name[:len(prefix)], prefix) {
				continue
			}
			key, err := url.PathUnescape(strings.ToLower(name[len(prefix):]))
			if err != nil {
				continue
			}
			if u.Extra == nil {
				u.Extra = map[string][]string{}
			}
			u.Extra[key] = append(u.Extra[key], values...)
		}
	}
	return u
}

// attributes is what a request asks to do, for the authorizer.
type attributes struct {
	verb      string
	resource  string // "" for a path
	namespace string
	name      string
	path      string
}

// authorize asks the apiserver whether u may do a.
func (s *Server) authorize(ctx context.Context, u *user, a attributes) (bool, string, error) {
	if a.resource != "" {
		return delegated.Authorize(ctx, s.c, u, &authorizationv1.ResourceAttributes{Verb: a.verb, Group: Group, Version: Version,
			Resource: a.resource, Namespace: a.namespace, Name: a.name}, nil)
	}
	return delegated.Authorize(ctx, s.c, u, nil, &authorizationv1.NonResourceAttributes{Path: a.path, Verb: a.verb})
}

// forbiddenMessage is upstream's responsewriters.forbiddenMessage.
func forbiddenMessage(u *user, a attributes) string {
	if a.resource == "" {
		return fmt.Sprintf("User %q cannot %s path %q", u.Name, a.verb, a.path)
	}
	if a.namespace != "" {
		return fmt.Sprintf("User %q cannot %s resource %q in API group %q in the namespace %q", u.Name, a.verb, a.resource, Group, a.namespace)
	}
	return fmt.Sprintf("User %q cannot %s resource %q in API group %q at the cluster scope", u.Name, a.verb, a.resource, Group)
}
