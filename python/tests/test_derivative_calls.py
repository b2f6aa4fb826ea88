"""sc.jvp, sc.vjp, sc.gradient, sc.jacobian and sc.hessian of calls of other Functions,
vmap and scan, jvp/vjp Functions and wrt/of selections, Hessians, and derivatives taken
inside a trace, against SymPy and finite differences (helpers: symbolic.py; see
test_derivatives.py for the references used).
"""

import functools
import threading
import time

import numpy as np
import pytest
import sympy

import scaly as sc
from symbolic import (FD_TOL, SC, SY, TIGHT, Sym, assert_pattern, build, derived, fd_jacobian,
                      gsel_body, gsel_function, hess_body, hess_function,
                      multi_body, multi_function, outputs_of, rng, step_body,
                      vmap_functions)


@pytest.fixture(scope="module", autouse=True)
def private_cache(tmp_path_factory):
    """A private JIT cache for the module: the tests never touch the user's cache."""
    patch = pytest.MonkeyPatch()
    patch.setenv("SCALY_CACHE_DIR", str(tmp_path_factory.mktemp("derivative-calls-cache")))
    patch.delenv("SCALY_CC", raising=False)
    patch.delenv("SCALY_CC_OPT", raising=False)
    yield
    patch.undo()


# ---------------------------------------------------------------------------
# Calls of other Functions
# ---------------------------------------------------------------------------

def inner_body(m, x):
    return m.stack([x[0] * m.sin(x[1]), m.exp(x[2]) * x[0], x[1] ** 2 - x[2]])


def outer_body(inner):
    def body(m, x):
        a = inner(x) if m is not SY else inner_body(SY, x)
        b = inner(a * 0.5) if m is not SY else inner_body(SY, a * 0.5)
        return a + m.cos(b)
    return body


@functools.lru_cache(maxsize=None)
def call_functions(blocked):
    def inner_traced(m, x):
        y = inner_body(SC, x)
        return y.block() if blocked else y
    inner = build(f"inner_{int(blocked)}", [("x", 3)], inner_traced)
    assert inner.blocked == blocked
    outer = build(f"outer_{int(blocked)}", [("x", 3)], outer_body(inner))
    return inner, outer


@pytest.mark.parametrize("blocked", [False, True], ids=["inline", "block"])
def test_call_of_function(blocked):
    inner, outer = call_functions(blocked)
    x = np.array([0.4, -0.3, 0.2])
    sym = Sym(outer_body(None), [(3,)])
    J = derived("jacobian", outer)(x)
    np.testing.assert_allclose(J, sym.value(sym.jacobian(), [x]), **TIGHT)
    np.testing.assert_allclose(J, fd_jacobian(outer, [x]), **FD_TOL)
    assert_pattern(J, sym.jacobian())
    w = np.array([1.0, -0.5, 2.0])
    np.testing.assert_allclose(derived("vjp", outer)(x, w), w @ J, **TIGHT)
    # The callee itself, and a derivative of the callee used inside another trace.
    Ji = derived("jacobian", inner)(x)
    np.testing.assert_allclose(Ji, sym.value(Sym(inner_body, [(3,)]).jacobian(), [x]), **TIGHT)


def test_call_with_several_inputs_and_outputs():
    @sc.function(sc.arg("x", 2), sc.arg("p", ()), outputs=(sc.arg("u"), sc.arg("v")))
    def pair(x, p):
        return x * p, (x[0] * x[1]).sin() + p

    @sc.function(sc.arg("x", 2), sc.arg("p", ()), outputs=sc.arg("s"))
    def caller(x, p):
        u, v = pair(x, p)
        u2, v2 = pair(u, v)
        return sc.sum(u2) * v2

    x, p = np.array([0.3, 0.8]), np.array(1.3)
    gx, gp = derived("gradient", caller)(x, p)
    np.testing.assert_allclose(gx, fd_jacobian(caller, [x, p], wrt=0).ravel(), **FD_TOL)
    np.testing.assert_allclose(gp, fd_jacobian(caller, [x, p], wrt=1).ravel()[0], **FD_TOL)


