"""Scaling benchmark: how trace -> callable, C size and per-call time grow with array size.

    PYTHONPATH=python /usr/bin/python3 bench/scale.py [--repeat N] [--max-n N] [--skip-unrolled]
                                                      [--builds K]

Everything runs in one process on a fresh cache (a temporary SCALY_CACHE_DIR), and each
per-call time is printed next to NumPy's for the same computation, measured in the same
run. The process's first compile (a 3-element model, which sets up Clang and the object
loader once) is timed and printed on its own line before the cases. Every case is built
before any is timed per call, so no build follows NumPy's largest runs. Each case is built
--builds times (3 by default), each a new Function under a new name compiled afresh; the
first build and the median of all are printed (this machine's speed varies by up to 40%
from one second to the next, so one build can be a slow moment's). Cases (issue "structured IR", item 10):
  (a) (2*x).sin() + 1        n in 10 .. 10^6
  (b) sum(x), sumsqr(x)      n in 10 .. 10^6
  (c) A @ x, A @ B           n x n, n in 4 .. 256
  (d) a vmapped RK4 cart-pole step over n states, n in 10, 10^3, 10^5
  (e) a scan of n Euler steps of the cart-pole (sc.scan), n in 10, 10^3, 10^5
  (f) n unrolled Euler steps written as a Python for loop, n in 100, 10^3, 10^4
      (rolled back into one scan by scaly-roll-call-chains: tracing grows with n, the C not)
"""

import argparse
import itertools
import os
import statistics
import sys
import tempfile
import time
import timeit

os.environ["SCALY_CACHE_DIR"] = tempfile.mkdtemp(prefix="scaly-bench-scale-")
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "python"))

import numpy as np  # noqa: E402

import scaly as sc  # noqa: E402
from scaly.codegen import render_c_module  # noqa: E402
from cartpole import cartpole_dynamics, cartpole_numpy, rk4_numpy, rk4_step  # noqa: E402


def per_call_us(fn, args, repeat):
    number = 1
    while True:
        t = timeit.timeit(lambda: fn(*args), number=number)
        if t > 0.02 or number > 1 << 20:
            break
        number *= 4
    samples = [timeit.timeit(lambda: fn(*args), number=number) / number for _ in range(repeat)]
    return 1e6 * statistics.median(samples)


_BUILDS = itertools.count()


def fresh(pyfunc):
    """`pyfunc` under a name of its own: each build of a case is a new Function, compiled
    afresh (the cache holds objects by content, and the entry's name is part of it)."""
    pyfunc.__name__ = f"{pyfunc.__name__}_{next(_BUILDS)}"
    return pyfunc


def build(make, builds=1):
    """(first Function, seconds from decorator to callable of each of `builds` fresh builds)."""
    times, first = [], None
    for _ in range(builds):
        start = time.perf_counter()
        fn = make()
        fn.compile()
        times.append(time.perf_counter() - start)
        first = first or fn
    return first, times


def row(label, n, fn, times, args, reference, repeat):
    """One printed line: the first build, the median of all, C size and per call; without a
    reference (no NumPy counterpart), '-' for it."""
    c_bytes = len(render_c_module(fn).source)
    ours = per_call_us(fn, args, repeat)
    builds = f"{1e3 * times[0]:>8.1f} {1e3 * statistics.median(times):>8.1f}"
    if reference is None:
        print(f"{label:<14} {n:>8} {builds} {c_bytes / 1024:>8.1f} "
              f"{ours:>10.2f} {'-':>10} {'-':>7}")
    else:
        theirs = per_call_us(reference, args, repeat)
        print(f"{label:<14} {n:>8} {builds} {c_bytes / 1024:>8.1f} "
              f"{ours:>10.2f} {theirs:>10.2f} {ours / theirs:>7.2f}")
    sys.stdout.flush()


def elementwise(n):
    @sc.function(sc.arg("x", n), outputs=sc.arg("y"))
    @fresh
    def f(x):
        return (2 * x).sin() + 1
    return f


def total(n):
    @sc.function(sc.arg("x", n), outputs=sc.arg("s"))
    @fresh
    def f(x):
        return sc.sum(x)
    return f


def sumsqr(n):
    @sc.function(sc.arg("x", n), outputs=sc.arg("s"))
    @fresh
    def f(x):
        return sc.sumsqr(x)
    return f


def matvec(n):
    @sc.function(sc.arg("A", (n, n)), sc.arg("x", n), outputs=sc.arg("y"))
    @fresh
    def f(A, x):
        return A @ x
    return f


def matmat(n):
    @sc.function(sc.arg("A", (n, n)), sc.arg("B", (n, n)), outputs=sc.arg("C"))
    @fresh
    def f(A, B):
        return A @ B
    return f


@sc.function(sc.arg("s", 4), sc.arg("u", ()), outputs=sc.arg("s_next"))
def rk4(s, u):
    return rk4_step(cartpole_dynamics, s, u).block()


