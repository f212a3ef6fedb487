// pause is the sandbox ("infra") container of every pod: it holds the pod's
// namespaces (network, IPC) while the app containers come and go. It does
// nothing but wait for SIGINT/SIGTERM and reap zombies, as upstream's
// pause.c (build/pause/linux/pause.c) does.
package main

import (
	"os"
	"os/signal"
	"syscall"
)

func main() {
	sigs := make(chan os.Signal, 4)
	signal.Notify(sigs, syscall.SIGINT, syscall.SIGTERM, syscall.SIGCHLD)
	for s := range sigs {
		if s != syscall.SIGCHLD {
			os.Exit(0)
		}
		for { // reap every exited child (pause is PID 1 when the PID namespace is shared)
			var ws syscall.WaitStatus
			if pid, err := syscall.Wait4(-1, &ws, syscall.WNOHANG, nil); pid <= 0 || err != nil {
				break
			}
		}
	}
}
