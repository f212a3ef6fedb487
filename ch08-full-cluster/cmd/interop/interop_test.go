package main

import (
	"bytes"
	"context"
	"flag"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"kubik/ch08-full-cluster/cluster8"
	"kubik/ch08-full-cluster/pki"
	"kubik/ch08-full-cluster/provision"
)

// refBin is upstream's binaries from the repository's root (make ref-build).
const refBin = "../../../.kubik/ref/bin"

// helpFlags are the long flags an upstream binary's --help lists
// (recorded in testdata/<binary>.help).
func helpFlags(t *testing.T, binary string) map[string]bool {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", binary+".help"))
	if err != nil {
		t.Fatal(err)
	}
	flags := map[string]bool{}
	for _, m := range regexp.MustCompile(`(?m)^\s+(?:-\w, )?--([a-z0-9-]+)`).FindAllStringSubmatch(string(data), -1) {
		flags[m[1]] = true
	}
	if len(flags) < 30 {
		t.Fatalf("testdata/%s.help: only %d flags", binary, len(flags))
	}
	return flags
}

// execFlags are the --flags of a unit file's ExecStart and its program.
func execFlags(unit string) (program string, flags []string) {
	_, exec, ok := strings.Cut(unit, "ExecStart=")
	if !ok {
		return "", nil
	}
	exec, _, _ = strings.Cut(exec, "\nRestart")
	words := strings.Fields(strings.ReplaceAll(exec, "\\\n", " "))
	for _, w := range words[1:] {
		if name, ok := strings.CutPrefix(w, "--"); ok {
			name, _, _ = strings.Cut(name, "=")
			flags = append(flags, name)
		}
	}
	return filepath.Base(words[0]), flags
}

// TestUpstreamUnitsTakeUpstreamFlags renders every machine of every cell
// that runs and checks each upstream component's unit against the flags
// upstream's binary lists: upstream's binaries exit on a flag they do not
// know, so a cell with one would never come up.
func TestUpstreamUnitsTakeUpstreamFlags(t *testing.T) {
	pkiDir := t.TempDir()
	for _, c := range cells {
		if c.NotRun != "" {
			continue
		}
		t.Run(c.Name, func(t *testing.T) {
			cfg := cluster8.NewConfig()
			cfg.ControlPlanes, cfg.Workers, cfg.NodeCIDR = 1, 2, "10.240.13.0/24"
			fs := flag.NewFlagSet("up", flag.ContinueOnError)
			cfg.AddFlags(fs)
			if err := fs.Parse(c.upFlags("/ref")); err != nil {
				t.Fatal(err)
			}
			topo, err := cfg.Topology()
			if err != nil {
				t.Fatal(err)
			}
			if err := pki.Write(pkiDir, topo.PKI()); err != nil {
				t.Fatal(err)
			}
			checked := 0
			for _, m := range topo.Machines {
				files, err := provision.Render(topo, pkiDir, m.Name, "/")
				if err != nil {
					t.Fatal(err)
				}
				for _, f := range files {
					component, isUnit := strings.CutSuffix(filepath.Base(f.Path), ".service")
					if !isUnit || !topo.IsUpstream(m.Name, component) {
						continue
					}
					program, flags := execFlags(string(f.Data))
					if program != component {
						t.Fatalf("%s: %s.service runs %s", m.Name, component, program)
					}
					if len(flags) < 3 {
						t.Fatalf("%s: %s.service: flags %v:\n%s", m.Name, component, flags, f.Data)
					}
					known := helpFlags(t, component)
					for _, fl := range flags {
						if !known[fl] {
							t.Errorf("%s: upstream's %s has no --%s:\n%s", m.Name, component, fl, f.Data)
						}
					}
					checked++
				}
			}
			want := 0
			for _, key := range c.Upstream {
				if strings.Contains(key, "/") {
					want++
				} else {
					want += len(topo.ByRole(roleOf(key)))
				}
			}
			if checked != want {
				t.Errorf("checked %d upstream units, want %d (%v)", checked, want, c.Upstream)
			}
		})
	}
}

func roleOf(component string) provision.Role {
	if component == "kubelet" || component == "kube-proxy" {
		return provision.Worker
	}
	return provision.ControlPlane
}

// TestHelpRecorded: testdata's --help outputs are the reference build's.
func TestHelpRecorded(t *testing.T) {
	if missing := missingUpstream(refBin); len(missing) > 0 {
		t.Skipf("no upstream %s in %s: make ref-build (the recorded --help outputs are checked then)", strings.Join(missing, ", "), refBin)
	}
	for _, b := range []string{"kube-apiserver", "kube-scheduler", "kube-controller-manager", "kubelet", "kube-proxy"} {
		out, _ := exec.Command(filepath.Join(refBin, b), "--help").CombinedOutput()
		want, err := os.ReadFile(filepath.Join("testdata", b+".help"))
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(out, want) {
			t.Errorf("%s --help differs from testdata/%s.help: record it again (%s --help > testdata/%s.help)", b, b, b, b)
		}
	}
}

// TestMatrix runs the matrix live: every cell's cluster, the scenario.
func TestMatrix(t *testing.T) {
	if missing := missingUpstream(refBin); len(missing) > 0 {
		t.Skipf("no upstream %s in %s: make ref-build (the live matrix needs upstream's binaries)", strings.Join(missing, ", "), refBin)
	}
	if os.Geteuid() != 0 {
		t.Skip("the matrix's machines are network namespaces: run as root")
	}
	if testing.Short() || os.Getenv("KUBIK_INTEROP") != "1" {
		t.Skip("the live matrix takes about half an hour: KUBIK_INTEROP=1 (or make interop) runs it")
	}
	var out bytes.Buffer
	o := options{refBin: refBin, nodeCIDR: "10.240.13.0/24", unknown: true, out: &out}
	results, err := runMatrix(context.Background(), o)
	printMatrix(&out, results)
	t.Log(out.String())
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range results {
		if r.failed() {
			t.Errorf("cell %s failed: %s", r.cell.Name, strings.Join(r.notes, "; "))
		}
	}
}
