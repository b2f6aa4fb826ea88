"""examples/mpc_quadrotor.py keeps working: a shorter closed loop of the same MPC.

The example's main() asserts as it runs (every QP solved, limits kept, the sparse and the
condensed formulation's first inputs equal to 1e-6); these tests check what it returns.
"""

import importlib.util
from pathlib import Path

import numpy as np
import pytest

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "mpc_quadrotor.py"


def load_example():
    spec = importlib.util.spec_from_file_location("mpc_quadrotor_example", EXAMPLE)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.parametrize("warm_start, steps, pos_tol", [(True, 70, 0.05), (False, 40, 0.3)],
                         ids=["warm-70", "cold-40"])
def test_closed_loop(cache, warm_start, steps, pos_tol):
    ex = load_example()
    out = ex.main(steps=steps, warm_start=warm_start, verbose=False, pos_tol=pos_tol)

    # Sizes: the multiple-shooting QP and the condensed one.
    assert out["sizes"] == {"sparse": (ex.N * (ex.NX + ex.NU), ex.N * ex.NX, 0),
                            "condensed": (ex.N * ex.NU, 0, 2 * ex.N)}
    # The scan's prediction matrices were checked against NumPy.
    assert out["prediction_error"] < 1e-10

    assert len(out["iter_sparse"]) == len(out["iter_dense"]) == steps
    assert np.all(out["iter_sparse"] > 0) and np.all(out["iter_dense"] > 0)
    assert np.all(out["t_solve_sparse"] > 0) and np.all(out["t_solve_dense"] > 0)
    # Same first input from both formulations, at every step.
    assert out["du_diff"].max() < 1e-6
    # Thrust limits kept; tilt within the limit up to the linear model's error on the plant.
    assert out["u"].min() >= ex.U_MIN - 1e-7 and out["u"].max() <= ex.U_MAX + 1e-7
    assert out["max_tilt"] <= ex.TILT_MAX + 0.01
    # Converging: the position error shrank from ~1 m.
    start_err = np.linalg.norm(ex.X0[:3] - ex.X_REF[:3])
    assert start_err > 0.9 and out["pos_err"] < pos_tol
    assert np.all(np.isfinite(out["x"]))


def test_constraints_are_active(cache):
    """The limits matter in this scenario: the thrust limits and the tilt limit are reached
    early, so the agreement above is tested with active constraints."""
    ex = load_example()
    out = ex.main(steps=25, verbose=False)
    u, x = out["u"], out["x"]
    assert np.any(u <= ex.U_MIN + 1e-6) or np.any(u >= ex.U_MAX - 1e-6)
    assert np.abs(x[:, list(ex.TILT)]).max() >= ex.TILT_MAX - 1e-3


def test_in_model_closed_loop(cache):
    """The same MPC with sc.qp inside compiled Functions (sparse: constant matrices, b from
    x0; condensed: the prediction scans and the QP's data built in the Function), each in its
    own closed loop. main_in_model() asserts per step that the solve is 'solved', that u0 is
    the Python QPSolver's to 1e-6 at the same state and that the plan keeps the limits."""
    ex = load_example()
    steps = 70
    out = ex.main_in_model(steps=steps, verbose=False, pos_tol=0.05)
    assert set(out) == {"sparse", "condensed"}
    start_err = np.linalg.norm(ex.X0[:3] - ex.X_REF[:3])
    for name, o in out.items():
        assert len(o["wall"]) == len(o["iter"]) == steps, name
        assert np.all(o["iter"] > 0) and np.all(o["iter"] <= 50), name
        assert np.all(o["t_qp"] > 0) and np.all(o["t_total"] >= o["t_qp"]), name
        assert np.all(o["wall"] >= o["t_total"]), name
        assert o["t_compile"] > 0 and o["t_trace"] > 0, name
        assert o["du_diff"].max() < 1e-6, name
        # The same library from the same data, cold-started both ways: the same iterations
        # on (nearly) every step.
        assert np.mean(o["iter"] == o["iter_ref"]) >= 0.9, name
        u = o["u"]
        assert u.min() >= ex.U_MIN - 1e-7 and u.max() <= ex.U_MAX + 1e-7, name
        assert np.any(u <= ex.U_MIN + 1e-6) or np.any(u >= ex.U_MAX - 1e-6), name  # active
        assert o["max_tilt"] <= ex.TILT_MAX + 0.01, name
        assert start_err > 0.9 and o["pos_err"] < 0.05, name
        assert np.all(np.isfinite(o["x"])), name
