"""Every Expr operation, traced, lowered, emitted, compiled by real C compilers and
compared with NumPy, in float64 and float32 (and under ASan/UBSan)."""

import numpy as np
import pytest

import scaly as sc

import cdriver

RNG = np.random.default_rng(2024)
OPS = {}


def op(name, shapes, reference, domain=(-2.0, 2.0), tol=None):
    """Register `fn(*exprs)` as a test case with input shapes and a NumPy reference."""
    def register(fn):
        OPS[name] = (fn, shapes, reference, domain, tol)
        return fn
    return register


UNARY = {
    "sin": (np.sin, (-3, 3)), "cos": (np.cos, (-3, 3)), "tan": (np.tan, (-1.2, 1.2)),
    "asin": (np.arcsin, (-0.99, 0.99)), "acos": (np.arccos, (-0.99, 0.99)),
    "atan": (np.arctan, (-5, 5)), "sinh": (np.sinh, (-3, 3)), "cosh": (np.cosh, (-3, 3)),
    "tanh": (np.tanh, (-3, 3)), "exp": (np.exp, (-3, 3)), "log": (np.log, (0.1, 5)),
    "log1p": (np.log1p, (-0.5, 5)), "expm1": (np.expm1, (-2, 2)), "sqrt": (np.sqrt, (0.0, 9)),
    "abs": (np.abs, (-3, 3)), "floor": (np.floor, (-3, 3)), "ceil": (np.ceil, (-3, 3)),
}
for _name, (_ref, _dom) in UNARY.items():
    op(f"method_{_name}", [(5,)], _ref, _dom)(lambda x, n=_name: getattr(x, n)())
    op(f"function_{_name}", [(2, 2)], _ref, _dom)(lambda x, n=_name: getattr(sc, n)(x))

op("add", [(3,), (3,)], np.add)(lambda a, b: a + b)
op("sub", [(3,), (3,)], np.subtract)(lambda a, b: a - b)
op("mul", [(2, 3), (2, 3)], np.multiply)(lambda a, b: a * b)
op("div", [(3,), (3,)], np.divide, (0.5, 3))(lambda a, b: a / b)
op("neg", [(4,)], np.negative)(lambda a: -a)
op("radd_const", [(3,)], lambda a: 1.5 + a)(lambda a: 1.5 + a)
op("rsub_const", [(3,)], lambda a: 1.5 - a)(lambda a: 1.5 - a)
op("rdiv_const", [(3,)], lambda a: 2.0 / a, (0.5, 3))(lambda a: 2.0 / a)
op("scalar_broadcast", [(), (2, 2)], lambda s, m: s * m + s)(lambda s, m: s * m + s)
op("pow_int", [(4,)], lambda a: a ** 3)(lambda a: a ** 3)
op("pow_zero", [(4,)], lambda a: a ** 0)(lambda a: a ** 0)
op("pow_float", [(4,)], lambda a: a ** 2.5, (0.1, 3))(lambda a: a ** 2.5)
op("pow_expr", [(4,), (4,)], np.power, (0.2, 2))(lambda a, b: a ** b)
op("rpow", [(4,)], lambda a: 2.0 ** a)(lambda a: 2.0 ** a)
op("pow_function", [(3,), (3,)], np.power, (0.2, 2))(lambda a, b: sc.pow(a, b))
op("atan2", [(4,), (4,)], np.arctan2)(lambda a, b: sc.atan2(a, b))
op("fmin", [(4,), (4,)], np.fmin)(lambda a, b: sc.fmin(a, b))
op("fmax", [(4,), (4,)], np.fmax)(lambda a, b: sc.fmax(a, b))
op("lt", [(5,), (5,)], np.less)(lambda a, b: a < b)
op("le", [(5,), (5,)], lambda a, b: a <= b)(lambda a, b: a <= b)
op("gt", [(5,), ()], np.greater)(lambda a, b: a > b)
op("ge", [(5,), (5,)], np.greater_equal)(lambda a, b: a >= b)
op("eq", [(5,)], lambda a: a == np.floor(a))(lambda a: a == a.floor())
op("ne", [(5,)], lambda a: a != np.floor(a))(lambda a: a != a.floor())
op("where", [(5,), (5,)], lambda a, b: np.where(a > b, a * 2, b))(
    lambda a, b: sc.where(a > b, a * 2.0, b))
