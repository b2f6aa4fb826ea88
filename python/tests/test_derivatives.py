"""sc.jvp, sc.vjp, sc.gradient, sc.jacobian and sc.hessian against independent references:
elementwise ops, casts, reductions, broadcasting and linear structure.

The references never go through Scaly's differentiation:

* central finite differences of the compiled primal Function (float64), and
* SymPy: the same expression is built on arrays of SymPy symbols (most bodies
  below are written once against a namespace `m`, which is `SC` (`sc` plus
  comparisons as functions) when tracing and `SY` for SymPy), differentiated
  symbolically and evaluated with
  `lambdify`; the structural nonzero pattern of the symbolic Jacobian (the
  entries that are not identically zero) must equal the nonzero pattern of
  Scaly's dense Jacobian at a random point, and
* for linear maps (slices, transposes, gathers, ...) the exact Jacobian from
  NumPy applied to unit vectors.

Every derived Function is built once and memoized (`derived`), so each
compiles once however many checks use it. The shared helpers are in symbolic.py;
test_derivative_calls.py and test_derivative_models.py hold the rest.
"""

import functools
import types

import numpy as np
import pytest

import scaly as sc

from symbolic import (FD_TOL, TIGHT, Sym, assert_pattern, build, derived, fd_jacobian,
                      outputs_of, rng)


@pytest.fixture(scope="module", autouse=True)
def private_cache(tmp_path_factory):
    """A private JIT cache for the module: the tests never touch the user's cache."""
    patch = pytest.MonkeyPatch()
    patch.setenv("SCALY_CACHE_DIR", str(tmp_path_factory.mktemp("derivatives-cache")))
    patch.delenv("SCALY_CC", raising=False)
    patch.delenv("SCALY_CC_OPT", raising=False)
    yield
    patch.undo()


def linear_jacobian(np_fn, args, wrt):
    """The exact Jacobian of `np_fn`, affine in argument `wrt`, from unit vectors."""
    x = np.asarray(args[wrt], dtype=np.float64)

    def at(value):
        a = list(args)
        a[wrt] = value.reshape(x.shape)
        return np.asarray(np_fn(*a), dtype=np.float64).ravel()

    offset = at(np.zeros(x.size))
    return np.stack([at(np.eye(x.size)[k]) - offset for k in range(x.size)], axis=1)


# ---------------------------------------------------------------------------
# Unary elementwise ops and math functions
# ---------------------------------------------------------------------------

UNARY = {
    # name: (body on u, domain of the inputs)
    "sin": (lambda m, u: m.sin(u), (-1.5, 1.5)),
    "cos": (lambda m, u: m.cos(u), (-1.5, 1.5)),
    "tan": (lambda m, u: m.tan(u), (-1.2, 1.2)),
    "asin": (lambda m, u: m.asin(u), (-0.9, 0.9)),
    "acos": (lambda m, u: m.acos(u), (-0.9, 0.9)),
    "atan": (lambda m, u: m.atan(u), (-2.0, 2.0)),
    "sinh": (lambda m, u: m.sinh(u), (-1.5, 1.5)),
    "cosh": (lambda m, u: m.cosh(u), (-1.5, 1.5)),
    "tanh": (lambda m, u: m.tanh(u), (-1.5, 1.5)),
    "exp": (lambda m, u: m.exp(u), (-1.5, 1.5)),
    "log": (lambda m, u: m.log(u), (0.2, 3.0)),
    "log1p": (lambda m, u: m.log1p(u), (-0.5, 2.0)),
    "expm1": (lambda m, u: m.expm1(u), (-1.5, 1.5)),
    "sqrt": (lambda m, u: m.sqrt(u), (0.2, 3.0)),
    "abs": (lambda m, u: m.abs(u), None),
    "floor": (lambda m, u: m.floor(u), (-2.7, 2.7)),
    "ceil": (lambda m, u: m.ceil(u), (-2.7, 2.7)),
    "neg": (lambda m, u: -u, (-2.0, 2.0)),
    "square": (lambda m, u: u ** 2, (-2.0, 2.0)),
    "cube": (lambda m, u: u ** 3, (-2.0, 2.0)),
    "pow_const": (lambda m, u: m.pow(u, 2.5), (0.2, 3.0)),
    "const_pow": (lambda m, u: m.pow(1.7, u), (-1.5, 1.5)),
    "reciprocal": (lambda m, u: 1.0 / u, (0.3, 2.0)),
}
UNARY_N = 5
UNARY_WEIGHTS = np.array([0.7, -1.3, 0.4, 2.1, -0.6])


def unary_body(op):
    def body(m, x):
        # A mixing of the inputs (stays inside an interval domain): the chain rule and a
        # reversed slice are exercised, and the Jacobian has a diagonal and an antidiagonal.
        u = 0.5 * x + 0.25 * x[::-1]
        y = op(m, u)
        return y, m.sum(y * UNARY_WEIGHTS)
    return body


@functools.lru_cache(maxsize=None)
def unary_function(name):
    return build(f"un_{name}", [("x", UNARY_N)], unary_body(UNARY[name][0]), ("y", "s"))


