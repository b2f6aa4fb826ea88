"""JIT benchmark: trace-to-callable, reuse and per-call cost of seed 000's energy function.

    PYTHONPATH=python /usr/bin/python3 bench/jit.py [--repeat N]

Prints, from one run: (a) decorator to callable in a new process on a fresh cache,
(b) the same on a warm cache, (c) a second identical Function in the same process,
(d) the per-call time of energy(x) next to x @ x and a bare Python call.
"""

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import textwrap
import timeit

PACKAGE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "python")

CHILD = textwrap.dedent("""
    import json, time
    import scaly as sc
    start = time.perf_counter()

    @sc.function(sc.L("x", 3), sc.L("energy", ...))
    def energy(x):
        return sc.sumsqr(x)

    energy.compile()
    elapsed = time.perf_counter() - start
    from scaly.runtime import counters
    print(json.dumps({"ms": 1e3 * elapsed, "counters": counters()}))
""")


def child(cache, extra_env=None):
    env = {k: v for k, v in os.environ.items() if not k.startswith("SCALY_")}
    env.update({"SCALY_CACHE_DIR": cache, "PYTHONPATH": PACKAGE, **(extra_env or {})})
    out = subprocess.run([sys.executable, "-c", CHILD], env=env, capture_output=True, text=True,
                         check=True).stdout
    return json.loads(out.strip().splitlines()[-1])


def median_ms(samples):
    return statistics.median(samples)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=15)
    args = parser.parse_args()
    sys.path.insert(0, PACKAGE)

    rows = []
    # (a) fresh cache, new process, with and without the background warm-up.
    for label, env, target in (("", {}, 10.0), (" (warm-up off)", {"SCALY_JIT_WARMUP": "0"}, None)):
        runs = []
        for _ in range(args.repeat):
            with tempfile.TemporaryDirectory() as cache:
                r = child(cache, env)
                assert r["counters"]["compiled"] == 1
                runs.append(r["ms"])
        rows.append((f"(a) trace-to-callable, fresh cache{label}", median_ms(runs), "ms", target))
    # (b) warm cache, new process: no lowering, rendering or compiling.
    with tempfile.TemporaryDirectory() as cache:
        child(cache)
        runs = []
        for _ in range(args.repeat):
            r = child(cache)
            assert r["counters"]["lowered"] == 0 and r["counters"]["compiled"] == 0
            runs.append(r["ms"])
    rows.append(("(b) decorator-to-callable, new process, warm cache", median_ms(runs), "ms", 2.0))

    # (c) and (d) in this process.
    with tempfile.TemporaryDirectory() as cache:
        os.environ["SCALY_CACHE_DIR"] = cache
        import time

        import numpy as np

        import scaly as sc
        from scaly.runtime import counters

        def make():
            @sc.function(sc.L("x", 3), sc.L("energy", ...))
            def energy(x):
                return sc.sumsqr(x)
            return energy

        make().compile()
        runs = []
        for _ in range(args.repeat):
            before = counters()["compiled"]
            t = time.perf_counter()
            e = make().compile()
            runs.append(1e3 * (time.perf_counter() - t))
            assert counters()["compiled"] == before
        rows.append(("(c) second identical Function, same process", median_ms(runs), "ms", None))

        x = np.array([1.0, 2.0, 3.0])
        assert e(x) == x @ x

        def bare(v):
            return v

        def per_call(fn):
            n = 200_000
            return min(timeit.repeat(lambda: fn(x), number=n, repeat=5)) / n * 1e6

        scaly_us = per_call(e)
        rows.append(("(d) energy(x), x float64[3]", scaly_us, "us", 0.5))
        rows.append(("    x @ x (NumPy)", per_call(lambda v: v @ v), "us", None))
        rows.append(("    bare Python call", per_call(bare), "us", None))

    width = max(len(r[0]) for r in rows)
    print(f"{'figure':<{width}}  {'median':>10}  {'target':>8}")
    for name, value, unit, target in rows:
        mark = "" if target is None else (f"<= {target:g} {unit}" + ("" if value <= target else "  MISSED"))
        print(f"{name:<{width}}  {value:>7.3f} {unit}  {mark}")
    numpy_us = rows[-2][1]
    print(f"\nenergy(x) costs {scaly_us / numpy_us:.2f}x NumPy's x @ x "
          f"(CasADi, measured on this machine kind: 6.36 us, 12.5x NumPy's 0.51 us)")


if __name__ == "__main__":
    main()
