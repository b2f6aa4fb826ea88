"""The QP solver (scaly.solvers.solve_qp / QPSolver) against independent references.

    minimize 1/2 x'Px + c'x  s.t.  Ax = b,  h_l <= Gx <= h_u,  x_l <= x <= x_u
    P x + c + A'y + G'z + z_box = 0, z > 0 at an upper bound, z < 0 at a lower one.

Every solution is checked here from x, y, z and z_box alone (the KKT conditions, computed
with NumPy), and against closed forms, numpy.linalg.solve on KKT systems, and
scipy.optimize.linprog (HiGHS). Problems are small and seeded.
"""

import os
import re
import subprocess
import sys
import textwrap

import numpy as np
import pytest
import scipy.sparse as sp
from scipy.optimize import linprog, minimize

from scaly.solvers import QPSolver, solve_qp

BACKENDS = ["sparse", "dense"]
INF = np.inf
TIGHT = {"eps_abs": 1e-11, "eps_rel": 1e-12, "eps_duality_gap_abs": 1e-11,
         "eps_duality_gap_rel": 1e-12}
STATUS_CODES = {"solved": 0, "acceptable": 1, "max_iter": 2, "primal_infeasible": 3,
                "dual_infeasible": 4, "numerics": 5, "user_stop": 6, "error": 7}
OPTION_NAMES = ["eps_abs", "eps_rel", "check_duality_gap", "eps_duality_gap_abs",
                "eps_duality_gap_rel", "max_iter", "rho_init", "delta_init", "reg_lower_limit",
                "reg_finetune_lower_limit", "max_factor_retries", "preconditioner_iter",
                "preconditioner_scale_cost", "tau", "iterative_refinement_max_iter",
                "iterative_refinement_eps", "verbose"]
STATS_FIELDS = ["version", "status", "native_status", "iter", "obj", "t_total", "t_fe",
                "t_solver", "t_qp", "t_globalization", "t_glue", "n_eval_f", "n_eval_grad_f",
                "n_eval_g", "n_eval_jac_g", "n_eval_h", "primal_viol", "step_inf", "alpha",
                "merit_penalty", "backtracks", "qp_iter"]


# -- problems ------------------------------------------------------------------------------

def random_sparse(rng, rows, cols, density):
    """A dense array with about `density` of its entries nonzero (standard normal)."""
    mask = rng.random((rows, cols)) < density
    return np.where(mask, rng.standard_normal((rows, cols)), 0.0)


def random_qp(seed, n=30, p=5, m=20, density=0.3):
    """A strictly convex QP with a known feasible point and a mix of every kind of bound.

    G rows cycle through two-sided, lower only, upper only, equality (h_l == h_u) and free;
    variables through two-sided, lower only, upper only, free. Bounds lie close to the
    feasible point and c is large, so many constraints are active at the optimum.
    """
    rng = np.random.default_rng(seed)
    B = random_sparse(rng, n, n, density)
    P = B @ B.T + 0.3 * np.eye(n)
    A = random_sparse(rng, p, n, density)
    A[np.arange(p), rng.choice(n, p, replace=False)] += 2.0  # full row rank (almost surely)
    G = random_sparse(rng, m, n, density)
    G[np.arange(m), rng.integers(0, n, m)] += 1.0  # no empty row
    x_feas = rng.standard_normal(n)
    b = A @ x_feas
    g = G @ x_feas
    h_l, h_u = np.full(m, -INF), np.full(m, INF)
    for j in range(m):
        kind = j % 5
        if kind in (0, 1):
            h_l[j] = g[j] - rng.uniform(0.0, 0.5)
        if kind in (0, 2):
            h_u[j] = g[j] + rng.uniform(0.0, 0.5)
        if kind == 3:
            h_l[j] = h_u[j] = g[j]
    x_l, x_u = np.full(n, -INF), np.full(n, INF)
    for i in range(n):
        kind = i % 4
        if kind in (0, 1):
            x_l[i] = x_feas[i] - rng.uniform(0.0, 0.5)
        if kind in (0, 2):
            x_u[i] = x_feas[i] + rng.uniform(0.0, 0.5)
    c = 3.0 * rng.standard_normal(n)
    return dict(P=P, c=c, A=A, b=b, G=G, h_l=h_l, h_u=h_u, x_l=x_l, x_u=x_u)


