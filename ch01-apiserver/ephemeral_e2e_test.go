package main_test

// Ephemeral containers through pods/<name>/ephemeralcontainers with
// `kubectl debug` (1.27 and 1.33) and raw PUTs: what may be added, what
// may not change, and upstream v1.35's messages for each refusal. Without
// a node nothing runs them: chapter 5's e2e does.

import (
	"strings"
	"testing"
)

func TestEphemeralContainers(t *testing.T) {
	for _, v := range []string{"1.27", "1.33"} {
		t.Run("kubectl-"+v, func(t *testing.T) {
			newKube(t, v).ephemeralContainers()
		})
	}
}

func (k *kube) ephemeralContainers() {
	t := k.t
	k.ok("pod/web created\n", "run", "web", "--image=nginx")
	r := k.run("get", "--raw", "/api/v1/namespaces/default/pods/web/ephemeralcontainers")
	if r.ExitCode != 0 || !strings.Contains(r.Stdout, `"kind":"Pod"`) || !strings.Contains(r.Stdout, `"name":"web"`) {
		t.Errorf("GET pods/web/ephemeralcontainers: exit %d\n%s%s", r.ExitCode, r.Stdout, r.Stderr)
	}

	// kubectl debug GETs the pod and PATCHes the subresource.
	// kubectl 1.33 warns of its default profile, legacy.
	warn := k.pick("", "--profile=legacy is deprecated and will be removed in the future. It is recommended to explicitly specify a profile, for example \"--profile=general\".\n")
	targeting := func(c string) string {
		return "Targeting container \"" + c + "\". If you don't see processes from this container it may be because the container runtime doesn't support this feature.\n"
	}
	k.exact([]string{"debug", "web", "--image=busybox", "--container=dbg", "--target=web", "--", "sh", "-c", "echo hello; sleep 3600"},
		targeting("web"), warn, 0)
	k.ok(`2 dbg busybox ["sh","-c","echo hello; sleep 3600"] web Always File`, "get", "pod", "web", "-o",
		"jsonpath={.metadata.generation} {.spec.ephemeralContainers[0].name} {.spec.ephemeralContainers[0].image} "+
			"{.spec.ephemeralContainers[0].command} {.spec.ephemeralContainers[0].targetContainerName} "+
			"{.spec.ephemeralContainers[0].imagePullPolicy} {.spec.ephemeralContainers[0].terminationMessagePolicy}")

	// A name any container of the pod has is refused, a target that is no
	// container of the pod too.
	k.exact([]string{"debug", "web", "--image=busybox", "--container=web"}, "",
		warn+"The Pod \"web\" is invalid: spec.ephemeralContainers[1].name: Duplicate value: \"web\"\n", 1)
	k.exact([]string{"debug", "web", "--image=busybox", "--container=d2", "--target=nope"}, targeting("nope"),
		warn+"The Pod \"web\" is invalid: spec.ephemeralContainers[1].targetContainerName: Not found: \"nope\"\n", 1)

	// Everything through a PUT of the whole pod: existing ones may not be
	// removed or changed, forbidden fields, and the rest of the pod is
	// dropped, not refused.
	put := func(ephemeral string) []string {
		k.write("pod.json", `{"apiVersion":"v1","kind":"Pod","metadata":{"name":"web","namespace":"default"},
"spec":{"containers":[{"name":"web","image":"nginx:changed"}],"ephemeralContainers":`+ephemeral+`}}`)
		return []string{"replace", "--raw", "/api/v1/namespaces/default/pods/web/ephemeralcontainers", "-f", "pod.json"}
	}
	dbg := `{"name":"dbg","image":"busybox","command":["sh","-c","echo hello; sleep 3600"],"targetContainerName":"web",` +
		`"imagePullPolicy":"Always","terminationMessagePolicy":"File","terminationMessagePath":"/dev/termination-log","stdin":false,"tty":false}`
	r = k.run(put(`[]`)...)
	if r.ExitCode != 1 || !strings.Contains(r.Stderr, `spec.ephemeralContainers: Forbidden: existing ephemeral containers "dbg" may not be removed`) {
		t.Errorf("removal: exit %d\n%s%s", r.ExitCode, r.Stdout, r.Stderr)
	}
	r = k.run(put(`[` + strings.Replace(dbg, `"busybox"`, `"busybox:1.36"`, 1) + `]`)...)
	if r.ExitCode != 1 || !strings.Contains(r.Stderr, `spec.ephemeralContainers: Forbidden: existing ephemeral containers "dbg" may not be changed`) {
		t.Errorf("change: exit %d\n%s%s", r.ExitCode, r.Stdout, r.Stderr)
	}
	r = k.run(put(`[` + dbg + `,{"name":"bad","image":"busybox","ports":[{"containerPort":80}],"resources":{"requests":{"cpu":"1"}},` +
		`"readinessProbe":{"exec":{"command":["true"]}},"lifecycle":{"preStop":{"exec":{"command":["true"]}}},"volumeMounts":[{"name":"x","mountPath":"/x","subPath":"y"}]}]`)...)
	for _, want := range []string{
		`spec.ephemeralContainers[1].ports: Forbidden: cannot be set for an Ephemeral Container`,
		`spec.ephemeralContainers[1].resources: Forbidden: cannot be set for an Ephemeral Container`,
		`spec.ephemeralContainers[1].readinessProbe: Forbidden: cannot be set for an Ephemeral Container`,
		`spec.ephemeralContainers[1].lifecycle: Forbidden: cannot be set for an Ephemeral Container`,
		`spec.ephemeralContainers[1].volumeMounts[0].subPath: Forbidden: cannot be set for an Ephemeral Container`,
		`spec.ephemeralContainers[1].volumeMounts[0].name: Not found: "x"`,
	} {
		if r.ExitCode != 1 || !strings.Contains(r.Stderr, want) {
			t.Errorf("forbidden fields: want %s; exit %d\n%s%s", want, r.ExitCode, r.Stdout, r.Stderr)
		}
	}
	r = k.run(put(`[` + dbg + `,{"name":"two","image":"busybox","imagePullPolicy":"IfNotPresent","terminationMessagePolicy":"File"}]`)...)
	if r.ExitCode != 0 {
		t.Errorf("adding a second one: exit %d\n%s%s", r.ExitCode, r.Stdout, r.Stderr)
	}
	k.ok("3 nginx dbg two", "get", "pod", "web", "-o",
		"jsonpath={.metadata.generation} {.spec.containers[0].image} {.spec.ephemeralContainers[*].name}")

	// The pod itself may not change its ephemeral containers.
	r = k.run("patch", "pod", "web", "--type=json", "--patch", `[{"op":"remove","path":"/spec/ephemeralContainers/0"}]`)
	if r.ExitCode != 1 || !strings.Contains(r.Stderr, "spec: Forbidden: pod updates may not change fields other than") {
		t.Errorf("pod patch of ephemeralContainers: exit %d\n%s%s", r.ExitCode, r.Stdout, r.Stderr)
	}

	// Only cluster-admin adds them: no bootstrap role names pods/ephemeralcontainers.
	k.ok("serviceaccount/default created\n", "create", "serviceaccount", "default")
	k.ok("clusterrolebinding.rbac.authorization.k8s.io/e created\n", "create", "clusterrolebinding", "e", "--clusterrole=edit",
		"--serviceaccount=default:default")
	r = k.run("auth", "can-i", "patch", "pods", "--subresource=ephemeralcontainers", "--as=system:serviceaccount:default:default")
	if r.Stdout != "no\n" {
		t.Errorf("edit may add ephemeral containers: %q %q", r.Stdout, r.Stderr)
	}
}
