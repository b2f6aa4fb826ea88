"""Models unrolled in Python stay cheap to build: a chain of calls over consecutive
slices becomes one loop, a Function called many times otherwise stays one C procedure,
deep chains of calls render in linear time, and long builds are interruptible
(structure only: no timing asserts)."""

import json
import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import scaly as sc
from scaly.codegen import render_c_module



def make_roll(n, block=False, name="roll", pick=lambda k: k, size=None, alternate=False):
    """n Euler steps unrolled in Python; step k reads us[pick(k)] of `size` (n)
    controls. Any `pick` is rolled back into a loop (evenly spaced rows through a
    strided slice, others through a gather); with `alternate`, steps take turns
    with a second step function (cos for sin), which no loop describes: n calls."""
    @sc.function(sc.arg("z", 2), sc.arg("u", ()), outputs=sc.arg("znext"))
    def euler(z, u):
        step = sc.stack([z[0] + 0.1 * z[1], z[1] + 0.1 * u.sin()])
        return step.block() if block else step

    @sc.function(sc.arg("z", 2), sc.arg("u", ()), outputs=sc.arg("znext"))
    def euler_cos(z, u):
        step = sc.stack([z[0] + 0.1 * z[1], z[1] + 0.1 * u.cos()])
        return step.block() if block else step

    steps = (euler, euler_cos) if alternate else (euler,)

    def roll(z0, us):
        z = z0
        for k in range(n):
            z = steps[k % len(steps)](z, us[pick(k)])
        return z
    roll.__name__ = name
    return sc.function(sc.arg("z0", 2), sc.arg("us", size or n), outputs=sc.arg("zN"))(roll)


def reference(z0, us, alternate=False):
    z = np.array(z0, dtype=float)
    for k, u in enumerate(us):
        g = np.cos(u) if alternate and k % 2 else np.sin(u)
        z = np.array([z[0] + 0.1 * z[1], z[1] + 0.1 * g])
    return z


