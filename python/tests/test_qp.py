"""The QP solver (scaly.solvers.solve_qp / QPSolver) against independent references.

    minimize 1/2 x'Px + c'x  s.t.  Ax = b,  h_l <= Gx <= h_u,  x_l <= x <= x_u
    P x + c + A'y + G'z + z_box = 0, z > 0 at an upper bound, z < 0 at a lower one.

Every solution is checked here from x, y, z and z_box alone (the KKT conditions, computed
with NumPy), and against closed forms, numpy.linalg.solve on KKT systems, and
scipy.optimize.linprog (HiGHS). Problems are small and seeded.
"""

import numpy as np
import pytest
import scipy.sparse as sp
from scipy.optimize import linprog, minimize

from scaly.solvers import solve_qp
from qputil import (infeasible_dual_cases, infeasible_primal_cases, BACKENDS, INF, TIGHT,
                    random_qp, as_kind, solve, dense, shape, names, kkt_residuals, assert_kkt,
                    objective)


# -- random QPs: KKT -----------------------------------------------------------------------

@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("kind", ["dense", "csc", "csr", "coo"])
@pytest.mark.parametrize("seed,n,p,m", [(0, 12, 2, 8), (1, 30, 5, 20), (2, 60, 10, 40)])
def test_random_qp_kkt(backend, kind, seed, n, p, m):
    prob = random_qp(seed, n, p, m)
    res = solve(as_kind(prob, kind), backend)
    assert_kkt(prob, res)
    assert res.status_code == 0 and res.native_status == 1
    assert res.iter > 0 and res.t_setup >= 0 and res.t_solve > 0
    # The reported residuals agree with the ones computed here.
    r = kkt_residuals(prob, res)
    assert res.primal_res <= 1e-8 and res.dual_res <= 1e-8
    assert r["primal"] <= 1e-9 and r["stationarity"] <= 1e-9


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("seed", [3, 4])
def test_random_qp_active_set_reference(backend, seed):
    """The active set read from the multipliers, solved as an equality QP by numpy, gives x."""
    prob = random_qp(seed, 25, 4, 15)
    res = solve(prob, backend)
    assert_kkt(prob, res)
    n = 25
    G, x = prob["G"], res.x
    rows = [prob["A"]]
    rhs = [prob["b"]]
    for j in range(G.shape[0]):
        if prob["h_l"][j] == prob["h_u"][j] or abs(res.z[j]) > 1e-6:
            rows.append(G[j:j + 1])
            rhs.append([prob["h_u"][j] if res.z[j] > 0 else prob["h_l"][j]])
    for i in range(n):
        if abs(res.z_box[i]) > 1e-6:
            e = np.zeros((1, n))
            e[0, i] = 1.0
            rows.append(e)
            rhs.append([prob["x_u"][i] if res.z_box[i] > 0 else prob["x_l"][i]])
    C = np.vstack(rows)
    d = np.concatenate([np.atleast_1d(r) for r in rhs])
    k = C.shape[0]
    assert k > prob["A"].shape[0]  # some inequalities are active
    K = np.block([[prob["P"], C.T], [C, np.zeros((k, k))]])
    sol = np.linalg.lstsq(K, np.concatenate([-prob["c"], d]), rcond=None)[0]
    np.testing.assert_allclose(x, sol[:n], rtol=0, atol=1e-8)


