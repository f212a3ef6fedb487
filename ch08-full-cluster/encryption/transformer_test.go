package encryption

import (
	"bytes"
	"crypto/aes"
	"crypto/cipher"
	"crypto/rand"
	"encoding/hex"
	"strings"
	"testing"
)

// TestGCMLegacyDataCompatibility decrypts upstream's recorded AES-GCM
// output (aes_test.go, recorded at commit 3b1fc60d): what upstream's
// apiserver stored, Kubik reads.
func TestGCMLegacyDataCompatibility(t *testing.T) {
	tr, err := NewGCMTransformer([]byte("snorlax_awesomes"))
	if err != nil {
		t.Fatal(err)
	}
	const legacyCiphertext = "\x9f'\xc8\xfc\xea\x8aX\xc4g\xd8\xe47\xdb\xf2\xd8YU\xf9\xb4\xbd\x91/N\xf9g\u05c8\xa0\xcb\ay}\xac\n?\n\bE`\\\xa8Z\xc8V+J\xe1"
	got, stale, err := tr.TransformFromStorage([]byte(legacyCiphertext), []byte("bamboo"))
	if err != nil || stale || string(got) != "pandas are the best" {
		t.Fatalf("got %q stale=%v err=%v, want %q", got, stale, err, "pandas are the best")
	}
	if _, _, err := tr.TransformFromStorage([]byte(legacyCiphertext), []byte("panda")); err == nil {
		t.Fatal("other authenticated data (another etcd key) must not decrypt")
	}
}

// TestCBCKnownVector reads a value laid out as upstream's CBC transformer
// writes it — IV, then the CBC ciphertext of the PKCS#7-padded data —
// whose first four blocks are NIST SP 800-38A's F.2.5 CBC-AES256 vector.
func TestCBCKnownVector(t *testing.T) {
	key := mustHex(t, "603deb1015ca71be2b73aef0857d77811f352c073b6108d72d9810a30914dff4")
	iv := mustHex(t, "000102030405060708090a0b0c0d0e0f")
	plain := mustHex(t, "6bc1bee22e409f96e93d7e117393172aae2d8a571e03ac9c9eb76fac45af8e5130c81c46a35ce411e5fbc1191a0a52eff69f2445df4f9b17ad2b417be66c3710")
	nist := mustHex(t, "f58c4c04d6e5f1ba779eabfb5f7bfbd69cfc4e967edb808d679f777bc6702c7d39f23369a9d9bacfa530e26304231461b2eb05e2c39be9fcda6c19078c6a9d1b")
	// The padding block (16 × 0x10) chained on the vector's last block.
	block, _ := aes.NewCipher(key)
	last := make([]byte, 16)
	cipher.NewCBCEncrypter(block, nist[48:]).CryptBlocks(last, bytes.Repeat([]byte{16}, 16))
	stored := append(append(append([]byte{}, iv...), nist...), last...)

	tr, err := NewCBCTransformer(key)
	if err != nil {
		t.Fatal(err)
	}
	got, _, err := tr.TransformFromStorage(stored, nil)
	if err != nil || !bytes.Equal(got, plain) {
		t.Fatalf("got %x err=%v, want %x", got, err, plain)
	}
	// And what it writes has the same layout: IV, then len+padding.
	out, err := tr.TransformToStorage(plain, nil)
	if err != nil || len(out) != 16+64+16 {
		t.Fatalf("written %d bytes, err=%v; want 96", len(out), err)
	}
	// Corrupt padding is refused, not panicked on.
	bad := bytes.Clone(stored)
	bad[len(bad)-1] ^= 0xff
	if _, _, err := tr.TransformFromStorage(bad, nil); err == nil {
		t.Fatal("corrupt padding accepted")
	}
}

