"""Vector lanes benchmark: per-call time at lanes 1, 2, 4, 8, without and with glibc's vector math.

    PYTHONPATH=python SCALY_BUILD_DIR=build /usr/bin/python3 bench/vectors.py [--repeat N]

The JIT renders the host recipe (lanes from the probe, libmvec when glibc has
it); SCALY_LANES and SCALY_VECTOR_LIBM override it, are read whenever a
function is compiled and enter the cache key. So one process, on a fresh cache
(a temporary SCALY_CACHE_DIR), builds every model once per configuration

    lanes=1 (scalar libm), lanes in {2, 4, 8} x vector_libm in {none, glibc}

from a fresh Function, checks its result against NumPy (assert_allclose, rtol
1e-13, atol 1e-14: a wrong fast result is never reported) and times all
configurations and NumPy round-robin, sample by sample, so drift hits them all
alike (median of --repeat samples, each >= ~20 ms of calls). Models:

  waves     the seed's 64-element sin, x.sin()
  sin 4096  (2*x).sin() + 1 over 4096 elements, a sin-heavy map
  rollout   the seed's map of N = 10^4 Euler stages, euler(z, u) =
            [z0 + 0.1 z1, z1 + 0.1 sin u], vmapped over zs.reshape((N, 2)), us
  rk4       one RK4 step (h = 0.01) of the cart-pole of bench/scale.py, vmapped
            over N = 10^4 states (N, 4) and forces (N,): the step expanded into
            the map's loop (widened), and .block()ed as in bench/scale.py (its own
            C procedure, called once per state: a loop of calls is not widened)
  rational  ((x*1.5 + 2)*x - 0.5) / (1 + x*x) over 10^6 elements
  exp/log   exp(0.5 x) + log(1 + x*x) over 10^6 elements

Arrays of at most 64 elements are scalarized with lanes=1, and of at most
15 with lanes (render_native's scalarize_limit), so the 64-element waves is
straight-line code at lanes=1 and a widened loop otherwise. The `code`
column says what was compiled: a loop or straight-line code, xL when the
entry's outer loop is widened to L lanes, "inner xL" when only inner loops are
(a map whose body holds loops of its own), +mvec when libmvec is called.
`build` is trace -> callable (defining the Function and compiling it on the
fresh cache). `speedup` is lanes=1's time over this one's; `t/numpy` is this
time over NumPy's (< 1: faster than NumPy); `max|d|` the largest difference
from NumPy's result. The call overhead printed first is a 1-element `x + 1`.

Targets of the vector lanes issue, checked at the end: sin-heavy maps >= 3x
faster than lanes=1 at lanes=8 with libmvec (the 4096-element sin map); the
rollout <= 2 ns per stage (CasADi: 8.3 ns per stage, scalar). The 3x bar is also
shown for the other models, for information.
"""

import argparse
import os
import statistics
import sys
import tempfile
import time

os.environ["SCALY_CACHE_DIR"] = tempfile.mkdtemp(prefix="scaly-bench-vectors-")
for _var in ("SCALY_LANES", "SCALY_VECTOR_LIBM"):
    os.environ.pop(_var, None)
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "python"))

import numpy as np  # noqa: E402

import scaly as sc  # noqa: E402
from cartpole import cartpole_dynamics, rk4_numpy, rk4_step  # noqa: E402
from scaly.codegen import render_native  # noqa: E402
from scaly.runtime import jit  # noqa: E402

RTOL, ATOL = 1e-13, 1e-14
N_STAGES = 10 ** 4
N_BIG = 10 ** 6
CASADI_NS_PER_STAGE = 8.3


# -- models: each factory returns a fresh Function (a Function keeps its kernel) --

def waves_model():
    @sc.function(sc.arg("x", 64), outputs=sc.arg("y"))
    def waves(x):
        return x.sin()
    return waves


def sin_map_model(n):
    def make():
        @sc.function(sc.arg("x", n), outputs=sc.arg("y"))
        def sin_map(x):
            return (2 * x).sin() + 1
        return sin_map
    return make


