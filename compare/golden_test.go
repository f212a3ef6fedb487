package compare_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"kubik/compare"
	"kubik/internal/testenv"
)

// TestGoldens runs every scenario against its Kubik chapter and compares the
// normalised output with what real Kubernetes printed (recorded by
// `make golden` into testdata/golden). Every command must print the same,
// except those marked "# known: <why>" in the scenario. The report shows the
// side-by-side differences and the score.
func TestGoldens(t *testing.T) {
	goldens, err := filepath.Glob("testdata/golden/*.txt")
	if err != nil {
		t.Fatal(err)
	}
	if len(goldens) == 0 {
		t.Fatal("no goldens in testdata/golden: record them with `make golden`")
	}
	for _, golden := range goldens {
		base := strings.TrimSuffix(filepath.Base(golden), ".txt")
		scenario, version, ok := strings.Cut(base, ".kubectl-")
		if !ok {
			t.Fatalf("%s: golden names are <scenario>.kubectl-<version>.txt", golden)
		}
		t.Run(base, func(t *testing.T) {
			s, err := compare.LoadScenario(filepath.Join("scenarios", scenario+".md"))
			if err != nil {
				t.Fatal(err)
			}
			b, err := os.ReadFile(golden)
			if err != nil {
				t.Fatal(err)
			}
			ref, err := compare.ReadGolden(b)
			if err != nil {
				t.Fatal(err)
			}
			kubectl := testenv.Kubectl(t, version)
			bin := testenv.Build(t, "kubik/"+s.Chapter)
			cluster := testenv.Start(t, bin, testenv.Options{Args: s.Args})
			ours, err := compare.Run(s, kubectl, cluster.Kubeconfig)
			if err != nil {
				t.Fatal(err)
			}
			results, err := compare.Diff(s, ref, ours)
			if err != nil {
				t.Fatal(err)
			}
			var report strings.Builder
			compare.Print(&report, s, results, 200)
			t.Log("\n" + report.String())
			for _, r := range results {
				if r.Command != r.Ref.Command {
					t.Errorf("golden is stale: scenario has %q where the golden has %q (make golden)", r.Command, r.Ref.Command)
					continue
				}
				if !r.Identical && r.Known == "" {
					t.Errorf("$ %s\nprints differently from real Kubernetes (see the report above)", strings.SplitN(r.Command, "\n", 2)[0])
				}
			}
		})
	}
}
