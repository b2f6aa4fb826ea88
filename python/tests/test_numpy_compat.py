"""A NumPy user's first surprises: ufuncs, array functions and operators on traced Exprs."""

import numpy as np
import pytest

import scaly as sc
from scaly.codegen import render_c_module

X = np.array([1.5, -2.5, 3.0, -0.5, 7.0, -4.0])
Y = np.array([0.5, 2.0, -1.25, -3.0, 2.5, 4.0])
N = np.array([-3, 2, -1, 4, 0, 7])


def trace(body, decl):
    """Trace a one-input `body` (a lambda is fine) as a Function named f."""
    def f(x):
        return body(x)
    return sc.function(decl, outputs=sc.arg("y"))(f)


def run(body, *args):
    """Trace `body` over `args` (NumPy arrays), call it through the JIT, return the result."""
    decls = [sc.arg(f"a{i}", a.shape, dtype=a.dtype.name) for i, a in enumerate(args)]
    namespace = {"body": body}
    params = ", ".join(f"a{i}" for i in range(len(args)))
    exec(f"def f({params}):\n    return body({params})\n", namespace)
    fn = sc.function(*decls, outputs=sc.arg("out"))(namespace["f"])
    return fn(*args)


@pytest.mark.parametrize("ufunc", [np.sin, np.cos, np.exp, np.arctan, np.sqrt, np.absolute,
                                   np.floor, np.negative, np.square, np.tanh])
def test_numpy_unary_ufuncs(cache, ufunc):
    x = np.abs(X) if ufunc is np.sqrt else X
    np.testing.assert_allclose(run(ufunc, x), ufunc(x), rtol=1e-15, atol=1e-300)


@pytest.mark.parametrize("ufunc", [np.add, np.subtract, np.multiply, np.divide, np.arctan2,
                                   np.fmax, np.less, np.not_equal])
def test_numpy_binary_ufuncs(cache, ufunc):
    np.testing.assert_allclose(run(ufunc, X, Y), ufunc(X, Y), rtol=1e-15)


def test_ndarray_on_the_left_goes_through_the_ufunc(cache):
    np.testing.assert_array_equal(run(lambda x: np.arange(6.0) * x, X), np.arange(6.0) * X)


@pytest.mark.parametrize("func,kwargs", [(np.sum, {}), (np.sum, {"axis": 0}), (np.mean, {}),
                                         (np.max, {}), (np.min, {"keepdims": True}),
                                         (np.prod, {})])
def test_numpy_array_functions(cache, func, kwargs):
    np.testing.assert_allclose(run(lambda x: func(x, **kwargs), X), func(X, **kwargs),
                               rtol=1e-15)


def test_numpy_structure_functions(cache):
    m = np.arange(6.0).reshape(2, 3)
    np.testing.assert_array_equal(run(np.transpose, m), m.T)
    np.testing.assert_array_equal(run(lambda a: np.reshape(a, (3, 2)), m), m.reshape(3, 2))
    np.testing.assert_array_equal(run(lambda a: np.concatenate([a, a], axis=1), m),
                                  np.concatenate([m, m], axis=1))
    np.testing.assert_array_equal(run(lambda a: np.where(a > 2, a, -a), m), np.where(m > 2, m, -m))


def test_unsupported_numpy_function_names_the_alternative():
    with pytest.raises(TypeError, match="np.cumsum is not supported on a traced Expr"):
        trace(lambda x: np.cumsum(x), sc.arg("x", 3))
    with pytest.raises(TypeError, match="np.hypot is not supported on a traced Expr"):
        trace(lambda x: np.hypot(x, x), sc.arg("x", 3))


