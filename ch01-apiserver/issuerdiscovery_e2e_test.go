package main_test

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/sha256"
	"crypto/tls"
	"crypto/x509"
	"encoding/base64"
	"encoding/json"
	"io"
	"math/big"
	"net/http"
	"os"
	"path/filepath"
	"strings"
)

// issuerDiscovery: ServiceAccount issuer discovery as upstream serves it.
// A ServiceAccount reads the issuer's OIDC document and its keys, and the
// key published there verifies the ServiceAccount's own token, which is
// what a relying party outside the cluster does with them. Anonymous users
// may not read them; other methods and paths below them are refused with
// upstream's errors.
func (a *authTest) issuerDiscovery() {
	r := a.run("create", "token", "robot")
	token := strings.TrimSpace(r.Stdout)
	tok := func(args ...string) []string {
		return append([]string{"--kubeconfig", a.tokenOnly, "--token", token}, args...)
	}
	a.ok(`{"issuer":"https://kubernetes.default.svc.cluster.local","jwks_uri":"`+a.c.URL+`/openid/v1/jwks",`+
		`"response_types_supported":["id_token"],"subject_types_supported":["public"],"id_token_signing_alg_values_supported":["ES256"]}`,
		tok("get", "--raw", "/.well-known/openid-configuration")...)
	a.ok(a.run(tok("get", "--raw", "/.well-known/openid-configuration")...).Stdout,
		tok("get", "--raw", "/.well-known/openid-configuration/")...)

	r = a.run(tok("get", "--raw", "/openid/v1/jwks")...)
	var set struct {
		Keys []map[string]string `json:"keys"`
	}
	if err := json.Unmarshal([]byte(r.Stdout), &set); err != nil || len(set.Keys) != 1 {
		a.t.Fatalf("jwks: %v %+v", err, r)
	}
	k := set.Keys[0]
	if k["use"] != "sig" || k["kty"] != "EC" || k["crv"] != "P-256" || k["alg"] != "ES256" || k["kid"] == "" {
		a.t.Errorf("jwks key: %v", k)
	}
	// The key's fields in upstream's (go-jose's) order.
	if want := `{"keys":[{"use":"sig","kty":"EC","kid":"` + k["kid"] + `","crv":"P-256","alg":"ES256","x":"` + k["x"] + `","y":"` + k["y"] + `"}]}`; r.Stdout != want {
		a.t.Errorf("jwks:\n got %s\nwant %s", r.Stdout, want)
	}
	b64 := base64.RawURLEncoding
	x, _ := b64.DecodeString(k["x"])
	y, _ := b64.DecodeString(k["y"])
	pub := &ecdsa.PublicKey{Curve: elliptic.P256(), X: new(big.Int).SetBytes(x), Y: new(big.Int).SetBytes(y)}
	parts := strings.Split(token, ".")
	header, _ := b64.DecodeString(parts[0])
	sig, _ := b64.DecodeString(parts[2])
	sum := sha256.Sum256([]byte(parts[0] + "." + parts[1]))
	if len(sig) != 64 || !ecdsa.Verify(pub, sum[:], new(big.Int).SetBytes(sig[:32]), new(big.Int).SetBytes(sig[32:])) {
		a.t.Errorf("the published key does not verify the ServiceAccount's token")
	}
	if !strings.Contains(string(header), `"kid":"`+k["kid"]+`"`) {
		a.t.Errorf("the token's header %s does not name the published key %s", header, k["kid"])
	}

	// Anonymous (kubectl without credentials prompts for a user name, so a plain client).
	ca, err := os.ReadFile(filepath.Join(a.dir, "ca.crt"))
	if err != nil {
		a.t.Fatal(err)
	}
	pool := x509.NewCertPool()
	pool.AppendCertsFromPEM(ca)
	client := &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool}}}
	resp, err := client.Get(a.c.URL + "/openid/v1/jwks")
	if err != nil {
		a.t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if want := `"message":"forbidden: User \"system:anonymous\" cannot get path \"/openid/v1/jwks\""`; resp.StatusCode != http.StatusForbidden || !strings.Contains(string(body), want) {
		a.t.Errorf("anonymous GET /openid/v1/jwks: %d %s, want 403 with %s", resp.StatusCode, body, want)
	}
	a.fails("Error from server (Forbidden): forbidden: User \"system:serviceaccount:default:robot\" cannot get path \"/openid/v1/jwks/x\"\n",
		tok("get", "--raw", "/openid/v1/jwks/x")...)
	a.fails("Error from server (NotFound): the server could not find the requested resource\n", "get", "--raw", "/openid/v1/jwks/x")
	a.write("empty.json", "{}")
	a.fails("Error from server (MethodNotAllowed): the server does not allow this method on the requested resource\n",
		"create", "--raw", "/openid/v1/jwks", "-f", "empty.json")
}
