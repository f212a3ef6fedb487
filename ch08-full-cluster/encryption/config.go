// Package encryption encrypts chosen resources at rest: the values of their
// etcd keys are encrypted on the way to etcd and decrypted on the way back,
// as configured by upstream's EncryptionConfiguration file
// (--encryption-provider-config, apiserver.config.k8s.io/v1). The providers
// are upstream's: aescbc, aesgcm, secretbox and identity (kms is not
// offered); the first provider of a resource encrypts, every one of them
// may decrypt, and a stored value names who encrypted it with upstream's
// prefix — k8s:enc:aescbc:v1:<key name>: — so `etcdctl get` shows it and
// upstream's apiserver can read what Kubik wrote, and the other way round.
//
// The transformation is a storage.Interface placed between the etcd store
// and the watch cache (NewStore): the apiserver's code does not change,
// and the watch cache holds the plain values, as upstream's does.
//
// Upstream: k8s.io/apiserver/pkg/server/options/encryptionconfig (this
// file), k8s.io/apiserver/pkg/storage/value and value/encrypt/{aes,
// secretbox,identity} (transformer.go), the transformer calls in
// k8s.io/apiserver/pkg/storage/etcd3/store.go (storage.go).
package encryption

import (
	"bytes"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"

	"gopkg.in/yaml.v3"
)

// The configuration file's kind, as upstream's config/v1 types.
const (
	APIVersion = "apiserver.config.k8s.io/v1"
	Kind       = "EncryptionConfiguration"
)

// EncryptionConfiguration is the file --encryption-provider-config names.
type EncryptionConfiguration struct {
	APIVersion string                  `yaml:"apiVersion"`
	Kind       string                  `yaml:"kind"`
	Resources  []ResourceConfiguration `yaml:"resources"`
}

// ResourceConfiguration is one entry: the resources it is for
// ("secrets", "deployments.apps", "*.apps", "*." for the core group,
// "*.*" for all) and its providers, in order.
type ResourceConfiguration struct {
	Resources []string                `yaml:"resources"`
	Providers []ProviderConfiguration `yaml:"providers"`
}

// ProviderConfiguration is one provider: exactly one field is set.
type ProviderConfiguration struct {
	AESGCM    *AESConfiguration       `yaml:"aesgcm,omitempty"`
	AESCBC    *AESConfiguration       `yaml:"aescbc,omitempty"`
	Secretbox *SecretboxConfiguration `yaml:"secretbox,omitempty"`
	Identity  *IdentityConfiguration  `yaml:"identity,omitempty"`
	// KMS is read only to say that it is not offered.
	KMS map[string]any `yaml:"kms,omitempty"`
}

// AESConfiguration: the keys of aesgcm or aescbc, the first one encrypts.
type AESConfiguration struct {
	Keys []Key `yaml:"keys"`
}

// SecretboxConfiguration: the keys of secretbox, the first one encrypts.
type SecretboxConfiguration struct {
	Keys []Key `yaml:"keys"`
}

// IdentityConfiguration: no encryption (plain values are read and, when
// first, written).
type IdentityConfiguration struct{}

// Key is a named key; Secret is its bytes in base64.
type Key struct {
	Name   string `yaml:"name"`
	Secret string `yaml:"secret"`
}

// maxConfigBytes bounds the file read: a configuration is a few hundred
// bytes, a few kilobytes with many keys.
const maxConfigBytes = 1 << 20

// LoadEncryptionConfig reads and validates the file at path and returns
// each configured resource's transformer (upstream's LoadEncryptionConfig).
func LoadEncryptionConfig(path string) (Transformers, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("error opening encryption provider configuration file %q: %w", path, err)
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, maxConfigBytes+1))
	if err != nil {
		return nil, fmt.Errorf("could not read contents: %w", err)
	}
	if len(data) > maxConfigBytes {
		return nil, fmt.Errorf("encryption provider configuration file %q is larger than %d bytes", path, maxConfigBytes)
	}
	if len(bytes.TrimSpace(data)) == 0 {
		return nil, fmt.Errorf("encryption provider configuration file %q is empty", path)
	}
	cfg, err := ParseEncryptionConfig(data)
	if err != nil {
		return nil, fmt.Errorf("error while parsing file %q: %w", path, err)
	}
	return cfg.Transformers()
}

// ParseEncryptionConfig decodes a configuration (YAML or JSON) strictly —
// an unknown field is an error, as upstream's strict decoding makes it —
// and validates it.
func ParseEncryptionConfig(data []byte) (*EncryptionConfiguration, error) {
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	var cfg EncryptionConfiguration
	if err := dec.Decode(&cfg); err != nil {
		return nil, err
	}
	if cfg.APIVersion != APIVersion || cfg.Kind != Kind {
		return nil, fmt.Errorf("got unexpected config type: %s, Kind=%s (want %s, Kind=%s)", cfg.APIVersion, cfg.Kind, APIVersion, Kind)
	}
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	return &cfg, nil
}

