# Kubik: one entry point to run the chapters and to test everything.
# `make` alone lists the targets.

SHELL        := /bin/bash
GO           ?= go
DATA_DIR     ?= .kubik
TEST_TIMEOUT ?= 30m
FUZZTIME     ?= 5s

.DEFAULT_GOAL := help
.PHONY: help ch01-run ch02-run ch03-run ch04-run deps vet fmt-check test test-short bench-apiserver bench-scheduler bench-controllers fuzz ref-build ref-up ref-down compare compare-golden golden

help: ## list the targets
	@echo "Kubik: make <target>"
	@awk 'BEGIN {FS = ":.*## "} /^[a-zA-Z0-9_-]+:.*## / {printf "  %-16s %s\n", $$1, $$2}' $(MAKEFILE_LIST)

ch01-run: ## run the chapter 1 apiserver; state in DATA_DIR (default .kubik)
	$(GO) run ./ch01-apiserver --data-dir $(DATA_DIR)

ch02-run: ## run the chapter 2 apiserver on an embedded etcd; state (etcd too) in DATA_DIR
	$(GO) run ./ch02-etcd-store --data-dir $(DATA_DIR)

ch03-run: ## chapter 2's cluster + kube-scheduler + 3 hollow (simulated) nodes; HOLLOW_NODES=N for more
	$(GO) run ./ch03-scheduler --data-dir $(DATA_DIR) --hollow-nodes $(or $(HOLLOW_NODES),3)

ch04-run: ## chapter 3's cluster + kube-controller-manager (replicaset, deployment, ...); HOLLOW_NODES=N for more
	$(GO) run ./ch04-controllers --data-dir $(DATA_DIR) --hollow-nodes $(or $(HOLLOW_NODES),3)

# Chapter 5 runs real containers: root, Linux, containerd (installed if missing).
# The list is ch05-kubelet/containerd.Requirements(). Under sudo, keep Go on the
# PATH: sudo env "PATH=$$PATH" make ch05-run
CH05_DEPS    := containerd=containerd containerd-shim-runc-v2=containerd ctr=containerd runc=runc \
                /usr/lib/cni/bridge=containernetworking-plugins nsenter=util-linux ip=iproute2 /bin/busybox=busybox-static
.PHONY: ch05-run images bench-pods
ch05-run: images ## chapter 4's cluster + a REAL node: kubelet + its own containerd (as root); HOLLOW_NODES=N adds simulated ones
	@scripts/ensure-deps.sh $(CH05_DEPS)
	$(GO) run ./ch05-kubelet --data-dir $(DATA_DIR) --hollow-nodes $(or $(HOLLOW_NODES),0) --pod-manifest-path $(DATA_DIR)/kubelet/manifests

images: ## build the nodes' images as OCI tarballs into DATA_DIR/images: pause, busybox (busybox-static), demo, kube-dns
	@scripts/ensure-deps.sh /bin/busybox=busybox-static
	$(GO) run ./ch07-kube-proxy/cmd/mkimages -out $(DATA_DIR)/images

# Chapter 6 runs NODES machines (network namespaces) on this host: root, Linux.
CH06_DEPS    := $(CH05_DEPS) iptables=iptables nft=nftables /usr/lib/cni/portmap=containernetworking-plugins
.PHONY: ch06-run clean-nodes bench-cni
ch06-run: images ## chapter 5's control plane + NODES (2) machines, each a netns with containerd, kubelet, node agent; pod network by kubik-cni (BACKEND=host-gw|vxlan) (as root)
	@scripts/ensure-deps.sh $(CH06_DEPS)
	$(GO) run ./ch06-cni --data-dir $(DATA_DIR) --nodes $(or $(NODES),2) --backend $(or $(BACKEND),host-gw) $(ARGS)

clean-nodes: ## remove what the nodes of DATA_DIR left after a crash: processes, containers, mounts, cgroups, netns, links, routes (as root)
	$(GO) run ./ch06-cni clean-nodes --data-dir $(DATA_DIR)

CNI_N        ?= 100
bench-cni: ## ch06 CNI ADD+DEL latency: kubik-cni vs the reference bridge+host-local (/usr/lib/cni), CNI_N each, interleaved (root)
	@scripts/ensure-deps.sh $(CH06_DEPS)
	$(GO) run ./ch06-cni/cmd/bench-cni -n $(CNI_N) $(BENCH_FLAGS)

POD_COUNT    ?= 30
POD_RATE     ?= 1
POD_BURST    ?= 30
bench-pods: ## ch05 pod startup latency (upstream's SLI) on the real node: POD_COUNT at POD_RATE/s, a burst of POD_BURST; p50/p99 vs 2 s and the SLO 5 s (root)
	@scripts/ensure-deps.sh $(CH05_DEPS)
	$(GO) run ./ch05-kubelet/cmd/bench-pods -pods $(POD_COUNT) -rate $(POD_RATE) -burst $(POD_BURST) $(BENCH_FLAGS)

