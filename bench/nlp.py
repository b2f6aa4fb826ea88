"""NLP benchmark: the luksan problem solved by IPOPT and Scaly SQP at growing n.

    PYTHONPATH=python /usr/bin/python3 bench/nlp.py [--max-n N] [--repeat K]

The problem of CasADi issue #3490 (IPOPT's LuksanVlcek1: Luksan and Vlcek's
chained Rosenbrock objective with n - 2 chained trigonometric-exponential
equality constraints, from x0 = (-1.2, 1, -1.2, 1, ...)), authored once with
sc.nlp; f is written with slices and g with sc.vmap over the constraint
triples, so the oracles the derivative passes make stay loops at any n. For
n in {100, 10^3, 10^4, 10^5} and each backend it prints, in one process from a
fresh cache: the build (trace, oracles, render and compile to a callable),
the status and iterations, and the solve's time split as the statistics
report it: t_fe (oracles), t_solver (the solver's own work: IPOPT's, or SQP's
Hessian convexification), t_qp (SQP's QP subproblems), t_globalization (SQP's
line search) and the total, the median of --repeat solves. The anchor
(ANCHORS.md): IPOPT 3.11.9 through CasADi on n = 100, 6 iterations in 3.8 ms.
"""

import argparse
import os
import statistics
import sys
import tempfile
import time

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "python"))
os.environ.setdefault("SCALY_CACHE_DIR", tempfile.mkdtemp(prefix="scaly-bench-nlp-"))

import scaly as sc  # noqa: E402


def objective(x):
    a, b = x[:-1], x[1:]
    return (100 * (a * a - b) ** 2 + (a - 1) ** 2).sum()


@sc.function(sc.arg("x0", ()), sc.arg("x1", ()), sc.arg("x2", ()), outputs=sc.arg("c"))
def constraint(x0, x1, x2):
    return (3 * x1 ** 3 + 2 * x2 - 5 + sc.sin(x1 - x2) * sc.sin(x1 + x2) + 4 * x1
            - x0 * sc.exp(x0 - x1) - 3)


def luksan_solver(n, solver):
    """A Function x0 -> x solving the luksan problem of size n with `solver`."""
    def constraints(x):
        return sc.vmap(constraint, n - 2)(x[:-2], x[1:-1], x[2:])

    def solve(x0):
        x, lam_g, lam_x = sc.nlp(objective, constraints, x0=x0, lbg=np.zeros(n - 2),
                                 ubg=np.zeros(n - 2), solver=solver)
        return x

    solve.__name__ = f"luksan_{solver}_{n}"
    return sc.function(sc.arg("x0", n), outputs=sc.arg("x"))(solve)


def start(n):
    x0 = np.ones(n)
    x0[::2] = -1.2
    return x0


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--max-n", type=int, default=100000)
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args()
    print(f"{'n':>7} {'solver':>6} {'build s':>8} {'status':>10} {'iter':>5} {'total ms':>9} "
          f"{'t_fe ms':>8} {'t_solver':>9} {'t_qp':>8} {'t_glob':>8}  f(x)")
    for n in (100, 1000, 10000, 100000):
        if n > args.max_n:
            break
        x0 = start(n)
        for solver in ("ipopt", "sqp"):
            t0 = time.perf_counter()
            fn = luksan_solver(n, solver).compile()
            build = time.perf_counter() - t0
            runs = []
            for _ in range(args.repeat):
                x = fn(x0)
                runs.append(fn.stats())
            st = sorted(runs, key=lambda s: s["t_total"])[len(runs) // 2]
            fx = float(np.sum(100 * (x[:-1] ** 2 - x[1:]) ** 2 + (x[:-1] - 1) ** 2))
            print(f"{n:>7} {solver:>6} {build:>8.2f} {st['status']:>10} {st['iter']:>5} "
                  f"{1e3 * st['t_total']:>9.2f} {1e3 * st['t_fe']:>8.2f} "
                  f"{1e3 * st['t_solver']:>9.2f} {1e3 * st['t_qp']:>8.2f} "
                  f"{1e3 * st['t_globalization']:>8.2f}  {fx:.10g}", flush=True)


if __name__ == "__main__":
    main()
