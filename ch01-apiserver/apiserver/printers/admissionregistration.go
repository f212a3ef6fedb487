package printers

import (
	"fmt"
	"sort"
	"strings"
	"time"

	"kubik/ch01-apiserver/api/admissionregistrationv1"
	"kubik/ch01-apiserver/api/metav1"
)

// Webhook configurations: upstream's printValidatingWebhook and
// printMutatingWebhook (NAME WEBHOOKS AGE).
var webhookColumns = []metav1.TableColumnDefinition{
	nameColumn,
	column("Webhooks", "integer", "Webhooks indicates the number of webhooks in the configuration."),
	ageColumn,
}

var validatingWebhookConfigurationPrinter = printer{
	columns: webhookColumns,
	row: func(obj metav1.Object, now time.Time) ([]any, []metav1.TableRowCondition) {
		c := obj.(*admissionregistrationv1.ValidatingWebhookConfiguration)
		return []any{c.Name, int64(len(c.Webhooks)), age(c.CreationTimestamp, now)}, nil
	},
}

var mutatingWebhookConfigurationPrinter = printer{
	columns: webhookColumns,
	row: func(obj metav1.Object, now time.Time) ([]any, []metav1.TableRowCondition) {
		c := obj.(*admissionregistrationv1.MutatingWebhookConfiguration)
		return []any{c.Name, int64(len(c.Webhooks)), age(c.CreationTimestamp, now)}, nil
	},
}

// Admission policies: upstream's printValidatingAdmissionPolicy (NAME
// VALIDATIONS PARAMKIND AGE) and printValidatingAdmissionPolicyBinding
// (NAME POLICYNAME PARAMREF AGE).
var validatingAdmissionPolicyPrinter = printer{
	columns: []metav1.TableColumnDefinition{
		nameColumn,
		column("Validations", "integer", "Validations indicates the number of validation rules defined in this configuration"),
		column("ParamKind", "string", "ParamKind specifies the kind of resources used to parameterize this policy"),
		ageColumn,
	},
	row: func(obj metav1.Object, now time.Time) ([]any, []metav1.TableRowCondition) {
		p := obj.(*admissionregistrationv1.ValidatingAdmissionPolicy)
		paramKind := "<unset>"
		if k := p.Spec.ParamKind; k != nil {
			paramKind = k.APIVersion + "/" + k.Kind
		}
		return []any{p.Name, int64(len(p.Spec.Validations)), paramKind, age(p.CreationTimestamp, now)}, nil
	},
}

var validatingAdmissionPolicyBindingPrinter = printer{
	columns: []metav1.TableColumnDefinition{
		nameColumn,
		column("PolicyName", "string", "PolicyName indicates the policy definition which the policy binding binded to"),
		column("ParamRef", "string", "ParamRef indicates the param resource which sets the configuration param"),
		ageColumn,
	},
	row: func(obj metav1.Object, now time.Time) ([]any, []metav1.TableRowCondition) {
		b := obj.(*admissionregistrationv1.ValidatingAdmissionPolicyBinding)
		paramName := "<unset>"
		if pr := b.Spec.ParamRef; pr != nil {
			switch {
			case pr.Name != "" && pr.Namespace != "":
				paramName = pr.Namespace + "/" + pr.Name
			case pr.Name != "":
				paramName = "*/" + pr.Name
			case pr.Selector != nil:
				paramName = goStringLabelSelector(pr.Selector)
			}
		}
		return []any{b.Name, b.Spec.PolicyName, paramName, age(b.CreationTimestamp, now)}, nil
	},
}

// goStringLabelSelector is the generated String() of upstream's
// metav1.LabelSelector, which upstream's binding printer prints.
func goStringLabelSelector(ps *metav1.LabelSelector) string {
	keys := make([]string, 0, len(ps.MatchLabels))
	for k := range ps.MatchLabels {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var b strings.Builder
	b.WriteString("&LabelSelector{MatchLabels:map[string]string{")
	for _, k := range keys {
		fmt.Fprintf(&b, "%v: %v,", k, ps.MatchLabels[k])
	}
	b.WriteString("},MatchExpressions:[]LabelSelectorRequirement{")
	for _, e := range ps.MatchExpressions {
		fmt.Fprintf(&b, "LabelSelectorRequirement{Key:%s,Operator:%s,Values:%v,},", e.Key, e.Operator, e.Values)
	}
	b.WriteString("},}")
	return b.String()
}