@sc.function(sc.arg("s", 4), sc.arg("u", ()), outputs=sc.arg("s_next"))
def euler_cartpole(s, u):
    return s + 0.01 * cartpole_dynamics(s, u)


def scanned_euler(n):
    @sc.function(sc.arg("s0", 4), sc.arg("U", n), outputs=sc.arg("sN"))
    @fresh
    def f(s0, U):
        final, _ = sc.scan(euler_cartpole, n)(s0, U)
        return final
    return f


def scanned_euler_numpy(s0, U):
    s = s0.copy()
    for u in U:
        s = s + 0.01 * cartpole_numpy(s[None, :], u)[0]
    return s


def vmapped_rk4(n):
    @sc.function(sc.arg("S", (n, 4)), sc.arg("U", n), outputs=sc.arg("S_next"))
    @fresh
    def f(S, U):
        return sc.vmap(rk4, n)(S, U)
    return f


@sc.function(sc.arg("z", 2), sc.arg("u", ()), outputs=sc.arg("znext"))
def euler(z, u):
    return sc.stack([z[0] + 0.1 * z[1], z[1] + 0.1 * u.sin()])


def unrolled(n):
    @sc.function(sc.arg("z0", 2), sc.arg("us", n), outputs=sc.arg("zn"))
    @fresh
    def f(z0, us):
        z = z0
        for k in range(n):
            z = euler(z, us[k])
        return z
    return f


def unrolled_numpy(z0, us):
    z = z0.copy()
    for u in us:
        z = np.array([z[0] + 0.1 * z[1], z[1] + 0.1 * np.sin(u)])
    return z


def cases(rng, max_n, skip_unrolled):
    """(label, n, make, call arguments, NumPy reference) of every case, in print order."""
    out = []
    sizes = [n for n in (10, 100, 1000, 10 ** 4, 10 ** 5, 10 ** 6) if n <= max_n]
    for n in sizes:
        out.append(("(a) sin", n, lambda n=n: elementwise(n), (rng.standard_normal(n),),
                    lambda x: np.sin(2 * x) + 1))
    for n in sizes:
        x = rng.standard_normal(n)
        out.append(("(b) sum", n, lambda n=n: total(n), (x,), np.sum))
        out.append(("(b) sumsqr", n, lambda n=n: sumsqr(n), (x,), lambda x: np.dot(x, x)))
    for n in (4, 16, 32, 64, 128, 256):
        A, B, x = rng.standard_normal((n, n)), rng.standard_normal((n, n)), rng.standard_normal(n)
        out.append(("(c) A@x", n, lambda n=n: matvec(n), (A, x), np.matmul))
        out.append(("(c) A@B", n, lambda n=n: matmat(n), (A, B), np.matmul))
    for n in (10, 1000, 10 ** 5):
        S, U = rng.standard_normal((n, 4)), rng.standard_normal(n)
        out.append(("(d) vmap rk4", n, lambda n=n: vmapped_rk4(n), (S, U), rk4_numpy))
    for n in (10, 1000, 10 ** 5):
        # NumPy has no scan: a Python loop over NumPy steps (only timed up to n = 1000).
        out.append(("(e) scan", n, lambda n=n: scanned_euler(n),
                    (rng.standard_normal(4), rng.standard_normal(n)),
                    scanned_euler_numpy if n <= 1000 else None))
    if not skip_unrolled:
        for n in (100, 1000, 10 ** 4):
            out.append(("(f) unrolled", n, lambda n=n: unrolled(n),
                        (rng.standard_normal(2), rng.standard_normal(n)), unrolled_numpy))
    return out


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=7)
    parser.add_argument("--max-n", type=int, default=10 ** 6)
    parser.add_argument("--skip-unrolled", action="store_true")
    parser.add_argument("--builds", type=int, default=3,
                        help="fresh builds of each case (the first and the median printed)")
    opts = parser.parse_args()
    rng = np.random.default_rng(0)
    # The first compile in a process also sets up Clang and the loader once:
    # printed on its own so the cases compare per-model costs.
    _, warmup = build(lambda: elementwise(3))
    print(f"process warm-up (first in-process compile, a 3-element model): "
          f"{1e3 * warmup[0]:.1f} ms")
    # Every build first, then every per-call timing: a build timed right after
    # NumPy's largest cases ran slower on our shared machines, whatever its size.
    built = [(label, n, *build(make, opts.builds), args, reference)
             for label, n, make, args, reference in cases(rng, opts.max_n, opts.skip_unrolled)]
    print("                      build[ms]")
    print("case               n    first   median   C[kB]  call[us]  numpy[us]   ratio")
    for label, n, fn, seconds, args, reference in built:
        row(label, n, fn, seconds, args, reference, opts.repeat)


if __name__ == "__main__":
    main()
