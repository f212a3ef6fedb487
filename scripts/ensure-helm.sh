#!/usr/bin/env bash
# Builds the helm binary the chapter 1 Helm test drives into .kubik/bin, from
# the Go module proxy, without touching the repository's go.mod. A no-op when
# the binary is already there.
set -euo pipefail

HELM_VERSION="${HELM_VERSION:-v3.22.0}"
root="$(cd "$(dirname "$0")/.." && pwd)"
bin="$root/.kubik/bin"

if [ -x "$bin/helm" ]; then
	exit 0
fi
mkdir -p "$bin"
echo "ensure-helm: building helm $HELM_VERSION into $bin (takes a few minutes once)" >&2
cd "$root/.kubik"
GOBIN="$bin" GOFLAGS=-mod=mod GOWORK=off "${GO:-go}" install "helm.sh/helm/v3/cmd/helm@$HELM_VERSION"
