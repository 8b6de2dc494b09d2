# paramd: the two commands (SPEC §7) and their helpers.
#
#   make run     install what is missing, build a release paramd, run it in the foreground
#                (against the running JACK server, or a private dummy-driver one); PORT=9000 ARGS=…
#   make test    install what is missing, build the tests and the release products, run every test (unit and end-to-end)
#   make deps    install what is missing (apt-get, through sudo when not root)
#   make build   release build of paramd
#   make shim    the LD_PRELOAD allocation counter, .build-tools/alloccount.so
#   make install     release build, then the binary to $(PREFIX)/bin (PREFIX=~/.local) and
#                    the systemd user unit to ~/.config/systemd/user (UNITDIR=…)
#   make uninstall   stops and disables the unit if systemd runs, removes both files
#   make deb     release build, then paramd_<version>_<arch>.deb in .build-deb/ (scripts/build-deb.sh:
#                the binary, the user unit, paramd(1), bash/zsh/fish completions, copyright,
#                changelog; Depends from dpkg-shlibdeps); prints the package's path
#   make tsan    the end-to-end suite against paramd built with ThreadSanitizer (.build-tsan);
#                fails on any report (they are kept in .build-tools/tsan/)
#   make fuzz    libFuzzer over ParamCore's packet-to-command path for FUZZ_SECONDS (60)
#   make soak    load test: a private dummy JACK server, 32 subscribers, 20,000 then 50,000
#                messages/s (scripts/soak.py; SOAK_SECONDS=10, SOAK_RATES="20000 50000")
#   make bench   release render benchmarks (Benchmarks/, ordo-one/benchmark), then their summary
#                table in ns per frame (docs/PERFORMANCE.md) with the Swift/C-kernel ratios; the
#                log in .build-tools/bench.txt
#   make bench-process   paramd's process cost (CPU, wake-ups, RssAnon) against a C JACK client
#                doing the same work, on private dummy JACK servers (scripts/bench-process.py;
#                BENCH_ARGS="--quick", "--paramd BIN", "--seconds 10 --repeats 3"); JSON in
#                .build-tools/bench-process.json
#   make plots   regenerate docs/curves/*.png from the engine's output (docs/CURVES.md) and
#                docs/modulators/*.svg from paramd's recorded CV ports (make plots-modulators)
#   make clean
#
# `make test` runs the end-to-end tests against release builds of paramd and paramd-jacktool
# (what ships; a debug build's per-sample render costs several times more, and three of them
# beside their JACK servers overload a 2-core machine into xruns). PRODUCTS_CONFIG=debug uses
# the debug builds instead. The tests themselves always build in debug. At most
# PARAMD_TEST_MAX_SERVERS (2) test JACK servers run at once.

SHELL := /bin/bash
.SHELLFLAGS := -eu -o pipefail -c
.DEFAULT_GOAL := build

SWIFT ?= swift
CC := $(or $(shell command -v cc 2>/dev/null),$(shell command -v clang 2>/dev/null),$(shell command -v gcc 2>/dev/null),cc)
TOOLS_DIR := .build-tools
ALLOC_SHIM := $(TOOLS_DIR)/alloccount.so
PRODUCTS_CONFIG ?= release
PORT ?= 9000
ARGS ?=
PREFIX ?= $(HOME)/.local
BINDIR ?= $(PREFIX)/bin
UNITDIR ?= $(or $(XDG_CONFIG_HOME),$(HOME)/.config)/systemd/user
# Release builds link the Swift runtime and Foundation statically, as a position-dependent
# executable: the relocations of the shared Swift libraries (about 1 MB of private memory,
# docs/PERFORMANCE.md) then do not exist. ASLR still places the stack, heap and shared C
# libraries; the executable's own code sits at a fixed address. RELEASE_FLAGS= builds the
# ordinary dynamic PIE instead.
RELEASE_FLAGS ?= --static-swift-stdlib -Xswiftc -Xclang-linker -Xswiftc -no-pie
RELEASE := $(SWIFT) build -c release $(RELEASE_FLAGS)
# The tests in debug: only the test product and what it imports (ParamCore, ParamSystem, liblo),
# not NIO, the daemon, the tools and Link's C++ in debug, which the tests run in release (about
# 100 s of a fresh clone's build); PRODUCTS_CONFIG=debug builds every product in debug.
TEST_BUILD := $(SWIFT) build $(if $(filter debug,$(PRODUCTS_CONFIG)),--build-tests,--product paramdPackageTests)
# The binary `install-files` copies; `install` builds it first.
PARAMD_BIN ?= $(shell $(SWIFT) build -c release --show-bin-path 2>/dev/null)/paramd

