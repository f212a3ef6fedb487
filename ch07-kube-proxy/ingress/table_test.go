package ingress

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"fmt"
	"math/big"
	"strings"
	"testing"
	"time"

	"kubik/ch01-apiserver/api/corev1"
	"kubik/ch01-apiserver/api/discoveryv1"
	"kubik/ch01-apiserver/api/intstr"
	"kubik/ch01-apiserver/api/metav1"
	"kubik/ch01-apiserver/api/networkingv1"
)

// fixture builds Objects: Services svc-<name> with one port "http" 80 →
// 8080 and one ready endpoint each, unless listed in noEndpoints.
type fixture struct{ objs Objects }

func newFixture(services ...string) *fixture {
	f := &fixture{objs: Objects{Services: map[string]*corev1.Service{}, EndpointSlices: map[string][]*discoveryv1.EndpointSlice{},
		Secrets: map[string]*corev1.Secret{}}}
	for i, s := range services {
		f.service(s, fmt.Sprintf("10.244.0.%d", i+1))
	}
	return f
}

func ptr[T any](v T) *T { return &v }

func (f *fixture) service(name string, ips ...string) {
	f.objs.Services["ns/"+name] = &corev1.Service{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: name},
		Spec: corev1.ServiceSpec{Ports: []corev1.ServicePort{{Name: "http", Port: 80, TargetPort: intstr.FromInt(8080)}}}}
	es := &discoveryv1.EndpointSlice{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: name + "-abc",
		Labels: map[string]string{discoveryv1.LabelServiceName: name}}, AddressType: discoveryv1.AddressTypeIPv4,
		Ports: []discoveryv1.EndpointPort{{Name: ptr("http"), Port: ptr(int32(8080)), Protocol: ptr(corev1.ProtocolTCP)}}}
	for _, ip := range ips {
		es.Endpoints = append(es.Endpoints, discoveryv1.Endpoint{Addresses: []string{ip}, Conditions: discoveryv1.EndpointConditions{Ready: ptr(true)}})
	}
	f.objs.EndpointSlices["ns/"+name] = []*discoveryv1.EndpointSlice{es}
}

type path struct {
	typ     networkingv1.PathType
	path    string
	service string
}

func backend(svc string) networkingv1.IngressBackend {
	return networkingv1.IngressBackend{Service: &networkingv1.IngressServiceBackend{Name: svc, Port: networkingv1.ServiceBackendPort{Number: 80}}}
}

// ingress adds an Ingress created age seconds ago with one rule.
func (f *fixture) ingress(name string, age int, host string, paths ...path) *networkingv1.Ingress {
	ing := &networkingv1.Ingress{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: name,
		CreationTimestamp: metav1.NewTime(time.Unix(1e9-int64(age), 0))}}
	rule := networkingv1.IngressRule{Host: host, IngressRuleValue: networkingv1.IngressRuleValue{HTTP: &networkingv1.HTTPIngressRuleValue{}}}
	for _, p := range paths {
		rule.HTTP.Paths = append(rule.HTTP.Paths, networkingv1.HTTPIngressPath{Path: p.path, PathType: ptr(p.typ), Backend: backend(p.service)})
	}
	if len(paths) > 0 || host != "" {
		ing.Spec.Rules = []networkingv1.IngressRule{rule}
	}
	f.objs.Ingresses = append(f.objs.Ingresses, ing)
	return ing
}

func (f *fixture) match(host, p string) string {
	r, ok := NewTable(f.objs).Match(host, p)
	if !ok {
		return "404"
	}
	return r.Backend.Service
}

const (
	exact  = networkingv1.PathTypeExact
	prefix = networkingv1.PathTypePrefix
	impl   = networkingv1.PathTypeImplementationSpecific
)

