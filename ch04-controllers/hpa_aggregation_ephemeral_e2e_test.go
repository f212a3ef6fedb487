package main_test

// End-to-end test of three controllers with the real kubectl 1.33 and
// 1.27 against the ch04 binary and a hollow node, one cluster for the
// file:
//   - horizontalpodautoscaling: with no metrics API (metrics.k8s.io is not
//     served) an autoscaler on a Deployment of 1 with minReplicas 3 raises
//     it to 3, then reports what a real cluster reports — AbleToScale=True
//     SucceededGetScale, ScalingActive=False FailedGetResourceMetric, the
//     Warning events, `kubectl get hpa` TARGETS unknown;
//   - clusterrole-aggregation: admin, edit and view hold the rules of the
//     roles labelled aggregate-to-*, and a ClusterRole labelled
//     aggregate-to-view joins view (and so edit and admin);
//   - ephemeral-volume: a pod with a generic ephemeral volume gets its
//     claim <pod>-<volume>, owned by the pod.

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"kubik/internal/testenv"
)

const hpaNoMetricsCause = "failed to get cpu utilization: unable to get metrics for resource cpu: unable to fetch metrics from resource metrics API: the server could not find the requested resource (get pods.metrics.k8s.io)"

const podTemplateViewer = `apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata:
  name: podtemplate-viewer
  labels:
    rbac.authorization.k8s.io/aggregate-to-view: "true"
rules:
- apiGroups: [""]
  resources: ["podtemplates"]
  verbs: ["get", "list", "watch"]
`

const scratchPod = `apiVersion: v1
kind: Pod
metadata:
  name: scratch
spec:
  containers:
  - name: app
    image: busybox:1.36
    command: ["sleep", "3600"]
    volumeMounts:
    - name: cache
      mountPath: /cache
  volumes:
  - name: cache
    ephemeral:
      volumeClaimTemplate:
        metadata:
          labels:
            type: scratch
        spec:
          accessModes: ["ReadWriteOnce"]
          storageClassName: manual
          resources:
            requests:
              storage: 1Gi
`

