# ToolCallKit — `make demo` and `make test` set up a fresh Debian machine and run.
SWIFT ?= swift
SHELL := /bin/bash
SUDO := $(shell [ "$$(id -u)" = 0 ] || echo sudo)
BIN := .build/release/toolcall
# The external conformance and token-id scorers (a developer's own checkout; a clone does not
# need them: `make test` covers the contracts): `make conformance SCORERS=DIR`, where DIR holds
# conformance/run.py and tokens/tokens.py.
SCORERS ?=

.PHONY: all deps build release demo test conformance tokens bench bench-check bench-record fuzz fuzz-large fuzz-build fuzz-dict clean \
	lib python test-embed test-python test-adapters adapters-deps bench-embedding \
	grammar-deps test-grammar grammar-fuzz grammar-bench grammar-compare

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

# The whole test suite (Swift Testing), including the CLI tests on the built binary; then the
# C library, the C example and the Python package (test-embed).
test: deps
	$(SWIFT) build --build-tests
	$(SWIFT) test --skip-build
	@$(MAKE) --no-print-directory test-embed

# --- Embedding: the C library, the Python package, the vLLM and SGLang adapters ------------

SWIFTC ?= swiftc
CC := $(shell command -v cc || command -v clang)
PYTHON ?= python3
VENV := .build/venv
VPY := $(VENV)/bin/python
EMBED := .build/embed
# The shared library: ToolCallKit's objects with the Swift runtime linked in statically, so
# it loads on a machine without a Swift toolchain. SwiftPM's --static-swift-stdlib links only
# executables statically, so the product's objects are linked here (FoundationEssentials
# needs its two helper libraries named). Only the tck_ functions are exported.
# $(1): the build folder (.build/release or .build/debug); $(2): the output file.
define link_lib
	@mkdir -p $(dir $(2))
	@set -o pipefail; $(SWIFTC) -emit-library -static-stdlib -o $(2) \
	  @$(1)/toolcallkit.product/Objects.LinkFileList -lpcre2-8 -l_FoundationCollections -l_FoundationCShims \
	  -Xlinker --gc-sections -Xlinker --no-undefined -Xlinker --strip-all \
	  -Xlinker --version-script=Sources/ToolCallKitC/toolcallkit.map 2>&1 \
	  | { grep -v -e "use of \`mktemp' is dangerous" || true; }
endef

# dist/lib/libtoolcallkit.so and dist/include/toolcallkit.h (release build).
lib: deps
	$(SWIFT) build -c release --product toolcallkit
	$(call link_lib,.build/release,dist/lib/libtoolcallkit.so)
	@mkdir -p dist/include && cp Sources/ToolCallKitC/include/toolcallkit.h dist/include/
	@echo "dist/lib/libtoolcallkit.so ($$(du -h dist/lib/libtoolcallkit.so | cut -f1)), dist/include/toolcallkit.h"

# A virtual environment for the Python tests (python3-venv on Debian when it is missing).
$(VPY):
	@$(PYTHON) -m venv $(VENV) 2>/dev/null || { rm -rf $(VENV); \
	  echo "installing python3-venv"; $(SUDO) apt-get update -qq && \
	  $(SUDO) apt-get install -y -qq python3-venv python3-pip && $(PYTHON) -m venv $(VENV); }

# The wheel: the Python package with the release library inside (dist/toolcallkit-*.whl).
python: lib $(VPY)
	@$(VPY) -c "import build" 2>/dev/null || $(VPY) -m pip install -q build
	@rm -rf python/src/toolcallkit/lib && mkdir -p python/src/toolcallkit/lib
	cp dist/lib/libtoolcallkit.so python/src/toolcallkit/lib/
	$(VPY) -m build --wheel --outdir dist python
	@rm -rf python/src/toolcallkit/lib python/build

# Part of `make test`: the library linked from the debug build (same recipe as `make lib`),
# the C example run against the CLI, then the Python tests; adapter tests only when vLLM or
# SGLang is already installed in the venv (`make test-adapters` installs them).
test-embed: $(VPY)
	$(call link_lib,.build/debug,$(EMBED)/lib/libtoolcallkit.so)
	$(CC) -std=c11 -Wall -Wextra -Werror -I Sources/ToolCallKitC/include Examples/c/stream_events.c \
	  -L $(EMBED)/lib -ltoolcallkit -Wl,-rpath,'$$ORIGIN/lib' -o $(EMBED)/stream_events
	@sh Examples/c/check.sh $(EMBED)/stream_events .build/debug/toolcall
	@$(MAKE) --no-print-directory test-python