@functools.lru_cache(maxsize=None)
def unary_sym(name):
    return Sym(unary_body(UNARY[name][0]), [(UNARY_N,)])


def unary_point(name, seed=0):
    domain = UNARY[name][1]
    if domain is None:  # abs: mirrored pairs share a sign, so u stays away from 0
        mags = rng(seed).uniform(0.5, 2.0, UNARY_N)
        return mags * np.array([1.0, -1.0, 1.0, -1.0, 1.0])
    return rng(seed).uniform(*domain, UNARY_N)


@pytest.mark.parametrize("name", sorted(UNARY))
def test_unary_jacobian(name):
    f = unary_function(name)
    x = unary_point(name)
    J = derived("jacobian", f, of="y")(x)
    sym = unary_sym(name)
    ref = sym.jacobian()
    assert J.shape == (UNARY_N, UNARY_N) and J.dtype == np.float64
    np.testing.assert_allclose(J, sym.value(ref, [x]), **TIGHT)
    np.testing.assert_allclose(J, fd_jacobian(f, [x]), **FD_TOL)
    if name in ("floor", "ceil"):
        assert not J.any()
    else:
        assert_pattern(J, ref)


@pytest.mark.parametrize("name", sorted(UNARY))
def test_unary_gradient_and_hessian(name):
    f = unary_function(name)
    x = unary_point(name, seed=1)
    sym = unary_sym(name)
    g = derived("gradient", f, of="s")(x)
    assert g.shape == (UNARY_N,)
    np.testing.assert_allclose(g, sym.value(sym.jacobian(of=1), [x]).ravel(), **TIGHT)
    np.testing.assert_allclose(g, fd_jacobian(f, [x], of=1).ravel(), **FD_TOL)
    H = derived("hessian", f, of="s")(x)
    Href = sym.value(sym.hessian(of=1), [x])
    np.testing.assert_allclose(H, Href, rtol=1e-9, atol=1e-10)
    np.testing.assert_allclose(H, H.T, rtol=1e-12, atol=1e-12)
    if name in ("floor", "ceil", "abs", "neg"):
        assert not H.any()


@pytest.mark.parametrize("name", ["sin", "exp", "sqrt", "atan", "abs", "tanh"])
def test_unary_vjp_jvp(name):
    """Both modes of one op against the finite-difference Jacobian."""
    f = unary_function(name)
    x = unary_point(name, seed=2)
    Jfd = fd_jacobian(f, [x])
    t = rng(3).normal(size=UNARY_N)
    w = rng(4).normal(size=UNARY_N)
    dy, ds = derived("jvp", f)(x, t)
    np.testing.assert_allclose(dy, Jfd @ t, **FD_TOL)
    np.testing.assert_allclose(ds, UNARY_WEIGHTS @ (Jfd @ t), **FD_TOL)
    adj = derived("vjp", f, of="y")(x, w)
    np.testing.assert_allclose(adj, w @ Jfd, **FD_TOL)


# ---------------------------------------------------------------------------
# Binary elementwise ops
# ---------------------------------------------------------------------------

BINARY = {
    # name: (body, domain of a, domain of b)
    "add": (lambda m, a, b: a + b, (-2, 2), (-2, 2)),
    "sub": (lambda m, a, b: a - b, (-2, 2), (-2, 2)),
    "mul": (lambda m, a, b: a * b, (-2, 2), (-2, 2)),
    "div": (lambda m, a, b: a / b, (-2, 2), (0.5, 2)),
    "pow": (lambda m, a, b: m.pow(a, b), (0.3, 2.5), (-1.5, 2.5)),
    "pow_operator": (lambda m, a, b: a ** b, (0.3, 2.5), (-1.5, 2.5)),
    "atan2": (lambda m, a, b: m.atan2(a, b), (-2, 2), (-2, 2)),
    "fmin": (lambda m, a, b: m.fmin(a, b), (-2, 2), (-2, 2)),
    "fmax": (lambda m, a, b: m.fmax(a, b), (-2, 2), (-2, 2)),
    # |a| > |b|: floor(a / b) is nonzero, so d/db is too.
    "remainder": (lambda m, a, b: m.mod(a, b), (2, 5), (0.7, 1.9)),
    "remainder_negative": (lambda m, a, b: m.mod(a, b), (-5, -2), (-1.9, -0.7)),
    "remainder_mixed_signs": (lambda m, a, b: m.mod(a, b), (-5, -2), (0.7, 1.9)),
    "floordiv": (lambda m, a, b: m.floordiv(a, b) * b + a, (2, 5), (0.7, 1.9)),
    "mixed": (lambda m, a, b: m.sin(a * b) / (1.0 + b * b) - a * m.exp(-b), (-2, 2), (-2, 2)),
}
BINARY_N = 6


def binary_body(op):
    def body(m, a, b):
        y = op(m, a, b)
        return y, m.sum(y * np.linspace(-1.0, 1.5, BINARY_N))
    return body


@functools.lru_cache(maxsize=None)
def binary_function(name):
    body = binary_body(BINARY[name][0])
    return build(f"bin_{name}", [("a", BINARY_N), ("b", BINARY_N)], body, ("y", "s"))


