package openapi

import (
	"crypto/sha512"
	"fmt"
	"net/http"
	"strings"

	"google.golang.org/protobuf/encoding/protowire"

	"kubik/ch01-apiserver/api/scheme"
)

// V2ContentType is the media type of the v2 document in protobuf.
const V2ContentType = "application/com.github.proto-openapi.spec.v2.v1.0+protobuf"

// Field numbers of gnostic's openapi_v2 messages (OpenAPIv2.proto) that we write.
const (
	documentSwagger = 1 // Document.swagger
	documentInfo    = 2 // Document.info
	documentPaths   = 8 // Document.paths
	documentDefs    = 9 // Document.definitions

	infoTitle   = 1
	infoVersion = 2

	pathsPath          = 2 // Paths.path: repeated NamedPathItem
	namedName          = 1 // Named*.name
	namedValue         = 2 // Named*.value
	pathItemPatch      = 8 // PathItem.patch
	operationParams    = 8 // Operation.parameters: repeated ParametersItem
	operationResponses = 9
	operationVendorExt = 13 // Operation.vendor_extension: repeated NamedAny

	parametersItemParameter  = 1 // ParametersItem.parameter
	parameterNonBody         = 2 // Parameter.non_body_parameter
	nonBodyQuery             = 3 // NonBodyParameter.query_parameter_sub_schema
	queryIn                  = 2
	queryName                = 4
	queryType                = 6
	queryUniqueItems         = 20
	responsesResponseCode    = 1 // Responses.response_code: repeated NamedResponseValue
	responseValueResponse    = 1 // ResponseValue.response
	responseDescription      = 1
	anyYAML                  = 2 // Any.yaml
	groupVersionKindExtField = "x-kubernetes-group-version-kind"
)

// V2Option changes what the v2 document holds.
type V2Option func(*v2Config)

type v2Config struct {
	patchOps []*scheme.Resource
}

// WithPatchOperations adds, for every resource, the PATCH operation with its
// x-kubernetes-group-version-kind and the fieldValidation query parameter:
// what kubectl's query-param verifier looks for. Without it the document is
// the minimal one, which is enough for kubectl 1.27 … 1.33 (they then leave
// validation to the server, which does it anyway).
func WithPatchOperations(resources []*scheme.Resource) V2Option {
	return func(c *v2Config) { c.patchOps = resources }
}

// V2Document encodes the v2 document: {swagger: "2.0", info: {title:
// "Kubernetes", version}, paths: {...}}, in gnostic's protobuf form.
func V2Document(serverVersion string, opts ...V2Option) []byte {
	var c v2Config
	for _, o := range opts {
		o(&c)
	}
	var info []byte
	info = appendString(info, infoTitle, "Kubernetes")
	info = appendString(info, infoVersion, serverVersion)

	var paths []byte
	for _, r := range c.patchOps {
		path := gvPath(r.Group, r.Version)
		if r.Namespaced {
			path += "/namespaces/{namespace}"
		}
		path = "/" + path + "/" + r.Resource + "/{name}"
		var item []byte
		item = appendString(item, namedName, path)
		item = appendMessage(item, namedValue, appendMessage(nil, pathItemPatch, v2PatchOperation(r)))
		paths = appendMessage(paths, pathsPath, item)
	}

	var doc []byte
	doc = appendString(doc, documentSwagger, "2.0")
	doc = appendMessage(doc, documentInfo, info)
	doc = appendMessage(doc, documentPaths, paths)
	if c.patchOps != nil {
		// "definitions": {} (no schemas: kubectl then checks nothing on its side).
		doc = appendMessage(doc, documentDefs, nil)
	}
	return doc
}

// v2PatchOperation is {parameters: [fieldValidation in query], responses:
// {200: OK}, x-kubernetes-group-version-kind: {...}}.
func v2PatchOperation(r *scheme.Resource) []byte {
	var q []byte
	q = appendString(q, queryIn, "query")
	q = appendString(q, queryName, "fieldValidation")
	q = appendString(q, queryType, "string")
	q = protowire.AppendTag(q, queryUniqueItems, protowire.VarintType)
	q = protowire.AppendVarint(q, 1)
	param := appendMessage(nil, parametersItemParameter,
		appendMessage(nil, parameterNonBody, appendMessage(nil, nonBodyQuery, q)))

	var code []byte
	code = appendString(code, namedName, "200")
	code = appendMessage(code, namedValue,
		appendMessage(nil, responseValueResponse, appendString(nil, responseDescription, "OK")))

	// Vendor extensions are gnostic Any values holding YAML text.
	group := r.Group
	if group == "" {
		group = `""`
	}
	yaml := fmt.Sprintf("group: %s\nversion: %s\nkind: %s\n", group, r.Version, r.Kind)
	var ext []byte
	ext = appendString(ext, namedName, groupVersionKindExtField)
	ext = appendMessage(ext, namedValue, appendString(nil, anyYAML, yaml))

	var op []byte
	op = appendMessage(op, operationParams, param)
	op = appendMessage(op, operationResponses, appendMessage(nil, responsesResponseCode, code))
	op = appendMessage(op, operationVendorExt, ext)
	return op
}

func appendString(b []byte, num protowire.Number, s string) []byte {
	b = protowire.AppendTag(b, num, protowire.BytesType)
	return protowire.AppendString(b, s)
}

func appendMessage(b []byte, num protowire.Number, msg []byte) []byte {
	b = protowire.AppendTag(b, num, protowire.BytesType)
	return protowire.AppendBytes(b, msg)
}

// V2Handler serves GET /openapi/v2 with the protobuf document. kubectl 1.27
// revalidates its cached copy with If-None-Match and accepts 304.
func V2Handler(serverVersion string, opts ...V2Option) http.Handler {
	body := V2Document(serverVersion, opts...)
	sum := sha512.Sum512(body)
	etag := `"` + strings.ToUpper(fmt.Sprintf("%x", sum)) + `"`
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodGet && r.Method != http.MethodHead {
			w.Header().Set("Allow", "GET, HEAD")
			http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
			return
		}
		w.Header().Set("Etag", etag)
		w.Header().Set("Content-Type", V2ContentType)
		w.Header().Set("Cache-Control", "no-cache, private")
		if r.Header.Get("If-None-Match") == etag {
			w.WriteHeader(http.StatusNotModified)
			return
		}
		if r.Method == http.MethodHead {
			return
		}
		w.Write(body)
	})
}
