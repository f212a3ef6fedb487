package cel

import (
	"fmt"
	"math"
	"reflect"
	"sort"
	"sync"

	"github.com/google/cel-go/cel"
	"github.com/google/cel-go/common/types"
	"github.com/google/cel-go/common/types/ref"
	"github.com/google/cel-go/common/types/traits"
)

// The variables of ValidatingAdmissionPolicy expressions, as upstream's
// k8s.io/apiserver/pkg/admission/plugin/cel names them.
const (
	ObjectVarName          = "object"
	OldObjectVarName       = "oldObject"
	RequestVarName         = "request"
	ParamsVarName          = "params"
	NamespaceVarName       = "namespaceObject"
	VariablesVarName       = "variables"
	variablesTypeName      = "kubernetes.variables"
	maxPolicyVariableCount = 1024
)

// PolicyCompiler compiles the expressions of one ValidatingAdmissionPolicy
// as upstream's CompositedCompiler does: variables first, in order, each
// becoming a typed field of `variables` for the expressions after it;
// then validations, messageExpressions and auditAnnotations, which see
// every variable. matchConditions are compiled without variables
// (CompileMatchCondition), as upstream's stateless compiler does.
//
// request is typed as upstream's kubernetes.AdmissionRequest (so
// request.nope does not compile); object, oldObject and namespaceObject
// are dyn here (upstream types namespaceObject too); params is declared
// only when the policy has a paramKind. The authorizer variable is not
// declared.
type PolicyCompiler struct {
	hasParams bool
	vars      *variableTypes
	env       *cel.Env
	plain     *cel.Env
	// Variables are the compiled variables in order (nil Compiled when
	// the variable did not compile).
	Variables []CompiledVariable
}

// CompiledVariable is one compiled policy variable.
type CompiledVariable struct {
	Name     string
	Compiled *Compiled
	Err      *Error
}

// NewPolicyCompiler starts the compilation of one policy.
func NewPolicyCompiler(hasParams bool) (*PolicyCompiler, error) {
	base, err := BaseEnvironment()
	if err != nil {
		return nil, err
	}
	req := NewDeclTypesVerbatim(base.CELTypeProvider(), requestTypeName, admissionRequestSchema)
	opts := []cel.EnvOption{
		cel.CustomTypeProvider(req),
		cel.Variable(ObjectVarName, cel.DynType),
		cel.Variable(OldObjectVarName, cel.DynType),
		cel.Variable(RequestVarName, req.Root()),
		cel.Variable(NamespaceVarName, cel.DynType),
	}
	if hasParams {
		opts = append(opts, cel.Variable(ParamsVarName, cel.DynType))
	}
	plain, err := base.Extend(opts...)
	if err != nil {
		return nil, err
	}
	vt := &variableTypes{base: req, fields: map[string]*types.FieldType{}}
	env, err := plain.Extend(cel.CustomTypeProvider(vt), cel.Variable(VariablesVarName, cel.ObjectType(variablesTypeName)))
	if err != nil {
		return nil, err
	}
	return &PolicyCompiler{hasParams: hasParams, vars: vt, env: env, plain: plain}, nil
}

// CompileVariable compiles one variable and declares it for what follows.
// A variable that does not compile is declared dyn.
func (c *PolicyCompiler) CompileVariable(name, expr string) (*Compiled, *Error) {
	compiled, err := Compile(c.env, expr, "")
	t := cel.DynType
	if err == nil {
		t = compiled.AST.OutputType()
	}
	if len(c.vars.fields) < maxPolicyVariableCount {
		c.vars.fields[name] = &types.FieldType{Type: t}
	}
	c.Variables = append(c.Variables, CompiledVariable{Name: name, Compiled: compiled, Err: err})
	return compiled, err
}

// CompileExpression compiles a validation (bool), messageExpression
// (string) or auditAnnotation valueExpression (string or null): upstream's
// CompileCELExpression with its return type check.
func (c *PolicyCompiler) CompileExpression(expr string, returnTypes ...*cel.Type) (*Compiled, *Error) {
	return compileReturning(c.env, expr, returnTypes)
}

// CompileMatchCondition compiles a policy's match condition (bool),
// without variables.
func (c *PolicyCompiler) CompileMatchCondition(expr string) (*Compiled, *Error) {
	return compileReturning(c.plain, expr, []*cel.Type{cel.BoolType})
}

func compileReturning(env *cel.Env, expr string, returnTypes []*cel.Type) (*Compiled, *Error) {
	compiled, err := Compile(env, expr, "")
	if err != nil {
		return nil, err
	}
	out := compiled.AST.OutputType()
	for _, t := range returnTypes {
		if out.IsExactType(t) || t == cel.AnyType {
			return compiled, nil
		}
	}
	if len(returnTypes) == 1 {
		return nil, &Error{Type: ErrorTypeInvalid, Detail: fmt.Sprintf("must evaluate to %v but got %v", returnTypes[0].String(), out.String())}
	}
	return nil, &Error{Type: ErrorTypeInvalid, Detail: fmt.Sprintf("must evaluate to one of %v but got %v", returnTypes, out.String())}
}

