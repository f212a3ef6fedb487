package clienttest

import (
	"bytes"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"io"
	"log"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"slices"
	"strings"
	"sync"
	"testing"

	"kubik/ch01-apiserver/pki"
	"kubik/ch03-scheduler/clientgo/rest"
)

// Action is one request a client sent, described as upstream's
// k8s.io/client-go/testing Action describes it (GetVerb, GetResource,
// GetSubresource, GetNamespace), plus the object's name.
type Action struct {
	// Verb is get, list, watch, create, update, patch, delete or
	// deletecollection, as the apiserver's RequestInfo names it.
	Verb        string
	Group       string // "" for the core group, "apps", ...
	Resource    string // "pods", "replicasets"
	Subresource string // "status", "binding", "finalize", ...
	// Namespace is empty for cluster-scoped objects, namespaces included
	// (upstream's RequestInfo puts a namespace's own name there).
	Namespace string
	// Name is the object's name: from the path, or for a create from the
	// body's metadata.name (empty when the apiserver generates it).
	Name string
	// Path is set instead of Resource for a request outside the resource
	// paths (discovery: /api, /apis/apps/v1; /version).
	Path string
}

// String is "verb resource[/subresource] [namespace/]name": "create pods
// default" (a generated name), "update replicasets/status default/web",
// "patch nodes n1".
func (a Action) String() string {
	if a.Resource == "" {
		return a.Verb + " " + a.Path
	}
	s := a.Verb + " " + a.Resource
	if a.Subresource != "" {
		s += "/" + a.Subresource
	}
	switch {
	case a.Namespace != "" && a.Name != "":
		s += " " + a.Namespace + "/" + a.Name
	case a.Namespace != "":
		s += " " + a.Namespace
	case a.Name != "":
		s += " " + a.Name
	}
	return s
}

// IsRead: get, list or watch.
func (a Action) IsRead() bool {
	return a.Verb == "get" || a.Verb == "list" || a.Verb == "watch"
}

// Recorder keeps the actions of one client, in the order the requests
// arrived: upstream's fake clientset's Actions and ClearActions.
type Recorder struct {
	mu      sync.Mutex
	actions []Action
}

// Actions is every request since the last ClearActions.
func (r *Recorder) Actions() []Action {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.actions)
}

// ClearActions forgets the requests recorded so far.
func (r *Recorder) ClearActions() {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.actions = nil
}

// Writes is Actions without the reads (an informer's lists and watches, a
// controller's live GETs) and without what an event recorder writes
// (Events created, patched or updated in the background on its own
// schedule): what upstream's controller tests compare after filtering the
// informers' actions, their events going to a fake recorder.
func (r *Recorder) Writes() []Action {
	var out []Action
	for _, a := range r.Actions() {
		if !a.IsRead() && !a.isEventRecording() {
			out = append(out, a)
		}
	}
	return out
}

func (a Action) isEventRecording() bool {
	return a.Resource == "events" && (a.Verb == "create" || a.Verb == "update" || a.Verb == "patch")
}

func (r *Recorder) record(a Action) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.actions = append(r.actions, a)
}

// maxRecordedBody bounds how much of a create's body is decoded for the
// object's name; a larger body is forwarded, its name left unrecorded.
const maxRecordedBody = 1 << 20

