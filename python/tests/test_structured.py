"""Structured ops (slice, transpose, reduce, matmul, concat/stack, broadcast) against NumPy.

Every case runs SMALL (at most 64 elements per array: scalarized) and LARGE
(more than 64 elements: fused loops and module helpers), in float64, float32,
int32 and int64 where NumPy defines the operation. Cases of one group share
one traced function (one JIT compile), each case with its own inputs and
output, so the file stays fast. A few LARGE models are also exported with
render_c_module and compiled by gcc and clang (and under ASan/UBSan).
"""

import types

import numpy as np
import pytest

import scaly as sc
from scaly._trace import as_expr
from scaly.codegen import render_c_module

import cdriver

# The same case bodies run on Exprs (module `sc`) and on NumPy arrays (`NP`).
NP = types.SimpleNamespace(
    concat=np.concatenate, stack=np.stack, transpose=np.transpose, sum=np.sum, prod=np.prod,
    max=np.max, min=np.min, mean=np.mean, matmul=np.matmul, dot=np.dot, where=np.where)

FLOATS = ("float64", "float32")
NUMBERS = ("float64", "float32", "int32", "int64")
SIZES = ("small", "large")
SMALL_LIMIT = 64


def _inputs(rng, specs, dtype, positive=False):
    """Random inputs; `positive` (for products): floats near 1, integers -1 or 1."""
    out = []
    for shape, dt in specs:
        dt = dt or dtype
        if dt == "bool":
            out.append(rng.random(shape) < 0.5)
        elif dt.startswith("int"):
            if positive:
                out.append(rng.choice(np.array([-1, 1], dt), size=shape))
            else:
                out.append(rng.integers(-4, 5, size=shape).astype(dt))
        elif positive:
            out.append(rng.uniform(0.6, 1.4, size=shape).astype(dt))
        else:
            out.append(rng.uniform(-2.0, 2.0, size=shape).astype(dt))
    return out


def _tol(dtype):
    if dtype in ("float32",):
        return dict(rtol=1e-4, atol=1e-4)
    return dict(rtol=1e-12, atol=1e-12)


def run_group(cases, dtype, seed=0, positive=False, size=None, chunk=12):
    """Run `cases` in traced functions of at most `chunk` cases each (C compilers
    take superlinear time on one huge function); returns the functions."""
    return [_run_chunk(cases[i:i + chunk], dtype, seed + i, positive, size)
            for i in range(0, len(cases), chunk)]


def _run_chunk(cases, dtype, seed, positive, size):
    """Trace all `cases` (name, [(shape, dtype|None), ...], body) into one function,
    call it through the JIT and compare every output with NumPy.

    Returns the traced function (for dtype checks)."""
    rng = np.random.default_rng(seed)
    specs, slots, arrays = [], [], []
    for name, ins, body in cases:
        xs = _inputs(rng, ins, dtype, positive)
        slots.append((len(specs), len(ins)))
        specs += [(shape, dt or dtype) for shape, dt in ins]
        arrays += xs
    decls = [sc.arg(f"x{i}", shape, dtype=dt) for i, (shape, dt) in enumerate(specs)]
    outs = tuple(sc.arg(f"o{k}") for k in range(len(cases)))

    def body_of_group(*xs):
        return tuple(body(sc, *xs[s:s + n]) for (_, _, body), (s, n) in zip(cases, slots))

    # sc.function reads the parameter names: spell them out.
    params = ", ".join(d.name for d in decls)
    namespace = {"body": body_of_group}
    exec(f"def group({params}):\n    return body({params})\n", namespace)
    fn = sc.function(*decls, outputs=outs)(namespace["group"])
    if size is not None:
        _check_sizes(cases, fn, size)
    got = fn(*arrays)
    got = got if isinstance(got, tuple) else (got,)
    for (name, _, body), (s, n), g, (_, shape, odt) in zip(cases, slots, got, fn.outputs):
        want = np.asarray(body(NP, *arrays[s:s + n]))
        assert g.shape == want.shape, (name, g.shape, want.shape)
        assert np.dtype(odt) == want.dtype, (name, odt, want.dtype)
        assert g.dtype == want.dtype, (name, g.dtype, want.dtype)
        if want.dtype.kind in "biu":
            np.testing.assert_array_equal(g, want, err_msg=name)
        else:
            np.testing.assert_allclose(g, want, err_msg=name, **_tol(want.dtype.name))
    return fn


