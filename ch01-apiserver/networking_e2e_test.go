package main_test

// Ingresses, IngressClasses, NetworkPolicies, HorizontalPodAutoscalers and
// RuntimeClasses through the real kubectl 1.27 and 1.33 and the real ch01
// binary. The expected texts are a real v1.35 apiserver's: its table
// columns, its defaults, its validation and admission messages (the
// compare scenario ch01-networking-autoscaling checks the same against the
// recorded outputs of a real cluster).

import (
	"strings"
	"testing"
)

func TestNetworkingAutoscalingNodeObjects(t *testing.T) {
	for _, v := range []string{"1.27", "1.33"} {
		t.Run("kubectl-"+v, func(t *testing.T) {
			k := newKube(t, v)
			t.Parallel()
			k.horizontalPodAutoscalers()
			k.ingresses()
			k.networkPolicies()
			k.runtimeClasses()
			k.prune()
		})
	}
}

func (k *kube) horizontalPodAutoscalers() {
	t := k.t
	k.ok("deployment.apps/web created\n", "create", "deployment", "web", "--image=nginx:1.27")
	// kubectl 1.27 posts autoscaling/v1, 1.33 autoscaling/v2: the same object either way.
	k.ok("horizontalpodautoscaler.autoscaling/web autoscaled\n", "autoscale", "deployment", "web", "--max=5")
	k.ok("horizontalpodautoscaler.autoscaling/web-cpu autoscaled\n", "autoscale", "deployment", "web", "--name=web-cpu", "--min=2", "--max=4", "--cpu-percent=60")
	k.write("custom.yaml", `apiVersion: autoscaling/v2
kind: HorizontalPodAutoscaler
metadata:
  name: custom
spec:
  scaleTargetRef: {apiVersion: apps/v1, kind: Deployment, name: web}
  maxReplicas: 3
  metrics:
  - type: Resource
    resource: {name: memory, target: {type: AverageValue, averageValue: 100Mi}}
  - type: Pods
    pods: {metric: {name: packets}, target: {type: AverageValue, averageValue: 1k}}
  - type: External
    external: {metric: {name: queue}, target: {type: Value, value: "30"}}
  behavior:
    scaleUp: {policies: [{type: Pods, value: 2, periodSeconds: 30}]}
`)
	k.ok("horizontalpodautoscaler.autoscaling/custom created\n", "create", "-f", "custom.yaml")
	k.table(`NAME REFERENCE TARGETS MINPODS MAXPODS REPLICAS AGE
custom Deployment/web memory: <unknown>/100Mi, <unknown>/1k + 1 more... 1 3 0 <age>
web Deployment/web cpu: <unknown>/80% 1 5 0 <age>
web-cpu Deployment/web cpu: <unknown>/60% 2 4 0 <age>`, "get", "hpa")

	// Stored as autoscaling/v2 with the defaults filled in; read through v1,
	// what v1 has no field for rides in annotations.
	yaml := k.run("get", "hpa", "custom", "-o", "yaml").Stdout
	for _, want := range []string{"apiVersion: autoscaling/v2\n", "  minReplicas: 1\n",
		"    scaleDown:\n      policies:\n      - periodSeconds: 15\n        type: Percent\n        value: 100\n      selectPolicy: Max\n",
		"      selectPolicy: Max\n      stabilizationWindowSeconds: 0\n", "status:\n  currentMetrics: null\n  desiredReplicas: 0\n"} {
		if !strings.Contains(yaml, want) {
			t.Errorf("kubectl get hpa custom -o yaml lacks %q:\n%s", want, yaml)
		}
	}
	k.ok(`{"maxReplicas":4,"minReplicas":2,"scaleTargetRef":{"apiVersion":"apps/v1","kind":"Deployment","name":"web"},"targetCPUUtilizationPercentage":60}`,
		"get", "horizontalpodautoscalers.v1.autoscaling", "web-cpu", "-o", "jsonpath={.spec}")
	k.ok(`[{"type":"Resource","resource":{"name":"memory","targetAverageValue":"100Mi"}},{"type":"Pods","pods":{"metricName":"packets","targetAverageValue":"1k"}},{"type":"External","external":{"metricName":"queue","targetValue":"30"}}]`,
		"get", "horizontalpodautoscalers.v1.autoscaling", "custom", "-o", `jsonpath={.metadata.annotations.autoscaling\.alpha\.kubernetes\.io/metrics}`)
	raw := k.run("get", "--raw", "/apis/autoscaling/v1").Stdout
	if !strings.Contains(raw, `"storageVersionHash":"qwQve8ut294="`) {
		t.Errorf("/apis/autoscaling/v1 does not give the autoscaling/v2 storage version hash: %s", raw)
	}

	// The status subresource writes only the status; the main resource keeps it.
	k.ok("horizontalpodautoscaler.autoscaling/web patched\n", "patch", "hpa", "web", "--subresource=status", "--type=merge",
		"-p", `{"status":{"currentReplicas":3,"desiredReplicas":3}}`)
	k.ok("horizontalpodautoscaler.autoscaling/web patched\n", "patch", "hpa", "web", "--type=merge",
		"-p", `{"spec":{"maxReplicas":6},"status":{"currentReplicas":1}}`)
	k.table("NAME REFERENCE TARGETS MINPODS MAXPODS REPLICAS AGE\nweb Deployment/web cpu: <unknown>/80% 1 6 3 <age>", "get", "hpa", "web")

	// Through autoscaling/v1 the conditions ride in an annotation; an update
	// of the main resource cannot change them, nor /status the metrics.
	k.ok("horizontalpodautoscaler.autoscaling/custom patched\n", "patch", "hpa", "custom", "--subresource=status", "--type=merge",
		"-p", `{"status":{"conditions":[{"type":"AbleToScale","status":"True","lastTransitionTime":"2026-12-01T10:00:00Z","reason":"ReadyForNewScale"}]}}`)
	k.ok("horizontalpodautoscaler.autoscaling/custom patched\n", "patch", "horizontalpodautoscalers.v1.autoscaling", "custom", "--type=merge",
		"-p", `{"metadata":{"annotations":{"autoscaling.alpha.kubernetes.io/conditions":"[{\"type\":\"AbleToScale\",\"status\":\"False\",\"lastTransitionTime\":null}]"}},"spec":{"maxReplicas":7}}`)
	k.ok("horizontalpodautoscaler.autoscaling/custom patched\n", "patch", "horizontalpodautoscalers.v1.autoscaling", "custom", "--subresource=status", "--type=merge",
		"-p", `{"metadata":{"annotations":{"autoscaling.alpha.kubernetes.io/metrics":"[]"}},"status":{"currentReplicas":5}}`)
	k.ok("7 True Resource Pods External 5", "get", "hpa", "custom", "-o",
		"jsonpath={.spec.maxReplicas} {.status.conditions[*].status} {.spec.metrics[*].type} {.status.currentReplicas}")

	// HorizontalPodAutoscalers are in the "all" category.
	if out := k.run("get", "all").Stdout; !strings.Contains(out, "horizontalpodautoscaler.autoscaling/custom") {
		t.Errorf("kubectl get all lacks the autoscalers:\n%s", out)
	}

	// Validation, with the field paths of the v2 form also for a v1 object.
	k.write("bad-v1.yaml", `apiVersion: autoscaling/v1
kind: HorizontalPodAutoscaler
metadata:
  name: bad-v1
spec:
  scaleTargetRef: {kind: Deployment, name: web}
  minReplicas: 0
  maxReplicas: 3
  targetCPUUtilizationPercentage: 0
`)
	k.fails(`The HorizontalPodAutoscaler "bad-v1" is invalid: 
* spec.minReplicas: Invalid value: 0: must be greater than or equal to 1
* spec.scaleTargetRef.apiVersion: Invalid value: "": apiVersion must specify API group
* spec.metrics[0].resource.target.averageUtilization: Invalid value: 0: must be greater than 0
* spec.metrics: Forbidden: must specify at least one Object or External metric to support scaling to zero replicas
`, "create", "-f", "bad-v1.yaml")
}

