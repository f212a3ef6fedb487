package kubelet

import "strings"

// NormalizeImage spells an image reference as the container runtime
// stores it (the docker reference rules): a name without a registry is on
// docker.io, a one-word name is in library/, and the default tag is latest.
//
//	busybox             -> docker.io/library/busybox:latest
//	nginx:1.27          -> docker.io/library/nginx:1.27
//	kubik.local/demo:1.0 -> kubik.local/demo:1.0
//	localhost/x@sha256:… -> unchanged but for the registry rule
func NormalizeImage(ref string) string {
	name, digest, hasDigest := strings.Cut(ref, "@")
	first, _, hasSlash := strings.Cut(name, "/")
	if !hasSlash || (!strings.ContainsAny(first, ".:") && first != "localhost") {
		if !hasSlash {
			name = "library/" + name
		}
		name = "docker.io/" + name
	}
	if hasDigest {
		return name + "@" + digest
	}
	if i := strings.LastIndex(name, ":"); i <= strings.LastIndex(name, "/") {
		name += ":latest"
	}
	return name
}