// Key sizes: AES takes 16, 24 or 32 bytes, secretbox 32.
var (
	aesKeySizes       = []int{16, 24, 32}
	secretboxKeySizes = []int{32}
)

// Validate checks the configuration as upstream's
// ValidateEncryptionConfiguration does, with its messages and field paths.
func (c *EncryptionConfiguration) Validate() error {
	var errs []string
	add := func(path, msg string) { errs = append(errs, path+": "+msg) }
	if len(c.Resources) == 0 {
		add("resources", "Required value: at least one resources is required")
	}
	for i, rc := range c.Resources {
		r := fmt.Sprintf("resources[%d].resources", i)
		p := fmt.Sprintf("resources[%d].providers", i)
		if len(rc.Resources) == 0 {
			add(r, "Required value: at least one "+r+" is required")
		}
		duplicate := false
		for j, res := range rc.Resources {
			if msg := resourceNameError(res); msg != "" {
				add(fmt.Sprintf("%s[%d]", r, j), fmt.Sprintf("Invalid value: %q: %s", res, msg))
			}
			duplicate = duplicate || slices.Index(rc.Resources, res) != j
		}
		if duplicate {
			add(r, "Invalid value: the same resource cannot be specified multiple times")
		}
		if overlaps(rc.Resources) {
			add(r, "Invalid value: using overlapping resources such as 'secrets' and '*.' in the same resource list is not allowed as they will be masked")
		}
		if len(rc.Providers) == 0 {
			add(p, "Required value: at least one "+p+" is required")
		}
		for j, pc := range rc.Providers {
			path := fmt.Sprintf("%s[%d]", p, j)
			switch n := pc.count(); {
			case n == 0:
				add(path, "Invalid value: provider does not contain any of the expected providers: KMS, AESGCM, AESCBC, Secretbox, Identity")
				continue
			case n > 1:
				add(path, "Invalid value: more than one provider specified in a single element, should split into different list elements")
				continue
			}
			switch {
			case pc.KMS != nil:
				add(path+".kms", "Unsupported value: kms providers are not offered by Kubik (aescbc, aesgcm, secretbox, identity)")
			case pc.AESGCM != nil:
				errs = append(errs, validateKeys(pc.AESGCM.Keys, path+".aesgcm.keys", aesKeySizes)...)
			case pc.AESCBC != nil:
				errs = append(errs, validateKeys(pc.AESCBC.Keys, path+".aescbc.keys", aesKeySizes)...)
			case pc.Secretbox != nil:
				errs = append(errs, validateKeys(pc.Secretbox.Keys, path+".secretbox.keys", secretboxKeySizes)...)
			}
		}
	}
	if len(errs) > 0 {
		return errors.New(strings.Join(errs, ", "))
	}
	return nil
}

func (p ProviderConfiguration) count() int {
	n := 0
	for _, set := range []bool{p.AESGCM != nil, p.AESCBC != nil, p.Secretbox != nil, p.Identity != nil, p.KMS != nil} {
		if set {
			n++
		}
	}
	return n
}

// resourceNameError is upstream's validateResourceNames for one name.
func resourceNameError(res string) string {
	gr := ParseGroupResource(res)
	switch {
	case strings.ToLower(res) != res:
		return "resource name should not contain capital letters"
	case res == "*":
		return "use '*.' to encrypt all the resources from core API group or *.* to encrypt all resources"
	case res == "apiserveripinfo" || res == "serviceipallocations" || res == "servicenodeportallocations":
		return "resources which do not have REST API/s cannot be encrypted"
	case gr.Group == "events.k8s.io":
		return "'*.events.k8s.io' objects are stored using the 'events' API group in etcd. Use 'events' instead in the config file"
	case gr.Group == "extensions":
		return "'extensions' group has been removed and cannot be used for encryption"
	case gr.Group == "*" && gr.Resource != "*":
		return "encrypting the same resource across groups is not supported"
	}
	return ""
}

// overlaps is upstream's overlap check: a wildcard next to a resource it
// already covers.
func overlaps(resources []string) bool {
	for i, a := range resources {
		r1 := ParseGroupResource(a)
		for j, b := range resources {
			r2 := ParseGroupResource(b)
			if i == j || r1 == r2 {
				continue
			}
			if r1 == (GroupResource{"*", "*"}) || (r1.Group == r2.Group && (r1.Resource == "*" || r2.Resource == "*")) {
				return true
			}
		}
	}
	return false
}

