// Package serviceaccount issues and checks ServiceAccount tokens: JWTs the
// apiserver signs itself (TokenRequest, "kubectl create token", every pod's
// projected token) and verifies with the public key. Upstream:
// pkg/serviceaccount (claims.go, jwt.go).
package serviceaccount

import (
	"context"
	"crypto"
	"crypto/rand"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"kubik/ch01-apiserver/api/corev1"
	"kubik/ch01-apiserver/api/metav1"
	"kubik/ch01-apiserver/apiserver/auth"
)

// DefaultIssuer is upstream's usual --service-account-issuer.
const DefaultIssuer = "https://kubernetes.default.svc.cluster.local"

// claims are the claims of a bound ServiceAccount token (times in Unix seconds).
type claims struct {
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
	Namespace      string `json:"namespace,omitempty"`
	ServiceAccount Ref    `json:"serviceaccount"`
	Pod            *Ref   `json:"pod,omitempty"`
	Secret         *Ref   `json:"secret,omitempty"`
	Node           *Ref   `json:"node,omitempty"`
	WarnAfter      int64  `json:"warnafter,omitempty"`
}

// Ref names an object a token is bound to.
type Ref struct {
	Name string `json:"name,omitempty"`
	UID  string `json:"uid,omitempty"`
}

// Getter reads the objects a token names; a missing object is an error.
// Upstream: ServiceAccountTokenGetter.
type Getter interface {
	GetServiceAccount(ctx context.Context, namespace, name string) (*corev1.ServiceAccount, error)
	GetPod(ctx context.Context, namespace, name string) (*corev1.Pod, error)
	GetSecret(ctx context.Context, namespace, name string) (*corev1.Secret, error)
	GetNode(ctx context.Context, name string) (*corev1.Node, error)
}

// Tokens issues and checks ServiceAccount tokens.
type Tokens struct {
	objects   Getter
	Issuer    string
	Audiences []string // the apiserver's own audiences (--api-audiences; default: the issuer)
	signer    crypto.Signer
	keys      []crypto.PublicKey
}

// NewTokens returns tokens of issuer ("": DefaultIssuer) for audiences
// (none: the issuer), signed by signer and verified with keys and the
// signer's public key.
func NewTokens(objects Getter, issuer string, audiences []string, signer crypto.Signer, keys []crypto.PublicKey) *Tokens {
	t := &Tokens{objects: objects, Issuer: issuer, Audiences: audiences,
		signer: signer, keys: append([]crypto.PublicKey(nil), keys...)}
	if t.Issuer == "" {
		t.Issuer = DefaultIssuer
	}
	if len(t.Audiences) == 0 {
		t.Audiences = []string{t.Issuer}
	}
	if t.signer != nil {
		t.keys = append(t.keys, t.signer.Public())
	}
	return t
}

// PublicKeys are the keys that verify the tokens (the issuer's JWKS).
func (t *Tokens) PublicKeys() []crypto.PublicKey { return slices.Clone(t.keys) }

// Extra keys of a ServiceAccount user, upstream's.
const (
	extraPodName  = "authentication.kubernetes.io/pod-name"
	extraPodUID   = "authentication.kubernetes.io/pod-uid"
	extraNodeName = "authentication.kubernetes.io/node-name"
	extraNodeUID  = "authentication.kubernetes.io/node-uid"
)

// leeway tolerates clock skew on exp and nbf, as upstream (one minute).
const leeway = time.Minute

// Issue signs a token for a ServiceAccount, bound to a pod, secret or node
// when they are not nil.
func (t *Tokens) Issue(sa *corev1.ServiceAccount, audiences []string, lifetime time.Duration, pod, secret, node *Ref, now time.Time) (string, time.Time, error) {
	if t.signer == nil {
		return "", time.Time{}, errors.New("no service account signing key")
	}
	exp := now.Add(lifetime)
	c := claims{Issuer: t.Issuer, Subject: auth.ServiceAccountUsername(sa.Namespace, sa.Name), Audience: audiences,
		Expiry: exp.Unix(), NotBefore: now.Unix(), IssuedAt: now.Unix(), ID: newJTI(),
		K8s: k8sClaims{Namespace: sa.Namespace, ServiceAccount: Ref{Name: sa.Name, UID: sa.UID}, Pod: pod, Secret: secret, Node: node}}
	tok, err := SignJWT(t.signer, c)
	return tok, exp, err
}

// AuthenticateToken verifies a ServiceAccount token: ours (issuer),
// signed by our key, not expired, for one of the audiences, and the
// ServiceAccount (and the pod, secret or node it is bound to) still exists.
func (t *Tokens) AuthenticateToken(ctx context.Context, token string, audiences []string) (*auth.UserInfo, bool, error) {
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
	var c claims
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
	if c.Subject != auth.ServiceAccountUsername(ns, name) {
		return nil, false, errors.New("service account token claims do not match the subject")
	}
	// The objects the token is bound to must still exist, with the same uid.
	sa, err := t.objects.GetServiceAccount(ctx, ns, name)
	if err != nil {
		return nil, false, fmt.Errorf("service account %s/%s: %v", ns, name, err)
	}
	if c.K8s.ServiceAccount.UID != "" && sa.UID != c.K8s.ServiceAccount.UID {
		return nil, false, fmt.Errorf("service account UID (%s) does not match claim (%s)", sa.UID, c.K8s.ServiceAccount.UID)
	}
	u := &auth.UserInfo{Name: c.Subject, UID: sa.UID,
		Groups: []string{auth.GroupServiceAccounts, auth.GroupServiceAccounts + ":" + ns}, Extra: map[string][]string{}}
	for _, b := range []struct {
		ref      *Ref
		resource string
		get      func(name string) (metav1.Object, error)
		nameKey  string
		uidKey   string
	}{
		{c.K8s.Pod, "pods", func(n string) (metav1.Object, error) { return t.objects.GetPod(ctx, ns, n) }, extraPodName, extraPodUID},
		{c.K8s.Secret, "secrets", func(n string) (metav1.Object, error) { return t.objects.GetSecret(ctx, ns, n) }, "", ""},
		{c.K8s.Node, "nodes", func(n string) (metav1.Object, error) { return t.objects.GetNode(ctx, n) }, extraNodeName, extraNodeUID},
	} {
		if b.ref == nil {
			continue
		}
		obj, err := b.get(b.ref.Name)
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
		u.Extra[auth.ExtraCredentialID] = []string{"JTI=" + c.ID}
	}
	if len(u.Extra) == 0 {
		u.Extra = nil
	}
	return u, true, nil
}

func intersects(a, b []string) bool {
	for _, x := range a {
		if slices.Contains(b, x) {
			return true
		}
	}
	return false
}

// newJTI returns a token's id: a random (version 4) UUID, as upstream's.
func newJTI() string {
	b := make([]byte, 16)
	rand.Read(b)
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	return fmt.Sprintf("%x-%x-%x-%x-%x", b[0:4], b[4:6], b[6:8], b[8:10], b[10:16])
}
