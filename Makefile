# Kubik: one entry point to run the chapters and to test everything.
# `make` alone lists the targets.

SHELL        := /bin/bash
GO           ?= go
TEST_TIMEOUT ?= 30m
FUZZTIME     ?= 5s

.DEFAULT_GOAL := help
.PHONY: help ch01-run ch02-run ch03-run ch04-run deps vet fmt-check test test-short bench-apiserver bench-scheduler bench-controllers fuzz ref-build ref-up ref-down compare compare-golden golden

help: ## list the targets
	@echo "Kubik: make <target>"
	@awk 'BEGIN {FS = ":.*## "} /^[a-zA-Z0-9_-]+:.*## / {printf "  %-16s %s\n", $$1, $$2}' $(MAKEFILE_LIST)

# Where the chapters keep their state. Each chapter has a directory of its
# own, .kubik/chNN, so that no chapter starts on what another left behind
# (chapter 3's hollow nodes in chapter 5's cluster), and going back to a
# chapter finds its own state. `make chNN-run DATA_DIR=DIR` runs a chapter on
# DIR instead (only on the command line: the labs export a DATA_DIR of their
# own). The nodes' images (chapters 5-7) are shared: .kubik/images.
KUBIK_DIR    ?= .kubik
IMAGE_DIR    ?= $(KUBIK_DIR)/images
BIN          ?= bin
ch01-run: DATA_DIR = $(KUBIK_DIR)/ch01
ch02-run: DATA_DIR = $(KUBIK_DIR)/ch02
ch03-run: DATA_DIR = $(KUBIK_DIR)/ch03
ch04-run: DATA_DIR = $(KUBIK_DIR)/ch04
ch05-run: DATA_DIR = $(KUBIK_DIR)/ch05
ch06-run: DATA_DIR = $(KUBIK_DIR)/ch06
ch07-run: DATA_DIR = $(KUBIK_DIR)/ch07

# $(call run,PROGRAM,HOW LONG,FLAGS) is the recipe of a chNN-run: build the
# chapter's program into bin/ (the first build takes HOW LONG; later ones
# seconds), then run it until Ctrl-C. PORT=N serves on port N instead of
# 6443; ARGS="..." adds any flag of the program (bin/PROGRAM --help lists
# them). The program is run directly, not by `go run`, which would turn a
# Ctrl-C into exit status 1.
define run
	@echo "$@: building $(BIN)/$(1) (the first build takes $(2), later ones seconds); state in $(DATA_DIR)"
	$(GO) build -o $(BIN)/$(1) ./$(1)
	$(strip $(BIN)/$(1) --data-dir $(DATA_DIR) $(if $(PORT),--secure-port $(PORT)) $(3) $(ARGS))
endef

ch01-run: ## run the chapter 1 apiserver; state in .kubik/ch01 (DATA_DIR=...); PORT=N, ARGS=... for every chNN-run
	$(call run,ch01-apiserver,about 2 minutes on 2 cores)

ch02-run: ## run the chapter 2 apiserver on an embedded etcd; state (etcd too) in .kubik/ch02
	$(call run,ch02-etcd-store,3-5 minutes on 2 cores: it compiles etcd)

ch03-run: ## chapter 2's cluster + kube-scheduler + 3 hollow (simulated) nodes; HOLLOW_NODES=N for more
	$(call run,ch03-scheduler,3-5 minutes on 2 cores,--hollow-nodes $(or $(HOLLOW_NODES),3))

ch04-run: ## chapter 3's cluster + kube-controller-manager (replicaset, deployment, ...); HOLLOW_NODES=N for more
	$(call run,ch04-controllers,3-5 minutes on 2 cores,--hollow-nodes $(or $(HOLLOW_NODES),3))

# Chapter 5 runs real containers: Linux, containerd (installed if missing), and
# root: as root, `make ch05-run`; with sudo, keep Go on the PATH:
# sudo env "PATH=$$PATH" make ch05-run. The list is
# ch05-kubelet/containerd.Requirements().
CH05_DEPS    := containerd=containerd containerd-shim-runc-v2=containerd ctr=containerd runc=runc \
                /usr/lib/cni/bridge=containernetworking-plugins nsenter=util-linux ip=iproute2 /bin/busybox=busybox-static
