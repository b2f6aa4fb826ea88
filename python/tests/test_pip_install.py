"""`pip install --no-build-isolation .` into a venv made with --system-site-packages (Debian's pip,
setuptools and wheel, no package index): the installed scaly imports from any directory with no
PYTHONPATH, carries its own libraries and solver headers, compiles and runs a model and a QP
solve through the JIT, and installs the scaly_viz command."""

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
BUILD = Path(os.environ.get("SCALY_BUILD_DIR", REPO / "build")).resolve()

CHECK = textwrap.dedent("""
    import json, numpy as np, scaly as sc, scaly._scaly as ext
    from scaly.solvers._native import native_paths

    @sc.function(sc.arg("x", 3), outputs=sc.arg("e"))
    def energy(x):
        return sc.sumsqr(x) + sc.sin(x).sum()

    P = np.array([[4.0, 1.0], [1.0, 2.0]]); A = np.array([[1.0, 1.0]])

    @sc.function(sc.arg("c", 2), sc.arg("u", ()), outputs=sc.arg("x"))
    def allocate(c, u):
        x, y, z, z_box = sc.qp(P, c, A=A, b=sc.stack([u]), x_l=np.zeros(2), x_u=np.ones(2))
        return x

    x = np.array([0.5, -1.0, 2.0])
    print(json.dumps({"package": sc.__file__, "extension": ext.__file__,
                      "native": native_paths(), "energy": float(energy(x)),
                      "qp": allocate(np.ones(2), 1.0).tolist(),
                      "status": allocate.stats()["status"]}))
""")


def run(cmd, **kw):
    done = subprocess.run([str(c) for c in cmd], capture_output=True, text=True, **kw)
    assert done.returncode == 0, f"{cmd} failed:\n{done.stdout[-3000:]}\n{done.stderr[-3000:]}"
    return done.stdout


@pytest.fixture(scope="module")
def venv(tmp_path_factory):
    if not (BUILD / "build.ninja").exists():
        pytest.skip(f"no CMake build at {BUILD}")
    where = tmp_path_factory.mktemp("venv")
    run(["/usr/bin/python3", "-m", "venv", "--system-site-packages", where])
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    env["SCALY_BUILD_DIR"] = str(BUILD)
    run([where / "bin" / "pip", "install", "--no-build-isolation", "--no-index", "--quiet",
         REPO], env=env, cwd=where)
    return where


def test_installed_package_works_from_anywhere(venv, tmp_path):
    import json
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTHONPATH", "SCALY_"))}
    env["SCALY_CACHE_DIR"] = str(tmp_path / "cache")
    out = json.loads(run([venv / "bin" / "python", "-c", CHECK], env=env,
                         cwd=tmp_path).splitlines()[-1])
    site = str(venv / "lib")
    assert out["package"].startswith(site) and out["extension"].startswith(site)
    # Solver libraries and headers from inside the package, not from the build tree.
    for key in ("scaly_qp", "scaly_nlp", "include"):
        assert out["native"][key].startswith(site), out["native"]
        assert os.path.exists(out["native"][key])
    import numpy as np
    x = np.array([0.5, -1.0, 2.0])
    assert out["energy"] == pytest.approx(float(x @ x + np.sin(x).sum()), rel=1e-14)
    assert out["status"] == "solved"
    assert np.allclose(out["qp"], [0.25, 0.75], atol=1e-7)


def test_installed_libraries_do_not_point_at_the_build(venv):
    package = next((venv / "lib").glob("python3*/site-packages/scaly"))
    libraries = [next(package.glob("_scaly*.so"))] + sorted((package / "lib").glob("*.so"))
    assert len(libraries) >= 10
    for lib in libraries:
        dynamic = run(["readelf", "-d", lib])
        assert str(BUILD) not in dynamic and "$ORIGIN" in dynamic, lib
    loaded = run(["ldd", libraries[0]])
    scaly_lines = [line for line in loaded.splitlines() if "libScaly" in line]
    assert scaly_lines and all(str(package) in line for line in scaly_lines), loaded


def test_scaly_viz_console_script(venv, tmp_path):
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    out = run([venv / "bin" / "scaly_viz", "--help"], env=env, cwd=tmp_path)
    assert "usage: scaly_viz" in out and "--browser" in out
