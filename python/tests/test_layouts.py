"""Sparse output layouts: compressed-column, compressed-row, coordinate and batched.

Values are compared with the dense Jacobian or Hessian (itself checked against finite
differences in test_derivatives.py); the header's tables are read back by a C program built
with gcc and clang, and every layout but csc is refused by casadi=True.
"""

from __future__ import annotations

import functools
import re
import shutil
import subprocess

import numpy as np
import pytest
import scipy.sparse

import scaly as sc
from scaly.codegen import render_c_module

N = 5


@functools.lru_cache(maxsize=None)
def chain():
    @sc.function(sc.arg("x", 7), outputs=sc.arg("g"))
    def chain(x):
        return x[:-2] * sc.sin(x[1:-1]) + x[2:] ** 2 - x[0]
    return chain


@functools.lru_cache(maxsize=None)
def batch():
    @sc.function(sc.arg("z", 3), sc.arg("u", ()), outputs=sc.arg("zn"))
    def step(z, u):
        return sc.stack([z[1] * u, sc.sin(z[0]) + z[2], z[2] * z[2]])

    @sc.function(sc.arg("zs", (N, 3)), sc.arg("us", N), outputs=sc.arg("zns"))
    def batch(zs, us):
        return sc.vmap(step, N)(zs, us)
    return batch


X = np.linspace(-0.7, 0.9, 7)


@pytest.mark.parametrize("layout,kind", [("csc", scipy.sparse.csc_matrix),
                                         ("csr", scipy.sparse.csr_matrix),
                                         ("coo", scipy.sparse.coo_matrix)])
def test_layout_values_and_type(layout, kind):
    dense = sc.jacobian(chain())(X)
    J = sc.jacobian(chain(), layout=layout)
    value = J(X)
    assert type(value) is kind and value.shape == dense.shape
    np.testing.assert_array_equal(value.toarray(), dense)
    assert value.nnz == np.count_nonzero(sc.jacobian_sparsity(chain()).toarray())
    assert J.layout() == layout


@pytest.mark.parametrize("layout", ["csc", "csr", "coo"])
def test_each_result_owns_writable_int32_indices(layout):
    # SciPy keeps int32 indices when they fit: the tables are handed over as
    # int32 (no conversion per call), each call's matrix with its own copies,
    # so changing one result changes neither the next nor the Function's tables.
    J = sc.jacobian(chain(), layout=layout)
    first, second = J(X), J(X)
    indices = [first.row, first.col] if layout == "coo" else [first.indices, first.indptr]
    for a in indices:
        assert a.dtype == np.int32 and a.flags.writeable
    assert not any(np.shares_memory(a, b) for a in indices
                   for b in ([second.row, second.col] if layout == "coo"
                             else [second.indices, second.indptr]))
    for a in indices:
        a[...] = 0
    np.testing.assert_array_equal(J(X).toarray(), sc.jacobian(chain())(X))
    second.data[:] = 0
    second.eliminate_zeros()  # writes the indices in place
    assert second.nnz == 0
    # The Function's own tables, which each call copies, are read-only int32.
    shape, *tables = J.sparsity()
    for t in tables:
        assert t.dtype == np.int32 and not t.flags.writeable


def test_orders_are_the_declared_ones():
    csc = sc.jacobian(chain(), layout="csc")(X)
    csr = sc.jacobian(chain(), layout="csr")(X)
    coo = sc.jacobian(chain(), layout="coo")(X)
    # csr/coo values run row by row, columns increasing; csc column by column.
    reference = csc.tocsr()
    reference.sort_indices()
    np.testing.assert_array_equal(csr.data, reference.data)
    np.testing.assert_array_equal(csr.indices, reference.indices)
    np.testing.assert_array_equal(coo.data, reference.data)
    assert list(coo.row) == sorted(coo.row)


def test_batched_is_one_shared_block_pattern():
    zs = np.random.default_rng(3).normal(size=(N, 3))
    us = np.linspace(0.5, 1.5, N)
    B = sc.jacobian(batch(), wrt="zs", layout="batched")
    value = B(zs, us)
    assert isinstance(value, sc.derivatives.BatchedSparse)
    assert value.values.shape == (N, 4) and value.shape == (3, 3)  # (0,1) (1,0) (1,2) (2,2)
    full = sc.jacobian(batch(), wrt="zs")(zs, us)
    for b in range(N):
        np.testing.assert_array_equal(value.matrix(b).toarray(),
                                      full[3 * b:3 * b + 3, 3 * b:3 * b + 3])
    np.testing.assert_array_equal(value.toarray()[2], full[6:9, 6:9])


def test_batched_hessian():
    @sc.function(sc.arg("xs", (N, 2)), outputs=sc.arg("f"))
    def separable(xs):
        return (sc.sin(xs[:, 0]) * xs[:, 1] ** 2).sum()

    xs = np.random.default_rng(4).normal(size=(N, 2))
    H = sc.hessian(separable, layout="batched")(xs)
    full = sc.hessian(separable)(xs)
    for b in range(N):
        np.testing.assert_array_equal(H.matrix(b).toarray(), full[2 * b:2 * b + 2, 2 * b:2 * b + 2])


def test_batched_needs_a_block_diagonal_with_one_pattern():
    with pytest.raises(ValueError, match="leading axis"):
        sc.jacobian(chain(), layout="batched")

    @sc.function(sc.arg("xs", (N, 2)), outputs=sc.arg("ys"))
    def coupled(xs):
        return xs * xs[0, 0]

    with pytest.raises(ValueError, match="not"):
        sc.jacobian(coupled, layout="batched")


