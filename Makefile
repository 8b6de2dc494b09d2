# paramd: the two commands (SPEC §7) and their helpers.
#
#   make run     install what is missing, build a release paramd, run it in the foreground
#                (against the running JACK server, or a private dummy-driver one); PORT=9000 ARGS=…
#   make test    install what is missing, build everything, run every test (unit and end-to-end)
#   make deps    install what is missing (apt-get, through sudo when not root)
#   make build   release build of paramd
#   make shim    the LD_PRELOAD allocation counter, .build-tools/alloccount.so
#   make bench   release render benchmarks (Benchmarks/, ordo-one/benchmark), then their summary
#                table in ns per frame (docs/PERFORMANCE.md); the log in .build-tools/bench.txt
#   make plots   regenerate docs/curves/*.png from the engine's output (docs/CURVES.md)
#   make clean
#
# PRODUCTS_CONFIG=release makes `make test` run the end-to-end tests against release builds of
# paramd and paramd-jacktool (the tests themselves always build in debug).

SHELL := /bin/bash
.SHELLFLAGS := -eu -o pipefail -c
.DEFAULT_GOAL := build

SWIFT ?= swift
CC := $(or $(shell command -v cc 2>/dev/null),$(shell command -v clang 2>/dev/null),$(shell command -v gcc 2>/dev/null),cc)
TOOLS_DIR := .build-tools
ALLOC_SHIM := $(TOOLS_DIR)/alloccount.so
PRODUCTS_CONFIG ?= debug
PORT ?= 9000
ARGS ?=

.PHONY: all deps build test run shim bench plots clean

all: build

deps:
	@scripts/install-deps.sh

build: deps
	$(SWIFT) build -c release --product paramd

shim: $(ALLOC_SHIM)

$(ALLOC_SHIM): Tests/Support/alloccount.c
	@mkdir -p $(TOOLS_DIR)
	$(CC) -shared -fPIC -O2 -Wall -Wextra -o $@ $< -ldl -pthread

test: deps $(ALLOC_SHIM)
	$(SWIFT) build --build-tests
ifneq ($(PRODUCTS_CONFIG),debug)
	$(SWIFT) build -c $(PRODUCTS_CONFIG) --product paramd
	$(SWIFT) build -c $(PRODUCTS_CONFIG) --product paramd-jacktool
endif
	PARAMD_BIN_DIR="$$($(SWIFT) build -c $(PRODUCTS_CONFIG) --show-bin-path)" \
	PARAMD_ALLOC_SHIM="$(CURDIR)/$(ALLOC_SHIM)" \
	$(SWIFT) test --skip-build

run: build
	@scripts/run-paramd.sh --bin "$$($(SWIFT) build -c release --show-bin-path)/paramd" --port $(PORT) -- $(ARGS)

# A separate package, so that neither the main build nor CI pays for the benchmark framework.
bench:
	@mkdir -p $(TOOLS_DIR)
	$(SWIFT) package --package-path Benchmarks benchmark --no-progress | tee $(TOOLS_DIR)/bench.txt
	@python3 scripts/bench-table.py < $(TOOLS_DIR)/bench.txt

plots:
	@scripts/plot-curves.sh

clean:
	$(SWIFT) package clean
	rm -rf Benchmarks/.build
	rm -rf $(TOOLS_DIR)
