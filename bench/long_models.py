"""Long models: compile time must grow linearly with the number of operations (issue 33).

    PYTHONPATH=python /usr/bin/python3 bench/long_models.py [--sizes 10000 100000 300000]

Prints, per model and size, in one run: tracing, the first call (render + JIT compile + call),
the C's size, and for the exported C `gcc -O2 -c` on it. Models:
  repeat  `for _ in range(n): y = y * 1.0001 + 0.5`: n identical steps, rolled back into a
          loop by scaly-roll-repeats (C size flat in n)
  sin     n nested sin(): rolled the same way
  vary    `y = y * (1.0001 + 1e-7 k) + 0.5`: no two steps alike, so the code stays straight;
          scaly-split-long-procs cuts it into noinline parts (time linear in n)
Goal of the issue: 300,000 ops in at most 5 s through the JIT, gcc -O2 under 60 s.
"""

import argparse
import os
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "python"))

import numpy as np  # noqa: E402

import scaly as sc  # noqa: E402
from scaly.codegen import render_c_module  # noqa: E402


def model(kind, n):
    def body(x):
        y = x
        for k in range(n):
            if kind == "repeat":
                y = y * 1.0001 + 0.5
            elif kind == "sin":
                y = sc.sin(y)
            else:
                y = y * (1.0001 + 1e-7 * k) + 0.5
        return y
    body.__name__ = f"long_{kind}_{n}"
    return body


def measure(kind, n, gcc):
    t0 = time.perf_counter()
    f = sc.function(sc.arg("x", ()), outputs=sc.arg("y"))(model(kind, n))
    t1 = time.perf_counter()
    f(np.float64(0.25))
    t2 = time.perf_counter()
    module = render_c_module(f)
    row = {"trace": t1 - t0, "first call": t2 - t1, "C kB": len(module.source) / 1e3}
    if gcc:
        with tempfile.TemporaryDirectory() as d:
            module.write(d)
            t3 = time.perf_counter()
            subprocess.run(["gcc", "-O2", "-fno-math-errno", "-c", os.path.join(d, f.name + ".c"),
                            "-o", os.path.join(d, "m.o")], check=True)
            row["gcc -O2"] = time.perf_counter() - t3
    return row


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[10000, 100000, 300000])
    parser.add_argument("--vary-sizes", type=int, nargs="+", default=[10000, 30000, 100000])
    parser.add_argument("--no-gcc", action="store_true")
    args = parser.parse_args()
    os.environ.setdefault("SCALY_CACHE_DIR", tempfile.mkdtemp(prefix="scaly-bench-long-"))
    print(f"{'model':<8}{'ops':>9}{'trace s':>9}{'1st call s':>11}{'total s':>9}{'C kB':>9}"
          f"{'gcc -O2 s':>11}")
    for kind, sizes in (("repeat", args.sizes), ("sin", args.sizes), ("vary", args.vary_sizes)):
        for n in sizes:
            ops = 2 * n if kind != "sin" else n
            r = measure(kind, n, not args.no_gcc)
            total = r["trace"] + r["first call"]
            gcc = f"{r['gcc -O2']:>11.2f}" if "gcc -O2" in r else ""
            print(f"{kind:<8}{ops:>9}{r['trace']:>9.2f}{r['first call']:>11.2f}{total:>9.2f}"
                  f"{r['C kB']:>9.1f}{gcc}", flush=True)


if __name__ == "__main__":
    main()
