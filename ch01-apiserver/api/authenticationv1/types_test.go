package authenticationv1

import (
	"bytes"
	"encoding/json"
	"reflect"
	"testing"
)

// roundTrip decodes doc strictly into v, encodes it again and checks that
// nothing was lost or added: our JSON names and omitempty choices are the
// server's.
func roundTrip(t *testing.T, doc []byte, v any) {
	t.Helper()
	dec := json.NewDecoder(bytes.NewReader(doc))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		t.Fatalf("decode: %v", err)
	}
	out, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	var want, got any
	if err := json.Unmarshal(doc, &want); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(out, &got); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(want, got) {
		t.Errorf("re-encoded JSON differs:\nwant %s\n got %s", doc, out)
	}
}

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
	roundTrip(t, []byte(whoami), &ssr)
	if ssr.Status.UserInfo.Username != "kubernetes-admin" {
		t.Errorf("decoded %+v", ssr)
	}
	var tr TokenRequest
	roundTrip(t, []byte(tokenRequest), &tr)
	if *tr.Spec.ExpirationSeconds != 3600 || tr.Status.Token == "" {
		t.Errorf("decoded %+v", tr)
	}
	var rev TokenReview
	roundTrip(t, []byte(tokenReview), &rev)
	if !rev.Status.Authenticated || rev.Status.User.Extra["authentication.kubernetes.io/credential-id"].String() != "[JTI=6f1e]" {
		t.Errorf("decoded %+v", rev)
	}
}
