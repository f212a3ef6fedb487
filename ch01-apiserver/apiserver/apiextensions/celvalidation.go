package apiextensions

import (
	"fmt"
	"regexp"
	"sort"
	"strconv"
	"strings"

	apiextensionsv1 "kubik/ch01-apiserver/api/apiextensionsv1"
	apiservercel "kubik/ch01-apiserver/apiserver/cel"
	"kubik/ch01-apiserver/apiserver/validation/field"
)

// The checks of x-kubernetes-validations when a CRD is written: the part
// of upstream's ValidateCustomResourceDefinitionOpenAPISchema that reads
// the rules (their message, reason and fieldPath), compiles every rule and
// messageExpression, and keeps the estimated costs within the limits. They
// run only on a structural schema: rules are typed from it.

// supportedValidationReasons are the values of a rule's reason, sorted.
var supportedValidationReasons = []string{"FieldValueDuplicate", "FieldValueForbidden", "FieldValueInvalid", "FieldValueRequired"}

var newlineMatcher = regexp.MustCompile(`[\n\r]+`)

func hasNewlines(s string) bool { return newlineMatcher.MatchString(s) }

// expressionCost is one rule's or messageExpression's estimated cost.
type expressionCost struct {
	path *field.Path
	cost uint64
}

type celChecker struct {
	errs  field.ErrorList
	costs []expressionCost
	total uint64
	// messageCosts: a messageExpression's cost is in the total.
	messageCosts bool
}

// validateCELRules checks the rules of a version's (structural) schema.
func validateCELRules(s *apiextensionsv1.JSONSchemaProps, fldPath *field.Path) field.ErrorList {
	c := &celChecker{}
	c.node(s, fldPath, true, nil, nil, 0)
	if c.total > apiservercel.StaticEstimatedCRDCostLimit {
		what := "rule"
		if c.messageCosts {
			what = "rule & messageExpression"
		}
		sort.SliceStable(c.costs, func(i, j int) bool { return c.costs[i].cost > c.costs[j].cost })
		for i, e := range c.costs {
			if i == 4 {
				break
			}
			c.errs = append(c.errs, field.Forbidden(e.path, "contributed to estimated "+what+" cost total exceeding cost limit for entire OpenAPIv3 schema"))
		}
		c.errs = append(c.errs, field.Forbidden(fldPath, apiservercel.CostErrorMessage("x-kubernetes-validations estimated "+what+" cost total for entire OpenAPIv3 schema", c.total, apiservercel.StaticEstimatedCRDCostLimit)))
	}
	return c.errs
}

// observe adds an expression's cost to the total; those above 1% of the
// schema's limit are named when the total exceeds it.
func (c *celChecker) observe(p *field.Path, cost uint64) {
	if cost >= apiservercel.StaticEstimatedCRDCostLimit/100 {
		c.costs = append(c.costs, expressionCost{p, cost})
	}
	if c.total+cost < c.total {
		c.total = ^uint64(0)
		return
	}
	c.total += cost
}

