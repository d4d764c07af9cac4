"""The `cli` fixture: runs the `toolcall` binary to compare with (paths: tckpaths.py)."""
import subprocess

import pytest

from tckpaths import FIXTURES, ROOT, toolcall_binary  # noqa: F401 (older imports)


@pytest.fixture(scope="session")
def cli():
    path = toolcall_binary()
    if not path:
        pytest.fail("no toolcall binary: build it (swift build) or set TOOLCALL_BIN")

    def run(args, stdin: bytes):
        p = subprocess.run([path, *args], input=stdin, capture_output=True, timeout=60)
        return p.returncode, p.stdout, p.stderr

    return run