// actionFor parses a request as the apiserver's RequestInfoFactory does:
// /api/v1/namespaces/{namespace}/{resource}/{name}/{subresource} and
// /apis/{group}/{version}/..., namespaces' own status and finalize
// subresources included.
func actionFor(r *http.Request, body []byte) Action {
	parts := strings.Split(strings.Trim(r.URL.Path, "/"), "/")
	var a Action
	switch {
	case len(parts) >= 2 && parts[0] == "api":
		parts = parts[2:]
	case len(parts) >= 3 && parts[0] == "apis":
		a.Group, parts = parts[1], parts[3:]
	default:
		return Action{Verb: strings.ToLower(r.Method), Path: r.URL.Path}
	}
	if len(parts) == 0 {
		return Action{Verb: strings.ToLower(r.Method), Path: r.URL.Path}
	}
	if parts[0] == "namespaces" && len(parts) > 2 && parts[2] != "status" && parts[2] != "finalize" {
		a.Namespace, parts = parts[1], parts[2:]
	}
	a.Resource = parts[0]
	if len(parts) > 1 {
		a.Name = parts[1]
	}
	if len(parts) > 2 {
		a.Subresource = strings.Join(parts[2:], "/")
	}
	switch r.Method {
	case http.MethodGet:
		switch {
		case isTrue(r.URL.Query().Get("watch")):
			a.Verb = "watch"
		case a.Name != "":
			a.Verb = "get"
		default:
			a.Verb = "list"
		}
	case http.MethodPost:
		a.Verb = "create"
		if a.Name == "" {
			var obj struct {
				Metadata struct {
					Name string `json:"name"`
				} `json:"metadata"`
			}
			if len(body) <= maxRecordedBody && json.Unmarshal(body, &obj) == nil {
				a.Name = obj.Metadata.Name
			}
		}
	case http.MethodPut:
		a.Verb = "update"
	case http.MethodPatch:
		a.Verb = "patch"
	case http.MethodDelete:
		a.Verb = "delete"
		if a.Name == "" {
			a.Verb = "deletecollection"
		}
	default:
		a.Verb = strings.ToLower(r.Method)
	}
	return a
}

// isTrue: a boolean query parameter set (watch=true, watch=1).
func isTrue(v string) bool { return v == "true" || v == "1" }

// RecordingClient is Client with every request recorded: the client talks
// HTTPS to a reverse proxy in the test process that records the request
// and forwards it to the apiserver with id's own client certificate, so
// authentication and authorization are the apiserver's, as with Client.
// Upstream's controller tests get the same from a fake clientset; ours go
// to a real apiserver, and this is where a test sees them go by.
func (e *Env) RecordingClient(t testing.TB, id pki.Identity) (*rest.Client, *Recorder) {
	t.Helper()
	k, err := pki.LoadKubeconfig(e.Kubeconfig(t, id))
	if err != nil {
		t.Fatal(err)
	}
	target, err := url.Parse(k.Server)
	if err != nil {
		t.Fatal(err)
	}
	quiet := log.New(io.Discard, "", 0) // cancelled watches are not news
	rec := &Recorder{}
	proxy := &httputil.ReverseProxy{
		Rewrite:       func(pr *httputil.ProxyRequest) { pr.SetURL(target) },
		Transport:     k.HTTPClient().Transport,
		FlushInterval: -1, // watch events as they come
		ErrorLog:      quiet,
	}
	front := httptest.NewUnstartedServer(http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
		var body []byte
		if r.Body != nil && r.Method == http.MethodPost {
			b, err := io.ReadAll(r.Body)
			if err != nil {
				http.Error(rw, err.Error(), http.StatusBadRequest)
				return
			}
			body = b
			r.Body = io.NopCloser(bytes.NewReader(b))
		}
		rec.record(actionFor(r, body))
		proxy.ServeHTTP(rw, r)
	}))
	front.EnableHTTP2 = true
	front.Config.ErrorLog = quiet
	front.StartTLS()
	t.Cleanup(func() {
		front.CloseClientConnections() // open watches too
		front.Close()
	})
	roots := x509.NewCertPool()
	roots.AddCert(front.Certificate())
	fk := *k
	fk.Server = front.URL
	fk.TLS = &tls.Config{RootCAs: roots}
	c, err := rest.NewForConfig(rest.Config{Kubeconfig: &fk, UserAgent: "clienttest", QPS: -1})
	if err != nil {
		t.Fatal(err)
	}
	return c, rec
}