DEB_DIR ?= .build-deb

FUZZ_SECONDS ?= 60
FUZZER := $(TOOLS_DIR)/packet-fuzzer
FUZZ_SOURCES := $(sort $(shell find Sources/ParamCore -name '*.swift')) Fuzz/PacketFuzzer.swift
SOAK_SECONDS ?= 10
SOAK_RATES ?= 20000 50000
BENCH_ARGS ?=

.PHONY: all deps build test tsan run shim fuzz soak bench bench-process plots plots-modulators clean install install-files uninstall deb

all: build

deps:
	@scripts/install-deps.sh

build: deps
	$(RELEASE) --product paramd

shim: $(ALLOC_SHIM)

$(ALLOC_SHIM): Tests/Support/alloccount.c
	@mkdir -p $(TOOLS_DIR)
	$(CC) -shared -fPIC -O2 -Wall -Wextra -o $@ $< -ldl -pthread

E2E_ENV = PARAMD_BIN_DIR="$$($(SWIFT) build -c $(PRODUCTS_CONFIG) --show-bin-path)" PARAMD_ALLOC_SHIM="$(CURDIR)/$(ALLOC_SHIM)"

test: deps $(ALLOC_SHIM)
	$(TEST_BUILD)
ifneq ($(PRODUCTS_CONFIG),debug)
	$(RELEASE) --product paramd
	$(RELEASE) --product paramd-jacktool
	$(RELEASE) --product paramd-linkprobe
endif
	@# Phases, so the end-to-end recordings never share the two cores with the CPU-heavy unit
	@# suites: unit tests; end-to-end tests; then, each alone, the buffer-size switch (JACK
	@# reports xruns at the switch whenever the machine is busy), the stalls (a client upstream
	@# of paramd sleeps 30 ms, so JACK skips paramd: every check by JACK frame, and a loaded
	@# machine would add skips of its own; with them, a surface connected to midi_out inside a
	@# stall: MIDIOutConnectTests), a client leaving as paramd opens (16-frame periods
	@# and a client opening and closing in a loop: StaleWakeSlotTests), the quantum switch on a private PipeWire
	@# (its quantum changes mid-fade), every ControlPage suite in headless
	@# Chromium, one at a time (a browser starting takes both cores for a moment), the multi-host tests in
	@# network namespaces of their own (docs/MULTIHOST.md; they skip without root or
	@# CAP_NET_ADMIN), alone so that their cross-server timing is not loaded, then the two
	@# paramds on one Link bar line (its own phase: it and a multi-host test each take their two
	@# servers one at a time, and sharing two slots they could each hold one), access beyond
	@# loopback (namespaces again, and Chromium on the far side), and the unit
	@# under a real systemd user manager (cgroup and mount namespaces, a manager of its own),
	@# and last the Debian package, whose paramd runs with the toolchain's folder hidden
	@# (PackageTests: release products only, as the package takes only a static binary).
	@# Tests that read JACK metadata run one server at a time: every jackd of a user shares one
	@# metadata database (/dev/shm/jack_db-UID) and numbers port UUIDs alike, so another server's
	@# client closing removes the properties of the same UUID.
	$(SWIFT) test --skip-build --filter ParamCoreTests
	$(E2E_ENV) PARAMD_TEST_MAX_SERVERS=$${PARAMD_TEST_MAX_SERVERS:-2} \
	$(SWIFT) test --skip-build --filter ParamDaemonTests --skip 'PackageTests|UnitUnderSystemdTests|BufferSizeTests|StallTests|MIDIOutConnectTests|StaleWakeSlotTests|PipeWireTests|MultiHostTests|LinkBarLineTests|ControlPage|AccessTests|AccessUDPTests|InJackMetadata'
	$(E2E_ENV) PARAMD_TEST_MAX_SERVERS=1 $(SWIFT) test --skip-build --filter InJackMetadata
	$(E2E_ENV) $(SWIFT) test --skip-build --filter BufferSizeTests
	$(E2E_ENV) $(SWIFT) test --skip-build --filter 'StallTests|MIDIOutConnectTests'
	$(E2E_ENV) $(SWIFT) test --skip-build --filter StaleWakeSlotTests
	$(E2E_ENV) $(SWIFT) test --skip-build --filter PipeWireTests
	$(E2E_ENV) PARAMD_TEST_MAX_SERVERS=1 $(SWIFT) test --skip-build --filter ControlPage
	$(E2E_ENV) PARAMD_TEST_MAX_SERVERS=2 $(SWIFT) test --skip-build --filter MultiHostTests
	$(E2E_ENV) PARAMD_TEST_MAX_SERVERS=2 $(SWIFT) test --skip-build --filter LinkBarLineTests
	$(E2E_ENV) $(SWIFT) test --skip-build --filter 'AccessTests|AccessUDPTests'
	$(E2E_ENV) $(SWIFT) test --skip-build --filter UnitUnderSystemdTests
