package main_test

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"kubik/internal/testenv"
)

// TestHelmChartWithCRDs: the real helm (v3.22.0, built once by
// scripts/ensure-helm.sh) against a chapter 1 apiserver with the admin
// kubeconfig. The chart in testdata/charts/gizmo ships its CRD in crds/ and
// templates a custom resource of it, a ConfigMap and a Secret; helm
// install, list, status, upgrade, template and uninstall print what they
// print against a real cluster, and helm keeps its releases in Secrets
// sh.helm.release.v1.<name>.v<revision>.
func TestHelmChartWithCRDs(t *testing.T) {
	if testing.Short() {
		t.Skip("builds helm and the apiserver and runs helm and kubectl against it")
	}
	h := &helm{bin: ensureHelm(t), k: newKube(t, "1.33"), home: t.TempDir()}
	chart, err := filepath.Abs("testdata/charts/gizmo")
	if err != nil {
		t.Fatal(err)
	}
	k := h.k

	h.ok(`NAME: demo
LAST DEPLOYED: <time>
NAMESPACE: default
STATUS: deployed
REVISION: 1
TEST SUITE: None
NOTES:
Gizmo demo of size 3 is installed.
`, "install", "demo", chart, "--namespace", "default", "--wait")
	// The CRD names its columns, so there is no AGE (as upstream).
	k.table(`NAME SIZE COLOR
demo 3 red`, "get", "gizmos")
	k.ok("hello 3", "get", "configmap", "demo-config", "-o", "jsonpath={.data.greeting} {.data.size}")
	k.ok("ZGVtby0z", "get", "secret", "demo-secret", "-o", "jsonpath={.data.token}")
	k.table(`NAME TYPE DATA AGE
sh.helm.release.v1.demo.v1 helm.sh/release.v1 1 <age>`, "get", "secrets", "-l", "owner=helm")

	h.ok(`NAME NAMESPACE REVISION UPDATED STATUS CHART APP VERSION
demo default 1 <time> deployed gizmo-0.1.0 1.0`, "list")
	h.ok(`NAME: demo
LAST DEPLOYED: <time>
NAMESPACE: default
STATUS: deployed
REVISION: 1
TEST SUITE: None
NOTES:
Gizmo demo of size 3 is installed.
`, "status", "demo")

	h.ok(`Release "demo" has been upgraded. Happy Helming!
NAME: demo
LAST DEPLOYED: <time>
NAMESPACE: default
STATUS: deployed
REVISION: 2
TEST SUITE: None
NOTES:
Gizmo demo of size 5 is installed.
`, "upgrade", "demo", chart, "--set", "size=5", "--set", "color=green")
	k.table(`NAME SIZE COLOR
demo 5 green`, "get", "gizmos")
	k.ok("hello 5", "get", "configmap", "demo-config", "-o", "jsonpath={.data.greeting} {.data.size}")
	k.table(`NAME TYPE DATA AGE
sh.helm.release.v1.demo.v1 helm.sh/release.v1 1 <age>
sh.helm.release.v1.demo.v2 helm.sh/release.v1 1 <age>`, "get", "secrets", "-l", "owner=helm")
	h.ok(`NAME NAMESPACE REVISION UPDATED STATUS CHART APP VERSION
demo default 2 <time> deployed gizmo-0.1.0 1.0`, "list")

	h.ok(`---
# Source: gizmo/templates/secret.yaml
apiVersion: v1
kind: Secret
metadata:
  name: other-secret
type: Opaque
stringData:
  token: "other-7"
---
# Source: gizmo/templates/configmap.yaml
apiVersion: v1
kind: ConfigMap
metadata:
  name: other-config
data:
  greeting: "hi"
  size: "7"
---
# Source: gizmo/templates/gizmo.yaml
apiVersion: charts.example.com/v1
kind: Gizmo
metadata:
  name: other
  labels:
    app.kubernetes.io/managed-by: Helm
spec:
  size: 7
  color: blue
`, "template", "other", chart, "--set", "size=7,color=blue,greeting=hi")

	h.ok(`release "demo" uninstalled
`, "uninstall", "demo", "--wait")
	k.exact([]string{"get", "gizmos"}, "", "No resources found in default namespace.\n", 0)
	k.exact([]string{"get", "configmap", "demo-config"}, "", `Error from server (NotFound): configmaps "demo-config" not found`+"\n", 1)
	k.exact([]string{"get", "secrets", "-l", "owner=helm"}, "", "No resources found in default namespace.\n", 0)
	// Helm leaves the CRDs of crds/ in place (its documented policy).
	k.ok("gizmos.charts.example.com", "get", "crd", "gizmos.charts.example.com", "-o", "jsonpath={.metadata.name}")
	h.ok("NAME NAMESPACE REVISION UPDATED STATUS CHART APP VERSION", "list")
}

// ensureHelm runs scripts/ensure-helm.sh (a no-op once the binary is
// built) and returns the helm binary's path.
func ensureHelm(t *testing.T) string {
	t.Helper()
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(filepath.Join(root, "scripts", "ensure-helm.sh"))
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("ensure-helm.sh: %v\n%s", err, out)
	}
	return filepath.Join(root, ".kubik", "bin", "helm")
}

type helm struct {
	bin  string
	k    *kube
	home string
}

// helmTimeRE: helm's LAST DEPLOYED (time.ANSIC) and list's UPDATED.
var helmTimeRE = regexp.MustCompile(`[A-Z][a-z]{2} [A-Z][a-z]{2} [ 0-9]\d \d\d:\d\d:\d\d \d{4}|\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\.\d+ [+-]\d{4} [A-Z]+`)

// run runs helm with the cluster's admin kubeconfig and a home of its own.
func (h *helm) run(args ...string) testenv.Result {
	h.k.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, h.bin, append([]string{"--kubeconfig", h.k.c.Kubeconfig}, args...)...)
	cmd.Dir = h.k.dir
	cmd.Env = append(os.Environ(), "HOME="+h.home,
		"HELM_CACHE_HOME="+filepath.Join(h.home, "cache"),
		"HELM_CONFIG_HOME="+filepath.Join(h.home, "config"),
		"HELM_DATA_HOME="+filepath.Join(h.home, "data"))
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		h.k.t.Fatalf("helm %v: %v", args, err)
	}
	return testenv.Result{Stdout: out.String(), Stderr: errb.String(), ExitCode: code}
}

// ok runs helm, expects exit 0 and an empty stderr, and compares stdout
// with want: times as <time>; a table (a want without a trailing newline)
// compared cell by cell.
func (h *helm) ok(want string, args ...string) {
	h.k.t.Helper()
	r := h.run(args...)
	got := helmTimeRE.ReplaceAllString(r.Stdout, "<time>")
	if !strings.HasSuffix(want, "\n") {
		var lines []string
		for _, line := range strings.Split(strings.TrimSpace(got), "\n") {
			lines = append(lines, strings.Join(strings.Fields(line), " "))
		}
		got = strings.Join(lines, "\n")
	}
	if got != want || r.Stderr != "" || r.ExitCode != 0 {
		h.k.t.Errorf("helm %s: exit %d\nstdout:\n%s\nwant:\n%s\n%s\nstderr:\n%s", strings.Join(args, " "), r.ExitCode, got, want, lineDiff(got, want), r.Stderr)
	}
}
