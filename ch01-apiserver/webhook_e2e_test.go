package main_test

// Admission webhooks through the real kubectl 1.27 and 1.33 and the real
// ch01 binary: a test HTTPS webhook server on loopback (its own CA, given to
// the apiserver as caBundle) denies, mutates with JSON patches, answers
// slowly, warns; the configurations select requests by rules, namespace and
// object labels. The messages are upstream's (admission webhook "x" denied
// the request: ..., failed calling webhook "x": failed to call webhook: ...).

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/base64"
	"encoding/json"
	"encoding/pem"
	"fmt"
	"math/big"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"kubik/ch01-apiserver/api/admissionv1"
	"kubik/ch01-apiserver/api/metav1"
	"kubik/internal/testenv"
)

// webhookServer is the test's admission webhook: one path per behaviour.
type webhookServer struct {
	srv      *httptest.Server
	caPEM    []byte
	mu       sync.Mutex
	requests []*admissionv1.AdmissionRequest
	release  chan struct{}
}

// testServingCert makes a CA named caName and a serving certificate signed
// by it for leaf's subject and names; it returns the CA's PEM (a caBundle)
// and the certificate with its key.
func testServingCert(t *testing.T, caName string, leaf x509.Certificate) ([]byte, tls.Certificate) {
	t.Helper()
	caKey, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	caTmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: caName},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(24 * time.Hour),
		IsCA: true, BasicConstraintsValid: true, KeyUsage: x509.KeyUsageCertSign}
	caDER, err := x509.CreateCertificate(rand.Reader, caTmpl, caTmpl, &caKey.PublicKey, caKey)
	if err != nil {
		t.Fatal(err)
	}
	ca, _ := x509.ParseCertificate(caDER)
	key, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	leaf.SerialNumber = big.NewInt(2)
	leaf.NotBefore, leaf.NotAfter = time.Now().Add(-time.Hour), time.Now().Add(24*time.Hour)
	leaf.ExtKeyUsage = []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}
	leaf.KeyUsage = x509.KeyUsageDigitalSignature
	der, err := x509.CreateCertificate(rand.Reader, &leaf, ca, &key.PublicKey, caKey)
	if err != nil {
		t.Fatal(err)
	}
	return pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: caDER}), tls.Certificate{Certificate: [][]byte{der}, PrivateKey: key}
}

func startWebhookServer(t *testing.T) *webhookServer {
	t.Helper()
	caPEM, cert := testServingCert(t, "webhook-test-ca", x509.Certificate{Subject: pkix.Name{CommonName: "127.0.0.1"},
		IPAddresses: []net.IP{net.ParseIP("127.0.0.1")}})
	w := &webhookServer{caPEM: caPEM, release: make(chan struct{})}
	w.srv = httptest.NewUnstartedServer(http.HandlerFunc(w.serve))
	w.srv.TLS = &tls.Config{Certificates: []tls.Certificate{cert}}
	w.srv.StartTLS()
	t.Cleanup(func() { close(w.release); w.srv.Close() })
	return w
}

func (w *webhookServer) url(path string) string { return w.srv.URL + path }

func (w *webhookServer) seen(name string) []*admissionv1.AdmissionRequest {
	w.mu.Lock()
	defer w.mu.Unlock()
	var out []*admissionv1.AdmissionRequest
	for _, r := range w.requests {
		if r.Name == name {
			out = append(out, r)
		}
	}
	return out
}

