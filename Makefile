# Kubik: one entry point to run the chapters and to test everything.
# `make` alone lists the targets.

SHELL        := /bin/bash
GO           ?= go
DATA_DIR     ?= .kubik
TEST_TIMEOUT ?= 30m
FUZZTIME     ?= 5s

.DEFAULT_GOAL := help
.PHONY: help ch01-run deps vet fmt-check test test-short bench-apiserver fuzz

help: ## list the targets
	@echo "Kubik: make <target>"
	@awk 'BEGIN {FS = ":.*## "} /^[a-zA-Z0-9_-]+:.*## / {printf "  %-16s %s\n", $$1, $$2}' $(MAKEFILE_LIST)

ch01-run: ## run the chapter 1 apiserver; state in DATA_DIR (default .kubik)
	$(GO) run ./ch01-apiserver --data-dir $(DATA_DIR)

deps: ## install the system packages the tests need (only what is missing)
	@scripts/ensure-deps.sh

vet: ## go vet ./...
	$(GO) vet ./...

fmt-check: ## fail listing the files gofmt would change
	@files=$$(gofmt -l .); \
	if [ -n "$$files" ]; then echo "gofmt needed in:"; echo "$$files"; exit 1; fi

test: deps vet fmt-check ## everything: vet, gofmt, all tests (end-to-end and docs labs included)
	$(GO) test -timeout $(TEST_TIMEOUT) ./...

test-short: ## quick tests only (go test -short)
	$(GO) test -short -timeout 10m ./...

bench-apiserver: ## apiserver benchmarks
	$(GO) test -run '^$$' -bench . ./ch01-apiserver/...

fuzz: ## run every fuzz target for FUZZTIME (default 5s) each
	@FUZZTIME=$(FUZZTIME) GO=$(GO) scripts/fuzz.sh
