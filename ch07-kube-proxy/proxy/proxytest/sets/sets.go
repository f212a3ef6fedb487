// Package sets lets tests ported from upstream keep writing
// sets.New("a", "b"): here a set is a map[T]bool, the type Kubik's proxy
// code uses. Upstream: k8s.io/apimachinery/pkg/util/sets.
package sets

// Set is a set of T.
type Set[T comparable] = map[T]bool

// New returns a set of items.
func New[T comparable](items ...T) map[T]bool {
	s := make(map[T]bool, len(items))
	for _, i := range items {
		s[i] = true
	}
	return s
}