func mustHex(t *testing.T, s string) []byte {
	t.Helper()
	b, err := hex.DecodeString(s)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestRoundTrip is upstream's TestRoundTrip: every provider and key size
// returns what it was given, for lengths around the block size.
func TestRoundTrip(t *testing.T) {
	lengths := []int{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 128, 1024}
	mk := func(f func([]byte) (Transformer, error), key []byte) Transformer {
		tr, err := f(key)
		if err != nil {
			t.Fatal(err)
		}
		return tr
	}
	tests := []struct {
		name string
		t    Transformer
	}{
		{"GCM 16 byte key", mk(NewGCMTransformer, bytes.Repeat([]byte("a"), 16))},
		{"GCM 24 byte key", mk(NewGCMTransformer, bytes.Repeat([]byte("b"), 24))},
		{"GCM 32 byte key", mk(NewGCMTransformer, bytes.Repeat([]byte("c"), 32))},
		{"CBC 16 byte key", mk(NewCBCTransformer, bytes.Repeat([]byte("a"), 16))},
		{"CBC 32 byte key", mk(NewCBCTransformer, bytes.Repeat([]byte("c"), 32))},
		{"secretbox", mk(NewSecretboxTransformer, bytes.Repeat([]byte{1}, 32))},
		{"identity", identityTransformer{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for _, l := range lengths {
				data := make([]byte, l)
				rand.Read(data)
				stored, err := tt.t.TransformToStorage(data, []byte("/registry/secrets/default/x"))
				if err != nil {
					t.Fatal(err)
				}
				got, stale, err := tt.t.TransformFromStorage(stored, []byte("/registry/secrets/default/x"))
				if err != nil || stale || !bytes.Equal(got, data) {
					t.Fatalf("len %d: got %x stale=%v err=%v", l, got, stale, err)
				}
			}
		})
	}
}

// TestKeyRotation is upstream's TestCBCKeyRotation / TestGCMKeyRotation /
// TestSecretboxKeyRotation: the first transformer writes under its prefix;
// with the order reversed the value still reads, marked stale. Only GCM
// checks the authenticated data.
func TestKeyRotation(t *testing.T) {
	for _, c := range []struct {
		name          string
		f             func([]byte) (Transformer, error)
		authenticated bool
	}{
		{"aescbc", NewCBCTransformer, false},
		{"aesgcm", NewGCMTransformer, true},
		{"secretbox", NewSecretboxTransformer, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			k1, _ := c.f(bytes.Repeat([]byte("1"), 32))
			k2, _ := c.f(bytes.Repeat([]byte("2"), 32))
			ad := []byte("authenticated_data")
			p := NewPrefixTransformers(nil, PrefixTransformer{Prefix: []byte("first:"), Transformer: k1}, PrefixTransformer{Prefix: []byte("second:"), Transformer: k2})
			out, err := p.TransformToStorage([]byte("firstvalue"), ad)
			if err != nil || !bytes.HasPrefix(out, []byte("first:")) {
				t.Fatalf("%q %v", out, err)
			}
			from, stale, err := p.TransformFromStorage(out, ad)
			if err != nil || stale || string(from) != "firstvalue" {
				t.Fatalf("%q stale=%v %v", from, stale, err)
			}
			_, _, err = p.TransformFromStorage(out, []byte("incorrect_context"))
			if (err != nil) != c.authenticated {
				t.Fatalf("other authenticated data: err=%v, want an error: %v", err, c.authenticated)
			}
			p = NewPrefixTransformers(nil, PrefixTransformer{Prefix: []byte("second:"), Transformer: k2}, PrefixTransformer{Prefix: []byte("first:"), Transformer: k1})
			from, stale, err = p.TransformFromStorage(out, ad)
			if err != nil || !stale || string(from) != "firstvalue" {
				t.Fatalf("reversed: %q stale=%v %v", from, stale, err)
			}
		})
	}
}

