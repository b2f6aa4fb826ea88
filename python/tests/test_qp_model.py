"""`sc.qp` inside traced Functions: results, statistics, call-time options, bad data, bad
authoring and the exported C (module + solver wrappers + a C main).

    minimize 1/2 x'Px + c'x  s.t.  Ax = b,  h_l <= Gx <= h_u,  x_l <= x <= x_u
    P x + c + A'y + G'z + z_box = 0, z > 0 at an upper bound, z < 0 at a lower one.

References: `scaly.solvers.solve_qp` (the same QP library, called directly) and an
independent check of the KKT conditions in NumPy. Each Function is traced once per module
(fixtures) and compiles once into a private cache.
"""

import re
import shutil
import subprocess
import textwrap
from pathlib import Path

import numpy as np
import pytest

import scaly as sc
from scaly.solvers import native_paths, solve_qp

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


# -- 1. Expr c and b, constant matrices ----------------------------------------------------

@pytest.mark.parametrize("k", CASES)
def test_constant_matrices(qp_const, k):
    sparse = qp_const.name.endswith("sparse")
    c, b = case(k)
    out = qp_const(c, b)
    assert [o.shape for o in out] == [(N,), (NP,), (NM,), (N,)]
    res = reference(c, b, sparse)
    assert_matches(out, res)
    check_kkt(*out, c, b)
    assert qp_const.stats()["status"] == "solved"


def test_active_sets_differ():
    """The cases exercise bounds and rows of G, active from both sides."""
    active = set()
    for k in CASES:
        c, b = case(k)
        res = reference(c, b)
        active |= {("x", int(np.sign(v))) for v in res.z_box if abs(v) > 1e-3}
        active |= {("G", int(np.sign(v))) for v in res.z if abs(v) > 1e-3}
    assert active == {("x", 1), ("x", -1), ("G", 1), ("G", -1)}


def test_single_output_and_scalar_b():
    """The brief's form: b = sc.stack([u]) of a scalar input, x the only output."""
    A1 = A[:1]

    def body(c, u):
        x, y, z, z_box = sc.qp(P, c, A=A1, b=sc.stack([u]), G=G, h_l=H_L, h_u=H_U, x_l=X_L,
                               x_u=X_U)
        return x
    f = cached("single", lambda: named("qp_single", [sc.arg("c", N), sc.arg("u", ())],
                                       sc.arg("x"), body))
    c, _ = case(0)
    x = f(c, 0.25)
    assert x.shape == (N,)
    res = reference(c, [0.25], A=A1)
    np.testing.assert_allclose(x, res.x, rtol=0, atol=1e-9)


# -- 2. Expr matrices ------------------------------------------------------------------------

def expr_matrix_function(sparse):
    """P = L L' + 0.1 I of an input L, G an input; c input; A constant, b constant."""
    b0 = np.array([0.1, -0.2])

    def body(L, Gm, c):
        Pm = L @ L.T + 0.1 * np.eye(N)
        return sc.qp(Pm, c, A=A, b=b0, G=Gm, h_l=H_L, h_u=H_U, x_l=X_L, x_u=X_U, sparse=sparse)
    return named(f"qp_exprmat_{BACKEND[sparse]}",
                 [sc.arg("L", (N, N)), sc.arg("G", (NM, N)), sc.arg("c", N)], FOUR, body)


@pytest.mark.parametrize("sparse", [True, False], ids=["sparse", "dense"])
@pytest.mark.parametrize("k", range(3))
def test_expr_matrices(sparse, k):
    f = cached(("exprmat", sparse), lambda: expr_matrix_function(sparse))
    rng = np.random.default_rng(200 + k)
    L = rng.standard_normal((N, N)) * 0.6
    Gm = G + 0.3 * rng.standard_normal((NM, N))
    c = rng.standard_normal(N) * 2.0
    b0 = np.array([0.1, -0.2])
    Pn = L @ L.T + 0.1 * np.eye(N)
    out = f(L, Gm, c)
    res = reference(c, b0, sparse, P=Pn, G=Gm)
    # The same library; the patterns differ (the Expr matrices are stored whole).
    assert_matches(out, res, atol=1e-7)
    check_kkt(*out, c, b0, P=Pn, G=Gm)
    assert f.stats()["status"] == "solved"


# -- 3. vmap over a Function containing sc.qp --------------------------------------------------

BATCH = 11  # not a multiple of the vector lanes


@pytest.fixture(scope="module")
def batched():
    one = constant_qp_function(True)

    def body(C, B):
        return sc.vmap(one, BATCH)(C, B)
    return named("qp_batched", [sc.arg("C", (BATCH, N)), sc.arg("B", (BATCH, NP))],
                 [sc.arg("X"), sc.arg("Y"), sc.arg("Z"), sc.arg("Z_box")], body)