def test_random_qp_matches_slsqp():
    """An independent solver (SciPy's SLSQP) finds the same optimum on a small problem."""
    prob = random_qp(5, 10, 2, 6)
    res = solve(prob)
    assert_kkt(prob, res)
    P, c, A, b, G = prob["P"], prob["c"], prob["A"], prob["b"], prob["G"]
    cons = [{"type": "eq", "fun": lambda x: A @ x - b, "jac": lambda x: A}]
    for j in range(G.shape[0]):
        if prob["h_l"][j] == prob["h_u"][j]:
            cons.append({"type": "eq", "fun": lambda x, j=j: G[j] @ x - prob["h_u"][j],
                         "jac": lambda x, j=j: G[j:j + 1]})
            continue
        if np.isfinite(prob["h_l"][j]):
            cons.append({"type": "ineq", "fun": lambda x, j=j: G[j] @ x - prob["h_l"][j],
                         "jac": lambda x, j=j: G[j:j + 1]})
        if np.isfinite(prob["h_u"][j]):
            cons.append({"type": "ineq", "fun": lambda x, j=j: prob["h_u"][j] - G[j] @ x,
                         "jac": lambda x, j=j: -G[j:j + 1]})
    bounds = [(lo if np.isfinite(lo) else None, hi if np.isfinite(hi) else None)
              for lo, hi in zip(prob["x_l"], prob["x_u"])]
    ref = minimize(lambda x: 0.5 * x @ P @ x + c @ x, np.clip(np.zeros(10), prob["x_l"],
                   prob["x_u"]), jac=lambda x: P @ x + c, method="SLSQP", bounds=bounds,
                   constraints=cons, options={"ftol": 1e-14, "maxiter": 1000})
    assert ref.success, ref.message
    np.testing.assert_allclose(res.x, ref.x, atol=1e-5)
    assert res.obj <= objective(prob, ref.x) + 1e-8


@pytest.mark.parametrize("seed", [6, 7, 8])
def test_dense_backend_matches_sparse(seed):
    prob = random_qp(seed, 40, 6, 25)
    rs = solve(prob, "sparse")
    rd = solve(prob, "dense")
    assert rs.status == rd.status == "solved"
    np.testing.assert_allclose(rd.x, rs.x, rtol=0, atol=1e-7)
    np.testing.assert_allclose(rd.y, rs.y, rtol=0, atol=1e-6)
    assert abs(rd.obj - rs.obj) <= 1e-8 * (1 + abs(rs.obj))


@pytest.mark.parametrize("backend", BACKENDS)
def test_default_options_solve_accurately_enough(backend):
    prob = random_qp(9, 30, 5, 20)
    res = solve(prob, backend, options=None)
    assert res.status == "solved"
    r = kkt_residuals(prob, res)
    assert r["stationarity"] <= 1e-6 and r["primal"] <= 1e-6 and r["complementarity"] <= 1e-6
    tight = solve(prob, backend)
    np.testing.assert_allclose(res.x, tight.x, atol=1e-5)