def _check_sizes(cases, fn, size):
    """SMALL cases keep every input and output at most 64 elements (scalarized);
    LARGE ones have an input or output above (loops)."""
    for (name, ins, _), (_, shape, _) in zip(cases, fn.outputs):
        biggest = max(int(np.prod(s, dtype=np.int64)) for s in [shape] + [s for s, _ in ins])
        if size == "small":
            assert biggest <= SMALL_LIMIT, name
        elif 0 not in shape and "empty" not in name and "size1" not in name:
            assert biggest > SMALL_LIMIT, name


# ---------------------------------------------------------------------------
# slices and integer indexing
# ---------------------------------------------------------------------------

def slice_cases(size):
    m, n = (4, 5) if size == "small" else (12, 10)
    a = [((m, n), None)]
    cases = [
        ("reverse", a, lambda _, x: x[::-1]),
        ("rows_cols_neg_step", a, lambda _, x: x[1:3, ::-2]),
        ("last_row", a, lambda _, x: x[-1]),
        ("column", a, lambda _, x: x[:, 2]),
        ("element", a, lambda _, x: x[-2, 3]),
        ("newaxis_ellipsis", a, lambda _, x: x[None, 1:, ...]),
        ("ellipsis_step", a, lambda _, x: x[..., ::-3]),
        ("both_negative", a, lambda _, x: x[m - 1:0:-1, n - 1:0:-2]),
        ("empty_rows", a, lambda _, x: x[2:2]),
        ("empty_cols", a, lambda _, x: x[:, :0]),
        ("slice_of_slice", a, lambda _, x: x[::-1][1::2, ::-1]),
        ("slice_then_math", a, lambda _, x: x[::2, 1:] * 2 + x[1::2, :-1]),
        ("size1_axis", [((1, n), None)], lambda _, x: x[0, ::-1]),
        ("size1_keep", [((1, n), None)], lambda _, x: x[:, ::-1]),
        ("empty_input", [((0, n), None)], lambda _, x: x[:, 1:3]),
        ("vector_neg", [((m * n + 1,), None)], lambda _, x: x[-2:0:-3]),
        ("newaxis_middle", [((m, n), None)], lambda _, x: x[:, None, ::-1]),
    ]
    if size == "large":
        cases.append(("3d", [((4, 5, 6), None)], lambda _, x: x[::-1, 1:4, ::-2]))
        cases.append(("3d_int", [((4, 5, 6), None)], lambda _, x: x[1] * 2 + x[-4]))
    else:
        cases.append(("3d", [((2, 3, 4), None)], lambda _, x: x[::-1, 1:, ::-2]))
        cases.append(("3d_int", [((2, 3, 4), None)], lambda _, x: x[1] * 2 + x[-2]))
    return cases


def test_integer_index_is_the_same_op_as_its_tuple_form():
    """x[k] (the fast path of unrolled loops) traces exactly as x[k, ...] does."""
    def trace(index):
        @sc.function(sc.arg("x", (3, 4)), outputs=sc.arg("y"))
        def f(x):
            return index(x)
        return f.mlir()
    for k in (0, 2, -1, -3):
        assert trace(lambda x: x[k]) == trace(lambda x: x[k, ...]), k


def test_integer_array_index_is_the_same_gather_as_a_list():
    """x[array] on a vector (the fast path of derivative gathers) traces exactly
    as NumPy's positions of x[list] do, negative positions included."""
    def trace(index):
        @sc.function(sc.arg("x", 6), outputs=sc.arg("y"))
        def f(x):
            return index(x)
        return f.mlir()
    cases = [([0, 5, 5, 2], np.uint8), ([0, 5, 5, 2], np.int32), ([-1, 0, -6, 3], np.int64),
             ([-1, 0, -6, 3], np.int32), ([4], np.int64)]
    for table, dtype in cases:
        assert trace(lambda x: x[np.array(table, dtype=dtype)]) == trace(lambda x: x[table]), \
            (table, dtype)


@pytest.mark.parametrize("size", SIZES)
@pytest.mark.parametrize("dtype", NUMBERS)
def test_slices(dtype, size, cache):
    run_group(slice_cases(size), dtype, size=size)


# ---------------------------------------------------------------------------
# transposes
# ---------------------------------------------------------------------------

