"""The repository's folders and the `toolcall` binary to compare with, for the test modules.

Test modules import these from here rather than from conftest.py, so that no test depends on
which conftest module pytest imported under that name (python/tests/grammar has one too).
"""
import os
import shutil

ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
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
