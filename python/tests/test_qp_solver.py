"""The QP solver (scaly.solvers.solve_qp / QPSolver) at its edges: options, bad data,
non-convex P, robustness, results and statistics (warm starts and updates:
test_qp_updates.py).

Solutions are checked from x, y, z and z_box alone with qputil's NumPy KKT check; the
helpers and problem makers are shared with test_qp.py.
"""

import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest
import scipy.sparse as sp

from scaly.solvers import QPSolver, solve_qp
from qputil import (infeasible_dual_cases, infeasible_primal_cases, BACKENDS, INF, TIGHT,
                    STATUS_CODES, OPTION_NAMES, STATS_FIELDS, random_qp, solve, names, assert_kkt,
                    qp_solver)


# -- options -------------------------------------------------------------------------------

# The unconstrained optimum (-0.5, 1) violates x1 + x2 <= 0.2: the row is strictly active.
SMALL = dict(P=np.diag([2.0, 1.0]), c=np.array([1.0, -1.0]), G=np.array([[1.0, 1.0]]),
             h_l=np.array([-1.0]), h_u=np.array([0.2]))
SMALL_X = np.array([-0.6, 0.8])  # 2 x1 + 1 + z = 0, x2 - 1 + z = 0, x1 + x2 = 0.2: z = 0.2


def test_every_documented_option_is_accepted():
    values = {"check_duality_gap": 0, "max_iter": 100, "max_factor_retries": 5,
              "preconditioner_iter": 0, "preconditioner_scale_cost": 1,
              "iterative_refinement_max_iter": 3, "verbose": 0, "tau": 0.95, "rho_init": 1e-5,
              "delta_init": 1e-3, "preconditioner_reuse": 1.1, "duality_gap_extended": 0,
              "polish": 0}
    for name in OPTION_NAMES:
        opts = {name: values.get(name, 1e-9)}
        res = solve(SMALL, options=opts)
        assert res.status == "solved", name
        # Without the duality-gap test, only the residuals are small at the end.
        np.testing.assert_allclose(res.x, SMALL_X, atol=1e-2 if name == "check_duality_gap"
                                   else 1e-7, err_msg=name)
    res = solve(SMALL, options={n: values.get(n, 1e-9) for n in OPTION_NAMES})
    assert res.status == "solved"
    np.testing.assert_allclose(res.x, SMALL_X, atol=1e-2)


BAD_OPTIONS = [
    ({"eps_abz": 1e-8}, (ValueError, TypeError), "eps_abz"),
    ({"eps_abs": "tight"}, (ValueError, TypeError), "eps_abs"),
    ({"eps_abs": -1e-8}, (ValueError,), "eps_abs"),
    ({"eps_rel": -1.0}, (ValueError,), "eps_rel"),
    ({"eps_duality_gap_abs": -1e-3}, (ValueError,), "eps_duality_gap_abs"),
    ({"eps_abs": float("nan")}, (ValueError,), "eps_abs"),
    ({"max_iter": 0}, (ValueError,), "max_iter"),
    ({"max_iter": -5}, (ValueError,), "max_iter"),
    ({"max_iter": 2.5}, (ValueError, TypeError), "max_iter"),
    ({"max_iter": "10"}, (ValueError, TypeError), "max_iter"),
    ({"tau": 2.0}, (ValueError,), "tau"),
    ({"preconditioner_iter": -1}, (ValueError,), "preconditioner_iter"),
    ({"preconditioner_reuse": 0.5}, (ValueError,), "preconditioner_reuse"),
    ({"preconditioner_reuse": float("inf")}, (ValueError,), "preconditioner_reuse"),
]


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("opts,exc,name", BAD_OPTIONS, ids=[str(o[0]) for o in BAD_OPTIONS])
def test_bad_options_raise_naming_the_option(backend, opts, exc, name):
    with pytest.raises(exc) as info:
        solve(SMALL, backend, options=opts)
    assert names(str(info.value), name), str(info.value)
    with pytest.raises(exc) as info:
        qp_solver(SMALL, backend, options=opts)
    assert names(str(info.value), name), str(info.value)


def test_max_iter_stops():
    prob = random_qp(70, 30, 5, 20)
    full = solve(prob)
    assert full.iter > 2
    res = solve(prob, options={"max_iter": 2})
    assert res.status == "max_iter" and res.status_code == 2 and res.native_status == -1
    assert res.iter == 2
    assert res.x.shape == (30,)


