package main_test

// The end-to-end test of chapter 1: the real kubectl 1.27 and 1.33 binaries
// against the real ch01 binary. Expected texts come from kubectl run against a
// real Kubernetes v1.35.4 (the reference transcripts of the same manifests,
// copied to testdata/), minus what only a controller-manager or a scheduler
// adds there (Deployment status, ReplicaSets and their pods, pod conditions,
// the kube-api-access volume, events). Only ages, UIDs, resourceVersions,
// timestamps and ClusterIPs are normalised.

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"kubik/internal/testenv"
)

func TestKubectlEndToEnd(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and starts the apiserver and runs kubectl 1.27 and 1.33 against it")
	}
	bin := testenv.Build(t, "kubik/ch01-apiserver")
	for _, v := range []string{"1.27", "1.33"} {
		t.Run("kubectl-"+v, func(t *testing.T) {
			testenv.Kubectl(t, v) // skips when this kubectl is not installed
			t.Parallel()
			k := &kube{t: t, c: testenv.Start(t, bin, testenv.Options{}), v: v, dir: workdir(t)}
			k.discovery()
			k.createFromManifests()
			k.getOutputs()
			k.describe()
			k.fileErrors()
			k.writes()
			k.imperativeCreate()
			k.serverSideApply()
			k.dryRun()
			k.watch()
			k.waitAndDelete()
		})
	}
}

// kube runs one kubectl version against one cluster.
type kube struct {
	t   *testing.T
	c   *testenv.Cluster
	v   string
	dir string // holds the manifests; kubectl runs here
}

// newKube starts a fresh chapter 1 apiserver for one test with kubectl
// version v (skipped under -short and when that kubectl is not installed).
func newKube(t *testing.T, v string) *kube {
	if testing.Short() {
		t.Skip("builds and starts the apiserver and runs kubectl against it")
	}
	testenv.Kubectl(t, v)
	bin := testenv.Build(t, "kubik/ch01-apiserver")
	return &kube{t: t, c: testenv.Start(t, bin, testenv.Options{}), v: v, dir: t.TempDir()}
}

// workdir copies testdata/ to a temp dir the test may write into.
func workdir(t *testing.T) string {
	dir := t.TempDir()
	files, err := filepath.Glob("testdata/*.yaml")
	if err != nil || len(files) == 0 {
		t.Fatalf("no manifests in testdata/: %v", err)
	}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, filepath.Base(f)), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func (k *kube) write(name, content string) {
	k.t.Helper()
	if err := os.WriteFile(filepath.Join(k.dir, name), []byte(content), 0o644); err != nil {
		k.t.Fatal(err)
	}
}

func (k *kube) run(args ...string) testenv.Result {
	k.t.Helper()
	return k.c.Kubectl(k.t, k.v, k.dir, args...)
}

// pick chooses the text of kubectl 1.27 or of 1.33.
func (k *kube) pick(v127, v133 string) string {
	if k.v == "1.27" {
		return v127
	}
	return v133
}

// exact runs kubectl and compares stdout, stderr (both normalised) and the exit code.
func (k *kube) exact(args []string, stdout, stderr string, code int) testenv.Result {
	k.t.Helper()
	r := k.run(args...)
	if got := normalize(r.Stdout); got != stdout {
		k.t.Errorf("kubectl %s\nstdout:\n%s\nwant:\n%s\n%s", strings.Join(args, " "), got, stdout, lineDiff(got, stdout))
	}
	if got := normalize(dropShortWatchWarnings(r.Stderr)); got != stderr {
		k.t.Errorf("kubectl %s\nstderr:\n%s\nwant:\n%s", strings.Join(args, " "), got, stderr)
	}
	if r.ExitCode != code {
		k.t.Errorf("kubectl %s: exit code %d, want %d", strings.Join(args, " "), r.ExitCode, code)
	}
	return r
}

// shortWatchRE is client-go's log line for a watch that ended within a
// second without events: `kubectl wait --timeout=1s` asks the server to end
// its watch after 1 s (timeoutSeconds), and on a loaded machine the client
// may count less than that from its side. A real apiserver gives the same
// line; it is kubectl's timing noise, not output to compare.
var shortWatchRE = regexp.MustCompile(`(?m)^I\d{4} [0-9:.]+ +\d+ reflector\.go:\d+\] "Warning: watch ended with error" .*very short watch.*\n`)

func dropShortWatchWarnings(stderr string) string { return shortWatchRE.ReplaceAllString(stderr, "") }

// ok runs kubectl, expects exit 0 and an empty stderr, and compares stdout exactly.
func (k *kube) ok(stdout string, args ...string) testenv.Result {
	k.t.Helper()
	return k.exact(args, stdout, "", 0)
}

// fails runs kubectl, expects exit 1, nothing on stdout and stderr exactly.
func (k *kube) fails(stderr string, args ...string) {
	k.t.Helper()
	k.exact(args, "", stderr, 1)
}

// table runs kubectl and compares its table output row by row, column by
// column, with ages replaced by <age> (column widths follow the widest age).
func (k *kube) table(want string, args ...string) {
	k.t.Helper()
	r := k.run(args...)
	if r.ExitCode != 0 || r.Stderr != "" {
		k.t.Errorf("kubectl %s: exit %d, stderr %q", strings.Join(args, " "), r.ExitCode, r.Stderr)
	}
	if got, w := cells(r.Stdout), cells(want); got != w {
		k.t.Errorf("kubectl %s\ngot:\n%s\nwant:\n%s\n%s", strings.Join(args, " "), r.Stdout, want, lineDiff(got, w))
	}
}

var (
	ageRE  = regexp.MustCompile(`^(\d+[smhdy])+$`)
	ipRE   = regexp.MustCompile(`\b10\.(\d+)\.(\d+)\.(\d+)\b`)
	timeRE = regexp.MustCompile(`\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ`)
	dateRE = regexp.MustCompile(`[A-Z][a-z]{2}, \d\d [A-Z][a-z]{2} \d{4} \d\d:\d\d:\d\d \+0000`)
	rvRE   = regexp.MustCompile(`(resourceVersion"?: )"\d+"`)
	uidRE  = regexp.MustCompile(`[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}`)
)

