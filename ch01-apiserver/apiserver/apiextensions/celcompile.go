package apiextensions

import (
	"strings"

	"github.com/google/cel-go/cel"

	apiextensionsv1 "kubik/ch01-apiserver/api/apiextensionsv1"
	apiservercel "kubik/ch01-apiserver/apiserver/cel"
)

// Compilation of a schema node's x-kubernetes-validations: upstream's
// pkg/apiserver/schema/cel/compilation.go. Every rule sees the node's
// value as self and, on updates, its previous value as oldSelf
// (optional(T) when the rule sets optionalOldSelf).

// Names of the variables of validation rules.
const (
	ScopedVarName    = "self"
	OldScopedVarName = "oldSelf"
)

// ruleCompilation is one rule's compilation result.
type ruleCompilation struct {
	Rule              apiextensionsv1.ValidationRule
	Program           cel.Program
	MessageExpression cel.Program
	Error             *apiservercel.Error
	MessageError      *apiservercel.Error
	UsesOldSelf       bool
	// MaxCost and MessageExpressionMaxCost are the estimated costs of one
	// evaluation.
	MaxCost                  uint64
	MessageExpressionMaxCost uint64
}

// compileRules compiles the rules of the schema node s; root says s is
// the object's root (self then has apiVersion, kind and metadata).
func compileRules(s *apiextensionsv1.JSONSchemaProps, root bool) ([]ruleCompilation, error) {
	base, err := apiservercel.BaseEnvironment()
	if err != nil {
		return nil, err
	}
	node := newCELSchema(s, root)
	decl := apiservercel.NewDeclTypes(base.CELTypeProvider(), "Object", node)
	t := decl.Root()
	env, err := base.Extend(cel.CustomTypeProvider(decl), cel.Variable(ScopedVarName, t), cel.Variable(OldScopedVarName, t))
	if err != nil {
		return nil, err
	}
	var optEnv *cel.Env
	est := &apiservercel.SizeEstimator{Vars: map[string]apiservercel.Schema{ScopedVarName: node, OldScopedVarName: node}}
	out := make([]ruleCompilation, len(s.XValidations))
	for i, r := range s.XValidations {
		e := env
		if r.OptionalOldSelf != nil && *r.OptionalOldSelf {
			if optEnv == nil {
				if optEnv, err = base.Extend(cel.CustomTypeProvider(decl), cel.Variable(ScopedVarName, t), cel.Variable(OldScopedVarName, cel.OptionalType(t))); err != nil {
					return nil, err
				}
			}
			e = optEnv
		}
		out[i] = compileRule(e, r, est)
	}
	return out, nil
}

func compileRule(env *cel.Env, r apiextensionsv1.ValidationRule, est *apiservercel.SizeEstimator) ruleCompilation {
	res := ruleCompilation{Rule: r}
	if strings.TrimSpace(r.Rule) == "" {
		res.Error = &apiservercel.Error{Type: apiservercel.ErrorTypeRequired, Detail: "rule is not specified"}
		return res
	}
	c, cerr := apiservercel.Compile(env, r.Rule, "")
	if cerr != nil {
		res.Error = cerr
		return res
	}
	if out := c.AST.OutputType(); !out.IsExactType(cel.BoolType) && !out.IsExactType(cel.DynType) {
		res.Error = &apiservercel.Error{Type: apiservercel.ErrorTypeInvalid, Detail: "cel expression must evaluate to a bool"}
		return res
	}
	res.Program = c.Program
	res.UsesOldSelf = apiservercel.UsesVariable(c.AST, OldScopedVarName)
	if cost, err := apiservercel.EstimateCost(env, c.AST, est); err == nil {
		res.MaxCost = cost
	}
	if strings.TrimSpace(r.MessageExpression) != "" {
		m, merr := apiservercel.Compile(env, r.MessageExpression, "messageExpression ")
		switch {
		case merr != nil:
			res.MessageError = merr
		case !m.AST.OutputType().IsExactType(cel.StringType) && !m.AST.OutputType().IsExactType(cel.DynType):
			res.MessageError = &apiservercel.Error{Type: apiservercel.ErrorTypeInvalid, Detail: "messageExpression must evaluate to a string"}
		default:
			res.MessageExpression = m.Program
			if cost, err := apiservercel.EstimateCost(env, m.AST, est); err == nil {
				res.MessageExpressionMaxCost = cost
			}
		}
	}
	return res
}
