"""`sc.qp` inside traced Functions: results, statistics, call-time options, bad data and bad
authoring (test_qp_export.py: the exported C, linking, loading and threads).

    minimize 1/2 x'Px + c'x  s.t.  Ax = b,  h_l <= Gx <= h_u,  x_l <= x <= x_u
    P x + c + A'y + G'z + z_box = 0, z > 0 at an upper bound, z < 0 at a lower one.

References: `scaly.solvers.solve_qp` (the same QP library, called directly) and an
independent check of the KKT conditions in NumPy. Each Function is traced once per module
(fixtures) and compiles once into a private cache.
"""

import numpy as np
import pytest

import scaly as sc
from scaly.solvers import solve_qp
from qpmodelutil import (private_cache, P, A, G, H_L, H_U, X_L, X_U, case, CASES, BACKEND,
                        reference, check_kkt, assert_matches, named, FOUR, constant_qp_function,
                        cached, qp_const, qp_sparse, plain, N, NP, NM)


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