func TestHPAAggregationEphemeral(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and starts the chapter 4 cluster")
	}
	testenv.Kubectl(t, kubectl133)
	testenv.Kubectl(t, kubectl127)
	bin := testenv.Build(t, "kubik/ch04-controllers")
	c := testenv.Start(t, bin, testenv.Options{Args: []string{"--hollow-nodes=1", "--horizontal-pod-autoscaler-sync-period=3s"}})
	dir := t.TempDir()
	k := func(version string, args ...string) string {
		t.Helper()
		return c.MustKubectl(t, version, dir, args...)
	}
	eventually := func(what string, f func() (string, bool)) {
		t.Helper()
		testenv.Eventually(t, what, 3*time.Minute, f)
	}
	write := func(name, content string) string {
		t.Helper()
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	eventually("the default ServiceAccount", func() (string, bool) {
		r := c.Kubectl(t, kubectl133, dir, "get", "serviceaccount", "default")
		return r.Combined(), r.ExitCode == 0
	})

	t.Run("horizontalpodautoscaling", func(t *testing.T) {
		k(kubectl133, "create", "deployment", "web", "--image=nginx:1.27", "--replicas=1")
		k(kubectl133, "set", "resources", "deployment", "web", "--requests=cpu=100m")
		if out := k(kubectl133, "autoscale", "deployment", "web", "--min=3", "--max=5", "--cpu-percent=50"); out != "horizontalpodautoscaler.autoscaling/web autoscaled" {
			t.Fatalf("autoscale: %s", out)
		}
		eventually("web raised to minReplicas", func() (string, bool) {
			out := k(kubectl133, "get", "deployment", "web", "-o", "jsonpath={.spec.replicas}")
			return out, out == "3"
		})
		conditions := "AbleToScale True SucceededGetScale: the HPA controller was able to get the target's current scale\n" +
			"ScalingActive False FailedGetResourceMetric: the HPA was unable to compute the replica count: " + hpaNoMetricsCause
		eventually("ScalingActive=False", func() (string, bool) {
			out := k(kubectl133, "get", "hpa", "web", "-o", `jsonpath={range .status.conditions[*]}{.type} {.status} {.reason}: {.message}{"\n"}{end}`)
			return out, out == conditions
		})
		if out := k(kubectl133, "get", "hpa", "web", "-o", "jsonpath={.status.currentReplicas} {.status.desiredReplicas} {.status.currentMetrics}"); out != `3 3 [{"type":""}]` {
			t.Errorf("status: %s", out)
		}
		for _, v := range []string{kubectl133, kubectl127} {
			out := k(v, "get", "hpa", "web")
			lines := strings.Split(out, "\n")
			if len(lines) != 2 || strings.Join(strings.Fields(lines[0]), " ") != "NAME REFERENCE TARGETS MINPODS MAXPODS REPLICAS AGE" ||
				!strings.HasPrefix(strings.Join(strings.Fields(lines[1]), " "), "web Deployment/web cpu: <unknown>/50% 3 5 3 ") {
				t.Errorf("kubectl %s get hpa:\n%s", v, out)
			}
		}
		want := []string{
			"Normal SuccessfulRescale horizontal-pod-autoscaler: New size: 3; reason: Current number of replicas below Spec.MinReplicas",
			"Warning FailedComputeMetricsReplicas horizontal-pod-autoscaler: invalid metrics (1 invalid out of 1), first error is: failed to get cpu resource metric value: " + hpaNoMetricsCause,
			"Warning FailedGetResourceMetric horizontal-pod-autoscaler: " + hpaNoMetricsCause,
		}
		eventually("the autoscaler's events", func() (string, bool) {
			out := k(kubectl133, "get", "events", "--field-selector", "involvedObject.kind=HorizontalPodAutoscaler", "-o",
				`jsonpath={range .items[*]}{.type} {.reason} {.source.component}: {.message}{"\n"}{end}`)
			for _, w := range want {
				if !strings.Contains(out, w) {
					return out, false
				}
			}
			return out, true
		})
		// kubectl 1.27 creates an autoscaling/v1 autoscaler; maxReplicas
		// lowers a Deployment above it.
		k(kubectl127, "create", "deployment", "big", "--image=nginx:1.27", "--replicas=4")
		k(kubectl127, "autoscale", "deployment", "big", "--min=1", "--max=2", "--cpu-percent=80")
		eventually("big lowered to maxReplicas", func() (string, bool) {
			out := k(kubectl127, "get", "deployment", "big", "-o", "jsonpath={.spec.replicas}")
			return out, out == "2"
		})
		eventually("big's event", func() (string, bool) {
			out := k(kubectl127, "get", "events", "--field-selector", "involvedObject.name=big,reason=SuccessfulRescale", "-o", "jsonpath={.items[*].message}")
			return out, strings.Contains(out, "New size: 2; reason: Current number of replicas above Spec.MaxReplicas")
		})
	})

	t.Run("clusterrole-aggregation", func(t *testing.T) {
		admin := k(kubectl133, "get", "clusterrole", "admin", "-o", "yaml")
		for _, w := range []string{"aggregationRule:", "rbac.authorization.k8s.io/aggregate-to-admin: \"true\"", "localsubjectaccessreviews", "pods/exec", "horizontalpodautoscalers/status"} {
			if !strings.Contains(admin, w) {
				t.Errorf("admin lacks %q:\n%s", w, admin)
			}
		}
		if out := k(kubectl127, "get", "clusterroles", "-l", "rbac.authorization.k8s.io/aggregate-to-view=true", "-o", "name"); out != "clusterrole.rbac.authorization.k8s.io/system:aggregate-to-view" {
			t.Errorf("aggregate-to-view roles: %s", out)
		}
		k(kubectl127, "create", "rolebinding", "alice-view", "--clusterrole=view", "--user=alice")
		canI := func(want string) {
			t.Helper()
			eventually("alice may list podtemplates: "+want, func() (string, bool) {
				r := c.Kubectl(t, kubectl127, dir, "auth", "can-i", "list", "podtemplates", "--as=alice")
				return r.Combined(), strings.TrimSpace(r.Stdout) == want
			})
		}
		canI("no")
		k(kubectl133, "apply", "-f", write("podtemplate-viewer.yaml", podTemplateViewer))
		rule := `{"apiGroups":[""],"resources":["podtemplates"],"verbs":["get","list","watch"]}`
		for _, role := range []string{"view", "edit", "admin"} {
			eventually(role+" holds podtemplates", func() (string, bool) {
				out := k(kubectl133, "get", "clusterrole", role, "-o", "jsonpath={.rules}")
				return out, strings.Contains(out, rule)
			})
		}
		// The roles are taken in name order: podtemplate-viewer first.
		if out := k(kubectl133, "get", "clusterrole", "view", "-o", "jsonpath={.rules[0]}"); out != rule {
			t.Errorf("view's first rule: %s", out)
		}
		canI("yes")
		k(kubectl133, "delete", "clusterrole", "podtemplate-viewer")
		eventually("admin without podtemplates", func() (string, bool) {
			out := k(kubectl133, "get", "clusterrole", "admin", "-o", "jsonpath={.rules}")
			return out, !strings.Contains(out, "podtemplates")
		})
		canI("no")
	})

	t.Run("ephemeral-volume", func(t *testing.T) {
		k(kubectl133, "apply", "-f", write("scratch.yaml", scratchPod))
		want := `{"type":"scratch"} v1 Pod/scratch controller=true block=true ["ReadWriteOnce"] manual`
		eventually("the claim scratch-cache", func() (string, bool) {
			r := c.Kubectl(t, kubectl127, dir, "get", "pvc", "scratch-cache", "-o",
				"jsonpath={.metadata.labels} {.metadata.ownerReferences[0].apiVersion} {.metadata.ownerReferences[0].kind}/{.metadata.ownerReferences[0].name} controller={.metadata.ownerReferences[0].controller} block={.metadata.ownerReferences[0].blockOwnerDeletion} {.spec.accessModes} {.spec.storageClassName}")
			return r.Combined(), strings.TrimSpace(r.Stdout) == want
		})
		// A claim of that name the pod does not own: FailedBinding.
		k(kubectl133, "create", "-f", write("taken-claim.yaml", `apiVersion: v1
kind: PersistentVolumeClaim
metadata: {name: taken-cache}
spec: {accessModes: [ReadWriteOnce], storageClassName: manual, resources: {requests: {storage: 1Gi}}}
`))
		k(kubectl133, "apply", "-f", write("taken.yaml", strings.Replace(scratchPod, "name: scratch\n", "name: taken\n", 1)))
		eventually("FailedBinding", func() (string, bool) {
			out := k(kubectl133, "get", "events", "--field-selector", "involvedObject.name=taken,reason=FailedBinding", "-o",
				`jsonpath={range .items[*]}{.type} {.source.component}: {.message}{"\n"}{end}`)
			return out, strings.Contains(out, "Warning ephemeral_volume: ephemeral volume cache: PVC default/taken-cache was not created for pod default/taken (pod is not owner)")
		})
	})
}