# ---------------------------------------------------------------------------
# vmap
# ---------------------------------------------------------------------------

def _vmap_sym(shared):
    def body(m, X, p):
        rows = [step_body(m, X[i], p if shared else p[i]) for i in range(4)]
        return m.stack(rows)
    return body


def test_vmap_shared_input_gradient_sums_over_iterations():
    step, shared, _, mapped_sum = vmap_functions()
    r = rng(19)
    X, p = r.uniform(-1, 1, (4, 3)), np.array([0.7, -1.2])
    gX, gp = derived("gradient", mapped_sum)(X, p)
    Wt = np.arange(12.0).reshape(4, 3) / 10.0
    # d s / d p is the sum over the 4 iterations of each row's contribution.
    per_row = [Wt[i] @ fd_jacobian(step, [X[i], p], wrt=1) for i in range(4)]
    np.testing.assert_allclose(gp, np.sum(per_row, axis=0), **FD_TOL)
    np.testing.assert_allclose(gp, fd_jacobian(mapped_sum, [X, p], wrt=1).ravel(), **FD_TOL)
    np.testing.assert_allclose(gX.ravel(), fd_jacobian(mapped_sum, [X, p], wrt=0).ravel(),
                               **FD_TOL)
    sym = Sym(_vmap_sym(True), [(4, 3), (2,)])
    for k in (0, 1):
        J = derived("jacobian", shared, wrt=k)(X, p)
        ref = sym.jacobian(wrt=k)
        np.testing.assert_allclose(J, sym.value(ref, [X, p]), **TIGHT, err_msg=f"wrt={k}")
        assert_pattern(J, ref)


def test_vmap_all_mapped():
    _, _, mapped_all, _ = vmap_functions()
    r = rng(20)
    X, P = r.uniform(-1, 1, (4, 3)), r.uniform(-1, 1, (4, 2))
    sym = Sym(_vmap_sym(False), [(4, 3), (4, 2)])
    for k in (0, 1):
        J = derived("jacobian", mapped_all, wrt=k)(X, P)
        ref = sym.jacobian(wrt=k)
        np.testing.assert_allclose(J, sym.value(ref, [X, P]), **TIGHT)
        assert_pattern(J, ref)  # block diagonal: iterations do not mix
    w = r.normal(size=(4, 3))
    aX, aP = derived("vjp", mapped_all)(X, P, w)
    np.testing.assert_allclose(aP.ravel(), w.ravel() @ fd_jacobian(mapped_all, [X, P], wrt=1),
                               **FD_TOL)
    np.testing.assert_allclose(aX.ravel(), w.ravel() @ fd_jacobian(mapped_all, [X, P], wrt=0),
                               **FD_TOL)


def test_vmap_jvp_with_shared_input():
    _, shared, _, _ = vmap_functions()
    r = rng(21)
    X, p = r.uniform(-1, 1, (4, 3)), np.array([0.4, 0.9])
    tX, tp = r.normal(size=(4, 3)), r.normal(size=2)
    dY = derived("jvp", shared)(X, p, tX, tp)
    want = fd_jacobian(shared, [X, p], wrt=0) @ tX.ravel() + \
        fd_jacobian(shared, [X, p], wrt=1) @ tp
    np.testing.assert_allclose(dY.ravel(), want, **FD_TOL)
    dY_p = derived("jvp", shared, wrt="p")(X, p, tp)
    np.testing.assert_allclose(dY_p.ravel(), fd_jacobian(shared, [X, p], wrt=1) @ tp, **FD_TOL)


# ---------------------------------------------------------------------------
# jvp / vjp Functions and wrt / of selections
# ---------------------------------------------------------------------------

MULTI_POINT = (np.array([0.5, -0.4, 1.1]), np.array([0.8, -0.3]))