def _exact_residuals(prob, res):
    """primal, dual and gap residuals of the returned doubles in exact rational arithmetic
    (fractions.Fraction), as scaly_qp.h defines them: the largest violation of Ax = b,
    h_l <= Gx <= h_u, x_l <= x <= x_u; ||P x + c + A'y + G'z + z_box||_inf; and
    |x'Px + c'x + b'y + support terms|, where a positive multiplier takes its upper bound and
    a negative one its lower bound."""
    from fractions import Fraction as F

    n = len(prob["c"])
    p, m = shape(prob["A"])[0], shape(prob["G"])[0]
    P = np.triu(dense(prob["P"], n, n))
    P = P + np.triu(P, 1).T
    A, G = dense(prob["A"], p, n), dense(prob["G"], m, n)
    x = [F(v) for v in res.x]

    def rows(M, v):
        return [sum((F(M[i, j]) * v[j] for j in range(M.shape[1]) if M[i, j] != 0), F(0))
                for i in range(M.shape[0])]

    def support(lo, hi, mult):
        total = F(0)
        for l, u, v in zip(lo, hi, mult):
            if v > 0:
                total += F(u) * F(v)
            elif v < 0:
                total += F(l) * F(v)
        return total

    Px, Ax, Gx = rows(P, x), rows(A, x), rows(G, x)
    primal = max([abs(Ax[i] - F(prob["b"][i])) for i in range(p)]
                 + [max(F(prob["h_l"][j]) - Gx[j], Gx[j] - F(prob["h_u"][j]), F(0))
                    for j in range(m) if np.isfinite(prob["h_l"][j]) and np.isfinite(prob["h_u"][j])]
                 + [max(F(prob["h_l"][j]) - Gx[j], F(0)) for j in range(m)
                    if np.isfinite(prob["h_l"][j]) and not np.isfinite(prob["h_u"][j])]
                 + [max(Gx[j] - F(prob["h_u"][j]), F(0)) for j in range(m)
                    if np.isfinite(prob["h_u"][j]) and not np.isfinite(prob["h_l"][j])]
                 + [max(F(prob["x_l"][i]) - x[i], F(0)) for i in range(n)
                    if np.isfinite(prob["x_l"][i])]
                 + [max(x[i] - F(prob["x_u"][i]), F(0)) for i in range(n)
                    if np.isfinite(prob["x_u"][i])])
    dual_vec = [Px[j] + F(prob["c"][j]) + F(res.z_box[j])
                + sum((F(A[i, j]) * F(res.y[i]) for i in range(p)), F(0))
                + sum((F(G[i, j]) * F(res.z[i]) for i in range(m)), F(0)) for j in range(n)]
    gap = (sum((x[j] * Px[j] for j in range(n)), F(0))
           + sum((F(prob["c"][j]) * x[j] for j in range(n)), F(0))
           + sum((F(prob["b"][i]) * F(res.y[i]) for i in range(p)), F(0))
           + support(prob["h_l"], prob["h_u"], res.z) + support(prob["x_l"], prob["x_u"], res.z_box))
    # The largest term of each residual's sums: what rounding is relative to.
    size_p = max([abs(F(M[i, j]) * x[j]) for M in (A, G) for i in range(M.shape[0])
                  for j in range(n)] + [F(abs(v)) for v in x], default=F(0))
    size_d = max([abs(v) for v in Px] + [F(abs(v)) for v in prob["c"]]
                 + [abs(F(A[i, j]) * F(res.y[i])) for i in range(p) for j in range(n)]
                 + [abs(F(G[i, j]) * F(res.z[i])) for i in range(m) for j in range(n)]
                 + [F(abs(v)) for v in res.z_box])
    size_g = max([abs(x[j] * Px[j]) for j in range(n)]
                 + [abs(F(prob["c"][j]) * x[j]) for j in range(n)]
                 + [abs(F(prob["b"][i]) * F(res.y[i])) for i in range(p)])
    return ((float(primal), float(max(abs(v) for v in dual_vec)), float(abs(gap))),
            (float(size_p), float(size_d), float(size_g)))


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("seed", [0, 1])
def test_reported_residuals_are_those_of_the_returned_point(backend, seed):
    """The equilibration scales by powers of two, so the returned x and multipliers are the
    iteration's own scaled exactly, and the residuals the solver reports (evaluated in extended
    precision on the point as returned) are the exact residuals of the returned doubles. A
    badly scaled problem (rows and columns multiplied by factors far from powers of two) makes
    the scaling non-trivial. The references are computed here in exact rational arithmetic."""
    prob = random_qp(seed, 12, 2, 8)
    rng = np.random.default_rng(100 + seed)
    col = rng.uniform(0.3, 30.0, 12)
    prob = dict(prob)
    prob["P"] = dense(prob["P"], 12, 12) * np.outer(col, col)
    prob["c"] = prob["c"] * col * 7.3
    prob["A"] = dense(prob["A"], 2, 12) * col
    prob["G"] = dense(prob["G"], 8, 12) * col * 3.1
    prob["h_l"], prob["h_u"] = prob["h_l"] * 3.1, prob["h_u"] * 3.1
    prob["x_l"], prob["x_u"] = prob["x_l"] / col, prob["x_u"] / col
    res = solve(prob, backend, options={"eps_abs": 1e-9, "eps_rel": 0.0,
                                        "eps_duality_gap_abs": 1e-9,
                                        "eps_duality_gap_rel": 0.0})
    assert res.status == "solved"
    (primal, dual, gap), sizes = _exact_residuals(prob, res)
    assert max(primal, dual, gap) <= 1e-9, (primal, dual, gap)
    for reported, exact, size in zip((res.primal_res, res.dual_res, res.duality_gap),
                                     (primal, dual, gap), sizes):
        # Extended precision's rounding (2^-64 of the largest term, times a few) and no more:
        # residuals computed in double (main before this change) were off by ~1e-17 of it.
        assert abs(reported - exact) <= 1e-6 * exact + 2e-18 * size, (reported, exact, size)


