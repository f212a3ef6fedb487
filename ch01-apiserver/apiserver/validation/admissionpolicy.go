package validation

import (
	"fmt"
	"regexp"
	"strings"

	"kubik/ch01-apiserver/api/admissionregistrationv1"
	"kubik/ch01-apiserver/apiserver/cel"
	"kubik/ch01-apiserver/apiserver/validation/field"

	celgo "github.com/google/cel-go/cel"
)

// ValidatingAdmissionPolicies and their bindings: upstream's
// ValidateValidatingAdmissionPolicy and ValidateValidatingAdmissionPolicyBinding
// (pkg/apis/admissionregistration/validation), with their messages. Every
// expression is compiled as the admission plugin compiles it
// (cel.PolicyCompiler), so a policy that is stored compiles.

var (
	supportedValidationActions      = []string{"Audit", "Deny", "Warn"}
	supportedValidationPolicyReason = []string{"Forbidden", "Invalid", "RequestEntityTooLarge"}
	supportedParameterNotFound      = []string{"Deny", "Allow"}
	celIdentifier                   = regexp.MustCompile("^[_a-zA-Z][_a-zA-Z0-9]*$")
	celReserved                     = map[string]bool{"true": true, "false": true, "null": true, "in": true,
		"as": true, "break": true, "const": true, "continue": true, "else": true,
		"for": true, "function": true, "if": true, "import": true, "let": true,
		"loop": true, "package": true, "namespace": true, "return": true,
		"var": true, "void": true, "while": true}
	newlines = regexp.MustCompile(`[\n\r]+`)
)

const (
	maxAuditAnnotations                     = 20
	maxAuditAnnotationValueExpressionLength = 5 * 1024
)

func validateValidatingAdmissionPolicy(p *admissionregistrationv1.ValidatingAdmissionPolicy) field.ErrorList {
	errs := ValidateObjectMeta(&p.ObjectMeta, false, NameIsDNSSubdomain, field.NewPath("metadata"))
	spec := &p.Spec
	sp := field.NewPath("spec")
	if spec.FailurePolicy == nil {
		errs = append(errs, field.Required(sp.Child("failurePolicy"), ""))
	} else if !contains(supportedFailurePolicies, string(*spec.FailurePolicy)) {
		errs = append(errs, field.NotSupported(sp.Child("failurePolicy"), *spec.FailurePolicy, supportedFailurePolicies))
	}
	if spec.ParamKind != nil {
		errs = append(errs, validateParamKind(spec.ParamKind, sp.Child("paramKind"))...)
	}
	if spec.MatchConstraints == nil {
		errs = append(errs, field.Required(sp.Child("matchConstraints"), ""))
	} else {
		errs = append(errs, validateMatchResources(spec.MatchConstraints, sp.Child("matchConstraints"))...)
		if len(spec.MatchConstraints.ResourceRules) == 0 {
			errs = append(errs, field.Required(sp.Child("matchConstraints", "resourceRules"), ""))
		}
	}
	compiler, err := cel.NewPolicyCompiler(spec.ParamKind != nil)
	if err != nil {
		return append(errs, field.InternalError(sp, err))
	}
	errs = append(errs, validatePolicyMatchConditions(compiler, spec.MatchConditions, sp.Child("matchConditions"))...)
	for i, v := range spec.Variables {
		vp := sp.Child("variables").Index(i)
		if strings.TrimSpace(v.Name) == "" {
			errs = append(errs, field.Required(vp.Child("name"), "name is not specified"))
		} else if !celIdentifier.MatchString(v.Name) || celReserved[v.Name] {
			errs = append(errs, field.Invalid(vp.Child("name"), v.Name, "must be a valid CEL identifier"))
		}
		if strings.TrimSpace(v.Expression) == "" {
			errs = append(errs, field.Required(vp.Child("expression"), "expression is not specified"))
		} else if _, cerr := compiler.CompileVariable(v.Name, v.Expression); cerr != nil {
			errs = append(errs, celFieldError(vp.Child("expression"), v.Expression, cerr))
		}
	}
	if len(spec.Validations) == 0 && len(spec.AuditAnnotations) == 0 {
		msg := "validations or auditAnnotations must contain at least one item"
		return append(errs, field.Required(sp.Child("validations"), msg), field.Required(sp.Child("auditAnnotations"), msg))
	}
	for i, v := range spec.Validations {
		errs = append(errs, validatePolicyValidation(compiler, &v, sp.Child("validations").Index(i))...)
	}
	if len(spec.AuditAnnotations) > maxAuditAnnotations {
		errs = append(errs, field.Invalid(sp.Child("auditAnnotations"), spec.AuditAnnotations, fmt.Sprintf("must not have more than %d auditAnnotations", maxAuditAnnotations)))
	}
	keys := map[string]bool{}
	for i, a := range spec.AuditAnnotations {
		ap := sp.Child("auditAnnotations").Index(i)
		if p.Name != "" {
			for _, msg := range IsQualifiedName(p.Name + "/" + a.Key) {
				errs = append(errs, field.Invalid(ap.Child("key"), p.Name+"/"+a.Key, msg))
			}
		} else {
			errs = append(errs, field.Invalid(ap.Child("key"), a.Key, "requires metadata.name be non-empty"))
		}
		value := strings.TrimSpace(a.ValueExpression)
		switch {
		case value == "":
			errs = append(errs, field.Required(ap.Child("valueExpression"), "valueExpression is not specified"))
		case len(value) > maxAuditAnnotationValueExpressionLength:
			errs = append(errs, field.Required(ap.Child("valueExpression"), fmt.Sprintf("must not exceed %d bytes in length", maxAuditAnnotationValueExpressionLength)))
		default:
			if _, cerr := compiler.CompileExpression(value, celgo.StringType, celgo.NullType); cerr != nil {
				errs = append(errs, celFieldError(ap.Child("valueExpression"), a.ValueExpression, cerr))
			}
		}
		if keys[a.Key] {
			errs = append(errs, field.Duplicate(ap.Child("key"), a.Key))
		}
		keys[a.Key] = true
	}
	return errs
}

