#!/usr/bin/env bash
# Instructions per byte of one workload, measured as README.md (Benchmark) describes it:
# (Ir at --repeat 3 - Ir at --repeat 1) / (2 x bytes), whole program, under callgrind.
# usage: Benchmarks/ir-per-byte.sh WORKLOAD FORMAT CHUNK SIZE
set -euo pipefail
bench=${BENCH:-.build/release/toolcall-bench}
w=$1 f=$2 c=$3 s=$4
ir() {
  valgrind --tool=callgrind --callgrind-out-file=/dev/null "$bench" --workload "$w" --format "$f" \
    --chunk "$c" --size "$s" --repeat "$1" --json 2>&1 >/dev/null | sed -n 's/.*refs: *//p' | tr -d ,
}
bytes=$("$bench" --workload "$w" --format "$f" --chunk "$c" --size "$s" --repeat 1 --json | sed 's/.*"bytes":\([0-9]*\).*/\1/')
i1=$(ir 1)
i3=$(ir 3)
python3 -c "print(f'$w $f chunk=$c bytes=$bytes ir_per_byte={($i3 - $i1) / (2 * $bytes):.2f}')"
