package openapi

import (
	"reflect"
	"strings"

	"kubik/ch01-apiserver/api/autoscalingv1"
	"kubik/ch01-apiserver/api/corev1"
	"kubik/ch01-apiserver/api/metav1"
	"kubik/ch01-apiserver/api/scheme"
)

// PathItem holds the operations on one path (OpenAPI v3).
type PathItem struct {
	Get        *Operation  `json:"get,omitempty"`
	Put        *Operation  `json:"put,omitempty"`
	Post       *Operation  `json:"post,omitempty"`
	Delete     *Operation  `json:"delete,omitempty"`
	Patch      *Operation  `json:"patch,omitempty"`
	Parameters []Parameter `json:"parameters,omitempty"`
}

// Operation is one HTTP method on a path.
type Operation struct {
	Tags             []string            `json:"tags,omitempty"`
	Description      string              `json:"description,omitempty"`
	OperationID      string              `json:"operationId,omitempty"`
	Parameters       []Parameter         `json:"parameters,omitempty"`
	RequestBody      *RequestBody        `json:"requestBody,omitempty"`
	Responses        map[string]Response `json:"responses"`
	Action           string              `json:"x-kubernetes-action,omitempty"`
	GroupVersionKind *GroupVersionKind   `json:"x-kubernetes-group-version-kind,omitempty"`
}

// Parameter is a path or query parameter.
type Parameter struct {
	Name        string  `json:"name"`
	In          string  `json:"in"`
	Description string  `json:"description,omitempty"`
	Required    bool    `json:"required,omitempty"`
	Schema      *Schema `json:"schema"`
}

// RequestBody lists the accepted media types of a body.
type RequestBody struct {
	Content  map[string]MediaType `json:"content"`
	Required bool                 `json:"required,omitempty"`
}

// MediaType is the schema of a body in one media type.
type MediaType struct {
	Schema *Schema `json:"schema"`
}

// Response is one status code of an operation.
type Response struct {
	Description string               `json:"description"`
	Content     map[string]MediaType `json:"content,omitempty"`
}

// The media types the server reads and writes.
var (
	bodyTypes     = []string{"application/json", "application/yaml"}
	responseTypes = []string{"application/json", "application/vnd.kubernetes.protobuf", "application/yaml"}
	patchTypes    = []string{"application/apply-patch+yaml", "application/json-patch+json", "application/merge-patch+json", "application/strategic-merge-patch+json"}
)

func query(name, typ, desc string) Parameter {
	return Parameter{Name: name, In: "query", Description: desc, Schema: &Schema{Type: typ, UniqueItems: true}}
}

// Upstream's query parameters (descriptions shortened).
var (
	paramDryRun          = query("dryRun", "string", "When present, indicates that modifications should not be persisted. Valid values are: - All: all dry run stages will be processed")
	paramFieldManager    = query("fieldManager", "string", "fieldManager is a name associated with the actor or entity that is making these changes.")
	paramFieldValidation = query("fieldValidation", "string", "fieldValidation instructs the server on how to handle objects in the request (POST/PUT/PATCH) containing unknown or duplicate fields. Valid values are: - Ignore - Warn - Strict")
	paramForce           = query("force", "boolean", "Force is going to \"force\" Apply requests. It means user will re-acquire conflicting fields owned by other people.")
	paramPretty          = query("pretty", "string", "If 'true', then the output is pretty printed.")
	listParams           = []Parameter{
		query("allowWatchBookmarks", "boolean", "allowWatchBookmarks requests watch events with type \"BOOKMARK\"."),
		query("continue", "string", "The continue option should be set when retrieving more results from the server."),
		query("fieldSelector", "string", "A selector to restrict the list of returned objects by their fields. Defaults to everything."),
		query("labelSelector", "string", "A selector to restrict the list of returned objects by their labels. Defaults to everything."),
		query("limit", "integer", "limit is a maximum number of responses to return for a list call."),
		query("resourceVersion", "string", "resourceVersion sets a constraint on what resource versions a request may be served from."),
		query("resourceVersionMatch", "string", "resourceVersionMatch determines how resourceVersion is applied to list calls."),
		query("sendInitialEvents", "boolean", "`sendInitialEvents=true` may be set together with `watch=true`: the stream begins with synthetic events for every existing object."),
		query("timeoutSeconds", "integer", "Timeout for the list/watch call."),
		query("watch", "boolean", "Watch for changes to the described resources and return them as a stream of add, update, and remove notifications."),
	}
	deleteParams = []Parameter{
		paramDryRun,
		query("gracePeriodSeconds", "integer", "The duration in seconds before the object should be deleted."),
		query("orphanDependents", "boolean", "Deprecated: please use the PropagationPolicy."),
		query("propagationPolicy", "string", "Whether and how garbage collection will be performed: 'Orphan', 'Background' or 'Foreground'."),
	}
)

