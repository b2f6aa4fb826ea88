"""The documentation's examples run as written.

Every ```python block of docs/guide.md, docs/jit.md, docs/lowering-hints.md,
docs/derivatives.md, docs/casadi.md, docs/recipe.md, docs/viz.md, docs/wasm.md and
docs/solvers.md runs in a
fresh process (blocks whose first line is ``# not run`` are skipped). A C or C++ block whose first
line is ``/* tested: <file> */`` is a complete program: the test runs the python block before
it, which writes a module into a ``tempfile`` directory, puts the program next to that module,
builds both with the recipe's flags and runs it. The listings of docs/generated-code.md and
docs/lowering-hints.md must match what the current build prints.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
DOCS = ROOT / "docs"
PACKAGE_DIR = ROOT / "python"
PYTHON = "/usr/bin/python3"
RUN_FILES = ("guide.md", "jit.md", "lowering-hints.md", "derivatives.md", "casadi.md",
             "recipe.md", "viz.md", "wasm.md", "solvers.md")
TESTED = re.compile(r"^/\* tested: ([\w.-]+\.(?:c|cpp)) \*/$")
INCLUDE = re.compile(r'^#include "(\w+)\.(?:h|hpp)"$', re.M)


def fenced_blocks(text):
    """(language, body) of every fenced block that starts at the beginning of a line."""
    blocks, lines, i = [], text.splitlines(), 0
    while i < len(lines):
        m = re.match(r"^```(\S*)\s*$", lines[i])
        if not m or not m.group(1):
            i += 1
            continue
        body = []
        i += 1
        while i < len(lines) and not lines[i].startswith("```"):
            body.append(lines[i])
            i += 1
        blocks.append((m.group(1), "\n".join(body) + "\n"))
        i += 1
    return blocks


def collect():
    """Parameters for the python blocks and for the tested C/C++ programs."""
    python, programs = [], []
    for name in RUN_FILES:
        last_python = None
        count = 0
        for lang, body in fenced_blocks((DOCS / name).read_text()):
            if lang == "python":
                count += 1
                if body.splitlines()[0].strip().startswith("# not run"):
                    continue
                last_python = body
                python.append(pytest.param(body, id=f"{name}:{count}"))
            elif lang in ("c", "cpp"):
                m = TESTED.match(body.splitlines()[0].strip())
                if m:
                    assert last_python, f"{name}: {m.group(1)} has no python block before it"
                    programs.append(pytest.param(last_python, m.group(1), body,
                                                 id=f"{name}:{m.group(1)}"))
    return python, programs


PYTHON_BLOCKS, PROGRAMS = collect()


def run_python(code, tmp_path):
    """Run `code` in a new interpreter with a private cache and temporary directory."""
    tmp = tmp_path / "tmp"
    tmp.mkdir(exist_ok=True)
    env = {k: v for k, v in os.environ.items() if not k.startswith("SCALY_")}
    env.update({"PYTHONPATH": str(PACKAGE_DIR), "SCALY_CACHE_DIR": str(tmp_path / "cache"),
                "TMPDIR": str(tmp)})
    proc = subprocess.run([PYTHON, "-c", code], cwd=tmp_path, env=env, capture_output=True,
                          text=True, timeout=600)
    assert proc.returncode == 0, f"exit code {proc.returncode}\n{proc.stdout}\n{proc.stderr}"
    return tmp


def test_blocks_were_found():
    ids = [p.id for p in PYTHON_BLOCKS]
    for name in RUN_FILES:
        assert any(i.startswith(name + ":") for i in ids), name
    assert {p.id.split(":")[1] for p in PROGRAMS} >= {"rollout_main.c", "rollout_main.cpp",
                                                       "scaled_main.c", "chain_jac_main.c",
                                                       "casadi_main.c"}


@pytest.mark.parametrize("code", PYTHON_BLOCKS)
def test_python_block(code, tmp_path):
    run_python(code, tmp_path)


@pytest.mark.parametrize("setup,filename,program", PROGRAMS)
def test_c_program(setup, filename, program, tmp_path):
    cxx = filename.endswith(".cpp")
    tools = ["gcc", "g++"] if cxx else ["gcc"]
    if any(shutil.which(t) is None for t in tools):
        pytest.skip(f"{' and '.join(tools)} not installed")
    tmp = run_python(setup, tmp_path)
    (module,) = INCLUDE.findall(program)
    headers = list(tmp.rglob(f"{module}.hpp" if cxx else f"{module}.h"))
    assert len(headers) == 1, f"the python block should write one {module} header: {headers}"
    where = headers[0].parent
    (where / filename).write_text(program)
    obj = where / f"{module}_docs.o"
    exe = where / "program"

    def build(cmd):
        proc = subprocess.run(cmd, cwd=where, capture_output=True, text=True)
        assert proc.returncode == 0, f"{' '.join(cmd)}\n{proc.stderr}"

    build(["gcc", "-O3", "-fno-math-errno", "-Wall", "-Wextra", "-Werror", "-c", f"{module}.c",
           "-o", str(obj)])
    if cxx:
        build(["g++", "-std=c++17", "-O2", "-Wall", "-Wextra", "-Werror", filename, str(obj),
               "-lm", "-o", str(exe)])
    else:
        build(["gcc", "-std=c11", "-O2", "-Wall", "-Wextra", "-Werror", filename, str(obj),
               "-lm", "-o", str(exe)])
    proc = subprocess.run([str(exe)], capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, f"{filename} exited with {proc.returncode}\n{proc.stdout}{proc.stderr}"


# -- listings printed in the docs match the current build -----------------------------

def _listings():
    import scaly as sc
    from scaly.codegen import render_c_module

    from models import rollout_model, spilling

    outer = spilling("outer")  # outer -> middle -> inner, whose temporaries spill

    @sc.function(sc.arg("v", 3), outputs=sc.arg("r"))
    def g(v):
        return (v * 2.0).block()

    @sc.function(sc.arg("x", 3), outputs=sc.arg("y"))
    def cc(x):
        return sc.concat([g(x), g(x[::-1])])

    def between(text, start, end):
        return text[text.index(start):text.index(end, text.index(start))]

    rollout = render_c_module(rollout_model(True))
    commented = _run_as_file(_python_block_before("generated-code.md", "/* wave.py:8 */"),
                             "wave.py")["module"].source
    spill = render_c_module(outer).source
    reads = render_c_module(cc).source
    expanded = render_c_module(rollout_model(False)).source

    @sc.function(sc.arg("x", 100, dtype="float32"), outputs=sc.arg("m"))
    def biggest(x):
        return x.max()

    helper = render_c_module(biggest).source
    return {
        "generated-code.md": [
            rollout.source,
            between(spill, "static inline void inner_raw(", "\n#ifdef __cplusplus\n}"),
            between(reads, "  g_raw(arg[0], res[0], NULL);", "  return SCALY_SUCCESS;"),
            between(rollout.header, "#define rollout_SZ_ARG", "typedef struct"),
            between(commented, "  /* wave.py:8 */", "  return SCALY_SUCCESS;"),
            between(helper, "static float scaly_max_f32(", "\n\n"),
        ],
        "lowering-hints.md": [between(expanded, "  for (", "  return SCALY_SUCCESS;")],
    }


def _python_block_before(name, listing_start):
    """The last python block of docs/`name` before the listing that starts with `listing_start`."""
    last = None
    for lang, body in fenced_blocks((DOCS / name).read_text()):
        if lang == "python":
            last = body
        elif body.lstrip().startswith(listing_start):
            return last
    raise AssertionError(f"{name} has no listing starting {listing_start!r}")


def _run_as_file(source, filename):
    """Globals of `source` run from a file called `filename` (its ops' locations name it)."""
    import runpy
    import tempfile
    with tempfile.TemporaryDirectory() as folder:
        path = os.path.join(folder, filename)
        with open(path, "w") as f:
            f.write(source)
        return runpy.run_path(path)


def test_listings_match_the_current_build():
    for name, listings in _listings().items():
        text = (DOCS / name).read_text()
        for listing in listings:
            assert listing.rstrip("\n") in text, f"{name} is out of date; the build prints:\n{listing}"
