"""Hock-Schittkowski problems (hsproblems.py) solved by both NLP backends inside traced Functions.

Each problem is one Function that solves it twice, with IPOPT and with Scaly SQP, from the
published start. References are the collection's published optimal values (relative 1e-6) and
an independent check in NumPy/`math` of the returned point: feasibility, and the KKT
stationarity grad f + J'lam_g + lam_x = 0 with f and g differentiated by central differences.

A few problems reach another local point from x0 with one backend (both answers are local
solutions the methods may legitimately find, or a stall of SQP's convexified model at a
degenerate point); those are listed in LOCAL and docs/solvers.md, and for them only a clear
status and a finite iterate are required.
"""

import math

import numpy as np
import pytest

import scaly as sc
from hsproblems import PROBLEMS
from qpmodelutil import private_cache  # noqa: F401  (module fixture)

SOLVERS = ("ipopt", "sqp")
LOCAL = {"ipopt": {44, 57, 108}, "sqp": {33, 97, 108, 114}}
_RESULTS = {}


def _function(pb):
    def solve(x0):
        outs = []
        for solver in SOLVERS:
            outs += sc.nlp(lambda x: pb.f(x, sc), (lambda x: pb.g(x, sc)) if pb.g else None,
                           x0=x0, lbx=np.array(pb.lbx), ubx=np.array(pb.ubx),
                           lbg=np.array(pb.lbg) if pb.g else None,
                           ubg=np.array(pb.ubg) if pb.g else None, solver=solver)
        return tuple(outs)

    solve.__name__ = f"hs{pb.number:03d}"
    names = [f"{w}_{s}" for s in SOLVERS for w in ("x", "lam_g", "lam_x")]
    return sc.function(sc.arg("x0", pb.n), outputs=[sc.arg(n) for n in names])(solve)


def _solved(pb):
    """{solver: (x, lam_g, lam_x, stats)} of problem `pb`, solved once per test module."""
    if pb.number not in _RESULTS:
        F = _function(pb)
        out = F(np.array(pb.x0, float))
        stats = {st["solver"]: st for st in F.stats().values()}
        _RESULTS[pb.number] = {s: (*out[3 * k:3 * k + 3], stats[s])
                               for k, s in enumerate(SOLVERS)}
    return _RESULTS[pb.number]


def _values(pb, x):
    xs = [float(v) for v in x]
    g = np.array(pb.g(xs, math) if pb.g else [], float)
    return pb.f(xs, math), g


def _stationarity(pb, x, lam_g, lam_x):
    """|| grad f + J'lam_g + lam_x ||_inf by central differences."""
    n, h = pb.n, 1e-6
    grad = np.zeros(n)
    jac = np.zeros((len(pb.lbg), n))
    for j in range(n):
        e = np.zeros(n)
        e[j] = h * max(1.0, abs(x[j]))
        fp, gp = _values(pb, x + e)
        fm, gm = _values(pb, x - e)
        grad[j] = (fp - fm) / (2 * e[j])
        if len(pb.lbg):
            jac[:, j] = (gp - gm) / (2 * e[j])
    r = grad + jac.T @ lam_g + lam_x
    return np.abs(r).max() / max(1.0, np.abs(grad).max(), np.abs(lam_g).max(initial=0.0))


@pytest.mark.parametrize("solver", SOLVERS)
@pytest.mark.parametrize("pb", PROBLEMS, ids=lambda pb: f"hs{pb.number:03d}")
def test_hock_schittkowski(private_cache, pb, solver):  # noqa: F811
    x, lam_g, lam_x, stats = _solved(pb)[solver]
    assert stats["native_status"] in (("Solve_Succeeded", "Solved_To_Acceptable_Level")
                                      if solver == "ipopt" else ("solved", "acceptable")) \
        or pb.number in LOCAL[solver], stats
    assert np.isfinite(x).all()
    if pb.number in LOCAL[solver]:
        assert stats["status"] in ("solved", "acceptable", "max_iter", "numerics")
        return
    assert stats["status"] == "solved"
    f, g = _values(pb, x)
    assert abs(f - pb.f_star) <= 1e-6 * max(1.0, abs(pb.f_star)), (f, pb.f_star)
    lbg, ubg = np.array(pb.lbg), np.array(pb.ubg)
    # IPOPT stops within its constr_viol_tol (1e-4, unscaled) by default; SQP within 1e-8.
    slack = (1e-4 if solver == "ipopt" else 1e-6) * (1 + np.minimum(np.abs(lbg), np.abs(ubg)))
    assert (g >= lbg - slack).all() and (g <= ubg + slack).all()
    assert (x >= np.array(pb.lbx) - 1e-7).all() and (x <= np.array(pb.ubx) + 1e-7).all()
    assert _stationarity(pb, x, lam_g, lam_x) < 1e-4
    assert stats["iter"] >= 1 or pb.number in (28, 48, 51)  # linear problems end at once
    assert stats["n_eval_f"] >= 1 and stats["n_eval_grad_f"] >= 1


def test_both_backends_solve_most_of_the_collection(private_cache):  # noqa: F811
    """The issue's bar: at least 40 problems solved by both backends to 1e-6."""
    both = [pb.number for pb in PROBLEMS
            if all(pb.number not in LOCAL[s] for s in SOLVERS)]
    assert len(both) >= 40 and len(PROBLEMS) >= 48