def test_jvp_function_all_inputs():
    f = multi_function()
    x, u = MULTI_POINT
    jv = derived("jvp", f)
    assert [n for n, _, _ in jv.inputs] == ["x", "u", "d_x", "d_u"]
    assert [n for n, _, _ in jv.outputs] == ["d_y", "d_e"]
    tx, tu = np.array([1.0, 2.0, -0.5]), np.array([-1.5, 0.25])
    dy, de = jv(x, u, tx, tu)
    for of, got in ((0, dy), (1, de)):
        want = fd_jacobian(f, [x, u], 0, of) @ tx + fd_jacobian(f, [x, u], 1, of) @ tu
        np.testing.assert_allclose(np.ravel(got), want, **FD_TOL, err_msg=f"of={of}")


def test_jvp_function_one_input():
    f = multi_function()
    x, u = MULTI_POINT
    jv = derived("jvp", f, wrt="u")
    assert [n for n, _, _ in jv.inputs] == ["x", "u", "d_u"]
    tu = np.array([0.3, 0.7])
    dy, de = jv(x, u, tu)
    np.testing.assert_allclose(dy, fd_jacobian(f, [x, u], 1, 0) @ tu, **FD_TOL)
    np.testing.assert_allclose(np.ravel(de), fd_jacobian(f, [x, u], 1, 1) @ tu, **FD_TOL)


def test_vjp_function_all_outputs():
    f = multi_function()
    x, u = MULTI_POINT
    vj = derived("vjp", f)
    assert [n for n, _, _ in vj.inputs] == ["x", "u", "adj_y", "adj_e"]
    assert [n for n, _, _ in vj.outputs] == ["adj_x", "adj_u"]
    wy, we = np.array([1.0, -2.0, 0.5, 0.25]), np.array(-0.75)
    ax, au = vj(x, u, wy, we)
    for k, got in ((0, ax), (1, au)):
        want = wy @ fd_jacobian(f, [x, u], k, 0) + we * fd_jacobian(f, [x, u], k, 1).ravel()
        np.testing.assert_allclose(got, want, **FD_TOL, err_msg=f"wrt={k}")


def test_vjp_function_selected():
    f = multi_function()
    x, u = MULTI_POINT
    vj = derived("vjp", f, of="y", wrt="x")
    assert [n for n, _, _ in vj.inputs] == ["x", "u", "adj_y"]
    assert [n for n, _, _ in vj.outputs] == ["adj_x"]
    wy = np.array([0.5, 1.5, -1.0, 2.0])
    np.testing.assert_allclose(vj(x, u, wy), wy @ fd_jacobian(f, [x, u], 0, 0), **FD_TOL)
    vj_e = derived("vjp", f, of=1, wrt=[1])
    np.testing.assert_allclose(vj_e(x, u, np.array(2.0)),
                               2.0 * fd_jacobian(f, [x, u], 1, 1).ravel(), **FD_TOL)


def test_jacobians_of_multi_output_function_vs_sympy():
    f = multi_function()
    x, u = MULTI_POINT
    sym = Sym(multi_body, [(3,), (2,)])
    for of in ("y", "e"):
        for wrt in ("x", "u"):
            J = derived("jacobian", f, wrt=wrt, of=of)(x, u)
            ref = sym.jacobian(of=("y", "e").index(of), wrt=("x", "u").index(wrt))
            np.testing.assert_allclose(J, sym.value(ref, [x, u]), **TIGHT,
                                       err_msg=f"d{of}/d{wrt}")
            assert_pattern(J, ref)


GSEL = (np.array([0.2, -0.6, 1.0]), np.array([1.5, -0.5]), np.array(3, np.int64))


def _gsel_reference():
    x, p, k = GSEL
    gx = np.cos(x) * p[0] + np.array([p[1] ** 2 * k, 0, 0])
    gp = np.array([np.sin(x).sum(), 2 * p[1] * x[0] * k])
    return gx, gp


