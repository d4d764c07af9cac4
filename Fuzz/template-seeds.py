#!/usr/bin/env python3
"""Seeds for the fuzzer's response-template mode (Sources/ToolCallFuzz/FuzzTarget.swift,
TemplateFuzz): every case of Fixtures/response_templates/cases.json under its template's index
(the templates' file names, sorted), plain, with a prompt and with a small cap; then generated
templates (a selector byte of 0xC0 or more and eight choice bytes) over outputs made of their
anchor samples (bytes 0xF0-0xFF).

usage: template-seeds.py OUT_DIR
"""
import json, os, sys

HERE = os.path.dirname(os.path.abspath(__file__))
FIXTURES = os.path.join(HERE, "..", "Fixtures", "response_templates")


def main():
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    names = sorted(n for n in os.listdir(os.path.join(FIXTURES, "templates")) if n.endswith(".json"))
    cases = json.load(open(os.path.join(FIXTURES, "cases.json")))
    n = 0
    for case in cases:
        j = names.index(case["template"])
        data = case["input"].encode()
        half = len(data) // 2
        for flags in (0, 4, 2 | 1):
            header = bytes([0xB0 | flags, j, half >> 8 & 255, half & 255])
            with open(os.path.join(out, f"template-{n:04d}"), "wb") as f:
                f.write(header + data)
            n += 1
    # Generated templates: each choice byte walks the anchor pools; payloads mix samples and text.
    for k in range(64):
        choices = bytes([(k * 7 + i * 13) % 256 for i in range(8)])
        payload = bytes([0xF0 + (k + i) % 16 if i % 3 == 0 else 0x61 + (k * i) % 26 for i in range(48)])
        header = bytes([0xB0 | (k % 8), 0xC0 + k % 64, 0, 1 + k % 7])
        with open(os.path.join(out, f"template-gen-{k:02d}"), "wb") as f:
            f.write(header + choices + payload)
        n += 1
    print(f"{n} template seeds in {out}")


if __name__ == "__main__":
    main()