func (w *webhookServer) serve(rw http.ResponseWriter, r *http.Request) {
	var review admissionv1.AdmissionReview
	if err := json.NewDecoder(r.Body).Decode(&review); err != nil || review.Request == nil {
		http.Error(rw, "bad review", http.StatusBadRequest)
		return
	}
	req := review.Request
	w.mu.Lock()
	w.requests = append(w.requests, req)
	w.mu.Unlock()
	var obj struct {
		Metadata metav1.ObjectMeta `json:"metadata"`
		Data     map[string]string `json:"data"`
	}
	json.Unmarshal(req.Object, &obj)
	resp := &admissionv1.AdmissionResponse{UID: req.UID, Allowed: true}
	jsonPatch := func(ops ...string) {
		resp.Patch = []byte("[" + strings.Join(ops, ",") + "]")
		pt := admissionv1.PatchTypeJSONPatch
		resp.PatchType = &pt
	}
	switch r.URL.Path {
	case "/deny":
		resp.Warnings = []string{"checked by deny.kubik.test"}
		resp.AuditAnnotations = map[string]string{"checked": "true"}
		if _, ok := obj.Data["forbidden"]; ok {
			resp.Allowed = false
			resp.Result = &metav1.Status{Code: http.StatusForbidden, Message: "the key forbidden is not allowed"}
		}
		if req.Operation == admissionv1.Delete {
			var old struct {
				Metadata metav1.ObjectMeta `json:"metadata"`
			}
			json.Unmarshal(req.OldObject, &old)
			if old.Metadata.Labels["protect"] == "yes" {
				resp.Allowed = false
				resp.Result = &metav1.Status{Message: "configmap " + old.Metadata.Name + " is protected"}
			}
		}
		if req.DryRun != nil && *req.DryRun {
			resp.Allowed = false
			resp.Result = &metav1.Status{Message: "dry run seen"}
		}
	case "/label":
		if obj.Metadata.Labels["mutated"] == "" {
			jsonPatch(`{"op":"add","path":"/metadata/labels/mutated","value":"true"}`)
		} else if obj.Metadata.Annotations["second"] != "" {
			jsonPatch(`{"op":"add","path":"/metadata/labels/reinvoked","value":"true"}`)
		}
	case "/annotate":
		if obj.Metadata.Annotations["second"] == "" {
			if obj.Metadata.Annotations == nil {
				jsonPatch(`{"op":"add","path":"/metadata/annotations","value":{"second":"x"}}`)
			} else {
				jsonPatch(`{"op":"add","path":"/metadata/annotations/second","value":"x"}`)
			}
		}
	case "/slow":
		// Longer than the webhooks' timeoutSeconds (1): the apiserver gives up first.
		select {
		case <-time.After(10 * time.Second):
		case <-w.release:
		}
		return
	}
	review.Response = resp
	review.Request = nil
	json.NewEncoder(rw).Encode(&review)
}

func TestAdmissionWebhooks(t *testing.T) {
	for _, v := range []string{"1.27", "1.33"} {
		t.Run("kubectl-"+v, func(t *testing.T) {
			k := newKube(t, v)
			w := startWebhookServer(t)
			t.Parallel()
			k.webhooks(w)
			k.admissionPolicies()
		})
	}
}

