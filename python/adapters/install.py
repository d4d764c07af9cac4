"""Installs vLLM or SGLang for the adapter tests, without their GPU dependencies.

    python install.py VENV_PYTHON vllm|sglang pinned      # the versions in SERVER.txt, exactly
    python install.py VENV_PYTHON vllm|sglang latest      # the newest release
    python install.py VENV_PYTHON vllm|sglang 0.33.0      # a given release
    python install.py VENV_PYTHON vllm|sglang 0.34.1 --write-pins   # ... and record it in SERVER.txt

`pinned` installs every package listed in SERVER.txt (a full `pip freeze`) at its version, with
--no-deps: the same set on every machine, and no resolver run. Otherwise the server goes in
without its dependencies (they include torch, CUDA and kernels, which the parser modules import
but never use: the tests stand torch in with python/tests/torch_stub.py); then the packages
SERVER.in names (what the parser modules import on the way) are installed with pip's resolver,
each at the version the server's own metadata asks for when it names one; the names under
`[no-deps]` go in without their dependencies, since those would pull torch. --write-pins then
records the environment in SERVER.txt.
"""
import json
import os
import re
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))


def pip(python, *args):
    print("+ pip install " + " ".join(args), flush=True)
    subprocess.run([python, "-m", "pip", "install", "-q", "--disable-pip-version-check", "--no-warn-conflicts", *args], check=True)


def read_in(server):
    """SERVER.in: (names installed with their dependencies, names installed without)."""
    with_deps, no_deps = [], []
    target = with_deps
    for line in open(os.path.join(HERE, server + ".in")):
        line = line.split("#")[0].strip()
        if not line:
            continue
        if line == "[no-deps]":
            target = no_deps
            continue
        target.append(line)
    return with_deps, no_deps


def declared(python, server):
    """The server's own requirements (no extras): normalized name -> 'name<spec>'."""
    code = (
        "import json, importlib.metadata as m\n"
        "from packaging.requirements import Requirement\n"
        "out = {}\n"
        f"for r in m.requires({server!r}) or []:\n"
        "    q = Requirement(r)\n"
        "    if q.marker is not None and not q.marker.evaluate({'extra': ''}):\n"
        "        continue\n"
        "    out[q.name.lower().replace('_', '-')] = q.name + str(q.specifier)\n"
        "print(json.dumps(out))\n"
    )
    text = subprocess.run([python, "-c", code], check=True, capture_output=True, text=True).stdout
    return json.loads(text)


def key(name):
    return re.split(r"[<>=!~ ;\[]", name, 1)[0].lower().replace("_", "-")


# The pinned releases (vLLM 0.34, SGLang 0.5.23) need Python 3.11 or later.
MIN_PYTHON = (3, 11)


def check_python(python):
    """Stops with a clear message when the environment's Python is too old for the servers
    (pip would only say that no version of them matches)."""
    out = subprocess.run([python, "-c", "import sys; print(*sys.version_info[:2])"],
                         check=True, capture_output=True, text=True).stdout.split()
    found = tuple(int(x) for x in out)
    if found < MIN_PYTHON:
        sys.exit(f"{python} is Python {found[0]}.{found[1]}; vLLM and SGLang need "
                 f"{MIN_PYTHON[0]}.{MIN_PYTHON[1]} or later: make the environment with a newer python3")


def main():
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    write_pins = "--write-pins" in sys.argv
    if len(args) != 3 or args[1] not in ("vllm", "sglang"):
        sys.exit(__doc__)
    python, server, version = args
    check_python(python)
    pins = os.path.join(HERE, server + ".txt")
    if version == "pinned":
        pip(python, "--no-deps", "-r", pins)
        return
    spec = server if version == "latest" else f"{server}=={version}"
    pip(python, "--no-deps", "--upgrade", spec, "packaging")
    wanted = declared(python, server)
    with_deps, no_deps = read_in(server)
    pick = lambda names: [wanted.get(key(n), n) for n in names]  # noqa: E731
    pip(python, "--no-deps", "--upgrade", *pick(no_deps))
    pip(python, "--upgrade", *pick(with_deps))
    if write_pins:
        frozen = subprocess.run(
            [python, "-m", "pip", "freeze", "--exclude-editable", "--disable-pip-version-check"],
            check=True, capture_output=True, text=True,
        ).stdout
        lines = sorted(l for l in frozen.splitlines() if "==" in l and not l.startswith(("pip==", "setuptools==")))
        installed = subprocess.run([python, "-c", f"import importlib.metadata as m; print(m.version({server!r}))"],
                                   check=True, capture_output=True, text=True).stdout.strip()
        with open(pins, "w") as f:
            f.write(f"# {server} {installed} and what its parser modules import, as `make test-adapters` installs them\n")
            f.write(f"# (with --no-deps). Written by `python python/adapters/install.py PYTHON {server} {installed} --write-pins`.\n")
            f.write("\n".join(lines) + "\n")
        print(f"wrote {pins} ({len(lines)} packages)")


if __name__ == "__main__":
    main()