ifneq ($(PRODUCTS_CONFIG),debug)
	$(E2E_ENV) $(SWIFT) test --skip-build --filter PackageTests
endif

# ThreadSanitizer: paramd built with -sanitize=thread (and -DPARAMD_TSAN, which tells TSan
# about the daemon's one lock type, Support/Locked.swift) runs under the end-to-end suite,
# with the ordinary release paramd-jacktool beside it (the test client is not under test).
# TSan writes each report to a file in .build-tools/tsan; a "WARNING: ThreadSanitizer" in any
# of them fails the run. Two things TSan says that are not paramd's races (DESIGN.md):
# libjack's threads end "with ignores enabled" when a client closes — noted, counted, not a
# failure (exitcode=0 keeps paramd's exit status) — and TSan ends the process when that
# happens on the loss of a server, so the server-loss tests are left out; so are the
# allocation test (its LD_PRELOAD counter and TSan's malloc do not mix), the wake-up counts
# (TSan's runtime thread wakes on its own), the libLO differential test and the systemd sandbox.
# The same end comes at every ordinary stop too, as paramd leaves JACK: what it logs after that
# ("stopped", "left multicast group") never comes, so the two tests that read those lines are
# left out (the NSM save-and-reopen and the multicast default's), and the layout test, which
# reads the shipped binary's symbols, not an instrumented one's. LinkPeerTests runs no paramd
# (only paramd-linkprobe and a Python peer); LinkDaemonTests is the run with Link on.
# LinkBarLineTests measures timing across two servers and needs paramd-linkprobe in the bin
# folder: it runs in `make test`'s multi-host phase, not here.
# PipeWireTests are left out: a thread libpipewire starts inside jack_client_open ends "with
# ignores enabled", and TSan ends paramd there, before it is ready.
# StaleWakeSlotTests is left out: it needs a client's leaving to fall inside paramd's
# jack_client_open, which under TSan's slowdown did not happen once in 40 rounds.
# The suites `make test` runs alone run alone here too (TSAN_ALONE, in its order): the
# multi-host tests take two servers one at a time, and beside another two-server test in two
# slots each can hold one and wait for the other for ever.
# Every phase runs and the reports are read even when a phase's tests fail.
# TSAN_FILTER narrows the run to some suites: `make tsan TSAN_FILTER=LinkDaemonTests`.
TSAN_DIR := $(TOOLS_DIR)/tsan
TSAN_FILTER ?= ParamDaemonTests
TSAN_ALONE := InJackMetadata;BufferSizeTests;StallTests|MIDIOutConnectTests;ControlPage;MultiHostTests;AccessTests|AccessUDPTests
TSAN_BUILD := $(SWIFT) build -c release --scratch-path .build-tsan --sanitize=thread -Xswiftc -DPARAMD_TSAN
TSAN_SKIP := PackageTests|UnitUnderSystemdTests|AllocationTests|PipeWireTests|LinkPeerTests|LinkBarLineTests|AllocationCounterTests|LibloDifferentialTests|WakeupTests|ServerLossTests|afterTheServerWentAway|AudioPathLayoutTests|announceOpenDirtySaveCleanSIGTERMAndTheSavedStateIsTheOneTheNextOpenRestores|aDefaultStartJoinsNoGroupAndBindsOnlyLoopback|StaleWakeSlotTests

