"""Sparsity: colourings, large n without unrolling, the rendered C header tables and
bad input (see test_sparsity.py for the references used; helpers in symbolic.py).
"""

import functools
import re
import shutil
import subprocess
import time

import numpy as np
import pytest
import scipy.sparse

import scaly as sc
from scaly import _scaly
from scaly.codegen import render_c_module
from symbolic import (SPARSE_TIGHT, adjacency, assert_same_pattern, assert_star_colouring,
                      assert_star_recovery, build, column_sets, luksan_chain,
                      luksan_jacobian_numpy, pattern_function, rng)


@pytest.fixture(scope="module", autouse=True)
def private_cache(tmp_path_factory):
    """A private JIT cache for the module: the tests never touch the user's cache."""
    patch = pytest.MonkeyPatch()
    patch.setenv("SCALY_CACHE_DIR", str(tmp_path_factory.mktemp("sparsity-colourings-cache")))
    patch.delenv("SCALY_CC", raising=False)
    patch.delenv("SCALY_CC_OPT", raising=False)
    yield
    patch.undo()


# ---------------------------------------------------------------------------
# 3. Colouring quality and correctness
# ---------------------------------------------------------------------------

def assert_column_colouring(colind, row, nrow, ncol, colours):
    """No two columns of one colour share a row (each sweep recovers its entries exactly)."""
    colours = np.asarray(colours)
    assert colours.shape == (ncol,) and colours.min() >= 0
    seen = {}
    for j, rows in enumerate(column_sets(colind, row, ncol)):
        for i in rows:
            key = (i, int(colours[j]))
            assert key not in seen, f"columns {seen[key]} and {j} share row {i} and colour"
            seen[key] = j


def banded_pattern(nrow, ncol, offsets):
    return scipy.sparse.diags([np.ones(ncol) for _ in offsets], offsets,
                              shape=(nrow, ncol), format="csc")


def test_banded_chain_needs_bandwidth_forward_sweeps():
    n = 200
    S = sc.jacobian_sparsity(luksan_chain(n))
    band = banded_pattern(n - 2, n, [0, 1, 2])
    band.sort_indices()
    np.testing.assert_array_equal(S.indptr, band.indptr)
    np.testing.assert_array_equal(S.indices, band.indices)
    colours = np.asarray(_scaly.colour_columns(n - 2, n, S.indptr.tolist(), S.indices.tolist()))
    assert colours.max() + 1 <= 3, f"{colours.max() + 1} forward sweeps for bandwidth 3"
    assert_column_colouring(S.indptr, S.indices, n - 2, n, colours)
    rows = np.asarray(_scaly.colour_rows(n - 2, n, S.indptr.tolist(), S.indices.tolist()))
    St = S.T.tocsc()
    St.sort_indices()
    assert_column_colouring(St.indptr, St.indices, n, n - 2, rows)
    # The public result at this size is right too.
    x = rng(6).uniform(-1, 1, n)
    M = sc.jacobian(luksan_chain(n), layout="csc")(x)
    np.testing.assert_allclose(M.toarray(), luksan_jacobian_numpy(x).toarray(), **SPARSE_TIGHT)


def test_colouring_checkers_reject_bad_colourings():
    """The references above are not vacuous: they catch the faults they look for."""
    # A path 0-1-2-3 with diagonal: the distance-1 colouring 0,1,0,1 is not a star colouring.
    P = scipy.sparse.diags([np.ones(3), np.ones(4), np.ones(3)], [-1, 0, 1], format="csc")
    P.sort_indices()
    with pytest.raises(AssertionError, match="two-coloured path"):
        assert_star_colouring(4, P.indptr, P.indices, [0, 1, 0, 1])
    with pytest.raises(AssertionError, match="adjacent"):
        assert_star_colouring(4, P.indptr, P.indices, [0, 0, 1, 2])
    assert_star_colouring(4, P.indptr, P.indices, [0, 1, 2, 0])
    # Entry (1, 2) read from row 1 needs column 2 alone in its colour among 0, 1, 2.
    flags = np.ones(P.nnz, bool)
    with pytest.raises(AssertionError):
        assert_star_recovery(4, P.indptr, P.indices, [0, 1, 0, 2], flags)
    with pytest.raises(AssertionError, match="share row"):
        assert_column_colouring(P.indptr, P.indices, 4, 4, [0, 1, 1, 0])


