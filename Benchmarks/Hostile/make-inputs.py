#!/usr/bin/env python3
"""Writes the hostile inputs of the bounded-cost checks into a folder (default: $TMPDIR/toolcall-hostile-inputs).

Each is a shape that once crashed, hung or ran super-linearly: a tokenizer.json with a huge added
id, a $ref chain of 3,500 links, enum/anyOf/allOf/pattern/required schemas that multiplied work,
and model folders with a FIFO, a device, a 200 MB config.json and templates that defeated
backtracking signatures. `measure.sh` runs the release `toolcall` on each under /usr/bin/time.
"""
import json, os, sys

out = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.environ.get("TMPDIR", "/tmp"), "toolcall-hostile-inputs")
os.makedirs(out, exist_ok=True)
os.chdir(out)

def write(name, obj):
    with open(name, "w") as f:
        json.dump(obj, f)

def tools(params):
    return [{"type": "function", "function": {"name": "f", "parameters": params}}]

def call(args):
    return '<tool_call>{"name": "f", "arguments": %s}</tool_call>' % json.dumps(args)

# Tokenizer: one added token with a huge id.
for n in (10**8, 10**10):
    write(f"tok{n}.json", {"model": {"type": "BPE", "vocab": {"a": 0}},
                           "added_tokens": [{"id": n, "content": "<x>", "special": True}]})
open("ids.txt", "w").write("0\n")

# A $ref chain of 3,500 links.
n = 3500
defs = {f"d{i}": {"$ref": f"#/$defs/d{i + 1}"} for i in range(n)}
defs[f"d{n}"] = {"type": "string"}
write("refchain.json", tools({"$defs": defs, "type": "object", "properties": {"a": {"$ref": "#/$defs/d0"}}}))
open("call-a.txt", "w").write(call({"a": "x"}))

# enum: every item fails, and each violation once quoted the whole enum.
def enum_case(values, items, tag):
    vals = [f"value-{i:05d}" for i in range(values)]
    write(f"enum{tag}.json", tools({"type": "object", "properties": {"a": {"type": "array", "items": {"enum": vals}}}}))
    open(f"enum{tag}.txt", "w").write(call({"a": ["nope"] * items}))
enum_case(250, 40000, "250")
enum_case(10000, 10000, "10k")

# anyOf / allOf over a shared $ref: 2^depth paths.
def shared(keyword, depth):
    defs = {f"d{i}": {keyword: [{"$ref": f"#/$defs/d{i + 1}"}, {"$ref": f"#/$defs/d{i + 1}"}]} for i in range(depth)}
    defs[f"d{depth}"] = {"type": "string", "minLength": 5}
    write(f"{keyword}{depth}.json", tools({"$defs": defs, "type": "object", "properties": {"a": {"$ref": "#/$defs/d0"}}}))
shared("anyOf", 20)
shared("allOf", 25)
open("call-a-short.txt", "w").write(call({"a": "abc"}))

# 100,000 items of a catastrophic pattern.
write("pattern.json", tools({"type": "object", "properties": {"a": {"type": "array", "items": {"type": "string", "pattern": "^(a+)+$"}}}}))
open("pattern.txt", "w").write(call({"a": ["a" * 30 + "b"] * 100000}))

# required with many names.
for k in (10000, 40000, 100000):
    props = {f"p{i}": {"type": "integer"} for i in range(k)}
    write(f"required{k}.json", tools({"type": "object", "properties": props, "required": list(props)}))
open("call-empty.txt", "w").write(call({}))

# Model folders.
os.makedirs("m-big", exist_ok=True)
with open("m-big/config.json", "w") as f:
    f.write('{"model_type": "qwen3", "pad": [' + ",".join(["1"] * 100_000_000) + "]}")
os.makedirs("m-fifo", exist_ok=True)
if not os.path.exists("m-fifo/config.json"):
    os.mkfifo("m-fifo/config.json")
os.makedirs("m-zero", exist_ok=True)
if not os.path.lexists("m-zero/config.json"):
    os.symlink("/dev/zero", "m-zero/config.json")
os.makedirs("m-spaces", exist_ok=True)
open("m-spaces/chat_template.jinja", "w").write("<tool_call>" + " " * 1500 + "<function=x>")
os.makedirs("m-after", exist_ok=True)
write("m-after/tokenizer_config.json", {"chat_template": "<function=x><parameter=a>" + "y" * 1_000_000})