func (k *kube) webhooks(w *webhookServer) {
	t := k.t
	ca := base64.StdEncoding.EncodeToString(w.caPEM)
	k.ok("namespace/hooked created\n", "create", "namespace", "hooked")
	k.ok("namespace/hooked labeled\n", "label", "namespace", "hooked", "webhook=on")
	k.write("webhooks.yaml", fmt.Sprintf(`apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingWebhookConfiguration
metadata:
  name: validating
webhooks:
- name: deny.kubik.test
  clientConfig: {url: %q, caBundle: %s}
  rules: [{operations: [CREATE, UPDATE, DELETE], apiGroups: [""], apiVersions: [v1], resources: [configmaps]}]
  namespaceSelector: {matchLabels: {webhook: "on"}}
  sideEffects: None
  admissionReviewVersions: [v1]
- name: slow-fail.kubik.test
  clientConfig: {url: %q, caBundle: %s}
  rules: [{operations: [CREATE], apiGroups: [""], apiVersions: [v1], resources: [configmaps]}]
  objectSelector: {matchLabels: {slow: fail}}
  timeoutSeconds: 1
  sideEffects: None
  admissionReviewVersions: [v1]
- name: slow-ignore.kubik.test
  clientConfig: {url: %q, caBundle: %s}
  rules: [{operations: [CREATE], apiGroups: [""], apiVersions: [v1], resources: [configmaps]}]
  objectSelector: {matchLabels: {slow: ignore}}
  failurePolicy: Ignore
  timeoutSeconds: 1
  sideEffects: None
  admissionReviewVersions: [v1]
---
apiVersion: admissionregistration.k8s.io/v1
kind: MutatingWebhookConfiguration
metadata:
  name: mutating
webhooks:
- name: label.kubik.test
  clientConfig: {url: %q, caBundle: %s}
  rules: [{operations: [CREATE], apiGroups: [""], apiVersions: [v1], resources: [configmaps]}]
  objectSelector: {matchLabels: {mutate: "yes"}}
  reinvocationPolicy: IfNeeded
  sideEffects: None
  admissionReviewVersions: [v1, v1beta1]
- name: annotate.kubik.test
  clientConfig: {url: %q, caBundle: %s}
  rules: [{operations: [CREATE], apiGroups: [""], apiVersions: [v1], resources: [configmaps]}]
  objectSelector: {matchLabels: {mutate: "yes"}}
  sideEffects: None
  admissionReviewVersions: [v1]
---
apiVersion: admissionregistration.k8s.io/v1
kind: MutatingWebhookConfiguration
metadata:
  name: custom
webhooks:
- name: widgets.kubik.test
  clientConfig: {url: %q, caBundle: %s}
  rules: [{operations: [CREATE], apiGroups: [webhook.kubik.test], apiVersions: ["*"], resources: [widgets]}]
  objectSelector: {matchLabels: {mutate: "yes"}}
  sideEffects: None
  admissionReviewVersions: [v1]
`, w.url("/deny"), ca, w.url("/slow"), ca, w.url("/slow"), ca, w.url("/label"), ca, w.url("/annotate"), ca, w.url("/label"), ca))
	k.ok("validatingwebhookconfiguration.admissionregistration.k8s.io/validating created\n"+
		"mutatingwebhookconfiguration.admissionregistration.k8s.io/mutating created\n"+
		"mutatingwebhookconfiguration.admissionregistration.k8s.io/custom created\n", "create", "-f", "webhooks.yaml")
	k.table("NAME WEBHOOKS AGE\nvalidating 3 <age>", "get", "validatingwebhookconfigurations")
	k.table("NAME WEBHOOKS AGE\ncustom 1 <age>\nmutating 2 <age>", "get", "mutatingwebhookconfigurations")
	k.ok("Fail Equivalent {} 10 * Never", "get", "mutatingwebhookconfiguration", "mutating", "-o",
		"jsonpath={.webhooks[1].failurePolicy} {.webhooks[1].matchPolicy} {.webhooks[1].namespaceSelector} {.webhooks[1].timeoutSeconds} {.webhooks[1].rules[0].scope} {.webhooks[1].reinvocationPolicy}")

	// The webhooks are seen through the apiserver's watch: wait for the first refusal.
	testenv.Eventually(t, "the validating webhook is called", 30*time.Second, func() (string, bool) {
		r := k.run("create", "configmap", "probe", "-n", "hooked", "--from-literal=forbidden=1")
		return r.Stderr, r.ExitCode != 0
	})
	k.exact([]string{"create", "configmap", "denied", "-n", "hooked", "--from-literal=forbidden=1"}, "",
		"Warning: checked by deny.kubik.test\nerror: failed to create configmap: admission webhook \"deny.kubik.test\" denied the request: the key forbidden is not allowed\n", 1)
	k.exact([]string{"create", "configmap", "allowed", "-n", "hooked", "--from-literal=ok=1"}, "configmap/allowed created\n",
		"Warning: checked by deny.kubik.test\n", 0)
	// A delete is sent with the object being deleted as oldObject.
	k.exact([]string{"label", "configmap", "allowed", "-n", "hooked", "protect=yes"}, "configmap/allowed labeled\n",
		"Warning: checked by deny.kubik.test\n", 0)
	k.exact([]string{"delete", "configmap", "allowed", "-n", "hooked"}, "",
		"Warning: checked by deny.kubik.test\nError from server: admission webhook \"deny.kubik.test\" denied the request: configmap allowed is protected\n", 1)
	// Outside the selected namespace the webhook is not called.
	k.ok("configmap/elsewhere created\n", "create", "configmap", "elsewhere", "--from-literal=forbidden=1")
	if n := len(w.seen("elsewhere")); n != 0 {
		t.Errorf("the webhook saw %d requests for a configmap outside its namespaceSelector", n)
	}
	// A dry run reaches a webhook without side effects, marked as such.
	k.exact([]string{"create", "configmap", "dry", "-n", "hooked", "--dry-run=server"}, "",
		"Warning: checked by deny.kubik.test\nerror: failed to create configmap: admission webhook \"deny.kubik.test\" denied the request: dry run seen\n", 1)

	// Mutation: the label webhook adds a label, the annotate webhook then
	// changes the object, so the label webhook (IfNeeded) is called again.
	k.write("mutate.yaml", "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: mutated\n  labels: {mutate: \"yes\"}\n")
	k.ok("configmap/mutated created\n", "create", "-f", "mutate.yaml")
	k.ok(`{"mutate":"yes","mutated":"true","reinvoked":"true"} {"second":"x"}`, "get", "configmap", "mutated", "-o", "jsonpath={.metadata.labels} {.metadata.annotations}")
	if got := len(w.seen("mutated")); got != 3 {
		t.Errorf("the mutating webhooks were called %d times for configmap mutated, want 3 (label, annotate, label again)", got)
	}

	// Custom resources go through the same webhooks.
	crd := "customresourcedefinition.apiextensions.k8s.io/widgets.webhook.kubik.test"
	k.write("crd.yaml", widgetsCRD("webhook.kubik.test"))
	k.ok(crd+" created\n", "apply", "-f", "crd.yaml")
	k.ok(crd+" condition met\n", "wait", "--for", "condition=established", "crd/widgets.webhook.kubik.test", "--timeout=60s")
	k.write("widget.yaml", "apiVersion: webhook.kubik.test/v1\nkind: Widget\nmetadata:\n  name: w\n  labels: {mutate: \"yes\"}\nspec: {color: red}\n")
	k.ok("widget.webhook.kubik.test/w created\n", "create", "-f", "widget.yaml")
	k.ok(`{"mutate":"yes","mutated":"true"} red`, "get", "widget", "w", "-o", "jsonpath={.metadata.labels} {.spec.color}")

	// The review on the wire.
	if reqs := w.seen("allowed"); len(reqs) == 3 { // create, label (update), delete
		r := reqs[0]
		if r.Kind != (admissionv1.GroupVersionKind{Version: "v1", Kind: "ConfigMap"}) || r.Resource.Resource != "configmaps" ||
			r.Operation != admissionv1.Create || r.Namespace != "hooked" || r.UserInfo.Username == "" || r.DryRun == nil || *r.DryRun ||
			string(r.OldObject) != "null" || !strings.Contains(string(r.Object), `"kind":"ConfigMap"`) || !strings.Contains(string(r.Options), `"kind":"CreateOptions"`) {
			t.Errorf("unexpected admission request: %+v", r)
		}
	} else {
		t.Errorf("the validating webhook saw %d requests for configmap allowed, want 3", len(reqs))
	}

	// Timeouts: failurePolicy Fail refuses, Ignore lets the request through.
	k.write("slow.yaml", "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: slow-fail\n  labels: {slow: fail}\n"+
		"---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: slow-ignore\n  labels: {slow: ignore}\n")
	k.exact([]string{"create", "-f", "slow.yaml"}, "configmap/slow-ignore created\n",
		"Error from server (InternalError): error when creating \"slow.yaml\": Internal error occurred: failed calling webhook \"slow-fail.kubik.test\": failed to call webhook: Post \""+
			w.url("/slow")+"?timeout=1s\": context deadline exceeded\n", 1)

	// Webhooks are not called for their own configurations, so a broken
	// webhook can always be removed; the configurations are validated as upstream.
	k.write("bad.yaml", `apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingWebhookConfiguration
metadata:
  name: bad
webhooks:
- name: short
  clientConfig: {url: "http://user@example.com/x?a=b#f"}
  rules: [{operations: [CREATE, "*"], apiGroups: [""], apiVersions: [v1], resources: ["*", pods]}]
  timeoutSeconds: 31
  sideEffects: Some
  admissionReviewVersions: [v2]
- name: short
  clientConfig: {}
  admissionReviewVersions: []
`)
	k.webhookConfigRefusal()
	k.ok("validatingwebhookconfiguration.admissionregistration.k8s.io \"validating\" deleted\n", "delete", "validatingwebhookconfiguration", "validating")
}