func (k *kube) ingresses() {
	k.ok("ingress.networking.k8s.io/before-class created\n", "create", "ingress", "before-class", "--rule=a.example.com/=svc:80")
	k.write("classes.yaml", `apiVersion: networking.k8s.io/v1
kind: IngressClass
metadata:
  name: nginx
  annotations: {ingressclass.kubernetes.io/is-default-class: "true"}
spec:
  controller: k8s.io/ingress-nginx
---
apiVersion: networking.k8s.io/v1
kind: IngressClass
metadata:
  name: other
spec:
  controller: example.com/other
  parameters: {apiGroup: example.com, kind: Params, name: p1}
`)
	k.ok("ingressclass.networking.k8s.io/nginx created\ningressclass.networking.k8s.io/other created\n", "apply", "-f", "classes.yaml")
	k.table("NAME CONTROLLER PARAMETERS AGE\nnginx k8s.io/ingress-nginx <none> <age>\nother example.com/other Params.example.com/p1 <age>", "get", "ingressclass")
	k.ok("Cluster", "get", "ingressclass", "other", "-o", "jsonpath={.spec.parameters.scope}")

	// The DefaultIngressClass admission gives an Ingress without a class the default one.
	k.ok("ingress.networking.k8s.io/simple created\n", "create", "ingress", "simple",
		"--rule=foo.example.com/bar*=svc1:8080,tls=my-cert", "--rule=bar.example.com/=svc2:http")
	k.ok("ingress.networking.k8s.io/catch-all created\n", "create", "ingress", "catch-all", "--class=other", "--default-backend=svc3:80")
	k.table(`NAME CLASS HOSTS ADDRESS PORTS AGE
before-class <none> a.example.com 80 <age>
catch-all other * 80 <age>
simple nginx foo.example.com,bar.example.com 80, 443 <age>`, "get", "ingress")
	k.ok("ingress.networking.k8s.io/simple patched\n", "patch", "ingress", "simple", "--subresource=status", "--type=merge",
		"-p", `{"status":{"loadBalancer":{"ingress":[{"ip":"203.0.113.10"},{"hostname":"lb.example.com"}]}}}`)
	k.table("NAME CLASS HOSTS ADDRESS PORTS AGE\nsimple nginx foo.example.com,bar.example.com 203.0.113.10,lb.example.com 80, 443 <age>",
		"get", "ingress", "simple", "-o", "wide")
	k.ok("1", "get", "ingress", "simple", "-o", "jsonpath={.metadata.generation}")

	k.write("bad-ingress.yaml", `apiVersion: networking.k8s.io/v1
kind: Ingress
metadata:
  name: bad
spec:
  rules:
  - host: 1.2.3.4
    http:
      paths:
      - path: foo
        pathType: Prefix
        backend: {service: {name: svc, port: {number: 80}}}
      - path: /x
        backend: {service: {name: svc}}
`)
	k.fails(`The Ingress "bad" is invalid: 
* spec.rules[0].host: Invalid value: "1.2.3.4": must be a DNS name, not an IP address
* spec.rules[0].http.paths[0].path: Invalid value: "foo": must be an absolute path
* spec.rules[0].http.paths[1].pathType: Required value: pathType must be specified
`, "create", "-f", "bad-ingress.yaml")
	k.fails("The IngressClass \"nginx\" is invalid: spec.controller: Invalid value: \"example.com/new\": field is immutable\n",
		"patch", "ingressclass", "nginx", "--type=merge", "-p", `{"spec":{"controller":"example.com/new"}}`)
}