def transpose_cases(size):
    s = (2, 3, 4) if size == "small" else (4, 5, 6)
    a = [(s, None)]
    return [
        ("T", a, lambda _, x: x.T),
        ("102", a, lambda _, x: x.transpose(1, 0, 2)),
        ("201_tuple", a, lambda _, x: x.transpose((2, 0, 1))),
        ("function_021", a, lambda m, x: m.transpose(x, (0, 2, 1))),
        ("negative_axes", a, lambda _, x: x.transpose(-1, 0, -2)),
        ("twice", a, lambda _, x: x.transpose(1, 2, 0).transpose(2, 0, 1)),
        ("identity", a, lambda _, x: x.transpose(0, 1, 2)),
        ("then_slice", a, lambda _, x: x.transpose(1, 2, 0)[::-1, :, 1:]),
        ("slice_then", a, lambda _, x: x[:, ::-1, ::2].T),
        ("fused_math", a, lambda _, x: x.T * 2 + x.T[::-1]),
        ("plus_self", [((2 * s[2], 2 * s[2]), None)], lambda _, x: x + x.T),
        ("size1", [((1, s[1], 1), None)], lambda _, x: x.transpose(2, 0, 1)),
        ("empty", [((0, 2, 3), None)], lambda _, x: x.T),
        ("2d", [((3 * s[0], 2 * s[2]), None)], lambda _, x: x.T),
    ]


@pytest.mark.parametrize("size", SIZES)
@pytest.mark.parametrize("dtype", NUMBERS)
def test_transposes(dtype, size, cache):
    run_group(transpose_cases(size), dtype, size=size)


# ---------------------------------------------------------------------------
# reductions
# ---------------------------------------------------------------------------

def reduce_cases(size, kinds=("sum", "prod", "max", "min", "mean")):
    s = (3, 4, 5) if size == "small" else (6, 7, 8)
    a = [(s, None)]
    cases = []
    for kind in kinds:
        for ax in (None, 1, -1, (2, 0), (-1, -3)):
            cases.append((f"{kind}_axis{ax}", a,
                          lambda m, x, k=kind, ax=ax: getattr(m, k)(x, axis=ax)))
        for ax in (None, -2, (0, 2)):
            cases.append((f"{kind}_keepdims{ax}", a,
                          lambda _, x, k=kind, ax=ax: getattr(x, k)(axis=ax, keepdims=True)))
        cases.append((f"{kind}_strided", a,
                      lambda _, x, k=kind: getattr(x[::-1, :, ::2], k)(axis=0)))
        cases.append((f"{kind}_transposed", a,
                      lambda _, x, k=kind: getattr(x.T, k)(axis=(1, 2))))
        cases.append((f"{kind}_size1", [((1, s[2]), None)],
                      lambda _, x, k=kind: getattr(x, k)(axis=0)))
        cases.append((f"{kind}_of_expression", a,
                      lambda _, x, k=kind: getattr(x * x + 1, k)(axis=-1)))
        # Kept and reduced axes interleaved: the reduced ones are moved last
        # by a transpose (scaly-move-reduced-axes-last), here of an expression.
        s4 = (2, 2, 3, 4) if size == "small" else (2,) + s
        cases.append((f"{kind}_rank4_interleaved", [(s4, None)],
                      lambda _, x, k=kind: getattr(x * 0.5 + x, k)(axis=(0, 2))))
        if kind in ("sum", "prod"):
            # Empty reductions give the identity (max/min refuse, as NumPy does).
            for ax in (0, 1, None):
                cases.append((f"{kind}_empty_axis{ax}", [((0, s[1]), None)],
                              lambda _, x, k=kind, ax=ax: getattr(x, k)(axis=ax)))
    return cases


@pytest.mark.parametrize("size", SIZES)
@pytest.mark.parametrize("dtype", NUMBERS)
def test_reductions(dtype, size, cache):
    run_group(reduce_cases(size, ("sum", "max", "min", "mean")), dtype, seed=1, size=size)
    # Products: factors near 1 (integers -1 and 1) stay finite and exact.
    run_group(reduce_cases(size, ("prod",)), dtype, seed=2, positive=True, size=size)


def test_reduction_dtypes(cache):
    cases = [
        ("int32_sum", [((3, 4), "int32")], lambda _, x: x.sum()),
        ("int32_sum_axis", [((30, 4), "int32")], lambda _, x: x.sum(axis=0)),
        ("int32_prod", [((2, 3), "int32")], lambda _, x: x.prod(axis=1)),
        ("int32_max", [((30, 4), "int32")], lambda _, x: x.max(axis=0)),
        ("int32_mean", [((30, 4), "int32")], lambda _, x: x.mean(axis=1)),
        ("int64_mean", [((3,), "int64")], lambda _, x: x.mean()),
        ("float32_mean", [((100,), "float32")], lambda _, x: x.mean()),
        ("bool_sum", [((100,), "bool")], lambda _, x: x.astype("int64").sum()),
    ]
    (fn,) = run_group(cases, "float64")
    assert [d for _, _, d in fn.outputs] == ["int64", "int64", "int64", "int32", "float64",
                                              "float64", "float32", "int64"]


