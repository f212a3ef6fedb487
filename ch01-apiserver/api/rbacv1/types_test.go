package rbacv1

import (
	"testing"

	"kubik/internal/apitest"
)

const clusterAdmin = `{"kind":"ClusterRole","apiVersion":"rbac.authorization.k8s.io/v1",
 "metadata":{"name":"cluster-admin","uid":"2b1a0f9e-0000-4000-8000-000000000001","resourceVersion":"72","creationTimestamp":"2026-11-30T02:10:00Z",
  "labels":{"kubernetes.io/bootstrapping":"rbac-defaults"},"annotations":{"rbac.authorization.kubernetes.io/autoupdate":"true"}},
 "rules":[{"verbs":["*"],"apiGroups":["*"],"resources":["*"]},{"verbs":["*"],"nonResourceURLs":["*"]}]}`

const admin = `{"kind":"ClusterRole","apiVersion":"rbac.authorization.k8s.io/v1",
 "metadata":{"name":"admin","uid":"2b1a0f9e-0000-4000-8000-000000000002","resourceVersion":"300","creationTimestamp":"2026-11-30T02:10:00Z",
  "labels":{"kubernetes.io/bootstrapping":"rbac-defaults"},"annotations":{"rbac.authorization.kubernetes.io/autoupdate":"true"}},
 "rules":[{"verbs":["create","delete","deletecollection","patch","update"],"apiGroups":[""],"resources":["pods","pods/attach","pods/exec"]}],
 "aggregationRule":{"clusterRoleSelectors":[{"matchLabels":{"rbac.authorization.k8s.io/aggregate-to-admin":"true"}}]}}`

const binding = `{"kind":"ClusterRoleBinding","apiVersion":"rbac.authorization.k8s.io/v1",
 "metadata":{"name":"cluster-admin","uid":"2b1a0f9e-0000-4000-8000-000000000003","resourceVersion":"140","creationTimestamp":"2026-11-30T02:10:00Z"},
 "subjects":[{"kind":"Group","apiGroup":"rbac.authorization.k8s.io","name":"system:masters"}],
 "roleRef":{"apiGroup":"rbac.authorization.k8s.io","kind":"ClusterRole","name":"cluster-admin"}}`

const roleBinding = `{"kind":"RoleBinding","apiVersion":"rbac.authorization.k8s.io/v1",
 "metadata":{"name":"read-pods","namespace":"default","uid":"2b1a0f9e-0000-4000-8000-000000000004","resourceVersion":"141","creationTimestamp":"2026-11-30T02:10:00Z"},
 "subjects":[{"kind":"ServiceAccount","name":"default","namespace":"default"}],
 "roleRef":{"apiGroup":"rbac.authorization.k8s.io","kind":"Role","name":"pod-reader"}}`

func TestRBACRoundTrip(t *testing.T) {
	var cr ClusterRole
	apitest.RoundTrip(t, []byte(clusterAdmin), &cr)
	if cr.Rules[1].NonResourceURLs[0] != NonResourceAll || cr.Annotations[AutoUpdateAnnotationKey] != "true" {
		t.Errorf("decoded %+v", cr)
	}
	var agg ClusterRole
	apitest.RoundTrip(t, []byte(admin), &agg)
	if agg.AggregationRule == nil || len(agg.AggregationRule.ClusterRoleSelectors) != 1 {
		t.Errorf("decoded %+v", agg.AggregationRule)
	}
	var crb ClusterRoleBinding
	apitest.RoundTrip(t, []byte(binding), &crb)
	if crb.Subjects[0].Kind != GroupKind || crb.RoleRef.APIGroup != GroupName {
		t.Errorf("decoded %+v", crb)
	}
	var rb RoleBinding
	apitest.RoundTrip(t, []byte(roleBinding), &rb)
	if rb.Subjects[0].Kind != ServiceAccountKind || rb.Subjects[0].APIGroup != "" {
		t.Errorf("decoded %+v", rb)
	}
}
