package encryption

import (
	"bytes"
	"crypto/aes"
	"crypto/cipher"
	"crypto/rand"
	"errors"
	"fmt"
	"io"

	"golang.org/x/crypto/nacl/secretbox"
)

// The stored prefixes, upstream's: a value encrypted by the aescbc key
// "key1" starts with "k8s:enc:aescbc:v1:key1:".
const (
	aesCBCTransformerPrefixV1    = "k8s:enc:aescbc:v1:"
	aesGCMTransformerPrefixV1    = "k8s:enc:aesgcm:v1:"
	secretboxTransformerPrefixV1 = "k8s:enc:secretbox:v1:"
	// encryptedPrefix starts every encrypted value; identity refuses to
	// read such a value as plain.
	encryptedPrefix = "k8s:enc:"
)

// Transformer turns a value into what is stored and back. authenticatedData
// is the etcd key: AES-GCM binds the ciphertext to it, so a value copied
// to another key does not decrypt. Upstream: value.Transformer.
type Transformer interface {
	// TransformFromStorage returns the plain value; stale is true when
	// it was not written by the provider that writes now (a write would
	// re-encrypt it).
	TransformFromStorage(data, authenticatedData []byte) (out []byte, stale bool, err error)
	TransformToStorage(data, authenticatedData []byte) ([]byte, error)
}

// PrefixTransformer is a transformer and the prefix its values carry.
type PrefixTransformer struct {
	Prefix      []byte
	Transformer Transformer
}

// prefixTransformers chooses by prefix: upstream's NewPrefixTransformers.
type prefixTransformers struct {
	transformers []PrefixTransformer
	err          error // when no prefix matches
}

// NewPrefixTransformers writes with the first transformer (its prefix
// first) and reads with the first whose prefix the value has. A prefix
// match that fails to decrypt does not end the search (two aescbc
// providers share a prefix while a key is rotated), nor does an identity
// (empty prefix) refusing an encrypted value.
func NewPrefixTransformers(err error, transformers ...PrefixTransformer) Transformer {
	if err == nil {
		err = errors.New("the provided value does not match any of the supported transformers")
	}
	return &prefixTransformers{transformers: transformers, err: err}
}

func (t *prefixTransformers) TransformFromStorage(data, authenticatedData []byte) ([]byte, bool, error) {
	var errs []error
	for i, pt := range t.transformers {
		if !bytes.HasPrefix(data, pt.Prefix) {
			continue
		}
		out, stale, err := pt.Transformer.TransformFromStorage(data[len(pt.Prefix):], authenticatedData)
		if err != nil {
			if len(pt.Prefix) > 0 {
				errs = append(errs, err)
			}
			continue
		}
		return out, stale || i != 0, nil
	}
	if len(errs) > 0 {
		return nil, false, errors.Join(errs...)
	}
	return nil, false, t.err
}

func (t *prefixTransformers) TransformToStorage(data, authenticatedData []byte) ([]byte, error) {
	pt := t.transformers[0]
	out, err := pt.Transformer.TransformToStorage(data, authenticatedData)
	if err != nil {
		return nil, err
	}
	return append(bytes.Clone(pt.Prefix), out...), nil
}

// identityTransformer stores values as they are; reading an encrypted
// value is an error (upstream's NewEncryptCheckTransformer).
type identityTransformer struct{}

func (identityTransformer) TransformFromStorage(data, _ []byte) ([]byte, bool, error) {
	if bytes.HasPrefix(data, []byte(encryptedPrefix)) {
		return nil, false, errors.New("identity transformer tried to read encrypted data")
	}
	return data, false, nil
}

func (identityTransformer) TransformToStorage(data, _ []byte) ([]byte, error) { return data, nil }

// gcm is AES-GCM with a random 12-byte nonce: nonce ‖ sealed(data), the
// etcd key as additional data (upstream's NewGCMTransformer).
type gcm struct{ aead cipher.AEAD }

// NewGCMTransformer is the aesgcm provider's transformer for key (16, 24
// or 32 bytes).
func NewGCMTransformer(key []byte) (Transformer, error) {
	block, err := aes.NewCipher(key)
	if err != nil {
		return nil, err
	}
	aead, err := cipher.NewGCM(block)
	if err != nil {
		return nil, err
	}
	if aead.NonceSize() != 12 { // every value in etcd depends on it
		return nil, fmt.Errorf("crypto/cipher.NewGCM returned unexpected nonce size: %d", aead.NonceSize())
	}
	return &gcm{aead: aead}, nil
}

