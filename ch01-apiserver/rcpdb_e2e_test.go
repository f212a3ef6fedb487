package main_test

import (
	"strings"
	"testing"
)

// TestReplicationControllersAndPodDisruptionBudgets: core/v1
// ReplicationControllers and policy/v1 PodDisruptionBudgets with kubectl
// 1.33 — defaults, tables, the scale subresource and validation as a real
// apiserver gives them. (No controller acts on either in chapter 1.)
func TestReplicationControllersAndPodDisruptionBudgets(t *testing.T) {
	k := newKube(t, "1.33")

	// The selector and the controller's labels default to the template's.
	k.write("rc.yaml", `apiVersion: v1
kind: ReplicationController
metadata:
  name: web
spec:
  template:
    metadata:
      labels:
        app: web
    spec:
      containers:
      - name: nginx
        image: nginx:1.27
`)
	k.ok("replicationcontroller/web created\n", "apply", "-f", "rc.yaml")
	k.ok(`1 {"app":"web"} {"app":"web"} Always`, "get", "rc", "web", "-o",
		"jsonpath={.spec.replicas} {.spec.selector} {.metadata.labels} {.spec.template.spec.restartPolicy}")
	k.ok("replicationcontroller/web scaled\n", "scale", "rc", "web", "--replicas=3")
	k.table(`
NAME   DESIRED   CURRENT   READY   AGE   CONTAINERS   IMAGES       SELECTOR
web    3         0         0       1s    nginx        nginx:1.27   app=web`, "get", "rc", "-o", "wide")

	k.write("bad-rc.yaml", `apiVersion: v1
kind: ReplicationController
metadata:
  name: bad
spec:
  selector:
    app: other
  template:
    metadata:
      labels:
        app: web
    spec:
      restartPolicy: OnFailure
      containers:
      - name: nginx
        image: nginx:1.27
`)
	k.fails(`The ReplicationController "bad" is invalid: 
* spec.template.metadata.labels: Invalid value: {"app":"web"}: `+"`selector` does not match template `labels`"+`
* spec.template.spec.restartPolicy: Unsupported value: "OnFailure": supported values: "Always"
`, "apply", "-f", "bad-rc.yaml")

	// A budget with minAvailable only: the other column says N/A.
	k.ok("poddisruptionbudget.policy/web created\n", "create", "pdb", "web", "--selector=app=web", "--min-available=50%")
	k.table(`
NAME   MIN AVAILABLE   MAX UNAVAILABLE   ALLOWED DISRUPTIONS   AGE
web    50%             N/A               0                     1s`, "get", "pdb")
	k.ok("poddisruptionbudget.policy/web patched\n", "patch", "pdb", "web", "--type=merge", "-p", `{"spec":{"minAvailable":2}}`)
	k.ok("2 web", "get", "pdb", "web", "-o", "jsonpath={.spec.minAvailable} {.spec.selector.matchLabels.app}")

	r := k.run("create", "pdb", "both", "--selector=app=web", "--min-available=1", "--max-unavailable=1")
	if r.ExitCode != 1 || !strings.Contains(r.Stderr, "min-available and max-unavailable cannot be both specified") {
		// kubectl refuses this one itself; the server's rule is tested below.
		t.Errorf("kubectl create pdb with both: exit %d\n%s", r.ExitCode, r.Combined())
	}
	k.write("bad-pdb.yaml", `apiVersion: policy/v1
kind: PodDisruptionBudget
metadata:
  name: bad
spec:
  minAvailable: 1
  maxUnavailable: 120%
  unhealthyPodEvictionPolicy: Sometimes
`)
	r = k.run("apply", "-f", "bad-pdb.yaml")
	for _, want := range []string{
		`The PodDisruptionBudget "bad" is invalid: `,
		"minAvailable and maxUnavailable cannot be both set",
		`spec.maxUnavailable: Invalid value: "120%": must not be greater than 100%`,
		`spec.unhealthyPodEvictionPolicy: Unsupported value: "Sometimes": supported values: "AlwaysAllow", "IfHealthyBudget"`,
	} {
		if r.ExitCode != 1 || !strings.Contains(r.Stderr, want) {
			t.Errorf("kubectl apply -f bad-pdb.yaml: exit %d, want %q in\n%s", r.ExitCode, want, r.Stderr)
		}
	}
	k.fails("Error from server (NotFound): poddisruptionbudgets.policy \"bad\" not found\n", "get", "pdb", "bad")
}
