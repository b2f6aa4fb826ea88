"""Build-time benchmark of models unrolled in Python, and of deeply nested calls.

    PYTHONPATH=python /usr/bin/python3 bench/unrolled.py [--sizes 100,1000,10000] [--depths 400]

Each case runs in a new process on a fresh cache (SCALY_CACHE_DIR is a new temporary
directory) and prints the wall time from the decorator to a callable Function (total s:
tracing plus `compile()`, which renders, compiles and loads), the tracing and a separate
render timed alone, the process's CPU time for the same span (cpu s: a fairer number on a
busy machine), the size of the C and the number of `_raw` procedures in it.

* unrolled N: the seed's Euler step called N times from a Python loop
  (`for k in range(N): z = euler(z, us[k])`), no `.block()`; scaly-roll-call-chains
  turns the chain into one loop;
* blocked N: the same with `.block()` on the step;
* irregular N: the same reading us[k * k % N], which no strided slice describes: the
  chain becomes one gather of the rows (a table of N positions in the C) and one loop;
* alternating N: two step functions (sin, then cos) called in turn, reading us[k],
  which no scan describes: the body stays N calls of two procedures (the path every
  chain took before rolling, and the test of Clang's time on long straight-line code);
* nested D: D functions, each calling the previous one once (no `.block()`).
"""

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import textwrap

PACKAGE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "python")

CHILD = textwrap.dedent("""
    import json, sys, time
    kind, n = sys.argv[1], int(sys.argv[2])
    import scaly as sc
    from scaly import _scaly
    from scaly.runtime import counters

    start = time.perf_counter()
    cpu_start = time.process_time()
    if kind in ("unrolled", "blocked", "irregular", "alternating"):
        block = kind == "blocked"
        pick = (lambda k: k * k % n) if kind == "irregular" else (lambda k: k)

        @sc.function(sc.arg("z", 2), sc.arg("u", ()), outputs=sc.arg("znext"))
        def euler(z, u):
            r = sc.stack([z[0] + 0.1 * z[1], z[1] + 0.1 * u.sin()])
            return r.block() if block else r

        @sc.function(sc.arg("z", 2), sc.arg("u", ()), outputs=sc.arg("znext"))
        def euler_cos(z, u):
            return sc.stack([z[0] + 0.1 * z[1], z[1] + 0.1 * u.cos()])

        steps = (euler, euler_cos) if kind == "alternating" else (euler,)

        @sc.function(sc.arg("z0", 2), sc.arg("us", n), outputs=sc.arg("zN"))
        def roll(z0, us):
            z = z0
            for k in range(n):
                z = steps[k % len(steps)](z, us[pick(k)])
            return z
        fn = roll
    else:
        @sc.function(sc.arg("x", 2), outputs=sc.arg("y"))
        def f0(x):
            return x.sin()
        fn = f0
        def nest(prev, d):
            def body(x):
                return prev(x) * 0.5 + float(d)
            body.__name__ = f"f{d}"
            return sc.function(sc.arg("x", 2), outputs=sc.arg("y"))(body)
        for d in range(1, n + 1):
            fn = nest(fn, d)
    traced = time.perf_counter()
    cpu_traced = time.process_time()
    t0 = time.perf_counter()
    module = _scaly.render(fn._traced, {"cpu": "native"})
    rendered = time.perf_counter() - t0
    t0, cpu0 = time.perf_counter(), time.process_time()
    fn.compile()
    total = traced - start + time.perf_counter() - t0
    cpu = cpu_traced - cpu_start + time.process_time() - cpu0
    print(json.dumps({"trace": traced - start, "render": rendered,
                      "compile": time.perf_counter() - t0, "total": total, "cpu": cpu,
                      "c_bytes": len(module["source"]),
                      "procedures": module["source"].count("_raw(const")}))
""")


def run(kind, n, timeout):
    cache = tempfile.mkdtemp(prefix="scaly-bench-unrolled-")
    env = {k: v for k, v in os.environ.items() if not k.startswith("SCALY_")}
    env.update({"SCALY_CACHE_DIR": cache, "PYTHONPATH": PACKAGE})
    try:
        proc = subprocess.run([sys.executable, "-c", CHILD, kind, str(n)], env=env,
                              capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return None
    finally:
        shutil.rmtree(cache, ignore_errors=True)
    if proc.returncode != 0:
        sys.exit(f"{kind} {n} failed:\n{proc.stderr}")
    return json.loads(proc.stdout)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="100,1000,10000")
    parser.add_argument("--depths", default="400")
    parser.add_argument("--kinds", default="unrolled,blocked,irregular,alternating")
    parser.add_argument("--timeout", type=float, default=600)
    args = parser.parse_args()
    cases = [(k, int(n)) for k in args.kinds.split(",") for n in args.sizes.split(",") if n]
    cases += [("nested", int(d)) for d in args.depths.split(",") if d]
    print(f"{'case':<18}{'trace s':>9}{'render s':>10}{'compile s':>11}{'total s':>9}"
          f"{'cpu s':>8}{'C bytes':>10}{'procs':>7}")
    for kind, n in cases:
        r = run(kind, n, args.timeout)
        label = f"{kind} {n}"
        if r is None:
            print(f"{label:<18} timed out after {args.timeout:.0f} s", flush=True)
            continue
        print(f"{label:<18}{r['trace']:>9.3f}{r['render']:>10.3f}{r['compile']:>11.3f}"
              f"{r['total']:>9.3f}{r['cpu']:>8.3f}{r['c_bytes']:>10}{r['procedures']:>7}", flush=True)


if __name__ == "__main__":
    main()