def as_kind(prob, kind):
    """The problem with its matrices as `kind`: dense ndarray, or a scipy.sparse format.

    Sparse P is passed as its upper triangle only for csc, in full for the others.
    """
    out = dict(prob)
    for key in ("P", "A", "G"):
        M = prob.get(key)
        if M is None:
            continue
        if kind == "dense":
            out[key] = np.array(M)
        elif kind == "csc":
            out[key] = sp.csc_matrix(np.triu(M) if key == "P" else M)
        elif kind == "csr":
            out[key] = sp.csr_array(M)
        elif kind == "coo":
            out[key] = sp.coo_matrix(M)
        elif kind == "list":
            out[key] = np.array(M).tolist()
        else:
            raise AssertionError(kind)
    return out


def solve(prob, backend="sparse", options=TIGHT, **kw):
    return solve_qp(prob["P"], prob["c"], A=prob.get("A"), b=prob.get("b"), G=prob.get("G"),
                    h_l=prob.get("h_l"), h_u=prob.get("h_u"), x_l=prob.get("x_l"),
                    x_u=prob.get("x_u"), backend=backend, options=options, **kw)


def dense(M, rows, cols):
    if M is None:
        return np.zeros((rows, cols))
    return M.toarray() if sp.issparse(M) else np.asarray(M, dtype=float)


def full_P(P, n):
    """The symmetric matrix the solver sees: the upper triangle of P, mirrored."""
    U = np.triu(dense(P, n, n))
    return U + np.triu(U, 1).T


def shape(M):
    return M.shape if sp.issparse(M) else np.asarray(M).shape


def names(text, name):
    """Whether the message `text` names the argument `name` (as a word)."""
    return re.search(rf"(?<![A-Za-z0-9_]){re.escape(name)}(?![A-Za-z0-9_])", text) is not None


def vec_or(v, size, fill):
    return np.full(size, fill) if v is None else np.asarray(v, dtype=float)


def kkt_residuals(prob, res):
    """Max scaled violations of stationarity, feasibility and complementarity, and sign errors."""
    n = len(prob["c"])
    A = prob.get("A")
    G = prob.get("G")
    p = 0 if A is None else shape(A)[0]
    m = 0 if G is None else shape(G)[0]
    P = full_P(prob["P"], n)
    A = dense(A, p, n)
    G = dense(G, m, n)
    c = np.asarray(prob["c"], dtype=float)
    b = vec_or(prob.get("b"), p, 0.0)
    h_l = vec_or(prob.get("h_l"), m, -INF)
    h_u = vec_or(prob.get("h_u"), m, INF)
    x_l = vec_or(prob.get("x_l"), n, -INF)
    x_u = vec_or(prob.get("x_u"), n, INF)
    h_l[h_l <= -1e20], h_u[h_u >= 1e20] = -INF, INF
    x_l[x_l <= -1e20], x_u[x_u >= 1e20] = -INF, INF
    x, y, z, zb = res.x, res.y, res.z, res.z_box
    assert x.shape == (n,) and y.shape == (p,) and z.shape == (m,) and zb.shape == (n,)
    for v in (x, y, z, zb):
        assert np.all(np.isfinite(v))
    Px, Aty, Gtz, Gx, Ax = P @ x, A.T @ y, G.T @ z, G @ x, A @ x
    terms = [Px, c, Aty, Gtz, zb]
    scale_d = 1.0 + max(np.max(np.abs(t), initial=0.0) for t in terms)
    stationarity = np.max(np.abs(Px + c + Aty + Gtz + zb), initial=0.0) / scale_d

    def viol(lo, val, hi):
        v = np.maximum(np.where(np.isfinite(lo), lo - val, 0.0),
                       np.where(np.isfinite(hi), val - hi, 0.0))
        return np.max(np.maximum(v, 0.0), initial=0.0)

    scale_p = 1.0 + max(np.max(np.abs(b), initial=0), np.max(np.abs(Gx), initial=0),
                        np.max(np.abs(x), initial=0), np.max(np.abs(Ax), initial=0))
    primal = max(np.max(np.abs(Ax - b), initial=0.0), viol(h_l, Gx, h_u),
                 viol(x_l, x, x_u)) / scale_p

    def compl(lo, val, hi, mult):
        """Per side: z+ (h_u - Gx) and z- (Gx - h_l); a multiplier at an absent side is an error."""
        up, down = np.maximum(mult, 0.0), np.maximum(-mult, 0.0)
        with np.errstate(invalid="ignore"):
            c_up = np.where(np.isfinite(hi), up * np.abs(hi - val), 0.0)
            c_down = np.where(np.isfinite(lo), down * np.abs(val - lo), 0.0)
        sign = max(np.max(np.where(np.isfinite(hi), 0.0, up), initial=0.0),
                   np.max(np.where(np.isfinite(lo), 0.0, down), initial=0.0))
        return max(np.max(c_up, initial=0.0), np.max(c_down, initial=0.0)), sign

    scale_z = 1.0 + max(np.max(np.abs(z), initial=0.0), np.max(np.abs(zb), initial=0.0))
    cg, sg = compl(h_l, Gx, h_u, z)
    cb, sb = compl(x_l, x, x_u, zb)
    return dict(stationarity=stationarity, primal=primal,
                complementarity=max(cg, cb) / (scale_z * scale_p),
                sign=max(sg, sb) / scale_z)