def test_vmap(batched):
    C, B = (np.array(v) for v in zip(*[case(4 + i) for i in range(BATCH)]))
    X, Y, Z, Zb = batched(C, B)
    assert X.shape == (BATCH, N) and Y.shape == (BATCH, NP) and Z.shape == (BATCH, NM)
    for i in range(BATCH):
        res = reference(C[i], B[i])
        assert_matches((X[i], Y[i], Z[i], Zb[i]), res)
        check_kkt(X[i], Y[i], Z[i], Zb[i], C[i], B[i])
    # The statistics are those of the last problem of the batch.
    st = batched.stats()
    last = reference(C[-1], B[-1])
    assert st["status"] == "solved" and st["iter"] == last.iter
    assert st["obj"] == pytest.approx(last.obj, rel=1e-12, abs=1e-12)


# -- 4. stats() --------------------------------------------------------------------------------

def check_stats(st):
    assert st["version"] == 3
    assert st["status"] == "solved" and st["native_status"] == "solved"
    assert st["iter"] > 0 and st["qp_iter"] == st["iter"]
    assert st["t_qp"] > 0 and st["t_total"] >= st["t_qp"]
    parts = st["t_fe"] + st["t_solver"] + st["t_qp"] + st["t_globalization"] + st["t_glue"]
    assert abs(st["t_total"] - parts) <= 1e-12
    assert all(st[f] == 0 for f in ("n_eval_f", "n_eval_grad_f", "n_eval_g", "n_eval_jac_g",
                                    "n_eval_h", "backtracks"))


def test_stats_follow_the_latest_call(qp_const):
    sparse = qp_const.name.endswith("sparse")
    seen = []
    for k in (0, 1, 2, 0):
        c, b = case(k)
        qp_const(c, b)
        st = qp_const.stats()
        check_stats(st)
        res = reference(c, b, sparse)
        assert st["iter"] == res.iter
        assert st["obj"] == pytest.approx(res.obj, rel=1e-12, abs=1e-12)
        assert st["obj"] == pytest.approx(0.5 * res.x @ (P @ res.x) + c @ res.x, rel=1e-7)
        seen.append(st["obj"])
    assert len(set(seen[:3])) == 3 and seen[3] == pytest.approx(seen[0], rel=1e-12)


def test_stats_without_a_solver(plain):
    with pytest.raises(TypeError, match="qp_model_plain reaches no solver"):
        plain.stats()
    np.testing.assert_array_equal(plain(np.array([1.0, 2.0])), [2.0, 4.0])
    with pytest.raises(TypeError, match="qp_model_plain reaches no solver"):
        plain.stats()


# -- 5. call-time options ------------------------------------------------------------------------

def test_max_iter_option_does_not_stick(qp_const):
    sparse = qp_const.name.endswith("sparse")
    c, b = case(0)
    res = reference(c, b, sparse)
    out = qp_const(c, b, options={"max_iter": 1})
    st = qp_const.stats()
    assert st["status"] == "max_iter" and st["iter"] == 1
    assert np.abs(out[0] - res.x).max() > 1e-3  # not the solution
    out = qp_const(c, b)  # no options: the defaults again
    assert qp_const.stats()["status"] == "solved"
    assert_matches(out, res)
    # One dict per solver, as a list.
    qp_const(c, b, options=[{"max_iter": 1}])
    assert qp_const.stats()["status"] == "max_iter"
    qp_const(c, b, options=[None])
    assert qp_const.stats()["status"] == "solved"


def test_tolerance_options(qp_sparse):
    c, b = case(1)
    out = qp_sparse(c, b, options={"max_iter": 100, "eps_abs": 1e-9, "eps_rel": 1e-10})
    st = qp_sparse.stats()
    check_stats(st)
    res = solve_qp(P, c, A=A, b=b, G=G, h_l=H_L, h_u=H_U, x_l=X_L, x_u=X_U,
                   options={"max_iter": 100, "eps_abs": 1e-9, "eps_rel": 1e-10})
    assert st["iter"] == res.iter
    assert_matches(out, res)
    check_kkt(*out, c, b, tol=1e-9)


@pytest.mark.parametrize("options, exc, match", [
    ({"no_such_option": 1.0}, ValueError, "no_such_option"),
    ({"max_iter": 1, "no_such_option": 1.0}, ValueError, "no_such_option"),
    ({"max_iter": "5"}, TypeError, "max_iter"),
    ({"eps_abs": None}, TypeError, "eps_abs"),
    ({"eps_abs": -1e-6}, ValueError, "eps_abs"),
    ({"eps_rel": -1.0}, ValueError, "eps_rel"),
    ({"max_iter": 0}, ValueError, "max_iter"),
], ids=["unknown", "unknown-after-good", "string", "none", "negative-eps_abs",
        "negative-eps_rel", "zero-max_iter"])
