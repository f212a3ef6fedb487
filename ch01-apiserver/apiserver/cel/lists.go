package cel

import (
	"github.com/google/cel-go/cel"
	"github.com/google/cel-go/common/types"
	"github.com/google/cel-go/common/types/ref"
	"github.com/google/cel-go/common/types/traits"
)

// Lists is upstream's library/lists.go: on a list of comparable
// elements, isSorted(), sum(), min(), max(), indexOf(x) and
// lastIndexOf(x).
func Lists() cel.EnvOption {
	a := cel.TypeParamType("A")
	listA := cel.ListType(a)
	var sums []cel.FunctionOpt
	for _, t := range []struct {
		id   string
		elem *cel.Type
		zero ref.Val
	}{
		{"int", cel.IntType, types.Int(0)},
		{"uint", cel.UintType, types.Uint(0)},
		{"double", cel.DoubleType, types.Double(0)},
		{"duration", cel.DurationType, types.Duration{}},
	} {
		zero := t.zero
		sums = append(sums, cel.MemberOverload("list_"+t.id+"_sum_"+t.id,
			[]*cel.Type{cel.ListType(t.elem)}, t.elem,
			cel.UnaryBinding(func(v ref.Val) ref.Val { return sum(v, zero) })))
	}
	return cel.Lib(listsLib{opts: []cel.EnvOption{
		cel.Function("isSorted", cel.MemberOverload("list_a_is_sorted_bool",
			[]*cel.Type{listA}, cel.BoolType, cel.UnaryBinding(isSorted))),
		cel.Function("sum", sums...),
		cel.Function("min", cel.MemberOverload("list_a_min_a",
			[]*cel.Type{listA}, a, cel.UnaryBinding(func(v ref.Val) ref.Val { return extreme(v, -1) }))),
		cel.Function("max", cel.MemberOverload("list_a_max_a",
			[]*cel.Type{listA}, a, cel.UnaryBinding(func(v ref.Val) ref.Val { return extreme(v, 1) }))),
		cel.Function("indexOf", cel.MemberOverload("list_a_index_of_int",
			[]*cel.Type{listA, a}, cel.IntType, cel.BinaryBinding(func(l, x ref.Val) ref.Val { return indexOf(l, x, false) }))),
		cel.Function("lastIndexOf", cel.MemberOverload("list_a_last_index_of_int",
			[]*cel.Type{listA, a}, cel.IntType, cel.BinaryBinding(func(l, x ref.Val) ref.Val { return indexOf(l, x, true) }))),
	}})
}

type listsLib struct{ opts []cel.EnvOption }

func (l listsLib) CompileOptions() []cel.EnvOption   { return l.opts }
func (listsLib) ProgramOptions() []cel.ProgramOption { return nil }

func elements(v ref.Val) ([]ref.Val, ref.Val) {
	l, ok := v.(traits.Lister)
	if !ok {
		return nil, types.MaybeNoSuchOverloadErr(v)
	}
	n, ok := l.Size().(types.Int)
	if !ok {
		return nil, types.NewErr("list size is not an int")
	}
	out := make([]ref.Val, 0, int(n))
	for i := types.Int(0); i < n; i++ {
		out = append(out, l.Get(i))
	}
	return out, nil
}

func compare(a, b ref.Val) (int, ref.Val) {
	c, ok := a.(traits.Comparer)
	if !ok {
		return 0, types.MaybeNoSuchOverloadErr(a)
	}
	r, ok := c.Compare(b).(types.Int)
	if !ok {
		return 0, types.MaybeNoSuchOverloadErr(b)
	}
	return int(r), nil
}

func isSorted(v ref.Val) ref.Val {
	elems, err := elements(v)
	if err != nil {
		return err
	}
	for i := 1; i < len(elems); i++ {
		c, err := compare(elems[i-1], elems[i])
		if err != nil {
			return err
		}
		if c > 0 {
			return types.False
		}
	}
	return types.True
}

func sum(v, zero ref.Val) ref.Val {
	elems, err := elements(v)
	if err != nil {
		return err
	}
	acc := zero
	for _, e := range elems {
		adder, ok := acc.(traits.Adder)
		if !ok {
			return types.MaybeNoSuchOverloadErr(acc)
		}
		acc = adder.Add(e)
		if types.IsError(acc) {
			return acc
		}
	}
	return acc
}

// extreme returns the min (sign -1) or max (sign 1) element; an empty
// list is an error, as upstream's.
func extreme(v ref.Val, sign int) ref.Val {
	elems, err := elements(v)
	if err != nil {
		return err
	}
	if len(elems) == 0 {
		if sign < 0 {
			return types.NewErr("min called on empty list")
		}
		return types.NewErr("max called on empty list")
	}
	best := elems[0]
	for _, e := range elems[1:] {
		c, err := compare(e, best)
		if err != nil {
			return err
		}
		if c*sign > 0 {
			best = e
		}
	}
	return best
}

func indexOf(l, x ref.Val, last bool) ref.Val {
	elems, err := elements(l)
	if err != nil {
		return err
	}
	for i := range elems {
		j := i
		if last {
			j = len(elems) - 1 - i
		}
		if elems[j].Equal(x) == types.True {
			return types.Int(j)
		}
	}
	return types.Int(-1)
}