// subresourceTypes are the Go types of subresources whose kind is not the resource's own.
var subresourceTypes = map[string]reflect.Type{
	"autoscaling/v1/Scale": reflect.TypeFor[autoscalingv1.Scale](),
	"v1/Binding":           reflect.TypeFor[corev1.Binding](),
}

var (
	deleteOptionsType = reflect.TypeFor[metav1.DeleteOptions]()
	statusType        = reflect.TypeFor[metav1.Status]()
)

// pathsFor adds the operations of resource r to paths, and the schemas they
// reference to b.
func (b *builder) pathsFor(paths map[string]*PathItem, r *scheme.Resource) {
	objType := reflect.TypeOf(r.New()).Elem()
	gvk := &GroupVersionKind{Group: r.Group, Version: r.Version, Kind: r.Kind}
	prefix := "/api/" + r.Version
	if r.Group != "" {
		prefix = "/apis/" + r.Group + "/" + r.Version
	}
	tag := groupTag(r.Group) + "_" + r.Version
	idPart := groupCamel(r.Group) + capitalize(r.Version)
	scope := ""
	collection := prefix + "/" + r.Resource
	if r.Namespaced {
		scope = "Namespaced"
		collection = prefix + "/namespaces/{namespace}/" + r.Resource
	}
	objRef := b.ref(objType)
	deleteRef := b.ref(deleteOptionsType)
	statusRef := b.ref(statusType)
	patchRef := b.patchRef()

	op := func(verb, action, what string, params []Parameter, g *GroupVersionKind, kind string) *Operation {
		return &Operation{
			Tags:             []string{tag},
			Description:      what,
			OperationID:      verb + idPart + scope + kind,
			Parameters:       params,
			Action:           action,
			GroupVersionKind: g,
			Responses:        map[string]Response{"401": {Description: "Unauthorized"}},
		}
	}
	has := func(verb string) bool {
		for _, v := range r.Verbs {
			if v == verb {
				return true
			}
		}
		return false
	}

	// The collection: list, create, deletecollection.
	coll := &PathItem{Parameters: scopeParams(r, false)}
	if has("list") {
		o := op("list", "list", "list or watch objects of kind "+r.Kind, listParams, gvk, r.Kind)
		o.Responses["200"] = response("OK", "")
		coll.Get = o
	}
	if has("create") {
		o := op("create", "post", "create "+article(r.Kind)+" "+r.Kind, []Parameter{paramDryRun, paramFieldManager, paramFieldValidation}, gvk, r.Kind)
		o.RequestBody = body(objRef, bodyTypes)
		for code, desc := range map[string]string{"200": "OK", "201": "Created", "202": "Accepted"} {
			o.Responses[code] = response(desc, objRef)
		}
		coll.Post = o
	}
	if has("deletecollection") {
		o := op("deleteCollection", "deletecollection", "delete collection of "+r.Kind, append(append([]Parameter{}, deleteParams...), listParams...), gvk, r.Kind)
		o.RequestBody = body(deleteRef, []string{"application/json"})
		o.Responses["200"] = response("OK", statusRef)
		coll.Delete = o
	}
	paths[collection] = coll

	// The object: get, replace, patch, delete.
	item := &PathItem{Parameters: scopeParams(r, true)}
	if has("get") {
		o := op("read", "get", "read the specified "+r.Kind, nil, gvk, r.Kind)
		o.Responses["200"] = response("OK", objRef)
		item.Get = o
	}
	if has("update") {
		item.Put = b.replaceOp(op("replace", "put", "replace the specified "+r.Kind, nil, gvk, r.Kind), objRef)
	}
	if has("patch") {
		item.Patch = b.patchOp(op("patch", "patch", "partially update the specified "+r.Kind, nil, gvk, r.Kind), objRef, patchRef)
	}
	if has("delete") {
		o := op("delete", "delete", "delete "+article(r.Kind)+" "+r.Kind, deleteParams, gvk, r.Kind)
		o.RequestBody = body(deleteRef, []string{"application/json"})
		o.Responses["200"] = response("OK", statusRef)
		o.Responses["202"] = response("Accepted", statusRef)
		item.Delete = o
	}
	paths[collection+"/{name}"] = item

	// Across namespaces: GET /api/v1/pods.
	if r.Namespaced && has("list") {
		o := op("list", "list", "list or watch objects of kind "+r.Kind, listParams, gvk, r.Kind+"ForAllNamespaces")
		o.OperationID = "list" + idPart + r.Kind + "ForAllNamespaces"
		o.Responses["200"] = response("OK", "")
		paths[prefix+"/"+r.Resource] = &PathItem{Parameters: []Parameter{paramPretty}}
		paths[prefix+"/"+r.Resource].Get = o
	}

	for _, sub := range r.Subresources {
		if sub.Connect {
			continue // Kubik publishes no OpenAPI for the kubelet-backed connect subresources
		}
		subGVK := &GroupVersionKind{Group: sub.Group, Version: sub.Version, Kind: sub.Kind}
		subRef := objRef
		if sub.Kind != r.Kind || sub.Group != "" {
			if sub.Version == "" {
				subGVK.Group, subGVK.Version = r.Group, r.Version
			}
			gv := subGVK.Version
			if subGVK.Group != "" {
				gv = subGVK.Group + "/" + gv
			}
			subRef = ""
			if t, ok := subresourceTypes[gv+"/"+sub.Kind]; ok {
				subRef = b.ref(t)
			}
		} else {
			subGVK = gvk
		}
		kind := r.Kind + capitalize(sub.Name)
		p := &PathItem{Parameters: scopeParams(r, true)}
		for _, verb := range sub.Verbs {
			switch verb {
			case "get":
				o := op("read", "get", "read "+sub.Name+" of the specified "+r.Kind, nil, subGVK, kind)
				o.Responses["200"] = response("OK", subRef)
				p.Get = o
			case "update":
				p.Put = b.replaceOp(op("replace", "put", "replace "+sub.Name+" of the specified "+r.Kind, nil, subGVK, kind), subRef)
			case "patch":
				p.Patch = b.patchOp(op("patch", "patch", "partially update "+sub.Name+" of the specified "+r.Kind, nil, subGVK, kind), subRef, patchRef)
			case "create":
				o := op("create", "post", "create "+sub.Name+" of "+article(r.Kind)+" "+r.Kind, []Parameter{paramDryRun, paramFieldManager, paramFieldValidation}, subGVK, kind)
				o.RequestBody = body(subRef, bodyTypes)
				o.Responses["200"] = response("OK", subRef)
				o.Responses["201"] = response("Created", subRef)
				p.Post = o
			}
		}
		paths[collection+"/{name}/"+sub.Name] = p
	}
}

