package main_test

// End-to-end test of the Website controller (package website), the
// chapter's example of a controller of our own, with kubectl 1.33 and 1.27
// against the real ch04 binary and its hollow nodes: the controller applies
// its CRD, a Website applied with kubectl gets a ConfigMap, a Deployment
// and a Service it owns, `kubectl get websites` prints the CRD's columns,
// `kubectl scale` goes through the scale subresource to the Deployment, the
// status follows the pods, a deleted Service comes back, and deleting the
// Website lets the garbage collector take all three.

import (
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"kubik/internal/testenv"
)

func TestWebsiteController(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and starts the chapter 4 cluster")
	}
	bin := testenv.Build(t, "kubik/ch04-controllers")
	example, err := filepath.Abs("website/testdata/hello.yaml")
	if err != nil {
		t.Fatal(err)
	}
	for _, v := range []string{"1.33", "1.27"} {
		t.Run("kubectl-"+v, func(t *testing.T) {
			testenv.Kubectl(t, v)
			c := testenv.Start(t, bin, testenv.Options{Args: []string{"--hollow-nodes=2"}})
			dir := t.TempDir()
			k := func(args ...string) string { t.Helper(); return c.MustKubectl(t, v, dir, args...) }
			eventually := func(what string, f func() (string, bool)) { t.Helper(); testenv.Eventually(t, what, 90*time.Second, f) }
			jsonpath := func(want string, args ...string) func() (string, bool) {
				return func() (string, bool) {
					r := c.Kubectl(t, v, dir, args...)
					return r.Combined(), r.ExitCode == 0 && strings.TrimSpace(r.Stdout) == want
				}
			}

			eventually("CRD established", jsonpath("True", "get", "crd", "websites.kubik.io",
				"-o", `jsonpath={.status.conditions[?(@.type=="Established")].status}`))
			if out := k("apply", "-f", example); out != "website.kubik.io/hello created" {
				t.Fatalf("apply: %q", out)
			}
			uid := k("get", "website", "hello", "-o", "jsonpath={.metadata.uid}")
			for _, kind := range []string{"configmap", "deployment", "service"} {
				eventually(kind+" owned by the Website", jsonpath("Website/hello/"+uid+"/true",
					"get", kind, "hello", "-o", "jsonpath={.metadata.ownerReferences[0].kind}/{.metadata.ownerReferences[0].name}/{.metadata.ownerReferences[0].uid}/{.metadata.ownerReferences[0].controller}"))
			}
			if out := k("get", "configmap", "hello", "-o", "jsonpath={.data.index\\.html}"); out != "<h1>Hello from Kubik</h1>" {
				t.Errorf("index.html: %q", out)
			}

			// The columns of additionalPrinterColumns, AGE last; the short name.
			table := regexp.MustCompile(`^NAME\s+REPLICAS\s+READY\s+URL\s+AGE\nhello\s+2\s+2\s+http://hello\.default\.svc\.cluster\.local\s+\d+[smh]$`)
			eventually("kubectl get websites shows 2 ready", func() (string, bool) {
				out := k("get", "websites")
				return out, table.MatchString(out)
			})
			if out := k("get", "ws", "-o", "name"); out != "website.kubik.io/hello" {
				t.Errorf("kubectl get ws: %q", out)
			}
			eventually("condition Ready", jsonpath("True/MinimumReplicasAvailable", "get", "website", "hello",
				"-o", `jsonpath={.status.conditions[?(@.type=="Ready")].status}/{.status.conditions[?(@.type=="Ready")].reason}`))

			// kubectl scale: the scale subresource, then the Deployment, then the pods.
			if out := k("scale", "website", "hello", "--replicas=3"); out != "website.kubik.io/hello scaled" {
				t.Errorf("scale: %q", out)
			}
			eventually("deployment scaled to 3", jsonpath("3", "get", "deployment", "hello", "-o", "jsonpath={.spec.replicas}"))
			eventually("status readyReplicas 3", jsonpath("3/3", "get", "website", "hello", "-o", "jsonpath={.status.replicas}/{.status.readyReplicas}"))

			// Drift: a deleted Service comes back (a new one: another uid).
			svcUID := k("get", "service", "hello", "-o", "jsonpath={.metadata.uid}")
			k("delete", "service", "hello")
			eventually("service made again", func() (string, bool) {
				r := c.Kubectl(t, v, dir, "get", "service", "hello", "-o", "jsonpath={.metadata.uid}")
				got := strings.TrimSpace(r.Stdout)
				return r.Combined(), r.ExitCode == 0 && got != "" && got != svcUID
			})
			events := k("get", "events", "--field-selector", "involvedObject.kind=Website", "-o", "jsonpath={range .items[*]}{.reason} {.message}{\"\\n\"}{end}")
			for _, want := range []string{"Created Created ConfigMap hello", "Created Created Deployment hello", "Created Created Service hello", "Synced Website synced successfully"} {
				if !strings.Contains(events, want) {
					t.Errorf("events of the Website lack %q:\n%s", want, events)
				}
			}

			// Deleting the Website: the garbage collector deletes what it owned.
			k("delete", "website", "hello")
			eventually("owned objects collected", jsonpath("", "get", "configmap,deployment,service", "hello", "--ignore-not-found", "-o", "name"))
		})
	}
}