// normalize replaces what differs from run to run: timestamps,
// resourceVersions, UIDs and allocated ClusterIPs (10.96.0.1, the kubernetes
// Service's, is fixed on every cluster and kept).
func normalize(s string) string {
	s = timeRE.ReplaceAllString(s, "<time>")
	s = dateRE.ReplaceAllString(s, "<time>")
	s = rvRE.ReplaceAllString(s, `${1}"<rv>"`)
	s = uidRE.ReplaceAllString(s, "<uid>")
	return ipRE.ReplaceAllStringFunc(s, func(ip string) string {
		if ip == "10.96.0.1" {
			return ip
		}
		return "<ip>"
	})
}

// cells is a table as lines of space-joined fields, ages as <age>.
func cells(s string) string {
	var out []string
	for _, line := range strings.Split(normalize(s), "\n") {
		f := strings.Fields(line)
		for i := range f {
			if ageRE.MatchString(f[i]) {
				f[i] = "<age>"
			}
		}
		out = append(out, strings.Join(f, " "))
	}
	return strings.TrimSpace(strings.Join(out, "\n"))
}

// lineDiff names the first line that differs.
func lineDiff(got, want string) string {
	g, w := strings.Split(got, "\n"), strings.Split(want, "\n")
	for i := 0; i < len(g) || i < len(w); i++ {
		var a, b string
		if i < len(g) {
			a = g[i]
		}
		if i < len(w) {
			b = w[i]
		}
		if a != b {
			return "first difference at line " + strconv.Itoa(i+1) + ":\n  got:  " + a + "\n  want: " + b
		}
	}
	return ""
}

// ---------------------------------------------------------------------------