// node checks s's descendants, then s's own rules. uncorrelatable is the
// highest list whose items cannot be matched with the old object's, if
// any; parents are the schemas above s. It reports whether s or a
// descendant has an error in how its rules are written: then, as
// upstream, s's rules are not compiled (their errors would be noise).
func (c *celChecker) node(s *apiextensionsv1.JSONSchemaProps, p *field.Path, root bool, uncorrelatable *field.Path, parents []apiservercel.Schema, depth int) (schemaErrors bool) {
	if s == nil || depth > maxSchemaDepth {
		return false
	}
	here := append(parents[:len(parents):len(parents)], newCELSchema(s, root))
	for _, k := range sortedSchemaKeys(s.Properties) {
		ch := s.Properties[k]
		schemaErrors = c.node(&ch, p.Child("properties").Key(k), false, uncorrelatable, here, depth+1) || schemaErrors
	}
	if s.Items != nil && s.Items.Schema != nil {
		u := uncorrelatable
		if u == nil && (s.XListType == nil || *s.XListType != "map") {
			u = p.Child("items")
		}
		schemaErrors = c.node(s.Items.Schema, p.Child("items"), false, u, here, depth+1) || schemaErrors
	}
	if s.AdditionalProperties != nil && s.AdditionalProperties.Schema != nil {
		schemaErrors = c.node(s.AdditionalProperties.Schema, p.Child("additionalProperties"), false, uncorrelatable, here, depth+1) || schemaErrors
	}
	if len(s.XValidations) == 0 {
		return schemaErrors
	}
	vp := p.Child("x-kubernetes-validations")
	var schemaErrs field.ErrorList
	for i, r := range s.XValidations {
		rp := vp.Index(i)
		rule, msg := strings.TrimSpace(r.Rule), strings.TrimSpace(r.Message)
		switch {
		case rule == "":
			schemaErrs = append(schemaErrs, field.Required(rp.Child("rule"), "rule is not specified"))
		case len(r.Message) > 0 && msg == "":
			schemaErrs = append(schemaErrs, field.Invalid(rp.Child("message"), r.Message, "message must be non-empty if specified"))
		case hasNewlines(msg):
			schemaErrs = append(schemaErrs, field.Invalid(rp.Child("message"), r.Message, "message must not contain line breaks"))
		case hasNewlines(rule) && msg == "":
			schemaErrs = append(schemaErrs, field.Required(rp.Child("message"), "message must be specified if rule contains line breaks"))
		}
		if len(r.MessageExpression) > 0 && strings.TrimSpace(r.MessageExpression) == "" {
			schemaErrs = append(schemaErrs, field.Required(rp.Child("messageExpression"), "messageExpression must be non-empty if specified"))
		}
		if r.Reason != nil && !contains(supportedValidationReasons, *r.Reason) {
			schemaErrs = append(schemaErrs, field.NotSupported(rp.Child("reason"), *r.Reason, supportedValidationReasons))
		}
		if len(r.FieldPath) > 0 && strings.TrimSpace(r.FieldPath) == "" {
			schemaErrs = append(schemaErrs, field.Invalid(rp.Child("fieldPath"), r.FieldPath, "fieldPath must be non-empty if specified"))
		}
		if hasNewlines(r.FieldPath) {
			schemaErrs = append(schemaErrs, field.Invalid(rp.Child("fieldPath"), r.FieldPath, "fieldPath must not contain line breaks"))
		}
		if len(r.FieldPath) > 0 {
			if _, err := validFieldPath(r.FieldPath, s); err != nil {
				schemaErrs = append(schemaErrs, field.Invalid(rp.Child("fieldPath"), r.FieldPath, "must be a valid path"))
			}
		}
	}
	c.errs = append(c.errs, schemaErrs...)
	if len(schemaErrs) > 0 || schemaErrors {
		return true
	}
	results, err := compileRules(s, root)
	if err != nil {
		c.errs = append(c.errs, field.InternalError(vp, err))
		return false
	}
	card := apiservercel.MaxCardinality(parents)
	for i, cr := range results {
		rp := vp.Index(i)
		cost := apiservercel.MultiplyWithOverflowGuard(cr.MaxCost, card)
		if cost > apiservercel.StaticEstimatedCostLimit {
			c.errs = append(c.errs, field.Forbidden(rp.Child("rule"), apiservercel.CostErrorMessage("estimated rule cost", cost, apiservercel.StaticEstimatedCostLimit)))
		}
		c.observe(rp.Child("rule"), cost)
		if cr.Error != nil {
			if cr.Error.Type == apiservercel.ErrorTypeRequired {
				c.errs = append(c.errs, field.Required(rp.Child("rule"), cr.Error.Detail))
			} else {
				c.errs = append(c.errs, field.Invalid(rp.Child("rule"), newRuleValue(s.XValidations[i]), cr.Error.Detail))
			}
		}
		if cr.MessageError != nil {
			c.errs = append(c.errs, field.Invalid(rp.Child("messageExpression"), newRuleValue(s.XValidations[i]), cr.MessageError.Detail))
		} else if cr.MessageExpression != nil {
			mc := apiservercel.MultiplyWithOverflowGuard(cr.MessageExpressionMaxCost, card)
			if mc > apiservercel.StaticEstimatedCostLimit {
				c.errs = append(c.errs, field.Forbidden(rp.Child("messageExpression"), apiservercel.CostErrorMessage("estimated messageExpression cost", mc, apiservercel.StaticEstimatedCostLimit)))
			}
			c.observe(rp.Child("messageExpression"), mc)
			c.messageCosts = true
		}
		switch {
		case cr.UsesOldSelf && uncorrelatable != nil:
			c.errs = append(c.errs, field.Invalid(rp.Child("rule"), s.XValidations[i].Rule, fmt.Sprintf("oldSelf cannot be used on the uncorrelatable portion of the schema within %v", uncorrelatable)))
		case !cr.UsesOldSelf && s.XValidations[i].OptionalOldSelf != nil:
			c.errs = append(c.errs, field.Invalid(rp.Child("optionalOldSelf"), *s.XValidations[i].OptionalOldSelf, "may not be set if oldSelf is not used in rule"))
		}
	}
	return false
}

