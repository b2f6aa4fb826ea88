"""JIT benchmark: trace-to-callable, reuse and per-call cost of seed 000's energy function.

    PYTHONPATH=python /usr/bin/python3 bench/jit.py [--repeat N]

Prints, from one run: (0) what `import scaly` costs beyond `import numpy` (and
`import casadi` where it is installed), each in a new process; (a) decorator to callable
in a new process on a fresh cache, (b) the same on a warm cache (the trace-free index:
the compiler module must not be loaded), for the energy function and a pendulum cost
with six sin/cos; (c) a second identical Function in the same process, (d) the per-call
time of energy(x) next to x @ x and a bare Python call. Medians of --repeat runs.
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

MODELS = {
    "energy": """
        @sc.function(sc.L("x", 3), sc.L("energy", ...))
        def energy(x):
            return sc.sumsqr(x)
        f = energy
    """,
    "pendulum": """
        G, LENGTH = 9.81, 0.5

        @sc.function(sc.arg("q", 3), sc.arg("w", 3), outputs=sc.arg("cost"))
        def pendulum_cost(q, w):
            s0, s1, s2 = sc.sin(q[0]), sc.sin(q[1]), sc.sin(q[2])
            c0, c1, c2 = sc.cos(q[0]), sc.cos(q[1]), sc.cos(q[2])
            pot = G * LENGTH * (3.0 - c0 - c1 - c2)
            return pot + 0.5 * (w * w).sum() + s0 * s1 + s1 * s2
        f = pendulum_cost
    """,
}

CHILD = """
import json, sys, time
import scaly as sc
start = time.perf_counter()
%s
f.compile()
elapsed = time.perf_counter() - start
from scaly.runtime import counters, fast
fast.wait()
heavy = [l for l in open("/proc/self/maps") if "libLLVM" in l or "libMLIR" in l or "clang-cpp" in l]
print(json.dumps({"ms": 1e3 * elapsed, "counters": counters(),
                  "compiler_loaded": "scaly._scaly" in sys.modules, "heavy_maps": len(heavy)}))
"""


def child(cache, model="energy", extra_env=None):
    env = {k: v for k, v in os.environ.items() if not k.startswith("SCALY_")}
    env.update({"SCALY_CACHE_DIR": cache, "PYTHONPATH": PACKAGE, **(extra_env or {})})
    code = CHILD % textwrap.dedent(MODELS[model])
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True,
                         check=True).stdout
    return json.loads(out.strip().splitlines()[-1])


IMPORT = ("import time; t0 = time.perf_counter(); import numpy; t1 = time.perf_counter(); "
          "import %s; t2 = time.perf_counter(); print(1e3 * (t1 - t0), 1e3 * (t2 - t1))")


def import_ms(module):
    """(ms of `import numpy`, ms of `import <module>` after it) in a new process, the
    .pyc files written beforehand; None when the module is not installed."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    env["PYTHONPATH"] = PACKAGE
    out = subprocess.run([sys.executable, "-c", IMPORT % module], env=env,
                         capture_output=True, text=True)
    if out.returncode != 0:
        return None
    numpy_ms, module_ms = out.stdout.split()[-2:]
    return float(numpy_ms), float(module_ms)


def median_ms(samples):
    return statistics.median(samples)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    sys.path.insert(0, PACKAGE)

    rows = []
    # (0) imports, each in a new process (.pyc written by a first run).
    import_ms("scaly")
    runs = [import_ms("scaly") for _ in range(args.repeat)]
    rows.append(("(0) import numpy", median_ms([r[0] for r in runs]), "ms", None))
    rows.append(("    import scaly, after numpy", median_ms([r[1] for r in runs]), "ms", 30.0))
    casadi = [import_ms("casadi") for _ in range(args.repeat)]
    if None not in casadi:
        rows.append(("    import casadi, after numpy", median_ms([r[1] for r in casadi]), "ms",
                     None))
    for model in MODELS:
        # (a) fresh cache, new process, with and without the background warm-up.
        for label, env, target in (("", {}, 20.0 if model == "pendulum" else None),
                                   (" (warm-up off)", {"SCALY_JIT_WARMUP": "0"}, None)):
            runs = []
            for _ in range(args.repeat):
                with tempfile.TemporaryDirectory() as cache:
                    r = child(cache, model, env)
                    assert r["counters"]["compiled"] == 1
                    runs.append(r["ms"])
            rows.append((f"(a) {model}: trace-to-callable, fresh cache{label}", median_ms(runs),
                         "ms", target))
        # (b) warm cache, new process: no tracing, and the compiler module never loaded.
        with tempfile.TemporaryDirectory() as cache:
            child(cache, model)
            runs = []
            for _ in range(args.repeat):
                r = child(cache, model)
                assert r["counters"]["fast_hit"] == 1 and r["counters"]["compiled"] == 0
                assert not r["compiler_loaded"] and r["heavy_maps"] == 0, r
                runs.append(r["ms"])
        rows.append((f"(b) {model}: decorator-to-callable, new process, warm cache",
                     median_ms(runs), "ms", 2.0))

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
