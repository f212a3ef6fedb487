package apiserver

import (
	"context"
	"crypto"
	"crypto/ecdsa"
	"crypto/rand"
	"crypto/rsa"
	"crypto/sha256"
	"crypto/subtle"
	"crypto/x509"
	"encoding/base64"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/big"
	"net/http"
	"os"
	"strings"
	"time"

	"kubik/ch01-apiserver/api/corev1"
	"kubik/ch01-apiserver/api/scheme"
)

// Bearer tokens: "Authorization: Bearer <token>". Two kinds, as upstream:
//
//   - a static token file (--token-auth-file), CSV lines token,user,uid,"group1,group2";
//   - ServiceAccount tokens: JWTs the apiserver signs itself (TokenRequest,
//     "kubectl create token") and verifies with the public key.

// bearerToken returns the token of an "Authorization: Bearer" header.
func bearerToken(r *http.Request) (string, bool) {
	auth := strings.TrimSpace(r.Header.Get("Authorization"))
	scheme, token, ok := strings.Cut(auth, " ")
	if !ok || !strings.EqualFold(scheme, "bearer") {
		return "", false
	}
	token = strings.TrimSpace(token)
	return token, token != ""
}

// ---- static token file ----

// TokenFile is the authenticator of --token-auth-file.
type TokenFile struct {
	tokens map[string]*UserInfo
}

// NewTokenFile reads a token file: token,user,uid[,"group1,group2"] per line.
func NewTokenFile(path string) (*TokenFile, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	r := csv.NewReader(f)
	r.FieldsPerRecord = -1
	r.TrimLeadingSpace = true
	r.Comment = '#'
	tf := &TokenFile{tokens: map[string]*UserInfo{}}
	for line := 1; ; line++ {
		rec, err := r.Read()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		if len(rec) < 3 {
			return nil, fmt.Errorf("%s: line %d: token, user and uid are required", path, line)
		}
		u := &UserInfo{Name: rec[1], UID: rec[2]}
		if len(rec) > 3 && rec[3] != "" {
			for _, g := range strings.Split(rec[3], ",") {
				u.Groups = append(u.Groups, strings.TrimSpace(g))
			}
		}
		if _, dup := tf.tokens[rec[0]]; dup {
			return nil, fmt.Errorf("%s: line %d: duplicate token", path, line)
		}
		tf.tokens[rec[0]] = u
	}
	return tf, nil
}

// AuthenticateToken looks a token up.
func (tf *TokenFile) AuthenticateToken(_ context.Context, token string, _ []string) (*UserInfo, bool, error) {
	for t, u := range tf.tokens {
		if subtle.ConstantTimeCompare([]byte(t), []byte(token)) == 1 {
			c := *u
			c.Groups = append([]string(nil), u.Groups...)
			return &c, true, nil
		}
	}
	return nil, false, nil
}

// TokenAuthenticator recognises bearer tokens. ok=false: not mine.
type TokenAuthenticator interface {
	AuthenticateToken(ctx context.Context, token string, audiences []string) (*UserInfo, bool, error)
}

// bearerAuthenticator tries the token authenticators in order; a token no
// one recognises is an error (401), not an anonymous request.
type bearerAuthenticator struct{ s *Server }

func (b bearerAuthenticator) AuthenticateRequest(r *http.Request) (*UserInfo, bool, error) {
	token, ok := bearerToken(r)
	if !ok {
		return nil, false, nil
	}
	u, err := b.s.authenticateToken(r.Context(), token, nil)
	if err != nil {
		return nil, false, err
	}
	return u, true, nil
}

// authenticateToken runs every token authenticator (TokenReview too).
func (s *Server) authenticateToken(ctx context.Context, token string, audiences []string) (*UserInfo, error) {
	var errs []error
	for _, a := range s.cfg.TokenAuthenticators {
		u, ok, err := a.AuthenticateToken(ctx, token, audiences)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		if ok {
			return u, nil
		}
	}
	if s.saTokens != nil {
		u, ok, err := s.saTokens.AuthenticateToken(ctx, token, audiences)
		if err != nil {
			errs = append(errs, err)
		} else if ok {
			return u, nil
		}
	}
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	return nil, errors.New("invalid bearer token")
}

