package serviceaccount

import (
	"crypto"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"testing"
)

func TestJWTRoundTrip(t *testing.T) {
	key, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	tok, err := SignJWT(key, map[string]any{"sub": "x"})
	if err != nil {
		t.Fatal(err)
	}
	var claims map[string]any
	if err := VerifyJWT(tok, []crypto.PublicKey{key.Public()}, &claims); err != nil || claims["sub"] != "x" {
		t.Fatalf("verify: %v %v", claims, err)
	}
	other, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err := VerifyJWT(tok, []crypto.PublicKey{other.Public()}, &claims); err == nil {
		t.Fatal("verified with the wrong key")
	}
}