@pytest.mark.parametrize("dtype", FLOATS)
def test_max_min_propagate_nan(dtype, cache):
    small, large = (4, 5), (20, 30)

    @sc.function(sc.arg("a", small, dtype=dtype), sc.arg("b", large, dtype=dtype),
                 outputs=tuple(sc.arg(f"o{i}") for i in range(8)))
    def nanreduce(a, b):
        return (a.max(), a.min(axis=0), sc.max(a, axis=1), a.min(),
                b.max(), b.min(axis=0), sc.max(b, axis=1), b.min())

    rng = np.random.default_rng(5)
    a = rng.uniform(-1, 1, small).astype(dtype)
    b = rng.uniform(-1, 1, large).astype(dtype)
    # NaN first, last and in the middle of different rows and columns.
    a[0, 0] = a[2, 3] = a[3, 4] = np.nan
    b[0, 0] = b[7, 11] = b[19, 29] = b[10, 0] = np.nan
    got = nanreduce(a, b)
    want = (a.max(), a.min(axis=0), a.max(axis=1), a.min(),
            b.max(), b.min(axis=0), b.max(axis=1), b.min())
    for i, (g, w) in enumerate(zip(got, want)):
        np.testing.assert_array_equal(g, w, err_msg=f"output {i}")  # NaN == NaN here
    # Without NaN in some rows: the rows keep their numbers.
    assert np.isfinite(got[2][1]) and np.isfinite(got[6][1])


def test_contiguous_sum_is_numpys_pairwise_sum_bit_for_bit(cache):
    n = 10000

    @sc.function(sc.arg("x", n), outputs=(sc.arg("s"), sc.arg("m")))
    def total(x):
        return x.sum(), sc.sum(x[:8193])

    rng = np.random.default_rng(7)
    for x in (rng.normal(size=n) * 1e3, rng.uniform(0, 1, n) + 1e8, np.geomspace(1e-8, 1e8, n)):
        s, m = total(x)
        assert s.tobytes() == np.sum(x).tobytes(), (float(s), float(np.sum(x)))
        assert m.tobytes() == np.sum(x[:8193]).tobytes()
    # Naive left-to-right summation differs from np.sum on this input.
    x = rng.normal(size=n) * 1e3
    naive = 0.0
    for v in x:
        naive += v
    assert total(x)[0] == np.sum(x)


def test_integer_product_wraps(cache):
    @sc.function(sc.arg("x", 100, dtype="int64"), sc.arg("y", 10, dtype="int64"),
                 outputs=(sc.arg("p"), sc.arg("q")))
    def wrap(x, y):
        return x.prod(), y.prod()

    x = np.full(100, 3, np.int64)
    y = np.full(10, 3 ** 7, np.int64)
    p, q = wrap(x, y)
    assert p == np.prod(x) and q == np.prod(y)


# ---------------------------------------------------------------------------
# matrix products
# ---------------------------------------------------------------------------

def matmul_cases(size):
    if size == "small":
        m, k, n, b = 3, 4, 5, 2
    else:
        m, k, n, b = 20, 30, 10, 3
    return [
        ("2d", [((m, k), None), ((k, n), None)], lambda _, x, y: x @ y),
        ("function", [((m, k), None), ((k, n), None)], lambda mod, x, y: mod.matmul(x, y)),
        ("vec_mat", [((k,), None), ((k, n), None)], lambda _, x, y: x @ y),
        ("mat_vec", [((m, k), None), ((k,), None)], lambda _, x, y: x @ y),
        ("vec_vec", [((k * 3,), None), ((k * 3,), None)], lambda _, x, y: x @ y),
        ("dot_vec", [((k * 3,), None), ((k * 3,), None)], lambda mod, x, y: mod.dot(x, y)),
        ("dot_mat", [((m, k), None), ((k, n), None)], lambda mod, x, y: mod.dot(x, y)),
        ("batched", [((b, m, k), None), ((b, k, n), None)], lambda _, x, y: x @ y),
        ("batch_broadcast", [((b, 1, m, k), None), ((2, k, n), None)], lambda _, x, y: x @ y),
        ("batch_2d", [((b, m, k), None), ((k, n), None)], lambda _, x, y: x @ y),
        ("batch_vec", [((b, m, k), None), ((k,), None)], lambda _, x, y: x @ y),
        ("transposed", [((k, m), None), ((n, k), None)], lambda _, x, y: x.T @ y.T),
        ("reversed", [((m, k), None), ((k, n), None)], lambda _, x, y: x[::-1] @ y[:, ::-1]),
        ("chain", [((m, k), None), ((k, n), None)], lambda _, x, y: (x @ y) * 2 + 1),
        ("empty_rows", [((0, k), None), ((k, n), None)], lambda _, x, y: x @ y),
        ("size1", [((1, k), None), ((k, 1), None)], lambda _, x, y: x @ y),
    ] + ([("empty_inner", [((m, 0), None), ((0, n), None)], lambda _, x, y: x @ y)]
         if size == "large" else [])  # small: see test_small_matmul_with_empty_inner_axis