def assert_kkt(prob, res, tol=1e-9):
    assert res.status == "solved", (res.status, res.iter)
    r = kkt_residuals(prob, res)
    bad = {k: v for k, v in r.items() if not v <= tol}
    assert not bad, (bad, tol)
    n = len(prob["c"])
    P = full_P(prob["P"], n)
    obj = 0.5 * res.x @ P @ res.x + np.asarray(prob["c"]) @ res.x
    assert abs(res.obj - obj) <= 1e-9 * (1.0 + abs(obj))


def objective(prob, x):
    P = full_P(prob["P"], len(prob["c"]))
    return 0.5 * x @ P @ x + np.asarray(prob["c"]) @ x


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

def infeasible_primal_cases():
    e2 = np.eye(2)
    return {
        # x1 + x2 = 1, x1 + x2 <= 0, x >= 0
        "equality-vs-row": dict(P=e2, c=np.zeros(2), A=[[1.0, 1.0]], b=[1.0],
                                G=[[1.0, 1.0]], h_u=[0.0], x_l=np.zeros(2)),
        # x1 <= -1 and x1 >= 1 as two rows
        "conflicting-rows": dict(P=e2, c=np.ones(2), G=[[1.0, 0.0], [1.0, 0.0]],
                                 h_l=[-INF, 1.0], h_u=[-1.0, INF]),
        # x1 = 5 but x1 <= 1
        "equality-vs-box": dict(P=e2, c=np.zeros(2), A=[[1.0, 0.0]], b=[5.0],
                                x_u=[1.0, INF]),
        # x1 + x2 = 1 and x1 + x2 = 2
        "inconsistent-equalities": dict(P=e2, c=np.zeros(2), A=[[1.0, 1.0], [1.0, 1.0]],
                                        b=[1.0, 2.0]),
        # equality rows of G conflicting with a two-sided row
        "g-equality-vs-g-range": dict(P=e2, c=np.zeros(2), G=[[1.0, 1.0], [2.0, 2.0]],
                                      h_l=[3.0, -1.0], h_u=[3.0, 1.0]),
        # LP: x >= 0 boxes, x1 + x2 <= -1
        "lp-box-vs-row": dict(P=np.zeros((2, 2)), c=np.ones(2), G=[[1.0, 1.0]], h_u=[-1.0],
                              x_l=np.zeros(2), x_u=np.full(2, INF)),
    }


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


def infeasible_dual_cases():
    return {
        # P = diag(1, 0), c2 < 0, nothing bounds x2
        "free-direction": dict(P=np.diag([1.0, 0.0]), c=np.array([0.0, -1.0])),
        # LP: min -x1 - x2, x >= 0
        "lp-positive-orthant": dict(P=np.zeros((2, 2)), c=-np.ones(2), x_l=np.zeros(2)),
        # P = 0, min -x1 s.t. x1 - x2 = 0, x2 >= 0
        "lp-equality-ray": dict(P=np.zeros((2, 2)), c=np.array([-1.0, 0.0]),
                                A=[[1.0, -1.0]], b=[0.0], x_l=[-INF, 0.0]),
        # rank-one P, the direction d = (1, -1) in its null space, c'd < 0,
        # rows bounded above only, with G d <= 0
        "rank-deficient-rows": dict(P=np.ones((2, 2)), c=np.array([-1.0, 1.0]),
                                    G=[[-1.0, 2.0], [-1.0, 1.0]], h_u=[1.0, 1.0]),
        "rank-deficient-one-row": dict(P=np.ones((2, 2)), c=np.array([-1.0, 1.0]),
                                       G=[[-1.0, 2.0]], h_u=[1.0]),
        # the same with G d = 0 on the row (detected)
        "rank-deficient-parallel-row": dict(P=np.ones((2, 2)), c=np.array([-1.0, 1.0]),
                                            G=[[-1.0, 1.0]], h_u=[1.0]),
        # P = 0, min -x1 s.t. x1 = x2, nothing else
        "lp-equality-ray-free": dict(P=np.zeros((2, 2)), c=np.array([-1.0, 0.0]),
                                     A=[[1.0, -1.0]], b=[0.0]),
        # bounded in x1 by a box, unbounded in x3 (a row that does not see it)
        "three-vars": dict(P=np.diag([1.0, 1.0, 0.0]), c=np.array([1.0, 1.0, 2.0]),
                           G=[[1.0, 1.0, 0.0]], h_l=[-1.0], h_u=[1.0], x_l=[-1.0, -1.0, -INF],
                           x_u=[1.0, 1.0, 5.0]),
    }


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


