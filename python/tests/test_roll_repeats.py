"""Plain Python loops traced unrolled become loops again (scaly-roll-repeats): n copies of the
same few operations, each reading the copy before, are one expr.scan of a function holding one
copy. The C stays small and the compile time flat in n (issue 33: a 300,000-op chain took
709 s to JIT); results must not change: checked bit for bit against NumPy doing the same
operations in the same order, and derivatives against finite differences or closed forms."""

import math

import numpy as np
import pytest

import scaly as sc
from scaly.codegen import render_c_module

import cdriver


def traced(body, *args, name=None, outputs=("y",)):
    body.__name__ = name or body.__name__
    return sc.function(*args, outputs=tuple(sc.arg(o) for o in outputs) if len(outputs) > 1
                       else sc.arg(outputs[0]))(body)


def affine_chain(n):
    def chain(x):
        y = x
        for _ in range(n):
            y = y * 1.0001 + 0.5
        return y
    return traced(chain, sc.arg("x", ()), name=f"affine_chain_{n}")


def test_long_chain_rolls_and_is_exact():
    n = 20000
    f = affine_chain(n)
    source = render_c_module(f).source
    assert len(source) < 5000 and "for (" in source  # one loop, not 40,000 statements
    y = 0.25
    for _ in range(n):
        y = y * 1.0001 + 0.5
    assert f(np.float64(0.25)) == y


def test_short_loop_stays_unrolled():
    f = affine_chain(40)  # 80 operations: below min-ops
    assert "for (" not in render_c_module(f).source


def pendulum(n, dt=0.01):
    """Two carried values (packed into one state) and an input read by every step."""
    def euler(th0, om0, u):
        th, om = th0, om0
        for _ in range(n):
            th, om = th + dt * om, om + dt * (u - 9.81 * sc.sin(th))
        return sc.stack([th, om])
    return traced(euler, sc.arg("th0", ()), sc.arg("om0", ()), sc.arg("u", ()),
                  name=f"pendulum_{n}")


def pendulum_numpy(th, om, u, n, dt=0.01):
    # math.sin is the C library's, as in the generated C (NumPy's own may round differently).
    for _ in range(n):
        th, om = th + dt * om, om + dt * (u - 9.81 * math.sin(th))
    return np.array([th, om])


def test_two_carried_values_and_an_invariant():
    n = 1000
    f = pendulum(n)
    assert "for (" in render_c_module(f).source
    for args in [(0.3, 0.0, 0.5), (-2.0, 1.5, 0.0)]:
        assert np.array_equal(f(*map(np.float64, args)), pendulum_numpy(*args, n))


def test_gradient_through_rolled_loop():
    n = 1000
    f = pendulum(n)
    g = sc.jacobian(f, wrt="th0")  # d(th, om) / d th0
    x = (0.3, 0.2, 0.5)
    h = 1e-6
    fd = (pendulum_numpy(x[0] + h, *x[1:], n) - pendulum_numpy(x[0] - h, *x[1:], n)) / (2 * h)
    np.testing.assert_allclose(np.asarray(g(*map(np.float64, x))).reshape(-1), fd, rtol=1e-6)


def test_values_kept_from_inside_the_loop_are_right():
    # Every step's value escapes into the result: nothing can be rolled, and nothing changes.
    def kept(x):
        ys, y = [], x
        for _ in range(300):
            y = sc.sin(y) * 0.99 + 0.01
            ys.append(y)
        return sc.stack(ys).sum()
    f = traced(kept, sc.arg("x", ()))
    ref, y = 0.0, 0.7
    vals = []
    for _ in range(300):
        y = math.sin(y) * 0.99 + 0.01
        vals.append(y)
    assert float(f(np.float64(0.7))) == pytest.approx(float(np.sum(vals)), rel=1e-13)


def test_vector_state_with_vmap():
    n = 600

    def step_many(x):
        y = x
        for _ in range(n):
            y = sc.tanh(y) * 0.9 + 0.05 * x
        return y
    f = traced(step_many, sc.arg("x", 3))
    xs = np.random.default_rng(1).standard_normal((5, 3))

    def batch(xs):
        return sc.vmap(f, 5)(xs)
    v = traced(batch, sc.arg("xs", (5, 3)))
    ref = []
    for x in xs:
        y = x.copy()
        for _ in range(n):
            y = np.tanh(y) * 0.9 + 0.05 * x
        ref.append(y)
    np.testing.assert_allclose(v(xs), np.array(ref), rtol=1e-13)


@pytest.mark.parametrize("compiler", ["gcc", "clang"])
def test_exported_rolled_module(compiler, workdir):
    f = pendulum(800)
    (y,) = cdriver.build(f, workdir, compiler=compiler, sanitize=True).run(
        np.float64(0.3), np.float64(0.1), np.float64(0.5))
    assert np.array_equal(y, pendulum_numpy(0.3, 0.1, 0.5, 800))
