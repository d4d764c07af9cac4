#!/bin/bash
# Runs a release `toolcall` on each hostile input (make-inputs.py) under /usr/bin/time -v and
# prints exit status, wall time, peak RSS and stdout size, one line each.
#   usage: Benchmarks/Hostile/measure.sh [TOOLCALL] [INPUTS]
B=$(realpath "${1:-.build/release/toolcall}")
cd "${2:-${TMPDIR:-/tmp}/toolcall-hostile-inputs}" || exit 2
run() {
    local label=$1 in=$2 tmo=$3; shift 3
    /usr/bin/time -v -o time.txt timeout "$tmo" "$B" "$@" < "$in" > out.txt 2> err.txt
    local rc=$?
    printf "%-22s exit %-3s %9s s %9s KB  stdout %10s B  %s\n" "$label" "$rc" \
        "$(grep 'Elapsed (wall' time.txt | awk '{print $NF}')" "$(grep 'Maximum resident' time.txt | awk '{print $NF}')" \
        "$(stat -c %s out.txt)" "$(head -c 160 err.txt | tr '\n' ' ')"
    rm -f time.txt out.txt err.txt
}
run tokenizer-id-1e8   ids.txt 120 decode --format json --input tokens --tokenizer tok100000000.json
run tokenizer-id-1e10  ids.txt 120 decode --format json --input tokens --tokenizer tok10000000000.json
run ref-chain-3500     call-a.txt 120 decode --format json --tools refchain.json --validate
run enum-250x40k       enum250.txt 120 decode --format json --tools enum250.json --validate
run enum-10kx10k       enum10k.txt 120 decode --format json --tools enum10k.json --validate
run anyof-20           call-a-short.txt 120 decode --format json --tools anyOf20.json --validate
run allof-25           call-a-short.txt 120 decode --format json --tools allOf25.json --validate
run pattern-100k       pattern.txt 120 decode --format json --tools pattern.json --validate
run required-10k       call-empty.txt 120 decode --format json --tools required10000.json --validate
run required-40k       call-empty.txt 120 decode --format json --tools required40000.json --validate
run required-100k      call-empty.txt 120 decode --format json --tools required100000.json --validate
run infer-fifo         /dev/null 10 infer m-fifo
run infer-dev-zero     /dev/null 30 infer m-zero
run infer-200MB        /dev/null 120 infer m-big
run infer-1500-spaces  /dev/null 60 infer m-spaces
run infer-1MB-after    /dev/null 60 infer m-after
