package dns

import "kubik/ch05-kubelet/images"

// Image is the cluster DNS server's image, built locally by `make images`
// (chapter 7's mkimages adds it to chapter 5's pause, busybox and demo) and
// run as a Deployment in kube-system, as CoreDNS is.
var Image = images.GoImage{File: "kube-dns.tar", Name: "kubik.local/kube-dns:1.0", Package: "kubik/ch07-kube-proxy/cmd/kube-dns"}