def test_bad_options_raise_before_solving(qp_sparse, options, exc, match):
    c, b = case(2)
    qp_sparse(c, b)
    before = qp_sparse.stats()
    assert before["status"] == "solved"
    with pytest.raises(exc, match=match):
        qp_sparse(c + 1.0, b, options=options)
    assert qp_sparse.stats() == before  # nothing was solved
    # and no bad value stuck: the next call with options solves with the defaults
    out = qp_sparse(c, b, options={})
    assert qp_sparse.stats()["status"] == "solved"
    assert_matches(out, reference(c, b))


@pytest.mark.parametrize("options, exc, match", [
    ("max_iter", TypeError, "options must be a dict"),
    ([{"max_iter": 1}, {"max_iter": 1}], ValueError, "options lists 2 solvers"),
    ([], ValueError, "options lists 0 solvers"),
], ids=["str", "two-dicts", "empty-list"])
def test_bad_options_container(qp_sparse, options, exc, match):
    c, b = case(3)
    qp_sparse(c, b)
    before = qp_sparse.stats()
    with pytest.raises(exc, match=match):
        qp_sparse(c, b, options=options)
    assert qp_sparse.stats() == before


def test_options_without_a_solver(plain):
    with pytest.raises(TypeError, match="reaches no solver"):
        plain(np.array([1.0, 2.0]), options={"max_iter": 1})


# -- 6. bad data at run time ------------------------------------------------------------------

@pytest.mark.parametrize("where", ["c", "b"])
def test_nan_data_then_good(qp_const, where):
    sparse = qp_const.name.endswith("sparse")
    c, b = case(1)
    bad_c, bad_b = c.copy(), b.copy()
    (bad_c if where == "c" else bad_b)[0] = np.nan
    out = qp_const(bad_c, bad_b)
    for o in out:
        assert np.isnan(o).all()
    st = qp_const.stats()
    assert st["version"] == 3 and st["status"] == "error"
    assert st["native_status"] == "invalid_data" and st["iter"] == 0
    out = qp_const(c, b)
    assert qp_const.stats()["status"] == "solved"
    assert_matches(out, reference(c, b, sparse))


def free_P_function(sparse):
    """P itself an input (any 2x2 matrix), box bounds only."""
    def body(Pm, c):
        return sc.qp(Pm, c, x_l=[-2.0, -2.0], x_u=[2.0, 2.0], sparse=sparse)
    return named(f"qp_freeP_{BACKEND[sparse]}", [sc.arg("P", (2, 2)), sc.arg("c", 2)], FOUR,
                 body)


@pytest.mark.parametrize("first", [False, True], ids=["after-good", "first-call"])
@pytest.mark.parametrize("sparse", [True, False], ids=["sparse", "dense"])
def test_nonconvex_P_then_good(sparse, first):
    # first=True: a new Function whose very first call has the non-convex P (no solver yet)
    key = ("freeP", sparse, first)
    f = cached(key, lambda: free_P_function(sparse))
    good_P = np.array([[2.0, 0.5], [0.5, 1.0]])
    bad_P = np.array([[1.0, 0.0], [0.0, -1.0]])
    c = np.array([1.0, -3.0])
    res = solve_qp(good_P, c, x_l=[-2.0, -2.0], x_u=[2.0, 2.0], backend=BACKEND[sparse])
    if not first:
        assert_matches(f(good_P, c), res)
    out = f(bad_P, c)
    assert np.isnan(out[0]).all() and np.isnan(out[3]).all()
    st = f.stats()
    assert st["status"] == "error" and st["native_status"] == "invalid_data"
    out = f(good_P, c)
    assert f.stats()["status"] == "solved"
    assert_matches(out, res)
    check_kkt(*out, c, np.zeros(0), P=good_P, A=np.zeros((0, 2)), G=np.zeros((0, 2)),
              h_l=np.zeros(0), h_u=np.zeros(0), x_l=np.full(2, -2.0), x_u=np.full(2, 2.0))


# -- 7. bad authoring -------------------------------------------------------------------------

def trace_qp(**overrides):
    """Trace a Function calling sc.qp with the module's data, `overrides` replacing some.
    An override "in:<shape>" makes that argument an input of that shape."""
    inputs = {"c": N, "b": NP}
    for k, v in overrides.items():
        if isinstance(v, str) and v.startswith("in:"):
            inputs[k] = eval(v[3:])
    names = list(inputs)

    def body(*args):
        env = dict(zip(names, args))
        data = dict(P=P, A=A, G=G, h_l=H_L, h_u=H_U, x_l=X_L, x_u=X_U)
        data.update({k: v for k, v in overrides.items()
                     if not (isinstance(v, str) and v.startswith("in:"))})
        data.update({k: env[k] for k in names if k not in ("c",)})
        Pm = data.pop("P")
        return sc.qp(Pm, env["c"], **data)[0]
    decls = [sc.arg(k, s) for k, s in inputs.items()]
    return sc.function(*decls, outputs=sc.arg("x"))(_positional(body, len(decls)))


