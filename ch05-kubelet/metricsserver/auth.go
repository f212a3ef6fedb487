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

	"kubik/ch01-apiserver/api/authenticationv1"
	"kubik/ch01-apiserver/api/authorizationv1"
	"kubik/ch01-apiserver/api/corev1"
	"kubik/ch01-apiserver/api/metav1"
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
type user struct {
	name   string
	uid    string
	groups []string
	extra  map[string][]string
}

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
			return &user{name: cert.Subject.CommonName, groups: cert.Subject.Organization}, nil
		}
	}
	token, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
	if !ok || strings.TrimSpace(token) == "" {
		return nil, nil
	}
	tr := &authenticationv1.TokenReview{TypeMeta: metav1.TypeMeta{Kind: "TokenReview", APIVersion: "authentication.k8s.io/v1"},
		Spec: authenticationv1.TokenReviewSpec{Token: strings.TrimSpace(token)}}
	if err := s.review(r.Context(), "/apis/authentication.k8s.io/v1/tokenreviews", tr); err != nil {
		return nil, err
	}
	if !tr.Status.Authenticated {
		return nil, nil
	}
	return &user{name: tr.Status.User.Username, uid: tr.Status.User.UID, groups: tr.Status.User.Groups,
		extra: extraValues(tr.Status.User.Extra)}, nil
}

func extraValues[V ~[]string](m map[string]V) map[string][]string {
	if len(m) == 0 {
		return nil
	}
	out := make(map[string][]string, len(m))
	for k, v := range m {
		out[k] = []string(v)
	}
	return out
}

// requestHeaderUser is the user the front proxy's headers name; nil
// without a user name.
func requestHeaderUser(r *http.Request, cfg *requestHeaderConfig) *user {
	u := &user{}
	for _, h := range cfg.usernameHeaders {
		if v := r.Header.Get(h); v != "" {
			u.name = v
			break
		}
	}
	if u.name == "" {
		return nil
	}
	for _, h := range cfg.uidHeaders {
		if v := r.Header.Get(h); v != "" {
			u.uid = v
			break
		}
	}
	for _, h := range cfg.groupHeaders {
		u.groups = append(u.groups, r.Header.Values(h)...)
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
			if u.extra == nil {
				u.extra = map[string][]string{}
			}
			u.extra[key] = append(u.extra[key], values...)
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
	spec := authorizationv1.SubjectAccessReviewSpec{User: u.name, UID: u.uid, Groups: u.groups}
	if len(u.extra) > 0 {
		spec.Extra = map[string]authorizationv1.ExtraValue{}
		for k, v := range u.extra {
			spec.Extra[k] = v
		}
	}
	if a.resource != "" {
		spec.ResourceAttributes = &authorizationv1.ResourceAttributes{Verb: a.verb, Group: Group, Version: Version,
			Resource: a.resource, Namespace: a.namespace, Name: a.name}
	} else {
		spec.NonResourceAttributes = &authorizationv1.NonResourceAttributes{Path: a.path, Verb: a.verb}
	}
	sar := &authorizationv1.SubjectAccessReview{TypeMeta: metav1.TypeMeta{Kind: "SubjectAccessReview", APIVersion: "authorization.k8s.io/v1"}, Spec: spec}
	if err := s.review(ctx, "/apis/authorization.k8s.io/v1/subjectaccessreviews", sar); err != nil {
		return false, "", err
	}
	return sar.Status.Allowed, sar.Status.Reason, nil
}

// forbiddenMessage is upstream's responsewriters.forbiddenMessage.
func forbiddenMessage(u *user, a attributes) string {
	if a.resource == "" {
		return fmt.Sprintf("User %q cannot %s path %q", u.name, a.verb, a.path)
	}
	if a.namespace != "" {
		return fmt.Sprintf("User %q cannot %s resource %q in API group %q in the namespace %q", u.name, a.verb, a.resource, Group, a.namespace)
	}
	return fmt.Sprintf("User %q cannot %s resource %q in API group %q at the cluster scope", u.name, a.verb, a.resource, Group)
}

// review POSTs a TokenReview or SubjectAccessReview and reads the answer
// back into it.
func (s *Server) review(ctx context.Context, path string, obj any) error {
	body, err := json.Marshal(obj)
	if err != nil {
		return err
	}
	return s.c.Do(ctx, rest.Request{Method: http.MethodPost, Path: path, Body: body}, obj)
}
