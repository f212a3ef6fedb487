package pki

import (
	"crypto"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"encoding/pem"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// writeFileAtomic replaces path with data so that a concurrent reader sees
// either the old file or the new one, never a half-written file.
func writeFileAtomic(path string, data []byte, mode os.FileMode) error {
	tmp, err := writeTemp(path, data, mode)
	if err != nil {
		return err
	}
	if err := os.Rename(tmp, path); err != nil {
		os.Remove(tmp)
		return err
	}
	return nil
}

// writeFileExclusive creates path with data unless it already exists. It
// reports whether this call created the file. Two processes racing on an
// empty data dir both call it; exactly one wins (os.Link refuses to replace
// an existing file) and the other reads the winner's file.
func writeFileExclusive(path string, data []byte, mode os.FileMode) (created bool, err error) {
	tmp, err := writeTemp(path, data, mode)
	if err != nil {
		return false, err
	}
	defer os.Remove(tmp)
	if err := os.Link(tmp, path); err != nil {
		if errors.Is(err, fs.ErrExist) {
			return false, nil
		}
		return false, err
	}
	return true, nil
}

// writeTemp writes data to a fresh file next to path and returns its name.
func writeTemp(path string, data []byte, mode os.FileMode) (string, error) {
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return "", err
	}
	f, err := os.CreateTemp(dir, "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		return "", err
	}
	name := f.Name()
	_, werr := f.Write(data)
	cerr := f.Close()
	if err := errors.Join(werr, cerr, os.Chmod(name, mode)); err != nil {
		os.Remove(name)
		return "", err
	}
	return name, nil
}

// ensureKey returns the private key stored at path, creating an ECDSA P-256
// key there first if the file does not exist yet.
func ensureKey(path string) (crypto.Signer, error) {
	if _, err := os.Stat(path); errors.Is(err, fs.ErrNotExist) {
		key, err := newKey()
		if err != nil {
			return nil, err
		}
		keyPEM, err := encodeKey(key)
		if err != nil {
			return nil, err
		}
		if _, err := writeFileExclusive(path, keyPEM, 0o600); err != nil {
			return nil, err
		}
		// Whether we or a concurrent process won, the file now holds the key.
	}
	return readKey(path)
}

// newKey generates a leaf or CA key. ECDSA P-256 is what kubeadm uses with
// encryptionAlgorithm: ECDSA-P256; it is much faster to generate than RSA.
func newKey() (*ecdsa.PrivateKey, error) {
	return ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
}

// encodeKey PEM-encodes a private key the way kubeadm writes it:
// "EC PRIVATE KEY" for ECDSA, "RSA PRIVATE KEY" for RSA.
func encodeKey(key crypto.Signer) ([]byte, error) {
	switch k := key.(type) {
	case *ecdsa.PrivateKey:
		der, err := x509.MarshalECPrivateKey(k)
		if err != nil {
			return nil, err
		}
		return pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: der}), nil
	case *rsa.PrivateKey:
		return pem.EncodeToMemory(&pem.Block{Type: "RSA PRIVATE KEY", Bytes: x509.MarshalPKCS1PrivateKey(k)}), nil
	default:
		return nil, fmt.Errorf("unsupported key type %T", key)
	}
}

func readKey(path string) (crypto.Signer, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	key, err := parseKey(data)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return key, nil
}

// parseKey accepts the PEM key formats found in kubeadm and kubeconfig files.
func parseKey(data []byte) (crypto.Signer, error) {
	block, _ := pem.Decode(data)
	if block == nil {
		return nil, errors.New("no PEM data")
	}
	switch block.Type {
	case "EC PRIVATE KEY":
		return x509.ParseECPrivateKey(block.Bytes)
	case "RSA PRIVATE KEY":
		return x509.ParsePKCS1PrivateKey(block.Bytes)
	case "PRIVATE KEY":
		key, err := x509.ParsePKCS8PrivateKey(block.Bytes)
		if err != nil {
			return nil, err
		}
		signer, ok := key.(crypto.Signer)
		if !ok {
			return nil, fmt.Errorf("unsupported key type %T", key)
		}
		return signer, nil
	default:
		return nil, fmt.Errorf("unexpected PEM block %q", block.Type)
	}
}

func encodeCert(der []byte) []byte {
	return pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der})
}

func readCert(path string) (*x509.Certificate, []byte, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, nil, err
	}
	block, _ := pem.Decode(data)
	if block == nil || block.Type != "CERTIFICATE" {
		return nil, nil, fmt.Errorf("%s: no CERTIFICATE PEM block", path)
	}
	cert, err := x509.ParseCertificate(block.Bytes)
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %w", path, err)
	}
	return cert, data, nil
}

// samePublicKey reports whether the certificate was issued for key.
func samePublicKey(cert *x509.Certificate, key crypto.Signer) bool {
	pub, ok := key.Public().(interface{ Equal(crypto.PublicKey) bool })
	return ok && pub.Equal(cert.PublicKey)
}