# -- closed forms and KKT linear systems -----------------------------------------------------

@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("kind", ["dense", "csc", "csr"])
def test_equality_qp_matches_kkt_linear_solve(backend, kind):
    rng = np.random.default_rng(10)
    n, p = 20, 6
    M = rng.standard_normal((n, n))
    P = M @ M.T + np.eye(n)
    A = rng.standard_normal((p, n))
    c, b = rng.standard_normal(n), rng.standard_normal(p)
    K = np.block([[P, A.T], [A, np.zeros((p, p))]])
    ref = np.linalg.solve(K, np.concatenate([-c, b]))
    prob = dict(P=P, c=c, A=A, b=b)
    res = solve(as_kind(prob, kind), backend)
    assert res.status == "solved"
    np.testing.assert_allclose(res.x, ref[:n], rtol=0, atol=1e-8)
    np.testing.assert_allclose(res.y, ref[n:], rtol=0, atol=1e-7)
    assert res.z.shape == (0,) and np.all(res.z_box == 0)
    assert_kkt(prob, res)


@pytest.mark.parametrize("backend", BACKENDS)
def test_equalities_as_g_rows_and_fixed_variables(backend):
    """h_l == h_u rows and x_l == x_u variables are equalities: the same x as Ax = b."""
    rng = np.random.default_rng(11)
    n, p = 15, 4
    M = rng.standard_normal((n, n))
    P = M @ M.T + np.eye(n)
    A = rng.standard_normal((p, n))
    c, b = rng.standard_normal(n), rng.standard_normal(p)
    fixed = {3: 0.7, 9: -1.2}
    E = np.vstack([A] + [np.eye(n)[i:i + 1] for i in fixed])
    e = np.concatenate([b, list(fixed.values())])
    K = np.block([[P, E.T], [E, np.zeros((len(e), len(e)))]])
    ref = np.linalg.solve(K, np.concatenate([-c, e]))
    x_l, x_u = np.full(n, -INF), np.full(n, INF)
    for i, v in fixed.items():
        x_l[i] = x_u[i] = v
    prob = dict(P=P, c=c, G=A, h_l=b, h_u=b.copy(), x_l=x_l, x_u=x_u)
    res = solve(prob, backend)
    assert_kkt(prob, res)
    np.testing.assert_allclose(res.x, ref[:n], rtol=0, atol=1e-8)
    # Multipliers: G'z + z_box plays A'y + the fixed rows' multipliers.
    np.testing.assert_allclose(res.z, ref[n:n + p], atol=1e-7)
    np.testing.assert_allclose(res.z_box[list(fixed)], ref[n + p:], atol=1e-7)


@pytest.mark.parametrize("backend", BACKENDS)
def test_unconstrained_qp(backend):
    rng = np.random.default_rng(12)
    n = 25
    M = rng.standard_normal((n, n))
    P = M @ M.T + 0.5 * np.eye(n)
    c = rng.standard_normal(n)
    res = solve(dict(P=P, c=c), backend)
    assert res.status == "solved"
    np.testing.assert_allclose(res.x, np.linalg.solve(P, -c), atol=1e-8)
    assert res.y.shape == (0,) and res.z.shape == (0,)
    assert np.all(res.z_box == 0)