def _positional(body, count):
    """A function of exactly `count` positional parameters (sc.function reads them)."""
    params = ", ".join(f"a{i}" for i in range(count))
    ns = {"body": body}
    exec(f"def qp_bad({params}):\n    return body({params})\n", ns)
    return ns["qp_bad"]


@pytest.mark.parametrize("overrides, match", [
    ({"P": np.eye(N + 1)}, r"qp: P has shape \(7, 7\), expected \(6, 6\)"),
    ({"P": np.ones(N)}, r"qp: P must be a matrix"),
    ({"P": f"in:({N}, {N - 1})"}, r"qp: P has shape \(6, 5\), expected \(6, 6\)"),
    ({"A": A[:, :-1]}, r"qp: A has shape \(2, 5\), expected \(2, 6\)"),
    ({"A": f"in:({NP}, {N + 1})"}, r"qp: A has shape \(2, 7\), expected \(2, 6\)"),
    ({"A": np.ones((2, 3, 4))}, r"qp: A must be a matrix"),
    ({"b": "in:(3,)"}, r"qp: b has shape \(3,\), expected \(2,\)"),
    ({"b": "in:(2, 1)"}, r"qp: b has shape \(2, 1\), expected \(2,\)"),
    ({"G": G[:, :-2]}, r"qp: G has shape \(3, 4\), expected \(3, 6\)"),
    ({"h_l": H_L[:2]}, r"qp: h_l has shape \(2,\), expected \(3,\)"),
    ({"h_u": "in:(4,)"}, r"qp: h_u has shape \(4,\), expected \(3,\)"),
    ({"x_l": X_L[:-1]}, r"qp: x_l has shape \(5,\), expected \(6,\)"),
    ({"x_u": f"in:({N + 2},)"}, r"qp: x_u has shape \(8,\), expected \(6,\)"),
    ({"x_l": np.full(N, np.nan)}, r"qp: x_l has NaN entries"),
    ({"P": np.full((N, N), np.inf)}, r"qp: P\[0, 0\] is inf, expected a finite value"),
    ({"c": "in:(2, 3)"}, r"qp: c must be a vector"),
    ({"A": None}, r"qp: b is given without A"),
    ({"G": None}, r"qp: h_l/h_u are given without G"),
], ids=["P-const", "P-vector", "P-expr", "A-const", "A-expr", "A-3d", "b-expr", "b-column",
        "G-const", "h_l-const", "h_u-expr", "x_l-const", "x_u-expr", "x_l-nan", "P-inf",
        "c-matrix", "b-without-A", "h-without-G"])
def test_bad_shapes_at_trace_time(overrides, match):
    with pytest.raises(ValueError, match=match):
        trace_qp(**overrides)


def test_good_trace_of_the_helper():
    """The helper above traces the module's QP when nothing is overridden."""
    f = trace_qp()
    assert [(n, list(s), d) for n, s, d in f.inputs + f.outputs] == [
        ("c", [N], "float64"), ("b", [NP], "float64"), ("x", [N], "float64")]


def test_no_expr_argument():
    c, b = case(0)
    with pytest.raises(TypeError, match="at least one argument must be an Expr"):
        sc.qp(P, c, A=A, b=b, G=G, h_l=H_L, h_u=H_U, x_l=X_L, x_u=X_U)

    def body(v):  # inside a trace, all data constant
        sc.qp(P, c, A=A, b=b)
        return v
    with pytest.raises(TypeError, match="at least one argument must be an Expr"):
        named("qp_no_expr", [sc.arg("v", 2)], sc.arg("w"), body)


def test_sparse_flag_must_be_bool():
    def body(c):
        return sc.qp(P, c, sparse="yes")[0]
    with pytest.raises(TypeError, match="sparse must be True or False"):
        named("qp_sparse_flag", [sc.arg("c", N)], sc.arg("x"), body)


# -- 8. export: the module's C, the wrapper C and a C main ------------------------------------

COMPILERS = [c for c in ("gcc", "clang-19") if shutil.which(c)]
WARNINGS = ["-Wall", "-Wextra", "-Werror", "-O2", "-fPIC"]