op("where_const", [(5,)], lambda a: np.where(a > 0, a, 0.0))(lambda a: sc.where(a > 0, a, 0.0))
op("index", [(5,)], lambda a: a[1])(lambda a: a[1])
op("index_negative", [(5,)], lambda a: a[-1])(lambda a: a[-1])
op("slice", [(6,)], lambda a: a[1:4])(lambda a: a[1:4])
op("slice_step", [(7,)], lambda a: a[::2])(lambda a: a[::2])
op("slice_reverse", [(5,)], lambda a: a[::-1])(lambda a: a[::-1])
op("slice_negative_step", [(7,)], lambda a: a[-2:0:-2])(lambda a: a[-2:0:-2])
op("index_2d_row", [(3, 4)], lambda a: a[1, :])(lambda a: a[1, :])
op("index_2d_col", [(3, 4)], lambda a: a[:, -1])(lambda a: a[:, -1])
op("index_2d_mixed", [(3, 4)], lambda a: a[::-1, 1:])(lambda a: a[::-1, 1:])
op("index_2d_element", [(3, 4)], lambda a: a[2, -3])(lambda a: a[2, -3])
op("transpose", [(2, 3)], lambda a: a.T)(lambda a: a.T)
op("reshape", [(6,)], lambda a: a.reshape(2, 3))(lambda a: a.reshape((2, 3)))
op("reshape_infer", [(2, 6)], lambda a: a.reshape(3, -1))(lambda a: a.reshape(3, -1))
op("vec", [(2, 3)], lambda a: a.ravel())(lambda a: a.vec())
op("stack", [(), ()], lambda a, b: np.stack([a, b, a * b]))(lambda a, b: sc.stack([a, b, a * b]))
op("stack_axis1", [(3,), (3,)], lambda a, b: np.stack([a, b], axis=1))(
    lambda a, b: sc.stack([a, b], axis=1))
op("stack_numbers", [()], lambda a: np.stack([a, 1.0 + 0 * a]))(lambda a: sc.stack([a, 1.0]))
op("concat", [(2,), (3,)], lambda a, b: np.concatenate([a, b]))(lambda a, b: sc.concat([a, b]))
op("concat_axis1", [(2, 2), (2, 1)], lambda a, b: np.concatenate([a, b], axis=1))(
    lambda a, b: sc.concat([a, b], axis=1))
op("sum", [(2, 3)], np.sum)(lambda a: sc.sum(a))
op("sum_axis0", [(2, 3)], lambda a: a.sum(axis=0))(lambda a: sc.sum(a, axis=0))
op("sum_axis1", [(2, 3)], lambda a: a.sum(axis=1))(lambda a: sc.sum(a, axis=1))
op("sumsqr", [(4,)], lambda a: np.sum(a * a))(lambda a: sc.sumsqr(a))
op("dot", [(4,), (4,)], np.dot)(lambda a, b: sc.dot(a, b))
op("norm2", [(4,)], np.linalg.norm)(lambda a: sc.norm2(a))
op("matmul", [(2, 3), (3, 2)], np.matmul)(lambda a, b: a @ b)
op("matvec", [(2, 3), (3,)], np.matmul)(lambda a, b: a @ b)
op("vecmat", [(3,), (3, 2)], np.matmul)(lambda a, b: a @ b)
op("vecvec", [(3,), (3,)], np.matmul)(lambda a, b: a @ b)
op("rmatmul_const", [(2,)], lambda a: np.array([[1.0, 2.0], [3.0, 4.0]]) @ a)(
    lambda a: np.array([[1.0, 2.0], [3.0, 4.0]]) @ a)
op("expression", [(3,), ()], lambda x, u: np.exp(-x * x) * np.cos(u) + x / (1 + u * u))(
    lambda x, u: (-x * x).exp() * u.cos() + x / (1.0 + u * u))


def cast_case(name, to):
    op(name, [(5,)], lambda a: (a * 3).astype(to), (-3, 3))(lambda a: (a * 3.0).astype(to))


cast_case("cast_int64", np.int64)
cast_case("cast_int32", np.int32)
cast_case("cast_bool", np.bool_)
op("cast_roundtrip", [(4,)], lambda a: (a * 4).astype(np.int64).astype(a.dtype))(
    lambda a: (a * 4.0).astype("int64").astype(a.dtype))
op("cast_other_float", [(4,)], lambda a: a.astype(np.float32 if a.dtype == np.float64 else np.float64))(
    lambda a: a.astype("float32" if a.dtype == "float64" else "float64"))
op("bool_to_float", [(4,)], lambda a: (a > 0).astype(a.dtype) * 2)(
    lambda a: (a > 0.0).astype(a.dtype) * 2.0)


def _tol(dtype, name, tol):
    if tol:
        return tol
    if dtype == "float32":
        return dict(rtol=3e-6, atol=3e-6)
    return dict(rtol=2e-15, atol=1e-15)


