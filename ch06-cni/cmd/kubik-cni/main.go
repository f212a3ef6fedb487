// Command kubik-cni is chapter 6's CNI plugin. containerd execs it from its
// CNI bin_dir; see package kubik/ch06-cni/kubikcni.
package main

import (
	"runtime"

	"kubik/ch06-cni/kubikcni"
)

func init() {
	// Keep main on the main thread: namespace switches (setns) act on one OS
	// thread, as in upstream's plugins.
	runtime.LockOSThread()
}

func main() {
	kubikcni.Main()
}
