#!/usr/bin/env bash
# Builds libtck_gbnf.so: llama.cpp's own GBNF parser and matcher (src/llama-grammar.cpp, as
# vendored by the llama-cpp-python source package on PyPI) behind gbnf_bridge.cpp. Only that
# one llama.cpp file is compiled: no model, no ggml. Used by the grammar tests.
# Usage: build_gbnf.sh OUT_DIR PYTHON
set -euo pipefail
HERE="$(cd "$(dirname "$0")" && pwd)"
OUT="$1"
PY="${2:-python3}"
VERSION="${LLAMA_CPP_PYTHON_VERSION:-0.3.36}"
mkdir -p "$OUT"
WORK="$(mktemp -d)"
trap 'rm -rf "$WORK"' EXIT
"$PY" -m pip download --quiet --no-deps --no-binary=llama-cpp-python -d "$WORK" "llama-cpp-python==$VERSION"
tar -xzf "$WORK"/llama_cpp_python-"$VERSION".tar.gz -C "$WORK" \
    --wildcards '*/vendor/llama.cpp/src/*' '*/vendor/llama.cpp/include/*' '*/vendor/llama.cpp/ggml/include/*'
SRC="$WORK/llama_cpp_python-$VERSION/vendor/llama.cpp"
g++ -std=c++17 -O2 -fPIC -shared -w -I"$SRC/src" -I"$SRC/include" -I"$SRC/ggml/include" \
    "$HERE/gbnf_bridge.cpp" "$SRC/src/llama-grammar.cpp" -o "$OUT/libtck_gbnf.so"
echo "built $OUT/libtck_gbnf.so (llama-cpp-python $VERSION)"
