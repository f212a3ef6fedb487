package defaults

import (
	"kubik/ch01-apiserver/api/admissionregistrationv1"
	"kubik/ch01-apiserver/api/metav1"
)

// Webhook configurations: upstream's admissionregistration/v1 defaults
// (SetDefaults_ValidatingWebhook, SetDefaults_MutatingWebhook, SetDefaults_Rule).

func setDefaultsValidatingWebhookConfiguration(c *admissionregistrationv1.ValidatingWebhookConfiguration) {
	for i := range c.Webhooks {
		w := &c.Webhooks[i]
		setDefaultsWebhook(&w.FailurePolicy, &w.MatchPolicy, &w.NamespaceSelector, &w.ObjectSelector, &w.TimeoutSeconds, w.Rules)
		setDefaultsServiceReference(w.ClientConfig.Service)
	}
}

func setDefaultsMutatingWebhookConfiguration(c *admissionregistrationv1.MutatingWebhookConfiguration) {
	for i := range c.Webhooks {
		w := &c.Webhooks[i]
		setDefaultsWebhook(&w.FailurePolicy, &w.MatchPolicy, &w.NamespaceSelector, &w.ObjectSelector, &w.TimeoutSeconds, w.Rules)
		setDefaultsServiceReference(w.ClientConfig.Service)
		if w.ReinvocationPolicy == nil {
			p := admissionregistrationv1.NeverReinvocationPolicy
			w.ReinvocationPolicy = &p
		}
	}
}

func setDefaultsWebhook(fp **admissionregistrationv1.FailurePolicyType, mp **admissionregistrationv1.MatchPolicyType,
	nsSel, objSel **metav1.LabelSelector, timeout **int32, rules []admissionregistrationv1.RuleWithOperations) {
	if *fp == nil {
		p := admissionregistrationv1.Fail
		*fp = &p
	}
	if *mp == nil {
		p := admissionregistrationv1.Equivalent
		*mp = &p
	}
	if *nsSel == nil {
		*nsSel = &metav1.LabelSelector{}
	}
	if *objSel == nil {
		*objSel = &metav1.LabelSelector{}
	}
	if *timeout == nil {
		t := int32(10)
		*timeout = &t
	}
	for i := range rules {
		if rules[i].Scope == nil {
			s := admissionregistrationv1.AllScopes
			rules[i].Scope = &s
		}
	}
}

// setDefaultsServiceReference: a webhook Service is called on port 443.
func setDefaultsServiceReference(ref *admissionregistrationv1.ServiceReference) {
	if ref != nil && ref.Port == nil {
		p := int32(443)
		ref.Port = &p
	}
}

// Admission policies: upstream's SetObjectDefaults_ValidatingAdmissionPolicy
// and SetObjectDefaults_ValidatingAdmissionPolicyBinding (failurePolicy Fail;
// in matchResources matchPolicy Equivalent, empty selectors, rule scope "*").
// paramRef.parameterNotFoundAction has no default: validation requires it.

func setDefaultsValidatingAdmissionPolicy(p *admissionregistrationv1.ValidatingAdmissionPolicy) {
	if p.Spec.FailurePolicy == nil {
		f := admissionregistrationv1.Fail
		p.Spec.FailurePolicy = &f
	}
	setDefaultsMatchResources(p.Spec.MatchConstraints)
}

func setDefaultsValidatingAdmissionPolicyBinding(b *admissionregistrationv1.ValidatingAdmissionPolicyBinding) {
	setDefaultsMatchResources(b.Spec.MatchResources)
}

func setDefaultsMatchResources(m *admissionregistrationv1.MatchResources) {
	if m == nil {
		return
	}
	if m.MatchPolicy == nil {
		p := admissionregistrationv1.Equivalent
		m.MatchPolicy = &p
	}
	if m.NamespaceSelector == nil {
		m.NamespaceSelector = &metav1.LabelSelector{}
	}
	if m.ObjectSelector == nil {
		m.ObjectSelector = &metav1.LabelSelector{}
	}
	for _, rules := range [][]admissionregistrationv1.NamedRuleWithOperations{m.ResourceRules, m.ExcludeResourceRules} {
		for i := range rules {
			if rules[i].Scope == nil {
				s := admissionregistrationv1.AllScopes
				rules[i].Scope = &s
			}
		}
	}
}