# -- warm start and updates ----------------------------------------------------------------

def perturbed(prob, seed, size=1e-3):
    rng = np.random.default_rng(seed)
    new = dict(prob)
    new["c"] = prob["c"] + size * rng.standard_normal(len(prob["c"]))
    new["b"] = prob["b"] + size * rng.standard_normal(len(prob["b"]))
    shift = size * rng.standard_normal(len(prob["h_l"]))
    new["h_l"] = prob["h_l"] + shift
    new["h_u"] = prob["h_u"] + shift
    return new


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("seed", [50, 51])
def test_warm_start_no_more_iterations(backend, seed):
    prob = random_qp(seed, 30, 5, 20)
    first = solve(prob, backend)
    assert first.status == "solved"
    new = perturbed(prob, seed)
    cold = solve(new, backend)
    warm = solve(new, backend, x0=first.x, y0=first.y, z0=first.z, z_box0=first.z_box)
    assert_kkt(new, cold)
    assert_kkt(new, warm)
    np.testing.assert_allclose(warm.x, cold.x, atol=1e-8)
    assert warm.iter <= cold.iter, (warm.iter, cold.iter)


@pytest.mark.parametrize("backend", BACKENDS)
def test_warm_start_through_solver_object(backend):
    prob = random_qp(52, 30, 5, 20)
    solver = QPSolver(prob["P"], prob["c"], A=prob["A"], b=prob["b"], G=prob["G"],
                      h_l=prob["h_l"], h_u=prob["h_u"], x_l=prob["x_l"], x_u=prob["x_u"],
                      backend=backend, options=TIGHT)
    first = solver.solve()
    assert_kkt(prob, first)
    new = perturbed(prob, 52)
    solver.update(c=new["c"], b=new["b"], h_l=new["h_l"], h_u=new["h_u"])
    cold = solver.solve()
    warm = solver.solve(x0=first.x, y0=first.y, z0=first.z, z_box0=first.z_box)
    assert_kkt(new, cold)
    assert_kkt(new, warm)
    assert warm.iter <= cold.iter, (warm.iter, cold.iter)
    # A warm start from the exact solution of the same problem: still correct.
    again = solver.solve(x0=warm.x, y0=warm.y, z0=warm.z, z_box0=warm.z_box)
    assert_kkt(new, again)
    assert again.iter <= cold.iter


@pytest.mark.parametrize("backend", BACKENDS)
def test_partial_warm_start(backend):
    prob = random_qp(53, 20, 3, 10)
    ref = solve(prob, backend)
    for kw in ({"x0": ref.x}, {"y0": ref.y, "z0": ref.z}, {"z_box0": ref.z_box},
               {"x0": np.full(20, 1e3)}):
        res = solve(prob, backend, **kw)
        assert_kkt(prob, res)
        np.testing.assert_allclose(res.x, ref.x, atol=1e-8)


def qp_solver(prob, backend, options=TIGHT):
    return QPSolver(prob["P"], prob["c"], A=prob.get("A"), b=prob.get("b"), G=prob.get("G"),
                    h_l=prob.get("h_l"), h_u=prob.get("h_u"), x_l=prob.get("x_l"),
                    x_u=prob.get("x_u"), backend=backend, options=options)


