package cluster6

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"kubik/ch05-kubelet/containerd"
	"kubik/ch05-kubelet/node5"
	"kubik/ch06-cni/fabric"
)

// CleanNodesCommand is `<program> clean-nodes --data-dir DIR` (make
// clean-nodes): it removes what the nodes of a cluster in DIR left behind
// after a crash or a kill -9 — node processes (by their PID files), their
// containerd, containers, mounts and cgroups, the machines' namespaces and
// links, the bridge and the guard routes; also chapter 5's local node's. It
// returns the exit code.
func CleanNodesCommand(args []string) int {
	fs := flag.NewFlagSet("clean-nodes", flag.ContinueOnError)
	dataDir := fs.String("data-dir", ".kubik", "the cluster's data dir")
	nodeCIDR := fs.String("node-cidr", "10.240.0.0/24", "the node network")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if os.Geteuid() != 0 {
		fmt.Fprintln(os.Stderr, "clean-nodes: run it as root (e.g. sudo make clean-nodes)")
		return 1
	}
	dir, err := filepath.Abs(*dataDir)
	if err != nil {
		fmt.Fprintln(os.Stderr, "clean-nodes:", err)
		return 1
	}
	nodes, _ := filepath.Glob(filepath.Join(dir, "nodes", "*"))
	for _, m := range nodes {
		killNodeProcess(m)
		root := filepath.Join(m, "kubelet") // its namespace goes below, with the fabric's
		if err := containerd.Cleanup(containerd.Config{Dir: filepath.Join(root, "containerd"), Name: node5.RuntimeName(root)}, nil); err != nil {
			fmt.Fprintln(os.Stderr, "clean-nodes:", err)
		}
	}
	// Chapter 5's node: this machine's containerd in a namespace of its own.
	root := filepath.Join(dir, "kubelet")
	if err := containerd.Cleanup(containerd.Config{Dir: filepath.Join(root, "containerd"), Name: node5.RuntimeName(root)}, nil); err != nil {
		fmt.Fprintln(os.Stderr, "clean-nodes:", err)
	}
	fcfg, err := FabricConfig(dir, *nodeCIDR, "10.244.0.0/16", "10.96.0.0/12", nil)
	if err != nil {
		fmt.Fprintln(os.Stderr, "clean-nodes:", err)
		return 1
	}
	fabric.Cleanup(fcfg)
	if left := fabric.Leftovers(fcfg); len(left) > 0 {
		fmt.Fprintln(os.Stderr, "clean-nodes: still there:", strings.Join(left, ", "))
		return 1
	}
	fmt.Printf("nodes of %s cleaned up\n", dir)
	return 0
}

// killNodeProcess ends the node process of machine directory m, if its PID
// file names a process that is still that node's (its command line names
// the machine's config): never a stranger that reused the PID.
func killNodeProcess(m string) {
	b, err := os.ReadFile(filepath.Join(m, "node.pid"))
	if err != nil {
		return
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil {
		return
	}
	cl, _ := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid))
	if !strings.Contains(string(cl), filepath.Join(m, "node.json")) {
		os.Remove(filepath.Join(m, "node.pid"))
		return
	}
	syscall.Kill(pid, syscall.SIGTERM)
	for i := 0; i < 300; i++ {
		if syscall.Kill(pid, 0) != nil {
			break
		}
		time.Sleep(100 * time.Millisecond)
	}
	syscall.Kill(pid, syscall.SIGKILL)
	os.Remove(filepath.Join(m, "node.pid"))
}