.PHONY: ch05-run images bench-pods
ch05-run: images ## chapter 4's cluster + a REAL node: kubelet + its own containerd (as root); HOLLOW_NODES=N adds simulated ones
	@scripts/ensure-deps.sh $(CH05_DEPS)
	$(call run,ch05-kubelet,3-5 minutes on 2 cores,--hollow-nodes $(or $(HOLLOW_NODES),0) --image-dir $(IMAGE_DIR) --pod-manifest-path $(DATA_DIR)/kubelet/manifests)

images: ## build the nodes' images as OCI tarballs into .kubik/images: pause, busybox (busybox-static), demo, kube-dns, ingress-controller
	@scripts/ensure-deps.sh /bin/busybox=busybox-static
	@echo "images: building pause, busybox, demo, kube-dns and ingress-controller into $(IMAGE_DIR) (compiles four Go programs: about 2 minutes the first time)"
	$(GO) run ./ch07-kube-proxy/cmd/mkimages -out $(IMAGE_DIR)

# Chapter 6 runs NODES machines (network namespaces) on this host: root, Linux.
CH06_DEPS    := $(CH05_DEPS) iptables=iptables nft=nftables /usr/lib/cni/portmap=containernetworking-plugins tcpdump=tcpdump
.PHONY: ch06-run clean-nodes clean bench-cni
ch06-run: images ## chapter 5's control plane + NODES (2) machines, each a netns with containerd, kubelet, node agent; pod network by kubik-cni (BACKEND=host-gw|vxlan) (as root)
	@scripts/ensure-deps.sh $(CH06_DEPS)
	$(GO) build -o $(BIN)/kubik-cni ./ch06-cni/cmd/kubik-cni
	$(call run,ch06-cni,3-5 minutes on 2 cores,--nodes $(or $(NODES),2) --backend $(or $(BACKEND),host-gw) --image-dir $(IMAGE_DIR) --cni-plugin $(abspath $(BIN))/kubik-cni)

# The chapters that run nodes (5-8) may leave them behind when killed with
# kill -9 or by a crash: their PID file (DIR/cluster.pid) stays.
NODE_DIRS = $(if $(filter command line,$(origin DATA_DIR)),$(DATA_DIR),$(wildcard $(KUBIK_DIR)/ch05 $(KUBIK_DIR)/ch06 $(KUBIK_DIR)/ch07 $(KUBIK_DIR)/ch08))

clean-nodes: ## remove what the nodes of chapters 5-8 (.kubik/ch05 ... or DATA_DIR) left after kill -9 or a crash: processes, containers, mounts, cgroups, netns, links, routes (as root)
	@echo "clean-nodes: building $(BIN)/ch06-cni (the first build takes 3-5 minutes on 2 cores)"
	$(GO) build -o $(BIN)/ch06-cni ./ch06-cni
	$(if $(filter %/ch08,$(NODE_DIRS)),$(GO) build -o $(BIN)/ch08-full-cluster ./ch08-full-cluster)
	@for d in $(NODE_DIRS); do \
	  if pid=$$(cat $$d/cluster.pid 2>/dev/null) && kill -0 $$pid 2>/dev/null; then \
	    echo "clean-nodes: skipping $$d: its chapter is running (pid $$pid); Ctrl-C in its terminal stops it and cleans up"; continue; \
	  fi; \
	  case $$d in \
	    */ch08) $(BIN)/ch08-full-cluster down --data-dir $$d || exit 1 ;; \
	    *) $(BIN)/ch06-cni clean-nodes --data-dir $$d && rm -f $$d/cluster.pid || exit 1 ;; \
	  esac; \
	done

clean: ## remove every chapter's state and the images from .kubik (not .kubik/ref, the upstream build); refuses while a chapter runs or nodes may be left
	@for f in $(wildcard $(KUBIK_DIR)/*.pid $(KUBIK_DIR)/*/*.pid); do \
	  d=$$(dirname $$f); pid=$$(cat $$f); \
	  if kill -0 $$pid 2>/dev/null; then \
	    echo "clean: $$d is in use by pid $$pid ($$f): stop that chapter first (Ctrl-C in its terminal)"; exit 1; \
	  fi; \
	  if [ -d $$d/kubelet ] || [ -d $$d/nodes ] || [ -d $$d/machines ]; then \
	    echo "clean: the chapter in $$d did not exit cleanly (pid $$pid is gone: kill -9, a crash?), and its nodes may have left"; \
	    echo "       network namespaces, mounts and containers behind. Run 'make clean-nodes' first (as root, e.g. sudo make clean-nodes)."; exit 1; \
	  fi; \
	done
	rm -rf $(wildcard $(KUBIK_DIR)/ch[0-9]* $(IMAGE_DIR) $(addprefix $(KUBIK_DIR)/,$(OLD_STATE)))

