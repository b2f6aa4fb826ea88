"""Shared by the scaly.viz tests: an isolated recordings directory and JIT cache per
test, and small models whose Python lines the recordings are checked against."""

import inspect
import os

import pytest

import scaly as sc
from scaly import viz
from scaly.viz import recording as viz_recording

from jitutil import PACKAGE_DIR

#: The file traced_body (so make_model's ops) is written in.
MODEL_FILE = os.path.abspath(__file__)


@pytest.fixture(autouse=True)
def isolated(tmp_path, monkeypatch):
    """A private recordings directory and JIT cache; no recordings or marks leak between tests."""
    monkeypatch.setenv("SCALY_VIZ_DIR", str(tmp_path / "viz"))
    monkeypatch.setenv("SCALY_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.delenv("SCALY_CC", raising=False)
    monkeypatch.delenv("SCALY_CC_OPT", raising=False)
    viz.clear_recordings()
    yield tmp_path
    viz.clear_recordings()
    with viz_recording._RECORDING_LOCK:
        viz_recording._VIZ_TARGETS.clear()


def subprocess_env(tmp_path, **extra):
    env = {k: v for k, v in os.environ.items() if not k.startswith("SCALY_")}
    env.update({"PYTHONPATH": PACKAGE_DIR, "SCALY_BUILD_DIR": os.path.join(PACKAGE_DIR, "..", "build"),
                "SCALY_VIZ_DIR": str(tmp_path / "viz"), "SCALY_CACHE_DIR": str(tmp_path / "cache")})
    env.update(extra)
    return env


def traced_body(x, y):
    a = sc.sin(x) * y  # line: sin
    b = a + 1.0  # line: add
    return sc.sumsqr(b)  # line: sumsqr


def line_of(marker):
    """The line number in this file of the line of `traced_body` carrying `marker`."""
    lines, start = inspect.getsourcelines(traced_body)
    (k,) = [i for i, text in enumerate(lines) if f"# line: {marker}" in text]
    return start + k


def make_model(name="model"):
    def body(x, y):
        return traced_body(x, y)
    body.__name__ = name
    return sc.function(sc.L("x", 3), sc.L("y", 3), outputs=sc.L("e", ...))(body)


def make_energy(name="energy"):
    def energy(x):
        return sc.sumsqr(x)
    energy.__name__ = name
    return sc.function(sc.L("x", 3), sc.L("energy", ...))(energy)
