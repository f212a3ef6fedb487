#!/usr/bin/env bash
# make box: builds the Vagrant box chapter 8's VMs boot, offline but for
# Debian's apt repository, and adds it to Vagrant as kubik/bookworm64
# (LOCAL_BOX in ./versions). The equivalent of the public debian/bookworm64
# box, with every package the units need already installed, so that
# nothing inside the VMs needs the internet:
#
#   debootstrap (Debian 12 + BOX_PACKAGES, from the host's apt mirror)
#     → the root file system, configured for Vagrant (user vagrant with
#       Vagrant's insecure key and passwordless sudo, DHCP on eth0, a serial
#       console, an empty machine-id)
#     → a raw ext4 image (mkfs.ext4 -d: no loop device, no mount)
#     → qcow2 → a vagrant-libvirt box: box.img, metadata.json, Vagrantfile,
#       and the image's kernel and initrd, which libvirt boots directly (no
#       bootloader in the image).
#
# Idempotent: an existing box file is not built again, a box Vagrant
# already has is not added again. As root, on Debian or Ubuntu (debootstrap,
# qemu-img, vagrant). Everything is under .kubik/vagrant/box:
#
#   KUBIK_DIR=.kubik ch08-full-cluster/vagrant/box.sh
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=versions
. "$here/versions"

out=$(realpath -m "${KUBIK_DIR:-.kubik}/vagrant/box")
box_file="$out/${LOCAL_BOX//\//-}.box"
work="$out/work"

log() { echo "box: $*"; }

if [ "$(id -u)" -ne 0 ]; then
	echo "box: debootstrap needs root: sudo make box" >&2
	exit 1
fi
for tool in debootstrap qemu-img mkfs.ext4 vagrant curl; do
	command -v "$tool" >/dev/null || { echo "box: $tool is not installed (make box installs it)" >&2; exit 1; }
done

