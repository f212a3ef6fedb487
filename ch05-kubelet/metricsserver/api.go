package metricsserver

// The API: metrics.k8s.io/v1beta1, read-only (upstream's pkg/api):
//
//	GET /apis, /apis/metrics.k8s.io, /apis/metrics.k8s.io/v1beta1    discovery
//	GET /apis/metrics.k8s.io/v1beta1/nodes[/<name>]                  NodeMetrics(List)
//	GET /apis/metrics.k8s.io/v1beta1/pods                            PodMetricsList, all namespaces
//	GET /apis/metrics.k8s.io/v1beta1/namespaces/<ns>/pods[/<name>]   PodMetrics(List)
//	GET /healthz, /livez, /readyz                                     ok (no authorization)
//
// Lists take labelSelector (the Node's or Pod's labels) and fieldSelector
// (metadata.name, metadata.namespace). A node or pod without two readings
// yet is left out of a list, and not found when asked by name.

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"time"

	"kubik/ch01-apiserver/api/corev1"
	"kubik/ch01-apiserver/api/metav1"
	"kubik/ch01-apiserver/apiserver"
	"kubik/ch01-apiserver/apiserver/selection"
	"kubik/ch04-controllers/podautoscaler/metrics"
)

// The group version served.
const (
	Group        = "metrics.k8s.io"
	Version      = "v1beta1"
	GroupVersion = Group + "/" + Version
)

// NodeMetrics is metrics.k8s.io/v1beta1's NodeMetrics: a node's usage,
// measured at Timestamp over Window.
type NodeMetrics struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
	Timestamp         metav1.Time         `json:"timestamp"`
	Window            metav1.Duration     `json:"window"`
	Usage             corev1.ResourceList `json:"usage"`
}

// NodeMetricsList is the answer of a list.
type NodeMetricsList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata"`
	Items           []NodeMetrics `json:"items"`
}

func (s *Server) handler() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/healthz", "/livez", "/readyz":
			fmt.Fprint(w, "ok")
			return
		}
		u, err := s.authenticate(r)
		if err != nil {
			s.log.Error("Unable to authenticate the request", "err", err)
		}
		if u == nil {
			writeStatus(w, apiserver.ErrUnauthorized())
			return
		}
		a, serve, serr := s.route(r)
		if serr != nil {
			writeStatus(w, serr)
			return
		}
		ok, reason, err := s.authorize(r.Context(), u, a)
		if err != nil {
			s.log.Error("Authorization error", "user", u.Name, "err", err)
			writeStatus(w, apiserver.ErrInternal(err))
			return
		}
		if !ok {
			msg := forbiddenMessage(u, a)
			if reason != "" {
				msg += ": " + reason
			}
			if a.resource == "" {
				writeStatus(w, apiserver.ErrForbidden("", "", "", "", errors.New(msg)))
			} else {
				writeStatus(w, apiserver.ErrForbidden(Group, a.resource, a.resource+"."+Group, a.name, errors.New(msg)))
			}
			return
		}
		serve(w, r)
	})
}

// route maps a request to what it asks (for the authorizer) and its handler.
func (s *Server) route(r *http.Request) (attributes, http.HandlerFunc, *apiserver.StatusError) {
	verb := strings.ToLower(r.Method)
	if r.Method == http.MethodHead {
		verb = "get"
	}
	p := strings.TrimSuffix(r.URL.Path, "/")
	switch p {
	case "/apis":
		return attributes{verb: verb, path: r.URL.Path}, s.serveGroupList, nil
	case "/apis/" + Group:
		return attributes{verb: verb, path: r.URL.Path}, s.serveGroup, nil
	case "/apis/" + GroupVersion:
		return attributes{verb: verb, path: r.URL.Path}, s.serveResources, nil
	}
	rest, ok := strings.CutPrefix(p, "/apis/"+GroupVersion+"/")
	if !ok {
		return attributes{verb: verb, path: r.URL.Path}, notFound, nil
	}
	parts := strings.Split(rest, "/")
	a := attributes{verb: "get"}
	switch {
	case len(parts) <= 2 && parts[0] == "nodes":
		a.resource = "nodes"
	case len(parts) == 1 && parts[0] == "pods":
		a.resource = "pods"
	case len(parts) >= 3 && len(parts) <= 4 && parts[0] == "namespaces" && parts[1] != "" && parts[2] == "pods":
		a.resource, a.namespace = "pods", parts[1]
		parts = parts[2:]
	default:
		return attributes{verb: verb, path: r.URL.Path}, notFound, nil
	}
	if len(parts) == 2 {
		if parts[1] == "" {
			return a, notFound, nil
		}
		a.name = parts[1]
	} else {
		a.verb = "list"
		if r.URL.Query().Get("watch") == "true" || r.URL.Query().Get("watch") == "1" {
			a.verb = "watch"
		}
	}
	if r.Method != http.MethodGet && r.Method != http.MethodHead || a.verb == "watch" {
		return a, nil, methodNotAllowed()
	}
	if a.resource == "nodes" {
		return a, func(w http.ResponseWriter, r *http.Request) { s.serveNodes(w, r, a.name) }, nil
	}
	return a, func(w http.ResponseWriter, r *http.Request) { s.servePods(w, r, a.namespace, a.name) }, nil
}