def test_tridiagonal_hessian_star_colouring():
    n = 40

    def body(m, x):
        a, b = x[:-1], x[1:]
        return m.sum(100.0 * (a * a - b) ** 2 + (a - 1.0) ** 2)

    f = build("tri_obj", [("x", n)], body)
    H = sc.hessian(f, layout="csc")
    shape, colind, row = H.sparsity()
    tri = banded_pattern(n, n, [-1, 0, 1])
    tri.sort_indices()
    np.testing.assert_array_equal(colind, tri.indptr)
    np.testing.assert_array_equal(row, tri.indices)
    colours, from_row = _scaly.star_colouring(n, list(map(int, colind)), list(map(int, row)))
    index = _scaly.EntryPositions(n, n, colind, row, colours, True, from_row)
    assert max(colours) + 1 <= 3, f"{max(colours) + 1} colours for a tridiagonal Hessian"
    assert_star_colouring(n, colind, row, colours)
    assert_star_recovery(n, np.asarray(colind), np.asarray(row), colours, from_row)
    assert_product_index(n, np.asarray(colind), np.asarray(row), colours, from_row, index)
    x = rng(7).uniform(-1, 1, n)
    a, b = x[:-1], x[1:]
    ref = np.zeros((n, n))
    ref[np.arange(n - 1), np.arange(n - 1)] += 1200 * a * a - 400 * b + 2
    ref[np.arange(1, n), np.arange(1, n)] += 200
    ref[np.arange(n - 1), np.arange(1, n)] = ref[np.arange(1, n), np.arange(n - 1)] = -400 * a
    np.testing.assert_allclose(H(x).toarray(), ref, rtol=1e-12, atol=1e-10)


def assert_product_index(n, colind, row, colours, from_row, index):
    """Entry (i, j) is read at colour[j] * n + i from its own row, else at colour[i] * n + j."""
    colours = np.asarray(colours)
    for j in range(n):
        for k in range(colind[j], colind[j + 1]):
            i = row[k]
            want = colours[j] * n + i if from_row[k] else colours[i] * n + j
            assert index[k] == want, f"entry ({i}, {j})"


def random_symmetric_pattern(n, density, seed):
    r = rng(seed)
    upper = np.triu(r.random((n, n)) < density, 1)
    A = upper | upper.T | np.eye(n, dtype=bool)
    M = scipy.sparse.csc_matrix(A.astype(float))
    M.sort_indices()
    return M


@pytest.mark.parametrize("seed,n,density", [(2024, 60, 0.06), (7, 45, 0.15), (1, 30, 0.02)])
def test_random_symmetric_star_colouring(seed, n, density):
    M = random_symmetric_pattern(n, density, seed)
    colind, row = M.indptr, M.indices
    colours, from_row = _scaly.star_colouring(n, colind.tolist(), row.tolist())
    index = _scaly.EntryPositions(n, n, colind, row, colours, True, from_row)
    assert len(colours) == n
    assert_star_colouring(n, colind, row, colours)
    assert_star_recovery(n, colind, row, colours, from_row)
    assert_product_index(n, colind, row, colours, from_row, index)
    # The same pattern with each column's rows out of order: another walk,
    # the same colouring and valid recoveries.
    shuffled, shuffle = row.copy(), rng(seed + 1)
    for j in range(n):
        shuffle.shuffle(shuffled[colind[j]:colind[j + 1]])
    assert not np.array_equal(shuffled, row)
    again, again_from_row = _scaly.star_colouring(n, colind, shuffled)
    again_index = _scaly.EntryPositions(n, n, colind, shuffled, again, True, again_from_row)
    np.testing.assert_array_equal(again, colours)
    assert_star_recovery(n, colind, shuffled, again, again_from_row)
    assert_product_index(n, colind, shuffled, again, again_from_row, again_index)
    # Far fewer colours than vertices for these sparse patterns.
    degree = max(len(s) for s in adjacency(n, colind, row))
    assert max(colours) + 1 <= degree * degree + 1
    # The greedy colourings of the same pattern as a Jacobian are valid too.
    c = _scaly.colour_columns(n, n, colind.tolist(), row.tolist())
    assert_column_colouring(colind, row, n, n, c)
    rws = _scaly.colour_rows(n, n, colind.tolist(), row.tolist())
    assert_column_colouring(colind, row, n, n, rws)  # symmetric: rows are columns


@pytest.mark.parametrize("seed,n,density", [(3, 40, 0.08), (11, 25, 0.3), (5, 1, 1.0), (8, 30, 0.0)])
def test_symmetric_pattern_is_the_union_with_the_transpose(seed, n, density):
    # A Hessian's pattern: the analysis' pattern united with its transpose,
    # against SciPy's A + A.T (rows ascending within each column).
    A = scipy.sparse.random(n, n, density=density, random_state=rng(seed), format="csc")
    A.sort_indices()
    nrow, ncol, colind, row = _scaly.symmetric_pattern(n, n, A.indptr.astype(np.int64),
                                                       A.indices.astype(np.int64))
    want = (abs(A) + abs(A.T)).tocsc()
    want.sort_indices()
    assert (nrow, ncol) == (n, n)
    np.testing.assert_array_equal(colind, want.indptr)
    np.testing.assert_array_equal(row, want.indices)


def test_symmetric_pattern_refuses_unsorted_rows():
    with pytest.raises(ValueError, match="rows must ascend within each column"):
        _scaly.symmetric_pattern(3, 3, np.array([0, 2, 2, 2]), np.array([1, 0]))
    with pytest.raises(ValueError, match="from 0 to nnz"):
        _scaly.symmetric_pattern(3, 3, np.array([0, 2, 2, 3]), np.array([0, 1]))
    with pytest.raises(ValueError, match="needs a square pattern"):
        _scaly.symmetric_pattern(2, 3, np.array([0, 1, 1, 2]), np.array([0, 1]))