def binary_point(name, seed=0):
    _, da, db = BINARY[name]
    r = rng(seed)
    return r.uniform(*da, BINARY_N), r.uniform(*db, BINARY_N)


@functools.lru_cache(maxsize=None)
def binary_sym(name):
    return Sym(binary_body(BINARY[name][0]), [(BINARY_N,), (BINARY_N,)])


@pytest.mark.parametrize("name", sorted(BINARY))
def test_binary_jacobians(name):
    f = binary_function(name)
    a, b = binary_point(name)
    sym = binary_sym(name)
    for wrt in (0, 1):
        J = derived("jacobian", f, wrt=wrt, of="y")(a, b)
        ref = sym.jacobian(of=0, wrt=wrt)
        np.testing.assert_allclose(J, sym.value(ref, [a, b]), **TIGHT, err_msg=f"wrt={wrt}")
        np.testing.assert_allclose(J, fd_jacobian(f, [a, b], wrt=wrt), **FD_TOL,
                                   err_msg=f"wrt={wrt}")
        assert_pattern(J, ref, subset=name in ("fmin", "fmax"))


@pytest.mark.parametrize("name", sorted(BINARY))
def test_binary_gradient_and_hessian(name):
    f = binary_function(name)
    a, b = binary_point(name, seed=5)
    sym = binary_sym(name)
    ga, gb = derived("gradient", f, of="s")(a, b)
    np.testing.assert_allclose(ga, sym.value(sym.jacobian(of=1, wrt=0), [a, b]).ravel(), **TIGHT)
    np.testing.assert_allclose(gb, sym.value(sym.jacobian(of=1, wrt=1), [a, b]).ravel(), **TIGHT)
    for wrt in (0, 1):
        H = derived("hessian", f, wrt=wrt, of="s")(a, b)
        np.testing.assert_allclose(H, sym.value(sym.hessian(of=1, wrt=wrt), [a, b]),
                                   rtol=1e-9, atol=1e-10, err_msg=f"wrt={wrt}")


def test_binary_broadcast_scalar_operands():
    """A scalar input broadcast against a vector: its derivative sums over the vector."""
    def body(m, s, x):
        return m.sin(s * x) + s ** 2 / (1.0 + x * x)
    f = build("bin_scalar", [("s", ()), ("x", 4)], body)
    s, x = np.array(0.7), rng(6).uniform(-1, 1, 4)
    sym = Sym(body, [(), (4,)])
    for wrt in (0, 1):
        J = derived("jacobian", f, wrt=wrt)(s, x)
        np.testing.assert_allclose(J, sym.value(sym.jacobian(wrt=wrt), [s, x]), **TIGHT)
        assert_pattern(J, sym.jacobian(wrt=wrt))
    assert derived("jacobian", f, wrt=0)(s, x).shape == (4, 1)


# ---------------------------------------------------------------------------
# where / select with comparisons
# ---------------------------------------------------------------------------

WHERE_CASES = {
    "gt": lambda m, x, y: m.where(m.gt(x, y), x * y, x - y),
    "ge": lambda m, x, y: m.where(m.ge(x, 0.1), m.sin(x), y ** 2),
    "lt": lambda m, x, y: m.where(m.lt(x * y, 0.0), m.exp(x) * y, 3.0 * y),
    "le": lambda m, x, y: m.where(m.le(y, x), x ** 3, x * y * y),
    "eq": lambda m, x, y: m.where(m.eq(m.floor(x), 0.0), x * x, y * x),
    "ne": lambda m, x, y: m.where(m.ne(m.floor(y), 0.0), m.cos(y), x * y),
    "and_or": lambda m, x, y: m.where(m.or_(m.and_(m.gt(x, -0.5), m.lt(y, 0.5)), m.gt(x, 1.0)),
                                      x * y, 2.0 * x + y),
    "constant_branch": lambda m, x, y: m.where(m.gt(x, y), 1.5, y * y),
    "nested": lambda m, x, y: m.where(m.gt(x, 0.0), m.where(m.gt(y, 0.0), x * y, x), y),
}


@functools.lru_cache(maxsize=None)
def where_function(name):
    return build(f"where_{name}", [("x", 8), ("y", 8)], (WHERE_CASES[name]))


@pytest.mark.parametrize("name", sorted(WHERE_CASES))
def test_where(name):
    f = where_function(name)
    r = rng(7)
    x, y = r.uniform(-1.6, 1.6, 8), r.uniform(-1.6, 1.6, 8)
    sym = Sym(WHERE_CASES[name], [(8,), (8,)])
    for wrt in (0, 1):
        J = derived("jacobian", f, wrt=wrt)(x, y)
        np.testing.assert_allclose(J, sym.value(sym.jacobian(wrt=wrt), [x, y]), **TIGHT,
                                   err_msg=f"wrt={wrt}")
        np.testing.assert_allclose(J, fd_jacobian(f, [x, y], wrt=wrt), **FD_TOL)
    # Reverse mode too: the vjp must route the cotangent to the chosen branch only.
    w = r.normal(size=8)
    ax, ay = derived("vjp", f)(x, y, w)
    np.testing.assert_allclose(ax, w @ fd_jacobian(f, [x, y], wrt=0), **FD_TOL)
    np.testing.assert_allclose(ay, w @ fd_jacobian(f, [x, y], wrt=1), **FD_TOL)


