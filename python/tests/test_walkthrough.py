"""The adapter walkthrough of docs/embedding.md: each example script prints what the page shows
(lines shown as "..." stand for any lines; "call_..." for any call id)."""
import importlib.util
import os
import re
import subprocess
import sys

import pytest

from tckpaths import ROOT

DOC = os.path.join(ROOT, "docs", "embedding.md")


def shown_output(script):
    """The output block that follows the fenced commands running ``script`` in the page."""
    text = open(DOC, encoding="utf-8").read()
    lines = text[text.index(script, text.index("## Walkthrough")):].splitlines()
    fences = [i for i, line in enumerate(lines) if line.strip().startswith("```")]
    # fences[0] closes the commands' block; fences[1] and fences[2] enclose the output.
    return [line.strip() for line in lines[fences[1] + 1 : fences[2]] if line.strip()]


@pytest.mark.parametrize("server", ["vllm", "sglang"])
def test_the_example_prints_what_the_walkthrough_shows(server):
    if importlib.util.find_spec(server) is None:
        pytest.skip(f"{server} is not installed (make test-adapters installs it)")
    script = f"Examples/adapters/{server}_stream.py"
    run = subprocess.run([sys.executable, script], cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stderr
    lines = [line for line in run.stdout.splitlines() if line.strip()]
    expected = shown_output(script)
    assert expected and expected[-1].startswith("required: ")
    i = 0
    for want in expected:
        if want == "...":
            continue
        pattern = re.escape(want).replace(re.escape("call_..."), "call_[A-Za-z0-9_-]+")
        while i < len(lines) and not re.fullmatch(pattern, lines[i]):
            i += 1
        assert i < len(lines), f"{script} does not print, in this order: {want}\n{run.stdout}"
        i += 1
