"""The Maros-Meszaros QP test set: loading, conversion to solve_qp's form, and an independent check.

The data (../shared/data/maros-meszaros from the repository root, or $SCALY_MAROS_MESZAROS_DIR)
holds qpbenchmark's .mat files:

    minimize    1/2 x'Px + q'x + r
    subject to  l <= A x <= u          (+-1e20: no bound; the last n rows of A are the identity)

`check_solution` computes qpbenchmark's three residuals from x and the multipliers of the rows of
the original A (positive on an active upper bound, negative on an active lower bound), in NumPy
and SciPy only: nothing is taken from the solver.
"""

import glob
import math
import os
from typing import NamedTuple

import numpy as np
import scipy.io
import scipy.sparse as sp

REPO = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
DATA_DIR = os.environ.get("SCALY_MAROS_MESZAROS_DIR") or os.path.normpath(
    os.path.join(REPO, "..", "shared", "data", "maros-meszaros"))

# qpbenchmark reads any bound beyond 9e19 as infinite (the files hold +-1e20, a few of them
# rounded to just below 1e20).
INFINITE_BOUND = 9e19

# Tolerances of qpbenchmark's settings on the three residuals.
TOLERANCES = {"default": 1.0, "high_accuracy": 1e-9, "mid_accuracy": 1e-6, "low_accuracy": 1e-3}

# Options for solve_qp under each setting (None: the library's defaults). Mirrors what qpbenchmark
# gives PIQP: absolute tolerances, no relative ones, the duality gap checked.
SOLVER_OPTIONS = {
    "default": None,
    "high_accuracy": {"eps_abs": 1e-9, "eps_rel": 0.0, "eps_duality_gap_abs": 1e-9,
                      "eps_duality_gap_rel": 0.0},
}


def names():
    """The problems of the test set (137: EXDATA is missing), sorted."""
    return sorted(os.path.basename(p)[:-4] for p in glob.glob(os.path.join(DATA_DIR, "*.mat")))


def _infinite(v):
    v = np.asarray(v, dtype=float).copy()
    v[v >= INFINITE_BOUND] = np.inf
    v[v <= -INFINITE_BOUND] = -np.inf
    return v


class Residuals(NamedTuple):
    primal: float
    dual: float
    gap: float

    def max(self):
        return max(self.primal, self.dual, self.gap)


class Conversion:
    """How the rows of the original A were distributed among A/b, G and the bounds on x.

    `kwargs` are solve_qp's keyword arguments (besides P and c). Every original row is in
    exactly one of eq_rows, g_rows, box_rows (with its column and coefficient) or free_rows
    (rows with no bound at all, left out: their multiplier is 0).
    """

    def __init__(self, m, eq_rows, g_rows, box_rows, box_cols, box_coef, free_rows, kwargs):
        self.m = m
        self.eq_rows = np.asarray(eq_rows, dtype=np.int64)
        self.g_rows = np.asarray(g_rows, dtype=np.int64)
        self.box_rows = np.asarray(box_rows, dtype=np.int64)
        self.box_cols = np.asarray(box_cols, dtype=np.int64)
        self.box_coef = np.asarray(box_coef, dtype=float)
        self.free_rows = np.asarray(free_rows, dtype=np.int64)
        self.kwargs = kwargs

    def original_multipliers(self, y, z, z_box):
        """Multipliers of the rows of the original A from solve_qp's (y, z, z_box).

        A singleton row a x_j in [l, u] became the bound x_j in [l/a, u/a] (swapped for a < 0),
        whose multiplier z_box_j enters the stationarity as z_box_j e_j = (z_box_j / a) a e_j:
        the row's multiplier is z_box_j / a, which keeps the sign rule (positive on upper).
        """
        y_orig = np.zeros(self.m)
        if len(self.eq_rows):
            y_orig[self.eq_rows] = np.asarray(y, dtype=float)
        if len(self.g_rows):
            y_orig[self.g_rows] = np.asarray(z, dtype=float)
        if len(self.box_rows):
            y_orig[self.box_rows] = np.asarray(z_box, dtype=float)[self.box_cols] / self.box_coef
        return y_orig

    def converted_multipliers(self, y_orig):
        """The inverse map: (y, z, z_box) for solve_qp from multipliers of the original rows
        (a warm start; the multipliers of free rows are dropped)."""
        y_orig = np.asarray(y_orig, dtype=float)
        z_box = np.zeros(len(self.kwargs["c"]))
        z_box[self.box_cols] = y_orig[self.box_rows] * self.box_coef
        return y_orig[self.eq_rows], y_orig[self.g_rows], z_box

    def from_result(self, res):
        return self.original_multipliers(res.y, res.z, res.z_box)


