"""Shared helpers of the QP solver's tests (test_qp.py, test_qp_solver.py): seeded random
problems in every input form, a solve with tight options, and the KKT conditions of a result
computed with NumPy from x, y, z and z_box alone.

    minimize 1/2 x'Px + c'x  s.t.  Ax = b,  h_l <= Gx <= h_u,  x_l <= x <= x_u
    P x + c + A'y + G'z + z_box = 0, z > 0 at an upper bound, z < 0 at a lower one.
"""

import re

import numpy as np
import scipy.sparse as sp

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
                "iterative_refinement_eps", "verbose", "preconditioner_reuse",
                "duality_gap_extended", "polish"]
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


def qp_solver(prob, backend, options=TIGHT):
    """A QPSolver set up with `prob` (solve's problem dictionary)."""
    return QPSolver(prob["P"], prob["c"], A=prob.get("A"), b=prob.get("b"), G=prob.get("G"),
                    h_l=prob.get("h_l"), h_u=prob.get("h_u"), x_l=prob.get("x_l"),
                    x_u=prob.get("x_u"), backend=backend, options=options)


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
