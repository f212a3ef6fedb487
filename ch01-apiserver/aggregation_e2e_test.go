package main_test

// API aggregation through the real kubectl and the real ch01 binary: an
// extension apiserver served by the test over HTTPS (its own CA, given to
// the APIService as caBundle; a serving certificate for
// <service>.<namespace>.svc), which trusts the front proxy the way a real
// one does — the CA in kube-system/extension-apiserver-authentication —
// and tells who it was called for. The apiserver proxies the group to it,
// lists the group in discovery, reports Available, and answers 503 as
// upstream once the backend's Service is gone.

import (
	"bufio"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"kubik/ch01-apiserver/pki"
	"kubik/internal/testenv"
)

// extensionServer is the test's extension apiserver for test.kubik.io/v1.
type extensionServer struct {
	srv   *httptest.Server
	caPEM []byte

	mu sync.Mutex
	// openAPIV2Caller: who asked for /openapi/v2 last (user, groups, client certificate).
	openAPIV2Caller string
}

// extensionOpenAPIV2 is the backend's /openapi/v2: its group version's
// paths and what they need, and a path (with a definition only it uses)
// outside the group version, which the aggregator leaves out.
const extensionOpenAPIV2 = `{"swagger":"2.0","info":{"title":"test","version":"v1"},"paths":{` +
	`"/apis/test.kubik.io/v1/namespaces/{namespace}/widgets":{"get":{"operationId":"listTestKubikIoV1NamespacedWidget",` +
	`"responses":{"200":{"description":"OK","schema":{"$ref":"#/definitions/io.kubik.test.v1.WidgetList"}}}}},` +
	`"/version/":{"get":{"operationId":"getCodeVersion","responses":{"200":{"description":"OK","schema":{"$ref":"#/definitions/io.kubik.test.version.Info"}}}}}},` +
	`"definitions":{` +
	`"io.kubik.test.v1.Widget":{"description":"Widget is the test's extension resource.","type":"object",` +
	`"properties":{"apiVersion":{"type":"string"},"kind":{"type":"string"},"size":{"description":"How big.","type":"integer"}},` +
	`"x-kubernetes-group-version-kind":[{"group":"test.kubik.io","kind":"Widget","version":"v1"}]},` +
	`"io.kubik.test.v1.WidgetList":{"type":"object","required":["items"],"properties":{"items":{"type":"array","items":{"$ref":"#/definitions/io.kubik.test.v1.Widget"}}},` +
	`"x-kubernetes-group-version-kind":[{"group":"test.kubik.io","kind":"WidgetList","version":"v1"}]},` +
	`"io.kubik.test.version.Info":{"type":"object","properties":{"gitVersion":{"type":"string"}}}}}`

func startExtensionServer(t *testing.T, serverName string, frontProxyCA []byte) *extensionServer {
	t.Helper()
	caPEM, cert := testServingCert(t, "extension-test-ca", x509.Certificate{Subject: pkix.Name{CommonName: serverName},
		DNSNames: []string{serverName}})
	clientCAs := x509.NewCertPool()
	if !clientCAs.AppendCertsFromPEM(frontProxyCA) {
		t.Fatal("no front-proxy CA in extension-apiserver-authentication")
	}
	e := &extensionServer{caPEM: caPEM}
	e.srv = httptest.NewUnstartedServer(http.HandlerFunc(e.serve))
	e.srv.TLS = &tls.Config{Certificates: []tls.Certificate{cert},
		ClientAuth: tls.RequireAndVerifyClientCert, ClientCAs: clientCAs}
	e.srv.StartTLS()
	t.Cleanup(e.srv.Close)
	return e
}

func (e *extensionServer) port() int { return e.srv.Listener.Addr().(*net.TCPAddr).Port }