def test_tolerances_change_the_work():
    prob = random_qp(71, 30, 5, 20)
    loose = solve(prob, options={"eps_abs": 1e-3, "eps_rel": 1e-3, "eps_duality_gap_abs": 1e-3,
                                 "eps_duality_gap_rel": 1e-3})
    tight = solve(prob)
    assert loose.status in ("solved", "acceptable") and tight.status == "solved"
    assert loose.iter < tight.iter


# -- bad data ------------------------------------------------------------------------------

BASE = dict(P=np.eye(3), c=np.ones(3), A=np.ones((1, 3)), b=np.ones(1), G=np.eye(3)[:2],
            h_l=-np.ones(2), h_u=np.ones(2), x_l=-np.full(3, 5.0), x_u=np.full(3, 5.0))

BAD_DIMENSIONS = [
    ("c", {"c": np.ones(4)}),
    ("P", {"P": np.eye(4)}),
    ("P", {"P": np.ones((3, 4))}),
    ("A", {"A": np.ones((1, 4))}),
    ("b", {"b": np.ones(2)}),
    ("G", {"G": np.ones((2, 2))}),
    ("h_l", {"h_l": np.ones(3)}),
    ("h_u", {"h_u": np.ones(1)}),
    ("x_l", {"x_l": np.ones(2)}),
    ("x_u", {"x_u": np.ones(4)}),
    ("c", {"c": np.ones((3, 1, 1))}),
]


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("name,change", BAD_DIMENSIONS,
                         ids=[f"{n}-{i}" for i, (n, _) in enumerate(BAD_DIMENSIONS)])
def test_bad_dimensions_raise_naming_the_argument(backend, name, change):
    prob = dict(BASE, **change)
    # A c longer than P is wide may be blamed on either of them.
    named = (name,) if name != "c" or np.ndim(change["c"]) != 1 else ("c", "P")
    with pytest.raises(ValueError) as info:
        solve(prob, backend, options=None)
    assert any(names(str(info.value), k) for k in named), str(info.value)
    with pytest.raises(ValueError) as info:
        qp_solver(prob, backend, options=None)
    assert any(names(str(info.value), k) for k in named), str(info.value)


def test_p_and_c_of_different_sizes_are_both_named():
    # P square but of another n than c: neither alone is "the" wrong one.
    with pytest.raises(ValueError, match=r"P is 2 x 2 but c has 3 entries"):
        solve_qp(np.eye(2), np.ones(3))


@pytest.mark.parametrize("backend", BACKENDS)
def test_bad_warm_start_dimensions(backend):
    for name, value in (("x0", np.ones(2)), ("y0", np.ones(3)), ("z0", np.ones(1)),
                        ("z_box0", np.ones(4))):
        with pytest.raises(ValueError) as info:
            solve(BASE, backend, options=None, **{name: value})
        assert names(str(info.value), name), str(info.value)


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("name,form", [("P", "dense"), ("P", "sparse"), ("c", "dense"),
                                       ("A", "dense"), ("A", "sparse"), ("b", "dense"),
                                       ("G", "dense"), ("G", "sparse")])
def test_nan_data(backend, name, form):
    prob = dict(BASE)
    v = np.array(prob[name], dtype=float)
    v.flat[-1] = np.nan
    prob[name] = sp.csc_matrix(v) if form == "sparse" else v
    try:
        res = solve(prob, backend, options=None)
    except ValueError as e:
        assert names(str(e), name), str(e)
        assert "nan" in str(e).lower() or "finite" in str(e).lower(), str(e)
    else:
        assert res.status == "error" and res.status_code == 7, res.status


@pytest.mark.parametrize("backend", BACKENDS)
def test_infinite_cost_is_rejected(backend):
    prob = dict(BASE, c=np.array([1.0, INF, 0.0]))
    try:
        res = solve(prob, backend, options=None)
    except ValueError as e:
        assert names(str(e), "c"), str(e)
    else:
        assert res.status == "error"


def test_unknown_backend():
    with pytest.raises(ValueError, match="backend"):
        solve(BASE, backend="gpu")


# -- nonconvex: returns (in a subprocess with a timeout) -----------------------------------

NONCONVEX_CASES = {
    # Local minima at x = (-0.1, +-1); x = (-0.1, 0.05) is a saddle.
    "box": (np.diag([1.0, -1.0]), np.array([0.1, 0.05]), -np.ones(2), np.ones(2)),
    "box-random": "random",
    # Unbounded below: no local minimum; (-0.5, 0.3) and (0, 0) are saddles.
    "free": (np.diag([1.0, -1.0]), np.array([0.5, 0.3]), None, None),
    "free-zero-cost": (np.diag([1.0, -1.0]), np.zeros(2), None, None),
}


