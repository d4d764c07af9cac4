#!/bin/sh
# Builds the fuzz seed corpus from the format fixtures: each fixture prefixed with the fuzz
# header (Sources/ToolCallFuzz/FuzzTarget.swift): the format's index, option flags and a split
# point. Usage: Fuzz/make-corpus.sh FIXTURES_DIR OUT_DIR TOOLCALL_BINARY
set -eu
fixtures=$1
out=$2
mkdir -p "$out"
# The formats and then their model variants, in the order `toolcall formats` lists them (the
# fuzz target's order).
formats=$("$3" formats | cut -f1)
octal() { printf "\\$(printf %03o "$1")"; }
i=0
for f in $formats; do
  for txt in "$fixtures/$f"/*.txt "$fixtures/../fuzz-regressions/$f"/*.txt; do
    [ -f "$txt" ] || continue
    name=$(basename "$txt" .txt)
    size=$(wc -c < "$txt")
    half=$((size / 2))
    # flags 0: plain; 0x23: tools, reasoning, 2-byte chunks; 0x4d: tools, small caps, 3-byte chunks.
    for flags in 0 35 77; do
      { octal $i; octal $flags; octal $((half / 256 % 256)); octal $((half % 256)); cat "$txt"; } \
        > "$out/$f-$name-$flags"
    done
    # The rendering mode (a first byte of 0xC0 or more; 0xC0 + i is format i): the fixture's
    # bytes become the calls' names, keys, values and text.
    { octal $((192 + i)); cat "$txt"; } > "$out/$f-$name-render"
  done
  i=$((i + 1))
done
