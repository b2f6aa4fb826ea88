"""Loop strategies of the structured lowering (issue 30): reductions over one non-last axis
into a large result accumulate rows into the result (NumPy's own order: bit for bit equal to
np.sum / np.max over that axis). Checked against NumPy with 1 x N and N x 1 arrays, three
axes, fused expressions, NaN, integers and inside vmapped functions; transposed copies (the
plain nest) at sizes around a 32-element tile."""

import numpy as np
import pytest

import scaly as sc
from scaly.codegen import render_c_module


def fn(expr, shapes, name):
    if len(shapes) == 1:
        def body(x0):
            return expr(x0)
    else:
        def body(x0, x1):
            return expr(x0, x1)
    body.__name__ = name
    args = [sc.arg(f"x{k}", *(s if isinstance(s[-1], str) else (s,)))
            for k, s in enumerate(shapes)]
    return sc.function(*args, outputs=sc.arg("y"))(body)


COLUMN_CASES = [
    ((2000, 300), 0), ((300, 2000), 0), ((33, 100), 0), ((100, 65), 0), ((1, 500), 0),
    ((500, 1), 0), ((7, 40, 30), 1), ((40, 7, 30), 0), ((5, 6, 70), 0), ((3, 200, 1), 1),
]


@pytest.mark.parametrize("shape,axis", COLUMN_CASES)
@pytest.mark.parametrize("kind", ["sum", "max", "min", "prod"])
def test_column_reductions_match_numpy(shape, axis, kind, cache):
    f = fn(lambda x: getattr(x, kind)(axis=axis), [shape],
           f"col_{kind}_{'x'.join(map(str, shape))}_{axis}")
    rng = np.random.default_rng(sum(shape))
    x = rng.standard_normal(shape)
    if kind == "prod":
        x = 1.0 + 0.01 * x
    want = getattr(x, kind)(axis=axis)
    got = f(x)
    np.testing.assert_allclose(got, want, rtol=1e-13, atol=1e-13)
    if want.size > 64 and shape[axis] > 1 and np.prod(shape[axis + 1:]) > 1:
        # Row accumulation (the result is large) is NumPy's order: the same bits.
        np.testing.assert_array_equal(got, want)


def test_column_sum_loop_structure(cache):
    f = fn(lambda x: x.sum(axis=0), [(400, 300)], "colsum_structure")
    source = render_c_module(f).source
    assert "reduce_sum" not in source.split("int colsum_structure(")[1]
    # Row 0 initializes the result; rows 1..396 are added four at a time, in order, then
    # rows 397..399 one by one.
    assert "for (long long r = 1; r < 397; r += 4)" in source
    assert "r_ = 397; r_ < 400; ++r_)" in source


def test_fused_and_integer_column_sums(cache):
    f = fn(lambda x: (x * x + 1.0).sum(axis=0), [(300, 200)], "colsum_fused")
    x = np.random.default_rng(3).standard_normal((300, 200))
    np.testing.assert_array_equal(f(x), (x * x + 1.0).sum(axis=0))
    g = fn(lambda i: i.sum(axis=0), [((300, 200), "int64")], "colsum_int")
    i = np.random.default_rng(4).integers(-1000, 1000, (300, 200))
    np.testing.assert_array_equal(g(i), i.sum(axis=0))
    h = fn(lambda x: x.max(axis=0), [(100, 100)], "colmax_nan")
    x = np.random.default_rng(5).standard_normal((100, 100))
    x[50, 3] = np.nan
    x[0, 7] = np.nan
    np.testing.assert_array_equal(h(x), x.max(axis=0))


TRANSPOSE_SHAPES = [(2000, 300), (64, 64), (100, 70), (33, 95), (31, 500), (1, 500), (500, 1),
                    (97, 1), (40, 33)]


@pytest.mark.parametrize("shape", TRANSPOSE_SHAPES)
def test_transposed_copies_match_numpy(shape, cache):
    f = fn(lambda x: x.T + 0, [shape], f"tplus_{shape[0]}_{shape[1]}")
    g = fn(lambda x, y: (x.T * 2.0).sin() + y, [shape, shape[::-1]], f"tfused_{shape[0]}_{shape[1]}")
    rng = np.random.default_rng(shape[0])
    x, y = rng.standard_normal(shape), rng.standard_normal(shape[::-1])
    np.testing.assert_array_equal(f(x), x.T + 0)
    np.testing.assert_allclose(g(x, y), np.sin(x.T * 2.0) + y, rtol=1e-14, atol=1e-14)


def test_three_axes_transposes(cache):
    for perm in [(0, 2, 1), (2, 1, 0), (1, 2, 0), (1, 0, 2)]:
        f = fn(lambda x, p=perm: x.transpose(p) - 1.0, [(3, 40, 70)],
               "t3_" + "".join(map(str, perm)))
        x = np.random.default_rng(7).standard_normal((3, 40, 70))
        np.testing.assert_array_equal(f(x), x.transpose(perm) - 1.0)


def test_vmapped_column_sums_and_transposes(cache):
    @sc.function(sc.arg("m", (80, 70)), outputs=(sc.arg("s", 70), sc.arg("t", (70, 80))))
    def per(m):
        return m.sum(axis=0), m.T * 3.0

    @sc.function(sc.arg("ms", (5, 80, 70)), outputs=(sc.arg("s", (5, 70)), sc.arg("t", (5, 70, 80))))
    def batched(ms):
        return sc.vmap(per, 5)(ms)

    @sc.function(sc.arg("ms", (5, 80, 70)), outputs=sc.arg("s", (80, 70)))
    def across(ms):
        return ms.sum(axis=0)

    ms = np.random.default_rng(8).standard_normal((5, 80, 70))
    s, t = batched(ms)
    np.testing.assert_array_equal(s, ms.sum(axis=1))
    np.testing.assert_array_equal(t, ms.transpose(0, 2, 1) * 3.0)
    np.testing.assert_array_equal(across(ms), ms.sum(axis=0))
