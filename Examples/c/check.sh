#!/bin/sh
# Runs the C example on bundled model outputs and compares its lines with `toolcall decode`
# for the same options: they must be byte for byte equal, whatever the chunk size.
# usage: check.sh STREAM_EVENTS_BINARY TOOLCALL_BINARY
set -eu
example=$1
cli=$2
root=$(cd "$(dirname "$0")/../.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cases=0
# config JSON | CLI flags | input file | chunk bytes
while IFS='|' read -r config flags file chunk; do
    [ -z "$config" ] && continue
    "$example" "$config" "$root/$file" "$chunk" >"$tmp/c.out" 2>"$tmp/c.err"
    # shellcheck disable=SC2086
    "$cli" decode $flags --chunk-bytes "$chunk" <"$root/$file" >"$tmp/cli.out" 2>"$tmp/cli.err"
    # OpenAI chunks carry the creation time in seconds: the two runs may straddle a second.
    for f in c.out cli.out; do sed -i 's/"created":[0-9]*/"created":0/' "$tmp/$f"; done
    if ! cmp -s "$tmp/c.out" "$tmp/cli.out" || ! cmp -s "$tmp/c.err" "$tmp/cli.err"; then
        echo "C example differs from toolcall decode $flags < $file (chunks of $chunk):"
        diff "$tmp/cli.out" "$tmp/c.out" | head -20
        diff "$tmp/cli.err" "$tmp/c.err" | head -20
        exit 1
    fi
    cases=$((cases + 1))
done <<CASES
{"format":"json","id_seed":42}|--format json --id-seed 42|Fixtures/demo/stream.txt|5
{"format":"json","id_seed":42,"raw":true}|--format json --id-seed 42 --raw|Fixtures/demo/stream.txt|1
{"format":"json","id_seed":7,"output":"openai"}|--format json --id-seed 7 --output openai|Fixtures/demo/stream.txt|3
{"format":"json","id_seed":1,"tools":$(cat "$root/Fixtures/cli/tools.json" | tr -d '\n')}|--format json --id-seed 1 --tools $root/Fixtures/cli/tools.json|Fixtures/demo/stream.txt|4
{"format":"mistral","id_seed":3,"raw":true}|--format mistral --id-seed 3 --raw|Fixtures/formats/mistral/$(ls "$root/Fixtures/formats/mistral" | grep '\.txt$' | head -1)|2
{"format":"json","id_seed":8,"whole_calls":true,"max_call_bytes":40}|--format json --id-seed 8 --whole-calls --max-call-bytes 40|Fixtures/demo/stream.txt|3
{"format":"json","id_seed":8,"whole_calls":true,"output":"openai"}|--format json --id-seed 8 --whole-calls --output openai|Fixtures/demo/stream.txt|6
{"format":"kimi_k2","id_seed":5}|--format kimi_k2 --id-seed 5|Fixtures/formats/kimi_k2/$(ls "$root/Fixtures/formats/kimi_k2" | grep '\.txt$' | head -1)|7
CASES
echo "C example: $cases cases equal to toolcall decode"
"$example" '{"format":"json","id_seed":42}' "$root/Fixtures/demo/stream.txt" 16
