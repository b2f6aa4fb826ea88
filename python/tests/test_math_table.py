"""The math-function table (mlir-dialects/Expr/MathFunctions.td), record by record.

Every record is checked against NumPy (values through the JIT's C, float64 and
float32; constant folding), against the C it prints (the libm name, glibc's
vector variants with vector_libm="glibc") and against finite differences (its
derivative rule). A record added to the table is tested here at once, and the
tests fail, naming it, until REFERENCE gives its NumPy counterpart.
"""

import numpy as np
import pytest

import scaly as sc
from scaly import _core
from scaly._trace import as_expr
from scaly.codegen import render_c_module

# NumPy's function and, per operand, an interval inside its domain.
REFERENCE = {
    "sin": (np.sin, [(-3, 3)]), "cos": (np.cos, [(-3, 3)]), "tan": (np.tan, [(-1.2, 1.2)]),
    "asin": (np.arcsin, [(-0.9, 0.9)]), "acos": (np.arccos, [(-0.9, 0.9)]),
    "atan": (np.arctan, [(-3, 3)]), "sinh": (np.sinh, [(-3, 3)]), "cosh": (np.cosh, [(-3, 3)]),
    "tanh": (np.tanh, [(-3, 3)]), "exp": (np.exp, [(-3, 3)]), "log": (np.log, [(0.1, 5)]),
    "log1p": (np.log1p, [(-0.9, 5)]), "expm1": (np.expm1, [(-3, 3)]),
    "sqrt": (np.sqrt, [(0.1, 5)]), "abs": (np.abs, [(-3, 3)]),
    "floor": (np.floor, [(-3, 3)]), "ceil": (np.ceil, [(-3, 3)]),
    "exp2": (np.exp2, [(-3, 3)]), "log10": (np.log10, [(0.1, 5)]),
    "pow": (np.power, [(0.2, 3), (-2, 2)]), "atan2": (np.arctan2, [(-2, 2), (0.3, 2)]),
    "fmin": (np.fmin, [(-2, 2), (-2, 2)]), "fmax": (np.fmax, [(-2, 2), (-2, 2)]),
    "fmod": (np.fmod, [(-5, 5), (0.7, 2)]),
}
N = 64
TABLE = _core.load().math_functions()
IDS = [f"{row['name']}/{row['arity']}" for row in TABLE]


def call_of(row):
    """The traced call of the row's function: sc.sin(x), sc.atan2(x, y), ..."""
    return getattr(sc, row["name"])


def samples(row, dtype=np.float64, seed=0):
    rng = np.random.default_rng(seed)
    return [rng.uniform(lo, hi, N).astype(dtype) for lo, hi in REFERENCE[row["name"]][1]]


def python_function(row, then=lambda r: r):
    """def f(x): return then(fn(x)), or of (x, y) for two operands (sc.function reads
    the parameters' names)."""
    fn = call_of(row)
    if row["arity"] == 1:
        def f(x):
            return then(fn(x))
    else:
        def f(x, y):
            return then(fn(x, y))
    return f


def function_of(row, dtype="float64"):
    names = ["x", "y"][:row["arity"]]
    return sc.function(*[sc.arg(n, N, dtype=dtype) for n in names],
                       outputs=sc.arg("r"))(python_function(row))


def test_the_table_is_the_dialects_enums_and_every_record_has_a_reference():
    enums = _core.expr_enums()
    assert [r["name"] for r in TABLE if r["arity"] == 1] == list(enums["math"])
    assert [r["name"] for r in TABLE if r["arity"] == 2] == list(enums["math2"])
    missing = [r["name"] for r in TABLE if r["name"] not in REFERENCE]
    assert not missing, f"test_math_table.REFERENCE needs NumPy's function for {missing}"
    for row in TABLE:
        assert callable(call_of(row)), row
        if row["arity"] == 1:
            assert hasattr(sc.Expr, row["name"])