class Problem:
    """One problem as stored: P, q, r, A, l, u, n, m (l and u keep their +-1e20)."""

    def __init__(self, name, P, q, r, A, l, u):
        self.name = name
        self.P = sp.csc_matrix(P, dtype=float)
        self.q = np.asarray(q, dtype=float).ravel()
        self.r = float(np.asarray(r, dtype=float).ravel()[0]) if np.size(r) else 0.0
        self.A = sp.csc_matrix(A, dtype=float)
        self.l = np.asarray(l, dtype=float).ravel()
        self.u = np.asarray(u, dtype=float).ravel()
        self.n = self.P.shape[0]
        self.m = self.A.shape[0]
        assert self.P.shape == (self.n, self.n) and self.A.shape[1] == self.n
        assert self.q.shape == (self.n,) and self.l.shape == self.u.shape == (self.m,)
        self._conversion = None

    def __repr__(self):
        return f"Problem({self.name!r}, n={self.n}, m={self.m})"

    def conversion(self):
        if self._conversion is None:
            self._conversion = self._convert()
        return self._conversion

    def _convert(self):
        n, m = self.n, self.m
        A = sp.csr_matrix(self.A)
        A.eliminate_zeros()
        A.sort_indices()
        l, u = _infinite(self.l), _infinite(self.u)
        counts = np.diff(A.indptr)
        x_l = np.full(n, -np.inf)
        x_u = np.full(n, np.inf)
        bounded = np.zeros(n, dtype=bool)
        eq_rows, g_rows, box_rows, box_cols, box_coef, free_rows = [], [], [], [], [], []
        for i in range(m):
            if l[i] == u[i]:
                eq_rows.append(i)
            elif l[i] == -np.inf and u[i] == np.inf:
                free_rows.append(i)
            elif counts[i] == 1 and not bounded[A.indices[A.indptr[i]]]:
                j = A.indices[A.indptr[i]]
                a = A.data[A.indptr[i]]
                lo, hi = l[i] / a, u[i] / a
                if a < 0:
                    lo, hi = hi, lo
                x_l[j], x_u[j] = lo, hi
                bounded[j] = True
                box_rows.append(i)
                box_cols.append(j)
                box_coef.append(a)
            else:
                g_rows.append(i)
        kwargs = {
            "P": sp.triu(self.P, format="csc"),
            "c": self.q.copy(),
            "A": sp.csc_matrix(A[eq_rows]) if eq_rows else None,
            "b": l[eq_rows].copy() if eq_rows else None,
            "G": sp.csc_matrix(A[g_rows]) if g_rows else None,
            "h_l": l[g_rows].copy() if g_rows else None,
            "h_u": u[g_rows].copy() if g_rows else None,
            "x_l": x_l,
            "x_u": x_u,
        }
        return Conversion(m, eq_rows, g_rows, box_rows, box_cols, box_coef, free_rows, kwargs)

    def to_scaly(self):
        """Keyword arguments for scaly.solvers.solve_qp (a fresh dict; the arrays are shared)."""
        return dict(self.conversion().kwargs)

    def original_multipliers(self, y, z, z_box):
        return self.conversion().original_multipliers(y, z, z_box)

    def multipliers_from_result(self, res):
        return self.conversion().from_result(res)

    def objective(self, x):
        """1/2 x'Px + q'x + r."""
        x = np.asarray(x, dtype=float)
        return 0.5 * x @ (self.P @ x) + self.q @ x + self.r


def load_maros_meszaros(name):
    mat = scipy.io.loadmat(os.path.join(DATA_DIR, name + ".mat"))
    prob = Problem(name, mat["P"], mat["q"], mat["r"], mat["A"], mat["l"], mat["u"])
    assert prob.n == int(np.ravel(mat["n"])[0]) and prob.m == int(np.ravel(mat["m"])[0])
    return prob


def _inf_norm(v):
    v = np.asarray(v)
    if v.size == 0:
        return 0.0
    if not np.all(np.isfinite(v)):
        return np.inf
    return float(np.max(np.abs(v)))


