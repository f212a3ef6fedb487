package main_test

// End-to-end test of the StatefulSet controller with the real kubectl
// 1.33 (and 1.27 for rollout status and history) against the ch04 binary and its hollow nodes: a StatefulSet of 3
// behind a headless Service with a volumeClaimTemplate comes up in order
// (web-1 only once web-0 is Running and Ready), each pod with its claim;
// `kubectl rollout status/history/undo sts` work as against a real
// cluster; a scale-down deletes the highest ordinal first and keeps the
// claims; whenDeleted: Delete hands a claim to the garbage collector.

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"kubik/internal/testenv"
)

// The volumes the claims bind to.
const statefulStorage = `
apiVersion: v1
kind: PersistentVolume
metadata: {name: pv-a}
spec: {capacity: {storage: 1Gi}, accessModes: [ReadWriteOnce], storageClassName: manual, hostPath: {path: /data/a}}
---
apiVersion: v1
kind: PersistentVolume
metadata: {name: pv-b}
spec: {capacity: {storage: 1Gi}, accessModes: [ReadWriteOnce], storageClassName: manual, hostPath: {path: /data/b}}
---
apiVersion: v1
kind: PersistentVolume
metadata: {name: pv-c}
spec: {capacity: {storage: 1Gi}, accessModes: [ReadWriteOnce], storageClassName: manual, hostPath: {path: /data/c}}
`

const statefulWeb = `
apiVersion: v1
kind: Service
metadata: {name: nginx, labels: {app: nginx}}
spec:
  clusterIP: None
  selector: {app: nginx}
  ports: [{name: web, port: 80}]
---
apiVersion: apps/v1
kind: StatefulSet
metadata: {name: web}
spec:
  serviceName: nginx
  replicas: 3
  selector: {matchLabels: {app: nginx}}
  template:
    metadata: {labels: {app: nginx}}
    spec:
      containers:
      - name: nginx
        image: registry.k8s.io/nginx-slim:0.24
        ports: [{name: web, containerPort: 80}]
        volumeMounts: [{name: www, mountPath: /usr/share/nginx/html}]
  volumeClaimTemplates:
  - metadata: {name: www}
    spec:
      accessModes: [ReadWriteOnce]
      storageClassName: manual
      resources: {requests: {storage: 1Gi}}
`

