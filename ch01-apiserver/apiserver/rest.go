package apiserver

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"

	"kubik/ch01-apiserver/api/metav1"
	"kubik/ch01-apiserver/api/rbacv1"
	"kubik/ch01-apiserver/api/scheme"
	"kubik/ch01-apiserver/apiserver/apiextensions"
	"kubik/ch01-apiserver/apiserver/auth"
)

// request bundles what every REST handler needs to know about one request.
type request struct {
	w    http.ResponseWriter
	r    *http.Request
	info *RequestInfo
	res  *scheme.Resource
	user *auth.UserInfo
	// custom is the served version of a CRD when res is a custom resource.
	custom *apiextensions.Served
	// protobuf: the answer is written in protobuf (negotiate.go).
	protobuf bool
}

func (q *request) query(name string) string { return q.r.URL.Query().Get(name) }

// dryRun reports ?dryRun=All: do everything but write to storage.
func (q *request) dryRun() bool {
	for _, v := range q.r.URL.Query()["dryRun"] {
		if v == "All" {
			return true
		}
	}
	return false
}

// servesGroup reports whether some version of the API group is served.
func (s *Server) servesGroup(group string) bool {
	_, versions := discoveryGroups(s.allResources())
	_, ok := versions[group]
	return ok
}

// serveAPI routes /api/... and /apis/... requests: discovery or a resource.
func (s *Server) serveAPI(w http.ResponseWriter, r *http.Request) {
	info := requestInfoFrom(r)
	if s.agg.proxies(w, r, info) {
		return // an extension apiserver's group version (aggregator.go)
	}
	if s.serveDiscovery(w, r, info) {
		return
	}
	res := s.lookupResource(info.APIGroup, info.APIVersion, info.Resource)
	notFound := errNoSuchPath()
	if res == nil && info.APIPrefix == "apis" && !s.servesGroup(info.APIGroup) {
		notServed(w, r)
		return
	}
	if res == nil || (info.APIPrefix == "api") != (res.Group == "") {
		writeStatus(w, r, notFound)
		return
	}
	if len(info.Parts) > 3 || (info.Subresource != "" && res.Subresource(info.Subresource) == nil) {
		writeStatus(w, r, notFound)
		return
	}
	if (res.NotStored && info.Verb != "create") || (info.Subresource == "token" && info.Verb != "create") {
		writeStatus(w, r, methodNotAllowed()) // create-only kinds and subresources
		return
	}
	if !res.Namespaced && info.Namespace != "" && res.Resource != "namespaces" {
		writeStatus(w, r, notFound)
		return
	}
	if res.Resource == "namespaces" {
		info.Namespace = ""
	}
	user, _ := auth.UserFrom(r.Context())
	q := &request{w: w, r: r, info: info, res: res, user: user, custom: s.crds.Served(res)}
	if err := s.checkCustomRequest(q); err != nil {
		writeStatus(w, r, err)
		return
	}
	// Since v1.33 every request about core/v1 Endpoints carries a deprecation
	// warning (KEP-4974); kubectl 1.27's describe service prints it.
	if res.Group == "" && res.Resource == "endpoints" {
		addWarning(w, "v1 Endpoints is deprecated in v1.33+; use discovery.k8s.io/v1 EndpointSlice")
	}

	if isPodConnect(res, info.Subresource) {
		s.servePodConnect(q) // passed on to the kubelet; long-running: no request timeout
		return
	}
	offered := objectMediaTypes
	if info.Verb == "list" || info.Verb == "watch" {
		offered = listMediaTypes
	}
	if err := checkAccept(r, offered); err != nil {
		writeStatus(w, r, err)
		return
	}
	f, err := negotiateAnswer(q)
	if err != nil {
		writeStatus(w, r, err)
		return
	}
	q.protobuf = f == formatProtobuf
	if info.Verb == "watch" {
		s.serveWatch(q)
		return
	}
	if res.Group == rbacv1.GroupName && info.Verb != "get" && info.Verb != "list" {
		defer s.rbac.Changed() // our own RBAC writes are seen by the very next request
	}
	timeout, err := s.requestTimeout(r)
	if err != nil {
		writeStatus(w, r, err)
		return
	}
	ctx, cancel := context.WithTimeout(r.Context(), timeout)
	defer cancel()
	switch info.Verb {
	case "get":
		err = s.handleGet(ctx, q)
	case "list":
		err = s.handleList(ctx, q)
	case "create":
		err = s.handleCreate(ctx, q)
	case "update":
		err = s.handleUpdate(ctx, q)
	case "patch":
		err = s.handlePatch(ctx, q)
	case "delete":
		err = s.handleDelete(ctx, q)
	case "deletecollection":
		err = s.handleDeleteCollection(ctx, q)
	default:
		err = newStatus(http.StatusMethodNotAllowed, metav1.StatusReasonMethodNotAllowed,
			"the server does not allow this method on the requested resource", nil)
	}
	if err != nil {
		if ctx.Err() == context.DeadlineExceeded && r.Context().Err() == nil {
			err = ErrTimeout(fmt.Sprintf("request did not complete within requested timeout - %v", ctx.Err()))
		}
		writeStatus(w, r, err)
	}
}

