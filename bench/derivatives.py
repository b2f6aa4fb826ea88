"""Derivative benchmark: the luksan problem at growing n, next to NumPy/SciPy.

    PYTHONPATH=python /usr/bin/python3 bench/derivatives.py [--repeat N] [--max-n N] [--builds K]
    PYTHONPATH=python /usr/bin/python3 bench/derivatives.py --dense-sin [N ...]

The problem of CasADi issue #3490 (Luksan and Vlcek's chained Rosenbrock
objective with n - 2 trigonometric-exponential constraints, IPOPT's
LuksanVlcek1):

    f(x)   = sum_i 100 (x_i^2 - x_{i+1})^2 + (x_i - 1)^2,             i = 0 .. n-2
    g_k(x) = 3 x_{k+1}^3 + 2 x_{k+2} - 5 + sin(x_{k+1} - x_{k+2}) sin(x_{k+1} + x_{k+2})
             + 4 x_{k+1} - x_k exp(x_k - x_{k+1}) - 3,                 k = 0 .. n-3

f is written with slices, g with sc.vmap over the constraint triples. For n
in {100, 10^3, 10^4, 10^5} it prints, from a fresh cache in one process (after a line
timing the process's first compile, and with every function built before any is evaluated):
trace -> callable of every function (the median and range of --builds fresh builds, 3 by
default: new Functions under new names each time, as this machine's speed varies by up to
40% from one second to the next), and per-evaluation time of f, g, the
gradient of f, the sparse Jacobian of g and the sparse Hessian of the
Lagrangian f + lam . g, each next to a NumPy/SciPy baseline (f and g in
NumPy; derivatives by SciPy's grouped sparse finite differences,
scipy.optimize._numdiff.approx_derivative with the sparsity pattern), with
the ratio Scaly / baseline. Scaly's time is the numerical call returning the
stored values (the scipy.sparse matrix built around them costs 15-20 us more
at n = 1000 and ~0.1 ms at 10^5, in Python, and nothing in C). fg reuses the
Jacobian built just before it (a Function keeps its derivatives, as CasADi's
do). CasADi's figures at n = 1000 (ANCHORS.md): fg
(g and its Jacobian, f and its gradient) 31.5 us, Hessian 23.3 us, after
36 s of gcc.
"""

import argparse
import os
import statistics
import sys
import tempfile
import time
import timeit

os.environ["SCALY_CACHE_DIR"] = tempfile.mkdtemp(prefix="scaly-bench-derivatives-")
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "python"))

import numpy as np  # noqa: E402
import scipy.sparse  # noqa: E402
from scipy.optimize._numdiff import approx_derivative  # noqa: E402

import scaly as sc  # noqa: E402


def per_call_us(fn, args, repeat):
    number = 1
    while True:
        t = timeit.timeit(lambda: fn(*args), number=number)
        if t > 0.02 or number > 1 << 16:
            break
        number *= 4
    samples = [timeit.timeit(lambda: fn(*args), number=number) / number for _ in range(repeat)]
    return 1e6 * statistics.median(samples)


def luksan(n, tag=""):
    """The Scaly functions of the luksan problem of size n (names end in `tag`: a
    Function of another name is a fresh build, not a cache hit)."""
    def objective(x):
        a, b = x[:-1], x[1:]
        return (100 * (a * a - b) ** 2 + (a - 1) ** 2).sum()

    def constraint(x0, x1, x2):
        return (3 * x1 ** 3 + 2 * x2 - 5 + sc.sin(x1 - x2) * sc.sin(x1 + x2) + 4 * x1
                - x0 * sc.exp(x0 - x1) - 3)

    def constraints(x):
        return sc.vmap(constraint, n - 2)(x[:-2], x[1:-1], x[2:])

    def lagrangian(x, lam):
        return objective(x) + (lam * constraints(x)).sum()

    for fn in (objective, constraint, constraints, lagrangian):
        fn.__name__ += tag
    # Traced in order: each body calls the Functions traced before it.
    objective = sc.function(sc.arg("x", n), outputs=sc.arg("f"))(objective)
    constraint = sc.function(sc.arg("x0", ()), sc.arg("x1", ()), sc.arg("x2", ()),
                             outputs=sc.arg("c"))(constraint)
    constraints = sc.function(sc.arg("x", n), outputs=sc.arg("g"))(constraints)
    lagrangian = sc.function(sc.arg("x", n), sc.arg("lam", n - 2),
                             outputs=sc.arg("L"))(lagrangian)
    return objective, constraints, lagrangian