def same_pattern_values(M, rng):
    """New values on exactly the nonzero pattern of M."""
    out = np.array(M, dtype=float)
    nz = out != 0
    out[nz] = rng.standard_normal(nz.sum())
    return out


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("kind", ["dense", "csc"])
def test_update_matches_fresh_solve(backend, kind):
    prob = random_qp(60, 25, 4, 15)
    solver = qp_solver(as_kind(prob, kind), backend)
    assert_kkt(prob, solver.solve())
    rng = np.random.default_rng(60)
    new = perturbed(prob, 61, size=0.05)
    # Matrices: new values on the same patterns; P diagonally dominant (positive definite).
    U = same_pattern_values(np.triu(prob["P"]), rng)
    Pn = U + np.triu(U, 1).T
    Pn += np.diag(np.abs(Pn).sum(1) - np.abs(np.diag(Pn)) + 0.5 - np.diag(Pn))
    assert np.all(np.diag(Pn) > 0) and np.array_equal(Pn != 0, prob["P"] != 0)
    A_new = prob["A"] + 0.1 * np.where(prob["A"] != 0, rng.standard_normal(prob["A"].shape), 0)
    G_new = prob["G"] + 0.1 * np.where(prob["G"] != 0, rng.standard_normal(prob["G"].shape), 0)
    x_feas = np.linalg.lstsq(A_new, new["b"], rcond=None)[0]
    g = G_new @ x_feas
    new.update(P=Pn, A=A_new, G=G_new)
    # Keep the problem feasible around x_feas (the bounds' kinds unchanged).
    new["h_l"] = np.where(np.isfinite(prob["h_l"]), g - np.where(
        prob["h_l"] == prob["h_u"], 0.0, 0.3), -INF)
    new["h_u"] = np.where(np.isfinite(prob["h_u"]), g + np.where(
        prob["h_l"] == prob["h_u"], 0.0, 0.3), INF)
    new["x_l"] = np.where(np.isfinite(prob["x_l"]), x_feas - 0.4, -INF)
    new["x_u"] = np.where(np.isfinite(prob["x_u"]), x_feas + 0.4, INF)
    newk = as_kind(new, kind)
    solver.update(c=new["c"], b=new["b"], h_l=new["h_l"], h_u=new["h_u"], x_l=new["x_l"],
                  x_u=new["x_u"], P=newk["P"], A=newk["A"], G=newk["G"])
    got = solver.solve()
    fresh = solve(newk, backend)
    assert_kkt(new, got)
    assert_kkt(new, fresh)
    np.testing.assert_allclose(got.x, fresh.x, rtol=0, atol=1e-8)
    np.testing.assert_allclose(got.y, fresh.y, rtol=0, atol=1e-7)


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("key", ["c", "b", "h_l", "h_u", "x_l", "x_u"])
def test_update_each_argument_alone(backend, key):
    """One argument updated: the same as a fresh solve, and a different answer than before.

    Bounds are loosened where they are active (the problem stays feasible, the optimum moves).
    """
    base = random_qp(65, 15, 3, 10)
    solver = qp_solver(base, backend)
    first = solver.solve()
    assert_kkt(base, first)
    rng = np.random.default_rng(65)
    size = len(base[key])
    eq = base["h_l"] == base["h_u"]
    change = {"c": 0.5 * rng.standard_normal(size), "b": 0.01 * rng.standard_normal(size),
              "h_l": np.where((first.z < -1e-6) & ~eq, -0.05, 0.0),
              "h_u": np.where((first.z > 1e-6) & ~eq, 0.05, 0.0),
              "x_l": np.where(first.z_box < -1e-6, -0.05, 0.0),
              "x_u": np.where(first.z_box > 1e-6, 0.05, 0.0)}[key]
    assert np.any(change != 0)
    new = dict(base, **{key: base[key] + change})
    solver.update(**{key: new[key]})
    got = solver.solve()
    fresh = solve(new, backend)
    assert_kkt(new, fresh)
    assert_kkt(new, got)
    np.testing.assert_allclose(got.x, fresh.x, atol=1e-8)
    assert np.max(np.abs(got.x - first.x)) > 1e-4  # the update changed the answer


@pytest.mark.parametrize("backend", BACKENDS)
def test_update_bounds_between_finite_and_infinite(backend):
    """A bound that becomes finite (or infinite) on update: the same as a fresh solve."""
    prob = random_qp(63, 20, 3, 10)
    solver = qp_solver(prob, backend)
    assert_kkt(prob, solver.solve())
    new = dict(prob)
    new["x_u"] = np.where(np.isfinite(prob["x_u"]), INF, prob["x_l"] + 1.0)
    new["x_u"][np.isinf(prob["x_l"]) & np.isinf(prob["x_u"])] = 5.0
    new["h_u"] = np.where(prob["h_l"] == prob["h_u"], prob["h_u"], INF)
    solver.update(x_u=new["x_u"], h_u=new["h_u"])
    got = solver.solve()
    fresh = solve(new, backend)
    assert_kkt(new, fresh)
    assert_kkt(new, got)
    np.testing.assert_allclose(got.x, fresh.x, atol=1e-8)
    # ... and back.
    solver.update(x_u=prob["x_u"], h_u=prob["h_u"])
    back = solver.solve()
    assert_kkt(prob, back)