@pytest.mark.parametrize("backend", BACKENDS)
def test_box_qp_with_diagonal_p_is_a_clip(backend):
    """Separable: x = clip(-c/d, x_l, x_u), z_box = -(d x + c)."""
    rng = np.random.default_rng(13)
    n = 40
    d = rng.uniform(0.5, 3.0, n)
    c = 4 * rng.standard_normal(n)
    x_l = rng.uniform(-2, 0, n)
    x_u = x_l + rng.uniform(0.1, 2, n)
    x_l[::5] = -INF
    x_u[1::7] = INF
    x_u[2::6] = 1e20  # the same as infinite
    x_l[4::9] = -1e30
    prob = dict(P=sp.diags(d).tocsc(), c=c, x_l=x_l, x_u=x_u)
    res = solve(prob, backend)
    lo = np.where(x_l <= -1e20, -INF, x_l)
    hi = np.where(x_u >= 1e20, INF, x_u)
    ref = np.clip(-c / d, lo, hi)
    np.testing.assert_allclose(res.x, ref, rtol=0, atol=1e-9)
    np.testing.assert_allclose(res.z_box, -(d * ref + c), rtol=0, atol=1e-8)
    assert_kkt(prob, res)


@pytest.mark.parametrize("backend", BACKENDS)
def test_only_upper_triangle_of_p_is_read(backend):
    prob = random_qp(14, 20, 3, 10)
    rng = np.random.default_rng(14)
    garbage = np.triu(prob["P"]) + np.tril(rng.standard_normal((20, 20)), -1)
    ref = solve(prob, backend)
    for P in (garbage, sp.csc_matrix(garbage), sp.csc_matrix(np.triu(prob["P"]))):
        res = solve(dict(prob, P=P), backend)
        assert res.status == "solved"
        np.testing.assert_allclose(res.x, ref.x, rtol=0, atol=1e-9)


def test_sparse_inputs_with_duplicates_and_unsorted_indices():
    """COO duplicates add up; CSC with unsorted row indices means the same matrix."""
    prob = random_qp(15, 12, 2, 6)
    ref = solve(prob)
    Pu = np.triu(prob["P"])
    r, c = np.nonzero(Pu)
    v = Pu[r, c]
    half = sp.coo_matrix((np.concatenate([v / 2, v / 2]), (np.concatenate([r, r]),
                          np.concatenate([c, c]))), shape=Pu.shape)
    G = sp.csc_matrix(prob["G"])
    Gu = sp.csc_matrix((G.data.copy(), G.indices.copy(), G.indptr.copy()), shape=G.shape)
    for j in range(Gu.shape[1]):
        s, e = Gu.indptr[j], Gu.indptr[j + 1]
        Gu.indices[s:e] = Gu.indices[s:e][::-1]
        Gu.data[s:e] = Gu.data[s:e][::-1]
    Gu.has_sorted_indices = False
    res = solve(dict(prob, P=half, G=Gu, A=sp.csr_matrix(prob["A"])))
    assert res.status == "solved"
    np.testing.assert_allclose(res.x, ref.x, atol=1e-9)


@pytest.mark.parametrize("backend", BACKENDS)
def test_list_inputs_and_none_bounds(backend):
    P = [[2.0, 0.5], [0.5, 1.0]]
    c = [1.0, -1.0]
    res = solve_qp(P, c, A=[[1.0, 1.0]], b=[1.0], G=[[1.0, -1.0]], h_u=[0.0],
                   backend=backend, options=TIGHT)
    prob = dict(P=np.array(P), c=np.array(c), A=np.array([[1.0, 1.0]]), b=np.array([1.0]),
                G=np.array([[1.0, -1.0]]), h_l=None, h_u=np.array([0.0]))
    assert_kkt(prob, res)
    # The equality-only optimum (-0.75, 1.75) has x1 < x2: the G row is inactive.
    K = np.array([[2.0, 0.5, 1.0], [0.5, 1.0, 1.0], [1.0, 1.0, 0.0]])
    ref = np.linalg.solve(K, [-1.0, 1.0, 1.0])
    assert ref[0] <= ref[1]
    np.testing.assert_allclose(res.x, ref[:2], atol=1e-9)
    assert abs(res.z[0]) <= 1e-9


# -- LPs -------------------------------------------------------------------------------------