func (e *extensionServer) serve(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "application/json")
	switch {
	case r.URL.Path == "/apis/test.kubik.io/v1":
		fmt.Fprint(w, `{"kind":"APIResourceList","apiVersion":"v1","groupVersion":"test.kubik.io/v1","resources":[`+
			`{"name":"widgets","singularName":"widget","namespaced":true,"kind":"Widget","verbs":["get","list","watch"],"shortNames":["wd"]},`+
			`{"name":"widgets/status","singularName":"","namespaced":true,"kind":"Widget","verbs":["get"]}]}`)
	case r.URL.Path == "/apis/test.kubik.io/v1/namespaces/default/widgets/w/echo" && r.Header.Get("Upgrade") == "kubik-echo":
		// A protocol upgrade (what exec and port-forward are): after 101
		// the connection is the backend's, both ways.
		conn, rw, err := http.NewResponseController(w).Hijack()
		if err != nil {
			return
		}
		defer conn.Close()
		rw.WriteString("HTTP/1.1 101 Switching Protocols\r\nConnection: Upgrade\r\nUpgrade: kubik-echo\r\n\r\n")
		rw.Flush()
		line, _ := rw.ReadString('\n')
		rw.WriteString("echo: " + line)
		rw.Flush()
	case r.URL.Path == "/openapi/v2":
		e.mu.Lock()
		e.openAPIV2Caller = fmt.Sprintf("%s %q %s", r.Header.Get("X-Remote-User"), r.Header.Values("X-Remote-Group"), r.TLS.PeerCertificates[0].Subject.CommonName)
		e.mu.Unlock()
		w.Header().Set("Etag", `"widgets-1"`)
		if r.Header.Get("If-None-Match") == `"widgets-1"` {
			w.WriteHeader(http.StatusNotModified)
			return
		}
		fmt.Fprint(w, extensionOpenAPIV2)
	case r.URL.Path == "/openapi/v3/apis/test.kubik.io/v1":
		fmt.Fprint(w, `{"openapi":"3.0.0","info":{"title":"test","version":"v1"},"paths":{"/apis/test.kubik.io/v1/namespaces/{namespace}/widgets":{"get":`+
			`{"x-kubernetes-group-version-kind":{"group":"test.kubik.io","kind":"Widget","version":"v1"}}}},"components":{"schemas":{`+
			`"io.kubik.test.v1.Widget":{"description":"Widget is the test's extension resource.","type":"object",`+
			`"properties":{"apiVersion":{"type":"string"},"kind":{"type":"string"},"size":{"description":"How big.","type":"integer"}},`+
			`"x-kubernetes-group-version-kind":[{"group":"test.kubik.io","kind":"Widget","version":"v1"}]}}}}`)
	case r.URL.Path == "/apis/test.kubik.io/v1/namespaces/default/widgets" && r.URL.Query().Get("watch") == "true":
		// One event, flushed, then the stream stays open: it reaches the
		// client only if the apiserver streams.
		fmt.Fprint(w, `{"type":"ADDED","object":{"kind":"Widget","apiVersion":"test.kubik.io/v1","metadata":{"name":"streamed"}}}`+"\n")
		w.(http.Flusher).Flush()
		<-r.Context().Done()
	case r.URL.Path == "/apis/test.kubik.io/v1/namespaces/default/widgets":
		json.NewEncoder(w).Encode(map[string]any{
			"user": r.Header.Get("X-Remote-User"), "groups": r.Header.Values("X-Remote-Group"),
			"extra-scopes": r.Header.Values("X-Remote-Extra-Scopes"), "client": r.TLS.PeerCertificates[0].Subject.CommonName,
			"authorization": r.Header.Get("Authorization"), "query": r.URL.RawQuery})
	default:
		w.WriteHeader(http.StatusNotFound)
		fmt.Fprint(w, `{"kind":"Status","apiVersion":"v1","status":"Failure","message":"not here","reason":"NotFound","code":404}`)
	}
}