// variableTypes declares the object type of `variables`: one field per
// compiled variable, of its output type.
type variableTypes struct {
	base   types.Provider
	fields map[string]*types.FieldType
}

func (v *variableTypes) EnumValue(name string) ref.Val         { return v.base.EnumValue(name) }
func (v *variableTypes) FindIdent(name string) (ref.Val, bool) { return v.base.FindIdent(name) }
func (v *variableTypes) FindStructType(t string) (*types.Type, bool) {
	if t == variablesTypeName {
		return types.NewTypeTypeWithParam(types.NewObjectType(t)), true
	}
	return v.base.FindStructType(t)
}
func (v *variableTypes) FindStructFieldNames(t string) ([]string, bool) {
	if t == variablesTypeName {
		names := make([]string, 0, len(v.fields))
		for n := range v.fields {
			names = append(names, n)
		}
		sort.Strings(names)
		return names, true
	}
	return v.base.FindStructFieldNames(t)
}
func (v *variableTypes) FindStructFieldType(t, field string) (*types.FieldType, bool) {
	if t == variablesTypeName {
		f, ok := v.fields[field]
		return f, ok
	}
	return v.base.FindStructFieldType(t, field)
}
func (v *variableTypes) NewValue(t string, fields map[string]ref.Val) ref.Val {
	return v.base.NewValue(t, fields)
}

// LazyVariables is the runtime value of `variables`: each variable is
// evaluated the first time an expression reads it, with the activation
// of the request, and its cost is counted (upstream's compositionContext
// over lazy.MapValue).
type LazyVariables struct {
	mu         sync.Mutex
	byName     map[string]*CompiledVariable
	values     map[string]ref.Val
	activation map[string]any
	cost       int64
}

// NewLazyVariables makes the `variables` value over activation; the
// caller puts it into activation under VariablesVarName.
func NewLazyVariables(vars []CompiledVariable, activation map[string]any) *LazyVariables {
	l := &LazyVariables{byName: map[string]*CompiledVariable{}, values: map[string]ref.Val{}, activation: activation}
	for i := range vars {
		l.byName[vars[i].Name] = &vars[i]
	}
	return l
}

// TakeCost returns the cost of the variables evaluated since the last call.
func (l *LazyVariables) TakeCost() int64 {
	l.mu.Lock()
	defer l.mu.Unlock()
	c := l.cost
	l.cost = 0
	return c
}

func (l *LazyVariables) get(name string) (ref.Val, bool) {
	l.mu.Lock()
	if v, ok := l.values[name]; ok {
		l.mu.Unlock()
		return v, true
	}
	cv, ok := l.byName[name]
	l.mu.Unlock()
	if !ok {
		return nil, false
	}
	var v ref.Val
	if cv.Err != nil || cv.Compiled == nil {
		v = types.NewErr("composited variable %q fails to compile: %v", name, cv.Err)
	} else {
		out, details, err := cv.Compiled.Program.Eval(l.activation)
		var cost int64
		if details != nil && details.ActualCost() != nil {
			c := *details.ActualCost()
			cost = math.MaxInt64
			if c < math.MaxInt64 {
				cost = int64(c)
			}
		}
		l.mu.Lock()
		l.cost += cost
		l.mu.Unlock()
		if err != nil {
			v = types.NewErr("composited variable %q fails to evaluate: %v", name, err)
		} else {
			v = out
		}
	}
	l.mu.Lock()
	l.values[name] = v
	l.mu.Unlock()
	return v, true
}

var _ traits.Mapper = (*LazyVariables)(nil)

func (l *LazyVariables) ConvertToNative(reflect.Type) (any, error) {
	return nil, fmt.Errorf("variables cannot be converted")
}
func (l *LazyVariables) ConvertToType(t ref.Type) ref.Val {
	if t == types.TypeType {
		return types.NewObjectType(variablesTypeName)
	}
	return types.NewErr("variables cannot be converted to %v", t)
}
func (l *LazyVariables) Equal(other ref.Val) ref.Val {
	o, ok := other.(*LazyVariables)
	return types.Bool(ok && o == l)
}
func (l *LazyVariables) Type() ref.Type { return types.NewObjectType(variablesTypeName) }
func (l *LazyVariables) Value() any     { return l }
func (l *LazyVariables) Contains(key ref.Val) ref.Val {
	_, ok := l.Find(key)
	return types.Bool(ok)
}
func (l *LazyVariables) Get(key ref.Val) ref.Val {
	v, ok := l.Find(key)
	if !ok {
		return types.NewErr("no such key: %v", key)
	}
	return v
}
func (l *LazyVariables) Find(key ref.Val) (ref.Val, bool) {
	s, ok := key.(types.String)
	if !ok {
		return nil, false
	}
	return l.get(string(s))
}
func (l *LazyVariables) Iterator() traits.Iterator {
	names := make([]string, 0, len(l.byName))
	for n := range l.byName {
		names = append(names, n)
	}
	sort.Strings(names)
	return types.NewStringList(types.DefaultTypeAdapter, names).(traits.Lister).Iterator()
}
func (l *LazyVariables) Size() ref.Val { return types.Int(len(l.byName)) }