@pytest.mark.parametrize("size", SIZES)
@pytest.mark.parametrize("dtype", NUMBERS)
def test_matmul(dtype, size, cache):
    run_group(matmul_cases(size), dtype, seed=3, size=size)


def test_small_matmul_with_empty_inner_axis(cache):
    # In a subprocess: the bug this guards against was a crash of the lowering.
    from jitutil import run_snippet
    out = run_snippet("""
        import json, numpy as np, scaly as sc
        @sc.function(sc.arg("a", (2, 0)), sc.arg("b", (0, 3)), outputs=sc.arg("c"))
        def mm(a, b):
            return a @ b
        print(json.dumps(mm(np.zeros((2, 0)), np.zeros((0, 3))).tolist()))
    """, cache)
    assert out == [[0.0] * 3] * 2


# ---------------------------------------------------------------------------
# concat and stack
# ---------------------------------------------------------------------------

def join_cases(size):
    s = (2, 3, 2) if size == "small" else (4, 5, 6)
    cases = []
    for axis in (0, 1, 2, -1):
        other = tuple(1 if d == axis % 3 else n for d, n in enumerate(s))
        cases.append((f"concat_axis{axis}", [(s, None), (other, None), (s, None)],
                      lambda m, x, y, z, a=axis: m.concat([x, y, z[::-1]], axis=a)))
        empty = tuple(0 if d == axis % 3 else n for d, n in enumerate(s))
        cases.append((f"concat_empty_axis{axis}", [(s, None), (empty, None)],
                      lambda m, x, y, a=axis: m.concat([y, x], axis=a)))
    for axis in (0, 1, 2, 3, -1, -4):
        cases.append((f"stack_axis{axis}", [(s, None), (s, None)],
                      lambda m, x, y, a=axis: m.stack([x, y.T.T * 2, x], axis=a)))
    v = 6 if size == "small" else 40
    cases.append(("stack_vectors", [((v,), None), ((v,), None)],
                  lambda m, x, y: m.stack([x, y[::-1]], axis=1)))
    cases.append(("concat_then_reduce", [(s, None), (s, None)],
                  lambda m, x, y: m.concat([x, y], axis=1).sum(axis=1)))
    return cases


@pytest.mark.parametrize("size", SIZES)
@pytest.mark.parametrize("dtype", NUMBERS)
def test_concat_and_stack(dtype, size, cache):
    run_group(join_cases(size), dtype, seed=4, size=size)


# ---------------------------------------------------------------------------
# broadcasting
# ---------------------------------------------------------------------------

def broadcast_cases(size):
    r, c, lead = (3, 4, 2) if size == "small" else (12, 16, 5)
    return [
        ("col_plus_row", [((r, 1), None), ((1, c), None)], lambda _, x, y: x + y),
        ("row_plus_3d", [((c,), None), ((lead, 1, c), None)], lambda _, x, y: x + y),
        ("3d_times", [((lead, 1, c), None), ((r, 1), None)], lambda _, x, y: x * y - y),
        ("scalar", [((), None), ((r, c), None)], lambda _, x, y: x * y + x),
        ("size1_both", [((1, 1), None), ((r, c), None)], lambda _, x, y: y - x),
        ("where", [((r, 1), None), ((1, c), None)],
         lambda m, x, y: m.where(x > y, x, y * 2)),
        ("compare", [((r, 1), None), ((c,), None)], lambda _, x, y: x < y),
        ("empty", [((0, 1), None), ((1, c), None)], lambda _, x, y: x + y),
        ("to_empty", [((1,), None), ((r, 0), None)], lambda _, x, y: x * y),
        ("strided", [((r, 2), None), ((2, c), None)], lambda _, x, y: x[::-1, :1] + y[1:, ::-1]),
        ("after_reduce", [((r, c), None)], lambda _, x: x - x.max(axis=0, keepdims=True)),
        ("after_reduce_rows", [((r, c), None)], lambda _, x: x - x.min(axis=1, keepdims=True)),
    ]