func (t *gcm) TransformFromStorage(data, authenticatedData []byte) ([]byte, bool, error) {
	n := t.aead.NonceSize()
	if len(data) < n {
		return nil, false, errors.New("the stored data was shorter than the required size")
	}
	out, err := t.aead.Open(nil, data[:n], data[n:], authenticatedData)
	return out, false, err
}

func (t *gcm) TransformToStorage(data, authenticatedData []byte) ([]byte, error) {
	n := t.aead.NonceSize()
	nonce := make([]byte, n, n+len(data)+t.aead.Overhead())
	if _, err := rand.Read(nonce); err != nil {
		return nil, fmt.Errorf("failed to write nonce for AES-GCM: %w", err)
	}
	return t.aead.Seal(nonce, nonce, data, authenticatedData), nil
}

// cbc is AES-CBC: a random 16-byte IV ‖ the PKCS#7-padded data encrypted
// (upstream's NewCBCTransformer). It does not authenticate.
type cbc struct{ block cipher.Block }

// NewCBCTransformer is the aescbc provider's transformer for key (16, 24
// or 32 bytes).
func NewCBCTransformer(key []byte) (Transformer, error) {
	block, err := aes.NewCipher(key)
	if err != nil {
		return nil, err
	}
	return &cbc{block: block}, nil
}

var (
	errInvalidBlockSize    = errors.New("the stored data is not a multiple of the block size")
	errInvalidPKCS7Data    = errors.New("invalid PKCS7 data (empty or not padded)")
	errInvalidPKCS7Padding = errors.New("invalid padding on input")
)

func (t *cbc) TransformFromStorage(data, _ []byte) ([]byte, bool, error) {
	bs := aes.BlockSize
	if len(data) < bs {
		return nil, false, errors.New("the stored data was shorter than the required size")
	}
	iv, data := data[:bs], data[bs:]
	if len(data)%bs != 0 {
		return nil, false, errInvalidBlockSize
	}
	out := bytes.Clone(data)
	cipher.NewCBCDecrypter(t.block, iv).CryptBlocks(out, out)
	if len(out) == 0 {
		return nil, false, errInvalidPKCS7Data
	}
	pad := int(out[len(out)-1])
	if pad == 0 || pad > len(out) {
		return nil, false, errInvalidPKCS7Data
	}
	for _, b := range out[len(out)-pad:] {
		if int(b) != pad {
			return nil, false, errInvalidPKCS7Padding
		}
	}
	return out[:len(out)-pad], false, nil
}

func (t *cbc) TransformToStorage(data, _ []byte) ([]byte, error) {
	bs := aes.BlockSize
	pad := bs - len(data)%bs
	out := make([]byte, bs+len(data)+pad)
	if _, err := io.ReadFull(rand.Reader, out[:bs]); err != nil {
		return nil, errors.New("unable to read sufficient random bytes")
	}
	copy(out[bs:], data)
	copy(out[bs+len(data):], bytes.Repeat([]byte{byte(pad)}, pad))
	cipher.NewCBCEncrypter(t.block, out[:bs]).CryptBlocks(out[bs:], out[bs:])
	return out, nil
}

// secretboxTransformer is XSalsa20-Poly1305 (NaCl's secretbox): a random
// 24-byte nonce ‖ the sealed data (upstream's NewSecretboxTransformer).
type secretboxTransformer struct{ key [32]byte }

const secretboxNonceSize = 24

// NewSecretboxTransformer is the secretbox provider's transformer for key
// (32 bytes).
func NewSecretboxTransformer(key []byte) (Transformer, error) {
	if len(key) != 32 {
		return nil, fmt.Errorf("expected key size 32 for secretbox provider, got %v", len(key))
	}
	t := &secretboxTransformer{}
	copy(t.key[:], key)
	return t, nil
}

func (t *secretboxTransformer) TransformFromStorage(data, _ []byte) ([]byte, bool, error) {
	if len(data) < secretbox.Overhead+secretboxNonceSize {
		return nil, false, errors.New("the stored data was shorter than the required size")
	}
	var nonce [secretboxNonceSize]byte
	copy(nonce[:], data)
	out, ok := secretbox.Open(nil, data[secretboxNonceSize:], &nonce, &t.key)
	if !ok {
		return nil, false, errors.New("output array was not large enough for encryption")
	}
	return out, false, nil
}

func (t *secretboxTransformer) TransformToStorage(data, _ []byte) ([]byte, error) {
	var nonce [secretboxNonceSize]byte
	if _, err := rand.Read(nonce[:]); err != nil {
		return nil, err
	}
	return secretbox.Seal(nonce[:], data, &nonce, &t.key), nil
}