func (k *kube) networkPolicies() {
	k.write("netpol.yaml", `apiVersion: networking.k8s.io/v1
kind: NetworkPolicy
metadata:
  name: web-allow
spec:
  podSelector: {matchLabels: {app: web}}
  ingress:
  - from: [{podSelector: {matchLabels: {role: frontend}}}]
    ports: [{port: 80}, {port: 8000, endPort: 8080, protocol: UDP}]
  egress:
  - to: [{ipBlock: {cidr: 10.0.0.0/8}}]
---
apiVersion: networking.k8s.io/v1
kind: NetworkPolicy
metadata:
  name: deny-all
spec:
  podSelector: {}
`)
	k.ok("networkpolicy.networking.k8s.io/web-allow created\nnetworkpolicy.networking.k8s.io/deny-all created\n", "apply", "-f", "netpol.yaml")
	k.table("NAME POD-SELECTOR AGE\ndeny-all <none> <age>\nweb-allow app=web <age>", "get", "netpol")
	// Defaults: TCP ports, and the policy types its rules imply.
	k.ok(`TCP ["Ingress","Egress"] ["Ingress"]`, "get", "netpol", "-o",
		`jsonpath={.items[1].spec.ingress[0].ports[0].protocol} {.items[1].spec.policyTypes} {.items[0].spec.policyTypes}`)
	k.write("bad-netpol.yaml", `apiVersion: networking.k8s.io/v1
kind: NetworkPolicy
metadata:
  name: bad
spec:
  podSelector: {}
  ingress:
  - ports: [{port: 80, endPort: 70}]
    from: [{}, {ipBlock: {cidr: 10.0.0.0/8, except: [192.168.0.0/24]}}]
`)
	k.fails("The NetworkPolicy \"bad\" is invalid: \n"+
		"* spec.ingress[0].ports[0].endPort: Invalid value: 80: must be greater than or equal to `port`\n"+
		"* spec.ingress[0].from[0]: Required value: must specify a peer\n"+
		"* spec.ingress[0].from[1].ipBlock.except[0]: Invalid value: \"192.168.0.0/24\": must be a strict subset of `cidr`\n",
		"create", "-f", "bad-netpol.yaml")
}