func validateKeys(keys []Key, path string, sizes []int) []string {
	if len(keys) == 0 {
		return []string{path + ": Required value: at least one keys is required"}
	}
	var errs []string
	for i, k := range keys {
		p := fmt.Sprintf("%s[%d]", path, i)
		if k.Name == "" {
			errs = append(errs, p+".name: Required value: name is a mandatory field for a key")
		}
		if k.Secret == "" {
			errs = append(errs, p+".secret: Required value: secret is a mandatory field for a key")
			continue
		}
		secret, err := base64.StdEncoding.DecodeString(k.Secret)
		if err != nil {
			errs = append(errs, p+`.secret: Invalid value: "REDACTED": secrets must be base64 encoded`)
			continue
		}
		if !slices.Contains(sizes, len(secret)) {
			errs = append(errs, fmt.Sprintf(`%s.secret: Invalid value: "REDACTED": secret is not of the expected length, got %d, expected one of %v`, p, len(secret), sizes))
		}
	}
	return errs
}

// GroupResource is a resource of a group ("" the core group); "*" in
// either place is a wildcard.
type GroupResource struct{ Group, Resource string }

// ParseGroupResource reads "secrets", "deployments.apps", "*." or "*.*"
// as upstream's schema.ParseGroupResource does: the resource up to the
// first dot, the group after it.
func ParseGroupResource(s string) GroupResource {
	if r, g, ok := strings.Cut(s, "."); ok {
		return GroupResource{Group: g, Resource: r}
	}
	return GroupResource{Resource: s}
}

// Transformers are the configured resources' transformers; Lookup finds a
// resource's, wildcards included.
type Transformers map[GroupResource]Transformer

// Lookup is the transformer of gr: its own entry, else its group's
// ("*.apps", "*." for the core group), else "*.*"; nil when none applies.
func (t Transformers) Lookup(gr GroupResource) Transformer {
	for _, k := range []GroupResource{gr, {Group: gr.Group, Resource: "*"}, {Group: "*", Resource: "*"}} {
		if tr, ok := t[k]; ok {
			return tr
		}
	}
	return nil
}

// Transformers builds each resource's transformer: its providers in
// order, from every entry that names it (upstream's
// getTransformerOverridesAndKMSPluginProbes).
func (c *EncryptionConfiguration) Transformers() (Transformers, error) {
	lists := map[GroupResource][]PrefixTransformer{}
	for _, rc := range c.Resources {
		var providers []PrefixTransformer
		for _, pc := range rc.Providers {
			p, err := pc.transformer()
			if err != nil {
				return nil, err
			}
			providers = append(providers, p)
		}
		for _, res := range rc.Resources {
			gr := ParseGroupResource(res)
			lists[gr] = append(lists[gr], providers...)
		}
	}
	out := Transformers{}
	for gr, list := range lists {
		out[gr] = NewPrefixTransformers(errors.New("no matching prefix found"), list...)
	}
	return out, nil
}

// transformer is one provider, under its prefix.
func (p ProviderConfiguration) transformer() (PrefixTransformer, error) {
	switch {
	case p.AESGCM != nil:
		return keyedTransformer(aesGCMTransformerPrefixV1, "AES", p.AESGCM.Keys, NewGCMTransformer)
	case p.AESCBC != nil:
		return keyedTransformer(aesCBCTransformerPrefixV1, "AES", p.AESCBC.Keys, NewCBCTransformer)
	case p.Secretbox != nil:
		return keyedTransformer(secretboxTransformerPrefixV1, "Secretbox", p.Secretbox.Keys, NewSecretboxTransformer)
	case p.Identity != nil:
		return PrefixTransformer{Prefix: nil, Transformer: identityTransformer{}}, nil
	}
	return PrefixTransformer{}, errors.New("provider does not contain any of the expected providers: KMS, AESGCM, AESCBC, Secretbox, Identity")
}

// keyedTransformer is a provider with named keys: prefix, then
// "<key name>:", then what that key's transformer wrote. The first key
// encrypts; reading tries the key the value names.
func keyedTransformer(prefix, what string, keys []Key, newTransformer func([]byte) (Transformer, error)) (PrefixTransformer, error) {
	var list []PrefixTransformer
	for _, k := range keys {
		secret, err := base64.StdEncoding.DecodeString(k.Secret)
		if err != nil {
			return PrefixTransformer{}, fmt.Errorf("could not obtain secret for named key %s: %w", k.Name, err)
		}
		t, err := newTransformer(secret)
		if err != nil {
			return PrefixTransformer{}, fmt.Errorf("error while creating cipher for named key %s: %w", k.Name, err)
		}
		list = append(list, PrefixTransformer{Prefix: []byte(k.Name + ":"), Transformer: t})
	}
	return PrefixTransformer{
		Prefix:      []byte(prefix),
		Transformer: NewPrefixTransformers(fmt.Errorf("no matching key was found for the provided %s transformer", what), list...),
	}, nil
}
