"""Loop strategies of the structured lowering (issue 30): reductions over one non-last axis
into a large result accumulate rows into the result (NumPy's own order: bit for bit equal to
np.sum / np.max over that axis). Checked against NumPy with 1 x N and N x 1 arrays, three
axes, fused expressions, NaN, integers and inside vmapped functions. Results computed with
arithmetic through a transpose are written in 4 x 4 register blocks: checked at sizes that are
and are not multiples of 4, 1 x N, N x 1, float32, with broadcasts and three axes; large ones
streamed with nontemporal stores: whole lines into 64-byte aligned results, element by element
into results whose rows are not whole lines, at every result alignment, in C compiled by GCC
and Clang."""

import numpy as np
import pytest

import scaly as sc
from scaly.codegen import render_c_module


def cdriver_compilers():
    import cdriver
    return cdriver.COMPILERS


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


def test_transposed_copy_is_written_in_blocks(cache):
    f = fn(lambda x: x.T + 0, [(102, 70)], "tblocks")
    source = render_c_module(f).source
    assert "for (long long i = 0; i < 68; i += 4)" in source  # 70 result rows, 17 blocks
    assert "for (long long j = 0; j < 100; j += 4)" in source  # 102 columns, 25 blocks
    assert "= (double4){b00, b01, b02, b03};" in source
    g = fn(lambda x: (x.T * 2.0).sin(), [(102, 70)], "tsin_plain")
    assert "b00" not in render_c_module(g).source  # libm: the plain nest, widened by lanes


def test_blocked_transposes_other_dtypes_and_broadcasts(cache):
    f = fn(lambda x: x.T * 3.0 - 1.0, [((37, 45), "float32")], "tf32")
    x = np.random.default_rng(9).standard_normal((37, 45)).astype(np.float32)
    np.testing.assert_array_equal(f(x), x.T * np.float32(3.0) - np.float32(1.0))
    g = fn(lambda x, v: x.T + v, [(50, 30), (50,)], "tbcast")
    x, v = np.random.default_rng(10).standard_normal((50, 30)), np.arange(50.0)
    np.testing.assert_array_equal(g(x, v), x.T + v)
    h = fn(lambda x, y: x.T - y[2:, ::2], [(41, 43), (45, 82)], "tslice")
    x, y = np.random.default_rng(11).standard_normal((41, 43)), np.random.default_rng(12).standard_normal((45, 82))
    np.testing.assert_array_equal(h(x, y), x.T - y[2:, ::2])


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


# Streamed blocks: an output of at least 1 MiB whose rows are whole 64-byte lines, read
# through a transpose, is written with nontemporal stores of whole lines when the result
# buffer is 64-byte aligned (tested at run time), in 4 x 4 blocks otherwise.
STREAM_CASES = [
    ("tstream", lambda x: x.T + 0, [(512, 256)]),            # 256 x 512 float64, 1 MiB
    ("tstream_rows", lambda x: x.T * 2.0, [(512, 258)]),     # 258 rows: 2 left over
    ("tstream_f32", lambda x: x.T - 1.0, [((528, 512), "float32")]),
    ("tstream_3d", lambda x: x.transpose((0, 2, 1)) + 1.0, [(2, 512, 136)]),
    ("tstream_fused", lambda x, y: 2.0 * x.T - y, [(512, 256), (256, 512)]),
]


def _inputs(shapes, seed):
    rng = np.random.default_rng(seed)
    out = []
    for s in shapes:
        shape, dtype = (s[0], s[1]) if isinstance(s[-1], str) else (s, "float64")
        out.append(rng.standard_normal(shape).astype(dtype))
    return out


def _reference(expr, xs):
    return expr(*xs)


@pytest.mark.parametrize("name,expr,shapes", STREAM_CASES)
def test_large_transposes_stream_into_aligned_outputs(name, expr, shapes, cache):
    f = fn(expr, shapes, name)
    source = render_c_module(f).source
    assert "& 63) == 0) {" in source
    width = 8 if "f32" in name else 4
    scalar = "float" if "f32" in name else "double"
    assert f"SCALY_STREAM_STORE(({scalar}{width}_aligned*)" in source
    xs = _inputs(shapes, 3)
    y = f(*xs)
    np.testing.assert_array_equal(y, _reference(expr, xs))
    # The call made the output on a cache line, owning its data like np.empty's.
    assert y.ctypes.data % 64 == 0 and y.flags.owndata and y.base is None


def test_small_results_are_not_streamed(cache):
    small = fn(lambda x: x.T + 0, [(300, 200)], "tsmall")     # 480 kB
    assert "SCALY_STREAM_STORE" not in render_c_module(small).source