func methodNotAllowed() error {
	return newStatus(http.StatusMethodNotAllowed, metav1.StatusReasonMethodNotAllowed,
		"the server does not allow this method on the requested resource", nil)
}

// handleGet: GET one object, its status, or its scale.
func (s *Server) handleGet(ctx context.Context, q *request) error {
	obj, err := s.getObject(ctx, q.res, q.info.Namespace, q.info.Name)
	if err != nil {
		return err
	}
	switch q.info.Subresource {
	case "", "status", "approval", "resize", "ephemeralcontainers":
	case "scale":
		sc, err := s.scaleOf(q, obj)
		if err != nil {
			return err
		}
		q.write(http.StatusOK, sc)
		return nil
	default:
		return methodNotAllowed()
	}
	return s.writeObject(q, http.StatusOK, obj)
}

// handleList: GET a collection, filtered and paginated.
func (s *Server) handleList(ctx context.Context, q *request) error {
	if q.info.Subresource != "" {
		return methodNotAllowed()
	}
	opts, err := parseListOptions(q)
	if err != nil {
		return err
	}
	if q.protobuf {
		return s.writeListProtobuf(ctx, q, opts) // listproto.go
	}
	if useListFastPath(q) {
		return s.writeListJSON(ctx, q, opts) // the same answer as below, without decoding (listjson.go)
	}
	items, listMeta, err := s.list(ctx, q.res, q.info.Namespace, opts)
	if err != nil {
		return err
	}
	if wantsTable(q.r) {
		return s.writeTable(q, items, listMeta)
	}
	q.writeList(listMeta, items)
	return nil
}

func nonNilItems(items []metav1.Object) []metav1.Object {
	if items == nil {
		return []metav1.Object{}
	}
	return items
}

// handleCreate: POST a new object (or a pod binding).
func (s *Server) handleCreate(ctx context.Context, q *request) error {
	if q.info.Name != "" && q.info.Subresource == "" {
		return methodNotAllowed()
	}
	if q.res.Namespaced && q.info.Namespace == "" {
		return errNoSuchPath()
	}
	if err := checkBodyType(q.r); err != nil {
		return err
	}
	if err := validateCreateOptions(q); err != nil {
		return err
	}
	if q.info.Subresource == "binding" {
		return s.handleBinding(ctx, q)
	}
	if q.info.Subresource == "eviction" && q.res.Resource == "pods" {
		return s.handleEviction(ctx, q)
	}
	if q.info.Subresource == "token" && q.res.Resource == "serviceaccounts" {
		return s.handleTokenRequest(ctx, q)
	}
	if q.res.NotStored {
		return s.handleReview(ctx, q)
	}
	if q.info.Subresource != "" {
		return methodNotAllowed()
	}
	obj, err := s.decodeBody(q, q.res)
	if err != nil {
		return err
	}
	created, err := s.create(ctx, q, obj)
	if err != nil {
		return err
	}
	return s.writeObject(q, http.StatusCreated, created)
}

