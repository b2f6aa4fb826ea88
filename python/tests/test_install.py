"""`cmake --install` and the CMake package: an out-of-tree project (examples/embedding) finds an
installed Scaly with find_package(Scaly CONFIG), builds a tool that registers Scaly's dialects
and passes next to upstream ones, and prints C that gcc compiles and that computes what NumPy
does. The install prefix is fresh for each run, and must not lean on the build tree."""

import ctypes
import os
import shutil
import subprocess
from pathlib import Path

import numpy as np
import pytest

REPO = Path(__file__).resolve().parents[2]
BUILD = Path(os.environ.get("SCALY_BUILD_DIR", REPO / "build")).resolve()
EXAMPLE = REPO / "examples" / "embedding"


def run(cmd, **kw):
    done = subprocess.run([str(c) for c in cmd], capture_output=True, text=True, **kw)
    assert done.returncode == 0, f"{cmd} failed:\n{done.stdout}\n{done.stderr}"
    return done.stdout


@pytest.fixture(scope="module")
def prefix(tmp_path_factory):
    if not (BUILD / "build.ninja").exists():
        pytest.skip(f"no CMake build at {BUILD}")
    where = tmp_path_factory.mktemp("scaly-prefix")
    run(["cmake", "--install", BUILD, "--prefix", where])
    return where


def test_install_layout(prefix):
    for tool in ("scaly-opt", "scaly-translate"):
        assert os.access(prefix / "bin" / tool, os.X_OK), tool
    for lib in ("libScalyRegistration.so", "libScalyJIT.so", "libscaly_qp.so", "libscaly_nlp.so"):
        assert (prefix / "lib" / lib).is_file(), lib
    # Public headers with the generated ones beside them, where the sources include them.
    assert (prefix / "include/scaly/InitScaly.h").is_file()
    assert (prefix / "include/scaly/Dialect/Expr/ExprOps.h.inc").is_file()
    assert (prefix / "include/scaly/Dialect/Program/ProgramOps.h.inc").is_file()
    assert (prefix / "include/scaly/Solvers/scaly_qp.h").is_file()
    assert (prefix / "include/scaly/td/Expr/ExprOps.td").is_file()
    package = prefix / "lib/cmake/scaly"
    targets = "".join(p.read_text() for p in package.glob("ScalyTargets*.cmake"))
    assert "Scaly::ScalyRegistration" in targets and "Scaly::scaly-opt" in targets
    # Nothing installed points back into the build or source tree.
    assert str(BUILD) not in targets and str(REPO) not in targets
    dynamic = run(["readelf", "-d", prefix / "bin" / "scaly-opt"])
    assert str(BUILD) not in dynamic and "$ORIGIN/../lib" in dynamic


def test_installed_tool_runs_alone(prefix, tmp_path):
    # The installed scaly-opt lowers a module with the installed libraries only.
    out = run([prefix / "bin" / "scaly-opt", EXAMPLE / "energy.mlir", "--scaly-lower"],
              env={"PATH": "/usr/bin:/bin", "LD_DEBUG": "libs"})
    assert "prog.proc @energy" in out


def test_embedding_consumer(prefix, tmp_path):
    build = tmp_path / "consumer"
    run(["cmake", "-S", EXAMPLE, "-B", build, "-G", "Ninja", f"-DCMAKE_PREFIX_PATH={prefix}"])
    run(["cmake", "--build", build])
    tool = build / "scaly-embed"
    c_text = run([tool, EXAMPLE / "energy.mlir"])
    assert "int energy(const double** arg, double** res" in c_text
    # The libraries it loads are the installed ones.
    libs = run(["ldd", tool])
    scaly_libs = [line for line in libs.splitlines() if "libScaly" in line]
    assert scaly_libs and all(str(prefix) in line for line in scaly_libs), libs

    # The C it printed compiles warning-free and computes sum(x * x).
    (tmp_path / "energy.c").write_text(c_text)
    (tmp_path / "energy.h").write_text(
        "int energy(const double** arg, double** res, int* iw, double* w, int mem);\n")
    so = tmp_path / "libenergy.so"
    run(["gcc", "-O2", "-Wall", "-Wextra", "-Werror", "-shared", "-fPIC", "-o", so,
         tmp_path / "energy.c"], cwd=tmp_path)
    lib = ctypes.CDLL(str(so))
    x = np.array([1.5, -2.0, 0.25])
    e = np.zeros(1)
    dp = ctypes.POINTER(ctypes.c_double)
    arg = (dp * 1)(x.ctypes.data_as(dp))
    res = (dp * 1)(e.ctypes.data_as(dp))
    assert lib.energy(arg, res, None, None, 0) == 0
    assert e[0] == pytest.approx(float(x @ x), rel=1e-15)

    # Another pipeline, from upstream and Scaly's registrations side by side.
    ir = run([tool, EXAMPLE / "energy.mlir", "scaly-lower,symbol-dce,canonicalize"])
    assert "prog.proc @energy" in ir and "arith.mulf" in ir and "expr." not in ir


def test_embedding_consumer_reports_bad_input(prefix, tmp_path):
    build = tmp_path / "consumer"
    run(["cmake", "-S", EXAMPLE, "-B", build, "-G", "Ninja", f"-DCMAKE_PREFIX_PATH={prefix}"])
    run(["cmake", "--build", build])
    bad = subprocess.run([build / "scaly-embed", EXAMPLE / "energy.mlir", "no-such-pass"],
                         capture_output=True, text=True)
    assert bad.returncode != 0 and "no-such-pass" in bad.stderr