// ---- JWT (RFC 7519), ES256 and RS256 only ----

// jwtHeader is the first part of a token. kid names the signing key as
// upstream does: base64url(SHA-256(DER of the public key)).
type jwtHeader struct {
	Alg string `json:"alg"`
	Kid string `json:"kid,omitempty"`
}

// KeyID is upstream's key id of a public key.
func KeyID(pub crypto.PublicKey) string {
	der, err := x509.MarshalPKIXPublicKey(pub)
	if err != nil {
		return ""
	}
	sum := sha256.Sum256(der)
	return base64.RawURLEncoding.EncodeToString(sum[:])
}

func algFor(pub crypto.PublicKey) (string, error) {
	switch k := pub.(type) {
	case *ecdsa.PublicKey:
		if k.Curve.Params().BitSize != 256 {
			return "", errors.New("only P-256 ECDSA keys are supported")
		}
		return "ES256", nil
	case *rsa.PublicKey:
		return "RS256", nil
	}
	return "", fmt.Errorf("unsupported key type %T", pub)
}

// SignJWT signs claims with key: header.payload.signature, base64url each.
func SignJWT(key crypto.Signer, claims any) (string, error) {
	alg, err := algFor(key.Public())
	if err != nil {
		return "", err
	}
	h, _ := json.Marshal(jwtHeader{Alg: alg, Kid: KeyID(key.Public())})
	p, err := json.Marshal(claims)
	if err != nil {
		return "", err
	}
	signingInput := base64.RawURLEncoding.EncodeToString(h) + "." + base64.RawURLEncoding.EncodeToString(p)
	digest := sha256.Sum256([]byte(signingInput))
	var sig []byte
	switch k := key.(type) {
	case *ecdsa.PrivateKey:
		r, s, err := ecdsa.Sign(rand.Reader, k, digest[:])
		if err != nil {
			return "", err
		}
		sig = make([]byte, 64) // JWS: r and s as two 32-byte big-endian numbers, not ASN.1
		r.FillBytes(sig[:32])
		s.FillBytes(sig[32:])
	default:
		sig, err = key.Sign(rand.Reader, digest[:], crypto.SHA256)
		if err != nil {
			return "", err
		}
	}
	return signingInput + "." + base64.RawURLEncoding.EncodeToString(sig), nil
}

// errNotJWT: the token is not a JWT at all (some other authenticator's).
var errNotJWT = errors.New("not a JWT")

// VerifyJWT checks the signature with one of keys and decodes the payload
// into claims.
func VerifyJWT(token string, keys []crypto.PublicKey, claims any) error {
	parts := strings.Split(token, ".")
	if len(parts) != 3 {
		return errNotJWT
	}
	hb, err1 := base64.RawURLEncoding.DecodeString(parts[0])
	pb, err2 := base64.RawURLEncoding.DecodeString(parts[1])
	sig, err3 := base64.RawURLEncoding.DecodeString(parts[2])
	var h jwtHeader
	if err1 != nil || err2 != nil || err3 != nil || json.Unmarshal(hb, &h) != nil {
		return errNotJWT
	}
	digest := sha256.Sum256([]byte(parts[0] + "." + parts[1]))
	verified := false
	for _, k := range keys {
		switch k := k.(type) {
		case *ecdsa.PublicKey:
			if h.Alg == "ES256" && len(sig) == 64 {
				r, s := new(big.Int).SetBytes(sig[:32]), new(big.Int).SetBytes(sig[32:])
				verified = ecdsa.Verify(k, digest[:], r, s)
			}
		case *rsa.PublicKey:
			if h.Alg == "RS256" {
				verified = rsa.VerifyPKCS1v15(k, crypto.SHA256, digest[:], sig) == nil
			}
		}
		if verified {
			break
		}
	}
	if !verified {
		return errors.New("invalid signature")
	}
	if err := json.Unmarshal(pb, claims); err != nil {
		return fmt.Errorf("invalid claims: %v", err)
	}
	return nil
}

