package apiserver

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"testing"

	"kubik/ch01-apiserver/api/metav1"
	"kubik/ch01-apiserver/apiserver/auth"
	"kubik/ch01-apiserver/storage"
)

// testServer is a Server on memory storage with the RBAC bootstrap policy and Node,RBAC.
func testServer(t *testing.T) *Server {
	t.Helper()
	store := storage.NewMemory(0)
	t.Cleanup(func() { store.Close() })
	key, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	s, err := New(Config{Storage: store, AuthorizationModes: []string{auth.ModeNode, auth.ModeRBAC}, ServiceAccountSigningKey: key})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Bootstrap(context.Background()); err != nil {
		t.Fatal(err)
	}
	return s
}

func mustEnsure(t *testing.T, s *Server, objs ...metav1.Object) {
	t.Helper()
	for _, o := range objs {
		if err := s.ensure(context.Background(), o); err != nil {
			t.Fatal(err)
		}
	}
}