# What chapters kept directly in .kubik before each had a directory of its own.
OLD_STATE    := pki etcd logs kubelet nodes images *.kubeconfig *.pid

.PHONY: ch07-run bench-proxy
ch07-run: images ## chapter 6's cluster + kube-proxy on every node (PROXY_MODE=iptables|nftables) + cluster DNS (kube-system/coredns, 10.96.0.10) + ingress controller (ingress-kubik, node ports 30080/30443) (as root)
	@scripts/ensure-deps.sh $(CH06_DEPS) conntrack=conntrack
	$(GO) build -o $(BIN)/kubik-cni ./ch06-cni/cmd/kubik-cni
	$(call run,ch07-kube-proxy,3-5 minutes on 2 cores,--cni-plugin $(abspath $(BIN))/kubik-cni --nodes $(or $(NODES),2) --backend $(or $(BACKEND),host-gw) --proxy-mode $(or $(PROXY_MODE),iptables) --image-dir $(IMAGE_DIR))

.PHONY: compare-proxy
compare-proxy: ref-build ## ch07: our kube-proxy's rule dumps next to upstream kube-proxy v1.35.4's, live, both modes (root)
	@scripts/ensure-deps.sh $(CH06_DEPS) conntrack=conntrack
	$(GO) test -count=1 -v -run 'Mode$$/^rules$$' ./ch07-kube-proxy -require-upstream

SERVICES     ?= 100,1000,5000,10000
bench-proxy: ## ch07 kube-proxy vs upstream v1.35.4: one-change sync, full resync, rule count at SERVICES, both modes (root)
	@scripts/ensure-deps.sh $(CH06_DEPS) conntrack=conntrack
	$(GO) run ./ch07-kube-proxy/cmd/bench-proxy -mode both -services $(SERVICES) -ref-bin $(REF_DIR)/bin $(BENCH_FLAGS)

.PHONY: bench-ingress
bench-ingress: ## ch07 ingress controller: requests/s and p99 through the controller (node port 30080) vs straight to the ClusterIP, on the running ch07 cluster (root; make ch07-run first)
	$(GO) run ./ch07-kube-proxy/cmd/bench-ingress -kubeconfig $(KUBIK_DIR)/ch07/admin.kubeconfig -netns $$(ip netns list | grep -o 'kubik-[0-9a-f]*-node-1' | head -1) $(BENCH_FLAGS)

CNI_N        ?= 100
bench-cni: ## ch06 CNI ADD+DEL latency: kubik-cni vs the reference bridge+host-local (/usr/lib/cni), CNI_N each, interleaved (root)
	@scripts/ensure-deps.sh $(CH06_DEPS)
	$(GO) run ./ch06-cni/cmd/bench-cni -n $(CNI_N) $(BENCH_FLAGS)

.PHONY: bench-netpol
bench-netpol: ## ch06 NetworkPolicy: one node-agent sync (compute + nft transaction) with 100 and 1000 policies over 100 local pods (root)
	@scripts/ensure-deps.sh $(CH06_DEPS)
	$(GO) test ./ch06-cni/networkpolicy -run '^$$' -bench . -benchtime 5x

POD_COUNT    ?= 30
POD_RATE     ?= 1
POD_BURST    ?= 30
bench-pods: ## ch05 pod startup latency (upstream's SLI) on the real node: POD_COUNT at POD_RATE/s, a burst of POD_BURST; p50/p99 vs 2 s and the SLO 5 s (root)
	@scripts/ensure-deps.sh $(CH05_DEPS)
	$(GO) run ./ch05-kubelet/cmd/bench-pods -pods $(POD_COUNT) -rate $(POD_RATE) -burst $(POD_BURST) $(BENCH_FLAGS)

