package serviceaccount

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"fmt"
	"strings"
	"testing"
	"time"

	"kubik/ch01-apiserver/api/corev1"
	"kubik/ch01-apiserver/api/metav1"
	"kubik/ch01-apiserver/apiserver/auth"
)

// objects is a fixed set of ServiceAccounts, pods, secrets and nodes; a
// missing one is the apiserver's 404 message.
type objects map[string]metav1.Object // "resource/namespace/name"

func get[T metav1.Object](o objects, resource, namespace, name string) (T, error) {
	if obj, ok := o[resource+"/"+namespace+"/"+name]; ok {
		return obj.(T), nil
	}
	var none T
	return none, fmt.Errorf("%s %q not found", resource, name)
}

func (o objects) GetServiceAccount(_ context.Context, namespace, name string) (*corev1.ServiceAccount, error) {
	return get[*corev1.ServiceAccount](o, "serviceaccounts", namespace, name)
}

func (o objects) GetPod(_ context.Context, namespace, name string) (*corev1.Pod, error) {
	return get[*corev1.Pod](o, "pods", namespace, name)
}

func (o objects) GetSecret(_ context.Context, namespace, name string) (*corev1.Secret, error) {
	return get[*corev1.Secret](o, "secrets", namespace, name)
}

func (o objects) GetNode(_ context.Context, name string) (*corev1.Node, error) {
	return get[*corev1.Node](o, "nodes", "", name)
}

func TestServiceAccountTokens(t *testing.T) {
	ctx := context.Background()
	sa := &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: "robot", Namespace: "default", UID: "2b4c6a7e-0d1f-4e2a-9b3c-5d6e7f8a9b0c"}}
	objs := objects{"serviceaccounts/default/robot": sa}
	key, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	tokens := NewTokens(objs, "", nil, key, nil)
	// As the apiserver asks: the token file (none here), then ServiceAccount tokens.
	authenticate := auth.TokenUnion{tokens}.Authenticate
	aud := []string{DefaultIssuer}

	tok, _, err := tokens.Issue(sa, aud, time.Hour, nil, nil, nil, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	u, err := authenticate(ctx, tok, nil)
	if err != nil {
		t.Fatal(err)
	}
	if u.Name != "system:serviceaccount:default:robot" || strings.Join(u.Groups, ",") != "system:serviceaccounts,system:serviceaccounts:default" || u.UID != sa.UID {
		t.Errorf("user = %+v", u)
	}

	expired, _, _ := tokens.Issue(sa, aud, time.Hour, nil, nil, nil, time.Now().Add(-3*time.Hour))
	wrongAud, _, _ := tokens.Issue(sa, []string{"vault"}, time.Hour, nil, nil, nil, time.Now())
	other, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	forger := NewTokens(objs, "", nil, other, nil)
	forged, _, _ := forger.Issue(sa, aud, time.Hour, nil, nil, nil, time.Now())
	parts := strings.Split(tok, ".")
	tampered := parts[0] + "." + strings.TrimRight(parts[1], "A") + "A." + parts[2]
	boundToMissingPod, _, _ := tokens.Issue(sa, aud, time.Hour, &Ref{Name: "gone", UID: "x"}, nil, nil, time.Now())
	for name, tc := range map[string]struct{ token, err string }{
		"expired":          {expired, "service account token has expired"},
		"wrong audience":   {wrongAud, `token audiences ["vault"] is invalid for the target audiences ["https://kubernetes.default.svc.cluster.local"]`},
		"forged signature": {forged, "invalid signature"},
		"tampered payload": {tampered, ""},
		"bound to missing": {boundToMissingPod, `pods "gone" is bound to this token: pods "gone" not found`},
		"not a JWT":        {"abc", "invalid bearer token"},
	} {
		_, err := authenticate(ctx, tc.token, nil)
		if err == nil || (tc.err != "" && err.Error() != tc.err) {
			t.Errorf("%s: err = %v, want %q", name, err, tc.err)
		}
	}
	// TokenReview with an explicit audience accepts the "vault" token.
	if u, err := authenticate(ctx, wrongAud, []string{"vault"}); err != nil || u.Name != "system:serviceaccount:default:robot" {
		t.Errorf("audience vault: %v %v", u, err)
	}
}