def random_lp(seed, n, p, m):
    prob = random_qp(seed, n, p, m)
    rng = np.random.default_rng(seed + 100)
    x_l = np.where(np.isfinite(prob["x_l"]), prob["x_l"], -10.0 - rng.random(n))
    x_u = np.where(np.isfinite(prob["x_u"]), prob["x_u"], 10.0 + rng.random(n))
    prob.update(P=np.zeros((n, n)), x_l=x_l, x_u=x_u)
    return prob


def linprog_reference(prob):
    G, h_l, h_u = prob["G"], prob["h_l"], prob["h_u"]
    ub_rows, ub_rhs, eq_rows, eq_rhs = [], [], [], []
    if prob.get("A") is not None:
        eq_rows.append(prob["A"])
        eq_rhs.append(prob["b"])
    for j in range(G.shape[0]):
        if h_l[j] == h_u[j]:
            eq_rows.append(G[j:j + 1])
            eq_rhs.append([h_u[j]])
            continue
        if np.isfinite(h_u[j]):
            ub_rows.append(G[j:j + 1])
            ub_rhs.append([h_u[j]])
        if np.isfinite(h_l[j]):
            ub_rows.append(-G[j:j + 1])
            ub_rhs.append([-h_l[j]])
    bounds = [(lo if np.isfinite(lo) else None, hi if np.isfinite(hi) else None)
              for lo, hi in zip(prob["x_l"], prob["x_u"])]
    ref = linprog(prob["c"], A_ub=np.vstack(ub_rows) if ub_rows else None,
                  b_ub=np.concatenate(ub_rhs) if ub_rhs else None,
                  A_eq=np.vstack(eq_rows) if eq_rows else None,
                  b_eq=np.concatenate(eq_rhs) if eq_rhs else None, bounds=bounds,
                  method="highs")
    assert ref.status == 0, ref.message
    return ref


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("seed,n,p,m", [(20, 10, 2, 6), (21, 30, 5, 20), (22, 50, 8, 30)])
def test_bounded_lp_matches_linprog(backend, seed, n, p, m):
    prob = random_lp(seed, n, p, m)
    ref = linprog_reference(prob)
    res = solve(prob, backend)
    assert res.status == "solved"
    assert abs(res.obj - ref.fun) <= 1e-7 * (1 + abs(ref.fun)), (res.obj, ref.fun)
    assert abs(prob["c"] @ res.x - ref.fun) <= 1e-7 * (1 + abs(ref.fun))
    r = kkt_residuals(prob, res)
    assert r["primal"] <= 1e-8 and r["stationarity"] <= 1e-8 and r["sign"] <= 1e-8
    assert r["complementarity"] <= 1e-7


@pytest.mark.parametrize("backend", BACKENDS)
def test_lp_bounded_by_rows_only(backend):
    """min sum(w * x) s.t. x >= 0 (G rows, no box), sum(x) >= 1, P = 0 given as an empty matrix."""
    n = 8
    w = np.arange(1.0, n + 1)
    G = np.vstack([np.eye(n), np.ones((1, n))])
    h_l = np.concatenate([np.zeros(n), [1.0]])
    prob = dict(P=sp.csc_matrix((n, n)), c=w, G=G, h_l=h_l, h_u=None)
    res = solve(prob, backend)
    assert res.status == "solved"
    ref = np.zeros(n)
    ref[0] = 1.0
    np.testing.assert_allclose(res.x, ref, atol=1e-8)
    assert abs(res.obj - 1.0) <= 1e-8
    # z < 0 at lower bounds: sum row z = -1, x_i rows z_i = -(w_i - 1).
    np.testing.assert_allclose(res.z, -np.concatenate([w - 1.0, [1.0]]), atol=1e-7)


# -- infeasibility -------------------------------------------------------------------------