@pytest.mark.parametrize("size", SIZES)
@pytest.mark.parametrize("dtype", NUMBERS)
def test_broadcasting(dtype, size, cache):
    (fn,) = run_group(broadcast_cases(size), dtype, seed=6, size=size)
    r, c, lead = (3, 4, 2) if size == "small" else (12, 16, 5)
    assert fn.outputs[0][1] == (r, c) and fn.outputs[1][1] == (lead, 1, c)
    assert fn.outputs[2][1] == (lead, r, c)


# ---------------------------------------------------------------------------
# dtype promotion and bools
# ---------------------------------------------------------------------------

@pytest.mark.parametrize("size", SIZES)
def test_dtype_promotion(size, cache):
    n = 5 if size == "small" else 100
    v = lambda dt: [((n,), dt)]
    two = lambda a, b: [((n,), a), ((n,), b)]
    cases = [
        ("i32+f32", two("int32", "float32"), lambda _, x, y: x + y),
        ("i32*f64", two("int32", "float64"), lambda _, x, y: x * y),
        ("i32+i64", two("int32", "int64"), lambda _, x, y: x + y),
        ("f32-f64", two("float32", "float64"), lambda _, x, y: x - y),
        ("i64+f32", two("int64", "float32"), lambda _, x, y: x + y),
        ("bool+i32", two("bool", "int32"), lambda _, x, y: x + y),
        ("bool*f32", two("bool", "float32"), lambda _, x, y: x * y),
        ("bool+bool", two("bool", "bool"), lambda _, x, y: x + y),
        ("bool*bool", two("bool", "bool"), lambda _, x, y: x * y),
        ("i32/i32", [((n,), "int32"), ((n,), "int32")], lambda _, x, y: x / (y * y + 1)),
        ("f32*weak_float", v("float32"), lambda _, x: x * 0.5 + 2),
        ("i32*weak_int", v("int32"), lambda _, x: x * 3 - 1),
        ("i32*weak_float", v("int32"), lambda _, x: x * 2.5),
        ("i64+weak_int", v("int64"), lambda _, x: 7 + x),
        ("bool_and_weak_int", v("bool"), lambda _, x: x + 1),
        ("i32_sum", v("int32"), lambda _, x: x.sum()),
        ("i32_cmp_f32", two("int32", "float32"), lambda _, x, y: x < y),
        ("i32@f32", [((3, n), "int32"), ((n, 2), "float32")], lambda _, x, y: x @ y),
        ("broadcast_promote", [((n, 1), "int32"), ((1, 3), "float32")], lambda _, x, y: x + y),
        ("concat_promote", two("float32", "float32"), lambda m, x, y: m.concat([x, y * 2])),
    ]
    (fn,) = run_group(cases, "float64", seed=8, chunk=len(cases))
    dtypes = [d for _, _, d in fn.outputs]
    assert dtypes == ["float64", "float64", "int64", "float64", "float64", "int32", "float32",
                      "bool", "bool", "float64", "float32", "int32", "float64", "int64",
                      "int64", "int64", "bool", "float64", "float64", "float32"]


def test_bool_arithmetic_truth_tables(cache):
    @sc.function(sc.arg("a", 4, dtype="bool"), sc.arg("b", 4, dtype="bool"),
                 sc.arg("c", 100, dtype="bool"), sc.arg("d", 100, dtype="bool"),
                 outputs=tuple(sc.arg(f"o{i}") for i in range(4)))
    def logic(a, b, c, d):
        return a + b, a * b, c + d, c * d

    a = np.array([False, False, True, True])
    b = np.array([False, True, False, True])
    rng = np.random.default_rng(9)
    c, d = rng.random(100) < 0.5, rng.random(100) < 0.5
    got = logic(a, b, c, d)
    for g, w in zip(got, (a + b, a * b, c + d, c * d)):
        assert g.dtype == np.bool_
        np.testing.assert_array_equal(g, w)


# ---------------------------------------------------------------------------
# tracing cost does not grow with the array size
# ---------------------------------------------------------------------------

