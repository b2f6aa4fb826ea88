"""Long straight-line procedures are cut into noinline parts (scaly-split-long-procs), so the
C compiler's time stays linear in the model's size (issue 33: a 300,000-op chain took 709 s to
JIT). The parts must compute exactly what the uncut procedure does: checked against NumPy
(same operations in the same order, so bit for bit), through the JIT and through gcc and clang
on the exported C (warning-free, and under AddressSanitizer, which catches a carried buffer
that does not fit the workspace the header declares)."""

import re

import numpy as np
import pytest

import scaly as sc
from scaly.codegen import render_c_module

import cdriver


def factor(k):
    """A different constant per step: no two steps repeat, so scaly-roll-repeats leaves the
    chain straight-line (the case this pass is for: long code without a loop in it)."""
    return 1.0001 + 1e-7 * k


def chain(n, dtype="float64"):
    def body(x):
        y = x
        for k in range(n):
            y = y * factor(k) + 0.5
        return y

    body.__name__ = f"chain_{dtype}_{n}"
    return sc.function(sc.arg("x", (), dtype), outputs=sc.arg("y"))(body)


def chain_numpy(x, n, dtype=np.float64):
    y = dtype(x)
    for k in range(n):
        y = dtype(y * dtype(factor(k))) + dtype(0.5)
    return y


def parts(source):
    return re.findall(r"static __attribute__\(\(noinline\)\) void (\w+_part\d+)\(", source)


def test_long_chain_is_cut_and_exact():
    f = chain(5000)
    source = render_c_module(f).source
    assert len(parts(source)) >= 2
    assert f(np.float64(0.25)) == chain_numpy(0.25, 5000)


def test_short_model_is_not_cut():
    assert parts(render_c_module(chain(50)).source) == []


def test_float32_chain_carries_float32():
    f = chain(4000, "float32")
    source = render_c_module(f).source
    assert parts(source) and "float* carried_f32" in source
    assert f(np.float32(0.25)) == chain_numpy(0.25, 4000, np.float32)


def model_with_vectors():
    """Vectors, reductions and a loop-carried mix: values of several kinds cross the cuts."""
    def body(x, p):
        y = x
        acc = p[0]
        for k in range(400):
            y = sc.sin(y) * p[1] + 0.01 * k
            acc = acc + y.sum() * 1e-3
        return y * acc

    body.__name__ = "vector_mix"
    return sc.function(sc.arg("x", 3), sc.arg("p", 2), outputs=sc.arg("y"))(body)


def vector_mix_numpy(x, p):
    y, acc = x.copy(), p[0]
    for k in range(400):
        y = np.sin(y) * p[1] + 0.01 * k
        acc = acc + y.sum() * 1e-3
    return y * acc


def test_vector_model_cut_matches_numpy():
    f = model_with_vectors()
    assert len(parts(render_c_module(f).source)) >= 2
    x, p = np.array([0.3, -1.2, 2.0]), np.array([0.5, 0.9])
    np.testing.assert_allclose(f(x, p), vector_mix_numpy(x, p), rtol=1e-13)


@pytest.mark.parametrize("compiler", ["gcc", "clang"])
def test_exported_parts_compile_clean_and_agree(compiler, workdir):
    f = model_with_vectors()
    x, p = np.array([0.3, -1.2, 2.0]), np.array([0.5, 0.9])
    (y,) = cdriver.build(f, workdir, compiler=compiler, sanitize=True).run(x, p)
    np.testing.assert_allclose(y, vector_mix_numpy(x, p), rtol=1e-13)


def test_gradient_of_long_chain():
    # y -> a_k sin(y) + 0.1, n times: the derivative is the product of a_k cos(y_k), which
    # NumPy accumulates along the same steps.
    n = 600

    def body(x):
        y = x
        for k in range(n):
            y = (0.9 + 1e-9 * k) * sc.sin(y) + 0.1
        return y

    body.__name__ = "sine_chain"
    g = sc.gradient(sc.function(sc.arg("x", ()), outputs=sc.arg("y"))(body))
    assert parts(render_c_module(g).source)
    for x in (0.25, -3.0):
        y, d = x, 1.0
        for k in range(n):
            d *= (0.9 + 1e-9 * k) * np.cos(y)
            y = (0.9 + 1e-9 * k) * np.sin(y) + 0.1
        assert d != 0 and float(g(np.float64(x))) == pytest.approx(d, rel=1e-11)
