"""Dead results of loops cost nothing (issue 30): an sc.scan output nobody uses, the stacked
outputs of a Python loop rolled into a scan that the loop drops, and a vmapped function's unused
result are no longer computed at every step into the workspace (expr.loop's canonicalization
pattern). Carried state a kept result reads stays. Results are checked against NumPy doing the
same steps (Python floats and libm)."""

import math

import numpy as np

import scaly as sc
from scaly.codegen import render_c_module


def sz_w(fn):
    header = render_c_module(fn).header
    line = next(l for l in header.splitlines() if l.startswith(f"#define {fn.name}_SZ_W "))
    return int(line.split()[-1])


def step_fn():
    @sc.function(sc.arg("s", 2), sc.arg("u", ()), outputs=(sc.arg("sn", 2), sc.arg("y", ())))
    def step(s, u):
        sn = sc.stack([s[0] + 0.1 * s[1], s[1] + 0.1 * u.sin()])
        return sn, (s[0] * s[1]).cos()
    return step


def numpy_steps(s0, us):
    a, b, ys = float(s0[0]), float(s0[1]), []
    for u in us.tolist():
        ys.append(math.cos(a * b))
        a, b = a + 0.1 * b, b + 0.1 * math.sin(u)
    return np.array([a, b]), np.array(ys)


def test_discarded_scan_output_costs_no_workspace(cache):
    n = 100000
    step = step_fn()

    @sc.function(sc.arg("s0", 2), sc.arg("us", n), outputs=sc.arg("out", 2))
    def final_only(s0, us):
        final, _ys = sc.scan(step, n)(s0, us)
        return final

    # Before the pattern: SZ_W 100000 (every step's discarded output in the workspace).
    assert sz_w(final_only) == 0
    source = render_c_module(final_only).source
    assert "cos(" not in source
    rng = np.random.default_rng(0)
    s0, us = rng.standard_normal(2), rng.standard_normal(n)
    want, _ = numpy_steps(s0, us)
    np.testing.assert_allclose(final_only(s0, us), want, rtol=1e-12, atol=1e-12)


def test_used_output_stays_and_state_it_reads_stays(cache):
    n = 500
    step = step_fn()

    @sc.function(sc.arg("s0", 2), sc.arg("us", n), outputs=sc.arg("ys", n))
    def outputs_only(s0, us):
        _final, ys = sc.scan(step, n)(s0, us)
        return ys

    @sc.function(sc.arg("s0", 2), sc.arg("us", n), outputs=(sc.arg("s", 2), sc.arg("ys", n)))
    def both(s0, us):
        return sc.scan(step, n)(s0, us)

    rng = np.random.default_rng(1)
    s0, us = rng.standard_normal(2), rng.standard_normal(n)
    want_s, want_ys = numpy_steps(s0, us)
    # The stacked output is the result itself: it is written in place, the state it reads kept.
    assert "cos(" in render_c_module(outputs_only).source
    np.testing.assert_allclose(outputs_only(s0, us), want_ys, rtol=1e-12, atol=1e-12)
    s, ys = both(s0, us)
    np.testing.assert_allclose(s, want_s, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(ys, want_ys, rtol=1e-12, atol=1e-12)


def test_rolled_python_loop_drops_its_unused_outputs(cache):
    n = 1000
    step = step_fn()

    @sc.function(sc.arg("s0", 2), sc.arg("us", n), outputs=sc.arg("out", 2))
    def rolled(s0, us):
        s = s0
        for k in range(n):
            s, _y = step(s, us[k])
        return s

    # Before the pattern: SZ_W 1000 (the dropped y of every step, stacked).
    assert sz_w(rolled) == 0
    assert "cos(" not in render_c_module(rolled).source
    rng = np.random.default_rng(2)
    s0, us = rng.standard_normal(2), rng.standard_normal(n)
    want, _ = numpy_steps(s0, us)
    np.testing.assert_allclose(rolled(s0, us), want, rtol=1e-12, atol=1e-12)


def test_vmapped_unused_result_is_not_computed(cache):
    n = 4096

    @sc.function(sc.arg("x", ()), outputs=(sc.arg("a", ()), sc.arg("b", ())))
    def pair(x):
        return x.sin(), x.exp()

    @sc.function(sc.arg("xs", n), outputs=sc.arg("a", n))
    def first(xs):
        a, _b = sc.vmap(pair, n)(xs)
        return a

    @sc.function(sc.arg("xs", n), outputs=sc.arg("s", ()))
    def second_summed(xs):
        _a, b = sc.vmap(pair, n)(xs)
        return b.sum()

    source = render_c_module(first).source
    assert "exp(" not in source and sz_w(first) == 0
    assert "sin(" not in render_c_module(second_summed).source
    xs = np.linspace(-1.0, 1.0, n)
    np.testing.assert_allclose(first(xs), np.sin(xs), rtol=1e-15, atol=1e-15)
    np.testing.assert_allclose(second_summed(xs), np.exp(xs).sum(), rtol=1e-13)


def test_kept_step_drops_its_discarded_output(cache):
    """A step kept as a procedure (.block()) no longer computes the output the scan discards:
    scaly-drop-unused-results removes it from the procedure (SZ_W 16 -> 8, no cos)."""
    n = 1000

    @sc.function(sc.arg("s", 2), sc.arg("u", ()), outputs=(sc.arg("sn", 2), sc.arg("y", ())))
    def kept_step(s, u):
        sn = sc.stack([s[0] + 0.1 * s[1], s[1] + 0.1 * u.sin()])
        return sn.block(), (s[0] * s[1]).cos().block()

    @sc.function(sc.arg("s0", 2), sc.arg("us", n), outputs=sc.arg("out", 2))
    def kept_final(s0, us):
        return sc.scan(kept_step, n)(s0, us)[0]

    @sc.function(sc.arg("s0", 2), sc.arg("us", n), outputs=(sc.arg("out", 2), sc.arg("ys", n)))
    def kept_both(s0, us):
        return sc.scan(kept_step, n)(s0, us)

    source = render_c_module(kept_final).source
    assert "kept_step_raw(" in source and "cos(" not in source
    assert sz_w(kept_final) == 8
    assert "cos(" in render_c_module(kept_both).source
    rng = np.random.default_rng(3)
    s0, us = rng.standard_normal(2), rng.standard_normal(n)
    want_s, want_ys = numpy_steps(s0, us)
    np.testing.assert_allclose(kept_final(s0, us), want_s, rtol=1e-12, atol=1e-12)
    s, ys = kept_both(s0, us)
    np.testing.assert_allclose(s, want_s, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(ys, want_ys, rtol=1e-12, atol=1e-12)