# Chapter 8 runs the whole cluster on this host (root, Linux): every component a
# process of its own on its machine (a network namespace, booted by
# kubik-supervisor from the same unit files a VM's systemd runs).
# CONTROL_PLANE=N (3) control-plane machines, WORKERS=N (2) workers; the drills
# and ch08-down act on the cluster of DATA_DIR (.kubik/ch08).
CH08_DEPS    := $(CH06_DEPS) conntrack=conntrack haproxy=haproxy etcdctl=etcd-client curl=curl
CH08_BINS    := ./ch08-full-cluster ./ch08-full-cluster/cmd/kubik-supervisor ./ch08-full-cluster/cmd/etcd \
                ./ch08-full-cluster/cmd/kube-apiserver ./ch08-full-cluster/cmd/kube-controller-manager \
                ./ch08-full-cluster/cmd/cloud-controller-manager ./ch03-scheduler/cmd/kube-scheduler \
                ./ch05-kubelet/cmd/kubelet ./ch06-cni/cmd/kubik-node-agent ./ch06-cni/cmd/kubik-cni \
                ./ch07-kube-proxy/cmd/kube-proxy
CH08_DRILLS  := drill-apiserver drill-etcd-leader drill-etcd-quorum drill-apiservers-down drill-leaders drill-kubelet drill-poweroff
.PHONY: ch08-run ch08-down ch08-status ch08-pki bench-cluster $(CH08_DRILLS)
ch08-run ch08-down ch08-status ch08-pki $(CH08_DRILLS): DATA_DIR = $(KUBIK_DIR)/ch08
ch08-run: images ## the whole cluster: 3 control-plane machines (etcd, apiserver, scheduler, controller managers), haproxy, 2 workers; CONTROL_PLANE=N WORKERS=N (as root)
	@scripts/ensure-deps.sh $(CH08_DEPS)
	@echo "$@: building every component into $(BIN)/ (the first build takes 5-8 minutes on 2 cores, later ones seconds); state in $(DATA_DIR)"
	$(GO) build -o $(BIN)/ $(CH08_BINS)
	$(strip $(BIN)/ch08-full-cluster up --data-dir $(DATA_DIR) --control-plane $(or $(CONTROL_PLANE),3) --workers $(or $(WORKERS),2) --image-dir $(IMAGE_DIR) $(if $(PORT),--secure-port $(PORT)) $(ARGS))

# The cluster's own commands need only its program.
define ch08
	@$(GO) build -o $(BIN)/ch08-full-cluster ./ch08-full-cluster
	$(BIN)/ch08-full-cluster $(1) --data-dir $(DATA_DIR) $(2)
endef

ch08-down: ## stop the cluster of ch08-run (DATA_DIR) and remove everything it made, also after a kill -9 (as root)
	$(call ch08,down)

ch08-status: ## every ch08 machine's units, as systemctl list-units shows them
	$(call ch08,status)

ch08-pki: ## write chapter 8's PKI (CA, etcd, apiserver, kubelets, components, SA keys, encryption config) into DATA_DIR/pki; CONTROL_PLANE=N WORKERS=N
	$(call ch08,pki,--control-plane $(or $(CONTROL_PLANE),3) --workers $(or $(WORKERS),2))

drill-apiserver: ## ch08 drill: kill -9 one apiserver while kubectl loops through the load balancer (the cluster of ch08-run)
	$(call ch08,drill,apiserver)
drill-etcd-leader: ## ch08 drill: kill -9 the etcd leader while writes go on; a new leader
	$(call ch08,drill,etcd-leader)
drill-etcd-quorum: ## ch08 drill: stop two etcd members (writes fail, /readyz says why), one back (writes work)
	$(call ch08,drill,etcd-quorum)
drill-apiservers-down: ## ch08 drill: stop every apiserver; pods keep serving through their ClusterIP; back, everything reconciles
	$(call ch08,drill,apiservers-down)
drill-leaders: ## ch08 drill: kill -9 the leading scheduler and controller managers; the standbys take their Leases
	$(call ch08,drill,leaders)
drill-kubelet: ## ch08 drill: stop a worker's kubelet; Node Unknown after 50 s, tainted, pods evicted and recreated elsewhere
	$(call ch08,drill,kubelet)
drill-poweroff: ## ch08 drill: power a worker off; the cloud's node controller deletes its Node; back on, it joins again
	$(call ch08,drill,poweroff)