func (k *kube) discovery() {
	t := k.t
	r := k.run("version")
	if r.ExitCode != 0 {
		t.Fatalf("kubectl version: exit %d\n%s", r.ExitCode, r.Combined())
	}
	// The server reports the release it follows, marked as Kubik's.
	wantServer := k.pick(
		`Server Version: version.Info{Major:"1", Minor:"35", GitVersion:"v1.35.4-kubik", GitCommit:"", GitTreeState:"clean", BuildDate:"2026-11-30T00:00:00Z", GoVersion:"`,
		"Server Version: v1.35.4-kubik\n")
	if !strings.Contains(r.Stdout, wantServer) {
		t.Errorf("kubectl version:\n%s\nwant a line with %q", r.Stdout, wantServer)
	}
	skew := "WARNING: version difference between client (" + k.v + ") and server (1.35) exceeds the supported minor version skew of +/-1\n"
	if !strings.HasSuffix(r.Stderr, skew) {
		t.Errorf("kubectl version stderr:\n%s\nwant it to end with %q", r.Stderr, skew)
	}

	r = k.run("api-resources")
	lines := strings.Split(cells(r.Stdout), "\n")
	if r.ExitCode != 0 || len(lines) < 10 || lines[0] != "NAME SHORTNAMES APIVERSION NAMESPACED KIND" {
		t.Errorf("kubectl api-resources: exit %d\n%s", r.ExitCode, r.Combined())
	}
	for _, row := range []string{
		"configmaps cm v1 true ConfigMap",
		"namespaces ns v1 false Namespace",
		"nodes no v1 false Node",
		"pods po v1 true Pod",
		"services svc v1 true Service",
		"deployments deploy apps/v1 true Deployment",
		"replicasets rs apps/v1 true ReplicaSet",
		"events ev events.k8s.io/v1 true Event",
	} {
		if !contains(lines, row) {
			t.Errorf("kubectl api-resources: no row %q in\n%s", row, r.Stdout)
		}
	}

	r = k.run("api-versions")
	vs := strings.Split(strings.TrimSpace(r.Stdout), "\n")
	if r.ExitCode != 0 || !contains(vs, "apps/v1") || !contains(vs, "batch/v1") || vs[len(vs)-1] != "v1" {
		t.Errorf("kubectl api-versions: exit %d\n%s", r.ExitCode, r.Combined())
	}

	dump := "\nTo further debug and diagnose cluster problems, use 'kubectl cluster-info dump'.\n"
	k.ok(k.pick(
		"\x1b[0;32mKubernetes control plane\x1b[0m is running at \x1b[0;33m"+k.c.URL+"\x1b[0m\n"+dump,
		"Kubernetes control plane is running at "+k.c.URL+"\n"+dump), "cluster-info")

	k.table(`
NAME              STATUS   AGE
default           Active   5s
kube-node-lease   Active   5s
kube-public       Active   5s
kube-system       Active   5s`, "get", "ns")
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func (k *kube) createFromManifests() {
	k.ok("pod/web created\n", "apply", "-f", "pod.yaml")
	k.ok("deployment.apps/nginx created\n", "apply", "-f", "deploy.yaml")
	k.ok("service/nginx created\n", "apply", "-f", "svc.yaml")
	k.ok("configmap/app-config created\n", "apply", "-f", "cm.yaml")
	// Applying the same manifest again changes nothing.
	k.ok("configmap/app-config unchanged\n", "apply", "-f", "cm.yaml")
}

// The -o yaml texts of the reference cluster, without the kube-api-access
// volume (ServiceAccount admission with a token controller), the pod's
// PodScheduled condition (scheduler) and the Deployment's status and revision
// annotation (deployment controller).
const wantPodYAML = `apiVersion: v1
kind: Pod
metadata:
  annotations:
    kubectl.kubernetes.io/last-applied-configuration: |
      {"apiVersion":"v1","kind":"Pod","metadata":{"annotations":{},"labels":{"app":"web"},"name":"web","namespace":"default"},"spec":{"containers":[{"image":"nginx:1.27","name":"nginx","ports":[{"containerPort":80}]}]}}
  creationTimestamp: "<time>"
  generation: 1
  labels:
    app: web
  name: web
  namespace: default
  resourceVersion: "<rv>"
  uid: <uid>
spec:
  containers:
  - image: nginx:1.27
    imagePullPolicy: IfNotPresent
    name: nginx
    ports:
    - containerPort: 80
      protocol: TCP
    resources: {}
    terminationMessagePath: /dev/termination-log
    terminationMessagePolicy: File
  dnsPolicy: ClusterFirst
  enableServiceLinks: true
  preemptionPolicy: PreemptLowerPriority
  priority: 0
  restartPolicy: Always
  schedulerName: default-scheduler
  securityContext: {}
  serviceAccount: default
  serviceAccountName: default
  terminationGracePeriodSeconds: 30
  tolerations:
  - effect: NoExecute
    key: node.kubernetes.io/not-ready
    operator: Exists
    tolerationSeconds: 300
  - effect: NoExecute
    key: node.kubernetes.io/unreachable
    operator: Exists
    tolerationSeconds: 300
status:
  phase: Pending
  qosClass: BestEffort
`

const wantDeployYAML = `apiVersion: apps/v1
kind: Deployment
metadata:
  annotations:
    kubectl.kubernetes.io/last-applied-configuration: |
      {"apiVersion":"apps/v1","kind":"Deployment","metadata":{"annotations":{},"labels":{"app":"nginx"},"name":"nginx","namespace":"default"},"spec":{"replicas":3,"selector":{"matchLabels":{"app":"nginx"}},"template":{"metadata":{"labels":{"app":"nginx"}},"spec":{"containers":[{"image":"nginx:1.27","name":"nginx","ports":[{"containerPort":80}],"resources":{"requests":{"cpu":"100m","memory":"64Mi"}}}]}}}}
  creationTimestamp: "<time>"
  generation: 1
  labels:
    app: nginx
  name: nginx
  namespace: default
  resourceVersion: "<rv>"
  uid: <uid>
spec:
  progressDeadlineSeconds: 600
  replicas: 3
  revisionHistoryLimit: 10
  selector:
    matchLabels:
      app: nginx
  strategy:
    rollingUpdate:
      maxSurge: 25%
      maxUnavailable: 25%
    type: RollingUpdate
  template:
    metadata:
      labels:
        app: nginx
    spec:
      containers:
      - image: nginx:1.27
        imagePullPolicy: IfNotPresent
        name: nginx
        ports:
        - containerPort: 80
          protocol: TCP
        resources:
          requests:
            cpu: 100m
            memory: 64Mi
        terminationMessagePath: /dev/termination-log
        terminationMessagePolicy: File
      dnsPolicy: ClusterFirst
      restartPolicy: Always
      schedulerName: default-scheduler
      securityContext: {}
      terminationGracePeriodSeconds: 30
status: {}
`

const wantSvcYAML = `apiVersion: v1
kind: Service
metadata:
  annotations:
    kubectl.kubernetes.io/last-applied-configuration: |
      {"apiVersion":"v1","kind":"Service","metadata":{"annotations":{},"name":"nginx","namespace":"default"},"spec":{"ports":[{"name":"http","port":80,"protocol":"TCP","targetPort":80}],"selector":{"app":"nginx"},"type":"ClusterIP"}}
  creationTimestamp: "<time>"
  name: nginx
  namespace: default
  resourceVersion: "<rv>"
  uid: <uid>
spec:
  clusterIP: <ip>
  clusterIPs:
  - <ip>
  internalTrafficPolicy: Cluster
  ipFamilies:
  - IPv4
  ipFamilyPolicy: SingleStack
  ports:
  - name: http
    port: 80
    protocol: TCP
    targetPort: 80
  selector:
    app: nginx
  sessionAffinity: None
  type: ClusterIP
status:
  loadBalancer: {}
`

const wantCMYAML = `apiVersion: v1
data:
  LOG_LEVEL: info
  app.properties: |
    color=blue
    size=3
kind: ConfigMap
metadata:
  annotations:
    kubectl.kubernetes.io/last-applied-configuration: |
      {"apiVersion":"v1","data":{"LOG_LEVEL":"info","app.properties":"color=blue\nsize=3\n"},"kind":"ConfigMap","metadata":{"annotations":{},"name":"app-config","namespace":"default"}}
  creationTimestamp: "<time>"
  name: app-config
  namespace: default
  resourceVersion: "<rv>"
  uid: <uid>
`

func (k *kube) getOutputs() {
	t := k.t
	k.ok(wantPodYAML, "get", "pod", "web", "-o", "yaml")
	r := k.run("get", "deploy", "nginx", "-o", "yaml")
	if got := normalize(r.Stdout); got != wantDeployYAML || r.ExitCode != 0 || r.Stderr != "" {
		t.Errorf("get deploy nginx -o yaml: exit %d, stderr %q\n%s\nwant:\n%s\n%s", r.ExitCode, r.Stderr, got, wantDeployYAML, lineDiff(got, wantDeployYAML))
	}
	k.ok(wantSvcYAML, "get", "svc", "nginx", "-o", "yaml")
	k.ok(wantCMYAML, "get", "cm", "app-config", "-o", "yaml")

	// -o json is the same object.
	r = k.run("get", "pod", "web", "-o", "json")
	var pod struct {
		APIVersion, Kind string
		Metadata         struct{ Name, Namespace string }
		Spec             struct {
			Containers []struct{ Image, ImagePullPolicy string }
		}
		Status struct{ Phase, QOSClass string }
	}
	if err := json.Unmarshal([]byte(r.Stdout), &pod); err != nil || r.ExitCode != 0 {
		t.Errorf("get pod web -o json: %v, exit %d\n%s", err, r.ExitCode, r.Combined())
	} else if pod.Kind != "Pod" || pod.APIVersion != "v1" || pod.Metadata.Name != "web" || pod.Metadata.Namespace != "default" ||
		len(pod.Spec.Containers) != 1 || pod.Spec.Containers[0].ImagePullPolicy != "IfNotPresent" ||
		pod.Status.Phase != "Pending" || pod.Status.QOSClass != "BestEffort" {
		t.Errorf("get pod web -o json: %+v", pod)
	}
	if !strings.HasPrefix(r.Stdout, "{\n    \"apiVersion\": \"v1\",\n    \"kind\": \"Pod\",\n") {
		t.Errorf("get pod web -o json is not kubectl's indented JSON:\n%s", r.Stdout)
	}

	k.ok("pod/web\n", "get", "pod", "web", "-o", "name")
	k.ok("deployment.apps/nginx\nservice/nginx\n", "get", "deploy,svc", "nginx", "-o", "name")
	k.ok("web", "get", "pods", "-o", "jsonpath={.items[*].metadata.name}")
	k.ok("nginx:1.27 IfNotPresent", "get", "pod", "web", "-o", "jsonpath={.spec.containers[0].image} {.spec.containers[0].imagePullPolicy}")
	k.ok("3", "get", "deploy", "nginx", "-o", "jsonpath={.spec.replicas}")

	// Reference: `get pods` and `get pods -o wide` (the ReplicaSet's pods are the
	// deployment controller's, so only web is here).
	k.table(`
NAME   READY   STATUS    RESTARTS   AGE
web    0/1     Pending   0          16s`, "get", "pods")
	k.table(`
NAME   READY   STATUS    RESTARTS   AGE   IP       NODE     NOMINATED NODE   READINESS GATES
web    0/1     Pending   0          16s   <none>   <none>   <none>           <none>`, "get", "pods", "-o", "wide")
	// Reference: `get deploy,rs,svc -o wide`; without a controller there are no
	// ReplicaSets and UP-TO-DATE (status.updatedReplicas) is 0.
	k.table(`
NAME                    READY   UP-TO-DATE   AVAILABLE   AGE   CONTAINERS   IMAGES       SELECTOR
deployment.apps/nginx   0/3     0            0           15s   nginx        nginx:1.27   app=nginx

NAME                 TYPE        CLUSTER-IP    EXTERNAL-IP   PORT(S)   AGE   SELECTOR
service/kubernetes   ClusterIP   10.96.0.1     <none>        443/TCP   23s   <none>
service/nginx        ClusterIP   10.96.50.99   <none>        80/TCP    15s   app=nginx`, "get", "deploy,rs,svc", "-o", "wide")
	// Reference: `get all`.
	k.table(`
NAME      READY   STATUS    RESTARTS   AGE
pod/web   0/1     Pending   0          16s

NAME                 TYPE        CLUSTER-IP    EXTERNAL-IP   PORT(S)   AGE
service/kubernetes   ClusterIP   10.96.0.1     <none>        443/TCP   23s
service/nginx        ClusterIP   10.96.50.99   <none>        80/TCP    15s

NAME                    READY   UP-TO-DATE   AVAILABLE   AGE
deployment.apps/nginx   0/3     0            0           15s`, "get", "all")

	k.table(`
NAME         DATA   AGE
app-config   2      1s`, "get", "cm")
	k.table(`
NAME   READY   STATUS    RESTARTS   AGE   LABELS
web    0/1     Pending   0          1s    app=web`, "get", "pods", "--show-labels")
	k.table(`
NAME   READY   STATUS    RESTARTS   AGE   APP
web    0/1     Pending   0          1s    web`, "get", "pods", "-L", "app")
	k.table(`
NAME   READY   STATUS    RESTARTS   AGE
web    0/1     Pending   0          1s`, "get", "pods", "-l", "app=web")
	k.table(`
NAME   READY   STATUS    RESTARTS   AGE
web    0/1     Pending   0          1s`, "get", "pods", "-l", "app in (web,db),!tier")
	k.exact([]string{"get", "pods", "-l", "app=nope"}, "", "No resources found in default namespace.\n", 0)
	k.table(`
NAME   READY   STATUS    RESTARTS   AGE
web    0/1     Pending   0          1s`, "get", "pods", "--field-selector", "metadata.name=web")
	k.table(`
NAME   READY   STATUS    RESTARTS   AGE
web    0/1     Pending   0          1s`, "get", "pods", "--field-selector", "status.phase=Pending,spec.nodeName=")
	k.exact([]string{"get", "pods", "--field-selector", "status.phase=Running"}, "", "No resources found in default namespace.\n", 0)
	k.fails(`Error from server (BadRequest): Unable to find "/v1, Resource=pods" that match label selector "", field selector "spec.image=x": field label not supported: spec.image`+"\n",
		"get", "pods", "--field-selector", "spec.image=x")
	k.table(`
NAMESPACE   NAME   READY   STATUS    RESTARTS   AGE
default     web    0/1     Pending   0          1s`, "get", "pods", "-A")
	k.table(`
NAMESPACE   NAME         TYPE        CLUSTER-IP   EXTERNAL-IP   PORT(S)   AGE
default     kubernetes   ClusterIP   10.96.0.1    <none>        443/TCP   1s`, "get", "svc", "-A", "-l", "component=apiserver")
	k.exact([]string{"get", "pods", "-A", "-l", "app=nope"}, "", "No resources found\n", 0)
	k.exact([]string{"get", "pods", "-n", "kube-system"}, "", "No resources found in kube-system namespace.\n", 0)

	k.fails("Error from server (NotFound): pods \"nope\" not found\n", "get", "pod", "nope")
	k.fails("Error from server (NotFound): deployments.apps \"nope\" not found\n", "get", "deploy", "nope")
	k.fails("error: the server doesn't have a resource type \"pods2\"\n", "get", "pods2")
}

// Reference `describe` texts, without what controllers and the scheduler add
// (deployment Conditions/ReplicaSets/events, pod Conditions, the
// kube-api-access volume, scheduler events).
func (k *kube) describe() {
	k.ok(k.pick(`Name:                   nginx
Namespace:              default
CreationTimestamp:      <time>
Labels:                 app=nginx
Annotations:            <none>
Selector:               app=nginx
Replicas:               3 desired | 0 updated | 0 total | 0 available | 0 unavailable
StrategyType:           RollingUpdate
MinReadySeconds:        0
RollingUpdateStrategy:  25% max unavailable, 25% max surge
Pod Template:
  Labels:  app=nginx
  Containers:
   nginx:
    Image:      nginx:1.27
    Port:       80/TCP
    Host Port:  0/TCP
    Requests:
      cpu:        100m
      memory:     64Mi
    Environment:  <none>
    Mounts:       <none>
  Volumes:        <none>
Events:           <none>
`, `Name:                   nginx
Namespace:              default
CreationTimestamp:      <time>
Labels:                 app=nginx
Annotations:            <none>
Selector:               app=nginx
Replicas:               3 desired | 0 updated | 0 total | 0 available | 0 unavailable
StrategyType:           RollingUpdate
MinReadySeconds:        0
RollingUpdateStrategy:  25% max unavailable, 25% max surge
Pod Template:
  Labels:  app=nginx
  Containers:
   nginx:
    Image:      nginx:1.27
    Port:       80/TCP
    Host Port:  0/TCP
    Requests:
      cpu:         100m
      memory:      64Mi
    Environment:   <none>
    Mounts:        <none>
  Volumes:         <none>
  Node-Selectors:  <none>
  Tolerations:     <none>
Events:            <none>
`), "describe", "deploy", "nginx")

	k.ok(`Name:             web
Namespace:        default
Priority:         0
Service Account:  default
Node:             <none>
Labels:           app=web
Annotations:      <none>
Status:           Pending
IP:               
IPs:              <none>
Containers:
  nginx:
    Image:        nginx:1.27
    Port:         80/TCP
    Host Port:    0/TCP
    Environment:  <none>
    Mounts:       <none>
Volumes:          <none>
QoS Class:        BestEffort
Node-Selectors:   <none>
Tolerations:      node.kubernetes.io/not-ready:NoExecute op=Exists for 300s
                  node.kubernetes.io/unreachable:NoExecute op=Exists for 300s
Events:           <none>
`, "describe", "pod", "web")

	// 1.27 reads v1 Endpoints (and the server warns, as v1.33+ servers do);
	// 1.33 reads EndpointSlices, and there are none without the
	// EndpointSlice controller (the reference cluster had an empty one: "Endpoints:" blank).
	if k.v == "1.27" {
		k.exact([]string{"describe", "svc", "nginx"}, `Name:              nginx
Namespace:         default
Labels:            <none>
Annotations:       <none>
Selector:          app=nginx
Type:              ClusterIP
IP Family Policy:  SingleStack
IP Families:       IPv4
IP:                <ip>
IPs:               <ip>
Port:              http  80/TCP
TargetPort:        80/TCP
Endpoints:         <none>
Session Affinity:  None
Events:            <none>
`, "Warning: v1 Endpoints is deprecated in v1.33+; use discovery.k8s.io/v1 EndpointSlice\n", 0)
	} else {
		k.ok(`Name:                     nginx
Namespace:                default
Labels:                   <none>
Annotations:              <none>
Selector:                 app=nginx
Type:                     ClusterIP
IP Family Policy:         SingleStack
IP Families:              IPv4
IP:                       <ip>
IPs:                      <ip>
Port:                     http  80/TCP
TargetPort:               80/TCP
Endpoints:                <none>
Session Affinity:         None
Internal Traffic Policy:  Cluster
Events:                   <none>
`, "describe", "svc", "nginx")
	}

	// kubectl prints ConfigMap data in Go map order: either key may come first.
	// 1.27 writes "key:\n----\nvalue\n", 1.33 adds a blank line.
	sep := k.pick("\n", "\n\n")
	logLevel := "LOG_LEVEL:\n----\ninfo" + sep
	props := "app.properties:\n----\ncolor=blue\nsize=3\n" + sep
	head := "Name:         app-config\nNamespace:    default\nLabels:       <none>\nAnnotations:  <none>\n\nData\n====\n"
	tail := "\nBinaryData\n====\n\nEvents:  <none>\n"
	r := k.run("describe", "cm", "app-config")
	if a, b := head+logLevel+props+tail, head+props+logLevel+tail; r.Stdout != a && r.Stdout != b || r.ExitCode != 0 || r.Stderr != "" {
		k.t.Errorf("describe cm app-config: exit %d\n%s\nwant:\n%s", r.ExitCode, r.Combined(), a)
	}
}

// The typo'd and the kind-less manifests: reference texts, identical in 1.27 and 1.33.
func (k *kube) fileErrors() {
	unknown := `Error from server (BadRequest): error when creating "typo-pod.yaml": Pod in version "v1" cannot be handled as a Pod: strict decoding error: unknown field "spec.contaienrs"` + "\n"
	k.fails(unknown, "apply", "-f", "typo-pod.yaml")
	k.fails(unknown, "create", "-f", "typo-pod.yaml")
	k.fails("Error from server: failed to create typed patch object (default/typo; /v1, Kind=Pod): .spec.contaienrs: field not declared in schema\n",
		"apply", "--server-side", "-f", "typo-pod.yaml")
	invalid := "The Pod \"typo\" is invalid: spec.containers: Required value\n"
	k.fails(invalid, "apply", "--validate=false", "-f", "typo-pod.yaml")
	k.fails("Warning: unknown field \"spec.contaienrs\"\n"+invalid, "apply", "--validate=warn", "-f", "typo-pod.yaml")

	noKind := `error: error validating "no-kind.yaml": error validating data: [apiVersion not set, kind not set]; if you choose to ignore these errors, turn validation off with --validate=false` + "\n"
	k.fails(noKind, "apply", "-f", "no-kind.yaml")
	k.fails(`error: unable to decode "no-kind.yaml": Object 'Kind' is missing in '{"metadata":{"name":"nokind"},"spec":{"containers":[{"image":"nginx:1.27","name":"nginx"}]}}'`+"\n",
		"apply", "--validate=false", "-f", "no-kind.yaml")
	k.fails(noKind, "create", "-f", "no-kind.yaml")

	// Nothing of that was stored.
	k.fails("Error from server (NotFound): pods \"typo\" not found\n", "get", "pod", "typo")

	// Creating what exists: 409 AlreadyExists.
	k.fails("Error from server (AlreadyExists): error when creating \"cm.yaml\": configmaps \"app-config\" already exists\n", "create", "-f", "cm.yaml")
	k.fails("Error from server (AlreadyExists): error when creating \"pod.yaml\": pods \"web\" already exists\n", "create", "-f", "pod.yaml")
}

func (k *kube) writes() {
	t := k.t
	k.ok("pod/web labeled\n", "label", "pod", "web", "env=prod")
	k.fails("error: 'app' already has a value (web), and --overwrite is false\n", "label", "pod", "web", "app=x")
	k.ok("pod/web labeled\n", "label", "pod", "web", "env=dev", "--overwrite")
	k.table(`
NAME   READY   STATUS    RESTARTS   AGE   LABELS
web    0/1     Pending   0          1s    app=web,env=dev`, "get", "pods", "--show-labels")
	k.ok("pod/web unlabeled\n", "label", "pod", "web", "env-")
	k.ok(k.pick("pod/web annotate\n", "pod/web annotated\n"), "annotate", "pod", "web", "team=blue")
	k.ok("blue", "get", "pod", "web", "-o", "jsonpath={.metadata.annotations.team}")
	k.fails("error: --overwrite is false but found the following declared annotation(s): 'team' already has a value (blue)\n",
		"annotate", "pod", "web", "team=red")

	// The three patch types kubectl sends.
	k.ok("pod/web patched\n", "patch", "pod", "web", "--type=merge", "-p", `{"metadata":{"labels":{"m":"1"}}}`)
	k.ok("pod/web patched\n", "patch", "pod", "web", "--type=json", "-p", `[{"op":"add","path":"/metadata/labels/j","value":"2"},{"op":"remove","path":"/metadata/labels/m"}]`)
	k.ok("pod/web patched\n", "patch", "pod", "web", "-p", `{"spec":{"containers":[{"name":"nginx","image":"nginx:1.28"}]}}`)
	k.ok("pod/web patched (no change)\n", "patch", "pod", "web", "-p", `{"spec":{"containers":[{"name":"nginx","image":"nginx:1.28"}]}}`)
	// The strategic merge patch merged the container by name: its port is kept.
	k.ok("app=web j=2 image=nginx:1.28 ports=80", "get", "pod", "web", "-o",
		`jsonpath=app={.metadata.labels.app} j={.metadata.labels.j}{.metadata.labels.m} image={.spec.containers[0].image} ports={.spec.containers[*].ports[*].containerPort}`)
	k.fails(`The request is invalid: the server rejected our request due to an error in our request`+"\n",
		"patch", "pod", "web", "--type=json", "-p", `[{"op":"test","path":"/metadata/name","value":"other"}]`)
	k.fails("Error from server (NotFound): pods \"nope\" not found\n", "patch", "pod", "nope", "--type=merge", "-p", `{"metadata":{"labels":{"a":"b"}}}`)

	// scale goes through the scale subresource, set image through a strategic merge patch.
	k.ok("deployment.apps/nginx scaled\n", "scale", "deploy", "nginx", "--replicas=2")
	k.fails("error: Expected replicas to be 5, was 2\n", "scale", "deploy", "nginx", "--current-replicas=5", "--replicas=1")
	k.ok("deployment.apps/nginx image updated\n", "set", "image", "deploy/nginx", "nginx=nginx:1.28")
	k.ok("2 nginx:1.28 3", "get", "deploy", "nginx", "-o", "jsonpath={.spec.replicas} {.spec.template.spec.containers[0].image} {.metadata.generation}")
	k.table(`
NAME    READY   UP-TO-DATE   AVAILABLE   AGE   CONTAINERS   IMAGES       SELECTOR
nginx   0/2     0            0           1s    nginx        nginx:1.28   app=nginx`, "get", "deploy", "-o", "wide")

	// replace with a stale resourceVersion: 409 Conflict.
	r := k.run("get", "cm", "app-config", "-o", "yaml")
	k.write("stale.yaml", strings.Replace(r.Stdout, "LOG_LEVEL: info", "LOG_LEVEL: debug", 1))
	k.ok("configmap/app-config labeled\n", "label", "cm", "app-config", "touched=yes")
	k.fails(`Error from server (Conflict): error when replacing "stale.yaml": Operation cannot be fulfilled on configmaps "app-config": the object has been modified; please apply your changes to the latest version and try again`+"\n",
		"replace", "-f", "stale.yaml")
	// Without a resourceVersion, replace is unconditional.
	k.write("fresh.yaml", "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: app-config\ndata:\n  LOG_LEVEL: debug\n")
	k.ok("configmap/app-config replaced\n", "replace", "-f", "fresh.yaml")
	k.ok("debug", "get", "cm", "app-config", "-o", "jsonpath={.data.LOG_LEVEL}{.metadata.labels.touched}")

	// edit: the editor is a sed script; kubectl sends a strategic merge patch.
	r = k.runEnv([]string{"EDITOR=sed -i s/LOG_LEVEL:\\ debug/LOG_LEVEL:\\ warn/"}, "edit", "cm", "app-config")
	if r.ExitCode != 0 || r.Stdout != "configmap/app-config edited\n" {
		t.Errorf("kubectl edit: exit %d\n%s", r.ExitCode, r.Combined())
	}
	k.ok("warn", "get", "cm", "app-config", "-o", "jsonpath={.data.LOG_LEVEL}")
	r = k.runEnv([]string{"EDITOR=true"}, "edit", "cm", "app-config")
	if r.ExitCode != 0 || r.Stderr != "Edit cancelled, no changes made.\n" {
		t.Errorf("kubectl edit with no change: exit %d\n%s", r.ExitCode, r.Combined())
	}
}

// imperativeCreate: kubectl 1.33 sends these bodies as protobuf.
func (k *kube) imperativeCreate() {
	k.ok("configmap/cfg created\n", "create", "configmap", "cfg", "--from-literal=key=value", "--from-literal=other=x")
	k.ok("secret/db created\n", "create", "secret", "generic", "db", "--from-literal=password=s3cr3t")
	k.ok("deployment.apps/hello created\n", "create", "deployment", "hello", "--image=nginx:1.27", "--replicas=2", "--port=80")
	k.ok("namespace/team-a created\n", "create", "namespace", "team-a")
	k.ok("serviceaccount/robot created\n", "create", "serviceaccount", "robot", "-n", "team-a")

	k.ok("value x", "get", "cm", "cfg", "-o", "jsonpath={.data.key} {.data.other}")
	k.ok("czNjcjN0 Opaque", "get", "secret", "db", "-o", "jsonpath={.data.password} {.type}")
	k.ok("2 nginx:1.27 80 app=hello", "get", "deploy", "hello", "-o",
		"jsonpath={.spec.replicas} {.spec.template.spec.containers[0].image} {.spec.template.spec.containers[0].ports[0].containerPort} app={.spec.selector.matchLabels.app}")
	k.table(`
NAME          STATUS   AGE
default       Active   1s
kube-node-lease   Active   1s
kube-public   Active   1s
kube-system   Active   1s
team-a        Active   1s`, "get", "ns")
	k.table(`
NAME    AGE
robot   1s`, "get", "sa", "-n", "team-a")
	k.table(`
NAME   TYPE     DATA   AGE
db     Opaque   1      1s`, "get", "secret")

	k.fails("error: failed to create configmap: configmaps \"cfg\" already exists\n", "create", "configmap", "cfg", "--from-literal=key=value")
	k.fails("The Namespace \"team.b\" is invalid: metadata.name: Invalid value: \"team.b\": must not contain dots\n", "create", "namespace", "team.b")
}

// serverSideApply: create, update, a conflict with kubectl-create's field, --force-conflicts.
func (k *kube) serverSideApply() {
	k.write("ssa.yaml", "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ssa\ndata:\n  key: value\n")
	k.ok("configmap/ssa serverside-applied\n", "apply", "--server-side", "-f", "ssa.yaml")
	k.write("ssa.yaml", "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ssa\ndata:\n  key: value2\n")
	k.ok("configmap/ssa serverside-applied\n", "apply", "--server-side", "-f", "ssa.yaml")
	k.ok("value2 kubectl Apply", "get", "cm", "ssa", "-o", "jsonpath={.data.key} {.metadata.managedFields[0].manager} {.metadata.managedFields[0].operation}")

	// cfg was made by `kubectl create configmap` (field manager kubectl-create).
	k.write("cfg.yaml", "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cfg\ndata:\n  key: changed\n")
	k.fails(`error: Apply failed with 1 conflict: conflict with "kubectl-create" using v1: .data.key
Please review the fields above--they currently have other managers. Here
are the ways you can resolve this warning:
* If you intend to manage all of these fields, please re-run the apply
  command with the `+"`--force-conflicts`"+` flag.
* If you do not intend to manage all of the fields, please edit your
  manifest to remove references to the fields that should keep their
  current managers.
* You may co-own fields by updating your manifest to match the existing
  value; in this case, you'll become the manager if the other manager(s)
  stop managing the field (remove it from their configuration).
See https://kubernetes.io/docs/reference/using-api/server-side-apply/#conflicts
`, "apply", "--server-side", "-f", "cfg.yaml")
	k.ok("value", "get", "cm", "cfg", "-o", "jsonpath={.data.key}")
	k.ok("configmap/cfg serverside-applied\n", "apply", "--server-side", "--force-conflicts", "-f", "cfg.yaml")
	k.ok("changed x", "get", "cm", "cfg", "-o", "jsonpath={.data.key} {.data.other}")
}

// dryRun: --dry-run=server validates and answers but stores nothing.
func (k *kube) dryRun() {
	k.write("dry.yaml", "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: dry\ndata:\n  key: value\n")
	k.ok("configmap/dry created (server dry run)\n", "apply", "-f", "dry.yaml", "--dry-run=server")
	k.ok("configmap/dry created (server dry run)\n", "create", "-f", "dry.yaml", "--dry-run=server")
	k.ok("configmap/dry serverside-applied (server dry run)\n", "apply", "--server-side", "-f", "dry.yaml", "--dry-run=server")
	k.ok("configmap/dry2 created (server dry run)\n", "create", "configmap", "dry2", "--from-literal=a=b", "--dry-run=server")
	k.fails("Error from server (NotFound): configmaps \"dry\" not found\n", "get", "cm", "dry")
	k.fails("Error from server (NotFound): configmaps \"dry2\" not found\n", "get", "cm", "dry2")
	// A server dry run still validates.
	k.fails("Error from server (BadRequest): error when creating \"typo-pod.yaml\": Pod in version \"v1\" cannot be handled as a Pod: strict decoding error: unknown field \"spec.contaienrs\"\n",
		"create", "-f", "typo-pod.yaml", "--dry-run=server")
	k.ok("configmap/cfg labeled (server dry run)\n", "label", "cm", "cfg", "dry=run", "--dry-run=server")
	k.ok("deployment.apps/nginx scaled (server dry run)\n", "scale", "deploy", "nginx", "--replicas=7", "--dry-run=server")
	k.ok("pod \"web\" deleted (server dry run)\n", "delete", "pod", "web", "--dry-run=server")
	k.ok("2", "get", "deploy", "nginx", "-o", "jsonpath={.spec.replicas}")
	k.ok("web", "get", "pod", "web", "-o", "jsonpath={.metadata.name}")
	k.ok("", "get", "cm", "cfg", "-o", "jsonpath={.metadata.labels.dry}")
}

// runEnv is Kubectl with extra environment variables (EDITOR for edit).
func (k *kube) runEnv(env []string, args ...string) testenv.Result {
	k.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cmd := k.command(ctx, env, args...)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		k.t.Fatalf("kubectl %v: %v", args, err)
	}
	return testenv.Result{Stdout: out.String(), Stderr: errb.String(), ExitCode: code}
}