def rollout_model(n):
    def make():
        @sc.function(sc.arg("z", 2), sc.arg("u", ()), outputs=sc.arg("znext"))
        def euler(z, u):
            return sc.stack([z[0] + 0.1 * z[1], z[1] + 0.1 * u.sin()])

        @sc.function(sc.arg("zs", 2 * n), sc.arg("us", n), outputs=sc.arg("zn"))
        def rollout(zs, us):
            return sc.vmap(euler, n)(zs.reshape((n, 2)), us).vec()
        return rollout
    return make


def rollout_numpy(zs, us):
    z = zs.reshape(-1, 2)
    return np.stack([z[:, 0] + 0.1 * z[:, 1], z[:, 1] + 0.1 * np.sin(us)], axis=1).ravel()


def rk4_model(n, blocked):
    """`blocked`: the step carries .block() as in bench/scale.py, so it stays its own C
    procedure called once per state (a loop of calls, which the lanes do not widen);
    otherwise it is expanded into the map's loop, which they do."""
    def make():
        @sc.function(sc.arg("s", 4), sc.arg("u", ()), outputs=sc.arg("s_next"))
        def rk4(s, u):
            s_next = rk4_step(cartpole_dynamics, s, u)
            return s_next.block() if blocked else s_next

        @sc.function(sc.arg("S", (n, 4)), sc.arg("U", n), outputs=sc.arg("S_next"))
        def rk4_map(S, U):
            return sc.vmap(rk4, n)(S, U)
        return rk4_map
    return make


def rational_model(n):
    def make():
        @sc.function(sc.arg("x", n), outputs=sc.arg("y"))
        def rational(x):
            return ((x * 1.5 + 2.0) * x - 0.5) / (1.0 + x * x)
        return rational
    return make


def explog_model(n):
    def make():
        @sc.function(sc.arg("x", n), outputs=sc.arg("y"))
        def explog(x):
            return (0.5 * x).exp() + (1.0 + x * x).log()
        return explog
    return make


def overhead_model():
    @sc.function(sc.arg("x", 1), outputs=sc.arg("y"))
    def plus_one(x):
        return x + 1.0
    return plus_one


# -- timing -------------------------------------------------------------------

def _sample(fn, args, number):
    start = time.perf_counter()
    for _ in range(number):
        fn(*args)
    return (time.perf_counter() - start) / number


def _calibrate(fn, args, target=0.02):
    number = 1
    while True:
        t = _sample(fn, args, number) * number
        if t >= target or number >= 1 << 20:
            return number
        number *= max(2, min(16, int(target / max(t, 1e-9)) + 1))


def time_round_robin(entries, args, repeat):
    """Median seconds per call of each callable, sampled in turn `repeat` times."""
    for fn in entries:
        fn(*args)  # warm
    numbers = [_calibrate(fn, args) for fn in entries]
    samples = [[] for _ in entries]
    for _ in range(repeat):
        for k, (fn, number) in enumerate(zip(entries, numbers)):
            samples[k].append(_sample(fn, args, number))
    return [statistics.median(s) for s in samples]


# -- configurations -------------------------------------------------------------

def set_config(lanes, libm):
    os.environ["SCALY_LANES"] = str(lanes)
    os.environ["SCALY_VECTOR_LIBM"] = libm


def configurations():
    """(lanes, vector_libm) pairs; glibc ones only when libmvec is available."""
    configs = [(1, "none")]
    glibc_ok = True
    try:
        set_config(8, "glibc")
        jit._compiler()
    except jit.CompileError as e:
        glibc_ok = False
        print(f"# vector_libm=glibc unavailable, skipped: {e}")
    for lanes in (2, 4, 8):
        configs.append((lanes, "none"))
        if glibc_ok:
            configs.append((lanes, "glibc"))
    return configs


