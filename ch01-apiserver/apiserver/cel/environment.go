package cel

import (
	"sync"

	"github.com/google/cel-go/cel"
	"github.com/google/cel-go/ext"
)

// baseOptions are the options of upstream's base environment at the
// current compatibility version: cel-go's standard library with
// homogeneous aggregate literals, cross-type numeric comparisons and UTC
// as the default time zone, the strings (version 2), sets and lists
// extensions, optional types, two-variable comprehensions and the
// Kubernetes libraries of this package.
func baseOptions() []cel.EnvOption {
	return []cel.EnvOption{
		cel.HomogeneousAggregateLiterals(),
		cel.EagerlyValidateDeclarations(true),
		cel.DefaultUTCTimeZone(true),
		cel.CrossTypeNumericComparisons(true),
		cel.OptionalTypes(),
		ext.Strings(ext.StringsVersion(2)),
		ext.Sets(),
		ext.TwoVarComprehensions(),
		Lists(),
		Regex(),
	}
}

var (
	baseOnce sync.Once
	baseEnv  *cel.Env
	baseErr  error
)

// BaseEnvironment returns the shared base environment; callers extend it
// with their variables (env.Extend).
func BaseEnvironment() (*cel.Env, error) {
	baseOnce.Do(func() {
		baseEnv, baseErr = cel.NewEnv(baseOptions()...)
	})
	return baseEnv, baseErr
}