test-python: $(VPY) grammar-deps
	@$(VPY) -c "import pytest, jinja2" 2>/dev/null || $(VPY) -m pip install -q pytest "jinja2>=3.1.6"
	TOOLCALLKIT_LIBRARY=$(CURDIR)/$(EMBED)/lib/libtoolcallkit.so TOOLCALL_BIN=$(CURDIR)/.build/debug/toolcall \
	  TOOLCALL_GBNF_LIB=$(CURDIR)/$(GBNF_LIB) GRAMMAR_WALKS=$(GRAMMAR_WALKS) GRAMMAR_TOKENIZERS=gpt2,llama \
	  PYTHONPATH=python/src $(VPY) -m pytest -q -rs python/tests

# --- Grammars (docs/grammar.md): the three constrained-decoding backends, without a model ----
# xgrammar without its dependencies (they pull torch and CUDA; matching never uses them),
# llguidance, and llama.cpp's own GBNF parser built from the llama-cpp-python source package
# (only src/llama-grammar.cpp, about a minute; cached under .build/gbnf).
GBNF_LIB := .build/gbnf/libtck_gbnf.so
GRAMMAR_WALKS ?= 2
GRAMMAR_PY := xgrammar==0.2.9 apache-tvm-ffi==0.1.15.post2 pydantic==2.14.4 numpy==2.4.6 \
  typing_extensions==4.16.0 llguidance==1.9.1
grammar-deps: $(VPY) $(GBNF_LIB)
	@$(VPY) -c "import xgrammar, llguidance, tvm_ffi, pydantic, numpy" 2>/dev/null || { \
	  $(VPY) -m pip install -q --no-deps xgrammar==0.2.9 && \
	  $(VPY) -m pip install -q $(filter-out xgrammar==0.2.9,$(GRAMMAR_PY)); }

$(GBNF_LIB): python/tests/grammar/gbnf_bridge.cpp python/tests/grammar/build_gbnf.sh | $(VPY)
	@command -v g++ >/dev/null || { $(SUDO) apt-get update -qq && $(SUDO) apt-get install -y -qq g++; }
	bash python/tests/grammar/build_gbnf.sh .build/gbnf $(VPY)

# The grammar tests alone (after `swift build`): every format x policy x target, walks, and the
# special tokens of all four tokenizers (in-process through the debug library).
test-grammar: grammar-deps
	$(call link_lib,.build/debug,$(EMBED)/lib/libtoolcallkit.so)
	TOOLCALLKIT_LIBRARY=$(CURDIR)/$(EMBED)/lib/libtoolcallkit.so TOOLCALL_BIN=$(CURDIR)/.build/debug/toolcall \
	  TOOLCALL_GBNF_LIB=$(CURDIR)/$(GBNF_LIB) GRAMMAR_WALKS=$(GRAMMAR_WALKS) GRAMMAR_TOKENIZERS=all \
	  PYTHONPATH=python/src $(VPY) -m pytest -q -rs python/tests/grammar

# Thousands of random walks per format and target, decoded with --validate; prints the
# accept/reject matrix and the walk counts (GRAMMAR_FUZZ_WALKS per format, target and tool set).
GRAMMAR_FUZZ_WALKS ?= 1000
grammar-fuzz: grammar-deps release lib
	TOOLCALL_BIN=$(CURDIR)/$(BIN) TOOLCALL_GBNF_LIB=$(CURDIR)/$(GBNF_LIB) \
	  TOOLCALLKIT_LIBRARY=$(CURDIR)/dist/lib/libtoolcallkit.so PYTHONPATH=python/src \
	  $(VPY) python/tests/grammar/grammar_fuzz.py --walks $(GRAMMAR_FUZZ_WALKS) $(GRAMMAR_FUZZ_FLAGS)

# Export cost (100 tools; the release binary and the library in-process) and compile time in
# each backend, with a byte vocabulary and with GPT-2's.
grammar-bench: grammar-deps release lib
	TOOLCALL_BIN=$(CURDIR)/$(BIN) TOOLCALL_GBNF_LIB=$(CURDIR)/$(GBNF_LIB) \
	  TOOLCALLKIT_LIBRARY=$(CURDIR)/dist/lib/libtoolcallkit.so PYTHONPATH=python/src \
	  $(VPY) python/tests/grammar/grammar_bench.py $(GRAMMAR_BENCH_FLAGS)

# xgrammar's own get_model_structural_tag beside our structural tags, on the same cases: the
# matrix per format (cases x policies) and the summary.
grammar-compare: grammar-deps
	TOOLCALL_BIN=$(CURDIR)/.build/debug/toolcall TOOLCALL_GBNF_LIB=$(CURDIR)/$(GBNF_LIB) \
	  $(VPY) python/tests/grammar/grammar_compare.py