# ---------------------------------------------------------------------------
# Casts
# ---------------------------------------------------------------------------

@pytest.mark.parametrize("n", [6, 300])
def test_remainder_at_exact_multiples(n):
    # x % y is x - y * floor(x / y): its derivatives are 1 and -floor(x / y) where
    # the remainder is 0 too (x = 0, x a multiple of y), where NumPy's value is a
    # zero with the sign of y (the derivative was lost there once).
    @sc.function(sc.arg("x", n), sc.arg("y", n), outputs=sc.arg("r"))
    def rem(x, y):
        return x % y

    k = np.arange(n) % 6
    y = np.where(k % 2 == 0, 1.5, -1.5)
    x = np.choose(k, [0.0, -0.0, 3.0, -4.5, 2.2, 1.0])  # four multiples, two not
    got, want = rem(x, y), np.remainder(x, y)
    np.testing.assert_array_equal(got, want)
    np.testing.assert_array_equal(np.signbit(got), np.signbit(want))
    np.testing.assert_array_equal(np.diag(sc.jacobian(rem, wrt="x")(x, y)), np.ones(n))
    np.testing.assert_array_equal(np.diag(sc.jacobian(rem, wrt="y")(x, y)), -np.floor(x / y))


def test_cast_float64_through_float32():
    def body(m, x):
        y = m.sin(x).astype("float32") * 2.0
        return (y * y).astype("float64") + x
    f = build("cast_roundtrip", [("x", 4)], body)
    x = rng(8).uniform(-1, 1, 4)
    J = derived("jacobian", f)(x)
    assert J.dtype == np.float64
    ref = np.diag(8.0 * np.sin(x) * np.cos(x) + 1.0)
    np.testing.assert_allclose(J, ref, rtol=1e-5, atol=1e-6)
    g = derived("vjp", f)(x, np.ones(4))
    np.testing.assert_allclose(g, np.diag(ref), rtol=1e-5, atol=1e-6)


def test_float32_function_derivatives():
    def body(m, x):
        return m.stack([m.sin(x[0]) * x[1], m.exp(x[2]) - x[0] * x[0], x[1] / (1.0 + x[2] ** 2)])
    f = build("f32", [("x", 3, "float32")], body)
    x = np.array([0.3, -0.8, 0.5], np.float32)
    J = derived("jacobian", f)(x)
    assert J.dtype == np.float32 and J.shape == (3, 3)
    sym = Sym(body, [(3,)])
    np.testing.assert_allclose(J, sym.value(sym.jacobian(), [x]), rtol=1e-5, atol=1e-6)
    assert_pattern(J, sym.jacobian())
    t = np.array([1.0, -2.0, 0.5], np.float32)
    dy = derived("jvp", f)(x, t)
    assert dy.dtype == np.float32
    np.testing.assert_allclose(dy, sym.value(sym.jacobian(), [x]) @ t, rtol=1e-5, atol=1e-6)


def test_float32_input_cast_to_float64():
    def body(m, x, p):
        return m.sum(m.exp(x.astype("float64")) * p)
    f = build("f32_in", [("x", 3, "float32"), ("p", 3)], body, ("s",))
    x = np.array([0.1, 0.2, -0.4], np.float32)
    p = np.array([1.0, 2.0, 3.0])
    gx, gp = derived("gradient", f)(x, p)
    assert gx.dtype == np.float32 and gp.dtype == np.float64
    np.testing.assert_allclose(gx, np.exp(x.astype(np.float64)) * p, rtol=1e-6)
    np.testing.assert_allclose(gp, np.exp(x.astype(np.float64)), rtol=1e-14)


# ---------------------------------------------------------------------------
# Reductions
# ---------------------------------------------------------------------------

REDUCTIONS = [
    (kind, axis, keepdims)
    for kind in ("sum", "prod", "max", "min", "mean")
    for axis, keepdims in ((None, False), (0, False), (1, True), (-1, False), ((0, 1), True))
]


@functools.lru_cache(maxsize=None)
def reduction_function(kind, axis, keepdims):
    def body(m, x):
        return getattr(m, kind)(x, axis=axis, keepdims=keepdims) * 1.5
    axes = "all" if axis is None else "_".join(str(a).replace("-", "m")
                                               for a in np.atleast_1d(axis))
    return build(f"red_{kind}_{axes}_{int(keepdims)}", [("x", (3, 4))], body)


@pytest.mark.parametrize("kind,axis,keepdims", REDUCTIONS)
def test_reduction(kind, axis, keepdims):
    f = reduction_function(kind, axis, keepdims)
    x = rng(9).permutation(np.linspace(0.55, 1.8, 12)).reshape(3, 4)  # distinct: unique max/min
    J = derived("jacobian", f)(x)
    want = np.asarray(getattr(np, kind)(x, axis=axis, keepdims=keepdims) * 1.5)
    assert J.shape == (want.size, 12)
    np.testing.assert_allclose(J, fd_jacobian(f, [x]), **FD_TOL)
    w = rng(10).normal(size=want.shape)
    adj = derived("vjp", f)(x, w)
    assert adj.shape == (3, 4)
    np.testing.assert_allclose(adj.ravel(), w.ravel() @ J, **TIGHT)
    if kind in ("max", "min"):
        # One-hot rows: each output picks exactly one element.
        assert np.array_equal((J != 0).sum(axis=1), np.ones(want.size, int))


