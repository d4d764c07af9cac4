# ToolCallKit — `make demo` and `make test` set up a fresh Debian machine and run.
SWIFT ?= swift
SHELL := /bin/bash
SUDO := $(shell [ "$$(id -u)" = 0 ] || echo sudo)
BIN := .build/release/toolcall
# The external conformance and token-id scorers (a developer's own checkout; a clone does not
# need them: `make test` covers the contracts): `make conformance SCORERS=DIR`, where DIR holds
# conformance/run.py and tokens/tokens.py.
SCORERS ?=

.PHONY: all deps build release demo test conformance tokens bench bench-check bench-record fuzz fuzz-large fuzz-build clean

all: build

# libpcre2-dev is the one system dependency; install it only when it is missing.
deps:
	@dpkg -s libpcre2-dev >/dev/null 2>&1 || { \
	  echo "installing libpcre2-dev"; \
	  $(SUDO) apt-get update -qq && $(SUDO) apt-get install -y -qq libpcre2-dev pkg-config; }

build: deps
	$(SWIFT) build

release: deps
	$(SWIFT) build -c release

# Decode a bundled stream: prose, a reasoning-free json-format answer with two calls.
demo: release
	@echo '$$ toolcall decode --format json --id-seed 42 < Fixtures/demo/stream.txt'
	@$(BIN) decode --format json --id-seed 42 < Fixtures/demo/stream.txt

# The whole test suite (Swift Testing), including the CLI tests on the built binary.
test: deps
	$(SWIFT) build --build-tests
	$(SWIFT) test --skip-build

# The conformance scorer on the release binary (needs SCORERS=DIR, see above).
conformance: release
	@test -n "$(SCORERS)" || { echo "make conformance needs SCORERS=DIR (a folder with conformance/run.py)"; exit 2; }
	python3 $(SCORERS)/conformance/run.py --bin $(BIN) --no-reasoning

# The token-id acceptance run, with speed (needs SCORERS=DIR and Python).
tokens: release
	@test -n "$(SCORERS)" || { echo "make tokens needs SCORERS=DIR (a folder with tokens/tokens.py)"; exit 2; }
	python3 $(SCORERS)/tokens/tokens.py --bin $(BIN) -v --speed

# Throughput table for every workload, format and chunk size (wall time: varies by machine).
bench: release
	.build/release/toolcall-bench --workload all --format all --size 1000000 --repeat 3

# Deterministic counts (callgrind instructions per byte, dhat allocations) against the
# committed thresholds in Benchmarks/Thresholds/; fails on a regression of more than 10 %.
bench-check: release
	@command -v valgrind >/dev/null || { $(SUDO) apt-get update -qq && $(SUDO) apt-get install -y -qq valgrind; }
	python3 Benchmarks/bench_check.py --check

# Re-measure and rewrite the thresholds (after an intended change; commit the file).
bench-record: release
	python3 Benchmarks/bench_check.py --record

# libFuzzer: every format, the decoder's invariants checked in the fuzz body. The fuzz target has
# no `main` (libFuzzer supplies it), so it is built alone, with `--product`.
# Built in its own scratch folder so the sanitized build does not displace the release build.
# `--sanitize fuzzer --sanitize address` gave a build without coverage instrumentation here
# (SwiftPM passes two `-sanitize=` flags; the objects had ASan but no coverage); `-Xswiftc
# -sanitize=fuzzer,address` alone instruments but links SwiftPM's renamed `main`. So:
# `--sanitize fuzzer` for the link, one combined flag for the compiler.
# Exits non-zero when it finds a crash, a failed invariant, a hang or a memory blow-up; the
# input is saved in fuzz-corpus/artifacts/. Seeds come from Fixtures/formats and
# Fixtures/fuzz-regressions; new inputs accumulate in fuzz-corpus/found (gitignored).
FUZZ_SECONDS ?= 60
FUZZ_SCRATCH := .build/fuzz
FUZZ_BIN := $(FUZZ_SCRATCH)/release/ToolCallFuzz
FUZZ_FLAGS ?=

fuzz-build: deps
	@set -o pipefail; $(SWIFT) build -c release --scratch-path $(FUZZ_SCRATCH) \
	  --sanitize fuzzer -Xswiftc -sanitize=fuzzer,address --product ToolCallFuzz 2>&1 \
	  | { grep -v -e "Cannot export local symbol '__asan" -e "^$$" || true; }

fuzz: fuzz-build
	@rm -rf fuzz-corpus/seeds && sh Fuzz/make-corpus.sh Fixtures/formats fuzz-corpus/seeds
	@mkdir -p fuzz-corpus/found fuzz-corpus/artifacts
	SWIFT_BACKTRACE=enable=no $(FUZZ_BIN) -max_total_time=$(FUZZ_SECONDS) -rss_limit_mb=2048 \
	  -max_len=8192 -timeout=20 -dict=Fuzz/toolcall.dict -print_final_stats=1 \
	  -artifact_prefix=fuzz-corpus/artifacts/ $(FUZZ_FLAGS) fuzz-corpus/found fuzz-corpus/seeds

# The same fuzzer from large seeds (Fuzz/large-seeds.py: escape-heavy arguments, thousands of
# parameters, near-miss floods, lists of small values, quoted markers, deep nesting; 8-200 KB)
# with a large -max_len, so it reaches the shapes that were once super-linear or unbounded.
# New inputs accumulate in fuzz-corpus/found-large.
FUZZ_LARGE_MAX_LEN ?= 262144
fuzz-large: fuzz-build
	@rm -rf fuzz-corpus/large-seeds && python3 Fuzz/large-seeds.py fuzz-corpus/large-seeds
	@mkdir -p fuzz-corpus/found-large fuzz-corpus/artifacts
	SWIFT_BACKTRACE=enable=no $(FUZZ_BIN) -max_total_time=$(FUZZ_SECONDS) -rss_limit_mb=4096 \
	  -max_len=$(FUZZ_LARGE_MAX_LEN) -timeout=60 -dict=Fuzz/toolcall.dict -print_final_stats=1 \
	  -artifact_prefix=fuzz-corpus/artifacts/ $(FUZZ_FLAGS) fuzz-corpus/found-large fuzz-corpus/large-seeds

clean:
	rm -rf .build