def nonconvex_case(case):
    if NONCONVEX_CASES[case] == "random":
        rng = np.random.default_rng(3)
        M = rng.standard_normal((8, 8))
        return (M + M.T) / 2, rng.standard_normal(8), -np.ones(8), np.ones(8)
    return NONCONVEX_CASES[case]


NONCONVEX_SCRIPT = textwrap.dedent("""
    import json, sys
    sys.path.insert(0, sys.argv[1])
    import numpy as np
    from scaly.solvers import solve_qp
    from test_qp_solver import BACKENDS, NONCONVEX_CASES, nonconvex_case
    for case in NONCONVEX_CASES:
        for backend in BACKENDS:
            P, c, lo, hi = nonconvex_case(case)
            try:
                r = solve_qp(P, c, x_l=lo, x_u=hi, backend=backend)
            except ValueError as e:
                out = {"raised": str(e)}
            else:
                out = {"status": r.status, "x": list(r.x), "z_box": list(r.z_box)}
            print(json.dumps({"case": case, "backend": backend, **out}), flush=True)
""")


@pytest.fixture(scope="module")
def nonconvex_results(tmp_path_factory):
    """Every nonconvex case solved in one child process: a crash or a hang fails, not kills."""
    import json

    script = tmp_path_factory.mktemp("nonconvex") / "nonconvex.py"
    script.write_text(NONCONVEX_SCRIPT)
    here = os.path.dirname(os.path.abspath(__file__))
    env = dict(os.environ, PYTHONPATH=os.path.join(here, ".."))
    run = subprocess.run([sys.executable, str(script), here], capture_output=True, text=True,
                         timeout=120, env=env)
    results = {}
    for line in run.stdout.splitlines():
        if line.startswith("{"):
            out = json.loads(line)
            results[out["case"], out["backend"]] = out
    return results, run.returncode, run.stderr[-2000:]


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("case", [
    "box", "box-random", "free",
    "free-zero-cost"])
def test_nonconvex_returns(backend, case, nonconvex_results):
    """A clear non-'solved' status, a ValueError naming P, or a true local minimum."""
    results, returncode, stderr = nonconvex_results
    assert (case, backend) in results, f"no result (exit {returncode}): {stderr}"
    out = results[case, backend]
    if "raised" in out:
        assert names(out["raised"], "P") or "convex" in out["raised"], out["raised"]
        return
    if out["status"] != "solved":
        assert out["status"] in STATUS_CODES
        return
    # 'solved' must be a local minimum: KKT, and P positive semidefinite on the free set.
    assert not case.startswith("free"), "an unbounded nonconvex QP reported solved"
    P, c, lo, hi = nonconvex_case(case)
    x, zb = np.array(out["x"]), np.array(out["z_box"])
    assert np.max(np.abs(P @ x + c + zb)) <= 1e-6
    assert np.all(x >= lo - 1e-8) and np.all(x <= hi + 1e-8)
    at_upper, at_lower = x >= hi - 1e-6, x <= lo + 1e-6
    assert np.all(zb[~at_upper] <= 1e-6) and np.all(zb[~at_lower] >= -1e-6)
    free = ~(at_upper | at_lower)
    if free.any():
        assert np.linalg.eigvalsh(P[np.ix_(free, free)]).min() >= -1e-8


def test_nonconvex_child_exits_cleanly(nonconvex_results):
    results, returncode, stderr = nonconvex_results
    assert returncode == 0, stderr
    assert len(results) == len(NONCONVEX_CASES) * len(BACKENDS)


# -- robustness ----------------------------------------------------------------------------

@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("seed", [90, 91])
def test_badly_scaled_problem(backend, seed):
    """Rows scaled by 1e-3..1e3, variables by 1e-2..1e2, cost by 1e3: the same solution."""
    prob = random_qp(seed, 30, 5, 20)
    rng = np.random.default_rng(seed)
    rs, cs = 10.0 ** rng.uniform(-3, 3, 20), 10.0 ** rng.uniform(-2, 2, 30)
    D = np.diag(cs)
    scaled = dict(prob, P=1e3 * D @ prob["P"] @ D, c=1e3 * D @ prob["c"], A=prob["A"] @ D,
                  G=(prob["G"] * rs[:, None]) @ D, h_l=prob["h_l"] * rs, h_u=prob["h_u"] * rs,
                  x_l=prob["x_l"] / cs, x_u=prob["x_u"] / cs)
    res = solve(scaled, backend)
    assert_kkt(scaled, res)
    ref = solve(prob, backend)
    np.testing.assert_allclose(res.x * cs, ref.x, rtol=0, atol=1e-8)