def test_index_tables_are_int32_and_checked_not_wrapped():
    # int32 arrays are read in place; int64 arrays and lists are converted
    # once their values are known to fit, and anything else is refused.
    colind, row = np.array([0, 1, 2, 3]), np.array([0, 1, 2])
    for c, r in ((colind, row), (colind.astype(np.int32), row.astype(np.int32)),
                 (colind.tolist(), row.tolist()), (colind.astype(np.uint16), row)):
        colours = _scaly.colour_columns(3, 3, c, r)
        assert colours.dtype == np.int32 and list(colours) == [0, 0, 0]
    # 2^32 + 1 would wrap to row 1, which is in range: refused, not read as 1.
    with pytest.raises(ValueError, match="pattern: row holds values outside 32 bits"):
        _scaly.colour_columns(3, 3, colind, np.array([0, 2**32 + 1, 2]))
    with pytest.raises(ValueError, match="pattern: colind must hold integers, got float64"):
        _scaly.colour_rows(3, 3, colind.astype(float), row)
    with pytest.raises(ValueError, match="pattern: row must be one-dimensional"):
        _scaly.compress_jacobian(3, 3, colind, row.reshape(3, 1))
    with pytest.raises(ValueError, match="nrow and ncol must fit 32 bits"):
        _scaly.colour_columns(2**31, 3, colind, row)
    with pytest.raises(ValueError, match="colours holds values outside 32 bits"):
        _scaly.EntryPositions(3, 3, colind, row, np.array([0, 2**40, 0]), True)
    # A Function's published tables are int32 too, shared with its pattern.
    @sc.function(sc.arg("x", 5), outputs=sc.arg("y"))
    def chain(x):
        return x[1:] * x[:-1]

    J = sc.jacobian(chain, layout="csc")
    shape, colind, row = J.sparsity()
    assert colind.dtype == row.dtype == np.int32 and not row.flags.writeable
    want = scipy.sparse.csc_matrix(np.eye(4, 5) + np.eye(4, 5, 1))
    assert shape == (4, 5)
    np.testing.assert_array_equal(colind, want.indptr)
    np.testing.assert_array_equal(row, want.indices)


def test_random_rectangular_colourings():
    r = rng(31)
    A = scipy.sparse.random(50, 70, density=0.05, random_state=r, format="csc")
    A.sort_indices()
    colind, row = A.indptr.tolist(), A.indices.tolist()
    c = _scaly.colour_columns(50, 70, colind, row)
    assert_column_colouring(A.indptr, A.indices, 50, 70, c)
    rws = _scaly.colour_rows(50, 70, colind, row)
    T = A.T.tocsc()
    T.sort_indices()
    assert_column_colouring(T.indptr, T.indices, 70, 50, rws)


def greedy_column_colours(A):
    """The greedy distance-2 colouring of A's columns in natural order, by sets."""
    rows = [set(A.indices[A.indptr[j]:A.indptr[j + 1]]) for j in range(A.shape[1])]
    colours = []
    for v in range(A.shape[1]):
        taken = {colours[w] for w in range(v) if rows[w] & rows[v]}
        colours.append(min(set(range(len(taken) + 1)) - taken))
    return colours


@pytest.mark.parametrize("nrow,ncol,density,seed", [
    (50, 70, 0.05, 31),   # few colours: each row's colours in a 32-bit mask
    (60, 45, 0.9, 5),     # 40 and more colours: the masks give up, the transpose colours
    (20, 34, 1.0, 1),     # the 33rd column takes colour 32, one past the masks
    (30, 0, 0.0, 1),      # no columns
])
def test_column_colouring_is_the_natural_order_greedy_one(nrow, ncol, density, seed):
    A = scipy.sparse.random(nrow, ncol, density=density, random_state=rng(seed), format="csc")
    A.sort_indices()
    want = greedy_column_colours(A)
    colours = _scaly.colour_columns(nrow, ncol, A.indptr, A.indices)
    np.testing.assert_array_equal(colours, want)
    colours, forward = _scaly.compress_jacobian(nrow, ncol, A.indptr, A.indices)
    if forward:
        np.testing.assert_array_equal(colours, want)


@pytest.mark.parametrize("nrow,ncol,density,seed", [
    (50, 70, 0.05, 31),   # wide: columns
    (70, 12, 0.3, 4),     # no more column colours than the fullest column: rows not coloured
    (40, 40, 0.0, 2),     # no entries
    (1, 30, 1.0, 9),      # one full row: reverse needs one sweep
    (3, 30, 1.0, 9),      # three full rows: reverse, three sweeps of 30 positions each
])
def test_compress_jacobian_picks_the_fewer_sweeps_and_places_each_entry(nrow, ncol, density,
                                                                        seed):
    A = scipy.sparse.random(nrow, ncol, density=density, random_state=rng(seed), format="csc")
    A.sort_indices()
    colind, row = A.indptr.astype(np.int64), A.indices.astype(np.int64)
    colours, forward = _scaly.compress_jacobian(nrow, ncol, colind, row)
    positions = _scaly.EntryPositions(nrow, ncol, colind, row, colours, forward)
    by_columns = np.asarray(_scaly.colour_columns(nrow, ncol, colind, row))
    by_rows = np.asarray(_scaly.colour_rows(nrow, ncol, colind, row))
    sweeps = lambda c: int(c.max()) + 1 if len(c) else 0  # noqa: E731
    # The greedy colourings themselves; rows only when they can need fewer.
    assert forward == (sweeps(by_columns) <= sweeps(by_rows))
    np.testing.assert_array_equal(colours, by_columns if forward else by_rows)
    if forward:
        assert_column_colouring(A.indptr, A.indices, nrow, ncol, colours)
    else:
        T = A.T.tocsc()
        T.sort_indices()
        assert_column_colouring(T.indptr, T.indices, ncol, nrow, colours)
    # Entry (i, j) of the product: at row i of sweep colour[j] (forward), or
    # at column j of sweep colour[i] (reverse).
    cols = np.repeat(np.arange(ncol), np.diff(colind))
    want = (np.asarray(colours)[cols] * nrow + row if forward
            else np.asarray(colours)[row] * ncol + cols)
    assert len(positions) == len(want)
    np.testing.assert_array_equal(np.asarray(positions), want)