@functools.lru_cache(maxsize=None)
def prod_function():
    return build("prod_zeros", [("v", 5), ("m", (3, 4))],
                 lambda m, v, x: (m.prod(v), m.prod(x, axis=1)), ("p", "rows"))


def _prod_of_others(v):
    return np.array([np.prod(np.delete(v, k)) for k in range(v.size)])


@pytest.mark.parametrize("zeros", [0, 1, 2])
def test_prod_with_zeros(zeros):
    f = prod_function()
    v = np.array([1.5, -0.7, 2.0, 0.9, -1.3])
    v[[1, 3][:zeros]] = 0.0
    x = np.array([[1.2, 0.0, -0.5, 2.0],      # one zero
                  [0.0, 3.0, 0.0, 1.1],       # two zeros
                  [0.8, -1.4, 0.6, 1.7]])     # none
    g = derived("gradient", f, wrt="v", of="p")(v, x)
    np.testing.assert_allclose(g, _prod_of_others(v), rtol=1e-14, atol=0)
    np.testing.assert_allclose(g, fd_jacobian(f, [v, x], wrt=0, of=0).ravel(), **FD_TOL)
    if zeros == 2:
        assert not g.any()
    if zeros == 1:
        assert np.count_nonzero(g) == 1 and g[1] == pytest.approx(1.5 * 2.0 * 0.9 * -1.3)
    J = derived("jacobian", f, wrt="m", of="rows")(v, x)
    want = np.zeros((3, 12))
    for i in range(3):
        want[i, 4 * i:4 * i + 4] = _prod_of_others(x[i])
    np.testing.assert_allclose(J, want, rtol=1e-14, atol=0)
    np.testing.assert_allclose(J, fd_jacobian(f, [v, x], wrt=1, of=1), **FD_TOL)
    assert np.array_equal(J[1], np.zeros(12))


def _prod_hessian(v):
    """H[i, j] = the product of v without elements i and j (0 on the diagonal), from NumPy."""
    n = v.size
    return np.array([[np.prod(np.delete(v, [i, j])) if i != j else 0.0 for j in range(n)]
                     for i in range(n)])


@functools.lru_cache(maxsize=None)
def vector_prod_function(n):
    return build(f"vprod_{n}", [("x", n)], lambda m, x: m.prod(x), ("p",))


@pytest.mark.parametrize("x", [[2.0, 0.0, 3.0, 4.0],      # one zero
                               [0.0, 2.0, 0.0, 5.0],      # two zeros
                               [0.0, 0.0, 0.0, 1.5],      # three
                               [1.5, -2.0, 0.5, 3.0]],    # none
                         ids=["one_zero", "two_zeros", "three_zeros", "no_zero"])
def test_prod_hessian_with_zeros(x):
    """Second derivatives of prod are products of the other elements, exact with zeros:
    the rows of the elements that are not zero are not lost (issue 33)."""
    f = vector_prod_function(4)
    x = np.array(x)
    want = _prod_hessian(x)
    np.testing.assert_array_equal(derived("hessian", f)(x), want)
    np.testing.assert_array_equal(derived("hessian", f, layout="csc")(x).toarray(), want)
    grad = derived("gradient", f)
    np.testing.assert_array_equal(grad(x), [np.prod(np.delete(x, k)) for k in range(4)])
    np.testing.assert_array_equal(derived("jacobian", grad)(x), want)
    hvp = derived("jvp", grad)
    np.testing.assert_array_equal(np.stack([hvp(x, e) for e in np.eye(4)], axis=1), want)


# Products over chosen axes of a (2, 3, 4) array, weighted, with zeros in some slices.
PROD_AXES = [(None, False), (0, False), (1, True), (-1, False), ((0, 2), True), ((1, 2), False)]


@functools.lru_cache(maxsize=None)
def axis_prod_function(axis, keepdims):
    body = axis_prod_body(axis, keepdims)
    axes = "all" if axis is None else "_".join(str(a).replace("-", "m")
                                               for a in np.atleast_1d(axis))
    return build(f"aprod_{axes}_{int(keepdims)}", [("x", (2, 3, 4))], body, ("s",)), body


def axis_prod_body(axis, keepdims):
    def body(m, x):
        shape = np.ones((2, 3, 4)).prod(axis=axis, keepdims=keepdims).shape
        weights = np.linspace(0.5, 1.5, int(np.prod(shape))).reshape(shape)
        return m.sum(m.prod(x, axis=axis, keepdims=keepdims) * weights)
    return body