tsan: deps $(ALLOC_SHIM)
	$(TEST_BUILD)
	$(RELEASE) --product paramd-jacktool
	$(TSAN_BUILD) --product paramd
	rm -rf $(TSAN_DIR) && mkdir -p $(TSAN_DIR)/bin
	ln -s "$$($(TSAN_BUILD) --show-bin-path)/paramd" $(TSAN_DIR)/bin/paramd
	ln -s "$$($(SWIFT) build -c release --show-bin-path)/paramd-jacktool" $(TSAN_DIR)/bin/paramd-jacktool
	@if [ '$(TSAN_FILTER)' = ParamDaemonTests ]; then \
		phases="ParamDaemonTests;$(TSAN_ALONE)"; else phases='$(TSAN_FILTER)'; fi; \
	failed=''; IFS=';'; for phase in $$phases; do \
		skip='$(TSAN_SKIP)'; servers=2; \
		if [ "$$phase" = ParamDaemonTests ]; then skip="$$skip|$(subst ;,|,$(TSAN_ALONE))"; fi; \
		if [ "$$phase" = InJackMetadata ] || [ "$$phase" = ControlPage ]; then servers=1; fi; \
		echo "== ThreadSanitizer phase: $$phase"; \
		PARAMD_BIN_DIR="$(CURDIR)/$(TSAN_DIR)/bin" PARAMD_ALLOC_SHIM="$(CURDIR)/$(ALLOC_SHIM)" \
		TSAN_OPTIONS="exitcode=0 atexit_sleep_ms=0 log_path=$(CURDIR)/$(TSAN_DIR)/report" PARAMD_TEST_MAX_SERVERS=$$servers \
		$(SWIFT) test --skip-build --filter "$$phase" --skip "$$skip" || failed="$$failed [$$phase]"; \
	done; \
	notes=$$(grep -l "finished with ignores enabled" $(TSAN_DIR)/report.* 2>/dev/null | wc -l); \
	echo "ThreadSanitizer: $$notes note(s) of libjack threads finishing with ignores enabled (not races)"; \
	if grep -l "WARNING: ThreadSanitizer" $(TSAN_DIR)/report.* >/dev/null 2>&1; then \
		echo "ThreadSanitizer reports:"; grep -l "WARNING: ThreadSanitizer" $(TSAN_DIR)/report.* | xargs cat; exit 1; \
	else echo "ThreadSanitizer: no data race or other warning in any report"; fi; \
	if [ -n "$$failed" ]; then echo "tests failed under ThreadSanitizer in phase(s)$$failed"; exit 1; fi

# The fuzzer is ParamCore's sources and Fuzz/PacketFuzzer.swift compiled as one module with
# libFuzzer and AddressSanitizer (whole-module, as Package.swift compiles ParamCore, so the
# @_noLocks checker sees every body). New inputs go to .build-tools/fuzz-corpus, crashes to
# .build-tools/fuzz-crash-*; Fuzz/corpus is the committed seed corpus (read only here).
$(FUZZER): $(FUZZ_SOURCES)
	@mkdir -p $(TOOLS_DIR)
	cd $(TOOLS_DIR) && swiftc -sanitize=fuzzer,address -parse-as-library -swift-version 6 -O -g -wmo \
		-num-threads 2 -use-ld=lld -module-name PacketFuzzer $(addprefix $(CURDIR)/,$(FUZZ_SOURCES)) \
		-o $(CURDIR)/$@

fuzz: $(FUZZER)
	@mkdir -p $(TOOLS_DIR)/fuzz-corpus
	$(FUZZER) -max_total_time=$(FUZZ_SECONDS) -max_len=4096 -timeout=10 -rss_limit_mb=2048 \
		-print_final_stats=1 -artifact_prefix=$(TOOLS_DIR)/fuzz- $(TOOLS_DIR)/fuzz-corpus Fuzz/corpus 2>&1 \
		| grep -v -e '^#[0-9]*.*\(NEW\|REDUCE\)' -e '^\s*"' -e '# Uses:'

