package policy

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"strings"

	"github.com/google/cel-go/common/types"

	"kubik/ch01-apiserver/api/admissionregistrationv1"
	"kubik/ch01-apiserver/api/admissionv1"
	"kubik/ch01-apiserver/api/metav1"
	"kubik/ch01-apiserver/apiserver/cel"
	"kubik/ch01-apiserver/apiserver/selection"
	"kubik/ch01-apiserver/apiserver/webhook"
)

// Hooks connect the plugin to the apiserver.
type Hooks struct {
	// Namespace returns a namespace as JSON (an apiserver error, e.g. its
	// 404, when it cannot).
	Namespace func(ctx context.Context, name string) ([]byte, error)
	// Params finds the objects of a paramKind: the one named name (when
	// set) or those selector matches, in namespace (when the kind is
	// namespaced). Found is false when no served resource has the kind.
	Params func(ctx context.Context, apiVersion, kind, namespace, name string, selector *metav1.LabelSelector) (ParamObjects, error)
	// Warn passes a warning on to the client (a Warning header).
	Warn func(ctx context.Context, text string)
	// Annotate records an audit annotation.
	Annotate func(ctx context.Context, key, value string)
}

// ParamObjects is what Hooks.Params found.
type ParamObjects struct {
	Known      bool // a served resource has the kind
	Namespaced bool
	Objects    [][]byte // JSON
}

// StatusError is a refusal with its Status.
type StatusError struct {
	Status metav1.Status
}

func (e *StatusError) Error() string { return e.Status.Message }

// Dispatcher evaluates the policies of a Source.
type Dispatcher struct {
	source *Source
	hooks  Hooks
	log    *slog.Logger
}

// NewDispatcher evaluates the policies source holds.
func NewDispatcher(source *Source, hooks Hooks, log *slog.Logger) *Dispatcher {
	return &Dispatcher{source: source, hooks: hooks, log: log}
}

// decision is a failed validation or a configuration error.
type decision struct {
	policy  string
	binding string // "" for a policy's own configuration error
	message string
	reason  string
}

// The audit annotation of a failed validation with the Audit action.
const validationFailureAnnotation = "validation.policy.admission.k8s.io/validation_failure"

// maxAuditAnnotationValueLength bounds a published audit annotation.
const maxAuditAnnotationValueLength = 10 * 1024

// maxEvaluatedMessageExpressionSize bounds a messageExpression's result.
const maxEvaluatedMessageExpressionSize = 5 * 1024

