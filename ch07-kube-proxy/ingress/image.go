package ingress

import "kubik/ch05-kubelet/images"

// Image is the ingress controller's image, built locally by `make images`
// (chapter 7's mkimages) and run as the Deployment
// ingress-kubik/ingress-kubik-controller.
var Image = images.GoImage{File: "ingress-controller.tar", Name: "kubik.local/ingress-controller:1.0", Package: "kubik/ch07-kube-proxy/cmd/kubik-ingress-controller"}
