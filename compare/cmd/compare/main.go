// Command compare runs kubectl scenarios against a Kubik chapter and against
// real Kubernetes and prints what differs (`make compare SCENARIO=...`), or
// records the reference outputs as goldens (`make golden`).
//
//	compare [-kubectl 1.33] SCENARIO.md...           compare with a fresh reference cluster per scenario
//	compare -golden SCENARIO.md...                   record the reference outputs (compare/testdata/golden/)
//	compare -against-golden SCENARIO.md...           compare with the goldens (no upstream binaries needed)
//
// Each scenario runs against a fresh Kubik chapter and a fresh reference
// cluster (the upstream binaries in -ref-bin, with the components the
// scenario asks for), so scenarios do not see each other's objects.
// -ref-kubeconfig uses an already running cluster instead (make ref-up).
package main

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"

	"kubik/compare"
	"kubik/compare/refcluster"
	"kubik/internal/testenv"
)

func main() {
	kubectlVersion := flag.String("kubectl", "1.33", "kubectl version to run (kubectl.<version> in "+testenv.KubectlDir+")")
	refKubeconfig := flag.String("ref-kubeconfig", "", "kubeconfig of a running reference cluster (default: start a fresh one per scenario)")
	refBin := flag.String("ref-bin", ".kubik/ref/bin", "upstream binaries built by scripts/ref-build.sh (make ref-build)")
	golden := flag.Bool("golden", false, "record the reference cluster's outputs as goldens instead of comparing")
	againstGolden := flag.Bool("against-golden", false, "compare Kubik with the recorded goldens, not a live reference cluster")
	goldenDir := flag.String("golden-dir", "compare/testdata/golden", "where goldens live")
	flag.Parse()
	kubectl := filepath.Join(testenv.KubectlDir, "kubectl."+*kubectlVersion)
	if flag.NArg() == 0 {
		fmt.Fprintln(os.Stderr, "usage: compare [flags] SCENARIO.md...")
		os.Exit(2)
	}
	failed := false
	for _, path := range flag.Args() {
		if err := run(path, kubectl, *kubectlVersion, *refKubeconfig, *refBin, *goldenDir, *golden, *againstGolden); err != nil {
			fmt.Fprintln(os.Stderr, "compare:", err)
			failed = true
		}
	}
	testenv.RemoveBuilt() // the chapter binaries built for the runs
	if failed {
		os.Exit(1)
	}
}

func goldenPath(dir, scenario, version string) string {
	return filepath.Join(dir, scenario+".kubectl-"+version+".txt")
}

// reference runs the scenario against real Kubernetes.
func reference(s *compare.Scenario, kubectl, refKubeconfig, refBin string) ([]compare.Output, error) {
	if refKubeconfig != "" {
		return compare.Run(s, kubectl, refKubeconfig)
	}
	dir, err := os.MkdirTemp("", "kubik-ref-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	c, err := refcluster.Up(context.Background(), refcluster.Options{Dir: dir, BinDir: refBin, Components: s.RefComponents, ExtraArgs: s.RefArgs})
	if err != nil {
		return nil, err
	}
	defer refcluster.Down(dir)
	return compare.Run(s, kubectl, c.AdminKubeconfig)
}

func run(path, kubectl, version, refKubeconfig, refBin, goldenDir string, record, againstGolden bool) error {
	s, err := compare.LoadScenario(path)
	if err != nil {
		return err
	}
	if record {
		ref, err := reference(s, kubectl, refKubeconfig, refBin)
		if err != nil {
			return err
		}
		var buf bytes.Buffer
		compare.WriteGolden(&buf, ref)
		if err := os.MkdirAll(goldenDir, 0o755); err != nil {
			return err
		}
		out := goldenPath(goldenDir, s.Name, version)
		fmt.Printf("%s: recorded %d outputs in %s\n", s.Name, len(ref), out)
		return os.WriteFile(out, buf.Bytes(), 0o644)
	}

	var ref []compare.Output
	if againstGolden {
		b, err := os.ReadFile(goldenPath(goldenDir, s.Name, version))
		if err != nil {
			return err
		}
		if ref, err = compare.ReadGolden(b); err != nil {
			return err
		}
	} else if ref, err = reference(s, kubectl, refKubeconfig, refBin); err != nil {
		return err
	}

	bin, err := testenv.BuildBinary("kubik/" + s.Chapter)
	if err != nil {
		return err
	}
	dataDir, err := os.MkdirTemp("", "kubik-compare-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dataDir)
	cluster, err := testenv.Launch(bin, testenv.Options{DataDir: dataDir, Args: s.Args})
	if err != nil {
		return err
	}
	defer cluster.Stop()
	ours, err := compare.Run(s, kubectl, cluster.Kubeconfig)
	if err != nil {
		return err
	}
	results, err := compare.Diff(s, ref, ours)
	if err != nil {
		return err
	}
	compare.Print(os.Stdout, s, results, 160)
	return nil
}