bench-cluster: images ## ch08: time to every Node Ready, to a 100-replica Deployment Available, kubectl p99 through the LB while an apiserver is killed; again with upstream's control plane if built (root)
	@scripts/ensure-deps.sh $(CH08_DEPS)
	@echo "$@: building every component into $(BIN)/ (the first build takes 5-8 minutes on 2 cores); the cluster runs in a temporary directory on 10.240.9.0/24"
	$(GO) build -o $(BIN)/ $(CH08_BINS) ./ch08-full-cluster/cmd/bench-cluster
	$(BIN)/bench-cluster -bin-dir $(BIN) -image-dir $(IMAGE_DIR) -ref-bin $(REF_DIR)/bin $(BENCH_FLAGS)

.PHONY: interop
interop: images ## ch08: the interop matrix — Kubik and upstream v1.35.4 components swapped cell by cell, a scenario each, a table (needs make ref-build; root; ~5 min a cell); CELLS=a,b
	@scripts/ensure-deps.sh $(CH08_DEPS)
	$(GO) build -o $(BIN)/ $(CH08_BINS) ./ch08-full-cluster/cmd/interop
	$(BIN)/interop -bin-dir $(BIN) -image-dir $(IMAGE_DIR) -ref-bin $(REF_DIR)/bin $(if $(CELLS),-cells $(CELLS)) $(INTEROP_FLAGS)

# Chapter 8 on Vagrant VMs: the Vagrantfile at the root, ch08-full-cluster/vagrant.
# `vagrant validate` of both providers runs in `make test`; the VMs do not.
VAGRANT_DEPS := vagrant=vagrant debootstrap=debootstrap qemu-img=qemu-utils mkfs.ext4=e2fsprogs curl=curl
.PHONY: box vagrant-e2e
box: ## build the offline Debian 12 vagrant-libvirt box kubik/bookworm64 into .kubik/vagrant/box (3-5 min) and add it to Vagrant (as root)
	@scripts/ensure-deps.sh $(VAGRANT_DEPS)
	KUBIK_DIR=$(abspath $(KUBIK_DIR)) ch08-full-cluster/vagrant/box.sh

vagrant-e2e: ## ch08 on VMs end to end (not in test): installs libvirt and Vagrant if missing, lb + 1 control plane + 1 worker, a Deployment, a LoadBalancer, then removes it all (as root; 8-18 min under QEMU's emulation)
	KUBIK_DIR=$(abspath $(KUBIK_DIR)) KUBIK_VAGRANT_E2E=1 $(GO) test -count=1 -v -timeout 60m -run TestVagrantE2E ./ch08-full-cluster/vagrant/

deps: ## install the system packages the tests need (only what is missing): every chapter's, up to ch08's (CH08_DEPS)
	@scripts/ensure-deps.sh $(CH08_DEPS) etcd=etcd-server

vet: ## go vet ./...
	$(GO) vet ./...

fmt-check: ## fail listing the files gofmt would change
	@files=$$(gofmt -l $$(git ls-files --cached --others --exclude-standard '*.go' 2>/dev/null || find . -name '*.go' -not -path './.*')); \
	if [ -n "$$files" ]; then echo "gofmt needed in:"; echo "$$files"; exit 1; fi

test: deps vet fmt-check ## everything: vet, gofmt, all tests (end-to-end and docs labs included)
	$(GO) test -timeout $(TEST_TIMEOUT) ./...

test-short: ## quick tests only (go test -short)
	$(GO) test -short -timeout 10m ./...

bench-apiserver: ## ch02 vs upstream kube-apiserver on fresh etcds: creates, LIST 10k pods, watch fan-out, in JSON and protobuf; with/without watch cache
	@scripts/ensure-deps.sh etcd=etcd-server
	$(GO) run ./ch02-etcd-store/cmd/bench -ref-bin $(REF_DIR)/bin $(BENCH_FLAGS)

# Only bench-scheduler's default: NODES alone is ch06-run's and ch07-run's machine count.
bench-scheduler: NODES ?= 100,1000,5000
PODS         ?= 5000
SCHEDULERS   ?= kubik,upstream
bench-scheduler: ## ch03 kube-scheduler vs upstream v1.35.4: pods/s, latency at NODES (100,1000,5000) × PODS (5000); SCHEDULERS=kubik,upstream
	@scripts/ensure-deps.sh etcd=etcd-server
	$(GO) run ./ch03-scheduler/cmd/bench-scheduler -ref-bin $(REF_DIR)/bin -nodes $(NODES) -pods $(PODS) -schedulers $(SCHEDULERS) $(BENCH_FLAGS)

