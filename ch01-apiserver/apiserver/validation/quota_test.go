package validation

import (
	"strings"
	"testing"

	"kubik/ch01-apiserver/api/corev1"
	"kubik/ch01-apiserver/api/metav1"
	"kubik/ch01-apiserver/api/resource"
	"kubik/ch01-apiserver/apiserver/validation/field"
)

func quotaErrors(q, old *corev1.ResourceQuota) string {
	var errs field.ErrorList
	if old == nil {
		errs = Validate(q, nil)
	} else {
		errs = Validate(q, old)
	}
	list := make([]string, len(errs))
	for i, e := range errs {
		list[i] = e.Error()
	}
	return strings.Join(list, "\n")
}

func TestResourceQuotaValidation(t *testing.T) {
	meta := metav1.ObjectMeta{Name: "q", Namespace: "default"}
	hard := func(kv ...string) corev1.ResourceList {
		l := corev1.ResourceList{}
		for i := 0; i < len(kv); i += 2 {
			l[corev1.ResourceName(kv[i])] = resource.MustParse(kv[i+1])
		}
		return l
	}
	for _, c := range []struct {
		spec corev1.ResourceQuotaSpec
		want string
	}{
		{corev1.ResourceQuotaSpec{Hard: hard("pods", "10", "requests.cpu", "1500m", "count/deployments.apps", "3", "example.com/gpu", "2")}, ""},
		{corev1.ResourceQuotaSpec{Hard: hard("services", "1.5")}, `spec.hard[services]: Invalid value: "1500m": must be an integer`},
		{corev1.ResourceQuotaSpec{Hard: hard("requests.cpu", "-1")}, `spec.hard[requests.cpu]: Invalid value: "-1": must be greater than or equal to 0`},
		{corev1.ResourceQuotaSpec{Hard: hard("storage", "1Gi")}, `spec.hard[storage]: Invalid value: "storage": must be a standard resource for quota`},
		{corev1.ResourceQuotaSpec{Hard: hard("pods", "1"), Scopes: []corev1.ResourceQuotaScope{"BestEffort", "NotBestEffort"}},
			`spec.scopes: Invalid value: ["BestEffort","NotBestEffort"]: conflicting scopes`},
		{corev1.ResourceQuotaSpec{Hard: hard("pods", "1"), Scopes: []corev1.ResourceQuotaScope{"Sometimes"}},
			`spec.scopes: Invalid value: ["Sometimes"]: unsupported scope`},
		{corev1.ResourceQuotaSpec{Hard: hard("pods", "1"), ScopeSelector: &corev1.ScopeSelector{MatchExpressions: []corev1.ScopedResourceSelectorRequirement{
			{ScopeName: "PriorityClass", Operator: "In"}}}},
			"spec.scopeSelector.matchExpressions.values: Required value: must be at least one value when `operator` is 'In' or 'NotIn' for scope selector"},
	} {
		if got := quotaErrors(&corev1.ResourceQuota{ObjectMeta: meta, Spec: c.spec}, nil); got != c.want {
			t.Errorf("%+v:\n got %s\nwant %s", c.spec, got, c.want)
		}
	}
	// Scopes are immutable.
	meta.ResourceVersion = "1"
	old := &corev1.ResourceQuota{ObjectMeta: meta, Spec: corev1.ResourceQuotaSpec{Hard: hard("pods", "1")}}
	updated := &corev1.ResourceQuota{ObjectMeta: meta, Spec: corev1.ResourceQuotaSpec{Hard: hard("pods", "1"), Scopes: []corev1.ResourceQuotaScope{"Terminating"}}}
	if got, want := quotaErrors(updated, old), `spec.scopes: Invalid value: ["Terminating"]: field is immutable`; got != want {
		t.Errorf("update: %s, want %s", got, want)
	}
}

func TestLimitRangeValidation(t *testing.T) {
	q := resource.MustParse
	lr := &corev1.LimitRange{ObjectMeta: metav1.ObjectMeta{Name: "l", Namespace: "default"}, Spec: corev1.LimitRangeSpec{Limits: []corev1.LimitRangeItem{
		{Type: "Container", Max: corev1.ResourceList{"cpu": q("1")}, Min: corev1.ResourceList{"cpu": q("100m")},
			Default: corev1.ResourceList{"cpu": q("500m")}, DefaultRequest: corev1.ResourceList{"cpu": q("600m")},
			MaxLimitRequestRatio: corev1.ResourceList{"cpu": q("20")}},
		{Type: "Container", Max: corev1.ResourceList{"storage": q("1Gi")}},
		{Type: "example.com/things", Max: corev1.ResourceList{"example.com/gpu": q("1")}},
	}}}
	var got []string
	for _, e := range Validate(lr, nil) {
		got = append(got, e.Error())
	}
	want := []string{
		`spec.limits[0].defaultRequest[cpu]: Invalid value: "600m": default request value 600m is greater than default limit value 500m`,
		`spec.limits[0].maxLimitRequestRatio[cpu]: Invalid value: "20": ratio 20 is greater than max/min = 10.000000`,
		`spec.limits[1].type: Duplicate value: "Container"`,
		`spec.limits[1].max[storage]: Invalid value: "storage": must be a standard resource for containers`,
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("got:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}