// Validate evaluates every bound policy that matches the request
// (upstream's validating dispatcher). The first denial refuses the
// request with a 422 (or the code of the validation's reason).
func (d *Dispatcher) Validate(ctx context.Context, a *webhook.Attributes) error {
	if webhook.IsExempt(a) {
		return nil
	}
	hooks := d.source.current()
	if len(hooks) == 0 {
		return nil
	}
	var denied []decision
	addConfigError := func(p *compiledPolicy, binding string, err error) {
		if p.failurePolicy == admissionregistrationv1.Ignore {
			return
		}
		msg := "failed to configure policy: " + err.Error()
		if binding != "" {
			msg = "failed to configure binding: " + err.Error()
		}
		denied = append(denied, decision{policy: p.policy.Name, binding: binding, message: msg})
	}
	var req any
	var object, oldObject any
	var prepared bool
	namespaces := map[string]any{}
	for _, h := range hooks {
		p := h.policy
		matches, matchErr := d.matches(ctx, p.policy.Spec.MatchConstraints, a, true)
		if matchErr != nil {
			addConfigError(p, "", matchErr)
			continue
		}
		if !matches {
			continue
		}
		if p.configError != nil {
			addConfigError(p, "", p.configError)
			continue
		}
		if err := d.paramKindKnown(ctx, p.policy.Spec.ParamKind); err != nil {
			addConfigError(p, "", err)
			continue
		}
		for _, b := range h.bindings {
			if mr := b.Spec.MatchResources; mr != nil {
				ok, err := d.matches(ctx, mr, a, false)
				if err != nil {
					addConfigError(p, b.Name, err)
					continue
				}
				if !ok {
					continue
				}
			}
			params, err := d.collectParams(ctx, p.policy.Spec.ParamKind, b.Spec.ParamRef, a.Namespace)
			if err != nil {
				addConfigError(p, b.Name, err)
				continue
			}
			if !prepared {
				prepared = true
				if object, err = decodeJSON(a.Object); err == nil {
					oldObject, err = decodeJSON(a.OldObject)
				}
				if err == nil {
					req, err = requestValue(a)
				}
				if err != nil {
					return &StatusError{Status: internalError(err)}
				}
			}
			nsName := a.Namespace
			if a.Kind.Group == "" && a.Kind.Version == "v1" && a.Kind.Kind == "Namespace" {
				nsName = ""
			}
			var ns any
			if nsName != "" {
				if v, ok := namespaces[nsName]; ok {
					ns = v
				} else {
					if ns, err = d.namespaceObject(ctx, nsName); err != nil {
						return err
					}
					namespaces[nsName] = ns
				}
			}
			for _, param := range params {
				activation := map[string]any{
					cel.ObjectVarName: object, cel.OldObjectVarName: oldObject,
					cel.RequestVarName: req, cel.NamespaceVarName: ns,
				}
				if p.policy.Spec.ParamKind != nil {
					activation[cel.ParamsVarName] = param
				}
				result := validate(p, activation)
				for i, dec := range result.decisions {
					if !dec.deny {
						continue
					}
					for _, action := range b.Spec.ValidationActions {
						switch action {
						case admissionregistrationv1.Deny:
							denied = append(denied, decision{policy: p.policy.Name, binding: b.Name, message: dec.message, reason: dec.reason})
						case admissionregistrationv1.Warn:
							if d.hooks.Warn != nil {
								d.hooks.Warn(ctx, fmt.Sprintf("Validation failed for ValidatingAdmissionPolicy '%s' with binding '%s': %s", p.policy.Name, b.Name, dec.message))
							}
						case admissionregistrationv1.Audit:
							d.annotateFailure(ctx, b, i, dec.message)
						}
					}
				}
				for _, ann := range result.annotations {
					if ann.err != "" {
						denied = append(denied, decision{policy: p.policy.Name, binding: b.Name, message: ann.err})
						continue
					}
					if d.hooks.Annotate != nil {
						value := ann.value
						if len(value) > maxAuditAnnotationValueLength {
							value = value[:maxAuditAnnotationValueLength]
						}
						d.hooks.Annotate(ctx, p.policy.Name+"/"+ann.key, value)
					}
				}
			}
		}
	}
	if len(denied) == 0 {
		return nil
	}
	return deniedError(a, denied[0])
}

// annotateFailure records a failed validation for the audit log, as
// upstream's publishValidationFailureAnnotation.
func (d *Dispatcher) annotateFailure(ctx context.Context, b *admissionregistrationv1.ValidatingAdmissionPolicyBinding, index int, message string) {
	if d.hooks.Annotate == nil {
		return
	}
	value, _ := json.Marshal([]map[string]any{{
		"message":           message,
		"policy":            b.Spec.PolicyName,
		"binding":           b.Name,
		"expressionIndex":   index,
		"validationActions": b.Spec.ValidationActions,
	}})
	d.hooks.Annotate(ctx, validationFailureAnnotation, string(value))
}