def _two_product(a, b):
    """p + e == a * b exactly, elementwise (Dekker's product; |a|, |b| well below 1e300)."""
    p = a * b
    split = 134217729.0  # 2^27 + 1
    ca, cb = split * a, split * b
    ah, bh = ca - (ca - a), cb - (cb - b)
    al, bl = a - ah, b - bh
    e = ((ah * bh - p) + ah * bl + al * bh) + al * bl
    return p, e


def _exact_gap(P, q, x, upper_bounds, upper_y, lower_bounds, lower_y):
    """x'Px + q'x + u'y+ + l'y-, exact up to one final rounding: every product is split into
    two doubles without error and math.fsum adds them exactly."""
    C = P.tocoo()
    p1, e1 = _two_product(x[C.row], C.data)
    pieces = [*_two_product(p1, x[C.col]), *_two_product(e1, x[C.col]), *_two_product(q, x),
              *_two_product(upper_bounds, upper_y), *_two_product(lower_bounds, lower_y)]
    return math.fsum(np.concatenate(pieces))


def check_solution(problem, x, y, precision="exact"):
    """qpbenchmark's residuals of (x, y) for the original problem (y: multipliers of A's rows).

    primal: how far A x lies outside [l, u]; dual: ||P x + q + A'y||; gap:
    |x'Px + q'x + sum(u_i y_i, y_i > 0) + sum(l_i y_i, y_i < 0)|; all absolute, infinity norm.
    An infinite bound with a zero multiplier adds nothing to the gap; a nonzero multiplier on an
    infinite side makes it infinite. Non-finite x or y give infinite residuals.

    precision "exact" (the default) evaluates the given doubles x, y accurately: the gap exactly
    (then rounded once), the primal and dual residuals in x86 extended precision (np.longdouble).
    The gap adds terms of the size of the objective: in double precision its value is rounded
    to a multiple of the objective's last bit (2^-26 near 1e8), often above 1e-9. "double" is
    qpbenchmark's arithmetic (plain NumPy double precision).
    """
    if precision not in ("exact", "double"):
        raise ValueError(f"precision must be 'exact' or 'double', got {precision!r}")
    ftype = np.longdouble if precision == "exact" else np.float64
    x = np.asarray(x, dtype=float).ravel()
    y = np.asarray(y, dtype=float).ravel()
    if x.shape != (problem.n,) or y.shape != (problem.m,):
        raise ValueError(f"shapes: x {x.shape}, y {y.shape} for n={problem.n}, m={problem.m}")
    if not (np.all(np.isfinite(x)) and np.all(np.isfinite(y))):
        return Residuals(np.inf, np.inf, np.inf)
    l, u = _infinite(problem.l), _infinite(problem.u)
    P, A = problem.P.astype(ftype), problem.A.astype(ftype)
    q, xf, yf = problem.q.astype(ftype), x.astype(ftype), y.astype(ftype)
    Ax = A @ xf
    with np.errstate(invalid="ignore"):
        violation = np.maximum(np.maximum(Ax - u.astype(ftype), l.astype(ftype) - Ax), 0)
    primal = _inf_norm(violation) if problem.m else 0.0
    Px = P @ xf
    dual = _inf_norm(Px + q + A.T @ yf)
    upper, lower = y > 0, y < 0
    if np.any(np.isinf(u[upper])) or np.any(np.isinf(l[lower])):
        gap = np.inf
    elif precision == "exact":
        gap = abs(_exact_gap(problem.P, problem.q, x, u[upper], y[upper], l[lower], y[lower]))
    else:
        gap = abs(float(x @ (problem.P @ x) + problem.q @ x + u[upper] @ y[upper]
                        + l[lower] @ y[lower]))
    return Residuals(float(primal), float(dual), float(gap))


def is_success(setting, status, residuals):
    """qpbenchmark's verdict: the solver says solved, and every residual within the setting's
    tolerance (1 for "default", 1e-9 for "high_accuracy")."""
    tol = TOLERANCES[setting]
    return status == "solved" and all(r <= tol for r in residuals)


def solve_and_check(problem, setting="high_accuracy", backend="sparse", options=None, **extra):
    """Solves with scaly.solvers.solve_qp and checks independently.

    Returns (result, y_orig, residuals, success)."""
    from scaly.solvers import solve_qp

    if options is None:
        options = SOLVER_OPTIONS[setting]
    res = solve_qp(**problem.to_scaly(), backend=backend, options=options, **extra)
    y_orig = problem.multipliers_from_result(res)
    residuals = check_solution(problem, res.x, y_orig)
    return res, y_orig, residuals, is_success(setting, res.status, residuals)
