package apiserver_test

import (
	"crypto/tls"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"

	"kubik/ch01-apiserver/pki"
)

// upgrade sends an HTTP/1.1 request (upgrades need it; the shared client
// speaks HTTP/2) as the admin.
func upgrade(t *testing.T, c *cluster, method, path string, headers ...string) response {
	t.Helper()
	kc, err := pki.LoadKubeconfig(c.AdminKubeconfig)
	if err != nil {
		t.Fatal(err)
	}
	tr := &http.Transport{TLSClientConfig: kc.TLS.Clone(), TLSNextProto: map[string]func(string, *tls.Conn) http.RoundTripper{}}
	defer tr.CloseIdleConnections()
	r, err := http.NewRequest(method, c.URL+path, nil)
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i+1 < len(headers); i += 2 {
		r.Header.Set(headers[i], headers[i+1])
	}
	resp, err := (&http.Client{Transport: tr}).Do(r)
	if err != nil {
		t.Fatalf("%s %s: %v", method, path, err)
	}
	defer resp.Body.Close()
	data, _ := io.ReadAll(resp.Body)
	return response{code: resp.StatusCode, header: resp.Header, body: data}
}

// closedPort is a loopback port nobody listens on: a node whose kubelet is down.
func closedPort(t *testing.T) int {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := ln.Addr().(*net.TCPAddr).Port
	ln.Close()
	return port
}

// nodeWithoutKubelet creates a Node at 127.0.0.1 whose kubelet port is closed.
func nodeWithoutKubelet(t *testing.T, c *cluster, name string) int {
	t.Helper()
	port := closedPort(t)
	c.post(t, "/api/v1/nodes", obj{"metadata": obj{"name": name}}).must(t, http.StatusCreated)
	node := c.get(t, "/api/v1/nodes/"+name).must(t, http.StatusOK)
	node["status"] = obj{"addresses": []obj{{"type": "Hostname", "address": "nowhere.invalid"}, {"type": "InternalIP", "address": "127.0.0.1"}},
		"daemonEndpoints": obj{"kubeletEndpoint": obj{"Port": port}}}
	c.put(t, "/api/v1/nodes/"+name+"/status", node).must(t, http.StatusOK)
	t.Cleanup(func() { c.del(t, "/api/v1/nodes/"+name, nil) })
	return port
}

func TestPodLogValidation(t *testing.T) {
	c := shared
	ns := c.newNamespace(t)
	base := "/api/v1/namespaces/" + ns + "/pods/"
	two := pod("two", nil)
	two["spec"] = obj{"containers": []obj{{"name": "a", "image": "busybox"}, {"name": "b", "image": "busybox"}},
		"initContainers": []obj{{"name": "init", "image": "busybox"}}}
	c.post(t, "/api/v1/namespaces/"+ns+"/pods", two).must(t, http.StatusCreated)
	c.post(t, "/api/v1/namespaces/"+ns+"/pods", pod("web", nil)).must(t, http.StatusCreated)

	// Upstream's messages (pkg/registry/core/pod/strategy.go), 400 BadRequest.
	c.get(t, base+"two/log").expectError(t, http.StatusBadRequest, "BadRequest",
		"a container name must be specified for pod two, choose one of: [init a b]")
	c.get(t, base+"web/log?container=nope").expectError(t, http.StatusBadRequest, "BadRequest",
		"container nope is not valid for pod web")
	c.get(t, base+"missing/log").expectError(t, http.StatusNotFound, "NotFound", `pods "missing" not found`)
	c.get(t, base+"web/log?tailLines=-1").expectError(t, http.StatusUnprocessableEntity, "Invalid",
		`PodLogOptions "web" is invalid: tailLines: Invalid value: -1: must be greater than or equal to 0`)
	c.get(t, base+"web/log?limitBytes=0").expectError(t, http.StatusUnprocessableEntity, "Invalid",
		`PodLogOptions "web" is invalid: limitBytes: Invalid value: 0: must be greater than 0`)

	// Not scheduled: no log yet, an empty answer (upstream's nil location).
	r := c.get(t, base+"web/log")
	if r.code != http.StatusOK || len(r.body) != 0 || r.header.Get("Content-Type") != "text/plain" {
		t.Errorf("log of an unscheduled pod: %d %q %q", r.code, r.header.Get("Content-Type"), r.body)
	}
	// exec needs a node.
	upgrade(t, c, http.MethodPost, base+"web/exec?command=true&stdout=true", "Connection", "Upgrade", "Upgrade", "SPDY/3.1").
		expectError(t, http.StatusBadRequest, "BadRequest", "pod web does not have a host assigned")
	// Only GET reads a log; exec takes GET and POST only.
	c.del(t, base+"web/log", nil).expectError(t, http.StatusMethodNotAllowed, "MethodNotAllowed",
		"the server does not allow this method on the requested resource")
}