@pytest.mark.parametrize("axis,keepdims", PROD_AXES)
def test_prod_over_axes_with_zeros_first_and_second_order(axis, keepdims):
    f, body = axis_prod_function(axis, keepdims)
    x = rng(13).uniform(0.5, 1.5, (2, 3, 4)) * rng(14).choice([-1.0, 1.0], (2, 3, 4))
    x[0, 0, 1] = x[0, 2, 1] = x[0, 2, 3] = x[1, 1, 0] = 0.0  # one or two per slice, or none
    sym = Sym(body, [(2, 3, 4)])
    g = derived("gradient", f)(x)
    np.testing.assert_allclose(g.ravel(), sym.value(sym.jacobian(), [x]).ravel(), **TIGHT)
    H = derived("hessian", f)(x)
    ref = sym.hessian()
    np.testing.assert_allclose(H, sym.value(ref, [x]), **TIGHT)
    Hs = derived("hessian", f, layout="csc")
    np.testing.assert_allclose(Hs(x).toarray(), H, **TIGHT)
    # The stored pattern is SymPy's structural one: no diagonal, no pair of different slices.
    shape, colind, row = Hs.sparsity()
    stored = np.zeros(shape, bool)
    stored[row, np.repeat(np.arange(shape[1]), np.diff(colind))] = True
    assert_pattern(stored, ref)


def _prod_hessian_rows(x, rows):
    """Rows `rows` of the Hessian of prod(x), each entry from NumPy's product of the rest."""
    return np.array([[np.prod(np.delete(x, [i, j])) if i != j else 0.0 for j in range(x.size)]
                     for i in rows])


def test_prod_derivatives_of_a_large_array_stay_loops():
    """1000 elements (loops, not scalarized code), with one and two zeros: the gradient
    and Hessian-vector products against NumPy; the C of the Hessian-vector product
    does not grow with n (two loops, not n copies or log n steps)."""
    import re

    from scaly.codegen import render_c_module

    f = vector_prod_function(1000)
    grad, hvp = derived("gradient", f), derived("jvp", derived("gradient", f))
    x = rng(15).uniform(0.9, 1.1, 1000)
    v = rng(16).normal(size=1000)
    x[17] = 0.0  # the Hessian is row and column 17
    row = _prod_hessian_rows(x, [17])[0]
    want_g = np.zeros(1000)
    want_g[17] = np.prod(np.delete(x, 17))
    np.testing.assert_allclose(grad(x), want_g, rtol=1e-13, atol=0)
    want_hv = row * v[17]
    want_hv[17] = row @ v
    np.testing.assert_allclose(hvp(x, v), want_hv, rtol=1e-10, atol=1e-13)
    x[600] = 0.0  # only entries (17, 600) and (600, 17)
    want_hv = np.zeros(1000)
    h = np.prod(np.delete(x, [17, 600]))
    want_hv[17], want_hv[600] = h * v[600], h * v[17]
    np.testing.assert_array_equal(grad(x), np.zeros(1000))
    np.testing.assert_allclose(hvp(x, v), want_hv, rtol=1e-13, atol=0)
    digits = re.compile(r"\d+")
    small, large = (render_c_module(sc.jvp(sc.gradient(vector_prod_function(n))),
                                    name="h").source for n in (1000, 100000))
    assert digits.sub("N", small) == digits.sub("N", large)


def test_max_min_gradient_is_one_hot():
    f = build("maxmin", [("x", 6)], lambda m, x: m.max(x) - 2.0 * m.min(x), ("s",))
    x = np.array([0.3, 1.7, -0.2, 0.9, -1.1, 1.2])
    g = derived("gradient", f)(x)
    np.testing.assert_array_equal(g, [0.0, 1.0, 0.0, 0.0, -2.0, 0.0])


def test_reduction_over_large_array():
    """More than 64 elements: reductions and their derivatives lower to loops."""
    def body(m, x):
        return m.sum(m.sin(x), axis=0) * m.prod(m.cos(x) + 2.0, axis=0) + m.max(x, axis=0)
    f = build("red_large", [("x", (20, 6))], body)
    x = rng(11).uniform(-1, 1, (20, 6))
    J = derived("jacobian", f)(x)
    np.testing.assert_allclose(J, fd_jacobian(f, [x]), **FD_TOL)
    w = rng(12).normal(size=6)
    np.testing.assert_allclose(derived("vjp", f)(x, w).ravel(), w @ J, **TIGHT)


# ---------------------------------------------------------------------------
# Broadcasting
# ---------------------------------------------------------------------------

def test_broadcast_column_row():
    def body(m, a, b):
        return a * b + m.sin(a) - b ** 2 + a / (2.0 + b)
    f = build("bcast", [("a", (3, 1)), ("b", (1, 4))], body)
    r = rng(13)
    a, b = r.uniform(-1, 1, (3, 1)), r.uniform(-1, 1, (1, 4))
    sym = Sym(body, [(3, 1), (1, 4)])
    for wrt in (0, 1):
        J = derived("jacobian", f, wrt=wrt)(a, b)
        assert J.shape == (12, 3 if wrt == 0 else 4)
        ref = sym.jacobian(wrt=wrt)
        np.testing.assert_allclose(J, sym.value(ref, [a, b]), **TIGHT)
        np.testing.assert_allclose(J, fd_jacobian(f, [a, b], wrt=wrt), **FD_TOL)
        assert_pattern(J, ref)
    w = r.normal(size=(3, 4))
    ga, gb = derived("vjp", f)(a, b, w)
    assert ga.shape == (3, 1) and gb.shape == (1, 4)
    np.testing.assert_allclose(ga.ravel(), w.ravel() @ fd_jacobian(f, [a, b], wrt=0), **FD_TOL)
    np.testing.assert_allclose(gb.ravel(), w.ravel() @ fd_jacobian(f, [a, b], wrt=1), **FD_TOL)