def run_case(name, dtype, workdir, compiler="gcc", sanitize=False):
    fn, shapes, reference, (lo, hi), tol = OPS[name]
    npdt = np.float64 if dtype == "float64" else np.float32
    decls = [sc.arg(f"x{i}", s, dtype=dtype) for i, s in enumerate(shapes)]
    traced = _decorate(fn, decls, f"op_{name}")
    inputs = [RNG.uniform(lo, hi, size=s).astype(npdt) for s in shapes]
    if name in ("eq", "ne"):
        inputs[0][::2] = np.round(inputs[0][::2])
    built = cdriver.build(traced, workdir, compiler=compiler, sanitize=sanitize)
    (got,) = built.run(*inputs)
    want = np.asarray(reference(*inputs))
    assert got.shape == want.shape, (got.shape, want.shape)
    if want.dtype == bool or np.issubdtype(want.dtype, np.integer):
        np.testing.assert_array_equal(got, want)
    else:
        np.testing.assert_allclose(got, want, **_tol(dtype, name, tol))


def _decorate(fn, decls, name):
    params = ", ".join(d.name for d in decls)
    namespace = {"body": fn}
    exec(f"def {name}({params}):\n    return body({params})\n", namespace)
    return sc.function(*decls, outputs=sc.arg("out"))(namespace[name])


CASES = sorted(OPS)


@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize("name", CASES)
def test_gcc_matches_numpy(name, dtype, workdir):
    run_case(name, dtype, workdir)


@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize("name", CASES)
def test_clang_matches_numpy(name, dtype, workdir):
    run_case(name, dtype, workdir, compiler="clang-19")


@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize("name", CASES)
def test_sanitizers(name, dtype, workdir):
    run_case(name, dtype, workdir, sanitize=True)


def test_several_outputs(workdir):
    @sc.function(sc.arg("x", 3), outputs=(sc.arg("a"), sc.arg("b"), sc.arg("c")))
    def three(x):
        return x + 1.0, (x * x).sum(), x > 0.0

    x = RNG.normal(size=3)
    a, b, c = cdriver.build(three, workdir).run(x)
    np.testing.assert_allclose(a, x + 1, rtol=1e-15)
    np.testing.assert_allclose(b, np.sum(x * x), rtol=1e-15)
    np.testing.assert_array_equal(c, x > 0)


@pytest.mark.parametrize("block", [False, True])
def test_functions_calling_functions(workdir, block):
    @sc.function(sc.arg("p", 2), outputs=sc.arg("q"))
    def rotate(p):
        out = sc.stack([-p[1], p[0]])
        return out.block() if block else out

    @sc.function(sc.arg("p", 2), outputs=(sc.arg("n"), sc.arg("m")))
    def twice(p):
        return rotate(p).sum(), p * 2.0

    @sc.function(sc.arg("x", 2), outputs=sc.arg("y"))
    def outer(x):
        n, m = twice(rotate(x) * 3.0)
        return rotate(m) + n

    src = cdriver.render_c_module(outer).source
    assert ("rotate_raw" in src) == block
    x = RNG.normal(size=2)
    (y,) = cdriver.build(outer, workdir).run(x)
    rot = lambda p: np.array([-p[1], p[0]])
    p = rot(x) * 3.0
    np.testing.assert_allclose(y, rot(p * 2.0) + rot(p).sum(), rtol=1e-15)


def test_int_and_bool_inputs(workdir):
    @sc.function(sc.arg("k", 3, dtype="int32"), sc.arg("m", 3, dtype="bool"), sc.arg("x", 3),
                 outputs=(sc.arg("y"), sc.arg("j")))
    def mixed(k, m, x):
        return sc.where(m, x * k.astype("float64"), -x), k * 2 + 1

    k = np.array([1, -2, 3], dtype=np.int32)
    m = np.array([True, False, True])
    x = RNG.normal(size=3)
    y, j = cdriver.build(mixed, workdir).run(k, m, x)
    np.testing.assert_allclose(y, np.where(m, x * k, -x), rtol=1e-15)
    np.testing.assert_array_equal(j, k * 2 + 1)
    assert j.dtype == np.int32


@pytest.mark.parametrize("compiler", cdriver.COMPILERS)
def test_float_to_int_of_nan_and_out_of_range(workdir, compiler):
    @sc.function(sc.arg("x", 6), outputs=(sc.arg("a"), sc.arg("b")))
    def to_ints(x):
        return x.astype("int64"), x.astype("int32")

    x = np.array([1.7, -2.5, np.nan, np.inf, -1e30, 3e9])
    a, b = cdriver.build(to_ints, workdir, compiler=compiler, sanitize=True).run(x)
    with np.errstate(invalid="ignore"):
        np.testing.assert_array_equal(a, x.astype(np.int64))  # x86: the minimum
        np.testing.assert_array_equal(b, x.astype(np.int32))