def code_kind(fn, cc):
    """What the JIT compiled: 'straight' (no loop) or 'loop'; ' xL' when the entry's
    outer loops step by L lanes, ' inner xL' when only inner loops do; ' +mvec' when
    libmvec is called."""
    src = render_native(fn, cc.fp_contract, cc.lanes, cc.vector_libm).source
    if "for (" not in src:
        kind = "straight"
    else:
        kind = "loop"
        step = f"+= {cc.lanes})"
        entry = src[src.index(f"int {fn.name}("):].splitlines()
        if cc.lanes > 1 and any(line.startswith("  for (") and step in line for line in entry):
            kind += f" x{cc.lanes}"
        elif cc.lanes > 1 and step in src:
            kind += f" inner x{cc.lanes}"
    if "_ZGV" in src:
        kind += " +mvec"
    return kind


def run_model(title, make, args, reference, configs, repeat, per=None):
    """Build, check and time `make()` in every configuration next to NumPy; print a
    table; return {(lanes, libm): seconds per call} and NumPy's seconds."""
    expected = reference(*args)
    built = []
    for lanes, libm in configs:
        set_config(lanes, libm)
        start = time.perf_counter()
        fn = make()
        fn.compile()
        build_s = time.perf_counter() - start
        cc = jit._compiler()
        assert (cc.lanes, cc.vector_libm) == (lanes, libm), (cc.lanes, cc.vector_libm)
        got = np.asarray(fn(*args))
        np.testing.assert_allclose(got, expected, rtol=RTOL, atol=ATOL,
                                   err_msg=f"{title}: lanes={lanes} vector_libm={libm}")
        err = float(np.max(np.abs(got - expected))) if got.size else 0.0
        built.append((lanes, libm, fn, build_s, code_kind(fn, cc), err))
    times = time_round_robin([b[2] for b in built] + [reference], args, repeat)
    numpy_s = times[-1]
    base = times[0]
    print(f"\n== {title}")
    unit = f"{per[0]:>9}" if per else ""
    print(f"{'lanes':>5} {'libm':<6} {'code':<18} {'build ms':>9} {'call us':>10} {unit}"
          f"{'speedup':>8} {'t/numpy':>8} {'max|d|':>8}")
    result = {}
    for (lanes, libm, fn, build_s, kind, err), t in zip(built, times):
        extra = f"{1e9 * t / per[1]:>9.3f}" if per else ""
        print(f"{lanes:>5} {libm:<6} {kind:<18} {1e3 * build_s:>9.1f} {1e6 * t:>10.3f} {extra}"
              f"{base / t:>8.2f} {t / numpy_s:>8.3f} {err:>8.1e}")
        result[(lanes, libm)] = t
    extra = f"{1e9 * numpy_s / per[1]:>9.3f}" if per else ""
    print(f"{'numpy':>5} {'':<6} {'':<18} {'':>9} {1e6 * numpy_s:>10.3f} {extra}"
          f"{base / numpy_s:>8.2f} {1.0:>8.3f}")
    sys.stdout.flush()
    return result, numpy_s


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=9)
    opts = parser.parse_args()
    rng = np.random.default_rng(0)

    host = jit._compiler()
    print(f"host recipe: {host.recipe()}  (cores: {os.cpu_count()}, numpy {np.__version__})")
    configs = configurations()
    print("configurations: " + ", ".join(f"lanes={l} libm={m}" for l, m in configs))

    set_config(1, "none")
    trivial = overhead_model().compile()
    (overhead,) = time_round_robin([trivial], (np.ones(1),), opts.repeat)
    print(f"call overhead (x + 1 on a 1-element array, lanes=1): {1e6 * overhead:.3f} us")
    start = time.perf_counter()

    x64 = np.linspace(-3.0, 3.0, 64)
    x4k = rng.uniform(-3.0, 3.0, 4096)
    zs, us = rng.standard_normal(2 * N_STAGES), rng.standard_normal(N_STAGES)
    S, U = rng.standard_normal((N_STAGES, 4)), rng.standard_normal(N_STAGES)
    xbig = rng.uniform(-3.0, 3.0, N_BIG)

    waves, waves_np = run_model("waves: x.sin(), n = 64 (the seed)", waves_model, (x64,), np.sin,
                                configs, opts.repeat, per=("ns/elem", 64))
    sinmap, sinmap_np = run_model("sin map: (2*x).sin() + 1, n = 4096", sin_map_model(4096),
                                  (x4k,), lambda x: np.sin(2 * x) + 1, configs, opts.repeat,
                                  per=("ns/elem", 4096))
    roll, roll_np = run_model(f"rollout: vmap(euler, N), N = {N_STAGES} stages",
                              rollout_model(N_STAGES), (zs, us), rollout_numpy, configs,
                              opts.repeat, per=("ns/stage", N_STAGES))
    rk4, rk4_np = run_model(f"rk4: vmap(cart-pole RK4 step, N), N = {N_STAGES}, step expanded "
                            "into the map", rk4_model(N_STAGES, False), (S, U), rk4_numpy,
                            configs, opts.repeat, per=("ns/state", N_STAGES))
    rk4b, rk4b_np = run_model(f"rk4 blocked: the same with the step .block()ed as in "
                              f"bench/scale.py (a loop of calls), N = {N_STAGES}",
                              rk4_model(N_STAGES, True), (S, U), rk4_numpy, configs,
                              opts.repeat, per=("ns/state", N_STAGES))
    rat, rat_np = run_model(f"rational: ((x*1.5 + 2)*x - 0.5) / (1 + x*x), n = {N_BIG}",
                            rational_model(N_BIG), (xbig,),
                            lambda x: ((x * 1.5 + 2.0) * x - 0.5) / (1.0 + x * x), configs,
                            opts.repeat, per=("ns/elem", N_BIG))
    exl, exl_np = run_model(f"exp/log: exp(0.5 x) + log(1 + x*x), n = {N_BIG}",
                            explog_model(N_BIG), (xbig,),
                            lambda x: np.exp(0.5 * x) + np.log(1.0 + x * x), configs,
                            opts.repeat, per=("ns/elem", N_BIG))

    best_key = (8, "glibc") if (8, "glibc") in roll else (8, "none")
    print(f"\n== targets (at lanes={best_key[0]} vector_libm={best_key[1]}, "
          f"the host recipe here: lanes={host.lanes} vector_libm={host.vector_libm})")

    def target(label, ok, text):
        print(f"  [{'met' if ok else 'NOT met':>7}] {label}: {text}")

    def speedup_target(label, table):
        speedup = table[(1, "none")] / table[best_key]
        target(f"{label} >= 3x lanes=1", speedup >= 3.0, f"{speedup:.2f}x "
               f"({1e6 * table[(1, 'none')]:.3f} us -> {1e6 * table[best_key]:.3f} us)")

    speedup_target("sin map n=4096", sinmap)
    ns = 1e9 * roll[best_key] / N_STAGES
    target("rollout <= 2 ns/stage", ns <= 2.0,
           f"{ns:.3f} ns/stage (CasADi {CASADI_NS_PER_STAGE} ns/stage: "
           f"{CASADI_NS_PER_STAGE / ns:.1f}x; "
           f"lanes=1: {1e9 * roll[(1, 'none')] / N_STAGES:.3f} ns/stage; "
           f"numpy: {1e9 * roll_np / N_STAGES:.3f} ns/stage)")
    print("  the same 3x bar on the other models (not targets of the issue):")
    for label, table in (("waves n=64", waves), ("rollout", roll), ("rk4 expanded", rk4),
                         ("rk4 blocked", rk4b), ("rational chain", rat), ("exp/log chain", exl)):
        speedup_target(label, table)
    print(f"\n(models: {time.perf_counter() - start:.1f} s; cache {os.environ['SCALY_CACHE_DIR']})")


if __name__ == "__main__":
    main()