// deniedError is upstream's refusal: admission.NewForbidden for the
// request's resource and name, with the validation's reason (Invalid by
// default) and its code, the message repeated as a cause.
func deniedError(a *webhook.Attributes, d decision) error {
	var message string
	if d.binding != "" {
		message = fmt.Sprintf("ValidatingAdmissionPolicy '%s' with binding '%s' denied request: %s", d.policy, d.binding, d.message)
	} else {
		message = fmt.Sprintf("ValidatingAdmissionPolicy '%s' denied request: %s", d.policy, d.message)
	}
	reason := d.reason
	if reason == "" {
		reason = metav1.StatusReasonInvalid
	}
	resource := a.Resource.Resource
	if a.Resource.Group != "" {
		resource += "." + a.Resource.Group
	}
	name := a.Name
	if name == "" && a.Object != nil {
		var head struct {
			Metadata struct {
				Name string `json:"name"`
			} `json:"metadata"`
		}
		_ = json.Unmarshal(a.Object, &head)
		name = head.Metadata.Name
	}
	full := fmt.Sprintf("%s is forbidden: %s", resource, message)
	if name != "" {
		full = fmt.Sprintf("%s %q is forbidden: %s", resource, name, message)
	}
	return &StatusError{Status: metav1.Status{
		TypeMeta: metav1.TypeMeta{Kind: "Status", APIVersion: "v1"},
		Status:   metav1.StatusFailure, Message: full, Reason: reason, Code: reasonToCode(reason),
		Details: &metav1.StatusDetails{Name: name, Group: a.Resource.Group, Kind: a.Resource.Resource,
			Causes: []metav1.StatusCause{{Message: message}}},
	}}
}

// reasonToCode is upstream's: the reasons a validation may give.
func reasonToCode(r string) int32 {
	switch r {
	case metav1.StatusReasonForbidden:
		return http.StatusForbidden
	case metav1.StatusReasonUnauthorized:
		return http.StatusUnauthorized
	case metav1.StatusReasonRequestEntityTooLarge:
		return http.StatusRequestEntityTooLarge
	case metav1.StatusReasonInvalid:
		return http.StatusUnprocessableEntity
	}
	return http.StatusUnprocessableEntity
}

func internalError(err error) metav1.Status {
	return metav1.Status{
		TypeMeta: metav1.TypeMeta{Kind: "Status", APIVersion: "v1"},
		Status:   metav1.StatusFailure, Code: http.StatusInternalServerError, Reason: metav1.StatusReasonInternalError,
		Message: fmt.Sprintf("Internal error occurred: %v", err),
		Details: &metav1.StatusDetails{Causes: []metav1.StatusCause{{Type: "UnexpectedServerResponse", Message: err.Error()}}},
	}
}

// matches is upstream's matching.Matcher.Matches over a policy's
// matchConstraints (requireRules: a policy's rules are required; a
// binding without resourceRules matches every resource).
func (d *Dispatcher) matches(ctx context.Context, m *admissionregistrationv1.MatchResources, a *webhook.Attributes, requireRules bool) (bool, error) {
	if m == nil {
		if requireRules {
			return false, errors.New("policy contained no match constraints, a required field")
		}
		return true, nil
	}
	if m.NamespaceSelector == nil {
		return false, errors.New("a nil namespaceSelector was passed")
	}
	if m.ObjectSelector == nil {
		return false, errors.New("a nil objectSelector was passed")
	}
	nsOK, nsErr := d.matchNamespace(ctx, m.NamespaceSelector, a)
	if !nsOK && nsErr == nil {
		return false, nil
	}
	if !matchObject(m.ObjectSelector, a) {
		return false, nil
	}
	if matchNamedRules(m.ExcludeResourceRules, m.MatchPolicy, a) {
		return false, nil
	}
	if len(m.ResourceRules) > 0 && !matchNamedRules(m.ResourceRules, m.MatchPolicy, a) {
		return false, nil
	}
	if nsErr != nil {
		return false, nsErr
	}
	return true, nil
}

func matchNamedRules(rules []admissionregistrationv1.NamedRuleWithOperations, mp *admissionregistrationv1.MatchPolicyType, a *webhook.Attributes) bool {
	try := func(gvr admissionv1.GroupVersionResource) bool {
		for _, r := range rules {
			if !webhook.MatchRules([]admissionregistrationv1.RuleWithOperations{r.RuleWithOperations}, a, gvr) {
				continue
			}
			if len(r.ResourceNames) == 0 {
				return true
			}
			for _, n := range r.ResourceNames {
				if n == a.Name {
					return true
				}
			}
		}
		return false
	}
	if try(a.Resource) {
		return true
	}
	if mp == nil || *mp == admissionregistrationv1.Exact {
		return false
	}
	for _, eq := range a.Equivalent {
		if try(eq) {
			return true
		}
	}
	return false
}

