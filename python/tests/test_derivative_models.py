"""Derivatives of models (cart-pole, planar arm, log-sum-exp, quadrotor), larger
compositions, edge values, bad input and the C structure of a scan's gradient, against
SymPy and finite differences (helpers: symbolic.py; see test_derivatives.py for the
references used).
"""

import functools

import numpy as np
import pytest

import scaly as sc
from symbolic import (FD_TOL, SY, TIGHT, Sym, assert_pattern, build, derived, fd_jacobian,
                      gsel_function, hess_body, hess_function, multi_function, rng,
                      vmap_functions)


@pytest.fixture(scope="module", autouse=True)
def private_cache(tmp_path_factory):
    """A private JIT cache for the module: the tests never touch the user's cache."""
    patch = pytest.MonkeyPatch()
    patch.setenv("SCALY_CACHE_DIR", str(tmp_path_factory.mktemp("derivative-models-cache")))
    patch.delenv("SCALY_CC", raising=False)
    patch.delenv("SCALY_CC_OPT", raising=False)
    yield
    patch.undo()


# ---------------------------------------------------------------------------
# Models: cart-pole, 3-link arm, log-sum-exp
# ---------------------------------------------------------------------------

GRAV, M_CART, M_POLE, POLE_L = 9.81, 1.0, 0.1, 0.5


def cartpole_body(m, z, u):
    """The classic cart-pole (Barto, Sutton and Anderson; Florian's equations)."""
    xd, th, thd = z[1], z[2], z[3]
    s, c = m.sin(th), m.cos(th)
    total = M_CART + M_POLE
    temp = (u[0] + M_POLE * POLE_L * thd * thd * s) / total
    thacc = (GRAV * s - c * temp) / (POLE_L * (4.0 / 3.0 - M_POLE * c * c / total))
    xacc = temp - M_POLE * POLE_L * thacc * c / total
    return m.stack([xd, xacc, thd, thacc])


@functools.lru_cache(maxsize=None)
def cartpole_function():
    return build("cartpole", [("z", 4), ("u", 1)], cartpole_body, ("zdot",))


@pytest.mark.parametrize("seed", [0, 1])
def test_cartpole_dynamics_jacobians(seed):
    f = cartpole_function()
    r = rng(30 + seed)
    z, u = r.uniform(-1, 1, 4), r.uniform(-2, 2, 1)
    sym = Sym(cartpole_body, [(4,), (1,)])
    for wrt, shape in (("z", (4, 4)), ("u", (4, 1))):
        J = derived("jacobian", f, wrt=wrt)(z, u)
        assert J.shape == shape
        ref = sym.jacobian(wrt=("z", "u").index(wrt))
        np.testing.assert_allclose(J, sym.value(ref, [z, u]), rtol=1e-10, atol=1e-12)
        np.testing.assert_allclose(J, fd_jacobian(f, [z, u], wrt=("z", "u").index(wrt)),
                                   **FD_TOL)
        assert_pattern(J, ref)
    # The first-column pattern: nothing depends on the cart position.
    assert not derived("jacobian", f, wrt="z")(z, u)[:, 0].any()


def test_cartpole_euler_step_through_call():
    dyn = cartpole_function()

    @sc.function(sc.arg("z", 4), sc.arg("u", 1), outputs=sc.arg("znext"))
    def euler(z, u):
        z1 = z + 0.05 * dyn(z, u)
        return z1 + 0.05 * dyn(z1, u)

    z, u = np.array([0.1, -0.2, 0.3, 0.4]), np.array([0.5])
    def sym_body(m, z, u):
        z1 = z + 0.05 * cartpole_body(m, z, u)
        return z1 + 0.05 * cartpole_body(m, z1, u)
    sym = Sym(sym_body, [(4,), (1,)])
    for k in (0, 1):
        J = derived("jacobian", euler, wrt=k)(z, u)
        np.testing.assert_allclose(J, sym.value(sym.jacobian(wrt=k), [z, u]), rtol=1e-10,
                                   atol=1e-12)


LINKS = np.array([1.0, 0.8, 0.5])


def arm_body(m, q):
    a1 = q[0]
    a2 = a1 + q[1]
    a3 = a2 + q[2]
    px = LINKS[0] * m.cos(a1) + LINKS[1] * m.cos(a2) + LINKS[2] * m.cos(a3)
    py = LINKS[0] * m.sin(a1) + LINKS[1] * m.sin(a2) + LINKS[2] * m.sin(a3)
    return m.stack([px, py])


def arm_vector_body(m, q):
    angles = m.matmul(np.tril(np.ones((3, 3))), q)
    return m.stack([m.dot(LINKS, m.cos(angles)), m.dot(LINKS, m.sin(angles))])


