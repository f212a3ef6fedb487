// Package openapi serves the OpenAPI documents of the API: the v3 documents
// (/openapi/v3 and one per group version), which kubectl 1.29+ uses to check
// that the server validates fields and `kubectl explain` prints from, and the
// v2 document in protobuf (/openapi/v2), which kubectl 1.27 and 1.28 insist on
// before `apply` and `create -f`.
//
// The schemas are built at start-up, by reflection, from our Go types and the
// resource table in api/scheme; the descriptions come from the doc comments
// of the types (descriptions_generated.go, written by ./gen). Custom
// resources add their kinds to both documents from their CRDs' schemas
// (customresource.go for v3; customresource_v2.go and v2schema.go for v2,
// converted as upstream's apiextensions-apiserver converts them).
//
// Upstream: k8s.io/kube-openapi (the handlers, the v3 and v2 builders) and
// the openapi-gen generator.
package openapi

//go:generate go run ./gen