MAIN_C = r"""
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "scaly_qp.h"
#include "@ENTRY@.h"

void @WRAPPER@_stats(scaly_solver_stats *out);
int @ENTRY@_with_options(const double **arg, double **res, int *iw, double *w, int mem,
                         const double *const *options);

static void print_vec(const char *tag, const double *v, int n) {
  int i;
  printf("%s", tag);
  for (i = 0; i < n; ++i) printf(" %.17g", v[i]);
  printf("\n");
}

static void report(const char *tag, int status, const double *const *res) {
  scaly_solver_stats st;
  memset(&st, 0xff, sizeof st);
  @WRAPPER@_stats(&st);
  printf("%s entry %d version %d status %d iter %d\n", tag, status, (int)st.version,
         (int)st.status, (int)st.iter);
  print_vec("x", res[0], @N@);
  print_vec("y", res[1], @P@);
  print_vec("z", res[2], @M@);
  print_vec("z_box", res[3], @N@);
}

int main(void) {
  static const double c[@N@] = {@C@};
  static const double b[@P@] = {@B@};
  double x[@N@], y[@P@], z[@M@], z_box[@N@];
  const double *arg[2] = {c, b};
  double *res[4] = {x, y, z, z_box};
  double *w = (double *)malloc(sizeof(double) * (@ENTRY@_SZ_W + 1));
  int count = scaly_qp_option_count(), k, status;
  double *values = (double *)malloc(sizeof(double) * (size_t)count);
  const double *options[1];
  const double *defaults[1] = {NULL};
  if (!w || !values) return 90;

  status = @ENTRY@(arg, res, NULL, w, 0);
  report("plain", status, (const double *const *)res);

  for (k = 0; k < count; ++k)
    values[k] = strcmp(scaly_qp_option_name(k), "max_iter") == 0 ? 1.0 : NAN;
  options[0] = values;
  status = @ENTRY@_with_options(arg, res, NULL, w, 0, options);
  report("max_iter", status, (const double *const *)res);

  status = @ENTRY@(arg, res, NULL, w, 0);
  report("again", status, (const double *const *)res);

  status = @ENTRY@_with_options(arg, res, NULL, w, 0, defaults);
  report("defaults", status, (const double *const *)res);

  free(values);
  free(w);
  return 0;
}
"""


def parse_report(text):
    """{tag: {"entry", "version", "status", "iter", "x", "y", "z", "z_box"}} from the main."""
    out, tag = {}, None
    for line in text.splitlines():
        words = line.split()
        if len(words) >= 2 and words[1] == "entry":
            tag = words[0]
            out[tag] = {words[i]: int(words[i + 1]) for i in range(1, len(words), 2)}
        else:
            out[tag][words[0]] = np.array([float(v) for v in words[1:]])
    return out


def run(cmd, cwd):
    proc = subprocess.run(cmd, cwd=cwd, capture_output=True, text=True)
    assert proc.returncode == 0, f"{' '.join(cmd)}\n{proc.stderr}{proc.stdout}"
    return proc.stdout


def export(fn, directory):
    """Render `fn`'s module, write it (with the wrapper source and the manifest) and a C
    main beside it; returns (module, wrapper name, c, b of the main's call)."""
    from scaly.codegen import render_c_module
    from scaly.runtime.jit import entry_params
    from scaly.solvers.model import _SPECS
    from scaly.solvers.wrapper import WRAPPER_NAME, render_wrappers

    entry = fn.name
    module = render_c_module(fn)
    # The module names its wrapper after itself (tracing named it by a digest of its
    # structure), and its wrapper source is the wrappers' rendering under that name.
    assert module.solvers == (f"{entry}_qp0",) and f"{entry}_qp0(" in module.source
    assert not WRAPPER_NAME.search(module.source)
    names = list(module.solvers)
    params = entry_params(module.header, entry)
    assert any(render_wrappers([(entry, params)], [traced], {traced: names[0]})
               == module.solver_source for traced in _SPECS)
    module.write(str(directory))
    for suffix, text in ((".c", module.source), (".h", module.header),
                         ("_solvers.c", module.solver_source), (".build.json", module.manifest)):
        assert (directory / f"{entry}{suffix}").read_text() == text

    c, b = case(2)
    main = MAIN_C
    for key, value in {"@ENTRY@": entry, "@WRAPPER@": names[0], "@N@": str(N), "@P@": str(NP),
                       "@M@": str(NM), "@C@": ", ".join(repr(float(v)) for v in c),
                       "@B@": ", ".join(repr(float(v)) for v in b)}.items():
        main = main.replace(key, value)
    (directory / "main.c").write_text(main)
    return module, names[0], c, b


def check_report(report, c, b, sparse):
    res = reference(c, b, sparse)
    codes = {"solved": 0, "max_iter": 2}
    for tag in ("plain", "again", "defaults"):
        r = report[tag]
        assert (r["entry"], r["version"], r["status"]) == (0, 3, codes["solved"]), (tag, r)
        assert r["iter"] == res.iter
        assert_matches((r["x"], r["y"], r["z"], r["z_box"]), res)
    r = report["max_iter"]
    assert (r["entry"], r["version"], r["status"], r["iter"]) == (0, 3, codes["max_iter"], 1)
    assert np.abs(r["x"] - res.x).max() > 1e-3


