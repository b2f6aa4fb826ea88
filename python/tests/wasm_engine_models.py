"""The models test_wasm_engine.py builds into its multi-entry wasm module (`KERN`), the
entries its host programs wrap, and the inputs each kernel is called with (random, then
edge cases: -0.0, huge, tiny, exact halves, integer limits)."""

import numpy as np

import scaly as sc

from models import rollout, spilling


# -- the models --------------------------------------------------------------


@sc.function(sc.arg("x", ()), sc.arg("y", ()), outputs=sc.arg("r"))
def hyp(x, y):
    return sc.sqrt(x * x + y * y) / (x - y)


@sc.function(sc.arg("d", ()), sc.arg("f", (), dtype="float32"), sc.arg("i", (), dtype="int32"),
             sc.arg("k", (), dtype="int64"), sc.arg("b", (), dtype="bool"),
             outputs=(sc.arg("d2"), sc.arg("f2"), sc.arg("i2"), sc.arg("k2"), sc.arg("b2")))
def zoo(d, f, i, k, b):
    return d * 3.0 - 1.0, f * 2, i * 2 - 7, k - 3, b * (d > 0)


@sc.function(sc.arg("x", 5, dtype="float32"), sc.arg("s", (), dtype="float32"),
             outputs=(sc.arg("y"), sc.arg("n")))
def fvec(x, s):
    return x * s + sc.sqrt(abs(x)) / (s + 1), sc.sum(x)


@sc.function(sc.arg("n", 4, dtype="int32"), sc.arg("m", (), dtype="int32"),
             sc.arg("k", 3, dtype="int64"), sc.arg("j", (), dtype="int64"),
             outputs=(sc.arg("a"), sc.arg("t"), sc.arg("kk")))
def ints(n, m, k, j):
    return n * m - n, sc.sum(n), k * 2 + j


@sc.function(sc.arg("b", 3, dtype="bool"), sc.arg("x", 3),
             outputs=(sc.arg("y"), sc.arg("c"), sc.arg("cnt")))
def flags(b, x):
    return sc.where(b, x, -x), x > 0.5, sc.sum(b)


@sc.function(sc.arg("x", 6), sc.arg("y", 4, dtype="float32"),
             outputs=(sc.arg("ex"), sc.arg("sx"), sc.arg("sy"), sc.arg("ey")))
def trans(x, y):
    return sc.exp(x), sc.sin(x), sc.sin(y), sc.exp(y)


@sc.function(sc.arg("A", (2, 3)), sc.arg("v", 3), outputs=(sc.arg("w"), sc.arg("At")))
def mat(A, v):
    return A @ v, A.T


@sc.function(sc.arg("k", (), dtype="int64"), sc.arg("i", (), dtype="int32"), outputs=sc.arg("r"))
def kscal(k, i):
    return k * 3 + i


@sc.function(sc.arg("x", ()), sc.arg("f", (), dtype="float32"), outputs=sc.arg("gt"))
def isbig(x, f):
    return x > f


@sc.function(sc.arg("f", (), dtype="float32"), sc.arg("d", ()), outputs=sc.arg("r"))
def fsc(f, d):
    return f * 0.5


@sc.function(sc.arg("e", 0), sc.arg("x", 2), outputs=sc.arg("y"))
def pad(e, x):
    return x * 2 + sc.sum(e)


spill = spilling("spill")


@sc.function(sc.arg("flag", 3, dtype="bool"), sc.arg("big", 2, dtype="int64"),
             sc.arg("small", 3, dtype="float32"), sc.arg("grid", (2, 3, 2)),
             sc.arg("last", (), dtype="bool"),
             outputs=(sc.arg("o1"), sc.arg("o2"), sc.arg("o3"), sc.arg("o4")))
def mixlay(flag, big, small, grid, last):
    return (sc.where(flag, small, -small), grid.sum(axis=2) > 0.0, sc.sum(big) + sc.sum(flag),
            grid[:, ::-1, :] * sc.where(last, 2.0, 0.5))


KERN = [rollout, hyp, zoo, fvec, ints, flags, trans, mat, kscal, isbig, fsc, pad, spill, mixlay]
BY_NAME = {f.name: f for f in KERN}
#: Entries calling sin/exp: compared within ULPS, the others bit for bit.
TRANSCENDENTAL = {"rollout", "trans", "spill"}
#: Entries the host program (host_kern.c) wraps: five-argument, struct, scalar.
HOST_POINTERS = ["rollout", "zoo", "ints", "flags", "trans", "mat", "fvec", "spill", "mixlay"]
HOST_STRUCT = ["rollout", "zoo", "ints", "trans", "mat", "spill", "mixlay"]
HOST_SCALAR = ["hyp", "kscal", "fsc", "isbig", "zoo"]


