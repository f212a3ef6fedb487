// Package field names the place in an object that a validation error is about
// (spec.containers[0].image) and describes the error itself. Its text reaches
// users verbatim through kubectl ("The Pod "web" is invalid: ..."), so the
// wording is upstream's, word for word.
//
// Upstream: k8s.io/apimachinery/pkg/util/validation/field.
package field

import (
	"strconv"
	"strings"
)

// Path is the path from the root of an object to one field. Paths are built by
// extending a parent, so sibling fields share their common prefix.
type Path struct {
	name   string // the field name, or "" when this element is a subscript
	index  string // the subscript ("0", "app") when name is ""
	parent *Path  // nil for the root
}

// NewPath creates a root path: NewPath("spec", "containers") is spec.containers.
func NewPath(name string, moreNames ...string) *Path {
	p := &Path{name: name}
	for _, n := range moreNames {
		p = &Path{name: n, parent: p}
	}
	return p
}

// Root returns the first element of the path.
func (p *Path) Root() *Path {
	for p.parent != nil {
		p = p.parent
	}
	return p
}

// Child appends one or more field names.
func (p *Path) Child(name string, moreNames ...string) *Path {
	c := NewPath(name, moreNames...)
	c.Root().parent = p
	return c
}

// Index subscripts the path with a list index: containers[0].
func (p *Path) Index(index int) *Path {
	return &Path{index: strconv.Itoa(index), parent: p}
}

// Key subscripts the path with a map key: labels[app]. Keys are not quoted.
func (p *Path) Key(key string) *Path {
	return &Path{index: key, parent: p}
}

// String renders the path as users see it: spec.containers[0].image.
func (p *Path) String() string {
	if p == nil {
		return "<nil>"
	}
	var elems []*Path
	for ; p != nil; p = p.parent {
		elems = append(elems, p)
	}
	var b strings.Builder
	for i := len(elems) - 1; i >= 0; i-- {
		e := elems[i]
		switch {
		case e.name == "":
			b.WriteString("[" + e.index + "]")
		case e.parent != nil:
			b.WriteString("." + e.name)
		default:
			b.WriteString(e.name)
		}
	}
	return b.String()
}
