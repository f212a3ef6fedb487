package encryption

import (
	"encoding/base64"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func enc(b []byte) string { return base64.StdEncoding.EncodeToString(b) }

func mustParse(t *testing.T, data string) *EncryptionConfiguration {
	t.Helper()
	cfg, err := ParseEncryptionConfig([]byte(data))
	if err != nil {
		t.Fatal(err)
	}
	return cfg
}

// upstream's testdata/valid-configs/aes-cbc-first.yaml.
const aesCBCFirst = `
kind: EncryptionConfiguration
apiVersion: apiserver.config.k8s.io/v1
resources:
  - resources:
    - secrets
    providers:
    - aescbc:
        keys:
        - name: key1
          secret: c2VjcmV0IGlzIHNlY3VyZQ==
        - name: key2
          secret: dGhpcyBpcyBwYXNzd29yZA==
    - secretbox:
        keys:
        - name: key1
          secret: YWJjZGVmZ2hpamtsbW5vcHFyc3R1dnd4eXoxMjM0NTY=
    - aesgcm:
        keys:
        - name: key1
          secret: c2VjcmV0IGlzIHNlY3VyZQ==
        - name: key2
          secret: dGhpcyBpcyBwYXNzd29yZA==
    - identity: {}
`

func TestLoadEncryptionConfig(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "encryption-config.yaml")
	if err := os.WriteFile(path, []byte(aesCBCFirst), 0o600); err != nil {
		t.Fatal(err)
	}
	ts, err := LoadEncryptionConfig(path)
	if err != nil {
		t.Fatal(err)
	}
	out, err := ts.Lookup(GroupResource{Resource: "secrets"}).TransformToStorage([]byte("x"), nil)
	if err != nil || !strings.HasPrefix(string(out), "k8s:enc:aescbc:v1:key1:") {
		t.Fatalf("%q %v", out, err)
	}
	if ts.Lookup(GroupResource{Resource: "configmaps"}) != nil {
		t.Fatal("configmaps are not configured")
	}

	for name, content := range map[string]string{
		"empty":    "  \n",
		"too-big":  strings.Repeat("#", maxConfigBytes+1),
		"not-yaml": "{{{",
	} {
		p := filepath.Join(dir, name)
		os.WriteFile(p, []byte(content), 0o600)
		if _, err := LoadEncryptionConfig(p); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
	if _, err := LoadEncryptionConfig(filepath.Join(dir, "missing")); err == nil || !strings.Contains(err.Error(), "error opening encryption provider configuration file") {
		t.Errorf("missing file: %v", err)
	}
}

// TestInvalidConfigs: upstream's invalid configurations are refused, with
// upstream's words.
func TestInvalidConfigs(t *testing.T) {
	head := "kind: EncryptionConfiguration\napiVersion: apiserver.config.k8s.io/v1\n"
	for _, c := range []struct{ name, config, want string }{
		{"typo (upstream's invalid-typo.yaml)", head + `resources:
  - resources: [secrets]
    providers:
      - aesgcm:
          keys:
            - name: key1
              secret: c2VjcmV0IGlzIHNlY3VyZQ==
          pandas: are the best
`, "field pandas not found"},
		{"wrong kind", "kind: Config\napiVersion: v1\nresources: []\n", "got unexpected config type"},
		{"no resources", head + "resources: []\n", "resources: Required value"},
		{"no providers", head + "resources: [{resources: [secrets], providers: []}]\n", "resources[0].providers: Required value"},
		{"empty provider", head + "resources: [{resources: [secrets], providers: [{}]}]\n", "provider does not contain any of the expected providers"},
		{"two in one", head + "resources: [{resources: [secrets], providers: [{identity: {}, aescbc: {keys: [{name: k, secret: " + b64(32, 'a') + "}]}}]}]\n", "more than one provider specified in a single element"},
		{"17-byte key", head + "resources: [{resources: [secrets], providers: [{aescbc: {keys: [{name: key1, secret: YSBzZWNyZXQgYSBzZWNyZXQ=}]}}]}]\n", "secret is not of the expected length, got 17, expected one of [16 24 32]"},
		{"secretbox 16", head + "resources: [{resources: [secrets], providers: [{secretbox: {keys: [{name: key1, secret: " + b64(16, 'a') + "}]}}]}]\n", "got 16, expected one of [32]"},
		{"not base64", head + "resources: [{resources: [secrets], providers: [{aesgcm: {keys: [{name: key1, secret: '!!'}]}}]}]\n", "secrets must be base64 encoded"},
		{"no key name", head + "resources: [{resources: [secrets], providers: [{aesgcm: {keys: [{secret: " + b64(32, 'a') + "}]}}]}]\n", "name is a mandatory field for a key"},
		{"no keys", head + "resources: [{resources: [secrets], providers: [{aesgcm: {keys: []}}]}]\n", "at least one keys is required"},
		{"kms", head + "resources: [{resources: [secrets], providers: [{kms: {name: p, endpoint: 'unix:///tmp/p.sock'}}]}]\n", "kms providers are not offered"},
		{"star", head + "resources: [{resources: ['*'], providers: [{identity: {}}]}]\n", "use '*.' to encrypt all the resources from core API group"},
		{"capitals", head + "resources: [{resources: [Secrets], providers: [{identity: {}}]}]\n", "should not contain capital letters"},
		{"events.k8s.io", head + "resources: [{resources: [events.events.k8s.io], providers: [{identity: {}}]}]\n", "Use 'events' instead"},
		{"overlap", head + "resources: [{resources: [secrets, '*.'], providers: [{identity: {}}]}]\n", "overlapping resources"},
		{"duplicate", head + "resources: [{resources: [secrets, secrets], providers: [{identity: {}}]}]\n", "cannot be specified multiple times"},
	} {
		_, err := ParseEncryptionConfig([]byte(c.config))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: err = %v, want %q", c.name, err, c.want)
		}
	}
}

