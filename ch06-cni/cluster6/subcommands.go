package cluster6

import (
	"os"
	"path/filepath"

	"kubik/ch06-cni/kubikcni"
)

// Subcommand runs what this program is when it is not the cluster — and
// then does not return:
//
//   - the CNI plugin, when containerd execs it as kubik-cni (the node's
//     plugin directory links that name to the program);
//   - a machine's node software, `node --config FILE` (nodeMain: chapter
//     6's node6.Main, chapter 7's node7.Main);
//   - `clean-nodes --data-dir DIR` (make clean-nodes).
//
// It returns only for the cluster itself.
func Subcommand(nodeMain func(args []string) int) {
	switch {
	case filepath.Base(os.Args[0]) == kubikcni.PluginType:
		kubikcni.Main()
		os.Exit(0)
	case len(os.Args) > 1 && os.Args[1] == "node":
		os.Exit(nodeMain(os.Args[2:]))
	case len(os.Args) > 1 && os.Args[1] == "clean-nodes":
		os.Exit(CleanNodesCommand(os.Args[2:]))
	}
}
