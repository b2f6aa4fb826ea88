"""Column sums and transposed copies: Scaly (JIT) next to NumPy, measured in the same run.

    PYTHONPATH=python /usr/bin/python3 bench/strided.py [--repeat N]

For each case and shape, prints the per-call time of the Scaly function, NumPy's time for
the same expression, and their ratio (Scaly / NumPy; the goal of issue 30 is <= 1.0 for
`X.sum(axis=0)` and `X.T + 0` at 2000 x 2000 float64). Calls alternate (Scaly, NumPy,
...) and each keeps its best of --repeat samples. Column sums are accumulated row by row
into the result (a contiguous inner loop, NumPy's own order); transposed copies are written
in 4 x 4 register blocks; outputs of 1 MiB or more with nontemporal stores, of whole lines
when their rows are whole cache lines, element by element otherwise (docs/design.md,
"Lowering"). NumPy's `X.T + 0` keeps the input's
Fortran order (a contiguous copy); Scaly's result is C order, which the "X.T + 0 (C)" line
compares with NumPy's `np.add(X.T, 0, order="C")`.
"""

import argparse
import os
import sys
import tempfile
import timeit

os.environ["SCALY_CACHE_DIR"] = tempfile.mkdtemp(prefix="scaly-bench-strided-")
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "python"))

import numpy as np  # noqa: E402

import scaly as sc  # noqa: E402


def per_call_us(fns, args, repeat):
    """Per-call times of each of `fns` on `args`, in microseconds: the calls alternate
    (Scaly, NumPy, Scaly, ...) and each function's best of `repeat` samples is kept, so a
    busy moment of the machine slows both or neither."""
    number = 1
    while timeit.timeit(lambda: fns[0](*args), number=number) < 0.02 and number < 1 << 20:
        number *= 2
    best = [float("inf")] * len(fns)
    for _ in range(repeat):
        for k, fn in enumerate(fns):
            best[k] = min(best[k], timeit.timeit(lambda: fn(*args), number=number) / number)
    return [1e6 * t for t in best]


CASES = [
    ("X.sum(axis=0)", lambda x: x.sum(axis=0), lambda x: x.sum(axis=0)),
    ("X.T + 0", lambda x: x.T + 0, lambda x: x.T + 0),
    # The same result in NumPy's C order (what Scaly's is): np.add(..., order="C").
    ("X.T + 0 (C)", lambda x: x.T + 0, lambda x: np.add(x.T, 0, order="C")),
    ("X.sum(axis=1)", lambda x: x.sum(axis=1), lambda x: x.sum(axis=1)),
]
SHAPES = [(2000, 2000), (1000, 1000), (4000, 500), (500, 4000), (1999, 2001)]


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--repeat", type=int, default=15)
    args = parser.parse_args()
    rng = np.random.default_rng(0)
    print(f"{'case':<16}{'shape':>12}{'scaly us':>12}{'numpy us':>12}{'ratio':>8}")
    for (label, expr, npexpr), shape in ((c, s) for c in CASES for s in SHAPES):
        @sc.function(sc.arg("X", shape), outputs=sc.arg("y"))
        def strided_case(X):
            return expr(X)
        x = rng.standard_normal(shape)
        got = strided_case(x)
        np.testing.assert_allclose(got, npexpr(x), rtol=1e-12, atol=1e-9)
        ts, tn = per_call_us([strided_case, npexpr], (x,), args.repeat)
        print(f"{label:<16}{'x'.join(map(str, shape)):>12}{ts:>12.1f}{tn:>12.1f}{ts / tn:>8.2f}",
              flush=True)


if __name__ == "__main__":
    main()