// matchNamespace is upstream's namespace.Matcher: cluster-scoped objects
// always match; a namespace being created or updated is matched by its
// own labels; any other object by its namespace's.
func (d *Dispatcher) matchNamespace(ctx context.Context, ps *metav1.LabelSelector, a *webhook.Attributes) (bool, error) {
	isNamespace := a.Resource.Group == "" && a.Resource.Resource == "namespaces"
	if a.Namespace == "" && !isNamespace {
		return true, nil
	}
	sel, err := selection.FromLabelSelector(ps)
	if err != nil {
		return false, err
	}
	if sel.Empty() {
		return true, nil
	}
	if isNamespace && a.Subresource == "" && (a.Operation == admissionv1.Create || a.Operation == admissionv1.Update) {
		return sel.Matches(webhook.LabelsOf(a.Object)), nil
	}
	if d.hooks.Namespace == nil {
		return false, nil
	}
	data, err := d.hooks.Namespace(ctx, a.Namespace)
	if err != nil {
		return false, err
	}
	return sel.Matches(webhook.LabelsOf(data)), nil
}

// matchObject is upstream's object.Matcher: the new or the old object's labels match.
func matchObject(ps *metav1.LabelSelector, a *webhook.Attributes) bool {
	sel, err := selection.FromLabelSelector(ps)
	if err != nil {
		return false
	}
	if sel.Empty() {
		return true
	}
	return (a.Object != nil && sel.Matches(webhook.LabelsOf(a.Object))) ||
		(a.OldObject != nil && sel.Matches(webhook.LabelsOf(a.OldObject)))
}

// paramKindKnown is the policy's configuration error upstream's policy
// source reports when no served resource has the paramKind.
func (d *Dispatcher) paramKindKnown(ctx context.Context, kind *admissionregistrationv1.ParamKind) error {
	if kind == nil || d.hooks.Params == nil {
		return nil
	}
	probe, err := d.hooks.Params(ctx, kind.APIVersion, kind.Kind, "", "", nil)
	if err != nil {
		return err
	}
	if !probe.Known {
		return fmt.Errorf("failed to find resource referenced by paramKind: '%s'", gvkString(kind))
	}
	return nil
}

// collectParams is upstream's CollectParams: the params of a binding,
// [nil] when the policy or the binding uses none.
func (d *Dispatcher) collectParams(ctx context.Context, kind *admissionregistrationv1.ParamKind, ref *admissionregistrationv1.ParamRef, namespace string) ([]any, error) {
	if kind == nil || ref == nil {
		return []any{nil}, nil
	}
	if d.hooks.Params == nil {
		return nil, fmt.Errorf("paramKind kind `%s` not known", paramKindString(kind))
	}
	probe, err := d.hooks.Params(ctx, kind.APIVersion, kind.Kind, "", "", nil)
	if err != nil {
		return nil, err
	}
	if !probe.Known {
		return nil, fmt.Errorf("failed to find resource referenced by paramKind: '%s'", gvkString(kind))
	}
	ns := ""
	if probe.Namespaced {
		ns = namespace
		if ref.Namespace != "" {
			ns = ref.Namespace
		} else if ns == "" {
			return nil, errors.New("cannot use namespaced paramRef in policy binding that matches cluster-scoped resources")
		}
	} else if ref.Namespace != "" {
		return nil, errors.New("paramRef.namespace must not be provided for a cluster-scoped `paramKind`")
	}
	var found ParamObjects
	switch {
	case ref.Name != "":
		if ref.Selector != nil {
			return nil, errors.New("paramRef.name and paramRef.selector are mutually exclusive")
		}
		found, err = d.hooks.Params(ctx, kind.APIVersion, kind.Kind, ns, ref.Name, nil)
	case ref.Selector != nil:
		found, err = d.hooks.Params(ctx, kind.APIVersion, kind.Kind, ns, "", ref.Selector)
	default:
		return nil, errors.New("one of name or selector must be provided")
	}
	if err != nil {
		return nil, err
	}
	var params []any
	for _, o := range found.Objects {
		v, err := decodeJSON(o)
		if err != nil {
			return nil, err
		}
		params = append(params, v)
	}
	if len(params) == 0 && ref.ParameterNotFoundAction != nil && *ref.ParameterNotFoundAction == admissionregistrationv1.DenyAction {
		return nil, errors.New("no params found for policy binding with `Deny` parameterNotFoundAction")
	}
	return params, nil
}