func validatePolicyValidation(compiler *cel.PolicyCompiler, v *admissionregistrationv1.Validation, p *field.Path) field.ErrorList {
	var errs field.ErrorList
	if strings.TrimSpace(v.Expression) == "" {
		errs = append(errs, field.Required(p.Child("expression"), "expression is not specified"))
	} else if _, cerr := compiler.CompileExpression(v.Expression, celgo.BoolType); cerr != nil {
		errs = append(errs, celFieldError(p.Child("expression"), v.Expression, cerr))
	}
	if v.MessageExpression != "" && strings.TrimSpace(v.MessageExpression) == "" {
		errs = append(errs, field.Invalid(p.Child("messageExpression"), v.MessageExpression, "must be non-empty if specified"))
	} else if strings.TrimSpace(v.MessageExpression) != "" {
		if _, cerr := compiler.CompileExpression(v.MessageExpression, celgo.StringType); cerr != nil {
			errs = append(errs, celFieldError(p.Child("messageExpression"), v.MessageExpression, cerr))
		}
	}
	msg := strings.TrimSpace(v.Message)
	if v.Message != "" && msg == "" {
		errs = append(errs, field.Invalid(p.Child("message"), v.Message, "must be non-empty if specified"))
	} else if newlines.MatchString(msg) {
		errs = append(errs, field.Invalid(p.Child("message"), v.Message, "must not contain line breaks"))
	}
	if v.Reason != nil && !contains(supportedValidationPolicyReason, *v.Reason) {
		errs = append(errs, field.NotSupported(p.Child("reason"), *v.Reason, supportedValidationPolicyReason))
	}
	return errs
}