// handleUpdate: PUT a whole object, its status, its scale or (namespaces) its finalizers.
func (s *Server) handleUpdate(ctx context.Context, q *request) error {
	if q.info.Name == "" {
		return methodNotAllowed()
	}
	if err := checkBodyType(q.r); err != nil {
		return err
	}
	if err := validateUpdateOptions(q); err != nil {
		return err
	}
	if q.info.Subresource == "scale" {
		return s.handleScaleUpdate(ctx, q, nil)
	}
	obj, err := s.decodeBody(q, q.res)
	if err != nil {
		return err
	}
	meta := obj.GetObjectMeta()
	if meta.Name != q.info.Name {
		return ErrBadRequest(fmt.Sprintf("the name of the object (%s) does not match the name on the URL (%s)", meta.Name, q.info.Name))
	}
	if err := checkNamespace(q, meta); err != nil {
		return err
	}
	updated, created, err := s.update(ctx, q, q.info.Name, q.info.Subresource, func(old metav1.Object) (metav1.Object, error) {
		return obj, nil
	}, allowCreateOnUpdate(q.res))
	if err != nil {
		return err
	}
	code := http.StatusOK
	if created {
		code = http.StatusCreated
	}
	return s.writeObject(q, code, updated)
}

// checkNamespace fills an empty namespace from the URL and refuses a different one.
func checkNamespace(q *request, meta *metav1.ObjectMeta) error {
	if !q.res.Namespaced {
		meta.Namespace = ""
		return nil
	}
	if meta.Namespace == "" {
		meta.Namespace = q.info.Namespace
	}
	if meta.Namespace != q.info.Namespace {
		return ErrBadRequest("the namespace of the provided object does not match the namespace sent on the request")
	}
	return nil
}

// allowCreateOnUpdate: kinds a PUT may create, as upstream's strategies say.
func allowCreateOnUpdate(res *scheme.Resource) bool {
	switch res.Resource {
	case "endpoints", "events", "leases", "endpointslices":
		return true
	}
	return false
}

// parseDeleteOptions reads DeleteOptions from the body (kubectl) or the query.
func parseDeleteOptions(q *request) (*metav1.DeleteOptions, error) {
	opts := &metav1.DeleteOptions{}
	body, err := readBody(q.r, 1<<20)
	if err != nil {
		return nil, err
	}
	if len(strings.TrimSpace(string(body))) > 0 {
		if err := decodeDeleteOptions(q.r.Header.Get("Content-Type"), body, opts); err != nil {
			return nil, ErrBadRequest(fmt.Sprintf("couldn't decode DeleteOptions: %v", err))
		}
	}
	v := q.r.URL.Query()
	if g := v.Get("gracePeriodSeconds"); g != "" {
		n, err := parseIntParam(g)
		if err != nil {
			return nil, err
		}
		opts.GracePeriodSeconds = &n
	}
	if p := v.Get("propagationPolicy"); p != "" {
		opts.PropagationPolicy = &p
	}
	if o, ok := v["orphanDependents"]; ok {
		b := queryBool(o)
		opts.OrphanDependents = &b
	}
	opts.DryRun = append(opts.DryRun, v["dryRun"]...)
	if err := validateDeleteOptions(opts); err != nil {
		return nil, err
	}
	if opts.GracePeriodSeconds != nil && *opts.GracePeriodSeconds < 0 {
		zero := int64(0)
		opts.GracePeriodSeconds = &zero
	}
	return opts, nil
}

// handleDelete: DELETE one object.
func (s *Server) handleDelete(ctx context.Context, q *request) error {
	if q.info.Subresource != "" {
		return methodNotAllowed()
	}
	opts, err := parseDeleteOptions(q)
	if err != nil {
		return err
	}
	obj, deleted, err := s.delete(ctx, q, q.info.Namespace, q.info.Name, opts)
	if err != nil {
		return err
	}
	if !deleted || returnsDeletedObject(q.res) {
		return s.writeObject(q, http.StatusOK, obj)
	}
	meta := obj.GetObjectMeta()
	q.write(http.StatusOK, &metav1.Status{
		TypeMeta: metav1.TypeMeta{Kind: "Status", APIVersion: "v1"},
		Status:   metav1.StatusSuccess,
		Details:  &metav1.StatusDetails{Name: meta.Name, Group: q.res.Group, Kind: q.res.Resource, UID: meta.UID},
	})
	return nil
}