// NewTypeCheckingCompiler is NewPolicyCompiler with object and oldObject
// typed from the schema of one matched kind and params from the schema
// of the paramKind (dyn where a schema is nil), as upstream's type
// checker declares them. Its expressions are checked, not run.
func NewTypeCheckingCompiler(hasParams bool, objectName string, object Schema, paramsName string, params Schema) (*PolicyCompiler, error) {
	base, err := BaseEnvironment()
	if err != nil {
		return nil, err
	}
	req := NewDeclTypesVerbatim(base.CELTypeProvider(), requestTypeName, admissionRequestSchema)
	var provider types.Provider = req
	objectType, paramsType := cel.DynType, cel.DynType
	if object != nil {
		d := NewDeclTypes(provider, objectName, object)
		provider, objectType = d, d.Root()
	}
	if hasParams && params != nil {
		d := NewDeclTypes(provider, paramsName, params)
		provider, paramsType = d, d.Root()
	}
	opts := []cel.EnvOption{
		cel.CustomTypeProvider(provider),
		cel.Variable(ObjectVarName, objectType),
		cel.Variable(OldObjectVarName, objectType),
		cel.Variable(RequestVarName, req.Root()),
		cel.Variable(NamespaceVarName, cel.DynType),
	}
	if hasParams {
		opts = append(opts, cel.Variable(ParamsVarName, paramsType))
	}
	plain, err := base.Extend(opts...)
	if err != nil {
		return nil, err
	}
	vt := &variableTypes{base: provider, fields: map[string]*types.FieldType{}}
	env, err := plain.Extend(cel.CustomTypeProvider(vt), cel.Variable(VariablesVarName, cel.ObjectType(variablesTypeName)))
	if err != nil {
		return nil, err
	}
	return &PolicyCompiler{hasParams: hasParams, vars: vt, env: env, plain: plain}, nil
}

// Check type-checks an expression in the compiler's environment: the
// issues of cel-go ("ERROR: <input>:1:8: undefined field 'x'\n | ...") or
// "" when it checks.
func (c *PolicyCompiler) Check(expr string) string {
	_, issues := c.env.Compile(expr)
	if issues != nil && issues.Err() != nil {
		return issues.String()
	}
	return ""
}

// requestTypeName names the type of request, as upstream's BuildRequestType.
const requestTypeName = "kubernetes.AdmissionRequest"

// admissionRequestSchema is the schema of request: upstream's
// BuildRequestType (the AdmissionRequest without uid, object and oldObject).
var admissionRequestSchema = func() *literalSchema {
	str := &literalSchema{typ: "string"}
	strings := &literalSchema{typ: "array", items: str}
	gvk := &literalSchema{typ: "object", props: map[string]*literalSchema{"group": str, "version": str, "kind": str}}
	gvr := &literalSchema{typ: "object", props: map[string]*literalSchema{"group": str, "version": str, "resource": str}}
	return &literalSchema{typ: "object", props: map[string]*literalSchema{
		"kind": gvk, "resource": gvr, "subResource": str,
		"requestKind": gvk, "requestResource": gvr, "requestSubResource": str,
		"name": str, "namespace": str, "operation": str,
		"userInfo": {typ: "object", props: map[string]*literalSchema{
			"username": str, "uid": str, "groups": strings,
			"extra": {typ: "object", addl: strings}}},
		"dryRun":  {typ: "boolean"},
		"options": {},
	}}
}()

// literalSchema is a schema written in Go.
type literalSchema struct {
	typ         string
	props       map[string]*literalSchema
	items, addl *literalSchema
}

func (l *literalSchema) Type() string   { return l.typ }
func (l *literalSchema) Format() string { return "" }
func (l *literalSchema) Items() Schema {
	if l.items == nil {
		return nil
	}
	return l.items
}
func (l *literalSchema) Properties() map[string]Schema {
	if len(l.props) == 0 {
		return nil
	}
	out := make(map[string]Schema, len(l.props))
	for k, v := range l.props {
		out[k] = v
	}
	return out
}
func (l *literalSchema) AdditionalProperties() Schema {
	if l.addl == nil {
		return nil
	}
	return l.addl
}
func (l *literalSchema) IsXIntOrString() bool           { return false }
func (l *literalSchema) IsXEmbeddedResource() bool      { return false }
func (l *literalSchema) IsXPreserveUnknownFields() bool { return false }
func (l *literalSchema) Nullable() bool                 { return false }
func (l *literalSchema) MaxLength() *int64              { return nil }
func (l *literalSchema) MaxItems() *int64               { return nil }
func (l *literalSchema) MaxProperties() *int64          { return nil }
