"""A module of several entries: built in one render against one render per entry (issue 30, item 4).

    PYTHONPATH=python /usr/bin/python3 bench/entries.py [--entries 8] [--steps 40] [--repeat 5]

The entries are `--entries` cart-pole rollouts of `--steps` unrolled RK4 steps (a different
gain each), every other one replaced by its Jacobian with respect to the state. Each round
times, side by side:
  separate   render_c_module(f) for each entry, one after another
  together   render_c_module([f1, ..., fn]): each entry lowers in a module of its own, on the
             context's threads, then the modules are merged and the C printed once
and prints the ratio together / separate. Both produce the same C text here (checked).
Goal of the issue: at most 0.6 on 2 cores. The machine must be otherwise idle: the ratio
measures how much of the second core the build gets.
"""

import argparse
import os
import statistics
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "python"))
sys.path.insert(0, HERE)

import scaly as sc  # noqa: E402
from scaly.codegen import render_c_module  # noqa: E402

from cartpole import cartpole_dynamics, rk4_step  # noqa: E402


def rollout(k, steps):
    """Entry k: the state after `steps` RK4 steps with force gain 1 + 0.01 k."""
    def body(s, u):
        x = s
        for i in range(steps):
            x = rk4_step(cartpole_dynamics, x, u[i] * (1.0 + 0.01 * k))
        return x
    body.__name__ = f"rollout{k}"
    f = sc.function(sc.arg("s", 4), sc.arg("u", steps), outputs=sc.arg("y"))(body)
    return sc.jacobian(f, "s") if k % 2 else f


def timed(fn):
    t0 = time.perf_counter()
    result = fn()
    return time.perf_counter() - t0, result


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--entries", type=int, default=8)
    ap.add_argument("--steps", type=int, default=40)
    ap.add_argument("--repeat", type=int, default=5)
    args = ap.parse_args()
    functions = [rollout(k, args.steps) for k in range(args.entries)]
    # Warm-up: tracing, and the first render of each (loads the compiler core).
    sources = [render_c_module(f).source for f in functions]
    together = render_c_module(functions, name="entries")
    assert all(s.split("*/", 1)[1].count("\n") > 0 for s in sources)
    same = together.source == render_c_module(functions, name="entries",
                                              record_stages=True).source
    print(f"{args.entries} entries, {args.steps} RK4 steps each, C {len(together.source) // 1024} KiB;"
          f" parallel C == sequential C: {same}")
    print(f"{'round':>5} {'separate ms':>12} {'together ms':>12} {'ratio':>6}")
    ratios = []
    for r in range(args.repeat):
        sep, _ = timed(lambda: [render_c_module(f) for f in functions])
        tog, _ = timed(lambda: render_c_module(functions, name="entries"))
        ratios.append(tog / sep)
        print(f"{r:5d} {sep * 1e3:12.0f} {tog * 1e3:12.0f} {tog / sep:6.2f}")
    print(f"median ratio {statistics.median(ratios):.2f}, best {min(ratios):.2f} (goal <= 0.6); "
          f"load average {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
