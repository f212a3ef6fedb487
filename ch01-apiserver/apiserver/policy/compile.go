package policy

import (
	"errors"
	"fmt"
	"strings"

	celgo "github.com/google/cel-go/cel"
	"github.com/google/cel-go/common/types/ref"

	"kubik/ch01-apiserver/api/admissionregistrationv1"
	"kubik/ch01-apiserver/apiserver/cel"
)

// compiledPolicy is a policy and its programs. Validation compiled every
// expression when the policy was written; one that does not compile now
// (a policy stored by another apiserver version) fails at evaluation with
// upstream's "compilation error: ..." message.
type compiledPolicy struct {
	policy           *admissionregistrationv1.ValidatingAdmissionPolicy
	failurePolicy    admissionregistrationv1.FailurePolicyType
	variables        []cel.CompiledVariable
	matchConditions  []compiledExpression
	validations      []compiledValidation
	auditAnnotations []compiledExpression
	// configError is the policy's configuration error (upstream's
	// ConfigurationError): its paramKind is not served.
	configError error
}

type compiledExpression struct {
	name       string // a match condition's name, an audit annotation's key
	expression string
	compiled   *cel.Compiled
	err        *cel.Error
}

type compiledValidation struct {
	validation admissionregistrationv1.Validation
	compiled   compiledExpression
	message    *compiledExpression // messageExpression, when set
}

func compilePolicy(p *admissionregistrationv1.ValidatingAdmissionPolicy) *compiledPolicy {
	cp := &compiledPolicy{policy: p, failurePolicy: admissionregistrationv1.Fail}
	if p.Spec.FailurePolicy != nil {
		cp.failurePolicy = *p.Spec.FailurePolicy
	}
	compiler, err := cel.NewPolicyCompiler(p.Spec.ParamKind != nil)
	if err != nil {
		cp.configError = err
		return cp
	}
	for _, v := range p.Spec.Variables {
		compiler.CompileVariable(v.Name, v.Expression)
	}
	cp.variables = compiler.Variables
	for _, m := range p.Spec.MatchConditions {
		c, cerr := compiler.CompileMatchCondition(strings.TrimSpace(m.Expression))
		cp.matchConditions = append(cp.matchConditions, compiledExpression{name: m.Name, expression: m.Expression, compiled: c, err: cerr})
	}
	for _, v := range p.Spec.Validations {
		c, cerr := compiler.CompileExpression(v.Expression, celgo.BoolType)
		cv := compiledValidation{validation: v, compiled: compiledExpression{expression: v.Expression, compiled: c, err: cerr}}
		if strings.TrimSpace(v.MessageExpression) != "" {
			mc, merr := compiler.CompileExpression(v.MessageExpression, celgo.StringType)
			cv.message = &compiledExpression{expression: v.MessageExpression, compiled: mc, err: merr}
		}
		cp.validations = append(cp.validations, cv)
	}
	for _, a := range p.Spec.AuditAnnotations {
		c, cerr := compiler.CompileExpression(strings.TrimSpace(a.ValueExpression), celgo.StringType, celgo.NullType)
		cp.auditAnnotations = append(cp.auditAnnotations, compiledExpression{name: a.Key, expression: a.ValueExpression, compiled: c, err: cerr})
	}
	return cp
}

// errOutOfBudget is upstream's message when the expressions of one
// evaluation spent the runtime cost budget.
var errOutOfBudget = errors.New("validation failed due to running out of cost budget, no further validation rules will be run")

// evalResult is one expression's evaluation: its value or its error.
type evalResult struct {
	value ref.Val
	err   error
}

// evaluator runs the expressions of one policy for one request and one
// param under one cost budget (upstream's evaluationActivation.Evaluate).
type evaluator struct {
	activation map[string]any
	vars       *cel.LazyVariables
	budget     int64
}

func (e *evaluator) eval(x *compiledExpression) (evalResult, error) {
	if x.err != nil {
		return evalResult{err: fmt.Errorf("compilation error: %v", x.err)}, nil
	}
	if x.compiled == nil {
		return evalResult{err: errors.New("unexpected internal error compiling expression")}, nil
	}
	out, details, err := x.compiled.Program.Eval(e.activation)
	if c := e.vars.TakeCost(); c > e.budget {
		return evalResult{}, errOutOfBudget
	} else {
		e.budget -= c
	}
	if details == nil || details.ActualCost() == nil {
		return evalResult{}, fmt.Errorf("runtime cost could not be calculated for expression: %v, no further expression will be run", x.expression)
	}
	if c := *details.ActualCost(); c > uint64(e.budget) {
		return evalResult{}, errOutOfBudget
	} else {
		e.budget -= int64(c)
	}
	if err != nil {
		return evalResult{err: fmt.Errorf("expression '%v' resulted in error: %v", x.expression, err)}, nil
	}
	return evalResult{value: out}, nil
}