def test_tracing_is_constant_in_array_size():
    texts, nodes = [], []
    for n in (10 ** 3, 10 ** 6):
        @sc.function(sc.arg("x", n), outputs=sc.arg("y"))
        def chain(x):
            return (2 * x).sin() + 1

        nodes.append(chain._traced.num_nodes)
        texts.append(chain.mlir())
    assert nodes[0] == nodes[1] and nodes[1] <= 8, nodes
    # No per-element attribute: the module text is as long for 10**6 elements.
    text = texts[1]
    assert len(text) < 1500, len(text)
    assert texts[1].replace("1000000x", "Nx") == texts[0].replace("1000x", "Nx")
    assert "expr.gather" not in text and "1000000xf64" in text
    assert chain.outputs == [("y", (10 ** 6,), "float64")]


def test_structured_ops_trace_to_one_op_each():
    @sc.function(sc.arg("x", (100, 200)), sc.arg("y", (200, 50)), outputs=sc.arg("z"))
    def model(x, y):
        return (x.T[::-1, ::2].T @ y[:, ::2]).sum(axis=0) + sc.concat([x[0, :10], x[1, :15]])

    assert model.outputs == [("z", (25,), "float64")]

    text = model.mlir()
    for op in ("expr.transpose", "expr.slice", "expr.matmul", "expr.reduce", "expr.concat"):
        assert op in text, op
    assert "expr.gather" not in text
    assert len(text) < 3000


# ---------------------------------------------------------------------------
# exported C modules with loops, compiled by gcc and clang
# ---------------------------------------------------------------------------

def _model_f64():
    @sc.function(sc.arg("x", (20, 30)), sc.arg("y", (30, 10)), sc.arg("v", (40,)),
                 outputs=tuple(sc.arg(n) for n in ("p", "t", "s", "c", "e", "b", "r")))
    def large_f64(x, y, v):
        return (x @ y,
                x.T[::-1, 1::2],
                x.sum(axis=0) + x.max(axis=1).sum(),
                sc.concat([x, y.T], axis=0).min(axis=1),
                (2 * v).sin() + 1,
                v[:, None] * v[None, ::-1],
                v.sum() + v.prod() * 0 + x[::-1, ::3].mean())

    rng = np.random.default_rng(11)
    x, y, v = rng.normal(size=(20, 30)), rng.normal(size=(30, 10)), rng.normal(size=40)
    want = (x @ y, x.T[::-1, 1::2], x.sum(axis=0) + x.max(axis=1).sum(),
            np.concatenate([x, y.T], axis=0).min(axis=1), np.sin(2 * v) + 1,
            v[:, None] * v[None, ::-1], v.sum() + v.prod() * 0 + x[::-1, ::3].mean())
    return large_f64, (x, y, v), want


def _model_f32():
    @sc.function(sc.arg("a", (4, 5, 6), dtype="float32"), sc.arg("b", (6, 7), dtype="float32"),
                 outputs=tuple(sc.arg(n) for n in ("m", "t", "j", "r")))
    def large_f32(a, b):
        return (a @ b, a.transpose(2, 0, 1) * 0.5, sc.stack([a, a[::-1]], axis=2),
                a.sum(axis=(0, 2)) + a.min())

    rng = np.random.default_rng(12)
    a = rng.normal(size=(4, 5, 6)).astype(np.float32)
    b = rng.normal(size=(6, 7)).astype(np.float32)
    want = (a @ b, a.transpose(2, 0, 1) * np.float32(0.5), np.stack([a, a[::-1]], axis=2),
            a.sum(axis=(0, 2)) + a.min())
    return large_f32, (a, b), want


def _model_mixed():
    @sc.function(sc.arg("i", (10, 12), dtype="int32"), sc.arg("f", (12,), dtype="float32"),
                 sc.arg("k", (100,), dtype="int64"),
                 outputs=tuple(sc.arg(n) for n in ("s", "p", "q", "w", "g")))
    def large_mixed(i, f, k):
        return (i.sum(axis=1), i + f, i.T[::-1] @ i, k.max() + k[::-1] * 2,
                (i > 0).astype("int32").sum(axis=0) > 5)

    rng = np.random.default_rng(13)
    i = rng.integers(-5, 6, size=(10, 12)).astype(np.int32)
    f = rng.normal(size=12).astype(np.float32)
    k = rng.integers(-100, 100, size=100).astype(np.int64)
    want = (i.sum(axis=1), i + f, i.T[::-1] @ i, k.max() + k[::-1] * 2,
            (i > 0).astype(np.int32).sum(axis=0) > 5)
    return large_mixed, (i, f, k), want


