package serviceaccount

import (
	"crypto"
	"crypto/ecdsa"
	"crypto/rand"
	"crypto/rsa"
	"crypto/sha256"
	"crypto/x509"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"math/big"
	"strings"
)

// JWTs (RFC 7519), ES256 and RS256 only: header.payload.signature, each
// base64url-encoded. Upstream: pkg/serviceaccount/jwt.go (with go-jose).

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