func (k *kube) command(ctx context.Context, env []string, args ...string) *exec.Cmd {
	cmd := exec.CommandContext(ctx, testenv.Kubectl(k.t, k.v),
		append([]string{"--kubeconfig", k.c.Kubeconfig, "--cache-dir", filepath.Join(k.t.TempDir(), "cache")}, args...)...)
	cmd.Dir = k.dir
	cmd.Env = append(append(os.Environ(), "HOME="+k.t.TempDir()), env...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	return cmd
}

// watch: `kubectl get pods -w` prints the list, then one row per event.
func (k *kube) watch() {
	t := k.t
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	cmd := k.command(ctx, nil, "get", "pods", "-w")
	var out, errb testenv.SyncBuffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() { cmd.Wait(); close(done) }()
	stop := func() {
		select {
		case <-done:
		default:
			syscall.Kill(-cmd.Process.Pid, syscall.SIGTERM) // our own kubectl, by its PID
			<-done
		}
	}
	defer stop()
	testenv.Eventually(t, "get pods -w prints the list", 30*time.Second, func() (string, bool) {
		return out.String() + errb.String(), strings.Contains(out.String(), "web")
	})
	k.write("w1.yaml", "apiVersion: v1\nkind: Pod\nmetadata:\n  name: w1\nspec:\n  containers:\n  - name: c\n    image: busybox\n")
	k.ok("pod/w1 created\n", "create", "-f", "w1.yaml")
	k.ok("pod/w1 labeled\n", "label", "pod", "w1", "a=b")
	// An unscheduled pod is deleted at once (no kubelet has to confirm it).
	k.ok("pod \"w1\" deleted\n", "delete", "pod", "w1")
	// The witness: a pod created after w1 is gone. A watch delivers events
	// in resourceVersion order, so once w2's row is printed every event of
	// w1 has been too: nothing more of w1 may be printed before it.
	k.write("w2.yaml", "apiVersion: v1\nkind: Pod\nmetadata:\n  name: w2\nspec:\n  containers:\n  - name: c\n    image: busybox\n")
	k.ok("pod/w2 created\n", "create", "-f", "w2.yaml")
	testenv.Eventually(t, "get pods -w prints w2", 30*time.Second, func() (string, bool) {
		return out.String() + errb.String(), strings.Contains(out.String(), "\nw2 ")
	})
	stop()
	k.ok("pod \"w2\" deleted\n", "delete", "pod", "w2")
	want := `
NAME   READY   STATUS    RESTARTS   AGE
web    0/1     Pending   0          1s
w1     0/1     Pending   0          0s
w1     0/1     Pending   0          0s
w1     0/1     Pending   0          0s`
	before, _, _ := strings.Cut(out.String(), "\nw2 ")
	if got, w := cells(before), cells(want); got != w {
		t.Errorf("get pods -w printed before the witness w2:\n%s\nwant:\n%s\nstderr: %s", out.String(), want, errb.String())
	}
}

// waitAndDelete: kubectl wait, and deletes by name and by label.
func (k *kube) waitAndDelete() {
	k.ok("deployment.apps/nginx condition met\n", "wait", "--for=jsonpath={.spec.replicas}=2", "deploy/nginx", "--timeout=10s")
	k.fails("error: timed out waiting for the condition on deployments/nginx\n", "wait", "--for=jsonpath={.spec.replicas}=9", "deploy/nginx", "--timeout=1s")
	k.fails("error: timed out waiting for the condition on pods/web\n", "wait", "--for=delete", "pod/web", "--timeout=1s")
	k.fails("Error from server (NotFound): pods \"nope\" not found\n", "wait", "--for=condition=Ready", "pod/nope", "--timeout=1s")

	// wait --for=delete, running while the pod is deleted.
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	// -v=6 logs each request once answered: the witness that kubectl
	// watches (it has listed the pod and watches from there) before the
	// deletion; a wait that starts after it succeeds silently, and this
	// asserts the "condition met" line.
	cmd := k.command(ctx, nil, "wait", "--for=delete", "pod/web", "--timeout=60s", "-v=6")
	var out, errb testenv.SyncBuffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Start(); err != nil {
		k.t.Fatal(err)
	}
	testenv.Eventually(k.t, "kubectl wait watches pod/web", 30*time.Second, func() (string, bool) {
		return errb.String(), strings.Contains(errb.String(), "&watch=true")
	})
	k.ok("pod \"web\" deleted\n", "delete", "pod", "web")
	err := cmd.Wait()
	if err != nil || out.String() != "pod/web condition met\n" {
		k.t.Errorf("wait --for=delete pod/web: %v\nstdout: %s\nstderr: %s", err, out.String(), errb.String())
	}

	k.fails("Error from server (NotFound): pods \"web\" not found\n", "delete", "pod", "web")
	k.ok("deployment.apps \"nginx\" deleted\n", "delete", "deploy", "nginx")
	k.ok("configmap \"app-config\" deleted\n", "delete", "cm", "app-config")
	k.ok("configmap/cfg labeled\nconfigmap/ssa labeled\n", "label", "cm", "cfg", "ssa", "grp=x")
	k.ok("configmap \"cfg\" deleted\nconfigmap \"ssa\" deleted\n", "delete", "cm", "-l", "grp=x")
	k.ok("No resources found\n", "delete", "cm", "-l", "grp=x")
	k.ok("service \"nginx\" deleted\n", "delete", "-f", "svc.yaml")
	k.exact([]string{"get", "pods"}, "", "No resources found in default namespace.\n", 0)
	k.table(`
NAME                 TYPE        CLUSTER-IP   EXTERNAL-IP   PORT(S)   AGE
service/kubernetes   ClusterIP   10.96.0.1    <none>        443/TCP   1s

NAME                    READY   UP-TO-DATE   AVAILABLE   AGE
deployment.apps/hello   0/2     0            0           1s`, "get", "all")
	k.fails("Error from server (NotFound): configmaps \"app-config\" not found\n", "get", "cm", "app-config")
}