# Rows that are not whole lines: 4 x 4 blocks in tiles of 256 columns, each block row one
# element-aligned streaming store, with no alignment test.
ELEMENT_STREAM_CASES = [
    ("toddrows", lambda x: x.T + 0, [(514, 300)]),                  # 514 doubles a row
    ("tpartial", lambda x: -x.T, [(300, 461)]),                     # a partial tile, a row left
    ("todd_f32", lambda x: x.T * 3.0, [((515, 523), "float32")]),   # odd both ways
]


@pytest.mark.parametrize("name,expr,shapes", ELEMENT_STREAM_CASES)
def test_rows_that_are_not_lines_stream_element_by_element(name, expr, shapes, cache):
    f = fn(expr, shapes, name)
    source = render_c_module(f).source
    assert "& 63) == 0) {" not in source
    scalar = "float" if "f32" in name else "double"
    assert f"SCALY_STREAM_STORE(({scalar}4*)" in source
    xs = _inputs(shapes, 4)
    np.testing.assert_array_equal(f(*xs), _reference(expr, xs))


@pytest.mark.skipif(not cdriver_compilers(), reason="no C compiler")
@pytest.mark.parametrize("compiler", cdriver_compilers())
def test_streamed_c_is_right_at_every_result_alignment(compiler, tmp_path, cache):
    """The exported C, compiled warning-free by GCC (plain stores: no nontemporal builtin)
    and Clang, called through ctypes with the result 0, one element, 16 and 32 bytes past a
    64-byte boundary: the whole-line nest runs only at 0, the element-aligned one (rows that
    are not lines, float32) at every offset, and every call equals NumPy."""
    for name, expr, shapes in (STREAM_CASES[4], ELEMENT_STREAM_CASES[2]):
        _check_c_at_alignments(compiler, tmp_path, fn(expr, shapes, name + "_c"), expr, shapes)


def _check_c_at_alignments(compiler, tmp_path, f, expr, shapes):
    """Compile `f`'s exported C with `compiler` and compare its results, written at several
    offsets from a 64-byte boundary, with NumPy's."""
    import ctypes
    import subprocess
    render_c_module(f).write(str(tmp_path))
    lib = tmp_path / f"{f.name}_{compiler}.so"
    subprocess.run([compiler, "-O3", "-Wall", "-Wextra", "-Werror", "-shared", "-fPIC",
                    str(tmp_path / f"{f.name}.c"), "-o", str(lib)], check=True)
    entry = getattr(ctypes.CDLL(str(lib)), f.name)
    xs = _inputs(shapes, 5)
    want = _reference(expr, xs)
    size = want.itemsize
    for offset in (0, size, 16, 32):
        buf = np.zeros(want.size + 128 // size, dtype=want.dtype)
        start = (-buf.ctypes.data % 64 + offset) // size
        out = buf[start:start + want.size].reshape(want.shape)
        arg = (ctypes.c_void_p * 2)(*[x.ctypes.data for x in xs])
        res = (ctypes.c_void_p * 1)(out.ctypes.data)
        assert entry(arg, res, None, None, 0) == 0
        np.testing.assert_array_equal(out, want)


@pytest.mark.parametrize("n", [8191, 8192, 8193, 16384, 20000, 100001])
@pytest.mark.parametrize("dtype", ["float64", "float32"])
def test_sums_of_computed_values_go_block_by_block(n, dtype, cache):
    """A float sum of everything computed where it is read (a fused chain, sumsqr) is
    computed one block of 8192 at a time into one window and summed there: bit for bit
    np.sum of the materialized product (NumPy's own blocks), with a workspace of one block
    whatever n."""
    @sc.function(sc.arg("x", n, dtype=dtype), sc.arg("y", n, dtype=dtype),
                 outputs=(sc.arg("d"), sc.arg("s")))
    def blocked(x, y):
        return ((x - 1) * y + 0.5).sum(), sc.sumsqr(x) * 2
    rng = np.random.default_rng(n)
    for scale in (1.0, 1e6):
        x = (rng.standard_normal(n) * scale).astype(dtype)
        y = rng.uniform(0, 1, n).astype(dtype)
        d, s = blocked(x, y)
        expected = np.sum((x - 1) * y + np.asarray(0.5, dtype))
        assert d.tobytes() == expected.tobytes(), (float(d), float(expected))
        assert s.tobytes() == (np.sum(x * x) * np.asarray(2, dtype)).tobytes()
    module = render_c_module(blocked)
    (info,) = module.entries
    itemsize = np.dtype(dtype).itemsize
    assert info.workspace_bytes <= 2 * 8192 * itemsize + 128  # one block per sum, aligned
    import re
    block_sums = re.findall(r"scaly_sum_f(?:64|32)\(\w+, 8192, 1\)", module.source)
    assert len(block_sums) == (2 if n >= 8192 else 0)
    assert ("for (long long block = 0;" in module.source) == (n >= 2 * 8192)