// paramKindString is the generated String() of upstream's ParamKind.
func paramKindString(k *admissionregistrationv1.ParamKind) string {
	return "&ParamKind{APIVersion:" + k.APIVersion + ",Kind:" + k.Kind + ",}"
}

// gvkString is upstream's schema.GroupVersionKind.String.
func gvkString(k *admissionregistrationv1.ParamKind) string {
	group, version, ok := strings.Cut(k.APIVersion, "/")
	if !ok {
		group, version = "", k.APIVersion
	}
	return group + "/" + version + ", Kind=" + k.Kind
}

// namespaceObject is upstream's CreateNamespaceObject: the namespace's
// metadata (without managedFields and ownerReferences), spec and status.
func (d *Dispatcher) namespaceObject(ctx context.Context, name string) (any, error) {
	if d.hooks.Namespace == nil {
		return nil, nil
	}
	data, err := d.hooks.Namespace(ctx, name)
	if err != nil {
		return nil, err
	}
	v, err := decodeJSON(data)
	if err != nil {
		return nil, err
	}
	ns, _ := v.(map[string]any)
	out := map[string]any{}
	if meta, ok := ns["metadata"].(map[string]any); ok {
		kept := map[string]any{}
		for _, k := range []string{"name", "generateName", "namespace", "uid", "resourceVersion", "generation",
			"creationTimestamp", "deletionTimestamp", "deletionGracePeriodSeconds", "labels", "annotations", "finalizers"} {
			if x, ok := meta[k]; ok {
				kept[k] = x
			}
		}
		out["metadata"] = kept
	}
	for _, k := range []string{"spec", "status"} {
		if x, ok := ns[k]; ok {
			out[k] = x
		}
	}
	return out, nil
}

func decodeJSON(b []byte) (any, error) {
	if len(b) == 0 {
		return nil, nil
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, err
	}
	return cel.NativeValue(v, nil), nil
}

// requestValue is upstream's CreateAdmissionRequest: the AdmissionRequest
// without object and oldObject, as JSON has it (empty optional fields such
// as subResource are absent, so request.subResource is an error there,
// as upstream).
func requestValue(a *webhook.Attributes) (any, error) {
	dryRun := a.DryRun
	req := admissionv1.AdmissionRequest{
		Kind: a.Kind, Resource: a.Resource, SubResource: a.Subresource,
		RequestKind:        &admissionv1.GroupVersionKind{Group: a.Kind.Group, Version: a.Kind.Version, Kind: a.Kind.Kind},
		RequestResource:    &admissionv1.GroupVersionResource{Group: a.Resource.Group, Version: a.Resource.Version, Resource: a.Resource.Resource},
		RequestSubResource: a.Subresource,
		Name:               a.Name, Namespace: a.Namespace, Operation: a.Operation, UserInfo: a.UserInfo,
		DryRun: &dryRun, Options: a.Options,
	}
	data, err := json.Marshal(req)
	if err != nil {
		return nil, err
	}
	v, err := decodeJSON(data)
	if err != nil {
		return nil, err
	}
	if m, ok := v.(map[string]any); ok {
		delete(m, "object")
		delete(m, "oldObject")
		delete(m, "uid")
	}
	return v, nil
}

// validation results of one evaluation.
type validateResult struct {
	decisions   []validationDecision
	annotations []annotationResult
}

type validationDecision struct {
	deny    bool
	message string
	reason  string
}

