// Package quota measures what objects use of a ResourceQuota: the
// evaluators of pods, Services, PersistentVolumeClaims and object counts
// (their usage, the quota names they compute, the scopes they match) and
// the arithmetic of resource lists. The ResourceQuota admission plugin
// charges one new object with them; the quota controller of chapter 4 sums
// a namespace's objects with them.
//
// Upstream: k8s.io/apiserver/pkg/quota/v1 (resources.go, interfaces.go,
// generic/) and pkg/quota/v1/evaluator/core (pods.go, services.go,
// persistent_volume_claims.go, registry.go).
package quota