def random_primal_infeasible(seed, n=20):
    rng = np.random.default_rng(seed)
    M = rng.standard_normal((n, n))
    G = np.vstack([rng.standard_normal((6, n)), np.ones((2, n))])
    x0 = rng.standard_normal(n)
    g = G @ x0
    h_l = np.concatenate([g[:6] - 1, [10.0 + x0.sum(), -INF]])
    h_u = np.concatenate([g[:6] + 1, [INF, x0.sum() + 5.0]])
    return dict(P=M @ M.T + np.eye(n), c=rng.standard_normal(n), A=rng.standard_normal((3, n)),
                b=rng.standard_normal(3), G=G, h_l=h_l, h_u=h_u, x_l=np.full(n, -20.0),
                x_u=np.full(n, 20.0))


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("case", list(infeasible_primal_cases()) + ["random-30", "random-31"])
def test_primal_infeasible(backend, case):
    if case.startswith("random"):
        prob = random_primal_infeasible(int(case.split("-")[1]))
    else:
        prob = infeasible_primal_cases()[case]
    res = solve(prob, backend, options=None)
    assert res.status == "primal_infeasible", (res.status, res.iter)
    assert res.status_code == 3 and res.native_status == -2


def random_dual_infeasible(seed, n=20):
    """P = BB' of rank n - 2, d in its null space, c'd < 0, G d <= 0 with upper bounds only."""
    rng = np.random.default_rng(seed)
    B = rng.standard_normal((n, n - 2))
    d = np.linalg.svd(B.T)[2][-1]
    d = d / np.abs(d).max()
    G = rng.standard_normal((10, n))
    G -= np.outer(np.maximum(G @ d, 0.0) + 0.1, d) / (d @ d)  # now G d < 0
    assert np.all(G @ d < 0)
    c = rng.standard_normal(n)
    c -= (c @ d + 1.0) * d / (d @ d)  # c'd = -1
    return dict(P=B @ B.T, c=c, G=G, h_u=np.abs(rng.standard_normal(10)) + 1, h_l=None)


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("case", list(infeasible_dual_cases()) + ["random-40", "random-41"])
def test_dual_infeasible(backend, case):
    if case.startswith("random"):
        prob = random_dual_infeasible(int(case.split("-")[1]))
    else:
        prob = infeasible_dual_cases()[case]
    res = solve(prob, backend, options=None)
    assert res.status == "dual_infeasible", (res.status, res.iter)
    assert res.status_code == 4 and res.native_status == -3


def test_dual_infeasible_reference_cases_are_unbounded():
    """The constructed directions really are recession directions with c'd < 0 (and P d = 0)."""
    for seed in (40, 41):
        prob = random_dual_infeasible(seed)
        ref = linprog(prob["c"], A_ub=prob["G"], b_ub=prob["h_u"], bounds=[(None, None)] * 20,
                      method="highs")
        assert ref.status == 3  # unbounded (P's null space holds the ray)


def test_primal_infeasible_reference_cases_are_infeasible():
    for seed in (30, 31):
        prob = random_primal_infeasible(seed)
        G, h_l, h_u = prob["G"], prob["h_l"], prob["h_u"]
        fin_u, fin_l = np.isfinite(h_u), np.isfinite(h_l)
        ref = linprog(np.zeros(20), A_ub=np.vstack([G[fin_u], -G[fin_l]]),
                      b_ub=np.concatenate([h_u[fin_u], -h_l[fin_l]]), A_eq=prob["A"],
                      b_eq=prob["b"], bounds=[(-20, 20)] * 20, method="highs")
        assert ref.status == 2  # infeasible


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("which", ["rows", "box"])
def test_crossed_bounds(backend, which):
    """h_l > h_u or x_l > x_u: rejected naming the bounds, or reported primal infeasible."""
    prob = dict(P=np.eye(2), c=np.zeros(2))
    if which == "rows":
        prob.update(G=np.eye(2), h_l=[0.0, 2.0], h_u=[1.0, 1.0])
    else:
        prob.update(x_l=[0.0, 2.0], x_u=[1.0, 1.0])
    try:
        res = solve(prob, backend, options=None)
    except ValueError as e:
        pair = ("h_l", "h_u") if which == "rows" else ("x_l", "x_u")
        assert names(str(e), pair[0]) or names(str(e), pair[1]), str(e)
    else:
        assert res.status in ("primal_infeasible", "error"), res.status