type annotationResult struct {
	key, value string
	err        string // a failed valueExpression with failurePolicy Fail
}

// validate is upstream's validator.Validate for one param.
func validate(p *compiledPolicy, activation map[string]any) validateResult {
	vars := cel.NewLazyVariables(p.variables, activation)
	activation[cel.VariablesVarName] = vars
	e := &evaluator{activation: activation, vars: vars, budget: cel.RuntimeCELCostBudget}
	failDecision := func(msg string) validateResult {
		if p.failurePolicy == admissionregistrationv1.Ignore {
			return validateResult{}
		}
		return validateResult{decisions: []validationDecision{{deny: true, message: msg}}}
	}
	if len(p.matchConditions) > 0 {
		var errs []string
		for i := range p.matchConditions {
			r, err := e.eval(&p.matchConditions[i])
			if err != nil {
				return failDecision(err.Error())
			}
			if r.err != nil {
				errs = append(errs, r.err.Error())
				continue
			}
			if r.value == types.False {
				return validateResult{}
			}
		}
		switch {
		case len(errs) == 1:
			return failDecision(errs[0])
		case len(errs) > 1:
			return failDecision("[" + strings.Join(errs, ", ") + "]")
		}
	}
	var out validateResult
	results := make([]evalResult, len(p.validations))
	for i := range p.validations {
		r, err := e.eval(&p.validations[i].compiled)
		if err != nil {
			return failDecision(err.Error())
		}
		results[i] = r
	}
	// messageExpressions run under what the validations left of the budget.
	for i, v := range p.validations {
		r := results[i]
		switch {
		case r.err != nil:
			if p.failurePolicy != admissionregistrationv1.Ignore {
				out.decisions = append(out.decisions, validationDecision{deny: true, message: r.err.Error()})
			} else {
				out.decisions = append(out.decisions, validationDecision{})
			}
		case r.value != types.True:
			reason := metav1.StatusReasonInvalid
			if v.validation.Reason != nil {
				reason = *v.validation.Reason
			}
			message := ""
			if v.message != nil {
				mr, err := e.eval(v.message)
				if err != nil {
					if p.failurePolicy != admissionregistrationv1.Ignore {
						out.decisions = append(out.decisions, validationDecision{deny: true, message: "failed messageExpression: " + err.Error()})
					} else {
						out.decisions = append(out.decisions, validationDecision{})
					}
					continue
				}
				if mr.err == nil && mr.value != nil {
					if s, ok := mr.value.Value().(string); ok {
						message = strings.TrimSpace(s)
						if len(message) > maxEvaluatedMessageExpressionSize || strings.Contains(message, "\n") {
							message = ""
						}
					}
				}
			}
			if message == "" {
				message = strings.TrimSpace(v.validation.Message)
			}
			if message == "" {
				message = fmt.Sprintf("failed expression: %v", strings.TrimSpace(v.validation.Expression))
			}
			out.decisions = append(out.decisions, validationDecision{deny: true, message: message, reason: reason})
		default:
			out.decisions = append(out.decisions, validationDecision{})
		}
	}
	// Audit annotations have a budget of their own, as upstream.
	e.budget = cel.RuntimeCELCostBudget
	for i := range p.auditAnnotations {
		x := &p.auditAnnotations[i]
		r, err := e.eval(x)
		if err != nil {
			return failDecision(err.Error())
		}
		switch {
		case r.err != nil:
			if p.failurePolicy != admissionregistrationv1.Ignore {
				out.annotations = append(out.annotations, annotationResult{key: x.name, err: r.err.Error()})
			}
		case r.value.Type() == types.StringType:
			if s := strings.TrimSpace(r.value.Value().(string)); s != "" {
				out.annotations = append(out.annotations, annotationResult{key: x.name, value: s})
			}
		case r.value.Type() == types.NullType:
		default:
			out.annotations = append(out.annotations, annotationResult{key: x.name, err: fmt.Sprintf("valueExpression '%v' resulted in unsupported return type: %v. "+
				"Return type must be either string or null.", x.expression, r.value.Type())})
		}
	}
	return out
}