// returnsDeletedObject: upstream answers a DELETE with the object for these,
// and with a Success Status for the rest.
func returnsDeletedObject(res *scheme.Resource) bool {
	switch res.Resource {
	case "pods", "services", "namespaces", "nodes", "persistentvolumes", "persistentvolumeclaims":
		return true
	}
	return false
}

// handleDeleteCollection: DELETE a collection, filtered by selectors.
func (s *Server) handleDeleteCollection(ctx context.Context, q *request) error {
	if q.info.Subresource != "" || (q.res.Resource == "namespaces") {
		return methodNotAllowed()
	}
	opts, err := parseDeleteOptions(q)
	if err != nil {
		return err
	}
	lopts, err := parseListOptions(q)
	if err != nil {
		return err
	}
	lopts.Limit, lopts.Continue = 0, ""
	items, listMeta, err := s.list(ctx, q.res, q.info.Namespace, lopts)
	if err != nil {
		return err
	}
	var out []metav1.Object
	for _, it := range items {
		m := it.GetObjectMeta()
		obj, _, err := s.delete(ctx, q, m.Namespace, m.Name, opts)
		if err != nil {
			var se *StatusError
			if errors.As(err, &se) && se.Status.Code == http.StatusNotFound {
				continue
			}
			return err
		}
		out = append(out, obj)
	}
	q.writeList(metav1.ListMeta{ResourceVersion: listMeta.ResourceVersion}, out)
	return nil
}

// writeObject writes one object in the negotiated format, or as a one-row
// Table when asked.
func (s *Server) writeObject(q *request, code int, obj metav1.Object) error {
	setTypeMeta(q.res, obj)
	if q.protobuf {
		writeProtobuf(q.w, code, obj)
		return nil
	}
	if wantsTable(q.r) && q.info.Subresource == "" {
		t, err := s.table(q, []metav1.Object{obj}, metav1.ListMeta{ResourceVersion: obj.GetObjectMeta().ResourceVersion}, false)
		if err != nil {
			return err
		}
		writeJSON(q.w, code, t)
		return nil
	}
	writeJSON(q.w, code, obj)
	return nil
}

func (s *Server) writeTable(q *request, items []metav1.Object, listMeta metav1.ListMeta) error {
	t, err := s.table(q, items, listMeta, false)
	if err != nil {
		return err
	}
	writeJSON(q.w, http.StatusOK, t)
	return nil
}

// write writes an answer that is not the resource's own object (a Status,
// a Scale, a TokenRequest) in the negotiated format.
func (q *request) write(code int, obj typed) {
	if q.protobuf {
		writeProtobuf(q.w, code, obj)
		return
	}
	writeJSON(q.w, code, obj)
}

// writeList writes a list of decoded objects in the negotiated format:
// upstream's typed list (PodList, ...), whose items carry no kind.
func (q *request) writeList(listMeta metav1.ListMeta, items []metav1.Object) {
	if q.protobuf {
		writeItemsProtobuf(q, listMeta, items)
		return
	}
	writeJSON(q.w, http.StatusOK, metav1.List{
		TypeMeta: metav1.TypeMeta{Kind: q.res.ListKind(), APIVersion: q.res.GroupVersion()},
		ListMeta: listMeta,
		Items:    nonNilItems(withoutTypeMeta(q, items)),
	})
}

// wantsTable: the Accept header asks for meta.k8s.io Table (kubectl get's human output).
func wantsTable(r *http.Request) bool {
	for _, part := range strings.Split(r.Header.Get("Accept"), ",") {
		p := mediaParams(part)
		if p["as"] == "Table" && p["g"] == "meta.k8s.io" && (p["v"] == "v1" || p["v"] == "v1beta1") {
			return true
		}
	}
	return false
}
