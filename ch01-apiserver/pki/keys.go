package pki

import (
	"crypto"
	"crypto/x509"
	"encoding/pem"
	"fmt"
	"os"
)

// ReadSigningKey reads a PEM private key (EC, RSA or PKCS#8), as
// --service-account-signing-key-file names it.
func ReadSigningKey(path string) (crypto.Signer, error) {
	return readKey(path)
}

// ReadPublicKeys reads every public key of a PEM file, as
// --service-account-key-file names it: PUBLIC KEY blocks, certificates, or
// private keys (whose public half is used).
func ReadPublicKeys(path string) ([]crypto.PublicKey, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var keys []crypto.PublicKey
	for {
		var block *pem.Block
		block, data = pem.Decode(data)
		if block == nil {
			break
		}
		switch block.Type {
		case "PUBLIC KEY":
			k, err := x509.ParsePKIXPublicKey(block.Bytes)
			if err != nil {
				return nil, fmt.Errorf("%s: %w", path, err)
			}
			keys = append(keys, k)
		case "RSA PUBLIC KEY":
			k, err := x509.ParsePKCS1PublicKey(block.Bytes)
			if err != nil {
				return nil, fmt.Errorf("%s: %w", path, err)
			}
			keys = append(keys, k)
		case "CERTIFICATE":
			c, err := x509.ParseCertificate(block.Bytes)
			if err != nil {
				return nil, fmt.Errorf("%s: %w", path, err)
			}
			keys = append(keys, c.PublicKey)
		case "EC PRIVATE KEY", "RSA PRIVATE KEY", "PRIVATE KEY":
			k, err := parseKey(pem.EncodeToMemory(block))
			if err != nil {
				return nil, fmt.Errorf("%s: %w", path, err)
			}
			keys = append(keys, k.Public())
		}
	}
	if len(keys) == 0 {
		return nil, fmt.Errorf("%s: no public keys found", path)
	}
	return keys, nil
}
