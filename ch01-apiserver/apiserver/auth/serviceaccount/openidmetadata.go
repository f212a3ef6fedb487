package serviceaccount

import (
	"crypto"
	"crypto/ecdsa"
	"crypto/rsa"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"math/big"
	"net/url"
	"slices"
)

// ServiceAccount issuer discovery (KEP-1393): the apiserver publishes the
// OIDC provider metadata of its token issuer and the public keys that
// verify its tokens, so that anything outside the cluster (a cloud's
// workload identity, Vault) can check a pod's token without asking the
// apiserver. Upstream: pkg/serviceaccount/openidmetadata.go (the
// documents) and pkg/routes/openidmetadata.go (the two routes).
const (
	// OpenIDConfigPath serves the OIDC Provider Configuration document.
	OpenIDConfigPath = "/.well-known/openid-configuration"
	// JWKSPath serves the JSON Web Key Set of the verifying keys.
	JWKSPath = "/openid/v1/jwks"
)

// openIDMetadata is the subset of OIDC provider metadata upstream
// publishes: Kubernetes only issues ID tokens and starts no login flows.
type openIDMetadata struct {
	Issuer        string   `json:"issuer"`
	JWKSURI       string   `json:"jwks_uri"`
	ResponseTypes []string `json:"response_types_supported"`
	SubjectTypes  []string `json:"subject_types_supported"`
	SigningAlgs   []string `json:"id_token_signing_alg_values_supported"`
}

// jwk is one JSON Web Key (RFC 7517), fields in go-jose's order, which is
// the order upstream's answers have.
type jwk struct {
	Use string `json:"use"`
	Kty string `json:"kty"`
	Kid string `json:"kid"`
	Crv string `json:"crv,omitempty"`
	Alg string `json:"alg"`
	X   string `json:"x,omitempty"`
	Y   string `json:"y,omitempty"`
	N   string `json:"n,omitempty"`
	E   string `json:"e,omitempty"`
}

type jwks struct {
	Keys []jwk `json:"keys"`
}

// OpenIDMetadata renders the two discovery documents for issuer and the
// verifying keys (each key once). jwksURI is --service-account-jwks-uri;
// when empty it is https://externalAddress/openid/v1/jwks, as upstream
// builds it from the apiserver's external address (host:port). The checks
// and their messages are upstream's NewOpenIDMetadataProvider's.
func OpenIDMetadata(issuer, jwksURI, externalAddress string, keys []crypto.PublicKey) (config, keyset []byte, err error) {
	iss, err := url.Parse(issuer)
	switch {
	case issuer == "":
		return nil, nil, errors.New("empty issuer URL")
	case err != nil:
		return nil, nil, err
	case iss.Scheme != "https":
		return nil, nil, fmt.Errorf("issuer URL must use https scheme, got: %s", issuer)
	case iss.RawQuery != "":
		return nil, nil, fmt.Errorf("issuer URL may not include a query, got: %s", issuer)
	case iss.Fragment != "":
		return nil, nil, fmt.Errorf("issuer URL may not include a fragment, got: %s", issuer)
	}
	if jwksURI == "" {
		if externalAddress == "" {
			return nil, nil, errors.New("either the JWKS URI or the default external address, or both, must be set")
		}
		jwksURI = (&url.URL{Scheme: "https", Host: externalAddress, Path: JWKSPath}).String()
	} else if u, err := url.Parse(jwksURI); err != nil {
		return nil, nil, err
	} else if u.Scheme != "https" {
		return nil, nil, fmt.Errorf("jwksURI requires https scheme, parsed as: %v", u.String())
	}

	var set jwks
	var algs []string
	for i, k := range keys {
		key, err := toJWK(k)
		if err != nil {
			return nil, nil, fmt.Errorf("error constructing JWK for key #%d: %v", i, err)
		}
		if slices.ContainsFunc(set.Keys, func(o jwk) bool { return o.Kid == key.Kid }) {
			continue
		}
		set.Keys = append(set.Keys, key)
		if !slices.Contains(algs, key.Alg) {
			algs = append(algs, key.Alg)
		}
	}
	if len(set.Keys) == 0 {
		return nil, nil, errors.New("no keys provided for validating keyset")
	}
	slices.Sort(algs)
	config, err = json.Marshal(openIDMetadata{Issuer: issuer, JWKSURI: jwksURI,
		ResponseTypes: []string{"id_token"}, SubjectTypes: []string{"public"}, SigningAlgs: algs})
	if err != nil {
		return nil, nil, err
	}
	keyset, err = json.Marshal(set)
	return config, keyset, err
}

// toJWK is a public key as a JWK: RSA keys sign RS256, P-256 keys ES256.
func toJWK(pub crypto.PublicKey) (jwk, error) {
	alg, err := algFor(pub)
	if err != nil {
		return jwk{}, err
	}
	b64 := base64.RawURLEncoding.EncodeToString
	k := jwk{Use: "sig", Kid: KeyID(pub), Alg: alg}
	switch p := pub.(type) {
	case *rsa.PublicKey:
		k.Kty, k.N, k.E = "RSA", b64(p.N.Bytes()), b64(big.NewInt(int64(p.E)).Bytes())
	case *ecdsa.PublicKey:
		size := (p.Curve.Params().BitSize + 7) / 8
		raw, err := p.Bytes() // 0x04 || X || Y, each padded to the curve's size
		if err != nil {
			return jwk{}, err
		}
		k.Kty, k.Crv = "EC", p.Curve.Params().Name
		k.X, k.Y = b64(raw[1:1+size]), b64(raw[1+size:])
	}
	return k, nil
}
