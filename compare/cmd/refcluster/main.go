// Command refcluster starts and stops the reference Kubernetes control plane
// (`make ref-up`, `make ref-down`).
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"strings"

	"kubik/compare/refcluster"
)

func main() {
	dir := flag.String("dir", ".kubik/ref", "directory for the cluster's PKI, etcd data, logs and admin.kubeconfig")
	bin := flag.String("bin", "", "directory with the upstream binaries from scripts/ref-build.sh (default DIR/bin)")
	components := flag.String("components", "kube-controller-manager,kube-scheduler", "components to run besides kube-apiserver (comma-separated, may be empty)")
	flag.Parse()
	switch flag.Arg(0) {
	case "up":
		var cs []string
		for _, c := range strings.Split(*components, ",") {
			if c = strings.TrimSpace(c); c != "" {
				cs = append(cs, c)
			}
		}
		c, err := refcluster.Up(context.Background(), refcluster.Options{Dir: *dir, BinDir: *bin, Components: cs})
		if err != nil {
			fmt.Fprintln(os.Stderr, "refcluster:", err)
			os.Exit(1)
		}
		fmt.Printf("reference Kubernetes is running at %s\n\n  export KUBECONFIG=%s\n\nstop it with: make ref-down\n", c.URL, c.AdminKubeconfig)
	case "down":
		refcluster.Down(*dir)
		fmt.Println("reference cluster stopped")
	default:
		fmt.Fprintln(os.Stderr, "usage: refcluster [-dir DIR] [-components LIST] up|down")
		os.Exit(2)
	}
}
