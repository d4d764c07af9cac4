"""Deterministic agentic model output: prose with a json-format (Hermes/Qwen) tool call about
every 2 KB. Shared by the Python benchmark and (through --write) the C one."""
import json
import random
import sys

WORDS = (
    "the of and to in is that for it as with was on be by this are or from at an which "
    "file function result value test error build config server request response data "
    "let me check look run read write update list search find open close résumé naïve"
).split()

TOOLS = [
    {"type": "function", "function": {"name": "read_file", "parameters": {
        "type": "object", "properties": {"path": {"type": "string"}, "limit": {"type": "integer"}}}}},
    {"type": "function", "function": {"name": "run_command", "parameters": {
        "type": "object", "properties": {"command": {"type": "string"}, "timeout": {"type": "number"}}}}},
]


def stream(seed: int, calls: int = 3, gap: int = 2048) -> tuple[bytes, int]:
    """One stream: `calls` times (about `gap` bytes of prose, then a call), then prose."""
    rng = random.Random(seed)
    parts = []
    for k in range(calls + 1):
        prose = []
        size = 0
        while size < gap:
            sentence = " ".join(rng.choice(WORDS) for _ in range(rng.randint(6, 16))).capitalize() + ". "
            prose.append(sentence)
            size += len(sentence.encode())
        parts.append("".join(prose))
        if k < calls:
            if rng.random() < 0.5:
                call = {"name": "read_file", "arguments": {"path": f"src/module_{rng.randint(0, 999)}.py", "limit": rng.randint(1, 500)}}
            else:
                call = {"name": "run_command", "arguments": {"command": f"pytest -q tests/test_{rng.randint(0, 99)}.py", "timeout": 30.5}}
            parts.append("<tool_call>\n" + json.dumps(call) + "\n</tool_call>\n")
    return "".join(parts).encode(), calls


if __name__ == "__main__":
    # --write FILE: one stream, for the C benchmark.
    if len(sys.argv) == 3 and sys.argv[1] == "--write":
        data, _ = stream(1, calls=50)
        open(sys.argv[2], "wb").write(data)
