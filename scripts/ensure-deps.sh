#!/usr/bin/env bash
# Installs the system packages that `make test` needs beyond Go, and only the
# missing ones, so it is a no-op on a prepared machine. Meant for a fresh
# Debian/Ubuntu machine, run as root (or with sudo available).
#
# Chapters add their needs to `requirements` as "command package" pairs:
# the package is installed when the command is not found.
set -euo pipefail

requirements=(
	# ch01: the docs labs run commands with bash and coreutils (timeout, env -0).
	"bash bash"
	"timeout coreutils"
	"make make"
	"git git"
	# ch01 lab: talking to the apiserver without kubectl
	"curl curl"
	"jq jq"
	"openssl openssl"
	# ch02 lab: reading the apiserver's keys straight from etcd
	"etcdctl etcd-client"
	# ch08: `vagrant validate` of the Vagrantfile (its libvirt plugin below)
	"vagrant vagrant"
)

# Extra "command=package" pairs may be given as arguments (e.g. etcd=etcd-server).
for arg in "$@"; do
	requirements+=("${arg%%=*} ${arg#*=}")
done

if ! command -v "${GO:-go}" >/dev/null 2>&1; then
	echo "ensure-deps: Go is not installed; install Go 1.26 from https://go.dev/dl/" >&2
	exit 1
fi

missing=()
for req in "${requirements[@]}"; do
	read -r cmd pkg <<<"$req"
	if ! command -v "$cmd" >/dev/null 2>&1; then
		missing+=("$pkg")
	fi
done
# Packages with no command of their own: Vagrant's libvirt provider plugin.
if command -v dpkg-query >/dev/null 2>&1; then
	for pkg in vagrant-libvirt; do
		dpkg-query -W -f '${Status}' "$pkg" 2>/dev/null | grep -q "ok installed" || missing+=("$pkg")
	done
fi
[ ${#missing[@]} -eq 0 ] && exit 0

echo "ensure-deps: installing ${missing[*]}"
sudo=()
if [ "$(id -u)" -ne 0 ]; then
	if ! command -v sudo >/dev/null 2>&1; then
		echo "ensure-deps: need root to install ${missing[*]}" >&2
		exit 1
	fi
	sudo=(sudo)
fi
if ! command -v apt-get >/dev/null 2>&1; then
	echo "ensure-deps: no apt-get; install ${missing[*]} by hand" >&2
	exit 1
fi
export DEBIAN_FRONTEND=noninteractive
"${sudo[@]}" apt-get update
"${sudo[@]}" apt-get install -y --no-install-recommends "${missing[@]}"
