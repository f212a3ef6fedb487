// Package ptr has To, so that tests ported from upstream can keep writing
// ptr.To[int32](80). Upstream: k8s.io/utils/ptr.
package ptr

// To returns a pointer to a copy of v.
func To[T any](v T) *T { return &v }