# ---------------------------------------------------------------------------
# 4. Large n without unrolling
# ---------------------------------------------------------------------------

BIG_N = 100_000


@functools.lru_cache(maxsize=None)
def big_jacobian(n):
    return sc.jacobian(luksan_chain(n), layout="csc")


def test_large_chain_jacobian_builds_and_evaluates():
    start = time.perf_counter()
    J = big_jacobian(BIG_N)
    x = rng(8).uniform(-1, 1, BIG_N)
    M = J(x)
    elapsed = time.perf_counter() - start
    assert elapsed < 40, f"trace to values took {elapsed:.1f} s at n = {BIG_N}"
    assert isinstance(M, scipy.sparse.csc_matrix)
    assert M.shape == (BIG_N - 2, BIG_N) and M.nnz == 3 * (BIG_N - 2)
    assert M.has_sorted_indices
    ref = luksan_jacobian_numpy(x)
    ref.sort_indices()
    np.testing.assert_array_equal(M.indptr, ref.indptr)
    np.testing.assert_array_equal(M.indices, ref.indices)
    for k in (0, 1, 2, 12345, 54321, BIG_N - 4, BIG_N - 3):
        for j in (k, k + 1, k + 2):
            assert M[k, j] == pytest.approx(ref[k, j], rel=1e-12, abs=1e-13), (k, j)
    np.testing.assert_allclose(M.data, ref.data, rtol=1e-12, atol=1e-13)


def luksan_lagrangian_hessian_numpy(x, lam):
    """The analytic Hessian of lam . g for the luksan chain (tridiagonal: no (k, k+2) terms,
    since sin(x1 - x2) sin(x1 + x2) = sin^2 x1 - sin^2 x2)."""
    n = x.size
    x0, x1, x2 = x[:-2], x[1:-1], x[2:]
    e = np.exp(x0 - x1)
    diag = np.zeros(n)
    diag[:-2] += lam * -(2 + x0) * e
    diag[1:-1] += lam * (18 * x1 + 2 * np.cos(2 * x1) - x0 * e)
    diag[2:] += lam * -2 * np.cos(2 * x2)
    off = np.zeros(n - 1)
    off[:-1] += lam * (1 + x0) * e
    return scipy.sparse.diags([off, diag, off], [-1, 0, 1], format="csc")


