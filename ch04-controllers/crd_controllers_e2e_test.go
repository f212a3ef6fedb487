package main_test

// End-to-end test of chapter 4's controllers on custom resources, with the
// real kubectl 1.33 against the ch04 binary. The CustomResourceDefinition
// is created after the cluster is up, so every controller must find it by
// reading discovery again (the garbage collector and the resourcequota
// controller every --discovery-sync-period, shortened here; the namespace
// controller at each namespace deletion):
//   - garbage collector: a custom object owned by another is collected
//     when its owner is deleted, and so is a ConfigMap owned by a custom
//     object, in the background and in the foreground;
//   - resourcequota: count/widgets.<group> counts the custom objects, for a
//     quota created before the CRD;
//   - namespace: a deleted namespace's custom objects are deleted, then the
//     namespace;
//   - horizontalpodautoscaling: an autoscaler whose scaleTargetRef is a
//     custom kind with a scale subresource reads and writes its /scale:
//     with no metrics API, minReplicas raises spec.replicas.

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"kubik/internal/testenv"
)

const widgetCRD = `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: widgets.%[1]s
spec:
  group: %[1]s
  scope: Namespaced
  names: {plural: widgets, singular: widget, kind: Widget, listKind: WidgetList}
  versions:
  - name: v1
    served: true
    storage: true
    subresources:
      status: {}
      scale:
        specReplicasPath: .spec.replicas
        statusReplicasPath: .status.replicas
        labelSelectorPath: .status.selector
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec:
            type: object
            properties:
              replicas: {type: integer}
          status:
            type: object
            properties:
              replicas: {type: integer}
              selector: {type: string}
`