// validatePolicyMatchConditions is validateMatchConditions with the
// policy's environment (params when it has a paramKind).
func validatePolicyMatchConditions(compiler *cel.PolicyCompiler, conds []admissionregistrationv1.MatchCondition, p *field.Path) field.ErrorList {
	var errs field.ErrorList
	if len(conds) > maxMatchConditions {
		errs = append(errs, field.TooMany(p, len(conds), maxMatchConditions))
	}
	names := map[string]bool{}
	for i, c := range conds {
		cp := p.Index(i)
		expr := strings.TrimSpace(c.Expression)
		if expr == "" {
			errs = append(errs, field.Required(cp.Child("expression"), ""))
		} else if _, cerr := compiler.CompileMatchCondition(expr); cerr != nil {
			errs = append(errs, celFieldError(cp.Child("expression"), expr, cerr))
		}
		if c.Name == "" {
			errs = append(errs, field.Required(cp.Child("name"), ""))
		} else {
			for _, msg := range IsQualifiedName(c.Name) {
				errs = append(errs, field.Invalid(cp.Child("name"), c.Name, msg))
			}
			if names[c.Name] {
				errs = append(errs, field.Duplicate(cp.Child("name"), c.Name))
			}
			names[c.Name] = true
		}
	}
	return errs
}

// celFieldError is upstream's convertCELErrorToValidationError.
func celFieldError(p *field.Path, expr string, err *cel.Error) *field.Error {
	switch err.Type {
	case cel.ErrorTypeRequired:
		return field.Required(p, err.Detail)
	case cel.ErrorTypeInvalid:
		return field.Invalid(p, expr, err.Detail)
	}
	return field.InternalError(p, err)
}

func validateParamKind(k *admissionregistrationv1.ParamKind, p *field.Path) field.ErrorList {
	var errs field.ErrorList
	if k.APIVersion == "" {
		errs = append(errs, field.Required(p.Child("apiVersion"), ""))
	} else {
		group, version := "", k.APIVersion
		switch strings.Count(k.APIVersion, "/") {
		case 0:
		case 1:
			group, version, _ = strings.Cut(k.APIVersion, "/")
		default:
			errs = append(errs, field.Invalid(p.Child("apiVersion"), k.APIVersion, "unexpected GroupVersion string: "+k.APIVersion))
			group, version = "", "v"
		}
		if group != "" {
			if msgs := IsDNS1123Subdomain(group); len(msgs) > 0 {
				errs = append(errs, field.Invalid(p.Child("apiVersion"), group, strings.Join(msgs, ",")))
			}
		}
		if version == "" {
			errs = append(errs, field.Invalid(p.Child("apiVersion"), k.APIVersion, "version must be specified"))
		} else if msgs := IsDNS1035Label(version); len(msgs) > 0 {
			errs = append(errs, field.Invalid(p.Child("apiVersion"), version, strings.Join(msgs, ",")))
		}
	}
	if k.Kind == "" {
		errs = append(errs, field.Required(p.Child("kind"), ""))
	} else if msgs := IsDNS1035Label(strings.ToLower(k.Kind)); len(msgs) > 0 {
		errs = append(errs, field.Invalid(p.Child("kind"), k.Kind, "may have mixed case, but should otherwise match: "+strings.Join(msgs, ",")))
	}
	return errs
}

func validateMatchResources(m *admissionregistrationv1.MatchResources, p *field.Path) field.ErrorList {
	var errs field.ErrorList
	if m == nil {
		return nil
	}
	if m.MatchPolicy == nil {
		errs = append(errs, field.Required(p.Child("matchPolicy"), ""))
	} else if !contains(supportedMatchPolicies, string(*m.MatchPolicy)) {
		errs = append(errs, field.NotSupported(p.Child("matchPolicy"), *m.MatchPolicy, supportedMatchPolicies))
	}
	if m.NamespaceSelector == nil {
		errs = append(errs, field.Required(p.Child("namespaceSelector"), ""))
	} else {
		errs = append(errs, ValidateLabelSelector(m.NamespaceSelector, p.Child("namespaceSelector"))...)
	}
	if m.ObjectSelector == nil {
		errs = append(errs, field.Required(p.Child("objectSelector"), ""))
	} else {
		errs = append(errs, ValidateLabelSelector(m.ObjectSelector, p.Child("objectSelector"))...)
	}
	for i := range m.ResourceRules {
		errs = append(errs, validateNamedRule(&m.ResourceRules[i], p.Child("resourceRules").Index(i))...)
	}
	for i := range m.ExcludeResourceRules {
		errs = append(errs, validateNamedRule(&m.ExcludeResourceRules[i], p.Child("excludeResourceRules").Index(i))...)
	}
	return errs
}