def test_floor_divide_and_remainder_follow_numpy(cache):
    for a, b in [(X, Y), (Y, X), (X, np.array([0.0, 1, -1, 0.3, -0.7, 1e-300]))]:
        with np.errstate(all="ignore"):
            np.testing.assert_array_equal(run(lambda p, q: p // q, a, b), a // b)
            np.testing.assert_array_equal(run(lambda p, q: p % q, a, b), a % b)
    with pytest.raises(TypeError, match="// on integer arrays is not built yet"):
        trace(lambda n: n // n, sc.arg("n", 3, dtype="int64"))


def test_logical_operators_on_bools(cache):
    out = run(lambda x, y: ((x > 0) & (y > 0)) | ~(x > 1) ^ (y < -1), X, Y)
    np.testing.assert_array_equal(out, ((X > 0) & (Y > 0)) | ~(X > 1) ^ (Y < -1))
    with pytest.raises(TypeError, match=r"& needs bool arrays"):
        trace(lambda n: n & n, sc.arg("n", 3, dtype="int64"))


def test_integer_abs_and_powers(cache):
    np.testing.assert_array_equal(run(abs, N), np.abs(N))
    for k in (5, 7, 13):
        np.testing.assert_array_equal(run(lambda n, k=k: n ** k, N), N ** k)
    big = np.array([3, -5, 7], dtype=np.int64)
    np.testing.assert_array_equal(run(lambda n: n ** 41, big), big ** 41)  # wraps as NumPy
    with pytest.raises(ValueError, match="Integers to negative integer powers are not allowed"):
        trace(lambda n: n ** -2, sc.arg("n", 3, dtype="int64"))


def test_column_major_reshape(cache):
    m = np.arange(12.0).reshape(3, 4)
    np.testing.assert_array_equal(run(lambda a: a.reshape((4, 3), order="F"), m),
                                  m.reshape((4, 3), order="F"))
    np.testing.assert_array_equal(run(lambda a: a.reshape(-1, order="F"), m),
                                  m.reshape(-1, order="F"))
    with pytest.raises(ValueError, match="order must be 'C' or 'F'"):
        trace(lambda x: x.reshape(4, order="A"), sc.arg("x", 4))


def test_stack_of_numbers_is_a_numpy_constant():
    np.testing.assert_array_equal(sc.stack([0.0, 1.0]), np.array([0.0, 1.0]))
    np.testing.assert_array_equal(sc.concat([[1.0], [2.0, 3.0]]), np.array([1.0, 2.0, 3.0]))


def test_contiguous_slices_are_views_not_copies(cache):
    @sc.function(sc.arg("z", 2), sc.arg("u", ()), outputs=sc.arg("zn"))
    def step(z, u):
        return (z * u).block()

    @sc.function(sc.arg("Z", (10, 2)), sc.arg("U", 10), outputs=sc.arg("out"))
    def shoot(Z, U):
        return sc.stack([step(Z[k], U[k]) for k in range(10)])

    source = render_c_module(shoot).source
    # Each call reads Z's row and U's element in place: no copies into the workspace.
    assert "step_raw(arg[0] + 2, arg[1] + 1," in source
    assert "#define shoot_SZ_W 0" in render_c_module(shoot).header
    Z, U = np.arange(20.0).reshape(10, 2), np.arange(10.0)
    np.testing.assert_array_equal(shoot(Z, U), Z * U[:, None])


def test_workspace_does_not_grow_with_the_horizon(cache):
    @sc.function(sc.arg("z", 2), sc.arg("u", ()), outputs=sc.arg("zn"))
    def step(z, u):
        return sc.stack([z[0] + 0.1 * z[1], z[1] + 0.1 * u.sin()]).block()

    def horizon(n):
        @sc.function(sc.arg("z0", 2), sc.arg("us", n), outputs=sc.arg("zn"))
        def roll(z0, us):
            z = z0
            for k in range(n):
                z = step(z * 0.5, us[k])  # a computed argument: spilled to a window
            return z
        return roll

    sizes = [render_c_module(horizon(n)).entries[0].workspace_bytes for n in (5, 40)]
    assert sizes[0] == sizes[1] and sizes[0] <= 4 * 64
    roll = horizon(40)
    z0, us = np.array([0.3, -0.2]), np.linspace(-1, 1, 40)
    expected = z0.copy()
    for u in us:
        z = expected * 0.5
        expected = np.array([z[0] + 0.1 * z[1], z[1] + 0.1 * np.sin(u)])
    np.testing.assert_allclose(roll(z0, us), expected, rtol=1e-14)


def test_huge_arrays_trace_and_render_in_constant_space():
    # Issue finding: 10**7 elements used to crash the renderer; now the module is a loop.
    for n in (10 ** 7, 2 ** 31 - 1):
        @sc.function(sc.arg("x", n), outputs=sc.arg("y"))
        def f(x):
            return x * 2.0 + x.sum()
        assert len(render_c_module(f).source) < 4000
    with pytest.raises(ValueError, match="at most 2147483647 are supported"):
        sc.arg("x", 2 ** 31)


def test_sums_match_numpy_on_cancellation(cache):
    # The finding's example: NumPy's pairwise order gives 1.0, a balanced tree 0.0.
    values = np.array([1.0, 1e308, -1e308, 1.0, 0.0])

    @sc.function(sc.arg("x", 5), outputs=sc.arg("s"))
    def total(x):
        return x.sum()
    assert total(values) == np.sum(values) == 1.0