func TestLookupWildcards(t *testing.T) {
	cfg := mustParse(t, `
kind: EncryptionConfiguration
apiVersion: apiserver.config.k8s.io/v1
resources:
- resources: [secrets, deployments.apps]
  providers: [{aescbc: {keys: [{name: one, secret: `+b64(32, '1')+`}]}}]
- resources: ['*.apps']
  providers: [{aesgcm: {keys: [{name: two, secret: `+b64(32, '2')+`}]}}]
- resources: ['*.']
  providers: [{secretbox: {keys: [{name: three, secret: `+b64(32, '3')+`}]}}]
- resources: ['*.*']
  providers: [{identity: {}}]
`)
	ts, err := cfg.Transformers()
	if err != nil {
		t.Fatal(err)
	}
	for gr, want := range map[GroupResource]string{
		{Resource: "secrets"}:                                   "k8s:enc:aescbc:v1:one:",
		{Group: "apps", Resource: "deployments"}:                "k8s:enc:aescbc:v1:one:",
		{Group: "apps", Resource: "statefulsets"}:               "k8s:enc:aesgcm:v1:two:",
		{Resource: "configmaps"}:                                "k8s:enc:secretbox:v1:three:",
		{Group: "rbac.authorization.k8s.io", Resource: "roles"}: "",
	} {
		out, err := ts.Lookup(gr).TransformToStorage([]byte("{}"), nil)
		if err != nil {
			t.Fatal(err)
		}
		if want == "" && string(out) != "{}" || want != "" && !strings.HasPrefix(string(out), want) {
			t.Errorf("%v: %q, want prefix %q", gr, out, want)
		}
	}
}

// FuzzParseEncryptionConfig: any input is an error or a configuration,
// never a panic.
func FuzzParseEncryptionConfig(f *testing.F) {
	f.Add([]byte(aesCBCFirst))
	f.Add([]byte(`{"kind":"EncryptionConfiguration","apiVersion":"apiserver.config.k8s.io/v1","resources":[{"resources":["*.*"],"providers":[{"identity":{}}]}]}`))
	f.Add([]byte("a: &a [*a, *a]"))
	f.Fuzz(func(t *testing.T, data []byte) {
		if cfg, err := ParseEncryptionConfig(data); err == nil {
			if _, err := cfg.Transformers(); err != nil {
				t.Fatalf("a valid configuration has no transformers: %v", err)
			}
		}
	})
}
