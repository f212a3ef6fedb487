#!/usr/bin/env bash
# Builds upstream Kubernetes binaries (kube-apiserver, kube-controller-manager,
# kube-scheduler, kube-proxy, kubelet) of version $REF_VERSION from the Go
# module proxy into $REF_DIR/bin, for the reference cluster next to Kubik.
#
# k8s.io/kubernetes cannot be required like an ordinary module: its go.mod
# points its 31 staging modules (k8s.io/api, k8s.io/apimachinery, ...) at
# ./staging directories. A tiny module of our own requires it and replaces
# every staging module with its published v0.X.Y release.
#
# A cold build takes about 20 CPU-minutes; binaries are cached.
set -euo pipefail

REF_VERSION=${REF_VERSION:-v1.35.4}
REF_DIR=${REF_DIR:-.kubik/ref}
STAGING_VERSION="v0.${REF_VERSION#v1.}"
minor=${REF_VERSION#v1.}; minor=${minor%%.*}
BINARIES=${REF_BINARIES:-kube-apiserver kube-controller-manager kube-scheduler kube-proxy kubelet}

mkdir -p "$REF_DIR/src" "$REF_DIR/bin"
REF_DIR=$(cd "$REF_DIR" && pwd)
cd "$REF_DIR/src"

missing=""
for b in $BINARIES; do
  if [ ! -x "$REF_DIR/bin/$b" ] || [ "$(cat "$REF_DIR/bin/$b.version" 2>/dev/null)" != "$REF_VERSION" ]; then
    missing="$missing $b"
  fi
done
if [ -z "$missing" ]; then
  echo "ref-build: $BINARIES $REF_VERSION already built in $REF_DIR/bin"
  exit 0
fi

staging="api apiextensions-apiserver apimachinery apiserver cli-runtime client-go cloud-provider
cluster-bootstrap code-generator component-base component-helpers controller-manager cri-api cri-client
csi-translation-lib dynamic-resource-allocation endpointslice externaljwt kms kube-aggregator
kube-controller-manager kube-proxy kube-scheduler kubectl kubelet metrics mount-utils
pod-security-admission sample-apiserver sample-cli-plugin sample-controller"

{
  echo "module kubik-reference"
  echo
  echo "go 1.26"
  echo
  echo "require k8s.io/kubernetes $REF_VERSION"
  echo
  for m in $staging; do echo "replace k8s.io/$m => k8s.io/$m $STAGING_VERSION"; done
} > go.mod
cat > tools.go <<'GO'
//go:build tools

package tools

import (
	_ "k8s.io/kubernetes/cmd/kube-apiserver"
	_ "k8s.io/kubernetes/cmd/kube-controller-manager"
	_ "k8s.io/kubernetes/cmd/kube-scheduler"
	_ "k8s.io/kubernetes/cmd/kube-proxy"
	_ "k8s.io/kubernetes/cmd/kubelet"
)
GO

echo "ref-build: resolving k8s.io/kubernetes $REF_VERSION (staging modules at $STAGING_VERSION)"
GOFLAGS=-mod=mod go mod tidy >/dev/null

for b in $missing; do
  echo "ref-build: building $b $REF_VERSION (this takes a while on a cold cache)..."
  start=$(date +%s)
  GOFLAGS=-mod=mod go build -trimpath \
    -ldflags "-s -w -X k8s.io/component-base/version.gitVersion=$REF_VERSION -X k8s.io/component-base/version.gitMajor=1 -X k8s.io/component-base/version.gitMinor=$minor -X k8s.io/component-base/version.gitCommit= -X k8s.io/component-base/version.gitTreeState=clean -X k8s.io/component-base/version.buildDate=$(date -u +%Y-%m-%dT%H:%M:%SZ)" \
    -o "$REF_DIR/bin/$b" "k8s.io/kubernetes/cmd/$b"
  echo "$REF_VERSION" > "$REF_DIR/bin/$b.version"
  echo "ref-build: $b done in $(( $(date +%s) - start ))s"
done
