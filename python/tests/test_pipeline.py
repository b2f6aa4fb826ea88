"""The lowering pipeline is observable: the IR after every pass, with Python locations."""

import pytest

import scaly as sc
from scaly.codegen import render_c_module

PASSES = ["scaly-roll-call-chains", "scaly-roll-repeats", "scaly-differentiate", "scaly-map-to-loop",
          "scaly-expand-calls", "scaly-simplify", "scaly-drop-unused-results", "cse", "scaly-hoist-invariants",
          "scaly-plan-fusion", "scaly-plan-placement", "scaly-plan-loop-orders",
          "scaly-move-reduced-axes-last", "scaly-form-fused-ops",
          "scaly-lower-to-program", "scaly-accumulate-rows", "scaly-tile-copies",
          "scaly-sum-in-blocks", "scaly-parallel-to-loops",
          "scaly-canonicalize-program", "cse", "loop-invariant-code-motion", "scaly-split-long-procs",
          "scaly-plan-workspace", "scaly-program-to-emitc"]

MODEL = '''
import scaly as sc

@sc.function(sc.arg("x", 100), outputs=sc.arg("y"))
def model(x):
    y = (2 * x).sin()
    return y + 1
'''


def load_model(tmp_path):
    path = tmp_path / "my_model.py"
    path.write_text(MODEL)
    namespace = {}
    exec(compile(MODEL, str(path), "exec"), namespace)
    return namespace["model"], str(path)


def test_every_pass_is_recorded_in_order(tmp_path):
    model, _ = load_model(tmp_path)
    module = render_c_module(model, record_stages=True)
    names = [name for name, _ in module.stages]
    assert names == ["input"] + PASSES
    texts = dict(module.stages[:5])
    assert "expr.func @model" in texts["input"] and "prog." not in texts["input"]
    lowered = dict(module.stages)["scaly-lower-to-program"]
    assert "prog.proc @model" in lowered and "expr." not in lowered
    assert "emitc.func" in module.stages[-1][1]


def test_locations_survive_every_pass(tmp_path):
    model, path = load_model(tmp_path)
    module = render_c_module(model, record_stages=True)
    sin_line, add_line = f"{path}:6:0", f"{path}:7:0"
    for name, text in module.stages[:-1]:
        assert sin_line in text, name
        assert add_line in text, name
    # The scalar sin of the lowered loop carries the line that wrote it.
    lowered = dict(module.stages)["scaly-lower-to-program"]
    sin_op = next(line for line in lowered.splitlines() if "math.sin" in line)
    assert sin_op.rstrip().endswith(sin_line)
    add_op = next(line for line in lowered.splitlines() if "arith.addf" in line)
    assert add_op.rstrip().endswith(add_line)


def test_no_stages_unless_asked():
    @sc.function(sc.arg("x", 3), outputs=sc.arg("y"))
    def f(x):
        return x * 2
    assert render_c_module(f).stages == ()


def test_record_stages_must_be_a_bool():
    @sc.function(sc.arg("x", 3), outputs=sc.arg("y"))
    def f(x):
        return x * 2
    with pytest.raises(ValueError, match="record_stages must be True or False"):
        render_c_module(f, record_stages="yes")


def test_verifying_after_each_pass_changes_nothing(monkeypatch):
    """Renders verify the module once after the lowering pipeline (default) or after
    every pass (SCALY_VERIFY_EACH=1, as the test suite runs): the same C, header and
    line records either way."""
    import numpy as np

    @sc.function(sc.arg("X", (30, 20)), sc.arg("u", 3), outputs=(sc.arg("s"), sc.arg("t")))
    def mixed(X, u):
        return X.sum(axis=0) * u[0], (X.T * 2 - 1).sin()

    jac = sc.jacobian(mixed, "u", of="s")
    rendered = {}
    for setting in ("0", "1"):
        monkeypatch.setenv("SCALY_VERIFY_EACH", setting)
        rendered[setting] = [render_c_module(f) for f in (mixed, jac)]
        rendered[setting].append(render_c_module([mixed, jac], name="both"))
    for off, on in zip(rendered["0"], rendered["1"]):
        assert off.source == on.source and off.header == on.header
        assert off.line_origins == on.line_origins
    # And the fast path's kernel computes what NumPy does.
    monkeypatch.setenv("SCALY_VERIFY_EACH", "0")
    rng = np.random.default_rng(3)
    X, u = rng.standard_normal((30, 20)), rng.standard_normal(3)
    s, t = mixed(X, u)
    np.testing.assert_allclose(s, X.sum(axis=0) * u[0], rtol=1e-13)
    np.testing.assert_allclose(t, np.sin(X.T * 2 - 1), rtol=1e-13)
