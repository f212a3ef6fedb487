#!/usr/bin/env bash
# make vagrant-e2e: chapter 8 on Vagrant VMs, end to end, from a fresh
# Debian host, as root:
#
#   1. install what is missing: vagrant, vagrant-libvirt, libvirt, QEMU,
#      debootstrap;
#   2. start virtlogd and libvirtd if they do not run (no systemd needed:
#      started by hand, stopped by their PIDs at the end), never letting
#      libvirt start its NAT "default" network;
#   3. a storage pool of its own; the offline box (make box);
#   4. vagrant up: the load balancer, 1 control plane, 1 worker (libvirt,
#      KVM or QEMU's software emulation), on the isolated node network
#      10.240.10.0/24 and an isolated management network: no DHCP router,
#      no NAT, no forwarding, no route out of the VMs;
#   5. from the host, with kubectl through the load balancer: the Node
#      Ready, a Deployment behind a ClusterIP Service (curl from the
#      worker), a NodePort and a LoadBalancer Service (the VMs' cloud,
#      kubik-vagrant cloud, on the host: curl http://EXTERNAL-IP from the
#      host);
#   6. whatever happened: everything it made is removed — the VMs
#      (vagrant destroy, then libvirt's domains), the networks, the pool and
#      its volumes, the bridges, the iptables chains libvirt added, the
#      daemons it started, its temporary directory.
#
# Prints the time of each step. KUBIK_DIR (.kubik): the box, the binaries and
# the images are kept there between runs (they are not the run's).
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
# shellcheck source=versions
. "$here/versions"
cd "$repo"

[ "$(id -u)" -eq 0 ] || { echo "e2e: needs root (libvirt, debootstrap, the cloud's namespace)" >&2; exit 1; }

