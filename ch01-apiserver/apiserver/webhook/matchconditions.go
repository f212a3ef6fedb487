package webhook

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"

	"github.com/google/cel-go/common/types"

	kcel "kubik/ch01-apiserver/apiserver/cel"
)

// MatchConditionsCEL evaluates a webhook's matchConditions as upstream's
// matchconditions.Matcher does: every condition is a CEL expression over
// object, oldObject and request; one that is false skips the webhook (even
// when others failed); when none is false but some failed, the error is the
// caller's to handle by the webhook's failurePolicy. Compiled programs are
// kept by expression text (a bounded cache).
type MatchConditionsCEL struct {
	mu       sync.Mutex
	compiled map[string]*kcel.Compiled
}

// maxCompiledConditions bounds the cache; past it, it starts again.
const maxCompiledConditions = 4096

// Match is the Hooks.MatchConditions function.
func (m *MatchConditionsCEL) Match(ctx context.Context, a *Attributes, webhookName string, conditions []MatchCondition) (bool, error) {
	vars, err := conditionVariables(a)
	if err != nil {
		return false, err
	}
	var errs []string
	for _, c := range conditions {
		prog, err := m.program(c.Expression)
		if err != nil {
			errs = append(errs, err.Error())
			continue
		}
		out, _, err := prog.Program.ContextEval(ctx, vars)
		switch {
		case err != nil:
			errs = append(errs, fmt.Sprintf("expression '%s' resulted in error: %v", c.Expression, err))
		case out == types.False:
			return false, nil
		case out != types.True:
			errs = append(errs, fmt.Sprintf("expression '%s' resulted in error: must evaluate to bool", c.Expression))
		}
	}
	switch len(errs) {
	case 0:
		return true, nil
	case 1:
		return false, errors.New(errs[0])
	}
	return false, errors.New("[" + strings.Join(errs, ", ") + "]") // upstream's utilerrors.Aggregate
}

func (m *MatchConditionsCEL) program(expr string) (*kcel.Compiled, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if c, ok := m.compiled[expr]; ok {
		return c, nil
	}
	env, err := kcel.AdmissionEnvironment()
	if err != nil {
		return nil, err
	}
	c, cerr := kcel.Compile(env, expr, "")
	if cerr != nil {
		return nil, cerr
	}
	if m.compiled == nil || len(m.compiled) >= maxCompiledConditions {
		m.compiled = map[string]*kcel.Compiled{}
	}
	m.compiled[expr] = c
	return c, nil
}

// conditionVariables are the CEL variables of a request: object and
// oldObject as decoded JSON (null where there is none), request as the
// AdmissionRequest a webhook would receive.
func conditionVariables(a *Attributes) (map[string]any, error) {
	decode := func(b []byte) (any, error) {
		if len(b) == 0 {
			return nil, nil
		}
		d := json.NewDecoder(bytes.NewReader(b))
		d.UseNumber()
		var v any
		if err := d.Decode(&v); err != nil {
			return nil, err
		}
		return kcel.NativeValue(v, nil), nil
	}
	obj, err := decode(a.Object)
	if err != nil {
		return nil, err
	}
	old, err := decode(a.OldObject)
	if err != nil {
		return nil, err
	}
	req, err := json.Marshal(newReview("", a, &invocation{resource: a.Resource}).Request)
	if err != nil {
		return nil, err
	}
	request, err := decode(req)
	if err != nil {
		return nil, err
	}
	return map[string]any{"object": obj, "oldObject": old, "request": request}, nil
}