soak: deps
	$(RELEASE) --product paramd
	scripts/soak.py --bin "$$($(SWIFT) build -c release --show-bin-path)/paramd" --seconds $(SOAK_SECONDS) --rates "$(SOAK_RATES)" --json $(TOOLS_DIR)/soak.json

run: build
	@scripts/run-paramd.sh --bin "$$($(SWIFT) build -c release --show-bin-path)/paramd" --port $(PORT) -- $(ARGS)

install: build
	@$(MAKE) --no-print-directory install-files

# Copies without building (SystemdUnitTests uses it with the tested binary and temporary folders).
install-files:
	install -d "$(DESTDIR)$(BINDIR)" "$(DESTDIR)$(UNITDIR)"
	install -m 0755 "$(PARAMD_BIN)" "$(DESTDIR)$(BINDIR)/paramd"
	sed 's|^ExecStart=.*|ExecStart=$(BINDIR)/paramd|' systemd/paramd.service > "$(DESTDIR)$(UNITDIR)/paramd.service"
	chmod 0644 "$(DESTDIR)$(UNITDIR)/paramd.service"
	@echo "Installed $(DESTDIR)$(BINDIR)/paramd and $(DESTDIR)$(UNITDIR)/paramd.service. Next:"
	@echo "  systemctl --user daemon-reload && systemctl --user enable --now paramd"
	@echo "  journalctl --user -u paramd -f      # its log; docs/OPERATIONS.md for more"

uninstall:
	@if [ -z "$(DESTDIR)" ] && command -v systemctl >/dev/null 2>&1 && systemctl --user is-system-running >/dev/null 2>&1; then \
		systemctl --user disable --now paramd.service 2>/dev/null || true; \
	fi
	rm -f "$(DESTDIR)$(BINDIR)/paramd" "$(DESTDIR)$(UNITDIR)/paramd.service"
	@if [ -z "$(DESTDIR)" ] && command -v systemctl >/dev/null 2>&1 && systemctl --user is-system-running >/dev/null 2>&1; then \
		systemctl --user daemon-reload || true; \
	fi
	@echo "Removed paramd and its unit. Config and state stay in ~/.config/paramd and ~/.local/state/paramd."

# The Debian package of the release binary `make build` makes (static Swift runtime).
deb: build
	@scripts/build-deb.sh --bin "$(PARAMD_BIN)" --out $(DEB_DIR)

# A separate package, so that neither the main build nor CI pays for the benchmark framework.
bench:
	@mkdir -p $(TOOLS_DIR)
	$(SWIFT) package --package-path Benchmarks benchmark --no-progress | tee $(TOOLS_DIR)/bench.txt
	@# The C kernel renders the same samples as the Swift scenarios it is compared with (1e-5).
	$(SWIFT) build -c release --package-path Benchmarks --product RenderProfile
	Benchmarks/.build/release/RenderProfile --check-ckernel
	Benchmarks/.build/release/RenderProfile --check-cmodulator
	@python3 scripts/bench-table.py < $(TOOLS_DIR)/bench.txt

# Not part of `make test`: it takes minutes and its figures depend on the machine's load.
# It measures the paramd `make build` makes (static, RELEASE_FLAGS) unless BENCH_ARGS names one.
bench-process: deps
	@mkdir -p $(TOOLS_DIR)
	$(RELEASE) --product paramd
	python3 scripts/bench-process.py --paramd "$$($(SWIFT) build -c release --show-bin-path)/paramd" $(BENCH_ARGS) --json $(TOOLS_DIR)/bench-process.json

plots: plots-modulators
	@scripts/plot-curves.sh

# docs/modulators/*.svg from a private dummy jackd, a release paramd and paramd-jacktool record.
plots-modulators: deps
	$(RELEASE) --product paramd
	$(RELEASE) --product paramd-jacktool
	scripts/plot-modulators.py --bin-dir "$$($(SWIFT) build -c release --show-bin-path)" --out docs/modulators

clean:
	$(SWIFT) package clean
	rm -rf Benchmarks/.build
	rm -rf $(TOOLS_DIR) $(DEB_DIR)
