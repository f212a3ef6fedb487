// mkimages builds every image the course's nodes use as OCI tarballs
// (`make images`): chapter 5's pause, busybox and demo, and chapter 7's
// cluster DNS server and ingress controller. The kubelet imports them into its containerd at start.
package main

import (
	"flag"
	"fmt"
	"os"

	"kubik/ch05-kubelet/images"
	"kubik/ch07-kube-proxy/dns"
	"kubik/ch07-kube-proxy/ingress"
)

func main() {
	out := flag.String("out", ".kubik/images", "directory to write the image tarballs to")
	flag.Parse()
	if err := images.Build(*out, dns.Image, ingress.Image); err != nil {
		fmt.Fprintln(os.Stderr, "mkimages:", err)
		os.Exit(1)
	}
	fmt.Printf("images written to %s: %s, %s, %s, %s, %s\n", *out, images.Pause, images.Busybox, images.Demo, dns.Image.Name, ingress.Image.Name)
}