MODELS = {"f64": _model_f64, "f32": _model_f32, "mixed": _model_mixed}
BUILDS = [(m, c, False) for m in MODELS for c in cdriver.COMPILERS] + [("mixed", "gcc", True)]


@pytest.mark.parametrize("model,compiler,sanitize", BUILDS)
def test_exported_c_matches_numpy(model, compiler, sanitize, workdir):
    fn, inputs, want = MODELS[model]()
    src = cdriver.render_c_module(fn).source
    assert "for (" in src  # large arrays are loops, not one scalar per element
    got = cdriver.build(fn, workdir, compiler=compiler, sanitize=sanitize).run(*inputs)
    assert len(got) == len(want)
    for (name, _, dtype), g, w in zip(fn.outputs, got, want):
        w = np.asarray(w)
        assert g.shape == w.shape, name
        assert np.dtype(dtype) == w.dtype, (name, dtype, w.dtype)
        if w.dtype.kind in "biu":
            np.testing.assert_array_equal(g, w, err_msg=name)
        else:
            np.testing.assert_allclose(g, w, err_msg=name, **_tol(w.dtype.name))


def test_small_operand_of_a_loop_is_spilled_once_before_it(cache):
    # A small array read at computed offsets inside a loop nest is written to the
    # workspace once, before the nest, and later uses read that same copy.
    @sc.function(sc.arg("x", (3, 1)), sc.arg("y", (1, 400)), outputs=(sc.arg("a"), sc.arg("b")))
    def f(x, y):
        x2 = x * 2.0
        a = x2 + y
        return a * a.sum(), x2 * 3.0

    source = render_c_module(f).source
    body = source[source.index("int f("):]
    first_loop = body.index("for (")
    assert body.count("t0[2] = ") == 1 and body.index("t0[2] = ") < first_loop
    x, y = np.linspace(-1, 1, 3).reshape(3, 1), np.linspace(0, 2, 400).reshape(1, 400)
    a, b = f(x, y)
    expected = 2 * x + y
    np.testing.assert_allclose(a, expected * expected.sum(), rtol=1e-13)
    np.testing.assert_array_equal(b, 6 * x)


def test_large_bool_and_int64_constants_read_from_tables():
    # Above the scalarization limit constants are static tables: a bool reads 1, not -1,
    # and INT64_MIN prints without a literal that does not fit.
    n = 100
    mask = np.arange(n) % 3 == 0
    big = np.where(np.arange(n) % 2 == 0, np.iinfo(np.int64).min, 7).astype(np.int64)

    @sc.function(sc.arg("x", n), sc.arg("k", n, "int64"),
                 outputs=(sc.arg("b"), sc.arg("c"), sc.arg("d"), sc.arg("e")))
    def tables(x, k):
        pos = x > 0
        return (sc.where(pos == mask, 1.0, 0.0), sc.where(pos ^ mask, 1.0, 0.0),
                x * sc.cast(as_expr(mask, x._g), "float64"), k + big)

    x = np.random.default_rng(5).normal(size=n)
    k = np.arange(n, dtype=np.int64)
    b, c, d, e = tables(x, k)
    np.testing.assert_array_equal(b, np.where((x > 0) == mask, 1.0, 0.0))
    np.testing.assert_array_equal(c, np.where((x > 0) ^ mask, 1.0, 0.0))
    np.testing.assert_array_equal(d, x * mask)
    np.testing.assert_array_equal(e, k + big)


@pytest.mark.parametrize("dtype", FLOATS)
def test_matrix_vector_product_sums_each_row_in_order(dtype, cache):
    """A float matrix times a vector runs scaly_matvec (four rows at a time), which sums each
    row as the matrix product's helper does: from 0, left to right. Bit for bit that order,
    computed here in NumPy one column at a time; 130 rows leave two after the blocks of
    four, and a 1 x k matrix has no block at all."""
    for m, k in ((130, 70), (1, 9)):
        @sc.function(sc.arg("a", (m, k), dtype), sc.arg("x", k, dtype), outputs=sc.arg("y"))
        def mv(a, x):
            return a @ x

        rng = np.random.default_rng(m)
        a, x = rng.standard_normal((m, k)).astype(dtype), rng.standard_normal(k).astype(dtype)
        in_order = np.zeros(m, dtype)
        for p in range(k):
            in_order = in_order + a[:, p] * x[p]
        assert mv(a, x).tobytes() == in_order.tobytes()
        if m * k > SMALL_LIMIT:  # smaller ones are scalarized: no helper
            assert f"scaly_matvec_{'f64' if dtype == 'float64' else 'f32'}(" in \
                render_c_module(mv).source
