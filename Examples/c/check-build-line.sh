#!/bin/sh
# Runs the build and run lines of stream_events.c's opening comment exactly as written, from a
# copy of the layout they assume (the repository's root after `make lib`), so the documented
# commands cannot drift from what works.
# usage: check-build-line.sh LIBTOOLCALLKIT_SO
set -eu
lib=$1
root=$(cd "$(dirname "$0")/../.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/dist/lib" "$tmp/dist/include" "$tmp/Examples/c" "$tmp/Fixtures/demo"
cp "$lib" "$tmp/dist/lib/libtoolcallkit.so"
cp "$root/Sources/ToolCallKitC/include/toolcallkit.h" "$tmp/dist/include/"
cp "$root/Examples/c/stream_events.c" "$tmp/Examples/c/"
cp "$root/Fixtures/demo/stream.txt" "$tmp/Fixtures/demo/"
# The indented command lines of the comment (four spaces after " *"), the usage line aside.
sed -n 's/^ \*     //p' "$root/Examples/c/stream_events.c" | { grep -v '^stream_events ' || true; } >"$tmp/lines.sh"
test "$(wc -l <"$tmp/lines.sh")" -eq 2 || { echo "stream_events.c: expected a build and a run line"; cat "$tmp/lines.sh"; exit 1; }
(cd "$tmp" && sh -e lines.sh >out.txt) || { echo "stream_events.c: its build or run line fails as written:"; cat "$tmp/lines.sh"; exit 1; }
grep -q '"type":"tool_call"' "$tmp/out.txt" || { echo "stream_events.c: the run line gave no call"; cat "$tmp/out.txt"; exit 1; }
echo "C example: the build and run lines of its comment work as written"