@pytest.mark.parametrize("sparse", [True, False], ids=["sparse", "dense"])
@pytest.mark.parametrize("compiler", COMPILERS)
def test_export_compiles_and_runs(tmp_path, compiler, sparse):
    """Module, wrappers and main compiled warning-free as objects and linked to the QP
    library; x, y, z, z_box and the statuses of four calls checked."""
    fn = cached(("const", sparse), lambda: constant_qp_function(sparse))
    entry = fn.name
    module, wrapper, c, b = export(fn, tmp_path)
    paths = native_paths()
    libdir = str(Path(paths["scaly_qp"]).parent)
    include = f"-I{paths['include']}"
    objects = []
    for src in (f"{entry}.c", f"{entry}_solvers.c", "main.c"):
        obj = f"{src[:-2]}.o"
        run([compiler, *WARNINGS, include, "-c", src, "-o", obj], tmp_path)
        objects.append(obj)
    exe = str(tmp_path / "qp_main")
    run([compiler, *objects, "-o", exe, f"-L{libdir}", "-lscaly_qp", f"-Wl,-rpath,{libdir}",
         "-lm"], tmp_path)
    report = parse_report(run([exe], tmp_path))
    check_report(report, c, b, sparse)
    # The JIT's result for the same call agrees with the exported C.
    np.testing.assert_allclose(fn(c, b)[0], report["plain"]["x"], rtol=0, atol=1e-12)


@pytest.mark.parametrize("compiler", COMPILERS)
def test_export_manifest_builds_a_library(tmp_path, compiler):
    """<name>.build.json names the files and the solver, and its build command (with this
    compiler and the warning flags) makes a shared library the main links to."""
    import json
    import shlex
    fn = cached(("const", True), lambda: constant_qp_function(True))
    entry = fn.name
    module, wrapper, c, b = export(fn, tmp_path)
    manifest = json.loads(module.manifest)
    paths = native_paths()
    libdir = str(Path(paths["scaly_qp"]).parent)
    assert manifest["module"] == entry
    assert manifest["sources"] == [f"{entry}.c", f"{entry}_solvers.c"]
    assert manifest["include_dirs"] == [paths["include"]]
    assert manifest["library_dirs"] == [libdir]
    assert [s["wrapper"] for s in manifest["solvers"]] == [wrapper]
    assert (manifest["solvers"][0]["backend"], manifest["solvers"][0]["n"],
            manifest["solvers"][0]["p"], manifest["solvers"][0]["m"]) == ("sparse", N, NP, NM)
    command = shlex.split(manifest["build"])
    assert command[0] == "cc"
    run([compiler, *WARNINGS, *command[1:]], tmp_path)
    assert (tmp_path / f"lib{entry}.so").exists()
    exe = str(tmp_path / "qp_main_shared")
    run([compiler, *WARNINGS, f"-I{paths['include']}", "main.c", "-o", exe, f"-L{tmp_path}",
         f"-l{entry}", f"-Wl,-rpath,{tmp_path}", f"-L{libdir}", "-lscaly_qp",
         f"-Wl,-rpath,{libdir}", "-lm"], tmp_path)
    check_report(parse_report(run([exe], tmp_path)), c, b, True)


# -- a Function's _with_options entry and the entry it calls --------------------------------

SAME_NAME = """
import json
import numpy as np, scaly as sc

def make(scale):
    @sc.function(sc.arg("c", 2), outputs=sc.arg("x"))
    def f(c):
        return sc.qp(scale * np.eye(2), c, x_l=[-5, -5], x_u=[5, 5])[0]
    return f

c = np.array([1.0, -2.0])
f1, f2 = make(1.0), make(2.0)
plain = [f1(c).tolist(), f2(c).tolist()]
with_options = f2(c, options={"eps_abs": 1e-9}).tolist()
f2(c, options={"max_iter": 1})
print(json.dumps({"plain": plain, "with_options": with_options,
                  "status": f2.stats()["status"]}))
"""

RECOMPILED = """
import json
import numpy as np, scaly as sc

@sc.function(sc.arg("c", 2), outputs=sc.arg("x"))
def f(c):
    return sc.qp(np.eye(2), c, x_l=[-5, -5], x_u=[5, 5])[0]

c = np.array([1.0, -2.0])
f(c)
f.recompile()
x = f(c, options={"max_iter": 1}).tolist()
print(json.dumps({"x": x, "status": f.stats()["status"]}))
"""

# <entry>_with_options calls <entry>: linked with -Bsymbolic, the call binds inside its own
# library, never to a same-named entry another library brought into the dlmopen namespace.
def test_options_of_a_second_function_with_the_same_name(tmp_path):
    from jitutil import run_snippet
    out = run_snippet(SAME_NAME, tmp_path / "cache")
    np.testing.assert_allclose(out["plain"], [[-1.0, 2.0], [-0.5, 1.0]], atol=1e-6)
    np.testing.assert_allclose(out["with_options"], [-0.5, 1.0], atol=1e-6)
    assert out["status"] == "max_iter"