REPLICAS     ?= 1000
bench-controllers: ## ch04 kube-controller-manager vs upstream v1.35.4 on 100 hollow nodes: 1000-replica Deployment (create, rolling update), 100-replica OrderedReady StatefulSet (create, rollout), 1000-pod ReplicationController
	$(GO) run ./ch04-controllers/cmd/bench-controllers -ref-bin $(REF_DIR)/bin -replicas $(REPLICAS) $(BENCH_FLAGS)

helm: ## build helm v3.22.0 into .kubik/bin for chapter 1's Helm test (once, a few minutes; go.mod untouched; the test runs this itself)
	@scripts/ensure-helm.sh

.PHONY: helm bench-crd
bench-crd: ## ch02 custom resources vs upstream kube-apiserver v1.35.4 on fresh etcds: creates/s (5000, 4 clients) and LIST 10k of a CR, the same for ConfigMaps, side by side
	@scripts/ensure-deps.sh etcd=etcd-server
	$(GO) run ./ch02-etcd-store/cmd/bench -crd -ref-bin $(REF_DIR)/bin $(BENCH_FLAGS)

.PHONY: bench-admission
bench-admission: ## ch02 vs upstream kube-apiserver v1.35.4: latency one validating webhook and one ValidatingAdmissionPolicy add to a create (p50/p99), the same webhook for both
	@scripts/ensure-deps.sh etcd=etcd-server
	$(GO) run ./ch02-etcd-store/cmd/bench -admission -ref-bin $(REF_DIR)/bin $(BENCH_FLAGS)

fuzz: ## run every fuzz target for FUZZTIME (default 5s) each
	@FUZZTIME=$(FUZZTIME) GO=$(GO) scripts/fuzz.sh

# The reference cluster: upstream Kubernetes next to Kubik, for side-by-side comparison.
REF_DIR      ?= .kubik/ref
REF_VERSION  ?= v1.35.4
# Components besides kube-apiserver (chapter 1 scenarios need none; `make ref-up REF_COMPONENTS=`).
REF_COMPONENTS ?= kube-controller-manager,kube-scheduler
KUBECTL_VERSION ?= 1.33
SCENARIO     ?= compare/scenarios/*.md

ref-build: ## build upstream kube-apiserver/-controller-manager/-scheduler, kube-proxy and kubelet REF_VERSION (v1.35.4) into REF_DIR/bin (.kubik/ref/bin; ~20 CPU-min cold)
	@REF_DIR=$(REF_DIR) REF_VERSION=$(REF_VERSION) scripts/ref-build.sh

ref-up: ref-build ## run the reference Kubernetes control plane on free loopback ports
	@scripts/ensure-deps.sh etcd=etcd-server
	$(GO) run ./compare/cmd/refcluster -dir $(REF_DIR) -components "$(REF_COMPONENTS)" up

ref-down: ## stop the reference cluster
	$(GO) run ./compare/cmd/refcluster -dir $(REF_DIR) down

compare: ref-build ## run SCENARIO against Kubik and a fresh reference cluster; print the differences and the score
	@scripts/ensure-deps.sh etcd=etcd-server
	$(GO) run ./compare/cmd/compare -kubectl $(KUBECTL_VERSION) -ref-bin $(REF_DIR)/bin $(SCENARIO)
	@# Every scenario (the default SCENARIO) also means chapter 7's kube-proxy cell: rule dumps live, as root.
	@if [ '$(SCENARIO)' = 'compare/scenarios/*.md' ]; then \
	  if [ "$$(id -u)" = 0 ]; then $(MAKE) --no-print-directory compare-proxy; \
	  else echo "compare: kube-proxy's rule dumps need root (make compare-proxy as root)"; fi; \
	fi

compare-golden: ## the same against the recorded goldens (no upstream build needed)
	$(GO) run ./compare/cmd/compare -against-golden -kubectl $(KUBECTL_VERSION) $(SCENARIO)

golden: ref-build ## record real Kubernetes' outputs of every scenario, kubectl 1.27 and 1.33 (compare/testdata/golden)
	@scripts/ensure-deps.sh etcd=etcd-server
	$(GO) run ./compare/cmd/compare -golden -kubectl 1.33 -ref-bin $(REF_DIR)/bin $(SCENARIO)
	$(GO) run ./compare/cmd/compare -golden -kubectl 1.27 -ref-bin $(REF_DIR)/bin $(SCENARIO)
