package main_test

// ValidatingAdmissionPolicy through the real kubectl 1.27 and 1.33 and the
// real ch01 binary (on the cluster of TestAdmissionWebhooks): a Deny policy
// refusing Deployments with too many replicas, a Warn binding printing the
// warning, a policy parameterized by a ConfigMap, a binding narrowed by a
// namespaceSelector. The messages are upstream's.

import (
	"strings"
	"time"

	"kubik/internal/testenv"
)

func (k *kube) admissionPolicies() {
	t := k.t
	k.ok("namespace/vap created\n", "create", "namespace", "vap")
	k.ok("namespace/vap-prod created\n", "create", "namespace", "vap-prod")
	k.ok("namespace/vap-prod labeled\n", "label", "namespace", "vap-prod", "env=prod")
	k.ok("configmap/replica-limit created\n", "create", "configmap", "replica-limit", "-n", "vap-prod", "--from-literal=max=2")
	k.write("policies.yaml", `apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata:
  name: max-replicas
spec:
  matchConstraints:
    resourceRules:
    - apiGroups: [apps]
      apiVersions: [v1]
      operations: [CREATE, UPDATE]
      resources: [deployments]
  validations:
  - expression: object.spec.replicas <= 5
---
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicyBinding
metadata:
  name: max-replicas-deny
spec:
  policyName: max-replicas
  validationActions: [Deny]
  matchResources:
    namespaceSelector:
      matchExpressions: [{key: kubernetes.io/metadata.name, operator: In, values: [vap]}]
---
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata:
  name: prod-limit
spec:
  paramKind: {apiVersion: v1, kind: ConfigMap}
  matchConstraints:
    resourceRules:
    - apiGroups: [apps]
      apiVersions: [v1]
      operations: [CREATE, UPDATE]
      resources: [deployments]
  variables:
  - name: replicas
    expression: object.spec.replicas
  validations:
  - expression: variables.replicas <= int(params.data.max)
    messageExpression: "'replicas must be at most ' + params.data.max"
---
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicyBinding
metadata:
  name: prod-limit-warn
spec:
  policyName: prod-limit
  validationActions: [Warn]
  paramRef: {name: replica-limit, parameterNotFoundAction: Deny}
  matchResources:
    namespaceSelector: {matchLabels: {env: prod}}
`)
	k.ok("validatingadmissionpolicy.admissionregistration.k8s.io/max-replicas created\n"+
		"validatingadmissionpolicybinding.admissionregistration.k8s.io/max-replicas-deny created\n"+
		"validatingadmissionpolicy.admissionregistration.k8s.io/prod-limit created\n"+
		"validatingadmissionpolicybinding.admissionregistration.k8s.io/prod-limit-warn created\n", "create", "-f", "policies.yaml")
	k.table("NAME VALIDATIONS PARAMKIND AGE\nmax-replicas 1 <unset> <age>\nprod-limit 1 v1/ConfigMap <age>", "get", "validatingadmissionpolicies")
	k.table("NAME POLICYNAME PARAMREF AGE\nmax-replicas-deny max-replicas <unset> <age>\nprod-limit-warn prod-limit */replica-limit <age>", "get", "validatingadmissionpolicybindings")
	k.ok("Fail Equivalent {}", "get", "validatingadmissionpolicy", "max-replicas", "-o",
		"jsonpath={.spec.failurePolicy} {.spec.matchConstraints.matchPolicy} {.spec.matchConstraints.objectSelector}")

	// The policies are seen through the apiserver's watch: wait for the first refusal.
	deny := `error: failed to create deployment: deployments.apps "big" is forbidden: ValidatingAdmissionPolicy 'max-replicas' with binding 'max-replicas-deny' denied request: failed expression: object.spec.replicas <= 5` + "\n"
	testenv.Eventually(t, "the policy refuses a deployment", 30*time.Second, func() (string, bool) {
		r := k.run("create", "deployment", "big", "-n", "vap", "--image=nginx", "--replicas=6")
		return r.Stderr, r.Stderr == deny
	})
	k.fails(deny, "create", "deployment", "big", "-n", "vap", "--image=nginx", "--replicas=6")
	k.ok("deployment.apps/small created\n", "create", "deployment", "small", "-n", "vap", "--image=nginx", "--replicas=5")
	// The Deny binding selects namespace vap only.
	k.ok("deployment.apps/big created\n", "create", "deployment", "big", "-n", "default", "--image=nginx", "--replicas=6")

	// In vap-prod the ConfigMap's limit is 2, and the binding only warns.
	k.exact([]string{"create", "deployment", "wide", "-n", "vap-prod", "--image=nginx", "--replicas=3"},
		"deployment.apps/wide created\n",
		"Warning: Validation failed for ValidatingAdmissionPolicy 'prod-limit' with binding 'prod-limit-warn': replicas must be at most 2\n", 0)
	k.ok("deployment.apps/narrow created\n", "create", "deployment", "narrow", "-n", "vap-prod", "--image=nginx", "--replicas=2")

	// Without its param the binding denies (parameterNotFoundAction: Deny).
	k.ok("configmap \"replica-limit\" deleted\n", "delete", "configmap", "replica-limit", "-n", "vap-prod")
	k.fails(`error: failed to create deployment: deployments.apps "other" is forbidden: ValidatingAdmissionPolicy 'prod-limit' with binding 'prod-limit-warn' denied request: failed to configure binding: no params found for policy binding with `+"`Deny`"+` parameterNotFoundAction`+"\n",
		"create", "deployment", "other", "-n", "vap-prod", "--image=nginx")

	// A policy whose expression does not compile is refused when written.
	k.write("bad-policy.yaml", `apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata:
  name: bad
spec:
  matchConstraints:
    resourceRules: [{apiGroups: [apps], apiVersions: [v1], operations: [CREATE], resources: [deployments]}]
  validations:
  - expression: object.spec.replicas
`)
	r := k.run("create", "-f", "bad-policy.yaml")
	want := `The ValidatingAdmissionPolicy "bad" is invalid: spec.validations[0].expression: Invalid value: "object.spec.replicas": must evaluate to bool but got dyn`
	if r.ExitCode != 1 || !strings.Contains(r.Stderr, want) {
		t.Errorf("create bad policy: exit %d, stderr %q, want %q", r.ExitCode, r.Stderr, want)
	}
}
