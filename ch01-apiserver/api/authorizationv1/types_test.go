package authorizationv1

import (
	"testing"

	"kubik/internal/apitest"
)

// What "kubectl auth can-i list pods" gets back.
const canI = `{"kind":"SelfSubjectAccessReview","apiVersion":"authorization.k8s.io/v1","metadata":{},
 "spec":{"resourceAttributes":{"namespace":"default","verb":"list","resource":"pods"}},
 "status":{"allowed":true,"reason":"RBAC: allowed by ClusterRoleBinding \"cluster-admin\" of ClusterRole \"cluster-admin\" to Group \"system:masters\""}}`

const sar = `{"kind":"SubjectAccessReview","apiVersion":"authorization.k8s.io/v1","metadata":{},
 "spec":{"resourceAttributes":{"namespace":"default","verb":"list","version":"v1","resource":"pods",
   "labelSelector":{"rawSelector":"app=web","requirements":[{"key":"app","operator":"In","values":["web"]}]},
   "fieldSelector":{"requirements":[{"key":"spec.nodeName","operator":"In","values":["node-1"]}]}},
  "user":"jane","groups":["dev","system:authenticated"],"extra":{"scopes":["a","b"]},"uid":"42"},
 "status":{"allowed":false,"denied":true,"evaluationError":"x"}}`

const nonResource = `{"kind":"LocalSubjectAccessReview","apiVersion":"authorization.k8s.io/v1","metadata":{"namespace":"default"},
 "spec":{"nonResourceAttributes":{"path":"/healthz","verb":"get"},"user":"jane"},"status":{"allowed":false}}`

// What "kubectl auth can-i --list" gets back.
const rules = `{"kind":"SelfSubjectRulesReview","apiVersion":"authorization.k8s.io/v1","metadata":{},
 "spec":{"namespace":"default"},
 "status":{"resourceRules":[{"verbs":["create"],"apiGroups":["authorization.k8s.io"],"resources":["selfsubjectaccessreviews","selfsubjectrulesreviews"]},
   {"verbs":["*"],"apiGroups":["*"],"resources":["*"]}],
  "nonResourceRules":[{"verbs":["*"],"nonResourceURLs":["*"]},{"verbs":["get"],"nonResourceURLs":["/healthz","/livez"]}],"incomplete":false}}`

func TestAuthorizationRoundTrip(t *testing.T) {
	var ssar SelfSubjectAccessReview
	apitest.RoundTrip(t, []byte(canI), &ssar)
	if !ssar.Status.Allowed || ssar.Spec.ResourceAttributes.Resource != "pods" {
		t.Errorf("decoded %+v", ssar)
	}
	var s SubjectAccessReview
	apitest.RoundTrip(t, []byte(sar), &s)
	if s.Spec.ResourceAttributes.FieldSelector.Requirements[0].Key != "spec.nodeName" || !s.Status.Denied {
		t.Errorf("decoded %+v", s)
	}
	var l LocalSubjectAccessReview
	apitest.RoundTrip(t, []byte(nonResource), &l)
	if l.Spec.NonResourceAttributes.Path != "/healthz" {
		t.Errorf("decoded %+v", l)
	}
	var r SelfSubjectRulesReview
	apitest.RoundTrip(t, []byte(rules), &r)
	if len(r.Status.ResourceRules) != 2 || r.Status.Incomplete {
		t.Errorf("decoded %+v", r)
	}
}