@pytest.mark.parametrize("row", TABLE, ids=IDS)
def test_values_match_numpy_in_float64_and_float32(row):
    ref = REFERENCE[row["name"]][0]
    xs = samples(row)
    np.testing.assert_allclose(function_of(row)(*xs), ref(*xs), rtol=2e-15, atol=1e-300)
    xs32 = samples(row, np.float32)
    got = function_of(row, "float32")(*xs32)
    assert got.dtype == np.float32
    np.testing.assert_allclose(got, ref(*xs32), rtol=2e-6, atol=1e-30)


@pytest.mark.parametrize("row", TABLE, ids=IDS)
def test_constant_operands_fold_to_numpys_value(row):
    consts = [float(v[0]) for v in samples(row, seed=1)]
    def f(x):
        return x + call_of(row)(*[as_expr(c, x._g, like=x) for c in consts])
    f = sc.function(sc.arg("x", ()), outputs=sc.arg("r"))(f)
    source = render_c_module(f).source
    assert f"{row['c_name']}(" not in source.split("int f(")[-1], "the call was not folded"
    np.testing.assert_allclose(f(np.float64(0.0)), REFERENCE[row["name"]][0](*consts), rtol=1e-15)


@pytest.mark.parametrize("row", TABLE, ids=IDS)
def test_the_c_calls_the_c_name_and_glibcs_vector_variant_where_it_has_one(row):
    scalar = render_c_module(function_of(row)).source
    assert f"{row['c_name']}(" in scalar
    assert f"{row['c_name']}f(" in render_c_module(function_of(row, "float32")).source
    wide = render_c_module(function_of(row), cpu="x86-64-v4", lanes=8,
                           vector_libm="glibc").source
    variant = f"_ZGVeN8{'v' * row['arity']}_{row['c_name']}"
    assert (variant in wide) == (row["glibc_vector_since"] > 0), variant


@pytest.mark.parametrize("row", TABLE, ids=IDS)
def test_derivative_rules_match_finite_differences(row):
    names = ["x", "y"][:row["arity"]]
    f = sc.function(*[sc.arg(n, N) for n in names], outputs=sc.arg("s"))(
        python_function(row, sc.sum))
    xs = samples(row, seed=2)
    if row["name"] in ("floor", "ceil", "fmod"):  # steps: keep the points off them
        xs = [np.round(x) + 0.37 for x in xs[:1]] + xs[1:]
    grads = sc.gradient(f)(*xs)
    grads = grads if isinstance(grads, tuple) else (grads,)
    ref = REFERENCE[row["name"]][0]
    h = 1e-6
    for k, g in enumerate(grads):
        step = np.zeros_like(xs[k])
        fd = np.empty(N)
        for i in range(N):
            step[i] = h
            plus = [x + step if j == k else x for j, x in enumerate(xs)]
            minus = [x - step if j == k else x for j, x in enumerate(xs)]
            fd[i] = (ref(*plus).sum() - ref(*minus).sum()) / (2 * h)
            step[i] = 0.0
        np.testing.assert_allclose(g, fd, rtol=1e-6, atol=1e-7, err_msg=f"d/d{names[k]}")
    if not row["differentiable"]:
        assert all(not np.any(g) for g in grads)


@pytest.mark.parametrize("row", [r for r in TABLE if hasattr(np, r["name"])],
                         ids=lambda r: r["name"])
def test_numpys_function_of_the_same_name_traces_to_it(row):
    names = ["x", "y"][:row["arity"]]
    ufunc = getattr(np, row["name"])
    if row["arity"] == 1:
        def f(x):
            return ufunc(x)
    else:
        def f(x, y):
            return ufunc(x, y)
    fn = sc.function(*[sc.arg(n, N) for n in names], outputs=sc.arg("r"))(f)
    assert f"{row['c_name']}(" in render_c_module(fn).source
    xs = samples(row, seed=3)
    np.testing.assert_allclose(fn(*xs), REFERENCE[row["name"]][0](*xs), rtol=2e-15)