# ---------------------------------------------------------------------------
# Linear structure: slices, transpose, reshape, concat/stack, gathers
# ---------------------------------------------------------------------------

LINEAR = {
    # name: (input shapes, body (NumPy and Expr alike))
    "slice_step": ([(12,)], lambda m, x: x[1:10:2]),
    "reverse": ([(7,)], lambda m, x: x[::-1]),
    "column": ([(4, 5)], lambda m, x: x[:, 2]),
    "rows_step_cols_reversed": ([(5, 4)], lambda m, x: x[1:4:2, ::-1]),
    "row": ([(3, 4)], lambda m, x: x[-1]),
    "element": ([(3, 4)], lambda m, x: x[1, 2]),
    "both_negative_steps": ([(5, 6)], lambda m, x: x[::-2, 4:0:-3]),
    "slice_of_slice": ([(6, 5)], lambda m, x: x[::-1][1::2, ::-1]),
    "large_slice": ([(150,)], lambda m, x: x[3:140:2]),
    "large_reverse_2d": ([(9, 12)], lambda m, x: x[::-1, 1::2]),
    "transpose": ([(3, 4)], lambda m, x: x.T),
    "transpose_3d": ([(2, 3, 4)], lambda m, x: m.transpose(x, (1, 2, 0))),
    "reshape": ([(3, 4)], lambda m, x: x.reshape((2, 6))),
    "reshape_F": ([(3, 4)], lambda m, x: x.reshape((6, 2), order="F")),
    "ravel": ([(2, 3, 2)], lambda m, x: x.ravel()),
    "concat0": ([(2, 3), (4, 3)], lambda m, a, b: m.concat([a, b, a[::-1]], axis=0)),
    "concat1": ([(2, 3), (2, 2)], lambda m, a, b: m.concat([b, a], axis=1)),
    "stack0": ([(2, 3), (2, 3)], lambda m, a, b: m.stack([a, b, a], axis=0)),
    "stack1": ([(2, 3), (2, 3)], lambda m, a, b: m.stack([a, b], axis=1)),
    "stack_last": ([(2, 3), (2, 3)], lambda m, a, b: m.stack([b, a], axis=-1)),
    "gather_repeated": ([(5,)], lambda m, x: x[[0, 2, 2, 1, 0, 4, 2]]),
    "gather_2d_pairs": ([(3, 4)], lambda m, x: x[[0, 0, 2, 1], [1, 1, 3, 1]]),
    "gather_rows": ([(3, 4)], lambda m, x: x[[2, 0, 2]]),
    "gather_bool_mask": ([(6,)], lambda m, x: x[np.array([True, False, True, True, False, True])]),
    "broadcast_add": ([(3, 1), (1, 4)], lambda m, a, b: a + 2.0 * b),
    "mixed": ([(4, 4)], lambda m, x: x.T[::2] * 3.0 - x[1::2, ::-1]),
}


@functools.lru_cache(maxsize=None)
def linear_function(name):
    shapes, body = LINEAR[name]
    return build(f"lin_{name}", [(f"x{k}", s) for k, s in enumerate(shapes)], body)


NP = types.SimpleNamespace(concat=np.concatenate, stack=np.stack, transpose=np.transpose)


def _np_body(body):
    return lambda *xs: body(NP, *xs)


@pytest.mark.parametrize("name", sorted(LINEAR))
def test_linear_structure(name):
    shapes, body = LINEAR[name]
    f = linear_function(name)
    r = rng(14)
    args = [r.normal(size=s) for s in shapes]
    refs = [linear_jacobian(_np_body(body), args, k) for k in range(len(args))]
    out_shape = np.shape(body(NP, *args))
    for k, ref in enumerate(refs):
        J = derived("jacobian", f, wrt=k)(*args)
        np.testing.assert_allclose(J, ref, rtol=0, atol=1e-15, err_msg=f"wrt={k}")
    # Forward and reverse mode, all inputs at once.
    ts = [r.normal(size=s) for s in shapes]
    dy = derived("jvp", f)(*args, *ts)
    np.testing.assert_allclose(np.ravel(dy), sum(ref @ t.ravel() for ref, t in zip(refs, ts)),
                               **TIGHT)
    w = r.normal(size=out_shape)
    adj = outputs_of(derived("vjp", f)(*args, w))
    assert len(adj) == len(args)
    for k, (a, ref) in enumerate(zip(adj, refs)):
        assert a.shape == shapes[k]
        np.testing.assert_allclose(a.ravel(), np.ravel(w) @ ref, **TIGHT, err_msg=f"wrt={k}")