func TestAggregatedAPI(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and starts the apiserver and runs kubectl against it")
	}
	testenv.Kubectl(t, "1.33")
	testenv.Kubectl(t, "1.27")
	bin := testenv.Build(t, "kubik/ch01-apiserver")
	// The test's backend listens on loopback, which an EndpointSlice may
	// not name: the Service is an ExternalName for localhost, which the
	// apiserver calls without --enable-aggregator-routing (upstream's
	// ResolveCluster).
	c := testenv.Start(t, bin, testenv.Options{Args: []string{"--enable-aggregator-routing=false"}})
	k := &kube{t: t, c: c, v: "1.33", dir: t.TempDir()}
	kc, err := pki.LoadKubeconfig(c.Kubeconfig)
	if err != nil {
		t.Fatal(err)
	}
	hc := kc.HTTPClient()
	// /openapi/v2 as kubectl 1.27 asks for it, before any APIService.
	openAPIV2 := func() (etag string, body []byte) {
		t.Helper()
		req, _ := http.NewRequest("GET", c.URL+"/openapi/v2", nil)
		req.Header.Set("Accept", "application/com.github.proto-openapi.spec.v2@v1.0+protobuf")
		resp, err := hc.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		body, _ = io.ReadAll(resp.Body)
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("GET /openapi/v2: %s %s", resp.Status, body)
		}
		return resp.Header.Get("Etag"), body
	}
	etagBefore, _ := openAPIV2()

	// What an extension apiserver reads to trust the front proxy.
	frontProxyCA := k.run("get", "configmap", "-n", "kube-system", "extension-apiserver-authentication",
		"-o", `jsonpath={.data.requestheader-client-ca-file}`).Stdout
	k.ok(`["front-proxy-client"] ["X-Remote-User"] ["X-Remote-Group"] ["X-Remote-Extra-"]`, "get", "configmap", "-n", "kube-system",
		"extension-apiserver-authentication", "-o",
		`jsonpath={.data.requestheader-allowed-names} {.data.requestheader-username-headers} {.data.requestheader-group-headers} {.data.requestheader-extra-headers-prefix}`)

	e := startExtensionServer(t, "kubik-backend.default.svc", []byte(frontProxyCA))
	k.write("backend.yaml", fmt.Sprintf(`apiVersion: v1
kind: Service
metadata:
  name: kubik-backend
spec:
  type: ExternalName
  externalName: localhost
---
apiVersion: apiregistration.k8s.io/v1
kind: APIService
metadata:
  name: v1.test.kubik.io
spec:
  group: test.kubik.io
  version: v1
  service: {name: kubik-backend, namespace: default, port: %d}
  caBundle: %s
  groupPriorityMinimum: 1000
  versionPriority: 15
`, e.port(), base64.StdEncoding.EncodeToString(e.caPEM)))
	k.ok("service/kubik-backend created\napiservice.apiregistration.k8s.io/v1.test.kubik.io created\n", "create", "-f", "backend.yaml")
	testenv.Eventually(t, "v1.test.kubik.io Available", 30*time.Second, func() (string, bool) {
		r := k.run("get", "apiservice", "v1.test.kubik.io", "--no-headers")
		return r.Stdout, strings.Contains(r.Stdout, "default/kubik-backend   True")
	})
	k.ok(`Available True Passed all checks passed`, "get", "apiservice", "v1.test.kubik.io", "-o",
		`jsonpath={.status.conditions[0].type} {.status.conditions[0].status} {.status.conditions[0].reason} {.status.conditions[0].message}`)

	// Proxied: the backend sees the caller in the front-proxy headers and
	// the apiserver's front-proxy client certificate, never the caller's
	// own credentials.
	got := k.run("get", "--raw", "/apis/test.kubik.io/v1/namespaces/default/widgets?limit=5").Stdout
	want := `{"authorization":"","client":"front-proxy-client","extra-scopes":null,"groups":["system:masters","system:authenticated"],"query":"limit=5","user":"kubernetes-admin"}`
	if strings.TrimSpace(got) != want {
		t.Errorf("backend saw\n%s\nwant\n%s", got, want)
	}

	// A client's own X-Remote-* headers are dropped on the way.
	req, _ := http.NewRequest("GET", c.URL+"/apis/test.kubik.io/v1/namespaces/default/widgets", nil)
	req.Header.Set("X-Remote-User", "mallory")
	req.Header.Set("X-Remote-Extra-Scopes", "all")
	resp, err := hc.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	var seen map[string]any
	json.NewDecoder(resp.Body).Decode(&seen)
	resp.Body.Close()
	if seen["user"] != "kubernetes-admin" || seen["extra-scopes"] != nil {
		t.Errorf("forged headers reached the backend: %v", seen)
	}
	// A watch streams: the first event arrives while the stream is open.
	req, _ = http.NewRequest("GET", c.URL+"/apis/test.kubik.io/v1/namespaces/default/widgets?watch=true", nil)
	resp, err = hc.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	line, err := bufio.NewReader(resp.Body).ReadString('\n')
	resp.Body.Close()
	if err != nil || !strings.Contains(line, `"name":"streamed"`) {
		t.Errorf("watch through the proxy: %q, %v", line, err)
	}

	// An upgrade goes through: both directions of the upgraded connection.
	h1 := &http.Client{Transport: &http.Transport{TLSClientConfig: kc.TLS.Clone(), TLSNextProto: map[string]func(string, *tls.Conn) http.RoundTripper{}}}
	req, _ = http.NewRequest("POST", c.URL+"/apis/test.kubik.io/v1/namespaces/default/widgets/w/echo", nil)
	req.Header.Set("Connection", "Upgrade")
	req.Header.Set("Upgrade", "kubik-echo")
	resp, err = h1.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode != http.StatusSwitchingProtocols {
		t.Errorf("upgrade through the proxy: %s", resp.Status)
	} else {
		rwc := resp.Body.(io.ReadWriteCloser)
		fmt.Fprint(rwc, "ping\n")
		got, err := bufio.NewReader(rwc).ReadString('\n')
		if err != nil || got != "echo: ping\n" {
			t.Errorf("upgraded connection: %q, %v", got, err)
		}
	}
	resp.Body.Close()

	// The apiserver itself authenticates a front proxy's requests: its
	// client certificate (front-proxy CA, CN front-proxy-client) with the
	// user in the headers.
	fp, err := tls.LoadX509KeyPair(c.DataDir+"/pki/front-proxy-client.crt", c.DataDir+"/pki/front-proxy-client.key")
	if err != nil {
		t.Fatal(err)
	}
	proxied := &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: kc.TLS.RootCAs, Certificates: []tls.Certificate{fp}}}}
	req, _ = http.NewRequest("POST", c.URL+"/apis/authentication.k8s.io/v1/selfsubjectreviews",
		strings.NewReader(`{"apiVersion":"authentication.k8s.io/v1","kind":"SelfSubjectReview"}`))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("X-Remote-User", "alice")
	req.Header.Add("X-Remote-Group", "devs")
	resp, err = proxied.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	var review struct {
		Status struct {
			UserInfo struct {
				Username string   `json:"username"`
				Groups   []string `json:"groups"`
			} `json:"userInfo"`
		} `json:"status"`
	}
	json.NewDecoder(resp.Body).Decode(&review)
	resp.Body.Close()
	if u := review.Status.UserInfo; resp.StatusCode != http.StatusCreated || u.Username != "alice" || strings.Join(u.Groups, ",") != "devs,system:authenticated" {
		t.Errorf("front proxy's request: %d %+v", resp.StatusCode, u)
	}

	// Discovery: legacy /apis lists the group, aggregated discovery (what
	// kubectl 1.33 reads) the backend's resources.
	if apis := k.run("get", "--raw", "/apis").Stdout; !strings.Contains(apis, `{"name":"test.kubik.io","versions":[{"groupVersion":"test.kubik.io/v1","version":"v1"}],"preferredVersion":{"groupVersion":"test.kubik.io/v1","version":"v1"}}`) {
		t.Errorf("/apis does not list test.kubik.io:\n%s", apis)
	}
	// kubectl 1.33 reads apidiscovery.k8s.io/v2, 1.27 v2beta1.
	for _, kk := range []*kube{k, {t: t, c: c, v: "1.27", dir: k.dir}} {
		kk.table("NAME SHORTNAMES APIVERSION NAMESPACED KIND\nwidgets wd test.kubik.io/v1 true Widget\n", "api-resources", "--api-group=test.kubik.io")
	}

	// OpenAPI v3: the root lists the group version, whose document is the
	// backend's; kubectl explain reads it.
	if root := k.run("get", "--raw", "/openapi/v3").Stdout; !strings.Contains(root, `"apis/test.kubik.io/v1":{"serverRelativeURL":"/openapi/v3/apis/test.kubik.io/v1"}`) ||
		!strings.Contains(root, `"apis/apps/v1":`) {
		t.Errorf("/openapi/v3 does not list test.kubik.io/v1 next to the built-in groups:\n%s", root)
	}
	if r := k.run("explain", "widgets.size"); r.ExitCode != 0 || !strings.Contains(r.Stdout, "KIND:       Widget") || !strings.Contains(r.Stdout, "How big.") {
		t.Errorf("kubectl explain widgets.size: exit %d\n%s%s", r.ExitCode, r.Stdout, r.Stderr)
	}

	// OpenAPI v2: the backend's document, asked for as system:aggregator,
	// is merged in — its group version's paths and the definitions they
	// need, not the rest — in JSON and in protobuf, with a new ETag.
	var v2 struct {
		Paths       map[string]json.RawMessage `json:"paths"`
		Definitions map[string]json.RawMessage `json:"definitions"`
	}
	testenv.Eventually(t, "/openapi/v2 with the widgets", 30*time.Second, func() (string, bool) {
		r := k.run("get", "--raw", "/openapi/v2")
		v2.Paths, v2.Definitions = nil, nil
		json.Unmarshal([]byte(r.Stdout), &v2)
		_, ok := v2.Paths["/apis/test.kubik.io/v1/namespaces/{namespace}/widgets"]
		return fmt.Sprintf("%.300s%s", r.Stdout, r.Stderr), ok
	})
	if got, want := string(v2.Definitions["io.kubik.test.v1.WidgetList"]), `{"properties":{"items":{"items":{"$ref":"#/definitions/io.kubik.test.v1.Widget"},"type":"array"}},"required":["items"],"type":"object","x-kubernetes-group-version-kind":[{"group":"test.kubik.io","kind":"WidgetList","version":"v1"}]}`; got != want {
		t.Errorf("/openapi/v2 io.kubik.test.v1.WidgetList:\n%s\nwant\n%s", got, want)
	}
	if _, ok := v2.Definitions["io.kubik.test.v1.Widget"]; !ok {
		t.Error("/openapi/v2 lacks io.kubik.test.v1.Widget")
	}
	if _, ok := v2.Paths["/version/"]; ok {
		t.Error("/openapi/v2 has the backend's /version/, outside its group version")
	}
	if _, ok := v2.Definitions["io.kubik.test.version.Info"]; ok {
		t.Error("/openapi/v2 has io.kubik.test.version.Info, which only a dropped path used")
	}
	e.mu.Lock()
	caller := e.openAPIV2Caller
	e.mu.Unlock()
	if want := `system:aggregator [] front-proxy-client`; caller != want {
		t.Errorf("the backend's /openapi/v2 was asked for by %q, want %q", caller, want)
	}
	etagWith, pb := openAPIV2()
	if etagWith == etagBefore || !strings.Contains(string(pb), "io.kubik.test.v1.WidgetList") {
		t.Errorf("protobuf /openapi/v2: ETag %s (before %s), has the widgets' definitions: %v", etagWith, etagBefore, strings.Contains(string(pb), "io.kubik.test.v1.WidgetList"))
	}

	// Down: without its Service the APIService is unavailable and the
	// group answers 503 with upstream's plain-text body.
	k.ok("service \"kubik-backend\" deleted\n", "delete", "service", "kubik-backend")
	testenv.Eventually(t, "v1.test.kubik.io unavailable", 30*time.Second, func() (string, bool) {
		r := k.run("get", "apiservice", "v1.test.kubik.io", "--no-headers")
		return r.Stdout, strings.Contains(r.Stdout, "default/kubik-backend   False (ServiceNotFound)")
	})
	k.ok(`False ServiceNotFound service/kubik-backend in "default" is not present`, "get", "apiservice", "v1.test.kubik.io", "-o",
		`jsonpath={.status.conditions[0].status} {.status.conditions[0].reason} {.status.conditions[0].message}`)
	k.exact([]string{"get", "--raw", "/apis/test.kubik.io/v1/namespaces/default/widgets"}, "",
		"Error from server (ServiceUnavailable): the server is currently unable to handle the request\n", 1)
	resp, body, err := testenv.DoJSON(t.Context(), hc, c.URL, "GET", "/apis/test.kubik.io/v1", nil)
	if err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode != http.StatusServiceUnavailable || string(body) != "service unavailable\n" || resp.Header.Get("Content-Type") != "text/plain; charset=utf-8" {
		t.Errorf("unavailable group version: %d %q %q", resp.StatusCode, resp.Header.Get("Content-Type"), body)
	}

	// Deleted, the APIService's document leaves /openapi/v2: it is the
	// one served before.
	k.ok("apiservice.apiregistration.k8s.io \"v1.test.kubik.io\" deleted\n", "delete", "apiservice", "v1.test.kubik.io")
	testenv.Eventually(t, "/openapi/v2 without the widgets", 30*time.Second, func() (string, bool) {
		etag, body := openAPIV2()
		return etag, etag == etagBefore && !strings.Contains(string(body), "io.kubik.test.v1.Widget")
	})
}