# Two modules, both with an entry named `step`.
def _alpha_step():
    @sc.function(sc.arg("z", 2), sc.arg("u", ()), outputs=sc.arg("znext"))
    def step(z, u):
        return sc.stack([z[0] + 0.1 * z[1], z[1] + 0.1 * u.sin()])
    return step


def _beta_step():
    @sc.function(sc.arg("x", 3, dtype="float32"), outputs=(sc.arg("y"), sc.arg("s")))
    def step(x):
        return x * x - 1, sc.sum(x)
    return step


step_alpha, step_beta = _alpha_step(), _beta_step()


# -- inputs ------------------------------------------------------------------

RNG = np.random.default_rng(20240611)


def _inputs(name, rng):
    r = rng
    f64 = lambda *s: r.normal(size=s) * 3  # noqa: E731
    if name == "rollout":
        return {"zs": f64(20), "us": f64(10)}
    if name == "hyp":
        return {"x": f64(), "y": f64()}
    if name == "zoo":
        return {"d": f64(), "f": np.float32(r.normal()), "i": np.int32(r.integers(-2**29, 2**29)),
                "k": np.int64(r.integers(-2**62, 2**62)), "b": np.bool_(r.integers(0, 2))}
    if name == "fvec":
        return {"x": r.normal(size=5).astype(np.float32) * 7, "s": np.float32(r.uniform(0.5, 4))}
    if name == "ints":
        return {"n": r.integers(-2**14, 2**14, size=4, dtype=np.int32),
                "m": np.int32(r.integers(-2**14, 2**14)),
                "k": r.integers(-2**61, 2**61, size=3, dtype=np.int64),
                "j": np.int64(r.integers(-2**62, 2**62))}
    if name == "flags":
        return {"b": r.integers(0, 2, size=3).astype(bool), "x": r.uniform(-1, 2, size=3)}
    if name == "trans":
        return {"x": r.uniform(-20, 20, size=6), "y": r.uniform(-20, 20, size=4).astype(np.float32)}
    if name == "mat":
        return {"A": f64(2, 3), "v": f64(3)}
    if name == "kscal":
        return {"k": np.int64(r.integers(-2**61, 2**61)), "i": np.int32(r.integers(-2**31, 2**31))}
    if name == "isbig":
        return {"x": f64(), "f": np.float32(r.normal() * 3)}
    if name == "fsc":
        return {"f": np.float32(r.normal() * 1e30), "d": f64()}
    if name == "pad":
        return {"e": np.zeros(0), "x": f64(2)}
    if name == "spill":
        return {"x": f64(5)}
    if name == "mixlay":
        return {"flag": r.integers(0, 2, size=3).astype(bool),
                "big": r.integers(-2**60, 2**60, size=2, dtype=np.int64),
                "small": r.normal(size=3).astype(np.float32), "grid": f64(2, 3, 2),
                "last": np.bool_(r.integers(0, 2))}
    if name == "step_alpha":
        return {"z": f64(2), "u": f64()}
    if name == "step_beta":
        return {"x": r.normal(size=3).astype(np.float32)}
    raise KeyError(name)


def _special(name):
    """Inputs at the edges: -0.0, huge, tiny, exact halves, int limits."""
    if name == "hyp":
        return [{"x": np.float64(3.0), "y": np.float64(-4.0)},
                {"x": np.float64(-0.0), "y": np.float64(5e-324)},
                {"x": np.float64(1e300), "y": np.float64(-1e-300)}]
    if name == "zoo":
        return [{"d": np.float64(-0.0), "f": np.float32(3.4028235e38), "i": np.int32(2**30 - 1),
                 "k": np.int64(-2**63 + 3), "b": np.bool_(True)},
                {"d": np.float64(2.5), "f": np.float32(1e-45), "i": np.int32(-2**30),
                 "k": np.int64(2**63 - 1), "b": np.bool_(True)}]
    if name == "kscal":
        return [{"k": np.int64(2**53 + 1), "i": np.int32(-2**31)},
                {"k": np.int64(-(2**61) - 12345), "i": np.int32(2**31 - 1)}]
    return []


INPUTS = {f.name: [_inputs(f.name, RNG) for _ in range(3)] + _special(f.name) for f in KERN}
