package main_test

// LimitRanges, ResourceQuotas and PodTemplates through the real kubectl
// 1.27 and 1.33: the LimitRanger plugin's defaults and 403s, the
// ResourceQuota plugin charging new objects to a quota's status and its
// "exceeded quota" 403, validation, Tables and describe. The texts are a
// real v1.35 apiserver's (compare scenario ch01-limits-quota).

import (
	"testing"
)

func TestLimitRangesAndQuotas(t *testing.T) {
	for _, v := range []string{"1.27", "1.33"} {
		t.Run("kubectl-"+v, func(t *testing.T) {
			k := newKube(t, v)
			t.Parallel()
			k.limitRanges()
			k.resourceQuotas()
			k.podTemplates()
		})
	}
}

func (k *kube) limitRanges() {
	k.ok("namespace/q created\n", "create", "namespace", "q")
	k.ok("serviceaccount/default created\n", "-n", "q", "create", "serviceaccount", "default")
	k.write("lr.yaml", `apiVersion: v1
kind: LimitRange
metadata:
  name: cpu-mem
spec:
  limits:
  - type: Container
    max: {cpu: "2", memory: 1Gi}
    min: {cpu: 50m}
    default: {cpu: 500m}
    defaultRequest: {cpu: 100m}
    maxLimitRequestRatio: {cpu: "10"}
  - type: Pod
    max: {cpu: "3"}
`)
	k.ok("limitrange/cpu-mem created\n", "-n", "q", "create", "-f", "lr.yaml")
	k.table("NAME CREATED AT\ncpu-mem <time>", "-n", "q", "get", "limits")
	// SetDefaults_LimitRangeItem: the default limit falls back to max, the
	// default request to the default limit.
	k.ok(`{"limits":[{"default":{"cpu":"500m","memory":"1Gi"},"defaultRequest":{"cpu":"100m","memory":"1Gi"},"max":{"cpu":"2","memory":"1Gi"},"maxLimitRequestRatio":{"cpu":"10"},"min":{"cpu":"50m"},"type":"Container"},{"max":{"cpu":"3"},"type":"Pod"}]}`,
		"-n", "q", "get", "limitrange", "cpu-mem", "-o", "jsonpath={.spec}")

	k.ok("pod/web created\n", "-n", "q", "run", "web", "--image=nginx:1.27")
	k.ok(`{"limits":{"cpu":"500m","memory":"1Gi"},"requests":{"cpu":"100m","memory":"1Gi"}} LimitRanger plugin set: cpu, memory request for container web; cpu, memory limit for container web`,
		"-n", "q", "get", "pod", "web", "-o", `jsonpath={.spec.containers[0].resources} {.metadata.annotations.kubernetes\.io/limit-ranger}`)
	k.fails(`Error from server (Forbidden): pods "too-big" is forbidden: maximum cpu usage per Container is 2, but limit is 3
`, "-n", "q", "run", "too-big", "--image=nginx:1.27", "--overrides", `{"spec":{"containers":[{"name":"too-big","image":"nginx:1.27","resources":{"limits":{"cpu":"3"}}}]}}`)
	k.fails(`Error from server (Forbidden): pods "too-small" is forbidden: [minimum cpu usage per Container is 50m, but request is 10m, cpu max limit to request ratio per Container is 10, but provided ratio is 50.000000]
`, "-n", "q", "run", "too-small", "--image=nginx:1.27", "--overrides", `{"spec":{"containers":[{"name":"too-small","image":"nginx:1.27","resources":{"requests":{"cpu":"10m"}}}]}}`)
	k.fails(`Error from server (Forbidden): pods "two" is forbidden: maximum cpu usage per Pod is 3, but limit is 4
`, "-n", "q", "run", "two", "--image=nginx:1.27", "--overrides", `{"spec":{"containers":[{"name":"a","image":"nginx:1.27","resources":{"limits":{"cpu":"2"},"requests":{"cpu":"1"}}},{"name":"b","image":"nginx:1.27","resources":{"limits":{"cpu":"2"},"requests":{"cpu":"1"}}}]}}`)

	k.write("broken.yaml", `apiVersion: v1
kind: LimitRange
metadata:
  name: broken
spec:
  limits:
  - type: Container
    max: {cpu: 100m}
    min: {cpu: 200m}
  - type: Pod
    default: {cpu: 100m}
  - type: Pod
  - type: Other
    max: {widgets: "1"}
  - type: PersistentVolumeClaim
    max: {cpu: "1"}
`)
	k.fails(`The LimitRange "broken" is invalid: 
* spec.limits[0].min[cpu]: Invalid value: "200m": min value 200m is greater than max value 100m
* spec.limits[0].defaultRequest[cpu]: Invalid value: "100m": min value 200m is greater than default request value 100m
* spec.limits[0].default[cpu]: Invalid value: "200m": min value 200m is greater than default value 100m
* spec.limits[1].default: Forbidden: may not be specified when `+"`type`"+` is 'Pod'
* spec.limits[2].type: Duplicate value: "Pod"
* spec.limits[3].type: Invalid value: "Other": must be a standard limit type or fully qualified
* spec.limits[3].max[widgets]: Invalid value: "widgets": must be a standard resource type or fully qualified
* spec.limits[4].limits: Required value: either minimum or maximum storage value is required, but neither was provided
`, "-n", "q", "create", "-f", "broken.yaml")

	k.write("claim-size.yaml", "apiVersion: v1\nkind: LimitRange\nmetadata:\n  name: claim-size\nspec:\n  limits:\n  - type: PersistentVolumeClaim\n    min: {storage: 1Gi}\n    max: {storage: 10Gi}\n")
	k.ok("limitrange/claim-size created\n", "-n", "q", "create", "-f", "claim-size.yaml")
	k.ok(`Name:                  claim-size
Namespace:             q
Type                   Resource  Min  Max   Default Request  Default Limit  Max Limit/Request Ratio
----                   --------  ---  ---   ---------------  -------------  -----------------------
PersistentVolumeClaim  storage   1Gi  10Gi  -                -              -
`, "-n", "q", "describe", "limitrange", "claim-size")
	k.write("huge.yaml", "apiVersion: v1\nkind: PersistentVolumeClaim\nmetadata:\n  name: huge\nspec:\n  accessModes: [ReadWriteOnce]\n  resources:\n    requests: {storage: 20Gi}\n")
	k.fails(`Error from server (Forbidden): error when creating "huge.yaml": persistentvolumeclaims "huge" is forbidden: maximum storage usage per PersistentVolumeClaim is 10Gi, but request is 20Gi
`, "-n", "q", "create", "-f", "huge.yaml")
}

