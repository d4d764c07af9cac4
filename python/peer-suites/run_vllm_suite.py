"""Runs vLLM's own tool-parser tests against toolcallkit.vllm, for the formats both have.

    python run_vllm_suite.py VLLM_SOURCE_DIR [pytest args...]

VLLM_SOURCE_DIR is an unpacked vLLM source tree of the installed version (for example
`pip download --no-deps --no-binary :all: vllm==<version>` gives the sdist; only its
tests/tool_parsers/ folder is read). The tests are copied to a scratch folder, each test
file's parser class is replaced by ToolCallKitToolParser with the matching format, hub
tokenizers are replaced by the local GPT-2 tokenizer of Fixtures/tokenizers (the tests use a
tokenizer only to cut text into deltas), torch is stubbed, and pytest runs each file.
Nothing of vLLM is kept in this repository. Needs `make test-adapters` (vLLM installed in
.build/venv) and `make lib` or TOOLCALLKIT_LIBRARY.

Expect failures where vLLM's expectation differs from ToolCallKit's contract (text is never
dropped or stripped, malformed arguments are rejected, untyped values keep their JSON type, a
bare JSON object in prose with no tools declared is text) and in tests of vLLM's private
helpers; the summary prints pytest's last line per file.
"""
import os
import re
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.normpath(os.path.join(HERE, "..", ".."))

# test file -> (toolcallkit format, the vLLM parser class the file imports, its module)
SUITES = {
    "test_hermes_tool_parser.py": ("json", "Hermes2ProToolParser", "hermes_tool_parser"),
    "test_llama3_json_tool_parser.py": ("llama3", "Llama3JsonToolParser", "llama_tool_parser"),
    "test_kimi_k2_tool_parser.py": ("kimi_k2", "KimiK2ToolParser", "kimi_k2_tool_parser"),
    "test_functiongemma_tool_parser.py": ("gemma", "FunctionGemmaToolParser", "functiongemma_tool_parser"),
    "test_minimax_m2_tool_parser.py": ("minimax_m2", "MinimaxM2ToolParser", "minimax_m2_tool_parser"),
    "test_lfm2_tool_parser.py": ("lfm2", None, None),  # looks its parser up by name
}

CONFTEST = '''
import os, sys
sys.path.insert(0, {tests!r})
import torch_stub
torch_stub.install()
from transformers import PreTrainedTokenizerFast
def _local_tokenizer(*args, **kwargs):
    t = PreTrainedTokenizerFast(tokenizer_file={tokenizer!r})
    t.name_or_path = "toolcallkit-test"
    return t
import transformers
transformers.AutoTokenizer.from_pretrained = staticmethod(_local_tokenizer)
import vllm.tokenizers
vllm.tokenizers.get_tokenizer = _local_tokenizer
'''

SHIM = '''
import os
from toolcallkit.vllm import ToolCallKitToolParser
def parser_for(fmt, name):
    class Parser(ToolCallKitToolParser):
        def __init__(self, tokenizer, tools=None):
            os.environ["TOOLCALLKIT_FORMAT"] = fmt
            super().__init__(tokenizer, tools)
    Parser.__name__ = name
    return Parser
'''


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    source = os.path.join(sys.argv[1], "tests", "tool_parsers")
    scratch = tempfile.mkdtemp(prefix="vllm-suite-")
    tests = os.path.join(scratch, "tests")
    shutil.copytree(source, os.path.join(tests, "tool_parsers"))
    open(os.path.join(tests, "__init__.py"), "w").close()
    with open(os.path.join(tests, "conftest.py"), "w") as f:
        f.write(CONFTEST.format(tests=os.path.join(ROOT, "python", "tests"),
                                tokenizer=os.path.join(ROOT, "Fixtures", "tokenizers", "gpt2-with-markers.tokenizer.json")))
    with open(os.path.join(tests, "toolcallkit_shim.py"), "w") as f:
        f.write(SHIM)
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([os.path.join(ROOT, "python", "src"), scratch]))
    env.setdefault("TOOLCALLKIT_LIBRARY", os.path.join(ROOT, "dist", "lib", "libtoolcallkit.so"))
    python = os.path.join(ROOT, ".build", "venv", "bin", "python")
    for name, (fmt, cls, module) in SUITES.items():
        path = os.path.join(tests, "tool_parsers", name)
        if not os.path.exists(path):
            print(f"{name}: not in this vLLM version")
            continue
        text = open(path).read()
        shim = f'__import__("tests.toolcallkit_shim", fromlist=["_"]).parser_for("{fmt}", "{cls or "Parser"}")'
        if cls:
            text, n = re.subn(rf"from vllm\.tool_parsers\.{module} import (?:\(\s*{cls},?\s*\)|{cls}\b)", f"{cls} = {shim}", text)
        else:
            text, n = re.subn(r'ToolParserManager\.get_tool_parser\("lfm2"\)', shim, text)
        if not n:
            print(f"{name}: its parser import was not found; skipped")
            continue
        open(path, "w").write(text)
        p = subprocess.run([python, "-m", "pytest", "-q", "-p", "no:cacheprovider", path, *sys.argv[2:]],
                           cwd=scratch, env=env, capture_output=True, text=True)
        last = [l for l in p.stdout.splitlines() if l.strip()][-1:] or ["(no output)"]
        print(f"{name} ({fmt}): {last[0]}")
    shutil.rmtree(scratch)


if __name__ == "__main__":
    main()
