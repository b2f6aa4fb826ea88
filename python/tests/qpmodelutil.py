"""Shared pieces of the tests of `sc.qp` (test_qp_model.py, test_qp_export.py): one QP
structure with every kind of bound and its seeded cases, the reference solve and the NumPy KKT
check, and the fixtures: a private JIT cache per test module and each Function traced once.
"""

import numpy as np
import pytest

import scaly as sc
from scaly.solvers import solve_qp

INF = np.inf

# -- one QP structure with every kind of bound ---------------------------------------------
# n = 6 variables, p = 2 equality rows, m = 3 rows of G (two-sided, upper only, lower only);
# variables bounded on both sides, below, above or not at all. P is sparse (16 nonzeros).

P = np.array([
    [0.8579, 0.0, 0.0, 0.0, 0.0, 0.0],
    [0.0, 0.9657, -0.4132, 0.0, 0.0, 0.0],
    [0.0, -0.4132, 1.0629, 0.4116, 0.0, 0.0],
    [0.0, 0.0, 0.4116, 2.2341, 0.7995, 0.659],
    [0.0, 0.0, 0.0, 0.7995, 1.6165, 0.4342],
    [0.0, 0.0, 0.0, 0.659, 0.4342, 1.4931]])
A = np.array([
    [0.0, 0.8844, -0.5836, 0.0, 0.0, 0.0],
    [-1.2251, 0.0, 1.3588, -1.5471, 0.8594, 0.0]])
G = np.array([
    [-0.6415, 2.0004, 0.7623, -1.1993, 0.0, 0.5767],
    [0.0, 0.6829, 0.0, 0.6672, 1.4385, -0.6757],
    [0.0, 0.0, 0.0, -1.1872, -0.5793, 0.0]])
H_L = np.array([-1.0, -INF, -0.5])
H_U = np.array([1.0, 0.3, INF])
X_L = np.array([-1.0, -0.2, -INF, -1.0, -INF, 0.0])
X_U = np.array([1.0, INF, 0.4, 1.0, INF, 2.0])
N, NP, NM = 6, 2, 3


def case(k):
    """(c, b) of case k, seeded: b = A x0 for a feasible x0 near 0. Cases 0-3 between
    them have bounds and rows of G active from both sides."""
    rng = np.random.default_rng(100 + k)
    x0 = np.clip(0.1 * rng.standard_normal(N), X_L, X_U)
    assert np.all(G @ x0 <= H_U) and np.all(G @ x0 >= H_L)
    return rng.standard_normal(N) * 2.0, A @ x0


CASES = range(4)
BACKEND = {True: "sparse", False: "dense"}
TOL = 1e-8


def reference(c, b, sparse=True, **data):
    """solve_qp on the same problem (constant data unless overridden)."""
    args = dict(P=P, A=A, G=G, h_l=H_L, h_u=H_U, x_l=X_L, x_u=X_U)
    args.update(data)
    res = solve_qp(args.pop("P"), c, b=b, backend=BACKEND[sparse], **args)
    assert res.status == "solved"
    return res


def check_kkt(x, y, z, z_box, c, b, P=P, A=A, G=G, h_l=H_L, h_u=H_U, x_l=X_L, x_u=X_U,
              tol=TOL):
    """The KKT conditions from x and the multipliers alone (NumPy), each to `tol` relative
    to the size of its terms (at least 1), as the solver's own stopping test measures them."""
    Pf = np.triu(P) + np.triu(P, 1).T  # the solver reads the upper triangle
    terms = [Pf @ x, c, A.T @ y, G.T @ z, z_box]
    stationarity = sum(terms)
    scale = max([1.0] + [float(np.abs(t).max(initial=0.0)) for t in terms])
    assert np.abs(stationarity).max() <= tol * scale, stationarity
    scale = max(1.0, float(np.abs(b).max(initial=0.0)))
    assert np.abs(A @ x - b).max(initial=0.0) <= tol * scale, A @ x - b
    for mult, value, lo, hi, what in ((z, G @ x, h_l, h_u, "G"), (z_box, x, x_l, x_u, "x")):
        assert np.all(value >= lo - tol) and np.all(value <= hi + tol), (what, value, lo, hi)
        up, down = np.maximum(mult, 0.0), np.maximum(-mult, 0.0)
        # No multiplier on an absent bound; complementarity on a present one.
        gap_hi = np.where(np.isfinite(hi), np.abs(np.where(np.isfinite(hi), hi, 0.0) - value), 1.0)
        gap_lo = np.where(np.isfinite(lo), np.abs(value - np.where(np.isfinite(lo), lo, 0.0)), 1.0)
        assert np.all(up * gap_hi <= tol), (what, mult, gap_hi)
        assert np.all(down * gap_lo <= tol), (what, mult, gap_lo)


def assert_matches(got, res, atol=1e-9):
    """The four outputs against a QPResult."""
    for name, g in zip(("x", "y", "z", "z_box"), got):
        np.testing.assert_allclose(g, getattr(res, name), rtol=0, atol=atol, err_msg=name)


# -- fixtures: a private cache, and each Function traced once ---------------------------------

@pytest.fixture(scope="module", autouse=True)
def private_cache(tmp_path_factory):
    """A private JIT cache for the module: the tests never touch the user's cache."""
    patch = pytest.MonkeyPatch()
    patch.setenv("SCALY_CACHE_DIR", str(tmp_path_factory.mktemp("qp-model-cache")))
    patch.delenv("SCALY_CC", raising=False)
    patch.delenv("SCALY_CC_OPT", raising=False)
    yield
    patch.undo()


def named(name, decls, outputs, body):
    """`sc.function(*decls, outputs=outputs)` of `body`, traced under `name`."""
    body.__name__ = body.__qualname__ = name
    return sc.function(*decls, outputs=outputs)(body)


FOUR = [sc.arg("x"), sc.arg("y"), sc.arg("z"), sc.arg("z_box")]


def constant_qp_function(sparse):
    """c and b inputs; P, A, G and the bounds constants; returns x, y, z, z_box."""
    def body(c, b):
        return sc.qp(P, c, A=A, b=b, G=G, h_l=H_L, h_u=H_U, x_l=X_L, x_u=X_U, sparse=sparse)
    return named(f"qp_const_{BACKEND[sparse]}", [sc.arg("c", N), sc.arg("b", NP)], FOUR, body)


_FUNCTIONS = {}


def cached(key, make):
    if key not in _FUNCTIONS:
        _FUNCTIONS[key] = make()
    return _FUNCTIONS[key]


@pytest.fixture(params=[True, False], ids=["sparse", "dense"])
def qp_const(request):
    return cached(("const", request.param), lambda: constant_qp_function(request.param))


@pytest.fixture
def qp_sparse():
    return cached(("const", True), lambda: constant_qp_function(True))


@pytest.fixture(scope="module")
def plain():
    """A Function that reaches no solver."""
    @sc.function(sc.arg("v", 2), outputs=sc.arg("w"))
    def qp_model_plain(v):
        return v * 2.0
    return qp_model_plain