def test_options_after_recompile(tmp_path):
    from jitutil import run_snippet
    out = run_snippet(RECOMPILED, tmp_path / "cache")
    assert out["status"] == "max_iter"
    assert np.abs(np.array(out["x"]) - [-1.0, 2.0]).max() > 1e-3


def test_two_exported_modules_with_the_same_qp_link_together(tmp_path):
    from scaly.codegen import render_c_module

    def body_a(c):
        return sc.qp(np.eye(2), c, x_l=[-5, -5], x_u=[5, 5])[0]

    def body_b(c):
        return 2.0 * sc.qp(np.eye(2), c, x_l=[-5, -5], x_u=[5, 5])[0]
    fa = named("qp_export_a", [sc.arg("c", 2)], sc.arg("x"), body_a)
    fb = named("qp_export_b", [sc.arg("c", 2)], sc.arg("x"), body_b)
    for f in (fa, fb):
        render_c_module(f).write(str(tmp_path))
    (tmp_path / "main.c").write_text(textwrap.dedent("""\
        #include <stdio.h>
        #include "qp_export_a.h"
        #include "qp_export_b.h"
        int main(void) {
          static double w[qp_export_a_SZ_W + qp_export_b_SZ_W + 2];
          double c[2] = {1.0, -2.0}, xa[2], xb[2];
          const double *arg[1] = {c};
          double *ra[1] = {xa}, *rb[1] = {xb};
          int sa = qp_export_a(arg, ra, NULL, w, 0), sb = qp_export_b(arg, rb, NULL, w, 0);
          printf("%d %d %.17g %.17g %.17g %.17g\\n", sa, sb, xa[0], xa[1], xb[0], xb[1]);
          return 0;
        }
        """))
    paths = native_paths()
    libdir = str(Path(paths["scaly_qp"]).parent)
    run(["gcc", *WARNINGS, f"-I{paths['include']}", "main.c", "qp_export_a.c",
         "qp_export_a_solvers.c", "qp_export_b.c", "qp_export_b_solvers.c", "-o", "prog",
         f"-L{libdir}", "-lscaly_qp", f"-Wl,-rpath,{libdir}", "-lm"], tmp_path)
    words = run([str(tmp_path / "prog")], tmp_path).split()
    assert words[:2] == ["0", "0"]
    np.testing.assert_allclose([float(v) for v in words[2:]], [-1.0, 2.0, -2.0, 4.0], atol=1e-6)


def test_webassembly_build_refuses_a_solver_function(tmp_path):
    """The QP library has no wasm32 build: scaly.wasm says so instead of failing to link."""
    from scaly import wasm

    @sc.function(sc.arg("c", 2), outputs=sc.arg("x"))
    def wasm_qp(c):
        return sc.qp(np.eye(2), c, x_l=[-1.0, -1.0], x_u=[1.0, 1.0])[0]

    with pytest.raises(ValueError, match="reach a solver"):
        wasm.build(wasm_qp, tmp_path)


def test_warm_start_option_in_a_model():
    """options={"warm_start": 1} lets the wrapper start each solve from the previous
    solution: fewer iterations on a sequence of close problems, the same answers."""
    @sc.function(sc.arg("c", 2), outputs=sc.arg("x"))
    def warm_qp(c):
        return sc.qp(np.array([[4.0, 1.0], [1.0, 2.0]]), c, A=[[1.0, 1.0]], b=[1.0],
                     x_l=[0.0, 0.0], x_u=[1.0, 1.0])[0]

    cold_iters, warm_iters = [], []
    for k in range(4):
        c = np.array([1.0, 1.0 + 0.01 * k])
        x_cold = warm_qp(c)
        cold_iters.append(warm_qp.stats()["iter"])
        x_warm = warm_qp(c, options={"warm_start": 1})
        warm_iters.append(warm_qp.stats()["iter"])
        reference = solve_qp(np.array([[4.0, 1.0], [1.0, 2.0]]), c, A=[[1.0, 1.0]], b=[1.0],
                             x_l=[0.0, 0.0], x_u=[1.0, 1.0])
        np.testing.assert_allclose(x_cold, reference.x, atol=1e-8)
        np.testing.assert_allclose(x_warm, reference.x, atol=1e-8)
    assert all(w < c for w, c in zip(warm_iters, cold_iters))


INDEXED = """
import json, sys
import numpy as np, scaly as sc
from scaly.runtime import jit
@sc.function(sc.arg("c", 2), outputs=sc.arg("x"))
def indexed(c):
    return sc.qp(np.eye(2), c, x_l=[-5.0, -5.0], x_u=[5.0, 5.0])[0]
x = indexed(np.array([1.0, -2.0])).tolist()
print(json.dumps({"x": x, "counters": jit.counters()}))
"""