def irregular(n):
    """Indices 0, 1, 3, 6, 10, ... (mod n): no three evenly spaced in a row."""
    return lambda k: (k * (k + 1) // 2) % n


def test_callee_called_many_times_stays_one_procedure():
    src = render_c_module(make_roll(200, alternate=True)).source
    for name in ("euler_raw", "euler_cos_raw"):
        assert src.count(f"static __attribute__((noinline)) void {name}(") == 1
        assert src.count(f" {name}(") == 101  # the definition and 100 calls
    assert "static inline" not in src


def test_callee_called_a_few_times_is_expanded():
    src = render_c_module(make_roll(3)).source
    assert "_raw" not in src


def test_blocked_callee_with_few_call_sites_stays_static_inline():
    src = render_c_module(make_roll(3, block=True)).source
    assert src.count("static inline void euler_raw(") == 1
    assert src.count("euler_raw(") == 4
    assert "noinline" not in src


def test_blocked_callee_with_many_call_sites_is_not_inlined():
    src = render_c_module(make_roll(40, block=True, alternate=True)).source
    assert src.count("static __attribute__((noinline)) void euler_raw(") == 1
    assert src.count(" euler_raw(") == 21


def test_chain_over_consecutive_slices_becomes_one_loop():
    """200 calls stepping through us[0], us[1], ... are one scan: one C loop, no procedure."""
    src = render_c_module(make_roll(200)).source
    assert "_raw" not in src
    assert src.count("for (long long it_zN = 0; it_zN < 200; ++it_zN) {") == 1
    assert "sin(arg[1][it_zN])" in src


def test_rolled_c_differs_only_in_numbers():
    """The C of 20 and of 2000 unrolled steps differs only in its constants."""
    import re
    small, large = (render_c_module(make_roll(n, name="roll")) for n in (20, 2000))
    assert re.sub(r"\d+", "N", small.source) == re.sub(r"\d+", "N", large.source)
    assert re.sub(r"\d+", "N", small.header) == re.sub(r"\d+", "N", large.header)


def test_short_chain_is_not_rolled():
    """Fewer than 16 calls stay as they were (expanded: the step is small)."""
    src = render_c_module(make_roll(15)).source
    assert "for (" not in src and src.count("sin(") == 15


@pytest.mark.parametrize("pick, n, size", [(lambda k: k, 300, 300), (lambda k: 299 - k, 300, 300),
                                           (lambda k: 2 * k + 1, 120, 241)])
def test_rolled_model_computes_the_same(cache, pick, n, size):
    """Forward, backward and strided walks through us give what NumPy's loop gives."""
    fn = make_roll(n, name=f"walk{n}_{pick(0)}_{pick(1)}", pick=pick, size=size)
    assert "_raw" not in render_c_module(fn).source
    rng = np.random.default_rng(2)
    z0 = rng.normal(size=2)
    us = rng.normal(size=size)
    want = reference(z0, [us[pick(k)] for k in range(n)])
    np.testing.assert_allclose(fn(z0, us), want, rtol=1e-13, atol=1e-13)


def test_rolled_columns_shared_operand_and_stacked_outputs(cache):
    """U[:, k] with a value shared by every call, and each step's second output used
    after the chain: one scan, and the same numbers as a Python loop."""
    n = 24

    @sc.function(sc.arg("x", 3), sc.arg("u", 2), sc.arg("gain", ()),
                 outputs=(sc.arg("xnext"), sc.arg("cost")))
    def step(x, u, gain):
        xn = x * 0.9 + gain * sc.concat([u, u[:1]])
        return xn, sc.sumsqr(xn)

    @sc.function(sc.arg("x0", 3), sc.arg("U", (2, n)), sc.arg("gain", ()),
                 outputs=(sc.arg("xN"), sc.arg("costs")))
    def horizon(x0, U, gain):
        x, costs = x0, []
        for k in range(n):
            x, c = step(x, U[:, k], gain)
            costs.append(c)
        return x, sc.stack(costs)

    src = render_c_module(horizon).source
    assert "_raw" not in src and src.count("for (long long it = 0; it < 24; ++it) {") == 1
    rng = np.random.default_rng(3)
    x0, U, gain = rng.normal(size=3), rng.normal(size=(2, n)), 0.7
    x, costs = x0.copy(), []
    for k in range(n):
        x = x * 0.9 + gain * np.concatenate([U[:, k], U[:1, k]])
        costs.append(np.dot(x, x))
    got_x, got_costs = horizon(x0, U, gain)
    np.testing.assert_allclose(got_x, x, rtol=1e-13)
    np.testing.assert_allclose(got_costs, costs, rtol=1e-13)


def test_unrolled_model_computes_the_same(cache):
    """300 calls of two step functions in turn: no loop, the same numbers as NumPy."""
    fn = make_roll(300, name="roll300", alternate=True)
    assert _ops(fn, "scan") == 0 and _ops(fn, "call") == 300
    rng = np.random.default_rng(1)
    z0, us = rng.normal(size=2), rng.normal(size=300)
    np.testing.assert_allclose(fn(z0, us), reference(z0, us, alternate=True), rtol=1e-13,
                               atol=1e-13)


@pytest.mark.parametrize("pick", [irregular(300), lambda k: k // 2, lambda k: (7 * k + 3) % 300,
                                  lambda k: 5])
def test_rows_not_evenly_spaced_are_gathered_into_one_loop(cache, pick):
    """Rows 0, 1, 3, 6, ...; held for two steps (u[k // 2]); wrapping around; and the
    same row every step: one scan reading one gather (a constant row is passed whole),
    no call, and NumPy's numbers."""
    n = 300
    fn = make_roll(n, name=f"rows_{pick(2)}_{pick(3)}", pick=pick)
    assert _ops(fn, "scan") == 1 and _ops(fn, "call") == 0
    assert _ops(fn, "gather") == (0 if pick(0) == pick(1) == pick(7) else 1)
    src = render_c_module(fn).source
    assert "_raw" not in src and src.count("for (") <= 3
    rng = np.random.default_rng(1)
    z0, us = rng.normal(size=2), rng.normal(size=n)
    want = reference(z0, [us[pick(k)] for k in range(n)])
    np.testing.assert_allclose(fn(z0, us), want, rtol=1e-13, atol=1e-13)


@pytest.mark.parametrize("compiler", ["gcc", "clang-19"])
@pytest.mark.parametrize("block", [False, True])
def test_unrolled_module_compiles_warning_free(tmp_path, compiler, block):
    c_path, _ = render_c_module(make_roll(20, block=block)).write(str(tmp_path))
    subprocess.run([compiler, "-O3", "-fno-math-errno", "-Wall", "-Wextra", "-Werror", "-c",
                    c_path, "-o", str(tmp_path / "roll.o")], check=True)


def nested(depth):
    @sc.function(sc.arg("x", 2), outputs=sc.arg("y"))
    def f0(x):
        return x.sin()

    def nest(prev, d):
        def body(x):
            return prev(x) * 0.5 + float(d)
        body.__name__ = f"f{d}"
        return sc.function(sc.arg("x", 2), outputs=sc.arg("y"))(body)

    fn = f0
    for d in range(1, depth + 1):
        fn = nest(fn, d)
    return fn


def test_deeply_nested_calls_render_and_expand(cache):
    fn = nested(400)
    src = render_c_module(fn).source
    assert "_raw" not in src  # each function is called once: all expanded
    x = np.array([0.3, -1.2])
    want = np.sin(x)
    for d in range(1, 401):
        want = want * 0.5 + d
    np.testing.assert_allclose(fn(x), want, rtol=1e-14)


INTERRUPTED = textwrap.dedent("""
    import _thread, json, os, signal, threading, time
    import scaly as sc

    # A shell's background job starts with SIGINT ignored, and interrupt_main()
    # then does nothing: take Python's own handler whatever the parent did.
    signal.signal(signal.SIGINT, signal.default_int_handler)

    n = 10000

    @sc.function(sc.arg("z", 2), sc.arg("u", ()), outputs=sc.arg("znext"))
    def euler(z, u):
        return sc.stack([z[0] + 0.1 * z[1], z[1] + 0.1 * u.sin()])

    @sc.function(sc.arg("z", 2), sc.arg("u", ()), outputs=sc.arg("znext"))
    def euler_cos(z, u):
        return sc.stack([z[0] + 0.1 * z[1], z[1] + 0.1 * u.cos()])

    @sc.function(sc.arg("z0", 2), sc.arg("us", n), outputs=sc.arg("zN"))
    def roll(z0, us):
        z = z0
        for k in range(n):  # two steps in turn: n calls, a long build
            z = (euler if k % 2 else euler_cos)(z, us[k])
        return z

    sent = []
    def interrupt():
        time.sleep(0.5)
        sent.append(time.perf_counter())
        _thread.interrupt_main()
    threading.Thread(target=interrupt).start()
    try:
        roll.compile()
        outcome = "finished"
    except KeyboardInterrupt:
        outcome = "interrupted"
    late = time.perf_counter() - sent[0] if sent else None
    root = os.environ["SCALY_CACHE_DIR"]
    files = sorted(os.path.relpath(os.path.join(d, f), root)
                   for d, _, fs in os.walk(root) for f in fs)
    print(json.dumps({"outcome": outcome, "late": late, "files": files}))
""")


def test_long_build_is_interruptible(tmp_path):
    env = {k: v for k, v in os.environ.items() if not k.startswith("SCALY_")}
    env["SCALY_CACHE_DIR"] = str(tmp_path)
    proc = subprocess.run([sys.executable, "-c", INTERRUPTED], env=env, capture_output=True,
                          text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    result = json.loads(proc.stdout)
    print(result["late"])  # seconds from the interrupt to KeyboardInterrupt
    assert result["outcome"] == "interrupted"
    # Nothing compiled, nothing half-written: no artifact, no meta.json, no index
    # entry and no temporary file.
    for f in result["files"]:
        assert not f.endswith((".o", "meta.json")) and ".tmp." not in f, result["files"]
        assert not f.startswith("index"), result["files"]


@pytest.mark.parametrize("seed", range(6))
def test_random_chains_compute_the_same(cache, seed):
    """Chains built at random (length, start, spacing, direction, a break in the
    pattern, a shared gain) give what the same Python loop gives, rolled or not."""
    rng = np.random.default_rng(100 + seed)
    n = int(rng.integers(12, 48))
    size = 4 * n + 8
    start, delta = int(rng.integers(0, 4)), int(rng.choice([1, 2, 3]))
    if rng.random() < 0.5:  # walk backwards
        start, delta = size - 1 - start, -delta
    picks = [start + k * delta for k in range(n)]
    if rng.random() < 0.5:  # break the spacing once: two runs, or too short to roll
        at = int(rng.integers(1, n))
        picks[at:] = [p + int(rng.choice([-1, 1])) for p in picks[at:]]

    @sc.function(sc.arg("z", 2), sc.arg("u", ()), sc.arg("g", ()), outputs=sc.arg("znext"))
    def step(z, u, g):
        return sc.stack([z[0] + 0.1 * z[1], z[1] + g * u.sin() - 0.05 * z[0]])

    def chain(z0, us, g):
        z = z0
        for p in picks:
            z = step(z, us[p], g)
        return z
    chain.__name__ = f"chain{seed}"
    fn = sc.function(sc.arg("z0", 2), sc.arg("us", size), sc.arg("g", ()),
                     outputs=sc.arg("zN"))(chain)
    z0, us, g = rng.normal(size=2), rng.normal(size=size), float(rng.normal())
    z = z0.copy()
    for p in picks:
        z = np.array([z[0] + 0.1 * z[1], z[1] + g * np.sin(us[p]) - 0.05 * z[0]])
    np.testing.assert_allclose(fn(z0, us, g), z, rtol=1e-13, atol=1e-13)


def assert_gradient_in_us_matches_differences(cost, grad, z0, us, eps=1e-6):
    """grad(z0, us) against central differences of cost in each element of us."""
    fd = np.array([(cost(z0, us + eps * e) - cost(z0, us - eps * e)) / (2 * eps)
                   for e in np.eye(us.size)])
    np.testing.assert_allclose(np.ravel(grad(z0, us)), np.ravel(fd), rtol=1e-6, atol=1e-8)


def test_gradient_of_a_rolled_chain_matches_differences(cache):
    """The gradient through a rolled chain (a reverse scan) against central differences."""
    n = 40

    @sc.function(sc.arg("z", 2), sc.arg("u", ()), outputs=sc.arg("znext"))
    def step(z, u):
        return sc.stack([z[0] + 0.1 * z[1], z[1] + 0.1 * u.sin()])

    @sc.function(sc.arg("z0", 2), sc.arg("us", n), outputs=sc.arg("J"))
    def cost(z0, us):
        z = z0
        for k in range(n):
            z = step(z, us[k])
        return sc.sumsqr(z)

    grad = sc.gradient(cost, wrt="us")
    assert "for (" in render_c_module(grad).source and "_raw" not in render_c_module(grad).source
    rng = np.random.default_rng(5)
    assert_gradient_in_us_matches_differences(cost, grad, rng.normal(size=2), rng.normal(size=n))


# -- Tracing records the chain and builds the scan (Graph's lazy values) -----

def _ops(fn, name):
    return fn.mlir().count(f"expr.{name} ")


def euler_step():
    @sc.function(sc.arg("z", 2), sc.arg("u", ()), outputs=sc.arg("znext"))
    def euler(z, u):
        return sc.stack([z[0] + 0.1 * z[1], z[1] + 0.1 * u.sin()])
    return euler


def test_unrolled_chain_is_traced_as_one_scan():
    """The traced module itself holds one scan: no call of a step is ever built."""
    fn = make_roll(500)
    assert _ops(fn, "scan") == 1 and _ops(fn, "call") == 0
    assert "count 500" in fn.mlir()


@pytest.mark.parametrize("rows", ["spaced", "gathered"])
@pytest.mark.parametrize("kept", ["forward", "reversed", "one", "sumsqr", "negated"])
def test_states_kept_from_the_loop(cache, kept, rows):
    """States kept from inside the loop and used after it: the chain is built as
    calls (the state after step 5 first, or the final state first and a kept
    one after), and computes what NumPy's loop computes, whether the rows it
    reads are evenly spaced or not."""
    euler, n = euler_step(), 40
    pick = (lambda k: k) if rows == "spaced" else irregular(n)

    def kept_states(z0, us):
        z, states = z0, []
        for k in range(n):
            z = euler(z, us[pick(k)])
            states.append(z)
        if kept == "forward":
            return sc.stack(states)
        if kept == "reversed":
            return sc.stack(states[::-1])
        if kept == "sumsqr":  # the final state used (rolled) before the kept one
            return sc.sumsqr(z) + sc.sumsqr(states[5])
        if kept == "negated":
            return -z + states[5]
        return z + states[5]
    kept_states.__name__ = f"kept_{kept}_{rows}"
    fn = sc.function(sc.arg("z0", 2), sc.arg("us", n), outputs=sc.arg("out"))(kept_states)
    assert _ops(fn, "scan") == 0 and _ops(fn, "call") == n
    rng = np.random.default_rng(7)
    z0, us = rng.normal(size=2), rng.normal(size=n)
    states = [np.asarray(z0, float)]
    for u in us[[pick(k) for k in range(n)]]:
        z = states[-1]
        states.append(np.array([z[0] + 0.1 * z[1], z[1] + 0.1 * np.sin(u)]))
    want = {"forward": np.stack(states[1:]), "reversed": np.stack(states[1:][::-1]),
            "one": states[-1] + states[6], "negated": -states[-1] + states[6],
            "sumsqr": np.dot(states[-1], states[-1]) + np.dot(states[6], states[6])}[kept]
    np.testing.assert_allclose(fn(z0, us), want, rtol=1e-13, atol=1e-13)


def test_chain_with_a_row_indexed_again_each_step(cache):
    """p[0] indexed anew in every step is one value passed whole to the scan;
    the cost of the final state follows the chain."""
    n = 30

    @sc.function(sc.arg("z", 2), sc.arg("u", ()), sc.arg("g", ()), outputs=sc.arg("znext"))
    def step(z, u, g):
        return sc.stack([z[0] + 0.1 * z[1], z[1] + g * u.sin()])

    @sc.function(sc.arg("z0", 2), sc.arg("us", n), sc.arg("p", 3), outputs=sc.arg("J"))
    def cost(z0, us, p):
        z = z0
        for k in range(n):
            z = step(z, us[k], p[0])
        return sc.sumsqr(z)

    assert _ops(cost, "scan") == 1 and _ops(cost, "call") == 0
    rng = np.random.default_rng(8)
    z0, us, p = rng.normal(size=2), rng.normal(size=n), rng.normal(size=3)
    z = z0.copy()
    for u in us:
        z = np.array([z[0] + 0.1 * z[1], z[1] + p[0] * np.sin(u)])
    np.testing.assert_allclose(cost(z0, us, p), np.dot(z, z), rtol=1e-13)


def test_other_work_in_the_loop_builds_each_step(cache):
    """An op traced between the steps builds the steps as they come (the graph of
    eager tracing); the pipeline's pass still rolls the chain into one loop."""
    euler, n = euler_step(), 24

    @sc.function(sc.arg("z0", 2), sc.arg("us", n), outputs=(sc.arg("zN"), sc.arg("c")))
    def with_cost(z0, us):
        z, c = z0, 0.0
        for k in range(n):
            z = euler(z, us[k])
            c = c + 0.5 * z0
        return z, c

    assert _ops(with_cost, "call") == n
    assert "for (long long it" in render_c_module(with_cost).source
    rng = np.random.default_rng(9)
    z0, us = rng.normal(size=2), rng.normal(size=n)
    zN, c = with_cost(z0, us)
    np.testing.assert_allclose(zN, reference(z0, us), rtol=1e-13, atol=1e-13)
    np.testing.assert_allclose(c, 0.5 * n * z0, rtol=1e-13)


def test_final_and_kept_states_returned_together(cache):
    """Two outputs, the final state and one kept from the loop: one graph of calls."""
    euler, n = euler_step(), 20

    @sc.function(sc.arg("z0", 2), sc.arg("us", n), outputs=(sc.arg("zN"), sc.arg("z6")))
    def both(z0, us):
        z, states = z0, []
        for k in range(n):
            z = euler(z, us[k])
            states.append(z)
        return z, states[5]

    assert _ops(both, "scan") == 0 and _ops(both, "call") == n
    rng = np.random.default_rng(10)
    z0, us = rng.normal(size=2), rng.normal(size=n)
    zN, z6 = both(z0, us)
    np.testing.assert_allclose(zN, reference(z0, us), rtol=1e-13, atol=1e-13)
    np.testing.assert_allclose(z6, reference(z0, us[:6]), rtol=1e-13, atol=1e-13)


def test_exprs_of_one_call_steps_are_plain_exprs(cache):
    """x[k] and a Function applied to Exprs are each one call into the graph, which
    makes the Exprs itself: they are Exprs as Python makes them (graph, int id,
    not blocked) and trace on as any other."""
    from scaly._trace import Expr
    euler, seen = euler_step(), {}

    @sc.function(sc.arg("z0", 2), sc.arg("us", 3), outputs=sc.arg("zN"))
    def one_step(z0, us):
        u = us[1]
        z = euler(z0, u)
        for name, e in (("u", u), ("z", z)):
            seen[name] = (type(e), e._g is us._g, type(e._id), e._blocked, e.shape)
        return z * 2.0

    assert seen == {"u": (Expr, True, int, False, ()), "z": (Expr, True, int, False, (2,))}
    z0, us = np.array([0.5, -0.25]), np.array([0.1, 0.7, -0.3])
    np.testing.assert_allclose(one_step(z0, us), 2 * reference(z0, us[1:2]), rtol=1e-14)


def test_one_call_paths_hand_back_what_they_cannot_record(cache):
    """The C methods hand arguments that are not Exprs of one graph to Python, which
    converts them or reports them; wrong receivers and arities are errors."""
    from scaly._function import Function
    from scaly._trace import Expr
    euler = euler_step()
    z0 = np.array([0.5, -0.25])
    np.testing.assert_allclose(euler(z0, 0.5), reference(z0, [0.5]), rtol=1e-14)
    with pytest.raises(TypeError, match=r"euler\(\) takes 2 inputs.*got 0"):
        euler()
    with pytest.raises(TypeError, match="'Function' object"):
        Function.__call__(3, 4)
    seen = {}

    @sc.function(sc.arg("x", 3), outputs=sc.arg("y"))
    def arity(x):
        with pytest.raises(TypeError):
            Expr.__getitem__(x)
        seen["ok"] = True
        return x

    assert seen == {"ok": True}


def test_c_methods_hand_every_other_case_to_python(cache):
    """Expr.__getitem__ and Function.__call__ are C methods; what their fast cases
    do not cover behaves as the Python implementations say: keys other than ints
    in range, Python numbers converted into the graph, a compiled Function traced
    when called with Exprs, keywords and wrong counts reported, a kernel's own
    TypeError kept."""
    from scaly._function import Function
    from scaly._trace import Expr
    assert type(Expr.__dict__["__getitem__"]).__name__ == "method_descriptor"
    assert type(Function.__dict__["__call__"]).__name__ == "method_descriptor"
    euler = euler_step()
    euler.compile()  # a compiled Function, called below with Exprs: traced
    seen = {}

    @sc.function(sc.arg("z0", 2), sc.arg("us", 4), outputs=sc.arg("out"))
    def mixed(z0, us):
        with pytest.raises(IndexError, match="out of bounds|out of range"):
            us[2 ** 70]
        with pytest.raises(IndexError):
            us[4]
        seen["last"] = us[-1].shape
        seen["slice"] = us[1:3].shape
        z = euler(z0, 0.5)                 # a Python number converted into the graph
        z = euler(z, us[3])                # the compiled Function, traced
        with pytest.raises(TypeError, match="unexpected keyword argument 'u'.*by position"):
            euler(z, u=us[0])
        with pytest.raises(TypeError, match=r"euler\(\) takes 2 inputs"):
            euler(z)
        return z

    assert seen == {"last": (), "slice": (2,)}
    z0, us = np.array([0.5, -0.25]), np.array([0.1, 0.7, -0.3, 0.2])
    np.testing.assert_allclose(mixed(z0, us), reference(z0, [0.5, 0.2]), rtol=1e-14)
    with pytest.raises(TypeError, match="dtype float64, got numpy.complex128"):
        euler(np.zeros(2, complex), 0.5)
    with pytest.raises(TypeError, match="unexpected keyword argument 'z'"):
        euler(z=np.zeros(2), u=0.5)


def test_rows_of_a_matrix_gathered_with_a_stacked_output(cache):
    """Rows X[p_k] of a (m, 3) matrix at irregular p_k, with a second output per
    step: one scan over one gather, its stacked outputs, NumPy's numbers."""
    n, m = 30, 11
    picks = [(5 * k * k + 2) % m for k in range(n)]

    @sc.function(sc.arg("z", 2), sc.arg("x", 3), outputs=(sc.arg("znext"), sc.arg("y")))
    def step(z, x):
        zn = sc.stack([z[0] * 0.9 + x[0] * x[2], z[1] - 0.1 * (x[1] + z[0]).sin()])
        return zn, sc.sumsqr(zn - x[:2])

    @sc.function(sc.arg("z0", 2), sc.arg("X", (m, 3)), outputs=(sc.arg("zN"), sc.arg("ys")))
    def track(z0, X):
        z, ys = z0, []
        for p in picks:
            z, y = step(z, X[p])
            ys.append(y)
        return z, sc.stack(ys)

    # Traced as calls (the outputs are asked for step by step); the pass rolls them.
    src = render_c_module(track).source
    assert "_raw" not in src and src.count("for (long long it = 0; it < 30; ++it) {") == 1
    rng = np.random.default_rng(11)
    z0, X = rng.normal(size=2), rng.normal(size=(m, 3))
    z, ys = z0.copy(), []
    for p in picks:
        x = X[p]
        z = np.array([z[0] * 0.9 + x[0] * x[2], z[1] - 0.1 * np.sin(x[1] + z[0])])
        ys.append(np.sum((z - x[:2]) ** 2))
    got_z, got_ys = track(z0, X)
    np.testing.assert_allclose(got_z, z, rtol=1e-13, atol=1e-13)
    np.testing.assert_allclose(got_ys, ys, rtol=1e-13, atol=1e-13)


def test_gradient_through_gathered_rows_matches_differences(cache):
    """Rows held for three steps (u[k // 3]): the gradient with respect to u sums each
    row's three uses; checked against central differences."""
    n, size = 45, 15

    @sc.function(sc.arg("z", 2), sc.arg("u", ()), outputs=sc.arg("znext"))
    def step(z, u):
        return sc.stack([z[0] + 0.1 * z[1], z[1] + 0.1 * (u * z[0]).sin()])

    @sc.function(sc.arg("z0", 2), sc.arg("us", size), outputs=sc.arg("J"))
    def cost(z0, us):
        z = z0
        for k in range(n):
            z = step(z, us[k // 3])
        return sc.sumsqr(z)

    assert _ops(cost, "gather") == 1 and _ops(cost, "call") == 0
    grad = sc.gradient(cost, wrt="us")
    rng = np.random.default_rng(6)
    assert_gradient_in_us_matches_differences(cost, grad, rng.normal(size=2),
                                              rng.normal(size=size))


def test_pass_rolls_uneven_columns_and_passes_a_constant_row_whole(cache):
    """A state kept from step 5 makes the tracer build every step; the pass then
    rolls the 34 steps after it: columns U[::2, p_k] at uneven p_k through one
    gather, v[3] (one value, interned) passed whole.
    NumPy's numbers, and the gradient against central differences."""
    n, m = 40, 9
    picks = [(k * k + 3 * k) % m for k in range(n)]

    @sc.function(sc.arg("z", 2), sc.arg("u", 2), sc.arg("c", ()), outputs=sc.arg("znext"))
    def step(z, u, c):
        return sc.stack([z[0] + 0.1 * z[1] * u[1], z[1] + 0.1 * (u[0] * c).sin()])

    @sc.function(sc.arg("z0", 2), sc.arg("U", (4, m)), sc.arg("v", 5), outputs=sc.arg("out"))
    def kept(z0, U, v):
        z, states = z0, []
        for p in picks:
            z = step(z, U[::2, p], v[3])
            states.append(z)
        return sc.sumsqr(z + states[5])

    assert _ops(kept, "call") == n  # traced as calls; the pass rolls them
    src = render_c_module(kept).source
    assert src.count("for (long long it_out = 0; it_out < 34; ++it_out) {") == 1
    assert "step_raw" not in src
    assert src.count("static const int64_t scaly_table_") == 1  # U's columns only

    def numpy_kept(z0, U, v):
        z, states = np.array(z0, float), []
        for p in picks:
            u = U[::2, p]
            z = np.array([z[0] + 0.1 * z[1] * u[1], z[1] + 0.1 * np.sin(u[0] * v[3])])
            states.append(z)
        return np.sum((z + states[5]) ** 2)

    rng = np.random.default_rng(9)
    z0, U, v = rng.normal(size=2), rng.normal(size=(4, m)), rng.normal(size=5)
    np.testing.assert_allclose(kept(z0, U, v), numpy_kept(z0, U, v), rtol=1e-13)
    grad = sc.gradient(kept, wrt="U")
    eps = 1e-6
    fd = np.array([(numpy_kept(z0, U + eps * e.reshape(4, m), v)
                    - numpy_kept(z0, U - eps * e.reshape(4, m), v)) / (2 * eps)
                   for e in np.eye(4 * m)]).reshape(4, m)
    np.testing.assert_allclose(grad(z0, U, v), fd, rtol=1e-6, atol=1e-8)


@pytest.mark.parametrize("key", [True, False, np.int64(2), np.int32(-1)])
def test_keys_the_c_method_hands_to_python(cache, key):
    """Bools index as NumPy's masks do, NumPy integers as ints: the C method's int
    path takes only plain ints, the rest behaves as before."""
    seen = {}

    @sc.function(sc.arg("X", (3, 4)), outputs=sc.arg("y"))
    def pick(X):
        seen["shape"] = X[key].shape
        return X[key].sum()

    X = np.arange(12.0).reshape(3, 4)
    assert seen["shape"] == X[key].shape
    np.testing.assert_allclose(pick(X), X[key].sum())