@pytest.mark.parametrize("wrt", [None, "x", "p", 0, 1, -2, ["p", "x"], [0], ("x", 1)],
                         ids=str)
def test_gradient_wrt_selection(wrt):
    f = gsel_function()
    gx_ref, gp_ref = _gsel_reference()
    g = outputs_of(derived("gradient", f, wrt=tuple(wrt) if isinstance(wrt, list) else wrt)
                   (*GSEL))
    if wrt is None or isinstance(wrt, (list, tuple)) and len(wrt) == 2:
        want, names = [gx_ref, gp_ref], ["grad_x", "grad_p"]
    elif wrt in ("x", 0, [0]):
        want, names = [gx_ref], ["grad_x"]
    else:
        want, names = [gp_ref], ["grad_p"]
    g_fn = derived("gradient", f, wrt=tuple(wrt) if isinstance(wrt, list) else wrt)
    assert [n for n, _, _ in g_fn.outputs] == names
    assert len(g) == len(want)
    for got, ref in zip(g, want):
        np.testing.assert_allclose(got, ref, **TIGHT)
    x, p, k = GSEL
    np.testing.assert_allclose(gx_ref, fd_jacobian(f, [x, p, k], wrt=0).ravel(), **FD_TOL)


# ---------------------------------------------------------------------------
# Hessians
# ---------------------------------------------------------------------------

def test_hessian_symmetric_and_matches_sympy():
    f = hess_function()
    x = np.array([0.3, -0.7, 0.5, 0.9])
    H = derived("hessian", f)(x)
    assert H.shape == (4, 4)
    np.testing.assert_allclose(H, H.T, rtol=1e-13, atol=1e-13)
    sym = Sym(hess_body, [(4,)])
    ref = sym.hessian()
    np.testing.assert_allclose(H, sym.value(ref, [x]), rtol=1e-10, atol=1e-12)
    assert_pattern(H, ref)
    # Finite differences of the (separately checked) gradient.
    grad = derived("gradient", f)
    np.testing.assert_allclose(H, fd_jacobian(grad, [x]), **FD_TOL)