func notFound(w http.ResponseWriter, _ *http.Request) {
	writeStatus(w, &apiserver.StatusError{Status: metav1.Status{TypeMeta: metav1.TypeMeta{Kind: "Status", APIVersion: "v1"},
		Status: metav1.StatusFailure, Message: "the server could not find the requested resource",
		Reason: metav1.StatusReasonNotFound, Details: &metav1.StatusDetails{}, Code: http.StatusNotFound}})
}

func methodNotAllowed() *apiserver.StatusError {
	return &apiserver.StatusError{Status: metav1.Status{TypeMeta: metav1.TypeMeta{Kind: "Status", APIVersion: "v1"},
		Status: metav1.StatusFailure, Message: "the server does not allow this method on the requested resource",
		Reason: metav1.StatusReasonMethodNotAllowed, Details: &metav1.StatusDetails{}, Code: http.StatusMethodNotAllowed}}
}

func (s *Server) serveGroupList(w http.ResponseWriter, _ *http.Request) {
	writeJSON(w, http.StatusOK, metav1.APIGroupList{TypeMeta: metav1.TypeMeta{Kind: "APIGroupList", APIVersion: "v1"},
		Groups: []metav1.APIGroup{group()}})
}

func (s *Server) serveGroup(w http.ResponseWriter, _ *http.Request) {
	g := group()
	g.TypeMeta = metav1.TypeMeta{Kind: "APIGroup", APIVersion: "v1"}
	writeJSON(w, http.StatusOK, g)
}

func group() metav1.APIGroup {
	gv := metav1.GroupVersionForDiscovery{GroupVersion: GroupVersion, Version: Version}
	return metav1.APIGroup{Name: Group, Versions: []metav1.GroupVersionForDiscovery{gv}, PreferredVersion: gv}
}

func (s *Server) serveResources(w http.ResponseWriter, _ *http.Request) {
	writeJSON(w, http.StatusOK, metav1.APIResourceList{TypeMeta: metav1.TypeMeta{Kind: "APIResourceList", APIVersion: "v1"},
		GroupVersion: GroupVersion, APIResources: []metav1.APIResource{
			{Name: "nodes", SingularName: "node", Namespaced: false, Kind: "NodeMetrics", Verbs: []string{"get", "list"}},
			{Name: "pods", SingularName: "pod", Namespaced: true, Kind: "PodMetrics", Verbs: []string{"get", "list"}},
		}})
}

// selectors parses a list's labelSelector and fieldSelector.
func selectors(r *http.Request) (selection.LabelSelector, selection.FieldSelector, *apiserver.StatusError) {
	q := r.URL.Query()
	ls, err := selection.ParseLabelSelector(q.Get("labelSelector"))
	if err != nil {
		return ls, selection.FieldSelector{}, apiserver.ErrBadRequest(err.Error())
	}
	fs, err := selection.ParseFieldSelector(q.Get("fieldSelector"))
	if err != nil {
		return ls, fs, apiserver.ErrBadRequest(err.Error())
	}
	return ls, fs, nil
}

func (s *Server) nodeMetrics(n *corev1.Node, now time.Time) (NodeMetrics, bool) {
	u, ok := s.store.nodeUsage(n.Name)
	if !ok {
		return NodeMetrics{}, false
	}
	return NodeMetrics{TypeMeta: metav1.TypeMeta{Kind: "NodeMetrics", APIVersion: GroupVersion},
		ObjectMeta: metav1.ObjectMeta{Name: n.Name, Labels: n.Labels, CreationTimestamp: metav1.NewTime(now)},
		Timestamp:  metav1.NewTime(u.ts.Truncate(time.Second)), Window: metav1.Duration{Duration: u.window.Round(time.Millisecond)},
		Usage: corev1.ResourceList{corev1.ResourceCPU: u.cpu, corev1.ResourceMemory: u.memory}}, true
}