func TestCustomResourcesInControllers(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and starts the chapter 4 cluster")
	}
	const v = "1.33"
	testenv.Kubectl(t, v)
	bin := testenv.Build(t, "kubik/ch04-controllers")
	c := testenv.Start(t, bin, testenv.Options{Args: []string{"--discovery-sync-period=2s",
		"--horizontal-pod-autoscaler-sync-period=3s"}})
	dir := t.TempDir()
	k := func(args ...string) string { t.Helper(); return c.MustKubectl(t, v, dir, args...) }
	eventually := func(what string, f func() (string, bool)) {
		t.Helper()
		testenv.Eventually(t, what, 120*time.Second, f)
	}
	apply := func(name, manifest string) {
		t.Helper()
		path := filepath.Join(dir, name+".yaml")
		if err := os.WriteFile(path, []byte(manifest), 0o644); err != nil {
			t.Fatal(err)
		}
		k("apply", "-f", path)
	}
	uid := func(args ...string) string {
		t.Helper()
		return k(append([]string{"get"}, append(args, "-o", "jsonpath={.metadata.uid}")...)...)
	}
	gone := func(args ...string) func() (string, bool) {
		return func() (string, bool) {
			r := c.Kubectl(t, v, dir, append([]string{"get"}, args...)...)
			return r.Combined(), strings.Contains(r.Stderr, "NotFound")
		}
	}
	group := fmt.Sprintf("crd%d.example.com", rand.IntN(1e6))
	ns := "widgets-quota"

	// A quota made before the CRD exists: count/widgets.<group> is not
	// measured yet.
	k("create", "namespace", ns)
	k("create", "quota", "widgets", "-n", ns, "--hard=count/widgets."+group+"=5")

	apply("crd", fmt.Sprintf(widgetCRD, group))
	k("wait", "--for=condition=Established", "crd/widgets."+group, "--timeout=60s")
	eventually("widgets served", func() (string, bool) {
		r := c.Kubectl(t, v, dir, "get", "widgets."+group)
		return r.Combined(), r.ExitCode == 0
	})
	widget := func(name, namespace, owner string) {
		t.Helper()
		meta := fmt.Sprintf("{name: %s, namespace: %s}", name, namespace)
		if owner != "" {
			meta = fmt.Sprintf("{name: %s, namespace: %s, ownerReferences: [{apiVersion: %s/v1, kind: Widget, name: %s, uid: %s, blockOwnerDeletion: true}]}",
				name, namespace, group, owner, uid("widget."+group, owner, "-n", namespace))
		}
		apply(namespace+"-"+name, fmt.Sprintf("apiVersion: %s/v1\nkind: Widget\nmetadata: %s\nspec: {replicas: 1}\n", group, meta))
	}
	ownedConfigMap := func(name, namespace, owner string) {
		t.Helper()
		apply(namespace+"-cm-"+name, fmt.Sprintf("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: %s, namespace: %s, ownerReferences: [{apiVersion: %s/v1, kind: Widget, name: %s, uid: %s, blockOwnerDeletion: true}]}\n",
			name, namespace, group, owner, uid("widget."+group, owner, "-n", namespace)))
	}

	t.Run("garbagecollector", func(t *testing.T) {
		// Background: the owner goes at once, then its dependents.
		widget("owner", "default", "")
		widget("child", "default", "owner")
		ownedConfigMap("owned-bg", "default", "owner")
		k("delete", "widget."+group, "owner")
		eventually("the child widget collected", gone("widget."+group, "child"))
		eventually("the ConfigMap owned by a widget collected", gone("configmap", "owned-bg"))

		// Foreground: the owner waits for its dependents.
		widget("fg", "default", "")
		ownedConfigMap("owned-fg", "default", "fg")
		k("delete", "widget."+group, "fg", "--cascade=foreground", "--wait=false")
		eventually("the ConfigMap of a foreground-deleted widget collected", gone("configmap", "owned-fg"))
		eventually("the foreground-deleted widget gone", gone("widget."+group, "fg"))
	})

	t.Run("resourcequota", func(t *testing.T) {
		widget("a", ns, "")
		widget("b", ns, "")
		want := `"count/widgets.` + group + `":"2"`
		eventually("the quota counts the widgets", func() (string, bool) {
			out := k("get", "quota", "widgets", "-n", ns, "-o", "jsonpath={.status.used}")
			return out, strings.Contains(out, want)
		})
	})

	t.Run("namespace", func(t *testing.T) {
		const doomed = "widgets-doomed"
		k("create", "namespace", doomed)
		widget("w1", doomed, "")
		widget("w2", doomed, "")
		k("delete", "namespace", doomed, "--wait=false")
		eventually("the namespace with widgets deleted", gone("namespace", doomed))
		if out := k("get", "widgets."+group, "-n", doomed, "-o", "name"); out != "" {
			t.Errorf("widgets left in a deleted namespace: %s", out)
		}
	})

	t.Run("horizontalpodautoscaling", func(t *testing.T) {
		widget("scaled", "default", "")
		apply("hpa", fmt.Sprintf(`apiVersion: autoscaling/v2
kind: HorizontalPodAutoscaler
metadata: {name: scaled, namespace: default}
spec:
  scaleTargetRef: {apiVersion: %s/v1, kind: Widget, name: scaled}
  minReplicas: 3
  maxReplicas: 5
  metrics:
  - type: Resource
    resource: {name: cpu, target: {type: Utilization, averageUtilization: 50}}
`, group))
		eventually("the widget scaled to minReplicas", func() (string, bool) {
			out := k("get", "widget."+group, "scaled", "-o", "jsonpath={.spec.replicas}")
			return out, out == "3"
		})
		eventually("the autoscaler's status", func() (string, bool) {
			out := k("get", "hpa", "scaled", "-o", "jsonpath={.status.currentReplicas} {.status.desiredReplicas}")
			return out, out == "3 3"
		})
		if out := k("get", "hpa", "scaled", "-o", `jsonpath={.status.conditions[?(@.type=="AbleToScale")].reason}`); out != "SucceededGetScale" && out != "SucceededRescale" {
			t.Errorf("AbleToScale reason %q, want SucceededGetScale or SucceededRescale", out)
		}
	})
}