// A pod on a node whose kubelet does not answer: an error at once, the
// same upstream gives (a 500 Status without a reason), never a hang.
func TestPodConnectKubeletDown(t *testing.T) {
	c := shared
	ns := c.newNamespace(t)
	port := nodeWithoutKubelet(t, c, "down-"+ns)
	p := pod("web", nil)
	p["spec"].(obj)["nodeName"] = "down-" + ns
	c.post(t, "/api/v1/namespaces/"+ns+"/pods", p).must(t, http.StatusCreated)
	base := "/api/v1/namespaces/" + ns + "/pods/web/"
	backend := fmt.Sprintf("127.0.0.1:%d", port)

	c.get(t, base+"log?follow=true").expectError(t, http.StatusInternalServerError, "",
		fmt.Sprintf(`Get "https://%s/containerLogs/%s/web/app?follow=true": dial tcp %s: connect: connection refused`, backend, ns, backend))
	for _, sub := range []string{"exec?command=date&stdout=true", "attach?stdout=true", "portforward?ports=80"} {
		upgrade(t, c, http.MethodPost, base+sub, "Connection", "Upgrade", "Upgrade", "SPDY/3.1", "X-Stream-Protocol-Version", "v4.channel.k8s.io").
			expectError(t, http.StatusInternalServerError, "", "error dialing backend: dial tcp "+backend+": connect: connection refused")
	}
	// A plain request where an upgrade is needed.
	c.post(t, base+"exec?command=date&stdout=true", nil).expectError(t, http.StatusBadRequest, "BadRequest", "Upgrade request required")
	// kubectl 1.30+ tries WebSocket first; anything but 101 makes it fall back to SPDY.
	r := upgrade(t, c, http.MethodGet, base+"exec?command=date&stdout=true", "Connection", "Upgrade", "Upgrade", "websocket",
		"Sec-WebSocket-Version", "13", "Sec-WebSocket-Key", "dGhlIHNhbXBsZSBub25jZQ==", "Sec-WebSocket-Protocol", "v5.channel.k8s.io")
	if r.code == http.StatusSwitchingProtocols || r.code < 400 {
		t.Errorf("a WebSocket exec got %d: %s", r.code, r.body)
	}
}

// pods/log, exec, attach and portforward are listed as upstream lists them.
func TestPodConnectDiscovery(t *testing.T) {
	r := shared.get(t, "/api/v1")
	for _, want := range []string{
		`{"name":"pods/attach","singularName":"","namespaced":true,"kind":"PodAttachOptions","verbs":["create","get"]}`,
		`{"name":"pods/exec","singularName":"","namespaced":true,"kind":"PodExecOptions","verbs":["create","get"]}`,
		`{"name":"pods/log","singularName":"","namespaced":true,"kind":"Pod","verbs":["get"]}`,
		`{"name":"pods/portforward","singularName":"","namespaced":true,"kind":"PodPortForwardOptions","verbs":["create","get"]}`,
	} {
		if !strings.Contains(string(r.body), want) {
			t.Errorf("/api/v1 lacks %s", want)
		}
	}
}