def test_hessian_of_matrix_input():
    def body(m, X):
        return m.sum(m.sin(X) * X.T.reshape((2, 3))) + m.prod(X[0]) * X[1, 2]
    f = build("hmat", [("X", (2, 3))], body, ("s",))
    X = rng(22).uniform(-1, 1, (2, 3))
    H = derived("hessian", f)(X)
    assert H.shape == (6, 6)
    sym = Sym(body, [(2, 3)])
    np.testing.assert_allclose(H, sym.value(sym.hessian(), [X]), rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(H, H.T, rtol=1e-13, atol=1e-13)


def test_hessian_wrt_one_input_of_several():
    f = multi_function()
    x, u = MULTI_POINT
    sym = Sym(multi_body, [(3,), (2,)])
    for wrt in ("x", "u"):
        H = derived("hessian", f, wrt=wrt, of="e")(x, u)
        ref = sym.hessian(of=1, wrt=("x", "u").index(wrt))
        np.testing.assert_allclose(H, sym.value(ref, [x, u]), rtol=1e-10, atol=1e-12)


def constraint_body(m, x):
    return m.stack([x[0] * x[1] * x[2] - 1.0, m.sin(x[0]) * m.exp(x[2]),
                    x[1] ** 3 / (1 + x[0] ** 2)])


def test_hessian_with_multipliers():
    g = build("constraints", [("x", 3)], constraint_body, ("c",))
    Hl = derived("hessian", g, multipliers=True)
    assert len(Hl.inputs) == 2 and Hl.inputs[1][1] in ((3,), [3])
    x = np.array([0.6, -1.1, 0.4])
    lam = np.array([0.5, -2.0, 1.25])
    H = Hl(x, lam)
    sym = Sym(constraint_body, [(3,)])
    lam_syms = sympy.symbols("lam0:3", real=True)
    ref = sym.lagrangian_hessian(lam_syms)
    np.testing.assert_allclose(H, sym.value(ref, [x, lam], extra=lam_syms), rtol=1e-10,
                               atol=1e-12)
    np.testing.assert_allclose(H, H.T, rtol=1e-13, atol=1e-13)
    # Linear in the multipliers: a unit multiplier picks one constraint's Hessian.
    single = build("constraint1", [("x", 3)], lambda m, x: constraint_body(m, x)[1], ("c1",))
    np.testing.assert_allclose(Hl(x, np.array([0.0, 1.0, 0.0])), derived("hessian", single)(x),
                               rtol=1e-12, atol=1e-12)


def test_each_derivative_is_built_once_per_function(monkeypatch):
    g = build("constraints_once", [("x", 3)], constraint_body, ("c",))
    analysed = []
    pattern = sc._scaly.jacobian_pattern
    monkeypatch.setattr(sc._scaly, "jacobian_pattern",
                        lambda *a, **k: analysed.append(a[1:]) or pattern(*a, **k))
    J = sc.jacobian(g, layout="csc")
    assert sc.jacobian(g, layout="csc") is J and len(analysed) == 1
    # Another layout, another selection or another Function: built afresh.
    assert sc.jacobian(g, layout="csr") is not J and len(analysed) == 2
    other = build("constraints_twice", [("x", 3)], constraint_body, ("c",))
    assert sc.jacobian(other, layout="csc") is not J and len(analysed) == 3
    Hl = sc.hessian(g, multipliers=True, layout="csc")
    assert sc.hessian(g, multipliers=True, layout="csc") is Hl and len(analysed) == 4
    assert sc.hessian(g, multipliers=True) is not Hl and len(analysed) == 5  # dense
    # The same vjp serves a gradient-like request and the reverse sweeps.
    assert sc.vjp(g, of="c", wrt="x") is sc.vjp(g, of="c", wrt="x")
    assert sc.jvp(g) is sc.jvp(g) and sc.jvp(g) is not sc.vjp(g)
    # A reused Function still computes its own derivative, in a Function traced later.
    x = np.array([0.6, -1.1, 0.4])

    @sc.function(sc.arg("x", 3), outputs=(sc.arg("c"), sc.arg("J")))
    def both(x):
        return g(x), J(x)

    c, values = both(x)  # a sparse output inside a trace is its stored values
    np.testing.assert_allclose(values, J(x).data, rtol=1e-14)
    np.testing.assert_allclose(J(x).toarray(), fd_jacobian(g, [x]), **FD_TOL)
    assert len(analysed) == 5  # J's pattern was not analysed again
    # An unhashable selection is not kept, and is still checked; so is one
    # equal to a kept one but not valid itself (0.0 == 0).
    with pytest.raises(TypeError, match="chosen by name or index"):
        sc.jacobian(g, wrt={"x"})  # a set: no cache key, make() refuses it
    assert sc.jacobian(g, wrt=0, layout="csc") is sc.jacobian(g, wrt=0, layout="csc")
    with pytest.raises(TypeError, match="chosen by name or index"):
        sc.jacobian(g, wrt=0.0, layout="csc")


def test_threads_asking_at_once_get_one_derivative(monkeypatch):
    """Eight threads asking for the same Hessian get one Function: one thread builds each
    derivative (the Hessian, its gradient, the gradient's vjp) while the others wait; two
    were built before (issue 33). A build that fails is left for the next caller."""
    g = build("hess_threads", [("x", 4)], hess_body, ("s",))
    analysed = []
    pattern = sc._scaly.jacobian_pattern

    def slow_pattern(*a, **k):  # widens the window in which the others ask
        analysed.append(a[1:])
        time.sleep(0.05)
        return pattern(*a, **k)

    monkeypatch.setattr(sc._scaly, "jacobian_pattern", slow_pattern)
    barrier, out = threading.Barrier(8), [None] * 8

    def ask(k):
        barrier.wait()
        out[k] = sc.hessian(g, layout="csc")

    threads = [threading.Thread(target=ask, args=(k,)) for k in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert all(H is out[0] for H in out) and len(analysed) == 1
    assert out[0] is sc.hessian(g, layout="csc")
    x = np.array([0.3, -0.7, 0.5, 0.9])
    sym = Sym(hess_body, [(4,)])
    np.testing.assert_allclose(out[0](x).toarray(), sym.value(sym.hessian(), [x]),
                               rtol=1e-10, atol=1e-12)

    def failing(*a, **k):
        raise RuntimeError("analysis failed")

    monkeypatch.setattr(sc._scaly, "jacobian_pattern", failing)
    with pytest.raises(RuntimeError, match="analysis failed"):
        sc.jacobian(g, layout="csc")
    monkeypatch.setattr(sc._scaly, "jacobian_pattern", pattern)
    J = sc.jacobian(g, layout="csc")
    assert J is sc.jacobian(g, layout="csc")
    np.testing.assert_allclose(J(x).toarray(), fd_jacobian(g, [x]), **FD_TOL)


# ---------------------------------------------------------------------------
# Derivatives inside a trace, and derivatives of derivatives
# ---------------------------------------------------------------------------

def test_in_trace_gradient_hessian_jacobian():
    @sc.function(sc.arg("x", 4), outputs=(sc.arg("v"), sc.arg("g"), sc.arg("H"), sc.arg("J")))
    def newton(x):
        s = hess_body(SC, x)
        c = constraint_body(SC, x[:3])
        return s, sc.gradient(s, x), sc.hessian(s, x), sc.jacobian(c, x)

    x = np.array([0.3, -0.7, 0.5, 0.9])
    v, g, H, J = newton(x)
    sym = Sym(hess_body, [(4,)])
    np.testing.assert_allclose(g, sym.value(sym.jacobian(), [x]).ravel(), **TIGHT)
    np.testing.assert_allclose(H, sym.value(sym.hessian(), [x]), rtol=1e-10, atol=1e-12)
    csym = Sym(lambda m, x: constraint_body(m, x[:3]), [(4,)])
    assert J.shape == (3, 4)
    np.testing.assert_allclose(J, csym.value(csym.jacobian(), [x]), **TIGHT)
    assert_pattern(J, csym.jacobian())


def test_in_trace_gradient_with_respect_to_second_input():
    @sc.function(sc.arg("x", 3), sc.arg("p", 2), sc.arg("k", (), "int64"),
                 outputs=(sc.arg("gp"), sc.arg("gx")))
    def grads(x, p, k):
        s = gsel_body(SC, x, p, k)
        return sc.gradient(s, p), sc.gradient(s, x)

    gx_ref, gp_ref = _gsel_reference()
    gp, gx = grads(*GSEL)
    np.testing.assert_allclose(gp, gp_ref, **TIGHT)
    np.testing.assert_allclose(gx, gx_ref, **TIGHT)


def test_gradient_of_in_trace_gradient():
    """sc.gradient of a Function whose output is built with an in-trace sc.gradient."""
    @sc.function(sc.arg("x", 4), outputs=sc.arg("r"))
    def grad_norm(x):
        g = sc.gradient(hess_body(SC, x), x)
        return sc.sumsqr(g)

    x = np.array([0.3, -0.7, 0.5, 0.9])
    sym = Sym(hess_body, [(4,)])
    grad_expr = sym.jacobian().T
    r_expr = sum((e ** 2 for e in grad_expr), sympy.S.Zero)
    want = sym.value(sympy.Matrix([r_expr]).jacobian(sym.syms[0]), [x]).ravel()
    np.testing.assert_allclose(derived("gradient", grad_norm)(x), want, rtol=1e-9, atol=1e-11)


def test_jacobian_of_gradient():
    f = hess_function()
    x = np.array([-0.2, 0.4, 1.1, -0.6])
    JG = sc.jacobian(derived("gradient", f))
    H = JG(x)
    sym = Sym(hess_body, [(4,)])
    np.testing.assert_allclose(H, sym.value(sym.hessian(), [x]), rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(H, derived("hessian", f)(x), rtol=1e-13, atol=1e-13)


def test_third_derivative():
    f = hess_function()
    x = np.array([0.1, 0.5, -0.3, 0.7])
    T = sc.jacobian(derived("hessian", f))(x)
    assert T.shape == (16, 4)
    sym = Sym(hess_body, [(4,)])
    H = sym.hessian()
    ref = sympy.Matrix(list(H)).jacobian(sym.syms[0])
    np.testing.assert_allclose(T, sym.value(ref, [x]), rtol=1e-9, atol=1e-10)
    # Symmetric in all three indices.
    T3 = T.reshape(4, 4, 4)
    np.testing.assert_allclose(T3, T3.transpose(1, 0, 2), rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(T3, T3.transpose(2, 1, 0), rtol=1e-12, atol=1e-12)


# ---------------------------------------------------------------------------
# scan
# ---------------------------------------------------------------------------

@functools.lru_cache(maxsize=None)
def scan_function():
    @sc.function(sc.arg("s", 2), sc.arg("u", ()), outputs=(sc.arg("s_next"), sc.arg("out")))
    def step(s, u):
        nxt = sc.stack([s[0] + 0.1 * s[1], s[1] + 0.1 * (sc.sin(s[0]) * -1.0 + u)])
        return nxt, nxt[0] * nxt[1]

    @sc.function(sc.arg("s0", 2), sc.arg("us", 5), outputs=(sc.arg("final"), sc.arg("outs")))
    def rollout(s0, us):
        return sc.scan(step, 5)(s0, us)

    return rollout


def test_scan_forward_values():
    """The primal the derivative test below differentiates (independent of derivatives)."""
    f = scan_function()
    s0, us = np.array([0.3, -0.2]), np.linspace(-1, 1, 5)
    final, outs = f(s0, us)
    s = s0.copy()
    want = []
    for u in us:
        s = np.array([s[0] + 0.1 * s[1], s[1] + 0.1 * (-np.sin(s[0]) + u)])
        want.append(s[0] * s[1])
    np.testing.assert_allclose(final, s, **TIGHT)
    np.testing.assert_allclose(outs, want, **TIGHT)


def test_scan_derivatives():
    f = scan_function()
    s0, us = np.array([0.3, -0.2]), np.linspace(-1, 1, 5)
    for of in ("final", "outs"):
        for wrt in ("s0", "us"):
            J = derived("jacobian", f, wrt=wrt, of=of)(s0, us)
            ref = fd_jacobian(f, [s0, us], wrt=("s0", "us").index(wrt),
                              of=("final", "outs").index(of))
            np.testing.assert_allclose(J, ref, **FD_TOL, err_msg=f"d{of}/d{wrt}")


def test_scan_gradient_hessian_and_jvp():
    @sc.function(sc.arg("s", 2), sc.arg("u", ()), outputs=(sc.arg("s_next"), sc.arg("out")))
    def cost_step(s, u):
        nxt = sc.stack([s[0] + 0.1 * s[1], s[1] + 0.1 * (sc.sin(s[0]) * -1.0 + u * s[0])])
        return nxt, nxt[0] * nxt[1]

    @sc.function(sc.arg("s0", 2), sc.arg("us", 5), outputs=sc.arg("cost"))
    def rollout_cost(s0, us):
        final, outs = sc.scan(cost_step, 5)(s0, us)
        return sc.sumsqr(final) + sc.sum(outs * us)

    s0, us = np.array([0.3, -0.2]), np.linspace(-1, 1, 5)
    g0, gu = derived("gradient", rollout_cost)(s0, us)
    np.testing.assert_allclose(g0, fd_jacobian(rollout_cost, [s0, us], wrt=0).ravel(), **FD_TOL)
    np.testing.assert_allclose(gu, fd_jacobian(rollout_cost, [s0, us], wrt=1).ravel(), **FD_TOL)
    H = derived("hessian", rollout_cost, wrt="us")(s0, us)
    np.testing.assert_allclose(H, H.T, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(H, fd_jacobian(derived("gradient", rollout_cost, wrt="us"),
                                              [s0, us], wrt=1), **FD_TOL)
    t0, tu = np.array([1.0, -1.0]), np.linspace(0, 1, 5)
    want = fd_jacobian(rollout_cost, [s0, us], wrt=0) @ t0 + \
        fd_jacobian(rollout_cost, [s0, us], wrt=1) @ tu
    np.testing.assert_allclose(np.ravel(derived("jvp", rollout_cost)(s0, us, t0, tu)), want,
                               **FD_TOL)


def test_scan_shared_parameter():
    """A parameter passed whole to every step (in_axes None): contributions of all steps add."""
    @sc.function(sc.arg("s", 2), sc.arg("k", ()), outputs=sc.arg("s_next"))
    def pstep(s, k):
        return sc.stack([s[0] + 0.1 * s[1] * k, s[1] - 0.1 * sc.sin(s[0]) * k])

    @sc.function(sc.arg("s0", 2), sc.arg("k", ()), outputs=sc.arg("fin"))
    def prollout(s0, k):
        final, _ = sc.scan(pstep, 6, in_axes=(None,))(s0, k)
        return final

    s0, k = np.array([0.5, 0.1]), np.array(1.3)
    for wrt in (0, 1):
        np.testing.assert_allclose(derived("jacobian", prollout, wrt=wrt)(s0, k),
                                   fd_jacobian(prollout, [s0, k], wrt=wrt), **FD_TOL)


def _unused_final_state_scan(n):
    @sc.function(sc.arg("s", 2), sc.arg("p", ()), sc.arg("u", ()),
                 outputs=(sc.arg("sn"), sc.arg("c")))
    def pstep(s, p, u):
        return sc.stack([s[0] + p * u.sin(), s[1] * p + u]), s[0] * s[1] * u + p * p

    @sc.function(sc.arg("s0", 2), sc.arg("p", ()), sc.arg("us", n), outputs=sc.arg("cost"))
    def total(s0, p, us):
        final, cs = sc.scan(pstep, n, in_axes=(None, None, 0))(s0, p, us)
        return sc.sum(cs)

    return total


@pytest.mark.parametrize("n", [1, 2, 5])
def test_scan_unused_final_state_gradient(n):
    """The final state unused: the last step is differentiated apart from the
    reverse scan (none left when n = 1); a parameter shared by every step sums
    the scan's adjoints and the last step's. Against central differences."""
    f = _unused_final_state_scan(n)
    s0, p, us = np.array([0.3, -0.8]), np.array(1.3), np.linspace(-1.0, 1.0, n)
    gs0, gp, gus = sc.gradient(f, wrt=("s0", "p", "us"))(s0, p, us)
    h = 1e-6

    def central(shift):
        return (float(f(*shift(h))) - float(f(*shift(-h)))) / (2 * h)

    want_s0 = [central(lambda t, e=e: (s0 + t * e, p, us)) for e in np.eye(2)]
    want_p = central(lambda t: (s0, p + t, us))
    want_us = [central(lambda t, e=e: (s0, p, us + t * e)) for e in np.eye(n)]
    np.testing.assert_allclose(gs0, want_s0, rtol=1e-7, atol=1e-8)
    np.testing.assert_allclose(gp, want_p, rtol=1e-7, atol=1e-8)
    np.testing.assert_allclose(gus, want_us, rtol=1e-7, atol=1e-8)