deps: ## install the system packages the tests need (only what is missing)
	@scripts/ensure-deps.sh

vet: ## go vet ./...
	$(GO) vet ./...

fmt-check: ## fail listing the files gofmt would change
	@files=$$(gofmt -l $$(git ls-files --cached --others --exclude-standard '*.go' 2>/dev/null || find . -name '*.go' -not -path './.*')); \
	if [ -n "$$files" ]; then echo "gofmt needed in:"; echo "$$files"; exit 1; fi

test: deps vet fmt-check ## everything: vet, gofmt, all tests (end-to-end and docs labs included)
	$(GO) test -timeout $(TEST_TIMEOUT) ./...

test-short: ## quick tests only (go test -short)
	$(GO) test -short -timeout 10m ./...

bench-apiserver: ## ch02 vs upstream kube-apiserver on fresh etcds: creates, LIST 10k pods, watch fan-out; with/without watch cache
	@scripts/ensure-deps.sh etcd=etcd-server
	$(GO) run ./ch02-etcd-store/cmd/bench -ref-bin $(REF_DIR)/bin $(BENCH_FLAGS)

NODES        ?= 100,1000,5000
PODS         ?= 5000
SCHEDULERS   ?= kubik,upstream
bench-scheduler: ## ch03 kube-scheduler vs upstream v1.35.4: pods/s, latency at NODES (100,1000,5000) × PODS (5000); SCHEDULERS=kubik,upstream
	@scripts/ensure-deps.sh etcd=etcd-server
	$(GO) run ./ch03-scheduler/cmd/bench-scheduler -ref-bin $(REF_DIR)/bin -nodes $(NODES) -pods $(PODS) -schedulers $(SCHEDULERS) $(BENCH_FLAGS)

REPLICAS     ?= 1000
bench-controllers: ## ch04 kube-controller-manager vs upstream v1.35.4: 1000-replica Deployment Available, then a rolling update, on 100 hollow nodes
	$(GO) run ./ch04-controllers/cmd/bench-controllers -ref-bin $(REF_DIR)/bin -replicas $(REPLICAS) $(BENCH_FLAGS)

fuzz: ## run every fuzz target for FUZZTIME (default 5s) each
	@FUZZTIME=$(FUZZTIME) GO=$(GO) scripts/fuzz.sh

# The reference cluster: upstream Kubernetes next to Kubik, for side-by-side comparison.
REF_DIR      ?= .kubik/ref
REF_VERSION  ?= v1.35.4
# Components besides kube-apiserver (chapter 1 scenarios need none; `make ref-up REF_COMPONENTS=`).
REF_COMPONENTS ?= kube-controller-manager,kube-scheduler
KUBECTL_VERSION ?= 1.33
SCENARIO     ?= compare/scenarios/*.md

ref-build: ## build upstream kube-apiserver/-controller-manager/-scheduler $(REF_VERSION) into $(REF_DIR)/bin (~20 CPU-min cold)
	@REF_DIR=$(REF_DIR) REF_VERSION=$(REF_VERSION) scripts/ref-build.sh

ref-up: ref-build ## run the reference Kubernetes control plane on free loopback ports
	@scripts/ensure-deps.sh etcd=etcd-server
	$(GO) run ./compare/cmd/refcluster -dir $(REF_DIR) -components "$(REF_COMPONENTS)" up

ref-down: ## stop the reference cluster
	$(GO) run ./compare/cmd/refcluster -dir $(REF_DIR) down

compare: ref-build ## run SCENARIO against Kubik and a fresh reference cluster; print the differences and the score
	@scripts/ensure-deps.sh etcd=etcd-server
	$(GO) run ./compare/cmd/compare -kubectl $(KUBECTL_VERSION) -ref-bin $(REF_DIR)/bin $(SCENARIO)

compare-golden: ## the same against the recorded goldens (no upstream build needed)
	$(GO) run ./compare/cmd/compare -against-golden -kubectl $(KUBECTL_VERSION) $(SCENARIO)

golden: ref-build ## record real Kubernetes' outputs of every scenario, kubectl 1.27 and 1.33 (compare/testdata/golden)
	@scripts/ensure-deps.sh etcd=etcd-server
	$(GO) run ./compare/cmd/compare -golden -kubectl 1.33 -ref-bin $(REF_DIR)/bin $(SCENARIO)
	$(GO) run ./compare/cmd/compare -golden -kubectl 1.27 -ref-bin $(REF_DIR)/bin $(SCENARIO)