# mirror is the Debian mirror: DEBIAN_MIRROR, else the host's own (the
# first apt source serving DEBIAN_RELEASE's main archive).
mirror() {
	if [ -n "$DEBIAN_MIRROR" ]; then
		echo "$DEBIAN_MIRROR"
		return
	fi
	local f
	for f in /etc/apt/sources.list /etc/apt/sources.list.d/*.list /etc/apt/sources.list.d/*.sources; do
		[ -f "$f" ] || continue
		# one-line style: deb [opts] URI SUITE ...; deb822 style: URIs: URI
		awk -v rel="$DEBIAN_RELEASE" '
			/^deb / { for (i = 2; i <= NF; i++) if ($i ~ /^https?:/) { if ($(i+1) == rel) print $i; break } }
			/^URIs:/ { uri = $2 } /^Suites:/ { for (i = 2; i <= NF; i++) if ($i == rel && uri != "") print uri }
		' "$f"
	done | grep -v -- '-security' | head -n1
}

build() {
	local url
	url=$(mirror)
	[ -n "$url" ] || { echo "box: no apt source for $DEBIAN_RELEASE on this host: set DEBIAN_MIRROR in $here/versions" >&2; exit 1; }
	if ! curl -fsS --max-time 30 -o /dev/null "$url/dists/$DEBIAN_RELEASE/Release"; then
		echo "box: the mirror $url does not answer ($url/dists/$DEBIAN_RELEASE/Release)" >&2
		exit 1
	fi
	log "building $box_file from $url (debootstrap: about 3-5 minutes)"
	rm -rf "$work"
	mkdir -p "$work"
	trap cleanup_work EXIT
	local rootfs="$work/rootfs"
	debootstrap --variant=minbase \
		--include="systemd-sysv,openssh-server,sudo,linux-image-amd64,udev,ifupdown,iputils-ping,$BOX_PACKAGES" \
		"$DEBIAN_RELEASE" "$rootfs" "$url" >"$work/debootstrap.log" 2>&1 ||
		{ tail -n 20 "$work/debootstrap.log" >&2; exit 1; }
	configure "$rootfs"

	local kernel initrd
	kernel=$(ls "$rootfs"/boot/vmlinuz-* | sort -V | tail -n1)
	initrd=$(ls "$rootfs"/boot/initrd.img-* | sort -V | tail -n1)
	cp "$kernel" "$work/vmlinuz"
	cp "$initrd" "$work/initrd.img"

	log "raw image → qcow2"
	truncate -s "${BOX_DISK_GB}G" "$work/root.raw"
	mkfs.ext4 -q -L root -d "$rootfs" "$work/root.raw"
	qemu-img convert -c -O qcow2 "$work/root.raw" "$work/box.img"
	rm -f "$work/root.raw"

	printf '{"provider":"libvirt","format":"qcow2","virtual_size":%d}\n' "$BOX_DISK_GB" >"$work/metadata.json"
	# The box's own Vagrantfile: boot the image's kernel (no bootloader
	# inside), with the root file system on the first virtio disk and the
	# classic interface names (eth0: management, eth1: the node network).
	cat >"$work/Vagrantfile" <<-'EOF'
		Vagrant.configure("2") do |config|
		  config.ssh.insert_key = false
		  config.vm.provider :libvirt do |libvirt|
		    libvirt.kernel = File.join(__dir__, "vmlinuz")
		    libvirt.initrd = File.join(__dir__, "initrd.img")
		    libvirt.cmd_line = "console=ttyS0 root=/dev/vda rw net.ifnames=0"
		  end
		end
	EOF
	tar -C "$work" -cf "$box_file.tmp" metadata.json Vagrantfile box.img vmlinuz initrd.img
	mv "$box_file.tmp" "$box_file"
	log "built $box_file ($(du -h "$box_file" | cut -f1))"
}

# configure makes the root file system a Vagrant box's.
configure() {
	local r=$1
	echo "LABEL=root / ext4 defaults 0 1" >"$r/etc/fstab"
	echo "kubik" >"$r/etc/hostname"
	printf '127.0.0.1 localhost\n::1 localhost ip6-localhost ip6-loopback\n' >"$r/etc/hosts"
	# An empty machine-id: systemd makes a new one at first boot. A shared
	# one gives every VM the same DHCP client ID, so the same address.
	: >"$r/etc/machine-id"
	rm -f "$r/var/lib/dbus/machine-id"

	# The management network (eth0): DHCP for Vagrant's ssh, and nothing
	# else from it: no default route, no routes, no DNS.
	mkdir -p "$r/etc/systemd/network"
	cat >"$r/etc/systemd/network/10-eth0.network" <<-'EOF'
		[Match]
		Name=eth0

		[Network]
		DHCP=ipv4

		[DHCPv4]
		ClientIdentifier=mac
		UseGateway=false
		UseRoutes=false
		UseDNS=false
	EOF
	local wants="$r/etc/systemd/system/multi-user.target.wants"
	mkdir -p "$wants" "$r/etc/systemd/system/getty.target.wants"
	ln -sf /lib/systemd/system/systemd-networkd.service "$wants/systemd-networkd.service"
	ln -sf /lib/systemd/system/serial-getty@.service "$r/etc/systemd/system/getty.target.wants/serial-getty@ttyS0.service"
	# The packages' own services stay off: each machine's units run what it
	# needs (the kubelet its own containerd, the load balancer's haproxy
	# its rendered haproxy.cfg).
	rm -f "$wants/containerd.service" "$wants/haproxy.service"

	# Vagrant's user: its insecure key (config.ssh.insert_key = false),
	# passwordless sudo.
	chroot "$r" useradd -m -s /bin/bash vagrant
	install -d -m 700 "$r/home/vagrant/.ssh"
	install -m 600 "$(vagrant_key)" "$r/home/vagrant/.ssh/authorized_keys"
	chroot "$r" chown -R vagrant:vagrant /home/vagrant/.ssh
	echo "vagrant ALL=(ALL) NOPASSWD: ALL" >"$r/etc/sudoers.d/vagrant"
	chmod 440 "$r/etc/sudoers.d/vagrant"
	echo "UseDNS no" >"$r/etc/ssh/sshd_config.d/vagrant.conf"
	# ssh host keys are made at first boot, one per VM.
	rm -f "$r"/etc/ssh/ssh_host_*
	cat >"$r/etc/systemd/system/ssh-host-keys.service" <<-'EOF'
		[Unit]
		Description=Make the ssh host keys
		Before=ssh.service
		ConditionPathExists=!/etc/ssh/ssh_host_ed25519_key

		[Service]
		Type=oneshot
		ExecStart=/usr/bin/ssh-keygen -A

		[Install]
		WantedBy=multi-user.target
	EOF
	ln -sf /etc/systemd/system/ssh-host-keys.service "$wants/ssh-host-keys.service"
	chroot "$r" apt-get clean
	rm -rf "$r"/var/lib/apt/lists/*
}

# vagrant_key is Vagrant's insecure public key, as installed with Vagrant.
vagrant_key() {
	local k
	k=$(find /usr/share/rubygems-integration /usr/lib/ruby /opt/vagrant /usr/share/vagrant -path '*/keys/vagrant.pub' 2>/dev/null | head -n1)
	[ -n "$k" ] || { echo "box: Vagrant's insecure key (keys/vagrant.pub) not found" >&2; exit 1; }
	echo "$k"
}

# cleanup_work removes the build directory, unmounting what a failed
# debootstrap left mounted in it.
cleanup_work() {
	local m
	for m in $(awk -v d="$work/" 'index($2, d) == 1 { print $2 }' /proc/mounts | sort -r); do
		umount -l "$m" || true
	done
	rm -rf "$work"
}

mkdir -p "$out"
start=$(date +%s)
if [ -f "$box_file" ]; then
	log "$box_file exists (rm it to build again)"
else
	build
fi
if vagrant box list --machine-readable 2>/dev/null | grep -q ",box-name,$LOCAL_BOX\$"; then
	log "vagrant has $LOCAL_BOX already"
else
	vagrant box add --name "$LOCAL_BOX" "$box_file"
fi
log "done in $(($(date +%s) - start)) s: box $LOCAL_BOX (KUBIK_BOX=$LOCAL_BOX vagrant up)"