// TestSpecExamples is the table "Examples" of the Ingress concept page
// (kubernetes.io/docs/concepts/services-networking/ingress/#examples):
// the paths of one Ingress, a request path, and whether (and which) path
// matches.
func TestSpecExamples(t *testing.T) {
	for _, tc := range []struct {
		paths []path
		req   string
		want  string // the matching path's service, "404" for none
	}{
		{[]path{{prefix, "/", "root"}}, "/anything", "root"},
		{[]path{{exact, "/foo", "foo"}}, "/foo", "foo"},
		{[]path{{exact, "/foo", "foo"}}, "/bar", "404"},
		{[]path{{exact, "/foo", "foo"}}, "/foo/", "404"},
		{[]path{{exact, "/foo/", "foo"}}, "/foo", "404"},
		{[]path{{prefix, "/foo", "foo"}}, "/foo", "foo"},
		{[]path{{prefix, "/foo", "foo"}}, "/foo/", "foo"},
		{[]path{{prefix, "/foo/", "foo"}}, "/foo", "foo"},
		{[]path{{prefix, "/foo/", "foo"}}, "/foo/", "foo"},
		{[]path{{prefix, "/aaa/bb", "x"}}, "/aaa/bbb", "404"},
		{[]path{{prefix, "/aaa/bbb", "x"}}, "/aaa/bbb", "x"},
		{[]path{{prefix, "/aaa/bbb/", "x"}}, "/aaa/bbb", "x"},    // ignores the trailing slash
		{[]path{{prefix, "/aaa/bbb", "x"}}, "/aaa/bbb/", "x"},    // matches the trailing slash
		{[]path{{prefix, "/aaa/bbb", "x"}}, "/aaa/bbb/ccc", "x"}, // matches the subpath
		{[]path{{prefix, "/aaa/bbb", "x"}}, "/aaa/bbbxyz", "404"},
		{[]path{{prefix, "/", "root"}, {prefix, "/aaa", "aaa"}}, "/aaa/ccc", "aaa"},
		{[]path{{prefix, "/", "root"}, {prefix, "/aaa", "aaa"}, {prefix, "/aaa/bbb", "bbb"}}, "/aaa/bbb", "bbb"},
		{[]path{{prefix, "/", "root"}, {prefix, "/aaa", "aaa"}, {prefix, "/aaa/bbb", "bbb"}}, "/ccc", "root"},
		{[]path{{prefix, "/aaa", "aaa"}}, "/ccc", "404"},
		{[]path{{prefix, "/foo", "prefix"}, {exact, "/foo", "exact"}}, "/foo", "exact"},
		// Beyond the table: ImplementationSpecific is a prefix here; the
		// longest path wins whatever the order of the list.
		{[]path{{impl, "/app", "app"}}, "/app/x", "app"},
		{[]path{{impl, "/app", "app"}}, "/apples", "404"},
		{[]path{{prefix, "/aaa/bbb", "bbb"}, {prefix, "/aaa", "aaa"}}, "/aaa/bbb/c", "bbb"},
		{[]path{{exact, "/aaa", "exact"}, {prefix, "/aaa/b", "long"}}, "/aaa/b", "long"},
		{[]path{{prefix, "/foo", "foo"}}, "/FOO", "404"}, // paths are case-sensitive
	} {
		f := newFixture("root", "foo", "x", "aaa", "bbb", "prefix", "exact", "app", "long")
		f.ingress("ing", 0, "", tc.paths...)
		if got := f.match("any.example", tc.req); got != tc.want {
			t.Errorf("paths %v, request %s: got %s, want %s", tc.paths, tc.req, got, tc.want)
		}
	}
}

