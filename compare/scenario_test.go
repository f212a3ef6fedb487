package compare_test

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"kubik/compare"
)

func writeScenario(t *testing.T, frontMatter string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "s.md")
	body := frontMatter + "\n\n```console\n$ kubectl get ns\n```\n"
	if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestLoadScenarioFrontMatter checks that args go to the Kubik binary and
// ref-args, grouped by component, to the reference cluster.
func TestLoadScenarioFrontMatter(t *testing.T) {
	s, err := compare.LoadScenario(writeScenario(t, `<!-- compare: chapter=ch04-controllers ref-components=kube-controller-manager,kube-scheduler
  args=--hollow-nodes=0,--node-monitor-grace-period=20s
  ref-args=kube-controller-manager:--node-monitor-grace-period=20s,kube-controller-manager:--node-monitor-period=5s,kube-apiserver:--v=2 -->`))
	if err != nil {
		t.Fatal(err)
	}
	if s.Chapter != "ch04-controllers" {
		t.Errorf("chapter %q", s.Chapter)
	}
	if want := []string{"kube-controller-manager", "kube-scheduler"}; !reflect.DeepEqual(s.RefComponents, want) {
		t.Errorf("ref-components %q, want %q", s.RefComponents, want)
	}
	if want := []string{"--hollow-nodes=0", "--node-monitor-grace-period=20s"}; !reflect.DeepEqual(s.Args, want) {
		t.Errorf("args %q, want %q", s.Args, want)
	}
	want := map[string][]string{
		"kube-controller-manager": {"--node-monitor-grace-period=20s", "--node-monitor-period=5s"},
		"kube-apiserver":          {"--v=2"},
	}
	if !reflect.DeepEqual(s.RefArgs, want) {
		t.Errorf("ref-args %q, want %q", s.RefArgs, want)
	}
	if len(s.Steps) != 1 {
		t.Errorf("%d steps, want 1", len(s.Steps))
	}
}

// TestLoadScenarioRefArgsErrors: a flag without its component, or for a
// component the reference cluster does not start, is a mistake in the
// scenario, not something to ignore silently.
func TestLoadScenarioRefArgsErrors(t *testing.T) {
	for _, fm := range []string{
		`<!-- compare: chapter=ch04-controllers ref-components=kube-controller-manager ref-args=--node-monitor-grace-period=20s -->`,
		`<!-- compare: chapter=ch04-controllers ref-components=kube-controller-manager ref-args=kube-controller-manager:node-monitor-grace-period -->`,
		`<!-- compare: chapter=ch04-controllers ref-components=kube-controller-manager ref-args=kube-scheduler:--v=2 -->`,
	} {
		if _, err := compare.LoadScenario(writeScenario(t, fm)); err == nil || !strings.Contains(err.Error(), "ref-args") {
			t.Errorf("%s: error %v, want one about ref-args", fm, err)
		}
	}
}

// TestNormalizeControllerOutputs: what chapter 4's scenario prints — a PV
// table whose empty cells collapse (the age is found by the header's
// offset, not by counting cells) and pod-template-hash values outside
// names.
func TestNormalizeControllerOutputs(t *testing.T) {
	in := `NAME                       CAPACITY   ACCESS MODES   RECLAIM POLICY   STATUS      CLAIM          STORAGECLASS   VOLUMEATTRIBUTESCLASS   REASON   AGE
persistentvolume/pv-big    5Gi        RWO            Delete           Available                  <unset>                                         2s
persistentvolume/pv-small  1Gi        RWO            Retain           Bound       default/data   <unset>                                         12m
web-5974c5bb9c  2  2  0  nginx  nginx:1.27  app=web,pod-template-hash=5974c5bb9c
{"app":"web","pod-template-hash":"77657b99d8"}`
	want := `NAME  CAPACITY  ACCESS MODES  RECLAIM POLICY  STATUS  CLAIM  STORAGECLASS  VOLUMEATTRIBUTESCLASS  REASON  AGE
persistentvolume/pv-big  5Gi  RWO  Delete  Available  <unset>  <AGE>
persistentvolume/pv-small  1Gi  RWO  Retain  Bound  default/data  <unset>  <AGE>
web-<HASH>  2  2  0  nginx  nginx:1.27  app=web,pod-template-hash=<HASH>
{"app":"web","pod-template-hash":"<HASH>"}`
	if got := compare.Normalize(in); got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
	// A different status or claim is still a difference.
	other := strings.Replace(in, "Bound       default/data", "Available   default/data", 1)
	if compare.Normalize(other) == want {
		t.Error("a different STATUS normalised away")
	}
}
