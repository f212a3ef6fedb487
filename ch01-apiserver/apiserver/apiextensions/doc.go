// Package apiextensions is what upstream's apiextensions-apiserver adds to
// the apiserver, minus the HTTP plumbing (which lives in package apiserver):
//
//   - validation of CustomResourceDefinitions (validation.go, structural.go,
//     apiapproval.go): names, versions, the rule that a v1 schema is
//     structural, the approval annotation of *.k8s.io groups;
//   - the custom objects themselves: Unstructured (unstructured.go), the
//     served resources built from a CRD (resource.go, Registry);
//   - the schema at work on every write and read: validation of values
//     (schemavalidation.go), pruning of unknown fields (prune.go),
//     defaulting (default.go);
//   - CEL validation rules (x-kubernetes-validations): compiled and checked
//     when a CRD is written (celcompile.go, celvalidation.go), run on every
//     custom object written (celruntime.go), typed through celschema.go;
//   - server-side Tables from additionalPrinterColumns (table.go, jsonpath.go),
//     the scale subresource's paths and selectable fields (fieldpath.go), and
//     the Go shape server-side apply walks (applyshape.go).
//
// Upstream: k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/validation,
// pkg/apiserver/schema (structural, pruning, defaulting, objectmeta),
// pkg/apiserver/validation, pkg/apiserver/schema/cel, pkg/registry/customresource
// (strategy, tableconvertor), pkg/apiserver/customresource_handler.go.
package apiextensions