// ---- ServiceAccount tokens (upstream pkg/serviceaccount/claims.go) ----

// saClaims are the claims of a bound ServiceAccount token (times in Unix seconds).
type saClaims struct {
	Issuer    string    `json:"iss"`
	Subject   string    `json:"sub"`
	Audience  []string  `json:"aud"`
	Expiry    int64     `json:"exp"`
	NotBefore int64     `json:"nbf"`
	IssuedAt  int64     `json:"iat"`
	ID        string    `json:"jti,omitempty"`
	K8s       k8sClaims `json:"kubernetes.io"`
}

type k8sClaims struct {
	Namespace      string    `json:"namespace,omitempty"`
	ServiceAccount tokenRef  `json:"serviceaccount"`
	Pod            *tokenRef `json:"pod,omitempty"`
	Secret         *tokenRef `json:"secret,omitempty"`
	Node           *tokenRef `json:"node,omitempty"`
	WarnAfter      int64     `json:"warnafter,omitempty"`
}

type tokenRef struct {
	Name string `json:"name,omitempty"`
	UID  string `json:"uid,omitempty"`
}

// ServiceAccountTokens issues and checks ServiceAccount tokens.
type ServiceAccountTokens struct {
	s         *Server
	Issuer    string
	Audiences []string // the apiserver's own audiences (--api-audiences; default: the issuer)
	signer    crypto.Signer
	keys      []crypto.PublicKey
}

// Extra keys of a ServiceAccount user, upstream's.
const (
	extraPodName      = "authentication.kubernetes.io/pod-name"
	extraPodUID       = "authentication.kubernetes.io/pod-uid"
	extraNodeName     = "authentication.kubernetes.io/node-name"
	extraNodeUID      = "authentication.kubernetes.io/node-uid"
	extraCredentialID = "authentication.kubernetes.io/credential-id"
)

// leeway tolerates clock skew on exp and nbf, as upstream (one minute).
const leeway = time.Minute

// Issue signs a token for a ServiceAccount.
func (t *ServiceAccountTokens) Issue(sa *corev1.ServiceAccount, audiences []string, lifetime time.Duration, pod, secret, node *tokenRef, now time.Time) (string, time.Time, error) {
	if t.signer == nil {
		return "", time.Time{}, errors.New("no service account signing key")
	}
	exp := now.Add(lifetime)
	c := saClaims{Issuer: t.Issuer, Subject: serviceAccountUsername(sa.Namespace, sa.Name), Audience: audiences,
		Expiry: exp.Unix(), NotBefore: now.Unix(), IssuedAt: now.Unix(), ID: newUID(),
		K8s: k8sClaims{Namespace: sa.Namespace, ServiceAccount: tokenRef{Name: sa.Name, UID: sa.UID}, Pod: pod, Secret: secret, Node: node}}
	tok, err := SignJWT(t.signer, c)
	return tok, exp, err
}

