"""Derivative modules built by gcc and clang, warning-free, under ASan and UBSan.

Each module (gradients through scans and maps, coloured sparse Jacobians and Hessians with
their tables and gathers, dense ones assembled by a scatter, jvp and vjp of matrix products) is compiled with the sanitizers
and misaligned buffers by tests/cdriver.py and run; its outputs must equal the JIT's.
"""

from __future__ import annotations

import functools

import numpy as np
import pytest
import scipy.sparse

import cdriver
import scaly as sc


@functools.lru_cache(maxsize=None)
def cases():
    @sc.function(sc.arg("z", 2), sc.arg("u", ()), outputs=(sc.arg("zn"), sc.arg("c")))
    def step(z, u):
        return sc.stack([z[0] + 0.1 * z[1], z[1] + 0.1 * (sc.sin(u) - z[0])]), (z * z).sum() + u * u

    @sc.function(sc.arg("z0", 2), sc.arg("us", 200), outputs=sc.arg("cost"))
    def rollout(z0, us):
        zn, cs = sc.scan(step, 200)(z0, us)
        return cs.sum() + (zn * zn).sum()

    @sc.function(sc.arg("x0", ()), sc.arg("x1", ()), sc.arg("x2", ()), outputs=sc.arg("c"))
    def triple(x0, x1, x2):
        return 3 * x1 ** 3 + 2 * x2 + sc.sin(x1 - x2) * sc.sin(x1 + x2) - x0 * sc.exp(x0 - x1)

    @sc.function(sc.arg("x", 300), outputs=sc.arg("g"))
    def constraints(x):
        return sc.vmap(triple, 298)(x[:-2], x[1:-1], x[2:])

    @sc.function(sc.arg("x", 100), outputs=sc.arg("f"))
    def rosenbrock(x):
        return (100 * (x[1:] - x[:-1] ** 2) ** 2 + (1 - x[:-1]) ** 2).sum()

    @sc.function(sc.arg("A", (3, 4)), sc.arg("B", (4, 5)), outputs=sc.arg("C"))
    def product(A, B):
        return sc.tanh(A @ B)

    @sc.function(sc.arg("x", 300), outputs=sc.arg("y"))
    def sine(x):
        return sc.sin(x)

    r = np.random.default_rng(11)
    return {
        "scan_gradient": (sc.gradient(rollout), [r.normal(size=2), r.normal(size=200)]),
        "map_jacobian_csc": (sc.jacobian(constraints, layout="csc"), [r.uniform(-1, 1, 300)]),
        "hessian_csr": (sc.hessian(rosenbrock, layout="csr"), [r.uniform(-1, 1, 100)]),
        # Dense, from the stored entries by one expr.scatter: evenly spaced positions
        # (a diagonal, no table), a table of the entries' positions (banded).
        "dense_jacobian_diagonal": (sc.jacobian(sine), [r.uniform(-1, 1, 300)]),
        "dense_jacobian_map": (sc.jacobian(constraints), [r.uniform(-1, 1, 300)]),
        "dense_hessian": (sc.hessian(rosenbrock), [r.uniform(-1, 1, 100)]),
        "matmul_jvp": (sc.jvp(product), [r.normal(size=(3, 4)), r.normal(size=(4, 5)),
                                          r.normal(size=(3, 4)), r.normal(size=(4, 5))]),
        "matmul_vjp": (sc.vjp(product), [r.normal(size=(3, 4)), r.normal(size=(4, 5)),
                                          r.normal(size=(3, 5))]),
    }


def as_values(x):
    return x.data if scipy.sparse.issparse(x) else np.asarray(x)


@pytest.mark.parametrize("compiler", cdriver.COMPILERS)
@pytest.mark.parametrize("case", ["scan_gradient", "map_jacobian_csc", "hessian_csr",
                                  "dense_jacobian_diagonal", "dense_jacobian_map",
                                  "dense_hessian", "matmul_jvp", "matmul_vjp"])
def test_derivative_module_under_sanitizers(case, compiler, tmp_path):
    fn, args = cases()[case]
    built = cdriver.build(fn, str(tmp_path), compiler=compiler, sanitize=True, misalign=True)
    outs = built.run(*args)
    want = fn(*args)
    want = list(want) if isinstance(want, tuple) else [want]
    assert len(outs) == len(want)
    for got, ref in zip(outs, want):
        np.testing.assert_allclose(np.ravel(got), np.ravel(as_values(ref)), rtol=1e-12,
                                   atol=1e-12)
