# ToolCallKit — `make demo` and `make test` set up a fresh Debian machine and run.
SWIFT ?= swift
SUDO := $(shell [ "$$(id -u)" = 0 ] || echo sudo)
BIN := .build/release/toolcall
SHARED ?= ../shared

.PHONY: all deps build release demo test conformance tokens bench bench-check bench-record fuzz clean

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

# The shared conformance vectors (needs ../shared, which a user's clone lacks).
conformance: release
	python3 $(SHARED)/conformance/run.py --bin $(BIN) --no-reasoning

# The shared token-id acceptance run, with speed (needs ../shared and Python).
tokens: release
	python3 $(SHARED)/tokens/tokens.py --bin $(BIN) -v --speed

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

clean:
	rm -rf .build