@pytest.mark.parametrize("backend", BACKENDS)
def test_duplicated_rows(backend):
    """Every row of A and G twice (no unique multipliers): the same x."""
    prob = random_qp(92, 20, 3, 10)
    twice = dict(prob, A=np.vstack([prob["A"]] * 2), b=np.concatenate([prob["b"]] * 2),
                 G=np.vstack([prob["G"]] * 2), h_l=np.concatenate([prob["h_l"]] * 2),
                 h_u=np.concatenate([prob["h_u"]] * 2))
    res = solve(twice, backend)
    assert_kkt(twice, res)
    np.testing.assert_allclose(res.x, solve(prob, backend).x, atol=1e-8)


@pytest.mark.parametrize("backend", BACKENDS)
def test_small_and_empty_shapes(backend):
    res = solve_qp(np.eye(3), np.ones(3), A=np.zeros((0, 3)), b=np.zeros(0), G=np.zeros((0, 3)),
                   h_l=np.zeros(0), h_u=np.zeros(0), backend=backend, options=TIGHT)
    assert res.status == "solved" and res.y.shape == (0,) and res.z.shape == (0,)
    np.testing.assert_allclose(res.x, -np.ones(3), atol=1e-10)
    res = solve_qp([[2.0]], [-4.0], x_u=[1.0], backend=backend, options=TIGHT)
    assert res.status == "solved"
    np.testing.assert_allclose([res.x[0], res.z_box[0]], [1.0, 2.0], atol=1e-9)
    # Every variable fixed by its bounds, and by a square A.
    fixed = dict(P=np.eye(3), c=np.ones(3), x_l=np.array([1.0, 2, 3]), x_u=np.array([1.0, 2, 3]))
    res = solve(fixed, backend)
    assert_kkt(fixed, res)
    np.testing.assert_allclose(res.z_box, [-2.0, -3.0, -4.0], atol=1e-8)
    square = dict(P=np.eye(3), c=np.ones(3), A=np.eye(3), b=np.array([1.0, 2, 3]))
    res = solve(square, backend)
    assert_kkt(square, res)
    np.testing.assert_allclose(res.x, [1.0, 2, 3], atol=1e-9)
    np.testing.assert_allclose(res.y, [-2.0, -3.0, -4.0], atol=1e-8)


@pytest.mark.parametrize("backend", BACKENDS)
def test_large_magnitudes(backend):
    prob = random_qp(93, 20, 3, 10)
    big = dict(prob, b=prob["b"] * 1e6, h_l=prob["h_l"] * 1e6, h_u=prob["h_u"] * 1e6,
               x_l=prob["x_l"] * 1e6, x_u=prob["x_u"] * 1e6)
    assert_kkt(big, solve(big, backend))


@pytest.mark.parametrize("backend", BACKENDS)
def test_warm_starts_from_bad_points(backend):
    """Multipliers of the wrong sign or size, a zero or an infeasible solve's point: correct."""
    prob = random_qp(94, 20, 3, 10)
    solver = qp_solver(prob, backend)
    ref = solver.solve()
    assert_kkt(prob, ref)
    starts = [dict(x0=ref.x, y0=-ref.y, z0=-ref.z, z_box0=-ref.z_box),
              dict(x0=np.zeros(20), z0=np.full(10, 1e6), z_box0=np.full(20, -1e6)),
              dict(x0=np.full(20, -1e4), y0=np.full(3, 1e4))]
    for start in starts:
        res = solver.solve(**start)
        assert_kkt(prob, res)
        np.testing.assert_allclose(res.x, ref.x, atol=1e-8)


