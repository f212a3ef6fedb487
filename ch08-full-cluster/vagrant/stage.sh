#!/usr/bin/env bash
# stage.sh: what the host does before `vagrant up` (the Vagrantfile runs it):
#
#   1. build every component binary (static, CGO_ENABLED=0: they run on
#      the VMs' Debian whatever the host's C library) into .kubik/vagrant/bin;
#   2. the nodes' images (.kubik/images, as `make images`), if missing;
#   3. render every machine's files for a VM — root "/", the node network
#      on eth1 (the private network; eth0 is Vagrant's) — with the PKI in
#      .kubik/vagrant/pki: `ch08-full-cluster render`, the same units and
#      configuration the local runner's machines get;
#   4. pack one tar per machine, .kubik/vagrant/stage/<name>/machine.tar:
#      its rendered files, the binaries its units run (/usr/local/bin) and,
#      on a worker, the image tarballs (/var/lib/kubik/images). The
#      Vagrantfile uploads it and provision.sh unpacks it at /.
#
# CONTROL_PLANE and WORKERS as for the Vagrantfile; KUBIK_DIR (.kubik).
# A different topology than the staged one starts a fresh PKI.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
control_plane=${CONTROL_PLANE:-}
workers=${WORKERS:-}
# shellcheck source=versions
. "$here/versions"
control_plane=${control_plane:-$CONTROL_PLANE}
workers=${workers:-$WORKERS}
go=${GO:-go}

cd "$repo"
kubik_dir=$(realpath -m "${KUBIK_DIR:-.kubik}")
state="$kubik_dir/vagrant"
bin="$state/bin"
images="$kubik_dir/images"
start=$(date +%s)
log() { echo "stage: $*"; }

log "building the binaries into $bin (the first build takes 5-8 minutes on 2 cores, later ones seconds)"
mkdir -p "$bin"
CGO_ENABLED=0 "$go" build -o "$bin/" \
	./ch08-full-cluster ./ch08-full-cluster/cmd/etcd ./ch08-full-cluster/cmd/kube-apiserver \
	./ch08-full-cluster/cmd/kube-controller-manager ./ch08-full-cluster/cmd/cloud-controller-manager \
	./ch03-scheduler/cmd/kube-scheduler ./ch05-kubelet/cmd/kubelet ./ch06-cni/cmd/kubik-node-agent \
	./ch06-cni/cmd/kubik-cni ./ch07-kube-proxy/cmd/kube-proxy ./ch07-kube-proxy/cmd/mkimages \
	./ch08-full-cluster/vagrant/cmd/kubik-vagrant

if ! ls "$images"/*.tar >/dev/null 2>&1; then
	log "building the nodes' images into $images"
	"$bin/mkimages" -out "$images"
fi

# The topology the PKI was issued for: another one needs new certificates
# (other machines, other SANs) and a new etcd cluster.
topology="control-plane=$control_plane workers=$workers node-cidr=$NODE_CIDR"
if [ "$(cat "$state/topology" 2>/dev/null)" != "$topology" ]; then
	rm -rf "$state/pki" "$state/machines" "$state/stage"
	echo "$topology" >"$state/topology"
fi
"$bin/ch08-full-cluster" render --data-dir "$state" --control-plane "$control_plane" --workers "$workers" \
	--node-cidr "$NODE_CIDR" --interface eth1 --root / --out "$state/machines" | sed 's/^/stage: /'
install -m 600 "$state/pki/admin.kubeconfig" "$state/admin.kubeconfig"

# pack MACHINE ROLE: the machine's tar.
pack() {
	local name=$1 role=$2 dir="$state/stage/$1"
	local binaries
	case $role in
	control-plane) binaries="etcd kube-apiserver kube-scheduler kube-controller-manager" ;;
	worker) binaries="kubelet kube-proxy kubik-node-agent kubik-cni" ;;
	*) binaries="" ;;
	esac
	mkdir -p "$dir"
	local members=(-C "$state/machines/$name" .)
	if [ -n "$binaries" ]; then
		# shellcheck disable=SC2086
		members+=(-C "$state" $(printf 'bin/%s ' $binaries))
	fi
	if [ "$role" = worker ]; then
		members+=(-C "$kubik_dir" $(cd "$kubik_dir" && ls images/*.tar))
	fi
	tar --owner=0 --group=0 \
		--transform 's,^bin/,usr/local/bin/,' --transform 's,^images/,var/lib/kubik/images/,' \
		-cf "$dir/machine.tar.tmp" "${members[@]}"
	mv "$dir/machine.tar.tmp" "$dir/machine.tar"
}

net=${NODE_CIDR%.*/*}
pack lb load-balancer
for i in $(seq 1 "$control_plane"); do pack "cp-$i" control-plane; done
for i in $(seq 1 "$workers"); do pack "w-$i" worker; done
log "staged $((1 + control_plane + workers)) machines on $net.0/24 in $state/stage in $(($(date +%s) - start)) s; kubeconfig $state/admin.kubeconfig"