func TestStatefulSet(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and starts the chapter 4 cluster")
	}
	testenv.Kubectl(t, kubectl133)
	testenv.Kubectl(t, kubectl127)
	bin := testenv.Build(t, "kubik/ch04-controllers")
	c := testenv.Start(t, bin, testenv.Options{Args: []string{"--hollow-nodes=2"}})
	dir := t.TempDir()
	kv := func(v string, args ...string) string { t.Helper(); return c.MustKubectl(t, v, dir, args...) }
	k := func(args ...string) string { t.Helper(); return kv(kubectl133, args...) }
	eventually := func(what string, f func() (string, bool)) { t.Helper(); testenv.Eventually(t, what, 2*time.Minute, f) }
	expect := func(got, want string) {
		t.Helper()
		if got != want {
			t.Errorf("got:\n%s\nwant:\n%s", got, want)
		}
	}
	apply := func(name, manifest string) string {
		t.Helper()
		if err := os.WriteFile(filepath.Join(dir, name), []byte(manifest), 0o644); err != nil {
			t.Fatal(err)
		}
		return k("apply", "-f", name)
	}
	rolledOut := func(v string) {
		t.Helper()
		out := kv(v, "rollout", "status", "sts/web", "--timeout=120s")
		if lines := strings.Split(out, "\n"); lines[len(lines)-1] != "partitioned roll out complete: 3 new pods have been updated..." {
			t.Fatalf("rollout status sts/web:\n%s", out)
		}
	}

	apply("storage.yaml", statefulStorage)
	expect(apply("web.yaml", statefulWeb), "service/nginx created\nstatefulset.apps/web created")
	rolledOut(kubectl133)
	expect(k("get", "pods", "-l", "app=nginx", "-o", "jsonpath={.items[*].metadata.name}"), "web-0 web-1 web-2")
	if f := strings.Fields(k("get", "sts", "web")); len(f) != 6 || f[3] != "web" || f[4] != "3/3" {
		t.Errorf("get sts web: %q", f)
	}

	// OrderedReady: each pod was created only once its predecessor was
	// Ready (timestamps have a resolution of one second, hence >=).
	created := func(pod string) time.Time {
		return parseTime(t, k("get", "pod", pod, "-o", "jsonpath={.metadata.creationTimestamp}"))
	}
	ready := func(pod string) time.Time {
		return parseTime(t, k("get", "pod", pod, "-o", `jsonpath={.status.conditions[?(@.type=="Ready")].lastTransitionTime}`))
	}
	for _, p := range [][2]string{{"web-0", "web-1"}, {"web-1", "web-2"}} {
		if r, cr := ready(p[0]), created(p[1]); cr.Before(r) {
			t.Errorf("%s created at %v, before %s was ready at %v", p[1], cr, p[0], r)
		}
	}
	// Identity: hostname and subdomain, the ordinal labels, a claim each.
	expect(k("get", "pod", "web-1", "-o", `jsonpath={.spec.hostname}.{.spec.subdomain} {.metadata.labels.statefulset\.kubernetes\.io/pod-name} {.metadata.labels.apps\.kubernetes\.io/pod-index} {.spec.volumes[0].persistentVolumeClaim.claimName} {.metadata.ownerReferences[0].kind}/{.metadata.ownerReferences[0].name}`),
		"web-1.nginx web-1 1 www-web-1 StatefulSet/web")
	expect(k("get", "pvc", "-o", "name"), "persistentvolumeclaim/www-web-0\npersistentvolumeclaim/www-web-1\npersistentvolumeclaim/www-web-2")
	eventually("claims Bound", func() (string, bool) {
		out := k("get", "pvc", "-o", "jsonpath={.items[*].status.phase}")
		return out, out == "Bound Bound Bound"
	})
	eventually("SuccessfulCreate events", func() (string, bool) {
		out := k("get", "events", "--field-selector", "involvedObject.kind=StatefulSet,involvedObject.name=web,reason=SuccessfulCreate", "-o", `jsonpath={range .items[*]}{.message}{"\n"}{end}`)
		lines := strings.Split(out, "\n")
		return out, slices.Contains(lines, "create Pod web-0 in StatefulSet web successful") &&
			slices.Contains(lines, "create Claim www-web-0 Pod web-0 in StatefulSet web success") &&
			slices.Contains(lines, "create Pod web-2 in StatefulSet web successful")
	})

	// A new image: a second revision, rolled out, then undone.
	rev1 := k("get", "sts", "web", "-o", "jsonpath={.status.updateRevision}")
	expect(k("set", "image", "sts/web", "nginx=registry.k8s.io/nginx-slim:0.25"), "statefulset.apps/web image updated")
	rolledOut(kubectl133)
	eventually("update revision current", func() (string, bool) {
		out := k("get", "sts", "web", "-o", "jsonpath={.status.currentRevision} {.status.updateRevision} {.status.updatedReplicas} {.status.currentReplicas}")
		f := strings.Fields(out)
		return out, len(f) == 4 && f[0] == f[1] && f[1] != rev1 && f[2] == "3" && f[3] == "3"
	})
	expect(k("get", "pods", "-l", "app=nginx", "-o", "jsonpath={.items[*].spec.containers[0].image}"),
		"registry.k8s.io/nginx-slim:0.25 registry.k8s.io/nginx-slim:0.25 registry.k8s.io/nginx-slim:0.25")
	expect(k("rollout", "history", "sts/web"), "statefulset.apps/web \nREVISION  CHANGE-CAUSE\n1         <none>\n2         <none>")
	if rev2 := k("rollout", "history", "sts/web", "--revision=2"); !strings.HasPrefix(rev2, "statefulset.apps/web with revision #2") ||
		!strings.Contains(rev2, "Image:\tregistry.k8s.io/nginx-slim:0.25") {
		t.Errorf("revision 2:\n%s", rev2)
	}
	expect(k("rollout", "undo", "sts/web"), "statefulset.apps/web rolled back")
	rolledOut(kubectl127)
	eventually("pods back on 0.24", func() (string, bool) {
		out := k("get", "pods", "-l", "app=nginx", "-o", "jsonpath={.items[*].spec.containers[0].image}")
		return out, out == "registry.k8s.io/nginx-slim:0.24 registry.k8s.io/nginx-slim:0.24 registry.k8s.io/nginx-slim:0.24"
	})
	expect(k("get", "sts", "web", "-o", "jsonpath={.status.updateRevision}"), rev1)
	expect(kv(kubectl127, "rollout", "history", "sts/web"), "statefulset.apps/web \nREVISION  CHANGE-CAUSE\n2         <none>\n3         <none>")
	expect(k("rollout", "undo", "sts/web", "--to-revision=3"), "statefulset.apps/web skipped rollback (current template already matches revision 3)")

	// Scale down: web-2 goes, then web-1; the claims stay.
	expect(k("scale", "sts", "web", "--replicas=1"), "statefulset.apps/web scaled")
	eventually("web-2 then web-1 deleted", func() (string, bool) {
		out := k("get", "pods", "-l", "app=nginx", "-o", "jsonpath={.items[*].metadata.name}")
		pods := strings.Fields(out)
		if slices.Contains(pods, "web-2") && !slices.Contains(pods, "web-1") {
			t.Fatalf("web-1 deleted before web-2: %v", pods)
		}
		return out, out == "web-0"
	})
	eventually("SuccessfulDelete events", func() (string, bool) {
		out := k("get", "events", "--field-selector", "involvedObject.kind=StatefulSet,involvedObject.name=web,reason=SuccessfulDelete", "-o", `jsonpath={range .items[*]}{.message}{"\n"}{end}`)
		lines := strings.Split(out, "\n")
		return out, slices.Contains(lines, "delete Pod web-2 in StatefulSet web successful") &&
			slices.Contains(lines, "delete Pod web-1 in StatefulSet web successful")
	})
	expect(k("get", "pvc", "-o", "name"), "persistentvolumeclaim/www-web-0\npersistentvolumeclaim/www-web-1\npersistentvolumeclaim/www-web-2")
	eventually("status of one replica", func() (string, bool) {
		out := k("get", "sts", "web", "-o", "jsonpath={.status.replicas} {.status.readyReplicas} {.status.availableReplicas}")
		return out, out == "1 1 1"
	})

	// whenDeleted: Delete makes the set the controller of web-0's claim, so
	// the garbage collector deletes it with the set; the claims of pods
	// already gone stay, as upstream.
	expect(k("patch", "sts", "web", "-p", `{"spec":{"persistentVolumeClaimRetentionPolicy":{"whenDeleted":"Delete"}}}`), "statefulset.apps/web patched")
	eventually("www-web-0 owned by the set", func() (string, bool) {
		out := k("get", "pvc", "www-web-0", "-o", "jsonpath={.metadata.ownerReferences[*].kind}/{.metadata.ownerReferences[*].name}")
		return out, out == "StatefulSet/web"
	})
	expect(k("delete", "sts", "web"), `statefulset.apps "web" deleted`)
	eventually("www-web-0 deleted with the set", func() (string, bool) {
		out := k("get", "pvc", "-o", "name")
		return out, out == "persistentvolumeclaim/www-web-1\npersistentvolumeclaim/www-web-2"
	})
}

func parseTime(t *testing.T, s string) time.Time {
	t.Helper()
	v, err := time.Parse(time.RFC3339, s)
	if err != nil {
		t.Fatalf("time %q: %v", s, err)
	}
	return v
}
