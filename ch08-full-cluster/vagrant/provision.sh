#!/usr/bin/env bash
# provision.sh MACHINE IP offline|apt: runs inside a VM, as root (the
# Vagrantfile's shell provisioner), after the machine's tar was uploaded to
# /tmp/kubik-MACHINE. It checks the machine, unpacks its files at /, and
# lets systemd run its units — the unit files `ch08-full-cluster render`
# wrote, the same the local runner's supervisor runs.
#
# "offline": the box (make box) must have every package; "apt": the public
# box gets the missing ones from Debian.
set -euo pipefail

name=$1 ip=$2 mode=$3
upload=/tmp/kubik-$name
fail() { echo "provision $name: $*" >&2; exit 1; }

# What the units run besides our binaries (BOX_PACKAGES in versions).
packages=(containerd runc containernetworking-plugins iptables nftables conntrack haproxy etcd-client
	busybox-static iproute2 util-linux curl ca-certificates kmod procps)
missing=()
for p in "${packages[@]}"; do
	dpkg-query -W -f '${Status}' "$p" 2>/dev/null | grep -q "ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
	[ "$mode" = apt ] || fail "the box lacks ${missing[*]} (build it again: make box)"
	echo "provision $name: installing ${missing[*]} from Debian"
	export DEBIAN_FRONTEND=noninteractive
	apt-get update -qq
	apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi
# Debian's own services stay off: the kubelet runs a containerd of its own,
# and the load balancer's haproxy unit is the rendered one (same name).
systemctl disable --now containerd.service >/dev/null 2>&1 || true
if [ "$name" != lb ]; then
	systemctl disable --now haproxy.service >/dev/null 2>&1 || true
fi

# The kernel modules a node needs, as kubeadm's prerequisites: overlay
# (containerd's snapshots) and br_netfilter (bridged pod traffic through
# iptables, which kubik-cni checks), now and at every boot.
if [[ $name == w-* ]]; then
	printf 'overlay\nbr_netfilter\n' >/etc/modules-load.d/kubik.conf
	modprobe overlay
	modprobe br_netfilter
fi

# The node network is the private network, eth1, with the pinned address
# the certificates and the flags name; never the NAT one.
ip -4 -o addr show dev eth1 2>/dev/null | grep -q " $ip/" ||
	fail "eth1 does not have $ip: $(ip -4 -o addr show | awk '{print $2, $4}' | tr '\n' ' ')"

tar=$(find "$upload" -name machine.tar 2>/dev/null | head -n1)
[ -n "$tar" ] || fail "no machine.tar in $upload (stage.sh makes it on the host)"
units=$(tar -tf "$tar" | sed -n 's,^\./etc/systemd/system/\([^/]*\.service\)$,\1,p')
tar -C / --no-overwrite-dir -xf "$tar"
rm -rf "$upload"

systemctl daemon-reload
# shellcheck disable=SC2086
systemctl enable --quiet $units
# shellcheck disable=SC2086
systemctl restart $units
echo "provision $name ($ip): started $(echo $units | tr '\n' ' ')"
