package pki

import (
	"bytes"
	"crypto"
	"crypto/x509"
	"encoding/pem"
	"fmt"
	"os"
	"path/filepath"
)

// EnsureServiceAccountKey returns the key that signs service-account tokens,
// creating <dataDir>/pki/sa.key (and its public half, sa.pub) if needed.
//
// New keys are ECDSA P-256, so tokens are signed with ES256. A kubeadm sa.key
// (RSA, RS256) placed in the directory is used as is. The apiserver signs
// with the private key; anything that verifies tokens needs only sa.pub.
func EnsureServiceAccountKey(dataDir string) (crypto.Signer, error) {
	return EnsureServiceAccountKeyIn(Dir(dataDir))
}

// EnsureServiceAccountKeyIn is EnsureServiceAccountKey for a PKI directory
// named directly: dir/sa.key and dir/sa.pub.
func EnsureServiceAccountKeyIn(dir string) (crypto.Signer, error) {
	key, err := ensureKey(filepath.Join(dir, SAKeyFile))
	if err != nil {
		return nil, fmt.Errorf("service-account key: %w", err)
	}
	der, err := x509.MarshalPKIXPublicKey(key.Public())
	if err != nil {
		return nil, err
	}
	pubPEM := pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: der})
	pubPath := filepath.Join(dir, SAPubFile)
	if old, err := os.ReadFile(pubPath); err != nil || !bytes.Equal(old, pubPEM) {
		// sa.pub is derived from sa.key, so rewriting it is always safe.
		if err := writeFileAtomic(pubPath, pubPEM, 0o644); err != nil {
			return nil, err
		}
	}
	return key, nil
}