export CONTROL_PLANE=1 WORKERS=1
export KUBIK_DIR=${KUBIK_DIR:-$repo/.kubik}
state="$KUBIK_DIR/vagrant"
run=$(mktemp -d /tmp/kubik-vagrant-e2e.XXXXXX)
chmod 755 "$run" # QEMU (libvirt-qemu) reads the pool's images and the box's kernel below it
suffix=${run##*.}
pool="kubik-e2e-$suffix"
export VAGRANT_HOME="$run/vagrant.d" VAGRANT_DOTFILE_PATH="$run/dot" VAGRANT_DEFAULT_PROVIDER=libvirt
export KUBIK_BOX=$LOCAL_BOX KUBIK_LIBVIRT_POOL=$pool LIBVIRT_DEFAULT_URI=qemu:///system
export KUBECONFIG="$state/admin.kubeconfig"
kubectl=${KUBECTL:-$(command -v kubectl.1.33 || command -v /usr/lib/google-cloud-sdk/bin/kubectl.1.33 || command -v kubectl || true)}
[ -n "$kubectl" ] || { echo "e2e: no kubectl on the PATH (KUBECTL=...)" >&2; exit 1; }
net=${NODE_CIDR%.*/*}
domains=(kubik-lb kubik-cp-1 kubik-w-1)
networks=(kubik-nodes kubik-mgmt)

t0=$(date +%s)
last=$t0
current=""
times=()
# step NAME: the previous step is done (its time is kept), NAME begins.
step() {
	local now
	now=$(date +%s)
	[ -z "$current" ] || times+=("$(printf '%-60s %4d s' "$current" $((now - last)))")
	current=$1
	last=$now
	echo "e2e [$((now - t0)) s] $1"
}

# --- cleanup: every step undoes only what this run made -----------------
started_virtlogd="" started_libvirtd="" moved_autostart="" cloud_pid="" chains_before="" bridges=()
had_run_libvirt=""
cleanup() {
	local rc=$?
	set +e
	step "cleanup"
	if [ -n "$cloud_pid" ]; then
		kill -TERM "$cloud_pid" 2>/dev/null
		for _ in $(seq 1 60); do kill -0 "$cloud_pid" 2>/dev/null || break; sleep 1; done
		kill -KILL "$cloud_pid" 2>/dev/null
	fi
	if command -v vagrant >/dev/null && [ -d "$VAGRANT_DOTFILE_PATH" ]; then
		timeout 600 vagrant destroy -f >"$run/destroy.log" 2>&1 || tail -n 5 "$run/destroy.log"
	fi
	if virsh version >/dev/null 2>&1; then
		for d in "${domains[@]}"; do
			virsh dominfo "$d" >/dev/null 2>&1 || continue
			virsh destroy "$d" >/dev/null 2>&1
			virsh undefine "$d" --nvram >/dev/null 2>&1 || virsh undefine "$d" >/dev/null 2>&1
		done
		for n in "${networks[@]}"; do
			b=$(virsh net-info "$n" 2>/dev/null | awk '/^Bridge:/ {print $2}')
			[ -n "$b" ] && bridges+=("$b")
			virsh net-destroy "$n" >/dev/null 2>&1
			virsh net-undefine "$n" >/dev/null 2>&1
		done
		if virsh pool-info "$pool" >/dev/null 2>&1; then
			for v in $(virsh vol-list "$pool" 2>/dev/null | awk 'NR > 2 && $1 != "" {print $1}'); do
				virsh vol-delete --pool "$pool" "$v" >/dev/null 2>&1
			done
			virsh pool-destroy "$pool" >/dev/null 2>&1
			virsh pool-undefine "$pool" >/dev/null 2>&1
		fi
	fi
	for b in "${bridges[@]}"; do
		ip link show "$b" >/dev/null 2>&1 && ip link del "$b"
	done
	stop_pid libvirtd "$started_libvirtd"
	stop_pid virtlogd "$started_virtlogd"
	for d in "${domains[@]}"; do rm -f "/var/log/libvirt/qemu/$d.log"; done
	if [ -n "$started_libvirtd" ] && [ -z "$had_run_libvirt" ]; then
		rm -rf /run/libvirt
	fi
	# libvirt's chains, when libvirtd was ours and they were not there before.
	if [ -n "$started_libvirtd" ] && [ -z "$chains_before" ]; then
		remove_libvirt_chains iptables
		remove_libvirt_chains ip6tables
	fi
	if [ -n "$moved_autostart" ]; then
		mv "$moved_autostart" /etc/libvirt/qemu/networks/autostart/default.xml
	fi
	check_left
	rm -rf "$run"
	step "finished"
	echo
	echo "e2e: times"
	printf '  %s\n' "${times[@]}"
	printf '  %-60s %4d s\n' total $(($(date +%s) - t0))
	if [ $rc -eq 0 ]; then echo "e2e: PASS"; else echo "e2e: FAIL (exit $rc)"; fi
	exit $rc
}
trap cleanup EXIT
trap 'exit 130' INT TERM

stop_pid() {
	local name=$1 pid=$2
	[ -n "$pid" ] || return 0
	kill -TERM "$pid" 2>/dev/null || return 0
	for _ in $(seq 1 100); do kill -0 "$pid" 2>/dev/null || return 0; sleep 0.1; done
	echo "e2e: $name ($pid) did not stop on SIGTERM: SIGKILL"
	kill -KILL "$pid" 2>/dev/null
}

libvirt_chains() { { iptables-save 2>/dev/null; ip6tables-save 2>/dev/null; } | grep -c 'LIBVIRT_' || true; }

remove_libvirt_chains() {
	local tool=$1 table rule chain
	for table in filter nat mangle; do
		"$tool" -t "$table" -S 2>/dev/null | grep -- '-j LIBVIRT_' | sed 's/^-A /-D /' | while read -r rule; do
			# shellcheck disable=SC2086
			"$tool" -t "$table" $rule
		done
		for chain in $("$tool" -t "$table" -S 2>/dev/null | awk '$1 == "-N" && $2 ~ /^LIBVIRT_/ {print $2}'); do
			"$tool" -t "$table" -F "$chain"
			"$tool" -t "$table" -X "$chain"
		done
	done
}

# check_left lists what is still there of the run.
check_left() {
	local left=()
	if virsh version >/dev/null 2>&1; then
		for d in "${domains[@]}"; do virsh dominfo "$d" >/dev/null 2>&1 && left+=("domain $d"); done
		for n in "${networks[@]}"; do virsh net-info "$n" >/dev/null 2>&1 && left+=("network $n"); done
		virsh pool-info "$pool" >/dev/null 2>&1 && left+=("pool $pool")
	fi
	for b in "${bridges[@]}"; do ip link show "$b" >/dev/null 2>&1 && left+=("bridge $b"); done
	ip netns list | grep -q '^kubik-vagrant-balancer' && left+=("netns kubik-vagrant-balancer")
	ip -4 route show | grep -Eq "^${net//./\\.}\.0/24|^10\.240\.11\.0/24" && left+=("a route to $NODE_CIDR or $MANAGEMENT_CIDR")
	if [ -n "$started_libvirtd" ] && [ -z "$chains_before" ] && [ "$(libvirt_chains)" -gt 0 ]; then left+=("iptables LIBVIRT_ chains"); fi
	for p in $started_libvirtd $started_virtlogd; do kill -0 "$p" 2>/dev/null && left+=("process $p"); done
	if [ ${#left[@]} -gt 0 ]; then
		echo "e2e: LEFT BEHIND: ${left[*]}"
		rc=1
	else
		echo "e2e: nothing of the run is left (domains, networks, pool, bridges, chains, namespace, daemons)"
	fi
}

# --- 1. packages ------------------------------------------------------------
step "install vagrant, vagrant-libvirt, libvirt, QEMU, debootstrap (if missing)"
missing=()
for pkg in vagrant vagrant-libvirt libvirt-daemon-system qemu-system-x86 qemu-utils debootstrap libvirt-clients curl; do
	dpkg-query -W -f '${Status}' "$pkg" 2>/dev/null | grep -q "ok installed" || missing+=("$pkg")
done
if [ ${#missing[@]} -gt 0 ]; then
	echo "e2e: installing ${missing[*]}"
	DEBIAN_FRONTEND=noninteractive apt-get install -y "${missing[@]}" >"$run/apt.log" 2>&1 || { tail -n 20 "$run/apt.log"; exit 1; }
fi

# --- 2. the daemons -----------------------------------------------------------
step "start virtlogd and libvirtd (if not running)"
for n in "${networks[@]}"; do
	if virsh net-info "$n" >/dev/null 2>&1; then echo "e2e: libvirt network $n exists (another run?)" >&2; networks=() domains=(); exit 1; fi
done
if ip -4 route show | grep -Eq "^${net//./\\.}\.0/24|^10\.240\.11\.0/24"; then
	echo "e2e: $NODE_CIDR or $MANAGEMENT_CIDR is already routed on this host (another run?)" >&2
	exit 1
fi
chains_before=$(libvirt_chains | grep -v '^0$' || true)
if ! virsh version >/dev/null 2>&1; then
	[ -e /run/libvirt ] && had_run_libvirt=1
	# libvirt's own NAT network must never start: its autostart link goes
	# aside while our libvirtd runs.
	if [ -e /etc/libvirt/qemu/networks/autostart/default.xml ]; then
		moved_autostart="$run/default.xml.autostart"
		mv /etc/libvirt/qemu/networks/autostart/default.xml "$moved_autostart"
	fi
	virtlogd -d -p "$run/virtlogd.pid"
	started_virtlogd=$(cat "$run/virtlogd.pid")
	libvirtd -d -p "$run/libvirtd.pid"
	for _ in $(seq 1 100); do [ -s "$run/libvirtd.pid" ] && virsh version >/dev/null 2>&1 && break; sleep 0.2; done
	started_libvirtd=$(cat "$run/libvirtd.pid")
	echo "e2e: started virtlogd ($started_virtlogd) and libvirtd ($started_libvirtd)"
fi
virsh version >/dev/null
if virsh net-list --name | grep -qx default; then
	echo "e2e: libvirt's NAT network \"default\" is active on this host: this test will not run next to it" >&2
	exit 1
fi

# --- 3. pool and box ---------------------------------------------------------
step "storage pool $pool"
mkdir -p "$run/pool"
virsh pool-define-as "$pool" dir --target "$run/pool" >/dev/null
virsh pool-start "$pool" >/dev/null

step "make box (built once into $state/box, added to this run's Vagrant)"
"$here/box.sh"
chmod -R a+rX "$VAGRANT_HOME/boxes"

# --- 4. the VMs --------------------------------------------------------------
step "vagrant up (stage, boot, provision: lb, cp-1, w-1)"
mkdir -p "$VAGRANT_DOTFILE_PATH"
if ! vagrant up --provider libvirt >"$run/up.log" 2>&1; then
	tail -n 40 "$run/up.log"
	for f in "$state"/logs/*.serial.log; do echo "--- $f"; tail -n 15 "$f"; done
	exit 1
fi
grep -E '^(stage|addons|==> [a-z0-9-]+: provision)' "$run/up.log" | sed 's/^/  /' || true
for n in "${networks[@]}"; do
	b=$(virsh net-info "$n" | awk '/^Bridge:/ {print $2}')
	bridges+=("$b")
	virsh net-dumpxml "$n" | grep -q '<forward' && { echo "e2e: network $n forwards" >&2; exit 1; }
done
for m in lb cp-1 w-1; do
	routes=$(vagrant ssh "$m" -c 'ip -4 route show default' 2>/dev/null | tr -d '\r')
	[ -z "$routes" ] || { echo "e2e: $m has a default route: $routes" >&2; exit 1; }
done
echo "e2e: no VM has a default route; networks ${networks[*]} do not forward (bridges ${bridges[*]})"

# --- 5. the cluster from the host ---------------------------------------------
k() { "$kubectl" --request-timeout=60s "$@"; }
wait_for() { # wait_for WHAT SECONDS COMMAND...
	local what=$1 secs=$2
	shift 2
	local deadline=$(($(date +%s) + secs))
	until "$@" >/dev/null 2>&1; do
		[ "$(date +%s)" -lt "$deadline" ] || { echo "e2e: timed out waiting for $what" >&2; "$@" || true; return 1; }
		sleep 5
	done
}
node_ready() { k get node w-1 -o jsonpath='{.status.conditions[?(@.type=="Ready")].status}' | grep -qx True; }

step "Node w-1 Ready"
wait_for "Node w-1 Ready" 900 node_ready
k get nodes -o wide

step "the VMs' cloud on the host (kubik-vagrant cloud)"
"$state/bin/kubik-vagrant" cloud --dir "$state" --node-cidr "$NODE_CIDR" >"$run/cloud.log" 2>&1 &
cloud_pid=$!

step "Deployment web (2 pods) behind a ClusterIP, a NodePort and a LoadBalancer Service"
k create deployment web --image=kubik.local/demo:1.0 --replicas=2 --port=8080
k expose deployment web --port=80 --target-port=8080
k expose deployment web --name=web-lb --type=LoadBalancer --port=80 --target-port=8080
wait_for "Deployment web Available" 900 k rollout status deployment/web --timeout=10s
k get pods -o wide

lb_ip() { k get svc web-lb -o jsonpath='{.status.loadBalancer.ingress[0].ip}'; }
has_lb_ip() { [ -n "$(lb_ip)" ]; }
wait_for "web-lb's EXTERNAL-IP" 600 has_lb_ip || { tail -n 30 "$run/cloud.log"; exit 1; }
k get svc web web-lb
cluster_ip=$(k get svc web -o jsonpath='{.spec.clusterIP}')
node_port=$(k get svc web-lb -o jsonpath='{.spec.ports[0].nodePort}')
external_ip=$(lb_ip)

step "curl: ClusterIP from w-1, NodePort and EXTERNAL-IP from the host"
from_worker() { vagrant ssh w-1 -c "curl -fsS --max-time 10 http://$cluster_ip/" 2>/dev/null | tr -d '\r' | grep -q '^Hello from web-'; }
wait_for "http://$cluster_ip/ from w-1" 300 from_worker
echo "  w-1\$ curl http://$cluster_ip/ → $(vagrant ssh w-1 -c "curl -fsS --max-time 10 http://$cluster_ip/" 2>/dev/null | tr -d '\r')"
from_host() { curl -fsS --max-time 10 "$1" | grep -q '^Hello from web-'; }
wait_for "http://$net.21:$node_port/ from the host" 300 from_host "http://$net.21:$node_port/"
echo "  host\$ curl http://$net.21:$node_port/ → $(curl -fsS --max-time 10 "http://$net.21:$node_port/")"
wait_for "http://$external_ip/ from the host" 300 from_host "http://$external_ip/"
echo "  host\$ curl http://$external_ip/ → $(curl -fsS --max-time 10 "http://$external_ip/")"
k get events --field-selector involvedObject.name=web-lb | sed 's/^/  /'

step "systemctl and journalctl on the worker"
vagrant ssh w-1 -c 'sudo systemctl status kubelet --no-pager --lines=3' 2>/dev/null | tr -d '\r' | sed 's/^/  /' || true
vagrant ssh w-1 -c 'sudo journalctl -u kubelet --no-pager -n 3' 2>/dev/null | tr -d '\r' | sed 's/^/  /' || true