// ruleValue is the rule as upstream's field errors print the internal
// ValidationRule they carry: JSON with the Go field names, that type
// having no JSON tags.
type ruleValue struct {
	Rule              string
	Message           string
	MessageExpression string
	Reason            *string
	FieldPath         string
	OptionalOldSelf   *bool
}

func newRuleValue(r apiextensionsv1.ValidationRule) ruleValue {
	return ruleValue{r.Rule, r.Message, r.MessageExpression, r.Reason, r.FieldPath, r.OptionalOldSelf}
}

// validFieldPath parses a rule's fieldPath (".spec.a", ".spec['a.b']",
// ".spec.list[0]") against the schema s, as upstream's ValidFieldPath, and
// returns it normalized without the leading dot ("spec.a").
func validFieldPath(path string, s *apiextensionsv1.JSONSchemaProps) (string, error) {
	var out strings.Builder
	rest := path
	for steps := 0; rest != ""; steps++ {
		if s == nil || steps > maxSchemaDepth {
			return "", fmt.Errorf("invalid field path")
		}
		switch {
		case rest[0] == '.':
			rest = rest[1:]
			n := strings.IndexAny(rest, ".[")
			if n < 0 {
				n = len(rest)
			}
			name := rest[:n]
			rest = rest[n:]
			if name == "" {
				return "", fmt.Errorf("empty field name")
			}
			next, err := member(s, name)
			if err != nil {
				return "", err
			}
			if out.Len() > 0 {
				out.WriteByte('.')
			}
			out.WriteString(name)
			s = next
		case strings.HasPrefix(rest, "['"):
			end := strings.Index(rest[2:], "']")
			if end < 0 {
				return "", fmt.Errorf("unterminated subscript")
			}
			name := rest[2 : 2+end]
			rest = rest[2+end+2:]
			next, err := member(s, name)
			if err != nil {
				return "", err
			}
			out.WriteString("['" + name + "']")
			s = next
		case rest[0] == '[':
			end := strings.IndexByte(rest, ']')
			if end < 0 {
				return "", fmt.Errorf("unterminated index")
			}
			if _, err := strconv.Atoi(rest[1:end]); err != nil || s.Type != "array" || s.Items == nil {
				return "", fmt.Errorf("invalid index")
			}
			out.WriteString(rest[:end+1])
			rest = rest[end+1:]
			s = s.Items.Schema
		default:
			return "", fmt.Errorf("expected [ or . at %q", rest)
		}
	}
	return out.String(), nil
}

func member(s *apiextensionsv1.JSONSchemaProps, name string) (*apiextensionsv1.JSONSchemaProps, error) {
	if p, ok := s.Properties[name]; ok {
		return &p, nil
	}
	if s.AdditionalProperties != nil && s.AdditionalProperties.Schema != nil {
		return s.AdditionalProperties.Schema, nil
	}
	return nil, fmt.Errorf("does not refer to a valid field")
}
