// Package cel is the Common Expression Language support the apiserver
// shares between CustomResourceDefinition validation rules and, later,
// ValidatingAdmissionPolicy: the base environment (cel-go's standard
// library, its string/set/list extensions, optional types and the
// Kubernetes libraries), CEL types built from an OpenAPI schema, and the
// cost limits every expression runs under.
//
// Upstream: k8s.io/apiserver/pkg/cel (types.go, limits.go, library) and
// k8s.io/apiserver/pkg/cel/environment (the base environment).
package cel
