package authenticationv1

import (
	"testing"

	"kubik/internal/apitest"
)

// The answer to "kubectl auth whoami".
const whoami = `{"kind":"SelfSubjectReview","apiVersion":"authentication.k8s.io/v1","metadata":{"creationTimestamp":"2026-11-30T02:10:00Z"},
 "status":{"userInfo":{"username":"kubernetes-admin","groups":["kubeadm:cluster-admins","system:authenticated"]}}}`

// The answer to "kubectl create token default".
const tokenRequest = `{"kind":"TokenRequest","apiVersion":"authentication.k8s.io/v1",
 "metadata":{"name":"default","namespace":"default","creationTimestamp":"2026-11-30T02:10:00Z"},
 "spec":{"audiences":["https://kubernetes.default.svc.cluster.local"],"expirationSeconds":3600,"boundObjectRef":null},
 "status":{"token":"eyJhbGciOiJSUzI1NiJ9.e30.c2ln","expirationTimestamp":"2026-11-30T03:10:00Z"}}`

const tokenReview = `{"kind":"TokenReview","apiVersion":"authentication.k8s.io/v1","metadata":{},
 "spec":{"token":"abc"},
 "status":{"authenticated":true,"user":{"username":"system:serviceaccount:default:default","uid":"0c1d2e3f-0000-4000-8000-000000000001",
  "groups":["system:serviceaccounts","system:serviceaccounts:default","system:authenticated"],
  "extra":{"authentication.kubernetes.io/credential-id":["JTI=6f1e"]}},"audiences":["https://kubernetes.default.svc.cluster.local"]}}`

func TestAuthenticationRoundTrip(t *testing.T) {
	var ssr SelfSubjectReview
	apitest.RoundTrip(t, []byte(whoami), &ssr)
	if ssr.Status.UserInfo.Username != "kubernetes-admin" {
		t.Errorf("decoded %+v", ssr)
	}
	var tr TokenRequest
	apitest.RoundTrip(t, []byte(tokenRequest), &tr)
	if *tr.Spec.ExpirationSeconds != 3600 || tr.Status.Token == "" {
		t.Errorf("decoded %+v", tr)
	}
	var rev TokenReview
	apitest.RoundTrip(t, []byte(tokenReview), &rev)
	if !rev.Status.Authenticated || rev.Status.User.Extra["authentication.kubernetes.io/credential-id"].String() != "[JTI=6f1e]" {
		t.Errorf("decoded %+v", rev)
	}
}