// patchRef defines metav1.Patch, which is a plain object (our metav1 has no
// Go type for it: patch bodies are read as bytes).
func (b *builder) patchRef() string {
	const name = "io.k8s.apimachinery.pkg.apis.meta.v1.Patch"
	b.defs[name] = &Schema{Type: "object", Description: "Patch is provided to give a concrete name and type to the Kubernetes PATCH request body."}
	return b.refPrefix() + name
}

func (b *builder) replaceOp(o *Operation, ref string) *Operation {
	o.Parameters = []Parameter{paramDryRun, paramFieldManager, paramFieldValidation}
	o.RequestBody = body(ref, bodyTypes)
	o.Responses["200"] = response("OK", ref)
	o.Responses["201"] = response("Created", ref)
	return o
}

// patchOp is what kubectl's query-param verifier looks for: the PATCH
// operation of a GVK with a fieldValidation parameter.
func (b *builder) patchOp(o *Operation, ref, patchRef string) *Operation {
	o.Parameters = []Parameter{paramDryRun, paramFieldManager, paramFieldValidation, paramForce}
	o.RequestBody = body(patchRef, patchTypes)
	o.RequestBody.Required = true
	o.Responses["200"] = response("OK", ref)
	o.Responses["201"] = response("Created", ref)
	return o
}

func scopeParams(r *scheme.Resource, named bool) []Parameter {
	var ps []Parameter
	if named {
		ps = append(ps, Parameter{Name: "name", In: "path", Description: "name of the " + r.Kind, Required: true, Schema: &Schema{Type: "string", UniqueItems: true}})
	}
	if r.Namespaced {
		ps = append(ps, Parameter{Name: "namespace", In: "path", Description: "object name and auth scope, such as for teams and projects", Required: true, Schema: &Schema{Type: "string", UniqueItems: true}})
	}
	return append(ps, paramPretty)
}

func body(ref string, types []string) *RequestBody {
	rb := &RequestBody{Content: map[string]MediaType{}}
	for _, t := range types {
		rb.Content[t] = MediaType{Schema: &Schema{Ref: ref}}
	}
	if ref == "" {
		rb.Content = map[string]MediaType{}
		for _, t := range types {
			rb.Content[t] = MediaType{Schema: &Schema{Type: "object"}}
		}
	}
	return rb
}

func response(desc, ref string) Response {
	r := Response{Description: desc}
	if ref != "" {
		r.Content = map[string]MediaType{}
		for _, t := range responseTypes {
			r.Content[t] = MediaType{Schema: &Schema{Ref: ref}}
		}
	}
	return r
}

// groupTag is "core" for the core group and the first label otherwise:
// "coordination.k8s.io" is "coordination".
func groupTag(group string) string {
	if group == "" {
		return "core"
	}
	first, _, _ := strings.Cut(group, ".")
	return first
}

// groupCamel is upstream's group part of an operation id: Core, Apps, Coordination.
func groupCamel(group string) string { return capitalize(groupTag(group)) }

func capitalize(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}

func article(kind string) string {
	if strings.ContainsRune("AEIOU", rune(kind[0])) {
		return "an"
	}
	return "a"
}