// TestHosts: exact hosts, one-label wildcards, rules without a host, the
// request's port and case, and the fallbacks (the Ingress's
// defaultBackend for its hosts, the one of the oldest Ingress without
// rules for the rest).
func TestHosts(t *testing.T) {
	f := newFixture("foo", "wild", "any", "bar", "def", "bardef")
	f.ingress("foo", 3, "foo.bar.com", path{prefix, "/", "foo"})
	f.ingress("wild", 2, "*.foo.com", path{prefix, "/", "wild"})
	f.ingress("nohost", 1, "", path{prefix, "/any", "any"})
	withDefault := f.ingress("bar", 1, "bar.com", path{exact, "/x", "bar"})
	withDefault.Spec.DefaultBackend = ptr(backend("bardef"))
	for _, tc := range []struct{ host, path, want string }{
		{"foo.bar.com", "/", "foo"},
		{"FOO.bar.com:30080", "/x", "foo"},
		{"foo.bar.com.", "/x", "foo"},
		{"a.foo.com", "/", "wild"},
		{"b.foo.com", "/z", "wild"},
		{"b.a.foo.com", "/any", "any"}, // a wildcard is one label: the rules without a host
		{"foo.com", "/any", "any"},
		{"foo.com", "/", "404"},
		{"10.240.7.11:30080", "/any/thing", "any"},
		{"bar.com", "/x", "bar"},
		{"bar.com", "/y", "bardef"},      // the host's Ingress's defaultBackend
		{"nothing.example", "/y", "404"}, // a defaultBackend of an Ingress with rules serves only its hosts
	} {
		if got := f.match(tc.host, tc.path); got != tc.want {
			t.Errorf("%s%s: got %s, want %s", tc.host, tc.path, got, tc.want)
		}
	}
	// An Ingress of only a defaultBackend, older, becomes the default.
	def := f.ingress("default", 10, "")
	def.Spec.DefaultBackend = ptr(backend("def"))
	for _, tc := range []struct{ host, path, want string }{
		{"nothing.example", "/y", "def"},
		{"foo.com", "/", "def"},
		{"bar.com", "/y", "bardef"},
	} {
		if got := f.match(tc.host, tc.path); got != tc.want {
			t.Errorf("with a default Ingress: %s%s: got %s, want %s", tc.host, tc.path, got, tc.want)
		}
	}
}

// TestMergeByHost: the rules of several Ingresses for one host merge into
// one server (ingress-nginx); the precedence spans them; for the same
// path and type the older Ingress wins.
func TestMergeByHost(t *testing.T) {
	f := newFixture("a", "b", "c", "old", "new")
	f.ingress("one", 5, "shop.example", path{prefix, "/", "a"})
	f.ingress("two", 4, "shop.example", path{prefix, "/cart", "b"}, path{exact, "/cart", "c"})
	f.ingress("newer", 1, "shop.example", path{prefix, "/dup", "new"})
	f.ingress("older", 9, "shop.example", path{prefix, "/dup", "old"})
	for _, tc := range []struct{ path, want string }{
		{"/", "a"}, {"/cart", "c"}, {"/cart/1", "b"}, {"/dup", "old"}, {"/carts", "a"},
	} {
		if got := f.match("shop.example", tc.path); got != tc.want {
			t.Errorf("%s: got %s, want %s", tc.path, got, tc.want)
		}
	}
}