BAD_UPDATES = [
    pytest.param("c", np.ones(14), id="c-short"),
    pytest.param("c", np.full(15, np.nan), id="c-nan"),
    pytest.param("b", np.ones(4), id="b"),
    pytest.param("h_u", np.ones(9), id="h_u"),
    pytest.param("x_l", np.ones(16), id="x_l"),
    pytest.param("x0", None, id="unknown-name"),
    pytest.param("A", np.ones((3, 16)), id="A"),
    pytest.param("G", np.ones((8, 14)), id="G"),
    pytest.param("P", np.eye(14), id="P"),
]


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("name,value", BAD_UPDATES)
def test_bad_update_keeps_previous_data(backend, name, value):
    prob = random_qp(64, 15, 3, 8)
    solver = qp_solver(prob, backend)
    ref = solver.solve()
    with pytest.raises((ValueError, TypeError)) as info:
        solver.update(**{name: value})
    assert names(str(info.value), name), str(info.value)
    res = solver.solve()
    assert_kkt(prob, res)
    np.testing.assert_allclose(res.x, ref.x, atol=1e-10)


@pytest.mark.parametrize("backend", BACKENDS)
def test_update_with_a_new_pattern_is_rejected_or_correct(backend):
    """A P with an entry outside the setup pattern: an error naming P, or the right answer."""
    prob = random_qp(65, 10, 2, 5, density=0.2)
    solver = qp_solver(prob, backend)
    solver.solve()
    P2 = prob["P"] + 0.1 * np.ones((10, 10))
    try:
        solver.update(P=sp.csc_matrix(P2))
    except ValueError as e:
        assert names(str(e), "P"), str(e)
        assert_kkt(prob, solver.solve())
        return
    res = solver.solve()
    assert_kkt(dict(prob, P=P2), res)


# -- options -------------------------------------------------------------------------------

# The unconstrained optimum (-0.5, 1) violates x1 + x2 <= 0.2: the row is strictly active.
SMALL = dict(P=np.diag([2.0, 1.0]), c=np.array([1.0, -1.0]), G=np.array([[1.0, 1.0]]),
             h_l=np.array([-1.0]), h_u=np.array([0.2]))
SMALL_X = np.array([-0.6, 0.8])  # 2 x1 + 1 + z = 0, x2 - 1 + z = 0, x1 + x2 = 0.2: z = 0.2


def test_every_documented_option_is_accepted():
    values = {"check_duality_gap": 0, "max_iter": 100, "max_factor_retries": 5,
              "preconditioner_iter": 0, "preconditioner_scale_cost": 1,
              "iterative_refinement_max_iter": 3, "verbose": 0, "tau": 0.95, "rho_init": 1e-5,
              "delta_init": 1e-3}
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
    from test_qp import BACKENDS, NONCONVEX_CASES, nonconvex_case
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
    them it says 'max_iter'. Both points are checked against the KKT residuals."""
    rng = np.random.default_rng(11)
    n = 30
    M = rng.standard_normal((n, n))
    P = M @ M.T + np.eye(n)
    c = rng.standard_normal(n)
    G = rng.standard_normal((10, n))
    args = dict(G=G, h_l=-np.ones(10), h_u=np.ones(10), x_l=-np.ones(n), x_u=np.ones(n))
    full = solve_qp(P, c, **args)
    assert full.status == "solved" and full.iter > 4
    statuses = {}
    for k in range(1, full.iter):
        res = solve_qp(P, c, **args, options={"max_iter": k})
        statuses[k] = res.status
        assert res.status in ("acceptable", "max_iter")
        stationarity = np.abs(P @ res.x + c + G.T @ res.z + res.z_box).max()
        if res.status == "acceptable":
            scale = max(1.0, np.abs(P @ res.x).max(), np.abs(c).max())
            assert stationarity <= 1e3 * (1e-8 + 1e-9 * scale) * 10
            assert res.dual_res == pytest.approx(stationarity, rel=1e-3, abs=1e-12)
    assert statuses[1] == "max_iter" and statuses[full.iter - 1] == "acceptable"


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
