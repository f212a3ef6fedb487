// Package ingress is Kubik's ingress controller: the program that makes
// networking.k8s.io/v1 Ingresses (the spec in k8s.io/api/networking/v1)
// work. It corresponds to ingress-nginx's controller
// (k8s.io/ingress-nginx/internal/ingress/controller), with Go's
// net/http/httputil in nginx's place.
//
// An ingress controller is a pod like any other, not a part of kube-proxy:
// it watches Ingresses, IngressClasses, Services, EndpointSlices and
// Secrets (informers.go), turns the Ingresses of its classes into a
// routing table (table.go: hosts, paths, backends) that it swaps
// atomically on every change, and proxies HTTP and HTTPS requests
// (proxy.go, tls.go) straight to the ready endpoints' pod IPs, round
// robin. The elected leader writes the addresses of the nodes running the
// controller's pods into status.loadBalancer.ingress (status.go).
package ingress
