package cel

import (
	"regexp"

	"github.com/google/cel-go/cel"
	"github.com/google/cel-go/common/types"
	"github.com/google/cel-go/common/types/ref"
)

// Regex is upstream's library/regex.go: "abc 123".find('[0-9]+') is the
// first match ("" when none); findAll(re) every match, findAll(re, n) at
// most n of them (all when n < 0). Go's regexp is RE2, as CEL requires:
// matching is linear in the input.
func Regex() cel.EnvOption {
	return cel.Lib(regexLib{})
}

type regexLib struct{}

func (regexLib) CompileOptions() []cel.EnvOption {
	return []cel.EnvOption{
		cel.Function("find", cel.MemberOverload("string_find_string",
			[]*cel.Type{cel.StringType, cel.StringType}, cel.StringType,
			cel.BinaryBinding(find))),
		cel.Function("findAll",
			cel.MemberOverload("string_find_all_string",
				[]*cel.Type{cel.StringType, cel.StringType}, cel.ListType(cel.StringType),
				cel.BinaryBinding(func(s, re ref.Val) ref.Val { return findAll(s, re, types.Int(-1)) })),
			cel.MemberOverload("string_find_all_string_int",
				[]*cel.Type{cel.StringType, cel.StringType, cel.IntType}, cel.ListType(cel.StringType),
				cel.FunctionBinding(func(args ...ref.Val) ref.Val { return findAll(args[0], args[1], args[2]) }))),
	}
}

func (regexLib) ProgramOptions() []cel.ProgramOption { return nil }

func compileRegex(s, re ref.Val) (string, *regexp.Regexp, ref.Val) {
	str, ok := s.(types.String)
	if !ok {
		return "", nil, types.MaybeNoSuchOverloadErr(s)
	}
	pattern, ok := re.(types.String)
	if !ok {
		return "", nil, types.MaybeNoSuchOverloadErr(re)
	}
	r, err := regexp.Compile(string(pattern))
	if err != nil {
		return "", nil, types.WrapErr(err)
	}
	return string(str), r, nil
}

func find(s, re ref.Val) ref.Val {
	str, r, err := compileRegex(s, re)
	if err != nil {
		return err
	}
	return types.String(r.FindString(str))
}

func findAll(s, re, limit ref.Val) ref.Val {
	str, r, err := compileRegex(s, re)
	if err != nil {
		return err
	}
	n, ok := limit.(types.Int)
	if !ok {
		return types.MaybeNoSuchOverloadErr(limit)
	}
	if n == 0 {
		return types.DefaultTypeAdapter.NativeToValue([]string{})
	}
	return types.DefaultTypeAdapter.NativeToValue(r.FindAllString(str, int(n)))
}
