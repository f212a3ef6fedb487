// Package version is the version every Kubik component reports: the
// Kubernetes release whose behaviour Kubik follows, marked as Kubik's (a
// valid semver, which kubectl insists on). The apiserver answers it on GET
// /version; the scheduler, the controller manager and the kubelet put it in
// their User-Agent; the kubelet in its Node's nodeInfo.
//
// Upstream: k8s.io/component-base/version.
package version

// Kubernetes is the upstream release Kubik is compared with.
const Kubernetes = "v1.35.4"

// Version is Kubik's version string: "v1.35.4-kubik".
const Version = Kubernetes + "-kubik"