def test_large_chain_lagrangian_hessian():
    n = BIG_N
    start = time.perf_counter()
    H = sc.hessian(luksan_chain(n), wrt="x", multipliers=True, layout="csc")
    r = rng(9)
    x, lam = r.uniform(-1, 1, n), r.uniform(-1, 1, n - 2)
    M = H(x, lam)
    elapsed = time.perf_counter() - start
    assert elapsed < 40, f"trace to values took {elapsed:.1f} s at n = {n}"
    shape, colind, row = H.sparsity()
    tri = banded_pattern(n, n, [-1, 0, 1])
    tri.sort_indices()
    np.testing.assert_array_equal(colind, tri.indptr)
    np.testing.assert_array_equal(row, tri.indices)
    np.testing.assert_array_equal(M.indptr, tri.indptr)
    np.testing.assert_array_equal(M.indices, tri.indices)
    ref = luksan_lagrangian_hessian_numpy(x, lam)
    D = (M - ref).tocsc()
    scale = np.abs(ref.data).max()
    assert np.abs(D.data).max() <= 1e-12 * scale
    for k in (0, 1, 777, n // 2, n - 2, n - 1):
        for j in (k - 1, k, k + 1):
            if 0 <= j < n:
                assert M[k, j] == pytest.approx(ref[k, j], rel=1e-12, abs=1e-12), (k, j)


def test_large_callee_called_twice_pattern():
    """A callee with more than 256 input elements is analysed with each call's own
    dependencies (not through a local pattern); the pattern is built by hand here."""
    n = 300

    @sc.function(sc.arg("x", n), sc.arg("y", n), outputs=sc.arg("z"))
    def shifted_product(x, y):  # z[i] = x[i+1] * y[i] (i < n-1), z[n-1] = sin(x[0])
        return sc.concat([x[1:] * y[:-1], sc.sin(x[:1])])

    @sc.function(sc.arg("x", n), outputs=sc.arg("out"))
    def twice(x):
        # The second call's y is 0 * x + 1: structurally constant, so it adds nothing.
        return shifted_product(x, x[::-1]) + 2 * shifted_product(x[::-1], 0 * x + 1)

    want = np.zeros((n, n), dtype=bool)
    for i in range(n - 1):
        want[i, [i + 1, n - 1 - i, n - 2 - i]] = True
    want[n - 1, [0, n - 1]] = True
    got = sc.jacobian_sparsity(twice).toarray() != 0
    assert_same_pattern(got, want, "twice")
    # The values agree with central differences at the stored entries only.
    J = sc.jacobian(twice, layout="csc")(x := rng(4).uniform(-1, 1, n)).toarray()
    assert np.array_equal(J != 0, want)
    h, e = 1e-6, np.eye(n)
    fd = np.column_stack([(twice(x + h * e[k]) - twice(x - h * e[k])) / (2 * h)
                          for k in (0, 1, n // 2, n - 1)])
    np.testing.assert_allclose(J[:, [0, 1, n // 2, n - 1]], fd, rtol=1e-6, atol=1e-8)


def _procedure_text(source):
    """The C source without the contents of static const tables, digit runs replaced."""
    out, in_table = [], False
    for line in source.splitlines():
        if in_table:
            if line.strip().startswith("};"):
                in_table = False
                out.append(line)
            continue
        if line.startswith("static const") and line.rstrip().endswith("= {"):
            in_table = True
        out.append(line)
    assert not in_table
    return re.sub(r"\d+", "#", "\n".join(out))


def test_large_render_differs_only_in_numbers():
    small = render_c_module(sc.jacobian(luksan_chain(1000), layout="csc"), name="jac")
    big = render_c_module(big_jacobian(BIG_N), name="jac")
    a, b = _procedure_text(small.source), _procedure_text(big.source)
    assert a == b
    assert len(a) < 20000, "the procedure grows with n: unrolled?"
    # Banded patterns give periodic colours and positions: built from broadcasts and
    # strided slices, so no table grows with n (only the header's pattern does).
    decl = re.compile(r"^static const \w+ (\w+)\[(\d+)\] = \{", re.M)
    small_tables, big_tables = decl.findall(small.source), decl.findall(big.source)
    assert [t for t, _ in small_tables] == [t for t, _ in big_tables]
    assert all(int(nb) < 1024 for _, nb in big_tables)
    assert len(big.source) < 2 * len(small.source)
    assert f"_NNZ {3 * (BIG_N - 2)}" in big.header


# ---------------------------------------------------------------------------
# 5. Header tables from a C driver (gcc and clang-19)
# ---------------------------------------------------------------------------

COMPILERS = [c for c in ("gcc", "clang-19") if shutil.which(c)]
WARN = ["-Wall", "-Wextra", "-Werror", "-O2"]


def c_driver(entry, out_name, args):
    """A driver printing the header's tables and the entry's values at `args` (float64)."""
    p = f"{entry}_{out_name}"
    inputs = "\n".join(
        f"  static const double in{i}[{max(a.size, 1)}] = "
        f"{{{', '.join(repr(float(v)) for v in np.ravel(a)) or '0'}}};"
        for i, a in enumerate(args))
    arg_list = ", ".join(f"in{i}" for i in range(len(args)))
    return f"""#include <stdio.h>
#include <stdlib.h>
#include "mod.h"

static const int colind[] = {p}_COLIND;
#ifdef {p}_ROW
static const int row[] = {p}_ROW;
#define ROW_LEN ((long)(sizeof row / sizeof row[0]))
#else
/* No stored values: the header defines no ROW table (an empty initializer is not C). */
static const int row[1] = {{0}};
#define ROW_LEN 0L
#endif

int main(void) {{
  if ((long)(sizeof colind / sizeof colind[0]) != {p}_NCOL + 1) return 10;
  if (ROW_LEN != {p}_NNZ) return 11;
  if (colind[{p}_NCOL] != {p}_NNZ) return 12;
{inputs}
  static double out[{p}_NNZ + 1];
  const double* arg[{entry}_SZ_ARG] = {{{arg_list}}};
  double* res[{entry}_SZ_RES] = {{out}};
  double* w = (double*)malloc(sizeof(double) * ({entry}_SZ_W + 1));
  int iw[{entry}_SZ_IW + 1];
  if (!w) return 13;
  int status = {entry}(arg, res, iw, w, 0);
  printf("status %d\\n", status);
  printf("shape %d %d %d\\n", {p}_NROW, {p}_NCOL, {p}_NNZ);
  printf("colind");
  for (int j = 0; j <= {p}_NCOL; ++j) printf(" %d", colind[j]);
  printf("\\nrow");
  for (int k = 0; k < {p}_NNZ; ++k) printf(" %d", row[k]);
  printf("\\nvalues");
  for (int k = 0; k < {p}_NNZ; ++k) printf(" %.17g", out[k]);
  printf("\\n");
  free(w);
  return 0;
}}
"""


@functools.lru_cache(maxsize=None)
def header_case(name):
    """(sparse Function, its arguments, (shape, colind, row) from an independent route)."""
    if name in ("gather_repeated", "floor_only"):
        f = pattern_function(name)
        S = sc.jacobian_sparsity(f)
        return sc.jacobian(f, layout="csc"), [np.array([0.7, -1.1, 0.4, 1.9, -0.6])], \
            (S.shape, S.indptr, S.indices)
    if name == "luksan80":  # above the scalarization limit: loops and static tables
        f = luksan_chain(80)
        S = sc.jacobian_sparsity(f)
        return sc.jacobian(f, layout="csc"), [rng(12).uniform(-1, 1, 80)], \
            (S.shape, S.indptr, S.indices)
    # The Lagrangian Hessian (two inputs): tridiagonal, see luksan_lagrangian_hessian_numpy.
    n = 30
    tri = banded_pattern(n, n, [-1, 0, 1])
    tri.sort_indices()
    H = sc.hessian(luksan_chain(n), wrt="x", multipliers=True, layout="csc")
    r = rng(13)
    return H, [r.uniform(-1, 1, n), r.uniform(-1, 1, n - 2)], (tri.shape, tri.indptr, tri.indices)


@pytest.mark.parametrize("cc", COMPILERS)
@pytest.mark.parametrize("name", ["gather_repeated", "luksan80", "floor_only", "hessian30"])
def test_header_tables_from_c(tmp_path, cc, name):
    J, args, (shape, colind, row) = header_case(name)
    mod = render_c_module(J, name="mod")
    mod.write(str(tmp_path))
    entry, out_name = J.name, J.outputs[0][0]
    nnz = len(row)
    for suffix in ("NROW", "NCOL", "NNZ", "COLIND") + (("ROW",) if nnz else ()):
        assert f"#define {entry}_{out_name}_{suffix} " in mod.header
    if not nnz:
        assert f"#define {entry}_{out_name}_ROW" not in mod.header
    assert f"#define {entry}_SZ_W " in mod.header
    (tmp_path / "driver.c").write_text(c_driver(entry, out_name, args))
    exe = tmp_path / f"drv_{cc}"
    build = subprocess.run([cc, *WARN, "-I", str(tmp_path), "-o", str(exe),
                            str(tmp_path / "driver.c"), str(tmp_path / "mod.c"), "-lm"],
                           capture_output=True, text=True)
    assert build.returncode == 0, build.stderr
    assert build.stderr == "", build.stderr
    run = subprocess.run([str(exe)], capture_output=True, text=True, timeout=60)
    assert run.returncode == 0, (run.returncode, run.stderr)
    lines = dict(line.split(" ", 1) if " " in line else (line, "")
                 for line in run.stdout.splitlines())
    assert lines["status"] == "0"
    assert [int(v) for v in lines["shape"].split()] == [shape[0], shape[1], nnz]
    np.testing.assert_array_equal([int(v) for v in lines["colind"].split()], colind)
    np.testing.assert_array_equal([int(v) for v in lines["row"].split()], row)
    values = np.array([float(v) for v in lines["values"].split()])
    M = J(*args)
    np.testing.assert_array_equal(M.indptr, colind)
    np.testing.assert_array_equal(M.indices, row)
    np.testing.assert_allclose(values, M.data, rtol=1e-13, atol=1e-15)
    if name == "hessian30":
        ref = luksan_lagrangian_hessian_numpy(*args)
        np.testing.assert_allclose(scipy.sparse.csc_matrix((values, row, colind), shape=shape)
                                   .toarray(), ref.toarray(), rtol=1e-12, atol=1e-12)


# ---------------------------------------------------------------------------
# 6. Bad input
# ---------------------------------------------------------------------------

@functools.lru_cache(maxsize=None)
def mixed_inputs():
    return build("mixed_int", [("x", 3), ("k", 3, "int64")],
                 lambda m, x, k: x * m.cast(k, "float64"))


@pytest.mark.parametrize("which", ["jacobian", "hessian"])
def test_bad_layouts(which):
    f = pattern_function("broadcast_partial") if which == "jacobian" else \
        build("bad_layout_h", [("x", 3)], lambda m, x: m.sum(x * x))
    kwargs = {"wrt": 0} if which == "jacobian" else {}
    with pytest.raises(ValueError, match="'bogus'"):
        getattr(sc, which)(f, layout="bogus", **kwargs)
    with pytest.raises(ValueError):
        getattr(sc, which)(f, layout=None, **kwargs)


def test_jacobian_sparsity_bad_inputs():
    f = mixed_inputs()
    with pytest.raises(TypeError, match="int64"):
        sc.jacobian_sparsity(f, wrt="k")
    with pytest.raises(TypeError, match="int64"):
        sc.jacobian_sparsity(f, wrt=1)
    with pytest.raises(TypeError):
        sc.jacobian_sparsity(3)
    with pytest.raises(ValueError, match="no input named"):
        sc.jacobian_sparsity(f, wrt="nope")
    S = sc.jacobian_sparsity(f, wrt="x")
    assert_same_pattern(S.toarray() != 0, np.eye(3, dtype=bool), "x * k")


def symmetric_cases():
    """Gradients whose Jacobians are banded (kept as bands), not symmetric as found
    (a one-sided product), or explicit (a gather and a reversed slice)."""
    banded = build("sym_banded", [("x", 9)],
                   lambda m, x: m.concat([x[1:] * x[:-1], x[:1] ** 2], axis=0))
    one_sided = build("sym_one_sided", [("x", 7)], lambda m, x: x * m.sin(x[0]) + x[::-1])
    explicit = build("sym_explicit", [("x", 6)],
                     lambda m, x: x[[3, 0, 5, 1, 1, 2]] * x + m.concat([x[::-2], x[4::-2]], axis=0) * 0.5)
    return [banded, one_sided, explicit]


@pytest.mark.parametrize("case", range(3), ids=["banded", "one_sided", "explicit"])
def test_symmetric_jacobian_pattern_is_the_union_with_the_transpose(case):
    # jacobian_pattern(symmetric=True), banded or not, is exactly the pattern united
    # with its transpose, computed here in NumPy from the plain pattern.
    f = symmetric_cases()[case]
    nrow, ncol, colind, row = _scaly.jacobian_pattern(f._traced, 0, 0)
    plain = dense_of(nrow, ncol, colind, row)
    nrow, ncol, colind, row = _scaly.jacobian_pattern(f._traced, 0, 0, symmetric=True)
    assert (nrow, ncol) == plain.shape
    for j in range(ncol):  # rows ascending within each column
        assert np.all(np.diff(row[colind[j]:colind[j + 1]]) > 0)
    assert_same_pattern(dense_of(nrow, ncol, colind, row), plain | plain.T, f.name)
    if case < 2:
        assert not np.array_equal(plain, plain.T), "the case must not be symmetric as found"


@pytest.mark.parametrize("forward", [True, False], ids=["forward", "reverse"])
def test_entry_positions_match_numpy_slice_by_slice(forward):
    # Entry (i, j) is read at colour[j] * nrow + i (forward) or colour[i] * ncol + j
    # (reverse), computed here in NumPy from the same colouring; any slice of
    # the positions is the same slice of that table.
    M = scipy.sparse.random(23, 31, density=0.15, random_state=5, format="csc")
    M.sort_indices()
    colind, row = M.indptr.astype(np.int64), M.indices.astype(np.int64)
    col = np.repeat(np.arange(31), np.diff(colind))
    colour = (_scaly.colour_columns if forward else _scaly.colour_rows)(23, 31, colind, row)
    colour = np.asarray(colour, dtype=np.int64)
    got = _scaly.EntryPositions(23, 31, colind, row, colour, forward)
    want = colour[col] * 23 + row if forward else colour[row] * 31 + col
    np.testing.assert_array_equal(np.asarray(got), want)
    nnz = len(want)
    assert len(got) == nnz and got[-1] == want[-1] and got[0] == want[0]
    for key in (slice(0, 0), slice(3, 17), slice(nnz - 5, None), slice(None, None, -3),
                slice(2, 40, 4), slice(-7, -2), slice(nnz + 4, nnz + 9)):
        np.testing.assert_array_equal(got[key], want[key], err_msg=str(key))
    with pytest.raises(IndexError, match="entry"):
        got[nnz]
    with pytest.raises(ValueError, match="one colour per " + ("column" if forward else "row")):
        _scaly.EntryPositions(23, 31, colind, row, colour[:-1], forward)
    for bad in (-1 - colour, colour + (31 if forward else 23)):
        with pytest.raises(ValueError, match="out of range"):
            _scaly.EntryPositions(23, 31, colind, row, bad, forward)
    if forward:  # star colourings' flags: one per entry, of a square pattern
        with pytest.raises(ValueError, match="one bool per stored entry"):
            _scaly.EntryPositions(23, 31, colind, row, colour, True, np.ones(nnz - 1, dtype=bool))
        with pytest.raises(ValueError, match="pattern is square"):
            _scaly.EntryPositions(23, 31, colind, row, colour, True, np.ones(nnz, dtype=bool))


def test_symmetric_pattern_must_be_square():
    f = build("sym_wide", [("x", 5)], lambda m, x: x[1:] * x[:-1])
    with pytest.raises(ValueError, match="must be square"):
        _scaly.jacobian_pattern(f._traced, 0, 0, symmetric=True)


def dense_of(nrow, ncol, colind, row):
    out = np.zeros((nrow, ncol), dtype=bool)
    for j in range(ncol):
        out[row[colind[j]:colind[j + 1]], j] = True
    return out


@pytest.mark.parametrize("colind,row,message", [
    ([0, 2, 1, 3], [0, 1, 0], "must not decrease"),
    ([1, 2, 3, 3], [0, 1, 0], "from 0 to nnz"),
    ([0, 1, 2], [0, 1, 0], "ncol \\+ 1 entries"),
    ([0, 1, 2, 3], [0, 5, 0], "row index out of range"),
])
def test_colourings_refuse_malformed_patterns(colind, row, message):
    # A malformed compressed-column pattern is an error, never a read out of bounds.
    tables = (np.asarray(colind, dtype=np.int64), np.asarray(row, dtype=np.int64))
    for colour in (_scaly.colour_columns, _scaly.colour_rows):
        with pytest.raises(ValueError, match=message):
            colour(3, 3, *tables)
    with pytest.raises(ValueError, match=message):
        _scaly.star_colouring(3, *tables)
    with pytest.raises(ValueError, match="must not be negative"):
        _scaly.colour_columns(3, -1, np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64))


def test_star_colouring_of_a_pattern_with_a_repeated_row():
    # Column 1 lists row 0 twice (SciPy's non-canonical form): the walk over
    # columns in step with rows cannot be used, and the colouring is that of
    # the pattern without the repeat, one flag per stored entry.
    colours, from_row = _scaly.star_colouring(2, [0, 3, 4], [0, 1, 1, 0])
    want, _ = _scaly.star_colouring(2, [0, 2, 3], [0, 1, 0])
    np.testing.assert_array_equal(colours, want)
    assert len(from_row) == 4


def test_entry_positions_read_their_own_copy_of_writable_inputs():
    M = scipy.sparse.random(20, 25, density=0.2, random_state=3, format="csc")
    M.sort_indices()
    colind, row = M.indptr.astype(np.int32), M.indices.astype(np.int32)
    colours = np.asarray(_scaly.colour_columns(20, 25, colind, row))
    positions = _scaly.EntryPositions(20, 25, colind, row, colours.copy(), True)
    want = np.asarray(positions)
    # Changing the caller's arrays after the checks changes nothing read later
    # (nor reads out of bounds).
    colind[1:] = 10**6
    row[:] = -5
    np.testing.assert_array_equal(np.asarray(positions), want)
    np.testing.assert_array_equal(positions[3:9], want[3:9])


@pytest.mark.parametrize("table", [
    np.arange(1000) * 3,
    np.repeat(np.arange(250), 4) * 7 + np.tile([0, 1, 5, 9], 250),
    np.concatenate([np.arange(110) + 1000 * k for k in range(29)]),  # blocks of 110
    np.concatenate([[5, 1, 9, 2], np.arange(500) * 2 + 100, [7, 3]]),
])
def test_periodic_runs_of_position_tables(table):
    # The compression of position tables into strided slices finds a run of at least
    # 8 periods (blocks of 110 included), and what it returns is one (entry by entry).
    from scaly.derivatives import _longest_periodic_run
    run = _longest_periodic_run(table)
    assert run is not None
    start, period, stride, periods = run
    assert periods >= 8 and stride > 0
    for k in range(start, start + period * (periods - 1)):
        assert table[k + period] == table[k] + stride


def test_no_periodic_run_in_random_positions():
    from scaly.derivatives import _longest_periodic_run
    assert _longest_periodic_run(np.random.default_rng(5).integers(0, 100, 3000)) is None


def test_output_sparsity_tables_must_be_vectors():
    @sc.function(sc.arg("x", 3), outputs=sc.arg("y"))
    def f(x):
        return x * 2.0

    with pytest.raises(ValueError, match="table 'colind' must be one-dimensional"):
        _scaly.set_output_sparsity(f._traced, 0, "csc", 3, 1, 0,
                                   [("colind", np.zeros((2, 2), dtype=np.int64))])
    with pytest.raises(ValueError, match="no output 1"):
        _scaly.set_output_sparsity(f._traced, 1, "csc", 3, 1, 0, [])


def test_output_tables_are_shared_or_copied_as_their_arrays_allow():
    # A pattern's arrays are read-only views of vectors Scaly made: a Function
    # keeps those vectors as its tables (no copy of megabytes at n = 10^5). A
    # view of part of such an array, or a user's array, is copied: the tables
    # are then exactly the values passed, whatever happens to the array after.
    @sc.function(sc.arg("x", 4), outputs=sc.arg("y"))
    def f(x):
        return x[1:] * x[:-1]

    nrow, ncol, colind, row = _scaly.jacobian_pattern(f._traced, 0, 0)
    assert not colind.flags.writeable and not row.flags.writeable
    with pytest.raises(ValueError, match="read-only"):
        row[0] = 5
    expected = scipy.sparse.csc_matrix(np.array([[1, 1, 0, 0], [0, 1, 1, 0], [0, 0, 1, 1]]))
    np.testing.assert_array_equal(colind, expected.indptr)
    np.testing.assert_array_equal(row, expected.indices)

    def tables_in_header(tables):
        @sc.function(sc.arg("x", 4), outputs=sc.arg("y"))
        def g(x):
            return x[:2] + 1.0

        _scaly.set_output_sparsity(g._traced, 0, "csc", 2, 2, 0, tables)
        header = render_c_module(g).header
        return {name: [int(v) for v in re.findall(r"-?\d+", re.search(
            rf"#define g_y_{name.upper()} \{{([^}}]*)\}}", header).group(1))] for name, _ in tables}

    user = np.array([0, 1, 2], dtype=np.int64)
    # The first 3 entries of one array, every other entry of the other: views
    # that start where the vector does.
    views = tables_in_header([("colind", colind[:3]), ("row", row[::2]), ("extra", user)])
    user[:] = 7  # changed after the call: the Function kept a copy
    assert views == {"colind": [0, 1, 3], "row": [0, 1, 2], "extra": [0, 1, 2]}
    whole = tables_in_header([("colind", colind), ("row", row)])
    assert whole == {"colind": colind.tolist(), "row": row.tolist()}