def test_a_new_process_reuses_the_solver_library(tmp_path):
    """A second process finds the solver module through the index: nothing is rendered
    or compiled; an index entry made with another solver library is not trusted."""
    import json
    import time
    from jitutil import run_snippet
    cache = tmp_path / "cache"
    first = run_snippet(INDEXED, cache)
    assert first["counters"]["compile"] == 1
    time.sleep(2.1)  # past the two-second rule on freshly written Scaly files
    second = run_snippet(INDEXED, cache)
    np.testing.assert_allclose(second["x"], [-1.0, 2.0], atol=1e-8)
    assert second["counters"]["index_hit"] == 1
    assert second["counters"]["render"] == 0 and second["counters"]["compile"] == 0
    for entry in (cache / "index").glob("*.json"):
        data = json.loads(entry.read_text())
        data["solver_fingerprint"] = "another library"
        entry.write_text(json.dumps(data))
    third = run_snippet(INDEXED, cache)
    np.testing.assert_allclose(third["x"], [-1.0, 2.0], atol=1e-8)
    assert third["counters"]["index_hit"] == 0 and third["counters"]["render"] == 1


def test_derivatives_through_a_qp_solve_are_refused_by_name():
    """No derivative rule for a QP solve yet: jacobian and jacobian_sparsity say so."""
    @sc.function(sc.arg("c", 2), outputs=sc.arg("x"))
    def solved(c):
        return sc.qp(np.eye(2), c, x_l=[-1.0, -1.0], x_u=[1.0, 1.0])[0]

    for derivative in (sc.jacobian, sc.jacobian_sparsity):
        with pytest.raises(ValueError, match="expr.qp_solve.*not differentiable yet"):
            derivative(solved)


def test_threads_share_a_solver_function_safely():
    """The wrapper's statics are behind one lock: a thread calling with options and a
    thread calling plainly (and large calls, which release the GIL) never see each
    other's options, data or solver state."""
    import threading
    n = 9000  # above the size at which calls release the GIL
    P = sc_eye_sparse(n)

    @sc.function(sc.arg("c", n), outputs=sc.arg("x"))
    def threaded(c):
        return sc.qp(P, c, x_l=-np.ones(n), x_u=np.ones(n))[0]

    cs = [np.linspace(-2, 2, n), np.linspace(2, -2, n)]
    expected = [np.clip(-c, -1, 1) for c in cs]
    threaded(cs[0])
    wrong = []

    def run(k, options):
        for _ in range(40):
            x = threaded(cs[k], options=options) if options else threaded(cs[k])
            if options is None and not np.allclose(x, expected[k], atol=1e-6):
                wrong.append(k)

    threads = [threading.Thread(target=run, args=(0, None)),
               threading.Thread(target=run, args=(1, None)),
               threading.Thread(target=run, args=(0, {"max_iter": 1}))]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert wrong == []


def sc_eye_sparse(n):
    import scipy.sparse as sp
    return sp.identity(n, format="csc")


def test_setup_options_are_refused_per_call():
    """The equilibration options act at setup: passed per call they are refused, by name."""
    @sc.function(sc.arg("c", 2), outputs=sc.arg("x"))
    def setup_only(c):
        return sc.qp(np.eye(2), c, x_l=[-1.0, -1.0], x_u=[1.0, 1.0])[0]

    with pytest.raises(ValueError, match="preconditioner_iter.*set up"):
        setup_only(np.ones(2), options={"preconditioner_iter": 0})


def test_a_stale_dependency_list_is_asked_again(tmp_path, monkeypatch):
    """A dependency ldd once listed and an upgrade removed: the fingerprint asks ldd
    again and rewrites the kept list (it once recursed without end)."""
    import hashlib
    import json
    from pathlib import Path
    from scaly.runtime import solver_link
    monkeypatch.setenv("SCALY_CACHE_DIR", str(tmp_path))
    monkeypatch.setattr(solver_link, "_FINGERPRINT", None)
    monkeypatch.setattr(solver_link, "_DEPENDENCY_CACHE", {})
    lib = Path(native_paths()["scaly_qp"])
    st = lib.stat()
    stamp = f"{lib.resolve()} {st.st_size} {st.st_mtime_ns}"
    kept = tmp_path / "solvers" / (hashlib.sha256(stamp.encode()).hexdigest()[:32] + ".json")
    kept.parent.mkdir(parents=True)
    deps = solver_link._dependencies(lib)
    kept.write_text(json.dumps({"stamp": stamp, "deps": deps + ["/nonexistent/libgone.so.1"]}))
    fingerprint = solver_link.solver_fingerprint()
    assert len(fingerprint) == 64
    assert json.loads(kept.read_text())["deps"] == deps