// TestProviderPrefixes: the stored value names provider and key exactly
// as upstream's does; identity first reads both plain and encrypted
// values; a value of no configured provider is refused.
func TestProviderPrefixes(t *testing.T) {
	cfg := mustParse(t, `
kind: EncryptionConfiguration
apiVersion: apiserver.config.k8s.io/v1
resources:
- resources: [secrets]
  providers:
  - aescbc:
      keys:
      - {name: key1, secret: `+b64(32, 'a')+`}
  - aesgcm:
      keys:
      - {name: key2, secret: `+b64(16, 'b')+`}
  - secretbox:
      keys:
      - {name: key3, secret: `+b64(32, 'c')+`}
  - identity: {}
`)
	ts, err := cfg.Transformers()
	if err != nil {
		t.Fatal(err)
	}
	tr := ts.Lookup(GroupResource{Resource: "secrets"})
	ad := []byte("/registry/secrets/default/x")
	out, err := tr.TransformToStorage([]byte(`{"kind":"Secret"}`), ad)
	if err != nil || !strings.HasPrefix(string(out), "k8s:enc:aescbc:v1:key1:") {
		t.Fatalf("%q %v", out, err)
	}
	if got, stale, err := tr.TransformFromStorage([]byte(`{"kind":"Secret"}`), ad); err != nil || !stale || string(got) != `{"kind":"Secret"}` {
		t.Fatalf("plain value through the identity fallback: %q stale=%v %v", got, stale, err)
	}
	// What each provider wrote reads back through the whole list.
	for _, order := range [][]int{{1, 0, 2, 3}, {2, 0, 1, 3}} {
		rc := cfg.Resources[0]
		rotated := &EncryptionConfiguration{APIVersion: APIVersion, Kind: Kind, Resources: []ResourceConfiguration{{Resources: rc.Resources,
			Providers: []ProviderConfiguration{rc.Providers[order[0]], rc.Providers[order[1]], rc.Providers[order[2]], rc.Providers[order[3]]}}}}
		rts, err := rotated.Transformers()
		if err != nil {
			t.Fatal(err)
		}
		w := rts.Lookup(GroupResource{Resource: "secrets"})
		enc, _ := w.TransformToStorage([]byte("v"), ad)
		want := []string{"k8s:enc:aescbc:v1:key1:", "k8s:enc:aesgcm:v1:key2:", "k8s:enc:secretbox:v1:key3:"}[order[0]]
		if !strings.HasPrefix(string(enc), want) {
			t.Fatalf("written %q, want prefix %s", enc, want)
		}
		if got, stale, err := tr.TransformFromStorage(enc, ad); err != nil || !stale || string(got) != "v" {
			t.Fatalf("%s read by the original order: %q stale=%v %v", want, got, stale, err)
		}
	}
	// Without identity, a plain value is an error.
	only := mustParse(t, `{"kind":"EncryptionConfiguration","apiVersion":"apiserver.config.k8s.io/v1","resources":[{"resources":["secrets"],"providers":[{"aescbc":{"keys":[{"name":"key1","secret":"`+b64(32, 'a')+`"}]}}]}]}`)
	ots, _ := only.Transformers()
	if _, _, err := ots.Lookup(GroupResource{Resource: "secrets"}).TransformFromStorage([]byte(`{}`), ad); err == nil || !strings.Contains(err.Error(), "no matching prefix found") {
		t.Fatalf("plain value without identity: %v", err)
	}
	// Identity first refuses encrypted data, and passes it on to the next provider.
	idFirst := mustParse(t, `
kind: EncryptionConfiguration
apiVersion: apiserver.config.k8s.io/v1
resources:
- resources: [secrets]
  providers:
  - identity: {}
  - aescbc: {keys: [{name: key1, secret: `+b64(32, 'a')+`}]}
`)
	its, _ := idFirst.Transformers()
	if got, stale, err := its.Lookup(GroupResource{Resource: "secrets"}).TransformFromStorage(out, ad); err != nil || !stale || string(got) != `{"kind":"Secret"}` {
		t.Fatalf("identity first, encrypted value: %q stale=%v %v", got, stale, err)
	}
	if _, _, err := (identityTransformer{}).TransformFromStorage(out, ad); err == nil {
		t.Fatal("identity read encrypted data")
	}
}

func b64(n int, c byte) string {
	return enc(bytes.Repeat([]byte{c}, n))
}
