// Command compare runs kubectl scenarios against a Kubik chapter and against
// real Kubernetes and prints what differs (`make compare SCENARIO=...`), or
// records the reference outputs as goldens (`make golden`).
//
//	compare [-kubectl 1.33] [-ref-kubeconfig .kubik/ref/admin.kubeconfig] SCENARIO.md...
//	compare -golden [-ref-kubeconfig ...] SCENARIO.md...        (writes compare/testdata/golden/)
//	compare -against-golden SCENARIO.md...                       (no reference cluster needed)
package main

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"path/filepath"

	"kubik/ch01-apiserver/testenv"
	"kubik/compare"
)

func main() {
	kubectlVersion := flag.String("kubectl", "1.33", "kubectl version to run (kubectl.<version> in "+testenv.KubectlDir+")")
	refKubeconfig := flag.String("ref-kubeconfig", ".kubik/ref/admin.kubeconfig", "kubeconfig of the reference cluster (make ref-up)")
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
		if err := run(path, kubectl, *kubectlVersion, *refKubeconfig, *goldenDir, *golden, *againstGolden); err != nil {
			fmt.Fprintln(os.Stderr, "compare:", err)
			failed = true
		}
	}
	if failed {
		os.Exit(1)
	}
}

func goldenPath(dir, scenario, version string) string {
	return filepath.Join(dir, scenario+".kubectl-"+version+".txt")
}

func run(path, kubectl, version, refKubeconfig, goldenDir string, record, againstGolden bool) error {
	s, err := compare.LoadScenario(path)
	if err != nil {
		return err
	}
	if record {
		ref, err := compare.Run(s, kubectl, refKubeconfig)
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
	} else if ref, err = compare.Run(s, kubectl, refKubeconfig); err != nil {
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
	cluster, err := testenv.Launch(bin, testenv.Options{DataDir: dataDir})
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
