package serviceaccount

import (
	"crypto"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/rsa"
	"encoding/base64"
	"encoding/json"
	"math/big"
	"strings"
	"testing"
)

func TestOpenIDMetadata(t *testing.T) {
	ec, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	rs, _ := rsa.GenerateKey(rand.Reader, 2048)
	// The signing key's public half is also among the verifying keys: once.
	config, keyset, err := OpenIDMetadata(DefaultIssuer, "", "10.0.0.1:6443", []crypto.PublicKey{rs.Public(), ec.Public(), ec.Public()})
	if err != nil {
		t.Fatal(err)
	}
	want := `{"issuer":"https://kubernetes.default.svc.cluster.local","jwks_uri":"https://10.0.0.1:6443/openid/v1/jwks",` +
		`"response_types_supported":["id_token"],"subject_types_supported":["public"],"id_token_signing_alg_values_supported":["ES256","RS256"]}`
	if string(config) != want {
		t.Errorf("config\n got %s\nwant %s", config, want)
	}
	var set struct{ Keys []map[string]string }
	if err := json.Unmarshal(keyset, &set); err != nil || len(set.Keys) != 2 {
		t.Fatalf("keyset %s: %v", keyset, err)
	}
	b64 := base64.RawURLEncoding
	r, e := set.Keys[0], set.Keys[1]
	n, _ := b64.DecodeString(r["n"])
	if r["kty"] != "RSA" || r["alg"] != "RS256" || r["e"] != "AQAB" || new(big.Int).SetBytes(n).Cmp(rs.N) != 0 || r["kid"] != KeyID(rs.Public()) {
		t.Errorf("RSA key %v", r)
	}
	x, _ := b64.DecodeString(e["x"])
	y, _ := b64.DecodeString(e["y"])
	if e["kty"] != "EC" || e["crv"] != "P-256" || len(x) != 32 || len(y) != 32 ||
		new(big.Int).SetBytes(x).Cmp(ec.X) != 0 || new(big.Int).SetBytes(y).Cmp(ec.Y) != 0 {
		t.Errorf("EC key %v", e)
	}
	if !strings.HasPrefix(string(keyset), `{"keys":[{"use":"sig","kty":"RSA","kid":"`) {
		t.Errorf("field order: %s", keyset)
	}

	for _, tc := range []struct{ issuer, jwks, addr, err string }{
		{"http://x", "", "a:1", "issuer URL must use https scheme, got: http://x"},
		{"https://x?a=b", "", "a:1", "issuer URL may not include a query, got: https://x?a=b"},
		{"https://x", "http://y/jwks", "a:1", "jwksURI requires https scheme, parsed as: http://y/jwks"},
		{"https://x", "", "", "either the JWKS URI or the default external address, or both, must be set"},
	} {
		if _, _, err := OpenIDMetadata(tc.issuer, tc.jwks, tc.addr, []crypto.PublicKey{ec.Public()}); err == nil || err.Error() != tc.err {
			t.Errorf("%v: %v, want %s", tc, err, tc.err)
		}
	}
	if _, _, err := OpenIDMetadata(DefaultIssuer, "https://issuer.example/keys", "", nil); err == nil || err.Error() != "no keys provided for validating keyset" {
		t.Errorf("no keys: %v", err)
	}
}