// webhookConfigRefusal: upstream's validation messages, in upstream's order.
func (k *kube) webhookConfigRefusal() {
	k.fails(`The ValidatingWebhookConfiguration "bad" is invalid: 
* webhooks[0].name: Invalid value: "short": should be a domain with at least three segments separated by dots
* webhooks[0].rules[0].operations: Invalid value: ["CREATE","*"]: if '*' is present, must not specify other operations
* webhooks[0].rules[0].resources: Invalid value: ["*","pods"]: if '*' is present, must not specify other resources without subresources
* webhooks[0].sideEffects: Unsupported value: "Some": supported values: "None", "NoneOnDryRun"
* webhooks[0].timeoutSeconds: Invalid value: 31: the timeout value must be between 1 and 30 seconds
* webhooks[0].clientConfig.url: Invalid value: "http": 'https' is the only allowed URL scheme; desired format: https://host[/path]
* webhooks[0].clientConfig.url: Invalid value: "user": user information is not permitted in the URL
* webhooks[0].clientConfig.url: Invalid value: "f": fragments are not permitted in the URL
* webhooks[0].clientConfig.url: Invalid value: "a=b": query parameters are not permitted in the URL
* webhooks[0].admissionReviewVersions: Invalid value: ["v2"]: must include at least one of v1, v1beta1
* webhooks[1].name: Invalid value: "short": should be a domain with at least three segments separated by dots
* webhooks[1].sideEffects: Required value: must specify one of None, NoneOnDryRun
* webhooks[1].clientConfig: Required value: exactly one of url or service is required
* webhooks[1].admissionReviewVersions: Required value: must specify one of v1, v1beta1
* webhooks[1].name: Duplicate value: "short"
`, "create", "-f", "bad.yaml")
}
