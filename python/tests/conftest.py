"""Shared helpers: the repository's Fixtures/ folder and the `toolcall` binary to compare with."""
import os
import shutil
import subprocess

import pytest

ROOT = os.path.normpath(os.path.join(os.path.dirname(__file__), "..", ".."))
FIXTURES = os.path.join(ROOT, "Fixtures")


def toolcall_binary():
    """TOOLCALL_BIN, else the debug or release build of the checkout."""
    for path in (
        os.environ.get("TOOLCALL_BIN"),
        os.path.join(ROOT, ".build", "debug", "toolcall"),
        os.path.join(ROOT, ".build", "release", "toolcall"),
    ):
        if path and os.path.exists(path):
            return path
    return shutil.which("toolcall")


@pytest.fixture(scope="session")
def cli():
    path = toolcall_binary()
    if not path:
        pytest.fail("no toolcall binary: build it (swift build) or set TOOLCALL_BIN")

    def run(args, stdin: bytes):
        p = subprocess.run([path, *args], input=stdin, capture_output=True, timeout=60)
        return p.returncode, p.stdout, p.stderr

    return run
