// mkimages builds the node's images as OCI tarballs (`make images`):
// pause, busybox and demo, see package images. The kubelet imports them
// into its containerd at start.
package main

import (
	"flag"
	"fmt"
	"os"

	"kubik/ch05-kubelet/images"
)

func main() {
	out := flag.String("out", ".kubik/images", "directory to write pause.tar, busybox.tar and demo.tar to")
	flag.Parse()
	if err := images.Build(*out); err != nil {
		fmt.Fprintln(os.Stderr, "mkimages:", err)
		os.Exit(1)
	}
	fmt.Printf("images written to %s: %s, %s, %s\n", *out, images.Pause, images.Busybox, images.Demo)
}