def test_gather_gradient_counts_repeats():
    f = build("gather_sum", [("x", 5)], lambda m, x: m.sum(x[[0, 2, 2, 1, 0, 4, 2, 2]] ** 2),
              ("s",))
    x = np.array([1.0, 2.0, 3.0, 4.0, 5.0])
    g = derived("gradient", f)(x)
    np.testing.assert_allclose(g, 2 * x * np.array([2, 1, 4, 0, 1]), **TIGHT)


# ---------------------------------------------------------------------------
# matmul, dot, norm2, sumsqr
# ---------------------------------------------------------------------------

MATMUL = {
    "vector_vector": [(4,), (4,)],
    "matrix_vector": [(3, 4), (4,)],
    "vector_matrix": [(3,), (3, 5)],
    "matrix_matrix": [(3, 4), (4, 2)],
    "batched": [(2, 3, 4), (2, 4, 2)],
    "batched_broadcast": [(2, 3, 4), (4, 2)],
    "large": [(9, 10), (10, 8)],
}


@functools.lru_cache(maxsize=None)
def matmul_function(name):
    return build(f"mm_{name}", [("a", MATMUL[name][0]), ("b", MATMUL[name][1])],
                 lambda m, a, b: a @ b)


@pytest.mark.parametrize("name", sorted(MATMUL))
def test_matmul(name):
    f = matmul_function(name)
    r = rng(15)
    a, b = (r.normal(size=s) for s in MATMUL[name])
    refs = [linear_jacobian(np.matmul, [a, b], 0), linear_jacobian(np.matmul, [a, b], 1)]
    for k in (0, 1):
        J = derived("jacobian", f, wrt=k)(a, b)
        np.testing.assert_allclose(J, refs[k], **TIGHT, err_msg=f"wrt={k}")
    w = r.normal(size=np.shape(a @ b))
    ga, gb = derived("vjp", f)(a, b, w)
    np.testing.assert_allclose(ga.ravel(), np.ravel(w) @ refs[0], **TIGHT)
    np.testing.assert_allclose(gb.ravel(), np.ravel(w) @ refs[1], **TIGHT)
    ta, tb = r.normal(size=a.shape), r.normal(size=b.shape)
    dy = derived("jvp", f)(a, b, ta, tb)
    np.testing.assert_allclose(np.ravel(dy), refs[0] @ ta.ravel() + refs[1] @ tb.ravel(), **TIGHT)


def test_quadratic_form_and_matrix_products():
    """x^T A x with both operands variable; sympy gradient and Hessian."""
    def body(m, A, x):
        return m.dot(x, m.matmul(A, x)) + m.sum(m.sin(A @ A) * 0.5)
    f = build("quad", [("A", (3, 3)), ("x", 3)], body, ("s",))
    r = rng(16)
    A, x = r.normal(size=(3, 3)), r.normal(size=3)
    sym = Sym(body, [(3, 3), (3,)])
    gA, gx = derived("gradient", f)(A, x)
    np.testing.assert_allclose(gA.ravel(), sym.value(sym.jacobian(wrt=0), [A, x]).ravel(), **TIGHT)
    np.testing.assert_allclose(gx, (A + A.T) @ x, **TIGHT)
    np.testing.assert_allclose(derived("hessian", f, wrt="x")(A, x), A + A.T, **TIGHT)
    HA = derived("hessian", f, wrt="A")(A, x)
    np.testing.assert_allclose(HA, sym.value(sym.hessian(wrt=0), [A, x]), rtol=1e-9, atol=1e-10)


def test_dot_norm2_sumsqr():
    def body(m, x, y):
        return m.stack([m.dot(x, y), m.norm2(x), m.sumsqr(y), m.norm2(x * y)])
    f = build("dns", [("x", 4), ("y", 4)], body)
    r = rng(17)
    x, y = r.normal(size=4), r.normal(size=4)
    Jx = derived("jacobian", f, wrt="x")(x, y)
    Jy = derived("jacobian", f, wrt="y")(x, y)
    n = np.linalg.norm(x)
    np.testing.assert_allclose(Jx[0], y, **TIGHT)
    np.testing.assert_allclose(Jx[1], x / n, **TIGHT)
    np.testing.assert_allclose(Jx[2], 0.0 * x, **TIGHT)
    np.testing.assert_allclose(Jy[2], 2 * y, **TIGHT)
    sym = Sym(body, [(4,), (4,)])
    np.testing.assert_allclose(Jx, sym.value(sym.jacobian(wrt=0), [x, y]), **TIGHT)
    np.testing.assert_allclose(Jy, sym.value(sym.jacobian(wrt=1), [x, y]), **TIGHT)
    assert_pattern(Jx, sym.jacobian(wrt=0))
    assert_pattern(Jy, sym.jacobian(wrt=1))


def test_dot_of_matrices():
    f = build("dotmat", [("A", (2, 3)), ("B", (3, 2))], lambda m, A, B: m.dot(A, B))
    r = rng(18)
    A, B = r.normal(size=(2, 3)), r.normal(size=(3, 2))
    for k in (0, 1):
        np.testing.assert_allclose(derived("jacobian", f, wrt=k)(A, B),
                                   linear_jacobian(np.dot, [A, B], k), **TIGHT)