def fg_function(objective, constraints, n):
    grad = sc.gradient(objective)
    jac = sc.jacobian(constraints, layout="csc")

    def fg(x):
        return objective(x), constraints(x), grad(x), jac(x)

    fg.__name__ = f"fg{objective.name[len('objective'):]}"
    return sc.function(sc.arg("x", n), outputs=(sc.arg("f"), sc.arg("g"), sc.arg("grad"),
                                                sc.arg("jac")))(fg)


def numpy_luksan():
    def f(x):
        a, b = x[:-1], x[1:]
        return np.sum(100 * (a * a - b) ** 2 + (a - 1) ** 2)

    def g(x):
        x0, x1, x2 = x[:-2], x[1:-1], x[2:]
        return (3 * x1 ** 3 + 2 * x2 - 5 + np.sin(x1 - x2) * np.sin(x1 + x2) + 4 * x1
                - x0 * np.exp(x0 - x1) - 3)

    return f, g


def banded(rows, cols, offsets):
    """A 0/1 sparsity pattern with the given diagonal offsets."""
    diagonals = [np.ones(min(rows, cols)) for _ in offsets]
    return scipy.sparse.diags(diagonals, offsets, shape=(rows, cols), format="csc")


def warm_up():
    @sc.function(sc.arg("x", 3), outputs=sc.arg("y"))
    def warm(x):
        return (x * x).sum()
    return warm


def problem(n, tag=""):
    """The six cases at size n: (label, make, call arguments, NumPy/SciPy baseline),
    and the time to trace the three luksan functions (named with `tag`)."""
    rng = np.random.default_rng(0)
    x = rng.uniform(-1, 1, n)
    lam = rng.uniform(-1, 1, n - 2)
    fn, gn = numpy_luksan()
    jac_sparsity = banded(n - 2, n, [0, 1, 2])
    hess_sparsity = banded(n, n, [-2, -1, 0, 1, 2])

    def numpy_gradient(x):
        return approx_derivative(fn, x, method="2-point")  # one row: n evaluations

    def numpy_jacobian(x):
        return approx_derivative(gn, x, method="2-point", sparsity=jac_sparsity)

    def lagrangian_gradient(x):
        # f's gradient exactly (NumPy), g's part as J^T lam from grouped differences.
        a, b = x[:-1], x[1:]
        grad = np.zeros(n)
        grad[:-1] += 400 * (a * a - b) * a + 2 * (a - 1)
        grad[1:] += -200 * (a * a - b)
        return grad + numpy_jacobian(x).T @ lam

    def numpy_hessian(x):
        return approx_derivative(lagrangian_gradient, x, method="2-point",
                                 sparsity=hess_sparsity)

    start = time.perf_counter()
    objective, constraints, lagrangian = luksan(n, tag)
    trace_s = time.perf_counter() - start
    cases = [
        ("f", lambda: objective, (x,), fn),
        ("g", lambda: constraints, (x,), gn),
        ("grad f", lambda: sc.gradient(objective), (x,), numpy_gradient),
        ("jac g (csc)", lambda: sc.jacobian(constraints, layout="csc"), (x,), numpy_jacobian),
        ("hess L (csc)", lambda: sc.hessian(lagrangian, wrt="x", layout="csc"), (x, lam),
         lambda x, lam: numpy_hessian(x)),
        # CasADi's "fg": f, g, the gradient and the sparse Jacobian in one function,
        # sharing the primal work (one trace; CSE merges the recomputations).
        ("fg (f,g,grad,jac)", lambda: fg_function(objective, constraints, n), (x,),
         lambda x: (fn(x), gn(x), numpy_gradient(x), numpy_jacobian(x))),
    ]
    return cases, trace_s