# vLLM and SGLang without their dependencies (torch, CUDA ...), plus the pure-Python packages
# their tool-parser modules import on the way; torch and triton are stubbed by the tests
# (python/tests/torch_stub.py). xgrammar too goes in without its dependencies (it would pull
# torch and CUDA). About 1.5 GB, mostly the vLLM wheel: so `make test` only uses them when
# they are already there.
ADAPTER_DEPS := openai pydantic regex numpy cbor2 psutil pyzmq urllib3 transformers aiohttp \
  requests openai-harmony fastapi pillow pybase64 cachetools prometheus_client msgspec \
  cloudpickle uvloop py-cpuinfo partial-json-parser orjson ipython apache-tvm-ffi
adapters-deps: $(VPY)
	$(VPY) -m pip install -q --no-deps vllm sglang xgrammar
	$(VPY) -m pip install -q $(ADAPTER_DEPS) pytest

test-adapters: adapters-deps
	@$(MAKE) --no-print-directory test-embed

# Throughput and per-call cost of the embedding (Benchmarks/embedding/README.md): the C
# per-call cost (wall time, and instructions under callgrind), the idle decoder (resident
# memory, and heap under dhat), then 1,000 agentic streams through Python, vLLM and SGLang.
bench-embedding: lib adapters-deps
	@mkdir -p $(EMBED)
	$(CC) -O2 -std=c11 -I dist/include Benchmarks/embedding/c_overhead.c -L dist/lib -ltoolcallkit \
	  -Wl,-rpath,'$$ORIGIN/../../dist/lib' -o $(EMBED)/c_overhead
	$(VPY) Benchmarks/embedding/agentic.py --write $(EMBED)/agentic.txt
	$(EMBED)/c_overhead feed $(EMBED)/agentic.txt 4
	$(EMBED)/c_overhead idle 10000
	@command -v valgrind >/dev/null || { $(SUDO) apt-get update -qq && $(SUDO) apt-get install -y -qq valgrind; }
	sh Benchmarks/embedding/counts.sh $(EMBED)/c_overhead $(EMBED)/agentic.txt
	TOOLCALLKIT_LIBRARY=$(CURDIR)/dist/lib/libtoolcallkit.so $(VPY) Benchmarks/embedding/python_streams.py

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

# The dictionary: every format's markers and words, as the formats declare them
# (`toolcall formats --fuzz-dictionary`), then the value words of Fuzz/values.dict.
FUZZ_DICT := fuzz-corpus/toolcall.dict
fuzz-dict: release
	@mkdir -p fuzz-corpus && { .build/release/toolcall formats --fuzz-dictionary; cat Fuzz/values.dict; } > $(FUZZ_DICT)

fuzz: fuzz-build fuzz-dict
	@rm -rf fuzz-corpus/seeds && sh Fuzz/make-corpus.sh Fixtures/formats fuzz-corpus/seeds .build/release/toolcall
	@mkdir -p fuzz-corpus/found fuzz-corpus/artifacts
	SWIFT_BACKTRACE=enable=no $(FUZZ_BIN) -max_total_time=$(FUZZ_SECONDS) -rss_limit_mb=2048 \
	  -max_len=8192 -timeout=20 -dict=$(FUZZ_DICT) -print_final_stats=1 \
	  -artifact_prefix=fuzz-corpus/artifacts/ $(FUZZ_FLAGS) fuzz-corpus/found fuzz-corpus/seeds

# The same fuzzer from large seeds (Fuzz/large-seeds.py: escape-heavy arguments, thousands of
# parameters, near-miss floods, lists of small values, quoted markers, deep nesting; 8-200 KB)
# with a large -max_len, so it reaches the shapes that were once super-linear or unbounded.
# New inputs accumulate in fuzz-corpus/found-large.
FUZZ_LARGE_MAX_LEN ?= 262144
fuzz-large: fuzz-build fuzz-dict
	@rm -rf fuzz-corpus/large-seeds && python3 Fuzz/large-seeds.py fuzz-corpus/large-seeds .build/release/toolcall
	@mkdir -p fuzz-corpus/found-large fuzz-corpus/artifacts
	SWIFT_BACKTRACE=enable=no $(FUZZ_BIN) -max_total_time=$(FUZZ_SECONDS) -rss_limit_mb=4096 \
	  -max_len=$(FUZZ_LARGE_MAX_LEN) -timeout=60 -dict=$(FUZZ_DICT) -print_final_stats=1 \
	  -artifact_prefix=fuzz-corpus/artifacts/ $(FUZZ_FLAGS) fuzz-corpus/found-large fuzz-corpus/large-seeds

clean:
	rm -rf .build dist