@pytest.mark.parametrize("backend", BACKENDS)
def test_update_through_infeasible_and_back(backend):
    """Feasible, then primal infeasible, then dual infeasible, then feasible again: no state
    of one solve leaks into the next."""
    n = 4
    prob = dict(P=np.diag([1.0, 2.0, 1.0, 1.0]), c=np.array([-1.0, 1.0, -2.0, 0.5]),
                G=np.ones((1, n)), h_l=np.array([-1.0]), h_u=np.array([1.0]),
                x_l=np.zeros(n), x_u=np.full(n, 3.0))
    solver = qp_solver(prob, backend, options=None)
    first = solver.solve()
    assert first.status == "solved"
    solver.update(h_l=np.array([20.0]), h_u=np.array([30.0]))  # sum x <= 12 by the box
    assert solver.solve().status == "primal_infeasible"
    solver.update(h_l=prob["h_l"], h_u=prob["h_u"])
    again = solver.solve()
    assert again.status == "solved"
    np.testing.assert_allclose(again.x, first.x, atol=1e-12)
    # P = 0 on x3 with c3 < 0, its row and upper bound gone: unbounded.
    solver.update(P=np.diag([1.0, 2.0, 1e-300, 1.0]), h_u=np.array([INF]),
                  x_u=np.array([3.0, 3.0, INF, 3.0]))
    assert solver.solve().status == "dual_infeasible"
    solver.update(P=prob["P"], h_u=prob["h_u"], x_u=prob["x_u"])
    last = solver.solve()
    assert last.status == "solved"
    np.testing.assert_allclose(last.x, first.x, atol=1e-12)


def test_distinct_solvers_in_threads():
    """Distinct solver objects used from distinct threads at once: the serial answers."""
    import threading

    probs = [random_qp(100 + k, 60, 10, 40) for k in range(4)]
    backends = ["sparse", "dense", "sparse", "dense"]
    serial = [solve(p, b).x for p, b in zip(probs, backends)]
    results = [[] for _ in probs]
    errors = []

    def work(k):
        try:
            solver = qp_solver(probs[k], backends[k])
            for _ in range(15):
                results[k].append(solver.solve().x)
                results[k].append(solve(probs[k], backends[k]).x)
        except Exception as e:  # noqa: BLE001 (reported below)
            errors.append(e)

    threads = [threading.Thread(target=work, args=(k,)) for k in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=120)
    assert not errors, errors
    for k in range(4):
        assert len(results[k]) == 30
        for x in results[k]:
            np.testing.assert_array_equal(x, serial[k])


# -- results and statistics ----------------------------------------------------------------

@pytest.mark.parametrize("backend", BACKENDS)
def test_stats_after_solve(backend):
    prob = random_qp(80, 20, 3, 10)
    solver = qp_solver(prob, backend)
    res = solver.solve()
    st = solver.stats()
    for field in STATS_FIELDS:
        assert field in st, field
    assert st["version"] == 3
    assert st["status"] == res.status == "solved"
    # native_status: the SCALY_QP_* code, or its name (like status).
    assert st["native_status"] in (res.native_status, "solved") and res.native_status == 1
    assert st["iter"] == res.iter > 0
    assert st["obj"] == pytest.approx(res.obj, rel=1e-14, abs=1e-14)
    assert st["t_qp"] > 0
    total = st["t_fe"] + st["t_solver"] + st["t_qp"] + st["t_globalization"] + st["t_glue"]
    assert abs(st["t_total"] - total) <= 1e-12
    assert st["t_total"] >= st["t_qp"]
    assert st["primal_viol"] <= 1e-8


@pytest.mark.parametrize("backend", BACKENDS)
def test_stats_fields_a_qp_has_no_use_for_stay_zero(backend):
    solver = qp_solver(random_qp(81, 10, 2, 5), backend)
    solver.solve()
    st = solver.stats()
    for field in ("n_eval_f", "n_eval_grad_f", "n_eval_g", "n_eval_jac_g", "n_eval_h",
                  "backtracks"):
        assert st[field] == 0, field


def test_stats_before_and_after_a_failed_solve():
    solver = qp_solver(infeasible_primal_cases()["conflicting-rows"], "sparse", options=None)
    assert solver.stats()["version"] == 0
    res = solver.solve()
    st = solver.stats()
    assert st["version"] == 3
    assert st["status"] == res.status == "primal_infeasible"
    assert st["iter"] == res.iter


@pytest.mark.parametrize("backend", BACKENDS)
def test_status_codes_and_names_agree(backend):
    cases = [(random_qp(82, 10, 2, 5), "solved"),
             (infeasible_primal_cases()["equality-vs-box"], "primal_infeasible"),
             (infeasible_dual_cases()["free-direction"], "dual_infeasible")]
    for prob, status in cases:
        res = solve(prob, backend, options=None)
        assert res.status == status
        assert STATUS_CODES[res.status] == res.status_code


@pytest.mark.parametrize("backend", BACKENDS)
def test_solve_is_repeatable(backend):
    prob = random_qp(83, 20, 3, 10)
    solver = qp_solver(prob, backend)
    a = solver.solve()
    b = solver.solve()
    np.testing.assert_array_equal(a.x, b.x)
    assert a.iter == b.iter
    c = solve(prob, backend)
    np.testing.assert_array_equal(a.x, c.x)