PROGRAM = r"""
#include <stdio.h>
#include "lay.h"

int main(void) {
#ifdef %(P)s_COLIND
  static const int a[] = %(P)s_COLIND;
#elif defined(%(P)s_ROWPTR)
  static const int a[] = %(P)s_ROWPTR;
#else
  static const int a[] = %(P)s_ROW;
#endif
#ifdef %(P)s_COLIND
  static const int b[] = %(P)s_ROW;
#else
  static const int b[] = %(P)s_COL;
#endif
  printf("%%d %%d %%d\n", %(P)s_NROW, %(P)s_NCOL, %(P)s_NNZ);
  for (unsigned k = 0; k < sizeof a / sizeof a[0]; ++k) printf("%%d ", a[k]);
  printf("\n");
  for (unsigned k = 0; k < sizeof b / sizeof b[0]; ++k) printf("%%d ", b[k]);
  printf("\n");
  return 0;
}
"""


@pytest.mark.parametrize("compiler", ["gcc", "clang-19"])
@pytest.mark.parametrize("layout", ["csc", "csr", "coo", "batched"])
def test_header_tables_match_the_pattern(layout, compiler, tmp_path):
    if shutil.which(compiler) is None:
        pytest.skip(f"{compiler} not installed")
    f = batch() if layout == "batched" else chain()
    J = sc.jacobian(f, wrt=0, layout=layout)
    module = render_c_module(J, name="lay")
    module.write(tmp_path)
    prefix = re.search(r"#define (\w+)_NNZ", module.header).group(1)
    (tmp_path / "main.c").write_text(PROGRAM % {"P": prefix})
    subprocess.run([compiler, "-std=c11", "-Wall", "-Wextra", "-Werror", "main.c", "-o", "main"],
                   cwd=tmp_path, check=True)
    out = subprocess.run([str(tmp_path / "main")], capture_output=True, text=True,
                         check=True).stdout.split("\n")
    nrow, ncol, nnz = map(int, out[0].split())
    shape, first, second = J.sparsity()
    assert (nrow, ncol) == tuple(shape) and nnz == len(second)
    assert [int(v) for v in out[1].split()] == list(first)
    assert [int(v) for v in out[2].split()] == list(second)
    if layout == "batched":
        assert f"#define {prefix}_BATCH {N}" in module.header


def macro_values(header, name):
    """The values of initializer-list macro `name`, checking its layout: `{ \\`, then lines
    of 16 values each ending `, \\`, the last ending ` }`."""
    start = header.index(f"#define {name} {{ \\\n")
    body = header[start:header.index(" }\n", start)].split("{ \\\n", 1)[1]
    lines = body.split(", \\\n")
    assert all(line.startswith("    ") for line in lines)
    assert all(len(line.split(", ")) == 16 for line in lines[:-1])
    return [int(v) for line in lines for v in line.split(", ")]


def test_large_tables_print_every_value():
    """Tables of hundreds of kilobytes (the printer writes them in 64 KiB pieces) hold the
    pattern of g_i = x_i x_(i+1), known by hand: column j has rows j-1 and j, where they exist."""
    n = 30000

    @sc.function(sc.arg("x", n), outputs=sc.arg("g"))
    def band(x):
        return x[:-1] * x[1:]

    header = render_c_module(sc.jacobian(band, layout="csc"), name="band").header
    rows = [[r for r in (j - 1, j) if 0 <= r <= n - 2] for j in range(n)]
    prefix = re.search(r"#define (\w+)_NNZ", header).group(1)
    assert macro_values(header, prefix + "_ROW") == [r for column in rows for r in column]
    assert macro_values(header, prefix + "_COLIND") == list(np.cumsum([0] + [len(c) for c in rows]))
    assert len(header) > 4 * 65536


@pytest.mark.parametrize("layout", ["csr", "coo", "batched"])
def test_casadi_takes_compressed_column_only(layout):
    f = batch() if layout == "batched" else chain()
    with pytest.raises(ValueError, match="compressed-column order only"):
        render_c_module(sc.jacobian(f, wrt=0, layout=layout), casadi=True)


def test_layout_and_sparsity_by_output_name():
    J = sc.jacobian(chain(), layout="csr")
    assert J.layout("jac_g_x") == J.layout(0) == "csr"
    assert J.sparsity("jac_g_x")[0] == (5, 7)
    with pytest.raises(ValueError, match="no output named 'nope'"):
        J.layout("nope")


def test_layout_and_sparsity_by_output_index():
    """Indices count from the end when negative, as of= does; any other index is an
    error naming the valid range, never a dense output without a pattern (issue 33)."""
    J = sc.jacobian(chain(), layout="csc")
    assert J.layout(-1) == "csc" and J.sparsity(-1)[0] == J.sparsity(0)[0] == (5, 7)
    for bad in (1, 5, -2):
        for method in (J.layout, J.sparsity):
            with pytest.raises(IndexError, match=rf"output index {bad} is out of range; "
                                                 r"1 output\(s\), valid indices -1\.\.0"):
                method(bad)
    for bad in (0.0, True, None):
        with pytest.raises(TypeError, match="outputs are chosen by name or index"):
            J.sparsity(bad)


@pytest.mark.parametrize("layout", ["dense", "csc"])
def test_reverse_sweeps_take_the_output_dtype(layout):
    # Two outputs and ten inputs: reverse mode; its sweeps are in the input's dtype.
    @sc.function(sc.arg("x", 10, "float32"), outputs=sc.arg("b"))
    def widening(x):
        return sc.stack([(x * x).sum(), sc.sin(x).sum()]).astype("float64")

    x = np.linspace(-1, 1, 10).astype(np.float32)
    J = sc.jacobian(widening, layout=layout)(x)
    J = J.toarray() if layout == "csc" else J
    assert J.dtype == np.float64
    want = np.stack([2 * x, np.cos(x)]).astype(np.float64)
    np.testing.assert_allclose(J, want, rtol=1e-6)