func (s *Server) serveNodes(w http.ResponseWriter, r *http.Request, name string) {
	now := time.Now()
	if name != "" {
		n, ok := s.nodes.GetStore().GetByKey(name)
		var m NodeMetrics
		if ok {
			m, ok = s.nodeMetrics(n, now)
		}
		if !ok {
			writeStatus(w, apiserver.ErrNotFound(Group, "nodemetrics", "nodemetrics."+Group, name))
			return
		}
		writeJSON(w, http.StatusOK, m)
		return
	}
	ls, fs, serr := selectors(r)
	if serr != nil {
		writeStatus(w, serr)
		return
	}
	list := NodeMetricsList{TypeMeta: metav1.TypeMeta{Kind: "NodeMetricsList", APIVersion: GroupVersion}, Items: []NodeMetrics{}}
	for _, n := range s.nodes.GetStore().List() {
		if !ls.Matches(n.Labels) || !fs.Matches(map[string]string{"metadata.name": n.Name}) {
			continue
		}
		if m, ok := s.nodeMetrics(n, now); ok {
			list.Items = append(list.Items, m)
		}
	}
	slices.SortFunc(list.Items, func(a, b NodeMetrics) int { return strings.Compare(a.Name, b.Name) })
	writeJSON(w, http.StatusOK, list)
}

func (s *Server) podMetrics(p *corev1.Pod, now time.Time) (metrics.PodMetrics, bool) {
	cs, ok := s.store.podUsage(podNode(p), p.Namespace, p.Name)
	if !ok {
		return metrics.PodMetrics{}, false
	}
	slices.SortFunc(cs, func(a, b containerUsage) int { return strings.Compare(a.name, b.name) })
	m := metrics.PodMetrics{TypeMeta: metav1.TypeMeta{Kind: "PodMetrics", APIVersion: GroupVersion},
		ObjectMeta: metav1.ObjectMeta{Name: p.Name, Namespace: p.Namespace, Labels: p.Labels, CreationTimestamp: metav1.NewTime(now)}}
	for _, c := range cs {
		if c.ts.After(m.Timestamp.Time) {
			m.Timestamp = metav1.NewTime(c.ts.Truncate(time.Second))
			m.Window = metav1.Duration{Duration: c.window.Round(time.Millisecond)}
		}
		m.Containers = append(m.Containers, metrics.ContainerMetrics{Name: c.name,
			Usage: corev1.ResourceList{corev1.ResourceCPU: c.cpu, corev1.ResourceMemory: c.memory}})
	}
	return m, true
}

func (s *Server) servePods(w http.ResponseWriter, r *http.Request, namespace, name string) {
	now := time.Now()
	if name != "" {
		p, ok := s.pods.GetStore().GetByKey(namespace + "/" + name)
		var m metrics.PodMetrics
		if ok {
			m, ok = s.podMetrics(p, now)
		}
		if !ok {
			writeStatus(w, apiserver.ErrNotFound(Group, "podmetrics", "podmetrics."+Group, namespace+"/"+name))
			return
		}
		writeJSON(w, http.StatusOK, m)
		return
	}
	ls, fs, serr := selectors(r)
	if serr != nil {
		writeStatus(w, serr)
		return
	}
	list := metrics.PodMetricsList{TypeMeta: metav1.TypeMeta{Kind: "PodMetricsList", APIVersion: GroupVersion}, Items: []metrics.PodMetrics{}}
	for _, p := range s.pods.GetStore().List() {
		if namespace != "" && p.Namespace != namespace {
			continue
		}
		if !ls.Matches(p.Labels) || !fs.Matches(map[string]string{"metadata.name": p.Name, "metadata.namespace": p.Namespace}) {
			continue
		}
		if m, ok := s.podMetrics(p, now); ok {
			list.Items = append(list.Items, m)
		}
	}
	slices.SortFunc(list.Items, func(a, b metrics.PodMetrics) int {
		if c := strings.Compare(a.Namespace, b.Namespace); c != 0 {
			return c
		}
		return strings.Compare(a.Name, b.Name)
	})
	writeJSON(w, http.StatusOK, list)
}

func writeJSON(w http.ResponseWriter, code int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	json.NewEncoder(w).Encode(v)
}

func writeStatus(w http.ResponseWriter, e *apiserver.StatusError) {
	writeJSON(w, int(e.Status.Code), e.Status)
}
