#!/bin/sh
# Deterministic counts for the C interface: instructions per 4-byte tck_feed + tck_events
# (callgrind: two passes minus one, so start-up cancels out) and heap per idle decoder
# (dhat: 1,000 decoders minus none).
# usage: counts.sh C_OVERHEAD_BINARY AGENTIC_TEXT
set -eu
bin=$1
text=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
ir() {
    valgrind --tool=callgrind --callgrind-out-file="$tmp/cg" "$bin" feed "$text" 4 "$1" 2>&1 \
        | sed -n 's/.*I *refs: *//p' | tr -d ,
}
one=$(ir 1)
two=$(ir 2)
calls=$(( ($(wc -c <"$text") + 3) / 4 ))
echo "callgrind: $(( (two - one) / calls )) instructions per 4-byte tck_feed + tck_events ($calls calls per pass)"
heap() {
    valgrind --tool=dhat --dhat-out-file="$tmp/dhat" "$bin" idle "$1" 2>&1 | sed -n "s/.*$2: *\\([0-9,]*\\) bytes in \\([0-9,]*\\) blocks.*/\\1 \\2/p" | tr -d ,
}
set -- $(heap 0 "At t-gmax") $(heap 1000 "At t-gmax") $(heap 0 Total) $(heap 1000 Total)
echo "dhat: an idle decoder holds $(( ($3 - $1) / 1000 )) bytes in $(( ($4 - $2) / 1000 )) blocks; creating one allocates $(( ($7 - $5) / 1000 )) bytes in $(( ($8 - $6) / 1000 )) blocks"
