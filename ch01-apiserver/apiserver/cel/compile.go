package cel

import (
	"github.com/google/cel-go/cel"
	"github.com/google/cel-go/common/ast"
)

// ErrorType classifies a compilation error as upstream's apiserver/pkg/cel
// Error does: an expression the user must fix (Invalid, or Required when
// missing) or a failure of ours (Internal).
type ErrorType string

const (
	ErrorTypeInvalid  ErrorType = "Invalid"
	ErrorTypeRequired ErrorType = "Required"
	ErrorTypeInternal ErrorType = "Internal"
)

// Error is a compilation or evaluation error with its detail text.
type Error struct {
	Type   ErrorType
	Detail string
}

func (e *Error) Error() string { return e.Detail }

// Compiled is one checked expression and its program.
type Compiled struct {
	AST     *cel.Ast
	Program cel.Program
}

// Compile parses and checks expr in env and plans its program with the
// per-call cost limit. A parse or check error is "compilation failed: "
// followed by cel-go's issues ("ERROR: <input>:1:5: ...").
func Compile(env *cel.Env, expr string, prefix string) (*Compiled, *Error) {
	checked, issues := env.Compile(expr)
	if issues != nil && issues.Err() != nil {
		return nil, &Error{Type: ErrorTypeInvalid, Detail: prefix + "compilation failed: " + issues.String()}
	}
	prog, err := env.Program(checked,
		cel.CostLimit(PerCallLimit),
		cel.EvalOptions(cel.OptOptimize, cel.OptTrackCost),
		cel.InterruptCheckFrequency(100),
	)
	if err != nil {
		return nil, &Error{Type: ErrorTypeInvalid, Detail: prefix + "program instantiation failed: " + err.Error()}
	}
	return &Compiled{AST: checked, Program: prog}, nil
}

// UsesVariable reports whether a checked expression refers to the
// identifier name (oldSelf, say).
func UsesVariable(checked *cel.Ast, name string) bool {
	if checked == nil {
		return false
	}
	found := false
	ast.PostOrderVisit(checked.NativeRep().Expr(), ast.NewExprVisitor(func(x ast.Expr) {
		if x.Kind() == ast.IdentKind && x.AsIdent() == name {
			found = true
		}
	}))
	return found
}
