"""Dense Jacobians and Hessians of sparse derivatives: one expr.scatter (issue 33).

A dense (layout="dense") matrix is assembled from its stored entries by one `expr.scatter`
of them into zeros: its C fills the output with zeros and writes the entries by one loop
(computed positions when they are evenly spaced, else a table as long as the entries). It
was a gather of the entries and a zero through a table of all nrow * ncol positions: the
dense Jacobian of sin(x) at n = 3000 took 15 s to compile a 56 MB C file, at n = 31,623 the
table alone was 8 GB (MemoryError). Values are compared with closed forms, finite
differences and the csc layout; sizes of the module text and the C are checked to grow
with the entries, not with the matrix.
"""

from __future__ import annotations

import re

import numpy as np
import pytest

import scaly as sc
from scaly.codegen import render_c_module


def numeric_jacobian(fn, x, h=1e-6):
    """Central differences of fn at x: (fn's size, x's size)."""
    cols = []
    for j in range(x.size):
        e = np.zeros_like(x)
        e.flat[j] = h
        cols.append((np.ravel(fn(x + e)) - np.ravel(fn(x - e))) / (2 * h))
    return np.stack(cols, axis=1)


def sparse_functions(n):
    """(name, Function, NumPy reference) of functions with sparse Jacobians of n inputs."""
    @sc.function(sc.arg("x", n), outputs=sc.arg("y"))
    def diagonal(x):
        return sc.sin(x)

    @sc.function(sc.arg("x", n), outputs=sc.arg("y"))
    def chain(x):
        return x[:-1] * sc.sin(x[1:]) + sc.exp(x[1:])

    @sc.function(sc.arg("x", n), outputs=sc.arg("y"))
    def reversed_(x):
        return x[::-1] * sc.cos(x)

    @sc.function(sc.arg("x", n), outputs=sc.arg("y"))
    def wide(x):  # 2 x n: every entry stored
        return sc.stack([x.sum(), (x * x).sum()])

    @sc.function(sc.arg("x", n), outputs=sc.arg("y"))
    def picked(x):  # rows of one entry, irregular columns, an empty column
        return x[np.arange(n - 1)[::-1] // 2] ** 3

    return [
        ("diagonal", diagonal, np.sin),
        ("chain", chain, lambda x: x[:-1] * np.sin(x[1:]) + np.exp(x[1:])),
        ("reversed", reversed_, lambda x: x[::-1] * np.cos(x)),
        ("wide", wide, lambda x: np.array([x.sum(), (x * x).sum()])),
        ("picked", picked, lambda x: x[np.arange(n - 1)[::-1] // 2] ** 3),
    ]


@pytest.mark.parametrize("n", [1, 2, 7, 100])
def test_dense_jacobians_match_differences_and_csc(n):
    x = np.linspace(0.2, 1.1, n)
    for name, fn, reference in sparse_functions(n):
        if name == "chain" and n == 1:
            continue  # no outputs
        J = sc.jacobian(fn)(x)
        assert J.shape == (fn.outputs[0][1][0] if fn.outputs[0][1] else 1, n), name
        np.testing.assert_allclose(J, numeric_jacobian(reference, x), rtol=1e-7, atol=1e-7,
                                   err_msg=name)
        # The same values as the stored entries, and zeros exactly elsewhere.
        stored = sc.jacobian(fn, layout="csc")(x).toarray()
        np.testing.assert_array_equal(J, stored, err_msg=name)


def test_dense_jacobian_of_sin_is_exact_diagonal():
    n = 500
    x = np.linspace(-2.0, 2.0, n)
    J = sc.jacobian(sparse_functions(n)[0][1])(x)
    np.testing.assert_allclose(np.diagonal(J), np.cos(x), rtol=1e-15, atol=0)
    assert np.count_nonzero(J - np.diag(np.diagonal(J))) == 0


@pytest.mark.parametrize("n", [1, 6, 150])
def test_dense_hessians_match_differences_and_csc(n):
    @sc.function(sc.arg("x", n), outputs=sc.arg("s"))
    def luksan(x):
        a, b = x[:-1], x[1:]
        return (100 * (a * a - b) ** 2 + (a - 1) ** 2).sum() + (sc.sin(x) * x).sum()

    def gradient(x):
        g = np.sin(x) + x * np.cos(x)
        a, b = x[:-1], x[1:]
        r = 100 * 2 * (a * a - b)
        g[:-1] += r * 2 * a + 2 * (a - 1)
        g[1:] -= r
        return g

    x = np.linspace(-0.5, 0.8, n)
    H = sc.hessian(luksan)(x)
    np.testing.assert_allclose(H, numeric_jacobian(gradient, x), rtol=1e-6, atol=1e-5)
    np.testing.assert_array_equal(H, H.T)
    np.testing.assert_array_equal(H, sc.hessian(luksan, layout="csc")(x).toarray())


def test_float32_dense_jacobian():
    @sc.function(sc.arg("x", 40, "float32"), outputs=sc.arg("y"))
    def f(x):
        return x[1:] * x[:-1]
    x = np.linspace(0.5, 1.5, 40, dtype=np.float32)
    J = sc.jacobian(f)(x)
    assert J.dtype == np.float32
    want = np.zeros((39, 40), np.float32)
    want[np.arange(39), np.arange(39)] = x[1:]
    want[np.arange(39), np.arange(1, 40)] = x[:-1]
    np.testing.assert_array_equal(J, want)


def test_derivatives_through_a_dense_jacobian():
    # The Jacobian of a dense Jacobian (its scatter's rules: pattern, jvp, vjp) against
    # differences of the Jacobian.
    n = 5

    @sc.function(sc.arg("x", n), outputs=sc.arg("y"))
    def f(x):
        return x[:-1] * sc.sin(x[1:])

    J = sc.jacobian(f)
    x = np.linspace(0.3, 1.2, n)
    JJ = sc.jacobian(J)(x)
    assert JJ.shape == ((n - 1) * n, n)
    np.testing.assert_allclose(JJ, numeric_jacobian(J, x), rtol=1e-6, atol=1e-8)
    pattern = sc.jacobian_sparsity(J).toarray()
    assert pattern.shape == JJ.shape and np.all((pattern != 0) | (JJ == 0))
    # Reverse mode through the scatter: w . dJ/dx.
    w = np.random.default_rng(3).normal(size=(n - 1, n))
    np.testing.assert_allclose(sc.vjp(J)(x, w), w.ravel() @ JJ, rtol=1e-12, atol=1e-12)
    t = np.random.default_rng(4).normal(size=n)
    np.testing.assert_allclose(sc.jvp(J)(x, t), (JJ @ t).reshape(n - 1, n), rtol=1e-12,
                               atol=1e-12)


def test_module_and_c_grow_with_the_entries_not_the_matrix():
    # 2000 x 2000 (4e6 elements), 2000 entries: one scatter; before, one gather of 4e6
    # positions (about 25 MB of module text and a 4e6-entry table in the C).
    n = 2000
    fn = sparse_functions(n)[0][1]
    J = sc.jacobian(fn)
    text = J.mlir()
    assert text.count("expr.scatter") == 1, text[:2000]
    assert len(text) < 100_000, len(text)
    source = render_c_module(J).source
    assert len(source) < 20_000, len(source)  # evenly spaced positions: no table at all
    tables = re.findall(r"scaly_table_\d+\[(\d+)\]", source)
    assert all(int(size) <= n for size in tables), tables
    # An irregular pattern: one table of the entries' positions, none of the matrix.
    picked = sparse_functions(n)[4][1]
    source = render_c_module(sc.jacobian(picked)).source
    sizes = [int(s) for s in re.findall(r"scaly_table_\d+\[(\d+)\]", source)]
    assert sizes and max(sizes) <= n, sizes
    assert len(source) < 400_000, len(source)


def test_scatter_refuses_bad_positions():
    from scaly import _scaly
    g = _scaly.Graph()
    v = g.input(0, [2], "float64")
    with pytest.raises(ValueError, match="position 4 is outside the 4 elements of"):
        g.scatter(v, [0, 4], [2, 2])
    with pytest.raises(ValueError, match="position 1 is given twice"):
        g.scatter(v, [1, 1], [2, 2])
    with pytest.raises(ValueError, match="3 positions for 2 values"):
        g.scatter(v, [0, 1, 2], [2, 2])
    assert g.scatter(v, [3, 0], [2, 2]) >= 0


@pytest.mark.parametrize("n", [4, 30])
def test_dense_jacobian_mapped(n):
    # The scatter inside a map's body (small: its elements; n = 30: 870 elements, the
    # zero fill and the writes in each iteration's slice of the result).
    @sc.function(sc.arg("x", n), outputs=sc.arg("y"))
    def f(x):
        return x[:-1] * sc.sin(x[1:])

    J = sc.jacobian(f)

    @sc.function(sc.arg("X", (5, n)), outputs=sc.arg("Y"))
    def g(X):
        return sc.vmap(J, 5)(X)

    X = np.random.default_rng(0).normal(size=(5, n))
    np.testing.assert_array_equal(g(X), np.stack([J(X[i]) for i in range(5)]))