def dense_sin(sizes):
    """The dense (n x n, diagonal) Jacobian of sin(x): build, first call (render, C
    compile, load, evaluate), later calls (median), next to NumPy allocating and
    zero-filling an n x n array once (what writing the output costs at least), and the
    size of the C; each n from a fresh cache. Issue 33: the matrix was assembled through
    a table of n^2 positions in the C (n = 3000: 15 s to the first value, 56 MB of C;
    n = 10^4: 263 s, 725 MB); one expr.scatter now (fill with zeros, write the entries).
    """
    print(f"{'n':>7} {'dense sin jacobian':<20} {'build s':>8} {'first call s':>13} "
          f"{'call ms':>8} {'zero-fill ms':>13} {'C bytes':>12}")
    for n in sizes:
        root = tempfile.mkdtemp(prefix="scaly-bench-dense-")
        os.environ["SCALY_CACHE_DIR"] = root
        def sine(x):
            return sc.sin(x)

        sine.__name__ = f"dense_sine_{n}"
        f = sc.function(sc.arg("x", n), outputs=sc.arg("y"))(sine)
        x = np.linspace(0.1, 1.0, n)
        start = time.perf_counter()
        J = sc.jacobian(f)
        built = time.perf_counter() - start
        start = time.perf_counter()
        value = J(x)
        first = time.perf_counter() - start
        assert (np.allclose(np.diagonal(value), np.cos(x), rtol=1e-14, atol=0)
                and np.count_nonzero(value) == n), "wrong Jacobian"
        del value
        again = per_call_us(J, [x], 3) / 1e6
        # What writing the output costs at least: a fresh n x n array filled with zeros.
        start = time.perf_counter()
        np.empty((n, n)).fill(0.0)
        fill = time.perf_counter() - start
        c_bytes = sum(os.path.getsize(os.path.join(d, name))
                      for d, _, names in os.walk(root) for name in names if name.endswith(".c"))
        print(f"{n:>7} {'':<20} {built:>8.2f} {first:>13.2f} {1e3 * again:>8.1f} "
              f"{1e3 * fill:>13.1f} {c_bytes:>12}")
        sys.stdout.flush()


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--max-n", type=int, default=10 ** 5)
    parser.add_argument("--builds", type=int, default=3,
                        help="fresh builds of each function per n (median printed)")
    parser.add_argument("--dense-sin", type=int, nargs="*", metavar="N",
                        help="only time the dense Jacobian of sin(x) at these n "
                             "(default 1000 3000 10000)")
    args = parser.parse_args()
    if args.dense_sin is not None:
        dense_sin(args.dense_sin or [1000, 3000, 10000])
        return
    sizes = [n for n in (100, 1000, 10 ** 4, 10 ** 5) if n <= args.max_n]
    # The first compile in a process also sets up Clang and the loader once:
    # timed and printed on its own so the first case compares per-model costs.
    start = time.perf_counter()
    warm_up().compile()
    print(f"process warm-up (first in-process compile, a 3-element model): "
          f"{1e3 * (time.perf_counter() - start):.1f} ms")
    # Every build first (each n, each function), then every evaluation: a build
    # timed right after seconds of SciPy's finite differences ran up to 2x slower
    # on our shared machines, whatever n was (the same C compiles in the same time
    # when nothing heavy ran before it).
    built, labels, build_s, alive = {}, {}, {}, []
    for n in sizes:
        # Each repetition builds every function afresh: new Functions under new
        # names (so nothing comes from the cache or a Function's derivatives),
        # and their tables stay alive, so each touches memory of its own.
        for rep in range(args.builds):
            cases, trace_s = problem(n, f"_{rep}" if rep else "")
            labels[n] = [label for label, _, _, _ in cases]
            for label, make, call_args, baseline in cases:
                start = time.perf_counter()
                fn = make()
                fn.compile()
                seconds = time.perf_counter() - start + (trace_s if label in ("f", "g") else 0.0)
                build_s.setdefault((n, label), []).append(seconds)
                alive.append(fn)
                if not rep:
                    built[n, label] = (fn, call_args, baseline)
    print(f"{'n':>7} {'function':<18} {'build ms':>9} {'(range)':>13} {'scaly us':>10} "
          f"{'numpy us':>10} {'ratio':>7}")
    for n in sizes:
        for label in labels[n]:
            fn, call_args, baseline = built[n, label]
            times = build_s[n, label]
            build = (f"{1e3 * statistics.median(times):>9.1f} "
                     f"{f'({1e3 * min(times):.0f}-{1e3 * max(times):.0f})':>13}")
            # Time the evaluation (values in compressed-column order), not the
            # construction of a scipy.sparse matrix around them (15-100 us).
            evaluate = (lambda *a, fn=fn: sc.Function.__call__(fn, *a))
            ours = per_call_us(evaluate, call_args, args.repeat)
            # A dense gradient by differences costs n evaluations of f: skipped above 10^4.
            if label in ("grad f", "fg (f,g,grad,jac)") and n > 10 ** 4:
                print(f"{n:>7} {label:<18} {build} {ours:>10.2f} {'-':>10} {'-':>7}")
                continue
            theirs = per_call_us(baseline, call_args, max(1, args.repeat // 2))
            print(f"{n:>7} {label:<18} {build} {ours:>10.2f} {theirs:>10.2f} "
                  f"{ours / theirs:>7.3f}")
            sys.stdout.flush()


if __name__ == "__main__":
    main()
