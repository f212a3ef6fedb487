package main_test

// In-place pod resize through pods/<name>/resize with kubectl 1.33
// (`kubectl patch --subresource resize`): what may change, what may not,
// and upstream v1.35's messages for each refusal.

import "testing"

func TestPodResize(t *testing.T) {
	k := newKube(t, "1.33")
	k.ok("serviceaccount/default created\n", "create", "serviceaccount", "default")
	k.write("pod.yaml", `apiVersion: v1
kind: Pod
metadata:
  name: web
spec:
  initContainers:
  - name: side
    image: busybox
    restartPolicy: Always
    resources:
      requests: {cpu: 100m, memory: 64Mi}
      limits: {cpu: 200m, memory: 128Mi}
  - name: init
    image: busybox
    resources:
      requests: {cpu: 100m}
  containers:
  - name: nginx
    image: nginx:1.27
    resizePolicy:
    - resourceName: cpu
      restartPolicy: NotRequired
    resources:
      requests: {cpu: 100m, memory: 100Mi, ephemeral-storage: 1Gi}
      limits: {cpu: 200m, memory: 200Mi}
`)
	k.ok("pod/web created\n", "apply", "-f", "pod.yaml")
	resize := func(patch string) []string {
		return []string{"patch", "pod", "web", "--subresource", "resize", "--patch", patch}
	}
	k.ok(`1 {"limits":{"cpu":"200m","memory":"200Mi"},"requests":{"cpu":"100m","ephemeral-storage":"1Gi","memory":"100Mi"}}`,
		"get", "pod", "web", "--subresource", "resize", "-o", "jsonpath={.metadata.generation} {.spec.containers[0].resources}")

	// cpu and memory of a regular container change; the generation moves.
	k.ok("pod/web patched\n", resize(`{"spec":{"containers":[{"name":"nginx","resources":{"requests":{"cpu":"150m"},"limits":{"cpu":"300m"}}}]}}`)...)
	k.ok(`2 {"limits":{"cpu":"300m","memory":"200Mi"},"requests":{"cpu":"150m","ephemeral-storage":"1Gi","memory":"100Mi"}} Burstable`,
		"get", "pod", "web", "-o", "jsonpath={.metadata.generation} {.spec.containers[0].resources} {.status.qosClass}")
	// Anything else in the patch is dropped, not refused.
	k.ok("pod/web patched\n", resize(`{"spec":{"containers":[{"name":"nginx","image":"nginx:1.28","resources":{"requests":{"cpu":"160m"}}}]}}`)...)
	k.ok("3 nginx:1.27 160m", "get", "pod", "web", "-o",
		"jsonpath={.metadata.generation} {.spec.containers[0].image} {.spec.containers[0].resources.requests.cpu}")

	k.fails("The Pod \"web\" is invalid: spec: Forbidden: only cpu and memory resources are mutable\n",
		resize(`{"spec":{"containers":[{"name":"nginx","resources":{"requests":{"ephemeral-storage":"2Gi"}}}]}}`)...)
	k.fails("The Pod \"web\" is invalid: spec.containers[0].resources.limits: Forbidden: resource limits cannot be removed\n",
		resize(`{"spec":{"containers":[{"name":"nginx","resources":{"limits":{"memory":null}}}]}}`)...)
	k.fails("The Pod \"web\" is invalid: spec.containers[0].resources.requests: Invalid value: \"1\": must be less than or equal to cpu limit of 300m\n",
		resize(`{"spec":{"containers":[{"name":"nginx","resources":{"requests":{"cpu":"1"}}}]}}`)...)
	k.fails("The Pod \"web\" is invalid: spec: Forbidden: only cpu and memory resources are mutable\n",
		resize(`{"spec":{"containers":[{"name":"nginx","resizePolicy":[{"resourceName":"memory","restartPolicy":"RestartContainer"}]}]}}`)...)
	k.fails(`The Pod "web" is invalid: 
* spec.containers[0].resizePolicy: Unsupported value: "Sometimes": supported values: "NotRequired", "RestartContainer"
* spec: Forbidden: only cpu and memory resources are mutable
`, resize(`{"spec":{"containers":[{"name":"nginx","resizePolicy":[{"resourceName":"cpu","restartPolicy":"Sometimes"}]}]}}`)...)

	// Sidecars resize like regular containers; other init containers not.
	k.ok("pod/web patched\n", resize(`{"spec":{"initContainers":[{"name":"side","resources":{"requests":{"cpu":"150m"}}}]}}`)...)
	k.fails("The Pod \"web\" is invalid: spec: Forbidden: resources for non-sidecar init containers are immutable\n",
		resize(`{"spec":{"initContainers":[{"name":"init","resources":{"requests":{"cpu":"150m"}}}]}}`)...)
	k.fails("The Pod \"web\" is invalid: spec: Forbidden: only cpu and memory resources for sidecar containers are mutable\n",
		resize(`{"spec":{"initContainers":[{"name":"side","resources":{"requests":{"ephemeral-storage":"1Gi"}}}]}}`)...)
	k.fails("The Pod \"web\" is invalid: spec.initContainers[0].resources.limits: Forbidden: resource limits cannot be removed\n",
		"patch", "pod", "web", "--subresource", "resize", "--type=json", "--patch", `[{"op":"remove","path":"/spec/initContainers/0/resources/limits"}]`)
	// A merge patch replaces the containers list: resources missing from it are removals.
	k.fails(`The Pod "web" is invalid: 
* spec.containers[0].resources.requests: Forbidden: resource requests cannot be removed
* spec.containers[0].resources.limits: Forbidden: resource limits cannot be removed
* spec: Forbidden: only cpu and memory resources are mutable
`, "patch", "pod", "web", "--subresource", "resize", "--type=merge", "--patch",
		`{"spec":{"containers":[{"name":"nginx","resources":{"requests":{"cpu":"170m"}}}]}}`)

	// The QoS class stays.
	k.ok("pod/best created\n", "run", "best", "--image=nginx")
	k.fails("The Pod \"best\" is invalid: spec: Invalid value: \"BestEffort\": Pod QOS Class may not change as a result of resizing\n",
		"patch", "pod", "best", "--subresource", "resize", "--patch", `{"spec":{"containers":[{"name":"best","resources":{"requests":{"memory":"40Mi"}}}]}}`)
	k.ok("pod/guar created\n", "run", "guar", "--image=nginx",
		`--overrides={"spec":{"containers":[{"name":"guar","image":"nginx","resources":{"requests":{"cpu":"100m","memory":"64Mi"},"limits":{"cpu":"100m","memory":"64Mi"}}}]}}`)
	k.fails("The Pod \"guar\" is invalid: spec: Invalid value: \"Guaranteed\": Pod QOS Class may not change as a result of resizing\n",
		"patch", "pod", "guar", "--subresource", "resize", "--patch", `{"spec":{"containers":[{"name":"guar","resources":{"requests":{"cpu":"50m"}}}]}}`)
	k.ok("pod/guar patched\n", "patch", "pod", "guar", "--subresource", "resize", "--patch",
		`{"spec":{"containers":[{"name":"guar","resources":{"requests":{"cpu":"200m"},"limits":{"cpu":"200m"}}}]}}`)
	k.ok(`2 {"limits":{"cpu":"200m","memory":"64Mi"},"requests":{"cpu":"200m","memory":"64Mi"}}`,
		"get", "pod", "guar", "-o", "jsonpath={.metadata.generation} {.spec.containers[0].resources}")

	// Pods with pod-level resources, static pods and Windows pods are not resized.
	k.ok("pod/pl created\n", "run", "pl", "--image=nginx",
		`--overrides={"spec":{"resources":{"requests":{"cpu":"100m"},"limits":{"cpu":"200m"}},"containers":[{"name":"pl","image":"nginx"}]}}`)
	k.fails("The Pod \"pl\" is invalid: []: Forbidden: resize of pods with pod-level resources is forbidden when InPlacePodLevelResourcesVerticalScalingEnabled feature gate is disabled\n",
		"patch", "pod", "pl", "--subresource", "resize", "--patch", `{"spec":{"containers":[{"name":"pl","resources":{"requests":{"cpu":"50m"}}}]}}`)
	k.ok("pod/w created\n", "run", "w", "--image=nginx",
		`--overrides={"spec":{"os":{"name":"windows"},"containers":[{"name":"w","image":"nginx","resources":{"requests":{"cpu":"100m"}}}]}}`)
	k.fails("The Pod \"w\" is invalid: []: Forbidden: windows pods cannot be resized\n",
		"patch", "pod", "w", "--subresource", "resize", "--patch", `{"spec":{"containers":[{"name":"w","resources":{"requests":{"cpu":"150m"}}}]}}`)

	// A plain pod update still may not touch resources.
	if r := k.run("patch", "pod", "web", "--patch", `{"spec":{"containers":[{"name":"nginx","resources":{"requests":{"cpu":"170m"}}}]}}`); r.ExitCode != 1 {
		t.Errorf("resources changed by a pod patch: exit %d, %s%s", r.ExitCode, r.Stdout, r.Stderr)
	}

	// Only cluster-admin may resize: no bootstrap role names pods/resize
	// (kubectl reads pods/resize before it patches).
	k.ok("clusterrolebinding.rbac.authorization.k8s.io/e created\n", "create", "clusterrolebinding", "e", "--clusterrole=edit",
		"--serviceaccount=default:default")
	r := k.run("auth", "can-i", "patch", "pods", "--subresource=resize", "--as=system:serviceaccount:default:default")
	if r.Stdout != "no\n" {
		t.Errorf("edit may resize: %q %q", r.Stdout, r.Stderr)
	}
	k.fails("Error from server (Forbidden): pods \"web\" is forbidden: User \"system:serviceaccount:default:default\" cannot get resource \"pods/resize\" in API group \"\" in the namespace \"default\"\n",
		"patch", "pod", "web", "--subresource", "resize", "--as=system:serviceaccount:default:default",
		"--patch", `{"spec":{"containers":[{"name":"nginx","resources":{"requests":{"cpu":"170m"}}}]}}`)
}