// TestEndpoints: ready endpoints only (nil ready counts as ready), the
// target port of the Service port named by number or name, round robin,
// and the reasons a backend has none.
func TestEndpoints(t *testing.T) {
	f := newFixture()
	f.objs.Services["ns/web"] = &corev1.Service{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "web"},
		Spec: corev1.ServiceSpec{Ports: []corev1.ServicePort{{Name: "http", Port: 80, TargetPort: intstr.FromString("web")},
			{Name: "admin", Port: 81, TargetPort: intstr.FromInt(9000)}}}}
	f.objs.EndpointSlices["ns/web"] = []*discoveryv1.EndpointSlice{{
		ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "web-1"}, AddressType: discoveryv1.AddressTypeIPv4,
		Ports: []discoveryv1.EndpointPort{{Name: ptr("http"), Port: ptr(int32(8080))}, {Name: ptr("admin"), Port: ptr(int32(9000))}},
		Endpoints: []discoveryv1.Endpoint{
			{Addresses: []string{"10.244.1.2"}, Conditions: discoveryv1.EndpointConditions{Ready: ptr(true)}},
			{Addresses: []string{"10.244.2.2"}, Conditions: discoveryv1.EndpointConditions{Ready: ptr(false), Terminating: ptr(true)}},
			{Addresses: []string{"10.244.3.2"}},
		}}, {
		ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "web-2"}, AddressType: discoveryv1.AddressTypeIPv4,
		Ports:     []discoveryv1.EndpointPort{{Name: ptr("http"), Port: ptr(int32(8080))}},
		Endpoints: []discoveryv1.Endpoint{{Addresses: []string{"10.244.1.3"}, Conditions: discoveryv1.EndpointConditions{Ready: ptr(true)}}},
	}}
	f.service("empty")
	f.objs.Services["ns/ext"] = &corev1.Service{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "ext"},
		Spec: corev1.ServiceSpec{Type: corev1.ServiceTypeExternalName, ExternalName: "example.com"}}
	byName := func(svc, port string) networkingv1.IngressBackend {
		return networkingv1.IngressBackend{Service: &networkingv1.IngressServiceBackend{Name: svc, Port: networkingv1.ServiceBackendPort{Name: port}}}
	}
	ing := &networkingv1.Ingress{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "ing"}, Spec: networkingv1.IngressSpec{
		Rules: []networkingv1.IngressRule{{IngressRuleValue: networkingv1.IngressRuleValue{HTTP: &networkingv1.HTTPIngressRuleValue{Paths: []networkingv1.HTTPIngressPath{
			{Path: "/num", PathType: ptr(prefix), Backend: backend("web")},
			{Path: "/name", PathType: ptr(prefix), Backend: byName("web", "http")},
			{Path: "/admin", PathType: ptr(prefix), Backend: byName("web", "admin")},
			{Path: "/empty", PathType: ptr(prefix), Backend: backend("empty")},
			{Path: "/missing", PathType: ptr(prefix), Backend: backend("missing")},
			{Path: "/noport", PathType: ptr(prefix), Backend: byName("web", "grpc")},
			{Path: "/ext", PathType: ptr(prefix), Backend: backend("ext")},
		}}}}}}}
	f.objs.Ingresses = []*networkingv1.Ingress{ing}
	table := NewTable(f.objs)
	get := func(p string) *Backend {
		r, ok := table.Match("h", p)
		if !ok {
			t.Fatalf("%s: no match", p)
		}
		return r.Backend
	}
	want := []string{"10.244.1.2:8080", "10.244.1.3:8080", "10.244.3.2:8080"}
	if got := get("/num").Endpoints; strings.Join(got, ",") != strings.Join(want, ",") {
		t.Errorf("by number: %v, want %v", got, want)
	}
	if get("/num") != get("/name") {
		t.Errorf("port 80 and port http are one backend, with one round robin")
	}
	if got := get("/admin").Endpoints; len(got) != 2 || got[0] != "10.244.1.2:9000" {
		t.Errorf("admin: %v", got)
	}
	var seq []string
	for range 6 {
		ep, _ := get("/num").Next()
		seq = append(seq, ep)
	}
	if strings.Join(seq, ",") != strings.Join(append(want, want...), ",") {
		t.Errorf("round robin: %v", seq)
	}
	for p, msg := range map[string]string{
		"/empty":   "service ns/empty port 80 has no ready endpoints",
		"/missing": "service ns/missing not found",
		"/noport":  "service ns/web has no port grpc",
		"/ext":     "service ns/ext is of type ExternalName, which is not supported",
	} {
		if be := get(p); len(be.Endpoints) != 0 || be.Err != msg {
			t.Errorf("%s: %v %q, want %q", p, be.Endpoints, be.Err, msg)
		}
		if _, ok := get(p).Next(); ok {
			t.Errorf("%s: Next gave an endpoint", p)
		}
	}
}

// TestIsOurs: spec.ingressClassName, the deprecated annotation and the
// default class.
func TestIsOurs(t *testing.T) {
	ours := &networkingv1.IngressClass{ObjectMeta: metav1.ObjectMeta{Name: "kubik"}, Spec: networkingv1.IngressClassSpec{Controller: DefaultControllerName}}
	other := &networkingv1.IngressClass{ObjectMeta: metav1.ObjectMeta{Name: "nginx"}, Spec: networkingv1.IngressClassSpec{Controller: "k8s.io/ingress-nginx"}}
	defaultOurs := *ours
	defaultOurs.Annotations = map[string]string{networkingv1.AnnotationIsDefaultIngressClass: "true"}
	defaultOther := *other
	defaultOther.Annotations = map[string]string{networkingv1.AnnotationIsDefaultIngressClass: "true"}
	named := func(n string) *networkingv1.Ingress {
		return &networkingv1.Ingress{Spec: networkingv1.IngressSpec{IngressClassName: &n}}
	}
	annotated := &networkingv1.Ingress{ObjectMeta: metav1.ObjectMeta{Annotations: map[string]string{networkingv1.AnnotationIngressClass: "kubik"}}}
	none := &networkingv1.Ingress{}
	for _, tc := range []struct {
		name    string
		ing     *networkingv1.Ingress
		classes []*networkingv1.IngressClass
		want    bool
	}{
		{"named ours", named("kubik"), []*networkingv1.IngressClass{ours, other}, true},
		{"named other", named("nginx"), []*networkingv1.IngressClass{ours, other}, false},
		{"named, class missing", named("kubik"), []*networkingv1.IngressClass{other}, false},
		{"annotation", annotated, []*networkingv1.IngressClass{ours}, true},
		{"no class, ours default", none, []*networkingv1.IngressClass{&defaultOurs, other}, true},
		{"no class, other default", none, []*networkingv1.IngressClass{ours, &defaultOther}, false},
		{"no class, no default", none, []*networkingv1.IngressClass{ours}, false},
	} {
		if got := IsOurs(tc.ing, tc.classes, DefaultControllerName); got != tc.want {
			t.Errorf("%s: %v, want %v", tc.name, got, tc.want)
		}
	}
}