// AuthenticateToken verifies a ServiceAccount token: ours (issuer),
// signed by our key, not expired, for one of the audiences, and the
// ServiceAccount (and the pod, secret or node it is bound to) still exists.
func (t *ServiceAccountTokens) AuthenticateToken(ctx context.Context, token string, audiences []string) (*UserInfo, bool, error) {
	parts := strings.Split(token, ".")
	if len(parts) != 3 {
		return nil, false, nil
	}
	var peek struct {
		Issuer string `json:"iss"`
	}
	pb, err := base64.RawURLEncoding.DecodeString(parts[1])
	if err != nil || json.Unmarshal(pb, &peek) != nil || peek.Issuer != t.Issuer {
		return nil, false, nil // not one of ours
	}
	var c saClaims
	if err := VerifyJWT(token, t.keys, &c); err != nil {
		return nil, false, err
	}
	now := time.Now()
	if c.Expiry != 0 && now.After(time.Unix(c.Expiry, 0).Add(leeway)) {
		return nil, false, errors.New("service account token has expired")
	}
	if c.NotBefore != 0 && now.Add(leeway).Before(time.Unix(c.NotBefore, 0)) {
		return nil, false, errors.New("service account token is not valid yet")
	}
	if len(audiences) == 0 {
		audiences = t.Audiences
	}
	if !intersects(c.Audience, audiences) {
		return nil, false, errors.New("token audiences " + fmt.Sprintf("%q", c.Audience) + " is invalid for the target audiences " + fmt.Sprintf("%q", audiences))
	}
	ns, name := c.K8s.Namespace, c.K8s.ServiceAccount.Name
	if c.Subject != serviceAccountUsername(ns, name) {
		return nil, false, errors.New("service account token claims do not match the subject")
	}
	// The objects the token is bound to must still exist, with the same uid.
	sa, err := t.s.getObject(ctx, scheme.Lookup("", "v1", "serviceaccounts"), ns, name)
	if err != nil {
		return nil, false, fmt.Errorf("service account %s/%s: %v", ns, name, err)
	}
	if c.K8s.ServiceAccount.UID != "" && sa.GetObjectMeta().UID != c.K8s.ServiceAccount.UID {
		return nil, false, fmt.Errorf("service account UID (%s) does not match claim (%s)", sa.GetObjectMeta().UID, c.K8s.ServiceAccount.UID)
	}
	u := &UserInfo{Name: c.Subject, UID: sa.GetObjectMeta().UID,
		Groups: []string{GroupServiceAccounts, GroupServiceAccounts + ":" + ns}, Extra: map[string][]string{}}
	for _, b := range []struct {
		ref      *tokenRef
		resource string
		ns       string
		nameKey  string
		uidKey   string
	}{{c.K8s.Pod, "pods", ns, extraPodName, extraPodUID}, {c.K8s.Secret, "secrets", ns, "", ""}, {c.K8s.Node, "nodes", "", extraNodeName, extraNodeUID}} {
		if b.ref == nil {
			continue
		}
		obj, err := t.s.getObject(ctx, scheme.Lookup("", "v1", b.resource), b.ns, b.ref.Name)
		if err != nil {
			return nil, false, fmt.Errorf("%s %q is bound to this token: %v", b.resource, b.ref.Name, err)
		}
		if b.ref.UID != "" && obj.GetObjectMeta().UID != b.ref.UID {
			return nil, false, fmt.Errorf("the UID of %s %q (%s) does not match the token's (%s)", b.resource, b.ref.Name, obj.GetObjectMeta().UID, b.ref.UID)
		}
		if b.nameKey != "" {
			u.Extra[b.nameKey] = []string{b.ref.Name}
			u.Extra[b.uidKey] = []string{b.ref.UID}
		}
	}
	if c.ID != "" {
		u.Extra[extraCredentialID] = []string{"JTI=" + c.ID}
	}
	if len(u.Extra) == 0 {
		u.Extra = nil
	}
	return u, true, nil
}

func intersects(a, b []string) bool {
	for _, x := range a {
		if contains(b, x) {
			return true
		}
	}
	return false
}

// DefaultServiceAccountIssuer is upstream's usual --service-account-issuer.
const DefaultServiceAccountIssuer = "https://kubernetes.default.svc.cluster.local"

func newServiceAccountTokens(s *Server, cfg Config) *ServiceAccountTokens {
	t := &ServiceAccountTokens{s: s, Issuer: cfg.ServiceAccountIssuer, Audiences: cfg.APIAudiences,
		signer: cfg.ServiceAccountSigningKey, keys: append([]crypto.PublicKey(nil), cfg.ServiceAccountKeys...)}
	if t.Issuer == "" {
		t.Issuer = DefaultServiceAccountIssuer
	}
	if len(t.Audiences) == 0 {
		t.Audiences = []string{t.Issuer}
	}
	if t.signer != nil {
		t.keys = append(t.keys, t.signer.Public())
	}
	return t
}