func (k *kube) resourceQuotas() {
	k.ok("resourcequota/compute created\n", "-n", "q", "create", "quota", "compute", "--hard=pods=3,requests.cpu=1,count/configmaps=2,services=1")
	k.table("NAME REQUEST LIMIT AGE\ncompute <age>", "-n", "q", "get", "quota")
	// No quota controller in chapter 1: the status is written by hand, and
	// admission charges from there.
	k.ok("resourcequota/compute patched\n", "-n", "q", "patch", "resourcequota", "compute", "--subresource=status", "--type=merge", "-p",
		`{"status":{"hard":{"pods":"3","requests.cpu":"1","count/configmaps":"2","services":"1"},"used":{"pods":"1","requests.cpu":"100m","count/configmaps":"0","services":"0"}}}`)
	k.ok("pod/second created\n", "-n", "q", "run", "second", "--image=nginx:1.27")
	k.ok(`{"count/configmaps":"0","pods":"2","requests.cpu":"200m","services":"0"}`, "-n", "q", "get", "quota", "compute", "-o", "jsonpath={.status.used}")
	k.fails(`Error from server (Forbidden): pods "greedy" is forbidden: exceeded quota: compute, requested: requests.cpu=900m, used: requests.cpu=200m, limited: requests.cpu=1
`, "-n", "q", "run", "greedy", "--image=nginx:1.27", "--overrides", `{"spec":{"containers":[{"name":"greedy","image":"nginx:1.27","resources":{"requests":{"cpu":"900m"},"limits":{"cpu":"1"}}}]}}`)
	k.ok("pod/third created\n", "-n", "q", "run", "third", "--image=nginx:1.27")
	k.fails(`Error from server (Forbidden): pods "fourth" is forbidden: exceeded quota: compute, requested: pods=1, used: pods=3, limited: pods=3
`, "-n", "q", "run", "fourth", "--image=nginx:1.27")
	k.ok("service/s1 created\n", "-n", "q", "create", "service", "clusterip", "s1", "--tcp=80:80")
	k.fails(`error: failed to create ClusterIP service: services "s2" is forbidden: exceeded quota: compute, requested: services=1, used: services=1, limited: services=1
`, "-n", "q", "create", "service", "clusterip", "s2", "--tcp=80:80")
	k.ok("configmap/c1 created\n", "-n", "q", "create", "configmap", "c1")
	k.ok("configmap/c2 created\n", "-n", "q", "create", "configmap", "c2")
	k.fails(`error: failed to create configmap: configmaps "c3" is forbidden: exceeded quota: compute, requested: count/configmaps=1, used: count/configmaps=2, limited: count/configmaps=2
`, "-n", "q", "create", "configmap", "c3")
	k.table("NAME REQUEST LIMIT AGE\ncompute count/configmaps: 2/2, pods: 3/3, requests.cpu: 300m/1, services: 1/1 <age>", "-n", "q", "get", "quota")
	k.ok(`Name:             compute
Namespace:        q
Resource          Used  Hard
--------          ----  ----
count/configmaps  2     2
pods              3     3
requests.cpu      300m  1
services          1     1
`, "-n", "q", "describe", "quota", "compute")

	k.fails(`error: failed to create quota: ResourceQuota "bad" is invalid: [spec.hard[count/pods]: Invalid value: "1500m": must be an integer, spec.hard[pods]: Invalid value: "-1": must be greater than or equal to 0, spec.hard[widgets]: Invalid value: "widgets": must be a standard resource type or fully qualified, spec.hard[widgets]: Invalid value: "widgets": must be a standard resource for quota]
`, "-n", "q", "create", "quota", "bad", "--hard=pods=-1,widgets=3,count/pods=1.5")
	k.fails(`error: failed to create quota: ResourceQuota "wrong-scope" is invalid: spec.scopes: Invalid value: ["BestEffort"]: unsupported scope applied to resource
`, "-n", "q", "create", "quota", "wrong-scope", "--hard=requests.cpu=1", "--scopes=BestEffort")
	k.ok("resourcequota \"compute\" deleted\n", "-n", "q", "delete", "quota", "compute")
	// Without a quota, creates are not charged (nor refused).
	k.ok("configmap/c3 created\n", "-n", "q", "create", "configmap", "c3")
}

func (k *kube) podTemplates() {
	k.write("pt.yaml", "apiVersion: v1\nkind: PodTemplate\nmetadata:\n  name: web-template\ntemplate:\n  metadata:\n    labels: {app: web}\n  spec:\n    containers:\n    - {name: nginx, image: \"nginx:1.27\"}\n")
	k.ok("podtemplate/web-template created\n", "-n", "q", "create", "-f", "pt.yaml")
	k.table("NAME CONTAINERS IMAGES POD LABELS\nweb-template nginx nginx:1.27 app=web", "-n", "q", "get", "podtemplates")
	k.ok("podtemplate \"web-template\" deleted\n", "-n", "q", "delete", "podtemplate", "web-template")
}
