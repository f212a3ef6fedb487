package quota

import (
	"slices"

	"kubik/ch01-apiserver/api/corev1"
	"kubik/ch01-apiserver/api/resource"
)

// Equals: the same names with equal quantities.
func Equals(a, b corev1.ResourceList) bool {
	if len(a) != len(b) {
		return false
	}
	for name, qa := range a {
		if qb, ok := b[name]; !ok || qa.Cmp(qb) != 0 {
			return false
		}
	}
	return true
}

// LessThanOrEqual reports whether a <= b for every name of b that a has;
// if not, the names of a that exceed b.
func LessThanOrEqual(a, b corev1.ResourceList) (bool, []corev1.ResourceName) {
	var exceeded []corev1.ResourceName
	for _, name := range ResourceNames(b) {
		if qa, ok := a[name]; ok && qa.Cmp(b[name]) > 0 {
			exceeded = append(exceeded, name)
		}
	}
	return len(exceeded) == 0, exceeded
}

// Add is a + b for every name of either.
func Add(a, b corev1.ResourceList) corev1.ResourceList {
	out := corev1.ResourceList{}
	for name, q := range a {
		sum := q.DeepCopy()
		if other, ok := b[name]; ok {
			sum.Add(other)
		}
		out[name] = sum
	}
	for name, q := range b {
		if _, ok := out[name]; !ok {
			out[name] = q.DeepCopy()
		}
	}
	return out
}

// Subtract is a - b for every name of either.
func Subtract(a, b corev1.ResourceList) corev1.ResourceList {
	out := corev1.ResourceList{}
	for name, q := range a {
		diff := q.DeepCopy()
		if other, ok := b[name]; ok {
			diff.Sub(other)
		}
		out[name] = diff
	}
	for name, q := range b {
		if _, ok := out[name]; !ok {
			neg := q.DeepCopy()
			neg.Neg()
			out[name] = neg
		}
	}
	return out
}

// SubtractWithNonNegativeResult is a - b for every name of a, where a
// negative difference is zero: an update is charged what it adds, and
// gets nothing back for what it frees until the quota controller
// recalculates.
func SubtractWithNonNegativeResult(a, b corev1.ResourceList) corev1.ResourceList {
	zero := resource.MustParse("0")
	out := corev1.ResourceList{}
	for name, q := range a {
		diff := q.DeepCopy()
		if other, ok := b[name]; ok {
			diff.Sub(other)
		}
		if diff.Cmp(zero) < 0 {
			diff = zero.DeepCopy()
		}
		out[name] = diff
	}
	return out
}

// Mask keeps the quantities of list whose names are among names.
func Mask(list corev1.ResourceList, names []corev1.ResourceName) corev1.ResourceList {
	out := corev1.ResourceList{}
	for name, q := range list {
		if slices.Contains(names, name) {
			out[name] = q.DeepCopy()
		}
	}
	return out
}

// ResourceNames are the names of list, sorted.
func ResourceNames(list corev1.ResourceList) []corev1.ResourceName {
	out := make([]corev1.ResourceName, 0, len(list))
	for name := range list {
		out = append(out, name)
	}
	slices.Sort(out)
	return out
}

// Intersection is the names in both a and b, deduplicated and sorted.
func Intersection(a, b []corev1.ResourceName) []corev1.ResourceName {
	var out []corev1.ResourceName
	for _, name := range a {
		if slices.Contains(b, name) && !slices.Contains(out, name) {
			out = append(out, name)
		}
	}
	slices.Sort(out)
	return out
}

// IsZero: every quantity of a is 0.
func IsZero(a corev1.ResourceList) bool {
	for _, q := range a {
		if !q.IsZero() {
			return false
		}
	}
	return true
}

// RemoveZeros is a without its zero quantities.
func RemoveZeros(a corev1.ResourceList) corev1.ResourceList {
	out := corev1.ResourceList{}
	for name, q := range a {
		if !q.IsZero() {
			out[name] = q
		}
	}
	return out
}