@pytest.mark.parametrize("backend", BACKENDS)
def test_warm_start_setting_starts_from_the_previous_solution(backend):
    """warm_start=1: a solve given no point starts from the previous solution, so a
    slightly changed problem takes fewer iterations; the answer matches a cold solve."""
    rng = np.random.default_rng(7)
    n = 20
    M = rng.standard_normal((n, n))
    P = M @ M.T + np.eye(n)
    G = rng.standard_normal((8, n))
    c = rng.standard_normal(n)
    args = dict(G=G, h_l=-np.ones(8), h_u=np.ones(8), x_l=-np.ones(n), x_u=np.ones(n))
    warm = QPSolver(P, c, **args, backend=backend, options={"warm_start": 1})
    cold = QPSolver(P, c, **args, backend=backend)
    first = warm.solve()
    assert first.status == "solved" and first.iter == cold.solve().iter
    c2 = c + 1e-3 * rng.standard_normal(n)
    warm.update(c=c2)
    cold.update(c=c2)
    again, reference = warm.solve(), cold.solve()
    assert again.status == "solved" and again.iter < reference.iter
    np.testing.assert_allclose(again.x, reference.x, atol=1e-7)


def test_an_unconverged_solve_returns_its_best_iterate_as_acceptable():
    """Stopped by the iteration limit a little short of the tolerances, the solve returns
    the best point it met and says 'acceptable' (within 1e3 of every tolerance); far from
    them it says 'max_iter'. Both points are checked against the KKT residuals. With polish
    (the default) the point returned is polished first (the active set's KKT system solved
    without regularization): when that meets the tolerances the solve says 'solved', checked
    here the same way; every limit that ended 'acceptable' without polish ends so or 'solved'
    with it."""
    rng = np.random.default_rng(11)
    n = 30
    M = rng.standard_normal((n, n))
    P = M @ M.T + np.eye(n)
    c = rng.standard_normal(n)
    G = rng.standard_normal((10, n))
    args = dict(G=G, h_l=-np.ones(10), h_u=np.ones(10), x_l=-np.ones(n), x_u=np.ones(n))
    full = solve_qp(P, c, **args)
    assert full.status == "solved" and full.iter > 4
    statuses, polished = {}, {}
    for k in range(1, full.iter):
        polished[k] = solve_qp(P, c, **args, options={"max_iter": k}).status
        res = solve_qp(P, c, **args, options={"max_iter": k, "polish": 0})
        statuses[k] = res.status
        assert res.status in ("acceptable", "max_iter")
        stationarity = np.abs(P @ res.x + c + G.T @ res.z + res.z_box).max()
        scale = max(1.0, np.abs(P @ res.x).max(), np.abs(c).max())
        if res.status == "acceptable":
            assert stationarity <= 1e3 * (1e-8 + 1e-9 * scale) * 10
            assert res.dual_res == pytest.approx(stationarity, rel=1e-3, abs=1e-12)
        if polished[k] == "solved":
            pol = solve_qp(P, c, **args, options={"max_iter": k})
            stationarity = np.abs(P @ pol.x + c + G.T @ pol.z + pol.z_box).max()
            assert stationarity <= 1e-8 + 1e-9 * max(1.0, np.abs(P @ pol.x).max())
            Gx = G @ pol.x
            assert np.all(Gx <= 1 + 1e-8) and np.all(Gx >= -1 - 1e-8)
            assert np.all(np.abs(pol.x) <= 1 + 1e-8)
        else:
            assert polished[k] == statuses[k]
    assert statuses[1] == "max_iter" and statuses[full.iter - 1] == "acceptable"
    assert polished[full.iter - 1] in ("acceptable", "solved")


def test_bounds_no_point_meets_report_how_far_apart_they_are():
    """x_l > x_u: primal infeasible without iterating, and the diagnostics are this
    solve's (the gap between the bounds), not the previous solve's."""
    solver = QPSolver(np.eye(2), [1.0, 1.0], x_l=[0.0, 0.0], x_u=[1.0, 1.0],
                      options={"max_iter": 2})
    solver.solve()
    solver.update(x_l=[2.5, 0.0])
    res = solver.solve()
    assert res.status == "primal_infeasible" and res.iter == 0
    assert res.primal_res == pytest.approx(1.5) and res.factorizations == 0
    assert res.dual_res == 0.0
