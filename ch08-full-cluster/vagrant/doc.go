// Package vagrant holds chapter 8's Vagrant runner: the cluster of
// ch08-full-cluster on virtual machines, from the same provisioning as the
// local runner (package provision renders every machine's units and
// files; on a VM systemd runs them). The Vagrantfile is at the repository's
// root; this directory has what it uses:
//
//	versions      the one file of versions and sizes (box, Debian release, node network, memory)
//	box.sh        make box: a Debian 12 vagrant-libvirt box built offline from Debian's apt repository
//	stage.sh      on the host before `vagrant up`: build the binaries, render and pack each machine's files
//	provision.sh  inside each VM: unpack the machine's files, start its units
//	cmd/kubik-vagrant  the host's part: the add-ons once the apiservers answer, and the VMs' "cloud"
//	e2e.sh        make vagrant-e2e: a fresh host → 1 control plane + 1 worker → a Deployment, a
//	              Service, a LoadBalancer checked from the host → everything removed
//
// The tests: TestVagrantfileValidates (vagrant validate, both providers)
// runs in make test; TestVagrantE2E runs e2e.sh with KUBIK_VAGRANT_E2E=1.
package vagrant