@pytest.mark.parametrize("form", ["scalar", "vector"])
def test_planar_arm_kinematics_jacobian(form):
    body = arm_body if form == "scalar" else arm_vector_body
    f = build(f"arm_{form}", [("q", 3)], body, ("p",))
    q = np.array([0.4, -0.9, 1.3])
    J = derived("jacobian", f)(q)
    assert J.shape == (2, 3)
    sym = Sym(arm_body, [(3,)])
    ref = sym.jacobian()
    np.testing.assert_allclose(J, sym.value(ref, [q]), **TIGHT)
    assert_pattern(J, ref)
    # The textbook closed form: columns are z x (p - joint_i).
    a = np.cumsum(q)
    joints = np.vstack([[0.0, 0.0], np.cumsum(LINKS[:, None] * np.c_[np.cos(a), np.sin(a)],
                                              axis=0)])
    tip = joints[-1]
    want = np.array([[-(tip - joints[i])[1], (tip - joints[i])[0]] for i in range(3)]).T
    np.testing.assert_allclose(J, want, **TIGHT)


def lse_body(m, x):
    mx = m.max(x)
    return mx + m.log(m.sum(m.exp(x - mx)))


def test_log_sum_exp():
    f = build("lse", [("x", 5)], lse_body, ("s",))
    x = np.array([0.3, 2.0, -1.0, 1.9, 0.0])
    p = np.exp(x - x.max())
    p /= p.sum()
    g = derived("gradient", f)(x)
    np.testing.assert_allclose(g, p, **TIGHT)
    H = derived("hessian", f)(x)
    np.testing.assert_allclose(H, np.diag(p) - np.outer(p, p), rtol=1e-10, atol=1e-12)
    # SymPy, on the unstabilized formula.
    sym = Sym(lambda m, x: SY.log(SY.sum(SY.exp(x))), [(5,)])
    np.testing.assert_allclose(g, sym.value(sym.jacobian(), [x]).ravel(), **TIGHT)
    np.testing.assert_allclose(H, sym.value(sym.hessian(), [x]), rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(g, fd_jacobian(f, [x]).ravel(), **FD_TOL)
    # Large inputs: the stabilized form keeps the gradient finite.
    big = x + 800.0
    np.testing.assert_allclose(derived("gradient", f)(big), p, rtol=1e-9, atol=1e-12)


# ---------------------------------------------------------------------------
# More compositions: nested maps, normalizations, name clashes
# ---------------------------------------------------------------------------

def test_nested_vmap_and_vmap_all_shared():
    step, mapped_shared, _, _ = vmap_functions()

    @sc.function(sc.arg("Z", (2, 4, 3)), sc.arg("p", 2), outputs=sc.arg("Y"))
    def nested(Z, p):
        return sc.vmap(mapped_shared, 2, in_axes=(0, None))(Z, p)

    @sc.function(sc.arg("x", 3), sc.arg("p", 2), outputs=sc.arg("Y"))
    def repeated(x, p):
        return sc.vmap(step, 4, in_axes=None)(x, p)

    r = rng(40)
    Z, x, p = r.uniform(-1, 1, (2, 4, 3)), r.uniform(-1, 1, 3), np.array([0.5, 2.0])
    for wrt in (0, 1):
        np.testing.assert_allclose(derived("jacobian", nested, wrt=wrt)(Z, p),
                                   fd_jacobian(nested, [Z, p], wrt=wrt), **FD_TOL)
        J = derived("jacobian", repeated, wrt=wrt)(x, p)
        np.testing.assert_allclose(J, fd_jacobian(repeated, [x, p], wrt=wrt), **FD_TOL)
        # Four identical iterations: four identical row blocks.
        np.testing.assert_array_equal(J.reshape(4, 3, -1),
                                      np.broadcast_to(J[:3], (4, 3, J.shape[1])))


def test_vmap_of_function_with_in_trace_gradient():
    @sc.function(sc.arg("x", 3), outputs=sc.arg("g"))
    def row_gradient(x):
        return sc.gradient(sc.sum(sc.sin(x) * x[::-1]), x)

    @sc.function(sc.arg("X", (5, 3)), outputs=sc.arg("G"))
    def all_rows(X):
        return sc.vmap(row_gradient, 5)(X)

    X = rng(41).uniform(-1, 1, (5, 3))
    want = np.array([np.cos(r) * r[::-1] + np.sin(r[::-1]) for r in X])
    np.testing.assert_allclose(all_rows(X), want, **TIGHT)
    np.testing.assert_allclose(derived("jacobian", all_rows)(X), fd_jacobian(all_rows, [X]),
                               **FD_TOL)


def test_call_of_derived_function_inside_trace():
    f = hess_function()
    grad = derived("gradient", f)

    @sc.function(sc.arg("x", 4), outputs=sc.arg("g2"))
    def doubled_gradient(x):
        return grad(x) * 2.0

    x = np.array([0.3, -0.7, 0.5, 0.9])
    sym = Sym(hess_body, [(4,)])
    np.testing.assert_allclose(derived("jacobian", doubled_gradient)(x),
                               2.0 * sym.value(sym.hessian(), [x]), rtol=1e-10, atol=1e-12)


NORMALIZATIONS = {
    "softmax": lambda m, x: m.exp(x - m.max(x)) / m.sum(m.exp(x - m.max(x))),
    "normalize": lambda m, x: x / m.norm2(x),
    "center": lambda m, x: x - m.mean(x, keepdims=True),
    "standardize": lambda m, x: (x - m.mean(x)) / m.sqrt(m.mean((x - m.mean(x)) ** 2)),
}


def _normalization_reference(name, x):
    n = x.size
    if name == "softmax":
        p = np.exp(x - x.max()) / np.exp(x - x.max()).sum()
        return np.diag(p) - np.outer(p, p)
    if name == "normalize":
        r = np.linalg.norm(x)
        return np.eye(n) / r - np.outer(x, x) / r ** 3
    if name == "center":
        return np.eye(n) - 1.0 / n
    c = x - x.mean()
    sd = np.sqrt((c ** 2).mean())
    z = c / sd
    return (np.eye(n) - 1.0 / n - np.outer(z, z) / n) / sd


@pytest.mark.parametrize("name", sorted(NORMALIZATIONS))
def test_normalization_jacobians(name):
    f = build(f"norm_{name}", [("x", 5)], NORMALIZATIONS[name])
    x = rng(42).normal(size=5)
    J = derived("jacobian", f)(x)
    np.testing.assert_allclose(J, _normalization_reference(name, x), rtol=1e-10, atol=1e-13)
    np.testing.assert_allclose(J, fd_jacobian(f, [x]), **FD_TOL)


def test_matrix_products_of_one_variable():
    def body(m, A):
        return A @ A + m.transpose(A) @ A
    f = build("gram", [("A", (3, 3))], body)
    A = rng(43).normal(size=(3, 3))
    sym = Sym(body, [(3, 3)])
    J = derived("jacobian", f)(A)
    np.testing.assert_allclose(J, sym.value(sym.jacobian(), [A]), **TIGHT)
    assert_pattern(J, sym.jacobian())


def test_large_compositions():
    """More than 64 elements (loops, not scalarized code): products with zeros, where, max."""
    def prods(m, X):
        return m.prod(X, axis=0) + m.sum(m.prod(X[::-1, ::2], axis=1))
    f = build("prod_large", [("X", (10, 8))], prods)
    X = rng(44).uniform(0.5, 1.5, (10, 8))
    X[3, 2] = X[5, 4] = X[7, 4] = 0.0
    np.testing.assert_allclose(derived("jacobian", f)(X), fd_jacobian(f, [X]), **FD_TOL)

    def mixed(m, x):
        return (m.sum(m.where(x > 0.0, x * x, m.sin(x))) * m.max(x) +
                m.min(x[::3]) * m.mean(x ** 3))
    g = build("mixed_large", [("x", 70)], mixed, ("s",))
    x = rng(45).uniform(-1, 1, 70)
    grad = derived("gradient", g)
    np.testing.assert_allclose(grad(x), fd_jacobian(g, [x]).ravel(), **FD_TOL)
    H = derived("hessian", g)(x)
    np.testing.assert_allclose(H, H.T, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(H, fd_jacobian(grad, [x]), **FD_TOL)


def test_large_elementwise():
    def body(m, x):
        return m.sin(x) * m.exp(0.3 * x) + m.sqrt(x + 3.0) * m.atan(x) + m.abs(x) * m.tanh(x)
    f = build("elementwise_large", [("x", 100)], body)
    x = rng(46).uniform(-2, 2, 100)
    d = (np.cos(x) * np.exp(.3 * x) + .3 * np.sin(x) * np.exp(.3 * x) +
         .5 / np.sqrt(x + 3) * np.arctan(x) + np.sqrt(x + 3) / (1 + x * x) +
         np.sign(x) * np.tanh(x) + np.abs(x) * (1 - np.tanh(x) ** 2))
    np.testing.assert_allclose(derived("jvp", f)(x, np.ones(100)), d, **TIGHT)
    np.testing.assert_allclose(derived("vjp", f)(x, np.ones(100)), d, **TIGHT)
    np.testing.assert_allclose(derived("jacobian", f)(x), np.diag(d), **TIGHT)


def test_pass_through_constant_and_duplicate_outputs():
    @sc.function(sc.arg("x", 3), sc.arg("p", 2), outputs=(sc.arg("a"), sc.arg("b"),
                                                          sc.arg("c"), sc.arg("d")))
    def plain(x, p):
        y = sc.sin(x)
        return x, p, y, y

    x, p = np.array([0.1, 0.2, 0.3]), np.array([1.0, 2.0])
    np.testing.assert_array_equal(derived("jacobian", plain, wrt="x", of="a")(x, p), np.eye(3))
    np.testing.assert_array_equal(derived("jacobian", plain, wrt="x", of="b")(x, p),
                                  np.zeros((2, 3)))
    wa, wb, wc, wd = np.ones(3), np.ones(2), np.full(3, 2.0), np.full(3, 3.0)
    ax, ap = derived("vjp", plain)(x, p, wa, wb, wc, wd)
    np.testing.assert_allclose(ax, wa + (wc + wd) * np.cos(x), **TIGHT)
    np.testing.assert_allclose(ap, wb, **TIGHT)

    @sc.function(sc.arg("x", 3), outputs=sc.arg("k"))
    def constant(x):
        return np.array([1.0, 2.0])
    np.testing.assert_array_equal(derived("jacobian", constant)(x), np.zeros((2, 3)))


def test_integer_casts_and_masks_have_zero_derivative():
    def body(m, x):
        return x.astype("int64").astype("float64") * x + (x > 0).astype("float64") * x * 3.0
    f = build("intcast", [("x", 4)], body)
    x = np.array([1.7, -2.3, 0.4, 3.2])
    np.testing.assert_array_equal(derived("jacobian", f)(x), np.diag(np.trunc(x) + 3.0 * (x > 0)))
    np.testing.assert_allclose(derived("jacobian", f)(x), fd_jacobian(f, [x]), **FD_TOL)


def test_names_that_clash_with_derived_ports():
    """Inputs named like the ports the transforms add (d_x, k, lam_c) keep their roles."""
    @sc.function(sc.arg("x", 2), sc.arg("d_x", 2), outputs=sc.arg("y"))
    def clash(x, d_x):
        return x * sc.sin(d_x) + 3.0 * d_x

    x, dx = np.array([0.5, 1.0]), np.array([0.2, -0.3])
    jv = derived("jvp", clash)
    assert len({n for n, _, _ in jv.inputs}) == 4
    tx, tdx = np.array([1.0, -2.0]), np.array([0.5, 1.5])
    np.testing.assert_allclose(jv(x, dx, tx, tdx),
                               np.sin(dx) * tx + (x * np.cos(dx) + 3.0) * tdx, **TIGHT)

    @sc.function(sc.arg("x", 2), sc.arg("k", ()), outputs=sc.arg("col"))
    def uses_k(x, k):
        return x * k * x[::-1]
    k = np.array(2.0)
    for wrt in (0, 1):  # the Jacobian's sweeps add an int input named k
        np.testing.assert_allclose(derived("jacobian", uses_k, wrt=wrt)(x, k),
                                   fd_jacobian(uses_k, [x, k], wrt=wrt), **FD_TOL)

    @sc.function(sc.arg("x", 2), sc.arg("lam_c", ()), outputs=sc.arg("c"))
    def cons(x, lam_c):
        return sc.stack([x[0] * x[1] * lam_c, x[0] ** 3])
    lam = np.array([2.0, -1.0])
    want = lam[0] * 3.0 * np.array([[0, 1], [1, 0]]) + lam[1] * np.array([[6 * x[0], 0], [0, 0]])
    np.testing.assert_allclose(derived("hessian", cons, wrt="x", multipliers=True)(
        x, np.array(3.0), lam), want, **TIGHT)


def test_callees_with_clashing_names():
    """Callees named like derived functions (g_jvp, g_vjp) and two callees both named inner."""
    @sc.function(sc.arg("x", 2), outputs=sc.arg("y"))
    def g(x):
        return sc.sin(x) * x[0]

    @sc.function(sc.arg("x", 2), outputs=sc.arg("y"))
    def g_jvp(x):
        return sc.exp(x) * 5.0

    @sc.function(sc.arg("x", 2), outputs=sc.arg("y"))
    def g_vjp(x):
        return sc.cos(x) * 7.0

    def make(scale, blocked):
        @sc.function(sc.arg("x", 2), outputs=sc.arg("y"))
        def inner(x):
            y = sc.sin(x) * scale
            return y.block() if blocked else y
        return inner

    i1, i2, b1, b2 = make(1.0, False), make(10.0, False), make(2.0, True), make(20.0, True)

    @sc.function(sc.arg("x", 2), outputs=sc.arg("s"))
    def h(x):
        return sc.sum(g(x) * g_jvp(x) + g_vjp(x) * g(x[::-1]) + i1(x) + i2(2.0 * x) +
                      b1(x) + b2(3.0 * x))

    x = np.array([0.5, 1.0])
    np.testing.assert_allclose(derived("gradient", h)(x), fd_jacobian(h, [x]).ravel(), **FD_TOL)
    np.testing.assert_allclose(derived("jacobian", h)(x), fd_jacobian(h, [x]), **FD_TOL)


def test_hessian_with_multipliers_of_one_output_of_several():
    @sc.function(sc.arg("x", 2), sc.arg("p", ()), outputs=(sc.arg("c"), sc.arg("o")))
    def cons(x, p):
        return sc.stack([x[0] * x[1] * p, sc.sin(x[0]) * p * p]), sc.sum(x) * p

    H = derived("hessian", cons, wrt="x", of="c", multipliers=True)
    assert [n for n, _, _ in H.inputs] == ["x", "p", "lam_c"]
    x, p, lam = np.array([0.5, 1.0]), np.array(1.5), np.array([2.0, -1.0])
    want = lam[0] * p * np.array([[0, 1], [1, 0]]) + \
        lam[1] * p * p * np.array([[-np.sin(x[0]), 0], [0, 0]])
    np.testing.assert_allclose(H(x, p, lam), want, **TIGHT)
    Hp = derived("hessian", cons, wrt="p", of="c", multipliers=True)
    np.testing.assert_allclose(Hp(x, p, lam), [[lam[1] * 2 * np.sin(x[0])]], **TIGHT)


# ---------------------------------------------------------------------------
# Edge values: non-smooth points, zero bases, untaken branches, empty arrays
# ---------------------------------------------------------------------------

def test_max_min_at_ties_give_a_subgradient():
    f = build("ties", [("x", 4)], lambda m, x: m.stack([m.max(x), m.min(x)]))
    x = np.array([1.0, 3.0, 3.0, 0.0])
    J = derived("jacobian", f)(x)
    # Each row is a convex combination of the tied elements' unit vectors.
    assert (J >= 0).all()
    np.testing.assert_allclose(J.sum(axis=1), [1.0, 1.0], **TIGHT)
    assert not J[0, [0, 3]].any() and not J[1, [0, 1, 2]].any()


def test_log_sum_exp_with_tied_maximum():
    """The max's derivative cancels in log-sum-exp: softmax whatever it is at a tie."""
    f = build("lse_tie", [("x", 4)], lse_body, ("s",))
    x = np.array([1.0, 3.0, 3.0, 0.0])
    p = np.exp(x) / np.exp(x).sum()
    np.testing.assert_allclose(derived("gradient", f)(x), p, **TIGHT)


POW_FN = functools.lru_cache(maxsize=None)(
    lambda: build("pow_edge", [("x", 4), ("y", 4)], lambda m, x, y: m.pow(x, y)))


def test_pow_base_derivative_at_zero_base():
    """d/dx x**y at x = 0: 0 for y = 2, 1 for y = 1, +inf for y = 0.5."""
    x, y = np.zeros(4), np.array([2.0, 1.0, 0.5, 3.0])
    np.testing.assert_array_equal(np.diag(derived("jacobian", POW_FN(), wrt="x")(x, y)),
                                  [0.0, 1.0, np.inf, 0.0])


def test_pow_exponent_derivative_at_zero_base():
    x, y = np.zeros(4), np.array([2.0, 1.0, 0.5, 3.0])
    np.testing.assert_array_equal(np.diag(derived("jacobian", POW_FN(), wrt="y")(x, y)),
                                  np.zeros(4))


def test_pow_zero_exponent_derivative_at_zero_base():
    x, y = np.zeros(4), np.zeros(4)
    np.testing.assert_array_equal(np.diag(derived("jacobian", POW_FN(), wrt="x")(x, y)),
                                  np.zeros(4))


GUARDED = functools.lru_cache(maxsize=None)(
    lambda: build("guarded_sqrt", [("x", 3)], lambda m, x: m.where(x > 0.0, m.sqrt(x), 0.0)))


def test_where_untaken_branch_forward_mode():
    x = np.array([-1.0, 4.0, 0.25])
    np.testing.assert_array_equal(derived("jvp", GUARDED())(x, np.ones(3)), [0.0, 0.25, 1.0])


def test_where_untaken_branch_reverse_mode():
    """The untaken branch's derivative (sqrt'(-1) = NaN) does not turn its zero
    cotangent into NaN: reverse mode agrees with forward mode."""
    x = np.array([-1.0, 4.0, 0.25])
    np.testing.assert_array_equal(derived("vjp", GUARDED())(x, np.ones(3)), [0.0, 0.25, 1.0])


GUARDED_CHAIN = functools.lru_cache(maxsize=None)(
    lambda: build("guarded_chain", [("x", 4)],
                  lambda m, x: m.sum(m.where(x > 0.0, m.sin(m.sqrt(x)) * m.log(x), -x * x)),
                  ("s",)))


def test_where_untaken_branch_chain_gradient_and_hessian():
    """Through a chain of ops in the guarded branch (sqrt, log and a product,
    all undefined at x < 0) and an other branch using x too: the gradient and
    the Hessian are finite and equal NumPy's and finite differences'."""
    f = GUARDED_CHAIN()
    x = np.array([-1.5, 0.7, -0.2, 2.3])
    pos = x > 0

    def grad(x):
        r = np.sqrt(np.abs(x))
        g = np.cos(r) / (2 * r) * np.log(np.abs(x)) + np.sin(r) / np.abs(x)
        return np.where(x > 0, g, -2 * x)

    g = sc.gradient(f, wrt="x")(x)
    assert np.all(np.isfinite(g))
    np.testing.assert_allclose(g, grad(x), rtol=1e-13)
    H = sc.hessian(f, wrt="x")(x)
    assert np.all(np.isfinite(H))
    np.testing.assert_array_equal(H - np.diag(np.diag(H)), 0.0)
    h = 1e-6
    fd = np.array([(grad(x + h * e) - grad(x - h * e)) / (2 * h) for e in np.eye(4)])
    np.testing.assert_allclose(np.diag(H), np.diag(fd), rtol=1e-6)
    np.testing.assert_array_equal(np.diag(H)[~pos], -2.0)


def test_empty_input_gradient():
    f = build("empty_in", [("x", 0), ("y", 2)], lambda m, x, y: m.sum(x * x) + m.sum(y * y),
              ("s",))
    gx, gy = derived("gradient", f)(np.zeros(0), np.array([1.0, 2.0]))
    assert gx.shape == (0,)
    np.testing.assert_array_equal(gy, [2.0, 4.0])


def test_empty_jacobian():
    f = build("empty_jac", [("x", 0), ("y", 3)],
              lambda m, x, y: (m.sum(x) + y, y[:0] * 2.0), ("a", "b"))
    x, y = np.zeros(0), np.ones(3)
    assert sc.jacobian(f, wrt="x", of="a")(x, y).shape == (3, 0)
    assert sc.jacobian(f, wrt="y", of="b")(x, y).shape == (0, 3)


# ---------------------------------------------------------------------------
# Bad input: clear errors
# ---------------------------------------------------------------------------

def test_wrt_unknown_name():
    f = gsel_function()
    for kind in ("gradient", "jacobian", "hessian", "jvp", "vjp"):
        with pytest.raises(ValueError, match="nope"):
            getattr(sc, kind)(f, wrt="nope")


def test_wrt_int_input():
    f = gsel_function()
    for kind in ("gradient", "jacobian", "hessian", "jvp", "vjp"):
        with pytest.raises(TypeError, match="'k'.*int64"):
            getattr(sc, kind)(f, wrt="k")
    with pytest.raises(TypeError, match="int64"):
        sc.gradient(f, wrt=2)


def test_wrt_index_out_of_range_and_bad_type():
    f = gsel_function()
    with pytest.raises(ValueError, match="out of range"):
        sc.gradient(f, wrt=3)
    with pytest.raises(TypeError):
        sc.gradient(f, wrt=1.0)
    with pytest.raises(ValueError, match="empty"):
        sc.gradient(f, wrt=[])


def test_of_unknown_output():
    f = multi_function()
    with pytest.raises(ValueError, match="zzz"):
        sc.jacobian(f, wrt="x", of="zzz")


def test_gradient_of_non_scalar_output():
    f = multi_function()
    with pytest.raises(ValueError, match="scalar"):
        sc.gradient(f, of="y")
    with pytest.raises(ValueError, match="scalar"):
        sc.hessian(f, wrt="x", of="y")
    with pytest.raises(ValueError, match="scalar"):
        @sc.function(sc.arg("x", 3), outputs=sc.arg("g"))
        def bad(x):
            return sc.gradient(x * 2.0, x)


def test_ambiguous_choice_needs_wrt_and_of():
    f = multi_function()
    with pytest.raises(ValueError, match="wrt="):
        sc.jacobian(f, of="y")  # two float inputs
    with pytest.raises(ValueError, match="of="):
        sc.jacobian(f, wrt="x")  # two outputs


def test_jacobian_bad_layout():
    f = hess_function()
    with pytest.raises(ValueError, match="bogus"):
        sc.jacobian(f, layout="bogus")


def test_gradient_with_respect_to_intermediate_value():
    with pytest.raises(ValueError, match="input"):
        @sc.function(sc.arg("x", 3), outputs=sc.arg("g"))
        def bad(x):
            y = x * 2.0
            return sc.gradient(sc.sum(y * y), y)


def test_in_trace_errors():
    with pytest.raises(TypeError, match="Expr"):
        @sc.function(sc.arg("x", 3), outputs=sc.arg("g"))
        def bad_x(x):
            return sc.gradient(sc.sum(x), np.ones(3))
    with pytest.raises(ValueError, match="multipliers"):
        @sc.function(sc.arg("x", 3), outputs=sc.arg("g"))
        def bad_multipliers(x):
            return sc.hessian(sc.sum(x * x), x, multipliers=True)


def test_not_a_function():
    with pytest.raises(TypeError, match="Function"):
        sc.gradient(lambda x: x)
    with pytest.raises(TypeError, match="Function"):
        sc.jvp(np.sin)


def test_no_float_inputs():
    f = build("ints_only", [("k", 3, "int64")], lambda m, k: m.sum(k), ("s",))
    with pytest.raises(ValueError, match="no float"):
        sc.gradient(f)


def test_in_trace_gradient_with_respect_to_int_input():
    with pytest.raises(TypeError, match="int64"):
        @sc.function(sc.arg("x", 3), sc.arg("k", (), "int64"), outputs=sc.arg("g"))
        def bad(x, k):
            return sc.gradient(sc.sum(x) * k.astype("float64"), k)


def test_in_trace_gradient_int_input_message():
    with pytest.raises(TypeError) as info:
        @sc.function(sc.arg("x", 3), sc.arg("k", (), "int64"), outputs=sc.arg("g"))
        def bad(x, k):
            return sc.gradient(sc.sum(x) * k.astype("float64"), k)
    message = str(info.value)
    assert message.startswith("gradient") and "traced()" not in message and "in1" not in message


def test_in_trace_bad_layout_and_int_output():
    with pytest.raises(ValueError, match="bogus"):
        @sc.function(sc.arg("x", 3), outputs=sc.arg("g"))
        def bad_layout(x):
            return sc.jacobian(x * 2.0, x, layout="bogus")
    with pytest.raises(TypeError, match="int64"):
        @sc.function(sc.arg("x", 3), outputs=sc.arg("g"))
        def int_output(x):
            return sc.gradient(sc.sum(x.astype("int64")), x)
    with pytest.raises(ValueError, match="input"):
        @sc.function(sc.arg("x", 3), outputs=sc.arg("g"))
        def wrt_element(x):
            return sc.gradient(sc.sum(x), x[0])


def test_int_output_is_not_differentiated():
    @sc.function(sc.arg("x", 3), outputs=(sc.arg("s"), sc.arg("n")))
    def with_count(x):
        return sc.sum(x * x), sc.sum((x > 0).astype("int64"))

    with pytest.raises(TypeError, match="'n'.*int64"):
        sc.gradient(with_count, of="n")
    with pytest.raises(TypeError, match="'n'.*int64"):
        sc.jacobian(with_count, of="n")
    # Defaults skip the int output.
    np.testing.assert_allclose(derived("gradient", with_count)(np.array([1.0, -2.0, 3.0])),
                               [2.0, -4.0, 6.0])
    assert [n for n, _, _ in derived("vjp", with_count).inputs] == ["x", "adj_s"]


def test_derived_function_checks_its_inputs():
    J = derived("jacobian", multi_function(), wrt="x", of="y")
    with pytest.raises(ValueError, match="shape"):
        J(np.ones(4), np.ones(2))
    with pytest.raises(TypeError):
        J(np.ones(3))


def test_layout_unknown():
    with pytest.raises(ValueError, match="'dense', 'csc', 'csr', 'coo', 'batched'"):
        sc.jacobian(hess_function(), layout="csx")


def test_jacobian_wrt_two_inputs():
    with pytest.raises(ValueError, match="choose one"):
        sc.jacobian(multi_function(), wrt=["x", "u"], of="y")


# ---------------------------------------------------------------------------
# Quadrotor, and the structure of a scan's gradient in C
# ---------------------------------------------------------------------------

QUAD_MASS, QUAD_ARM, QUAD_INERTIA = 0.5, 0.17, (2.3e-3, 2.3e-3, 4.0e-3)


def quadrotor_body(m, s, u):
    """A 12-state quadrotor: position, Z-Y-X Euler angles, velocity, body rates; u = rotor
    thrusts. Translational dynamics in the world frame, rotational in the body frame."""
    phi, theta, psi = s[3], s[4], s[5]
    p, q, r = s[9], s[10], s[11]
    cph, sph, cth, sth, cps, sps = (m.cos(phi), m.sin(phi), m.cos(theta), m.sin(theta),
                                    m.cos(psi), m.sin(psi))
    thrust = u[0] + u[1] + u[2] + u[3]
    ax = (cps * sth * cph + sps * sph) * thrust / QUAD_MASS
    ay = (sps * sth * cph - cps * sph) * thrust / QUAD_MASS
    az = cth * cph * thrust / QUAD_MASS - GRAV
    phid = p + (q * sph + r * cph) * sth / cth
    thetad = q * cph - r * sph
    psid = (q * sph + r * cph) / cth
    ix, iy, iz = QUAD_INERTIA
    pd = (QUAD_ARM * (u[1] - u[3]) + (iy - iz) * q * r) / ix
    qd = (QUAD_ARM * (u[2] - u[0]) + (iz - ix) * p * r) / iy
    rd = (0.01 * (u[0] - u[1] + u[2] - u[3]) + (ix - iy) * p * q) / iz
    return m.stack([s[6], s[7], s[8], phid, thetad, psid, ax, ay, az, pd, qd, rd])


def test_quadrotor_jacobians_match_sympy():
    f = build("quadrotor", [("s", 12), ("u", 4)], quadrotor_body, ("sdot",))
    r = rng(77)
    s, u = r.uniform(-0.5, 0.5, 12), r.uniform(1.0, 2.0, 4)
    sym = Sym(quadrotor_body, [(12,), (4,)])
    for k, name in enumerate(("s", "u")):
        ref = sym.jacobian(wrt=k)
        for layout in ("dense", "csc"):
            J = derived("jacobian", f, wrt=name, layout=layout)(s, u)
            J = J.toarray() if layout == "csc" else J
            np.testing.assert_allclose(J, sym.value(ref, [s, u]), rtol=1e-10, atol=1e-12)
            np.testing.assert_allclose(J, fd_jacobian(f, [s, u], wrt=k), **FD_TOL)
        # The stored pattern is exactly SymPy's structural nonzeros.
        stored = sc.jacobian_sparsity(f, wrt=name).toarray() != 0
        expected = np.array([[ref[i, j] != 0 for j in range(ref.shape[1])]
                             for i in range(ref.shape[0])])
        np.testing.assert_array_equal(stored, expected)


def _scan_gradient_c(n, **options):
    from scaly.codegen import render_c_module

    @sc.function(sc.arg("z", 2), sc.arg("u", ()), outputs=(sc.arg("zn"), sc.arg("c")))
    def step(z, u):
        zn = sc.stack([z[0] + 0.1 * z[1], z[1] + 0.1 * (sc.sin(u) - z[0])])
        return zn, (z * z).sum() + u * u

    @sc.function(sc.arg("z0", 2), sc.arg("us", n), outputs=sc.arg("cost"))
    def rollout_cost(z0, us):
        zn, cs = sc.scan(step, n)(z0, us)
        return cs.sum() + (zn * zn).sum()

    return render_c_module(sc.gradient(rollout_cost), name="grad", **options).source


def test_scan_gradient_c_differs_only_in_constants():
    import re
    small, large = _scan_gradient_c(1000), _scan_gradient_c(100000)
    digits = re.compile(r"\d+")
    assert digits.sub("N", small) == digits.sub("N", large)
    assert "100000" in large and len(large) < 2 * len(small)
    # 10 steps: small enough to be scalarized by default; with every array structured
    # (scalarize_limit=0) the C is the same as for 100000 steps up to constants.
    ten, many = _scan_gradient_c(10, scalarize_limit=0), _scan_gradient_c(100000, scalarize_limit=0)
    assert digits.sub("N", ten) == digits.sub("N", many)


def _guarded(name, body):
    body.__name__ = body.__qualname__ = name
    return sc.function(sc.arg("x", 3), outputs=sc.arg("s"))(body)


def _fanin(x):
    s = sc.sqrt(x)
    return sc.sum(sc.where(x > 0.0, s * s * s, 0.0))


GUARDED_CASES = {
    # a value used several times in the branch: sums of marked cotangents stay marked
    "fanin": (_fanin, lambda x: np.where(x > 0, 1.5 * np.sqrt(np.abs(x)), 0.0)),
    # a where inside the taken branch of another: both marks are kept
    "nested": (lambda x: sc.sum(sc.where(x > 0.0, sc.where(x < 1.0, sc.sqrt(x), 1.0), 0.0)),
               lambda x: np.where((x > 0) & (x < 1), 0.5 / np.sqrt(np.abs(x)), 0.0)),
    # the branch in float32: the cast carries the mark
    "cast": (lambda x: sc.sum(sc.where(x > 0.0, sc.sqrt(x.astype("float32")).astype("float64"),
                                       0.0)),
             None),
    # the untaken side is the false one
    "false_side": (lambda x: sc.sum(sc.where(x < 0.0, 0.0, sc.log(x) * x)),
                   lambda x: np.where(x < 0, 0.0, np.log(np.abs(x)) + 1.0)),
}


@pytest.mark.parametrize("case", sorted(GUARDED_CASES))
def test_where_untaken_branch_variants(case):
    """Reverse mode equals forward mode (and NumPy's derivative where given):
    no NaN from the untaken branch, also for sums, nesting, casts and the
    false side; the Hessian is finite."""
    body, reference = GUARDED_CASES[case]
    f = _guarded(f"guarded_{case}", body)
    x = np.array([-1.0, 4.0, 0.25])
    rev = sc.gradient(f, wrt="x")(x)
    fwd = np.array([float(np.asarray(sc.jvp(f, wrt="x")(x, e))) for e in np.eye(3)])
    assert np.all(np.isfinite(rev)), rev
    np.testing.assert_allclose(rev, fwd, rtol=1e-6 if case == "cast" else 1e-15)
    if reference is not None:
        np.testing.assert_allclose(rev, reference(x), rtol=1e-13)
    assert np.all(np.isfinite(sc.hessian(f, wrt="x")(x)))


def test_masks_do_not_outlive_their_derivative():
    """A called function's reverse pass marks cotangents of its selects; once
    its ops are gone, nothing of that marking applies elsewhere (abs's own
    select in the caller's reverse pass is not a guarded branch)."""
    @sc.function(sc.arg("x", 3), sc.arg("y", 3), outputs=sc.arg("r", 3))
    def with_where(x, y):
        return (x < 0.0).astype("float64") + sc.where(x > 0.0, 1.0, 2.0) + y + x

    @sc.function(sc.arg("x", 3), sc.arg("y", 3), outputs=sc.arg("s"))
    def outer_abs(x, y):
        return sc.sum(with_where(sc.abs(x), y))

    x, y = np.array([-1.0, 2.0, -3.0]), np.ones(3)
    np.testing.assert_array_equal(sc.gradient(outer_abs, wrt="x")(x, y), np.sign(x))