// selfSigned is a PEM certificate and key for hosts.
func selfSigned(t *testing.T, hosts ...string) (certPEM, keyPEM []byte) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: hosts[0]}, DNSNames: hosts,
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour)}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	kder, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		t.Fatal(err)
	}
	return pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: kder})
}

// TestCertificates: SNI picks the Secret of the host (exact, then a
// one-label wildcard), an older Ingress keeps a host's certificate, and
// broken or missing Secrets are warnings, not certificates.
func TestCertificates(t *testing.T) {
	f := newFixture("a")
	secret := func(name string, typ corev1.SecretType, hosts ...string) {
		c, k := selfSigned(t, hosts...)
		f.objs.Secrets["ns/"+name] = &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: name}, Type: typ,
			Data: map[string][]byte{corev1.TLSCertKey: c, corev1.TLSPrivateKeyKey: k}}
	}
	secret("foo", corev1.SecretTypeTLS, "foo.example")
	secret("wild", corev1.SecretTypeTLS, "*.wild.example")
	secret("later", corev1.SecretTypeTLS, "foo.example")
	secret("opaque", corev1.SecretTypeOpaque, "opaque.example")
	f.objs.Secrets["ns/broken"] = &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "broken"}, Type: corev1.SecretTypeTLS,
		Data: map[string][]byte{corev1.TLSCertKey: []byte("not a certificate"), corev1.TLSPrivateKeyKey: []byte("x")}}
	old := f.ingress("old", 5, "foo.example", path{prefix, "/", "a"})
	old.Spec.TLS = []networkingv1.IngressTLS{{Hosts: []string{"foo.example"}, SecretName: "foo"},
		{Hosts: []string{"*.wild.example"}, SecretName: "wild"}}
	newer := f.ingress("new", 1, "foo.example", path{prefix, "/", "a"})
	newer.Spec.TLS = []networkingv1.IngressTLS{{Hosts: []string{"foo.example"}, SecretName: "later"},
		{Hosts: []string{"opaque.example"}, SecretName: "opaque"}, {Hosts: []string{"broken.example"}, SecretName: "broken"},
		{Hosts: []string{"gone.example"}, SecretName: "gone"}}
	table := NewTable(f.objs)
	cn := func(name string) string {
		c := table.Certificate(name)
		if c == nil {
			return "none"
		}
		x, err := x509.ParseCertificate(c.Certificate[0])
		if err != nil {
			t.Fatal(err)
		}
		return x.Subject.CommonName
	}
	for _, tc := range []struct{ sni, want string }{
		{"foo.example", "foo.example"}, {"FOO.example", "foo.example"},
		{"a.wild.example", "*.wild.example"}, {"a.b.wild.example", "none"}, {"wild.example", "none"},
		{"opaque.example", "none"}, {"broken.example", "none"}, {"gone.example", "none"}, {"", "none"},
	} {
		if got := cn(tc.sni); got != tc.want {
			t.Errorf("SNI %q: certificate of %s, want %s", tc.sni, got, tc.want)
		}
	}
	var reasons []string
	for _, w := range table.Warnings {
		reasons = append(reasons, w.Name+":"+w.Reason)
	}
	if got := strings.Join(reasons, " "); got != "new:InvalidSecret new:InvalidSecret new:SecretNotFound" {
		t.Errorf("warnings: %s (%v)", got, table.Warnings)
	}
}