func validateNamedRule(r *admissionregistrationv1.NamedRuleWithOperations, p *field.Path) field.ErrorList {
	var errs field.ErrorList
	seen := map[string]bool{}
	for i, name := range r.ResourceNames {
		for _, msg := range IsValidPathSegmentName(name) {
			errs = append(errs, field.Invalid(p.Child("resourceNames").Index(i), name, msg))
		}
		if seen[name] {
			errs = append(errs, field.Duplicate(p.Child("resourceNames").Index(i), name))
		}
		seen[name] = true
	}
	return append(errs, validateRuleWithOperations(&r.RuleWithOperations, p)...)
}

func validateValidatingAdmissionPolicyBinding(b *admissionregistrationv1.ValidatingAdmissionPolicyBinding) field.ErrorList {
	errs := ValidateObjectMeta(&b.ObjectMeta, false, NameIsDNSSubdomain, field.NewPath("metadata"))
	sp := field.NewPath("spec")
	if b.Spec.PolicyName == "" {
		errs = append(errs, field.Required(sp.Child("policyName"), ""))
	} else {
		for _, msg := range NameIsDNSSubdomain(b.Spec.PolicyName, false) {
			errs = append(errs, field.Invalid(sp.Child("policyName"), b.Spec.PolicyName, msg))
		}
	}
	if pr := b.Spec.ParamRef; pr != nil {
		pp := sp.Child("paramRef")
		if pr.Name != "" {
			for _, msg := range IsValidPathSegmentName(pr.Name) {
				errs = append(errs, field.Invalid(pp.Child("name"), pr.Name, msg))
			}
			if pr.Selector != nil {
				errs = append(errs, field.Forbidden(pp.Child("name"), "name and selector are mutually exclusive"))
			}
		}
		if pr.Selector != nil {
			errs = append(errs, ValidateLabelSelector(pr.Selector, pp.Child("selector"))...)
			if pr.Name != "" {
				errs = append(errs, field.Forbidden(pp.Child("selector"), "name and selector are mutually exclusive"))
			}
		}
		if pr.Name == "" && pr.Selector == nil {
			errs = append(errs, field.Required(pp, "one of name or selector must be specified"))
		}
		if pr.ParameterNotFoundAction == nil || *pr.ParameterNotFoundAction == "" {
			errs = append(errs, field.Required(pp.Child("parameterNotFoundAction"), ""))
		} else if a := *pr.ParameterNotFoundAction; a != admissionregistrationv1.DenyAction && a != admissionregistrationv1.AllowAction {
			errs = append(errs, field.NotSupported(pp.Child("parameterNotFoundAction"), a, supportedParameterNotFound))
		}
	}
	errs = append(errs, validateMatchResources(b.Spec.MatchResources, sp.Child("matchResources"))...)
	ap := sp.Child("validationActions")
	seen := map[admissionregistrationv1.ValidationAction]bool{}
	for i, a := range b.Spec.ValidationActions {
		if !contains(supportedValidationActions, string(a)) {
			errs = append(errs, field.NotSupported(ap.Index(i), a, supportedValidationActions))
		}
		if seen[a] {
			errs = append(errs, field.Duplicate(ap.Index(i), a))
		}
		seen[a] = true
	}
	if seen[admissionregistrationv1.Deny] && seen[admissionregistrationv1.Warn] {
		errs = append(errs, field.Invalid(ap, b.Spec.ValidationActions, "must not contain both Deny and Warn (repeating the same validation failure information in the API response and headers serves no purpose)"))
	}
	if len(seen) == 0 {
		errs = append(errs, field.Required(ap, "at least one validation action is required"))
	}
	return errs
}