func (k *kube) runtimeClasses() {
	k.write("runtimeclass.yaml", `apiVersion: node.k8s.io/v1
kind: RuntimeClass
metadata:
  name: gvisor
handler: runsc
overhead: {podFixed: {cpu: 250m, memory: 64Mi}}
scheduling:
  nodeSelector: {sandbox: "true"}
  tolerations: [{key: sandbox, operator: Exists, effect: NoSchedule}]
`)
	k.ok("runtimeclass.node.k8s.io/gvisor created\n", "create", "-f", "runtimeclass.yaml")
	k.table("NAME HANDLER AGE\ngvisor runsc <age>", "get", "runtimeclass")
	k.fails("The RuntimeClass \"gvisor\" is invalid: handler: Invalid value: \"kata\": field is immutable\n",
		"patch", "runtimeclass", "gvisor", "--type=merge", "-p", `{"handler":"kata"}`)

	// The RuntimeClass admission: the class must exist, its overhead and
	// scheduling constraints go into the pod.
	k.ok("serviceaccount/default created\n", "create", "serviceaccount", "default")
	k.ok("pod/sandboxed created\n", "run", "sandboxed", "--image=busybox", "--restart=Never",
		`--overrides={"spec":{"runtimeClassName":"gvisor","nodeSelector":{"disk":"ssd"}}}`)
	k.ok(`{"cpu":"250m","memory":"64Mi"} {"disk":"ssd","sandbox":"true"} sandbox`, "get", "pod", "sandboxed", "-o",
		`jsonpath={.spec.overhead} {.spec.nodeSelector} {.spec.tolerations[2].key}`)
	k.fails("Error from server (Forbidden): pods \"nowhere\" is forbidden: pod rejected: RuntimeClass \"nope\" not found\n",
		"run", "nowhere", "--image=busybox", "--restart=Never", `--overrides={"spec":{"runtimeClassName":"nope"}}`)
}

// prune: kubectl's default prune list names Ingresses, so `apply --prune`
// works only where they are served. (stderr has the server's deprecation
// warning for v1 Endpoints, as against a real apiserver.)
func (k *kube) prune() {
	k.write("both.yaml", "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a, labels: {app: x}}\n---\n"+
		"apiVersion: v1\nkind: ConfigMap\nmetadata: {name: b, labels: {app: x}}\n")
	k.write("one.yaml", "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a, labels: {app: x}}\n")
	for _, step := range []struct{ file, stdout string }{
		{"both.yaml", "configmap/a created\nconfigmap/b created\n"},
		{"one.yaml", "configmap/a unchanged\nconfigmap/b pruned\n"},
	} {
		r := k.run("apply", "-f", step.file, "-l", "app=x", "--prune")
		if r.Stdout != step.stdout || r.ExitCode != 0 {
			k.t.Errorf("kubectl apply -f %s -l app=x --prune: exit %d\nstdout:\n%s\nstderr:\n%s\nwant stdout:\n%s", step.file, r.ExitCode, r.Stdout, r.Stderr, step.stdout)
		}
	}
}
