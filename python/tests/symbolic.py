"""Helpers shared by the derivative and sparsity tests: tracing and SymPy references.

Most test bodies are written once against a namespace `m`: `SC` (`sc` plus
comparisons, & | % and // as functions) when tracing with `build`, and `SY`
(SymPy on object arrays) for the symbolic reference `Sym`, whose derivatives
and structural nonzero patterns (`pattern`, alias `structural`) the tests
compare against Scaly's.  `fd_jacobian` gives central finite differences of a
compiled Function.

The test modules import it as `import symbolic` / `from symbolic import ...`
(python/tests is on sys.path, as for `cdriver`).
"""

import functools
import operator
import types

import numpy as np
import scipy.sparse
import sympy

import scaly as sc


# ---------------------------------------------------------------------------
# Building Functions
# ---------------------------------------------------------------------------

def build(name, inputs, body, outputs=("out",)):
    """Trace ``body(SC, *xs)`` into a Function named `name`.

    `inputs`: (name, shape) or (name, shape, dtype) tuples; `outputs`: names.
    """
    specs = [(i[0], i[1], i[2] if len(i) > 2 else "float64") for i in inputs]
    params = ", ".join(n for n, _, _ in specs)
    namespace = {"body": body, "SC": SC}
    exec(f"def {name}({params}):\n    return body(SC, {params})\n", namespace)
    decls = [sc.arg(n, s, dtype=d) for n, s, d in specs]
    outs = [sc.arg(o) for o in outputs]
    return sc.function(*decls, outputs=outs[0] if len(outs) == 1 else outs)(namespace[name])


_DERIVED = {}


def derived(kind, f, *args, **kwargs):
    """sc.<kind>(f, ...) built once per (kind, f, arguments): one compile each."""
    key = (kind, id(f), repr(args), repr(sorted(kwargs.items())))
    if key not in _DERIVED:
        _DERIVED[key] = (f, getattr(sc, kind)(f, *args, **kwargs))
    return _DERIVED[key][1]


def outputs_of(result):
    return list(result) if isinstance(result, tuple) else [result]


# ---------------------------------------------------------------------------
# References: finite differences
# ---------------------------------------------------------------------------

def fd_jacobian(f, args, wrt=0, of=0, rel=1e-6):
    """Central differences of output `of` of `f` w.r.t. input `wrt`: (out.size, in.size)."""
    args = [np.array(a) for a in args]
    x = args[wrt].astype(np.float64)
    cols = []
    for k in range(x.size):
        h = rel * max(1.0, abs(x.flat[k]))
        plus, minus = x.copy(), x.copy()
        plus.flat[k] += h
        minus.flat[k] -= h
        yp = outputs_of(f(*args[:wrt], plus, *args[wrt + 1:]))[of]
        ym = outputs_of(f(*args[:wrt], minus, *args[wrt + 1:]))[of]
        cols.append((np.asarray(yp, np.float64) - np.asarray(ym, np.float64)).ravel() / (2 * h))
    return np.stack(cols, axis=1)


FD_TOL = dict(rtol=1e-6, atol=1e-6)
TIGHT = dict(rtol=1e-10, atol=1e-12)


# ---------------------------------------------------------------------------
# References: SymPy
# ---------------------------------------------------------------------------

class _LocallyConstant(sympy.Function):
    """floor, ceil, sign: derivative zero almost everywhere (no DiracDelta)."""

    def fdiff(self, argindex=1):
        return sympy.S.Zero


class sfloor(_LocallyConstant):
    pass


class sceil(_LocallyConstant):
    pass


class ssign(_LocallyConstant):
    pass


SYMPY_MODULES = [{"sfloor": np.floor, "sceil": np.ceil, "ssign": np.sign}, "numpy"]


def _elementwise(fn):
    def apply(*xs):
        if any(isinstance(x, np.ndarray) for x in xs):
            return np.vectorize(fn, otypes=[object])(*xs)
        return fn(*xs)
    return apply


def _piecewise(c, a, b):
    return sympy.Piecewise((a, c), (b, True))


def _reduce(fn):
    def apply(x, axis=None, keepdims=False):
        return fn(np.asarray(x, dtype=object), axis=axis, keepdims=keepdims)
    return apply


def _sympy_max(x, axis=None, keepdims=False):
    x = np.asarray(x, dtype=object)
    if axis is None:
        x, axis = x.ravel(), 0
    return np.frompyfunc(sympy.Max, 2, 1).reduce(x, axis=axis, keepdims=keepdims)


# The SymPy stand-in of `sc` for the shared bodies.
SY = types.SimpleNamespace(
    sin=_elementwise(sympy.sin), cos=_elementwise(sympy.cos), tan=_elementwise(sympy.tan),
    asin=_elementwise(sympy.asin), acos=_elementwise(sympy.acos), atan=_elementwise(sympy.atan),
    sinh=_elementwise(sympy.sinh), cosh=_elementwise(sympy.cosh), tanh=_elementwise(sympy.tanh),
    exp=_elementwise(sympy.exp), log=_elementwise(sympy.log),
    log1p=_elementwise(lambda x: sympy.log(1 + x)),
    expm1=_elementwise(lambda x: sympy.exp(x) - 1), sqrt=_elementwise(sympy.sqrt),
    abs=_elementwise(lambda x: x * ssign(x)), floor=_elementwise(sfloor), ceil=_elementwise(sceil),
    atan2=_elementwise(sympy.atan2), pow=_elementwise(lambda a, b: a ** b),
    fmin=_elementwise(lambda a, b: _piecewise(a < b, a, b)),
    fmax=_elementwise(lambda a, b: _piecewise(a > b, a, b)),
    mod=_elementwise(lambda a, b: a - b * sfloor(a / b)),  # NumPy's remainder
    floordiv=_elementwise(lambda a, b: sfloor(a / b)),
    where=_elementwise(_piecewise),
    gt=_elementwise(sympy.Gt), ge=_elementwise(sympy.Ge), lt=_elementwise(sympy.Lt),
    le=_elementwise(sympy.Le), eq=_elementwise(sympy.Eq), ne=_elementwise(sympy.Ne),
    and_=_elementwise(sympy.And), or_=_elementwise(sympy.Or),
    sum=_reduce(np.sum), prod=_reduce(np.prod), mean=_reduce(np.mean), max=_sympy_max,
    stack=lambda xs, axis=0: np.stack([np.asarray(x, dtype=object) for x in xs], axis=axis),
    concat=lambda xs, axis=0: np.concatenate([np.asarray(x, dtype=object) for x in xs],
                                             axis=axis),
    transpose=lambda x, axes=None: np.transpose(x, axes), matmul=np.matmul, dot=np.dot,
    sumsqr=lambda x: np.sum(np.asarray(x, dtype=object) ** 2),
    norm2=lambda x: sympy.sqrt(np.sum(np.asarray(x, dtype=object) ** 2)),
    cast=lambda x, dtype: x,
)

# `sc` spells comparisons, & | and % as operators: SC is `sc` with these as functions, so
# one body serves both namespaces (build() traces bodies with m = SC).
SC = types.SimpleNamespace(**{k: getattr(sc, k) for k in sc.__all__})
for _name, _op in (("gt", operator.gt), ("ge", operator.ge), ("lt", operator.lt),
                   ("le", operator.le), ("eq", operator.eq), ("ne", operator.ne),
                   ("and_", operator.and_), ("or_", operator.or_), ("mod", operator.mod),
                   ("floordiv", operator.floordiv)):
    setattr(SC, _name, _op)


class Sym:
    """`body(SY, *symbol arrays)` built from SymPy symbols, one group per input."""

    def __init__(self, body, shapes):
        self.syms, arrays = [], []
        for k, shape in enumerate(shapes):
            n = int(np.prod(shape, dtype=np.int64))
            group = [sympy.Symbol(f"v{k}_{i}", real=True) for i in range(n)]
            self.syms.append(group)
            arrays.append(np.array(group, dtype=object).reshape(shape))
        result = body(SY, *arrays)
        self.outs = [sympy.Matrix(np.asarray(r, dtype=object).ravel().tolist())
                     for r in (result if isinstance(result, tuple) else (result,))]
        self.flat = [s for group in self.syms for s in group]

    @property
    def out(self):
        """The first output, a column Matrix."""
        return self.outs[0]

    def jacobian(self, of=0, wrt=0):
        return self.outs[of].jacobian(self.syms[wrt])

    def hessian(self, of=0, wrt=0):
        assert self.outs[of].shape == (1, 1)
        return sympy.hessian(self.outs[of][0], self.syms[wrt])

    def lagrangian_hessian(self, lam=None, of=0, wrt=0):
        """Hessian of sum(lam * output `of`); lam=None: fresh multiplier symbols lam0, lam1, ..."""
        out = self.outs[of]
        if lam is None:
            lam = sympy.symbols(f"lam0:{out.shape[0]}", real=True)
        return sympy.hessian(sum((l * g for l, g in zip(lam, out)), sympy.S.Zero),
                             self.syms[wrt])

    def value(self, expr, args, extra=()):
        symbols = self.flat + list(extra)
        point = [float(v) for a in args for v in np.ravel(a)]
        fn = sympy.lambdify(symbols, expr, modules=SYMPY_MODULES)
        return np.array(fn(*point), dtype=np.float64)


def pattern(matrix):
    """Structural nonzeros: entries that are not identically zero."""
    return np.array([[e != 0 for e in row] for row in matrix.tolist()], dtype=bool)


structural = pattern


def assert_pattern(scaly_dense, sym_matrix, subset=False):
    """Scaly's nonzeros equal the structural ones (`subset`: lie within them, for piecewise
    functions whose derivative is zero on whole pieces, as fmin's)."""
    want = pattern(sym_matrix)
    got = np.asarray(scaly_dense) != 0
    assert got.shape == want.shape
    same = not (got & ~want).any() if subset else np.array_equal(got, want)
    assert same, f"nonzero pattern differs:\nscaly\n{got.astype(int)}\nsympy\n{want.astype(int)}"


def rng(seed):
    return np.random.default_rng(seed)


# ---------------------------------------------------------------------------
# Functions used by several derivative test modules
# ---------------------------------------------------------------------------

def step_body(m, x, p):
    return x * p[0] + m.sin(x) * p[1] - x[::-1] * p[0] * p[1]


@functools.lru_cache(maxsize=None)
def vmap_functions():
    step = build("vstep", [("x", 3), ("p", 2)], step_body)

    @sc.function(sc.arg("X", (4, 3)), sc.arg("p", 2), outputs=sc.arg("Y"))
    def mapped_shared(X, p):
        return sc.vmap(step, 4, in_axes=(0, None))(X, p)

    @sc.function(sc.arg("X", (4, 3)), sc.arg("P", (4, 2)), outputs=sc.arg("Y"))
    def mapped_all(X, P):
        return sc.vmap(step, 4)(X, P)

    @sc.function(sc.arg("X", (4, 3)), sc.arg("p", 2), outputs=sc.arg("s"))
    def mapped_sum(X, p):
        Y = sc.vmap(step, 4, in_axes=(0, None))(X, p)
        return sc.sum(Y * np.arange(12.0).reshape(4, 3) / 10.0)

    return step, mapped_shared, mapped_all, mapped_sum


def multi_body(m, x, u):
    y = m.stack([x[0] * u[0], m.sin(x[1]) + u[1] ** 2, x[2] * x[0], m.exp(u[0] * x[1])])
    e = m.sum(x * x) * u[1] + m.cos(u[0])
    return y, e


@functools.lru_cache(maxsize=None)
def multi_function():
    return build("multi", [("x", 3), ("u", 2)], multi_body, ("y", "e"))


def gsel_body(m, x, p, k):
    return m.sum(m.sin(x) * p[0]) + p[1] ** 2 * x[0] * k.astype("float64")


@functools.lru_cache(maxsize=None)
def gsel_function():
    return build("gsel", [("x", 3), ("p", 2), ("k", (), "int64")], gsel_body, ("s",))


def hess_body(m, x):
    return (m.sum(m.sin(x[:-1]) * x[1:] ** 2) + m.exp(x[0] * x[3]) +
            m.log(1.0 + m.dot(x, x)) + x[1] * x[2] / (2.0 + m.cos(x[2])))


@functools.lru_cache(maxsize=None)
def hess_function():
    return build("hfun", [("x", 4)], hess_body, ("s",))


# ---------------------------------------------------------------------------
# Sparsity cases used by several sparsity test modules
# ---------------------------------------------------------------------------

# The sparsity tests compare csc values with dense ones and NumPy references this tightly.
SPARSE_TIGHT = dict(rtol=1e-12, atol=1e-13)


def assert_same_pattern(got, want, what=""):
    got, want = np.asarray(got, bool), np.asarray(want, bool)
    assert got.shape == want.shape, what
    assert np.array_equal(got, want), (
        f"{what}: pattern differs (extra {np.argwhere(got & ~want).tolist()}, "
        f"missing {np.argwhere(want & ~got).tolist()})\n"
        f"scaly\n{got.astype(int)}\nsympy\n{want.astype(int)}")


def luksan_constraint_body(m, x0, x1, x2):
    return (3 * x1 ** 3 + 2 * x2 - 5 + m.sin(x1 - x2) * m.sin(x1 + x2) + 4 * x1
            - x0 * m.exp(x0 - x1) - 3)


@functools.lru_cache(maxsize=None)
def luksan_constraint():
    return build("luksan_c", [("x0", ()), ("x1", ()), ("x2", ())], luksan_constraint_body, ("c",))


@functools.lru_cache(maxsize=None)
def luksan_chain(n):
    """g_k(x_k, x_{k+1}, x_{k+2}), k < n - 2, as one vmap (no unrolling)."""
    c = luksan_constraint()

    @sc.function(sc.arg("x", n), outputs=sc.arg("g"))
    def constraints(x):
        return sc.vmap(c, n - 2)(x[:-2], x[1:-1], x[2:])

    return constraints


def luksan_jacobian_numpy(x):
    """The analytic Jacobian of the luksan chain as a scipy csc matrix (NumPy)."""
    x0, x1, x2 = x[:-2], x[1:-1], x[2:]
    e = np.exp(x0 - x1)
    d0 = -(1 + x0) * e
    d1 = (9 * x1 ** 2 + np.cos(x1 - x2) * np.sin(x1 + x2) + np.sin(x1 - x2) * np.cos(x1 + x2)
          + 4 + x0 * e)
    d2 = 2 - np.cos(x1 - x2) * np.sin(x1 + x2) + np.sin(x1 - x2) * np.cos(x1 + x2)
    n = x.size
    return scipy.sparse.diags([d0, d1, d2], [0, 1, 2], shape=(n - 2, n), format="csc")


# Cases for exact Jacobian patterns: name -> (input shapes, body).
PATTERN_CASES = {
    "broadcast_chain": ([(3, 1), (1, 4), ()],
                        lambda m, a, b, c: m.sin(a * b) + m.exp(a) * c - b * b / (1.0 + c * c)),
    "broadcast_partial": ([(3, 1), (4,)], lambda m, a, b: m.tanh(a * 2.0) + b[::-1] * 0.5),
    "slices_steps": ([(12,)], lambda m, x: x[1:9:2] * x[::-3] + x[10:2:-2]),
    "slices_2d": ([(5, 6)], lambda m, x: x[::-2, 4:0:-3] * m.sin(x[1:4, ::3])),
    "transpose": ([(3, 4)], lambda m, x: m.transpose(x) * m.sin(x.T[::-1])),
    "transpose_3d": ([(2, 3, 4)], lambda m, x: m.transpose(x, (1, 2, 0)) * x[1, :, :, None] ** 2),
    "reshape": ([(3, 4)], lambda m, x: x.reshape((2, 6)) * m.exp(x.reshape((6, 2)).T)),
    "concat_axis0": ([(2, 3), (4, 3)], lambda m, a, b: m.concat([a * b[:2], m.sin(b)], axis=0)),
    "concat_axis1": ([(2, 3), (4, 3)], lambda m, a, b: m.concat([b[1:3], a[::-1]], axis=1)),
    "stack_axis1": ([(2, 3), (4, 3)], lambda m, a, b: m.stack([a, b[::2] * a], axis=1)),
    "stack_last": ([(2, 3), (4, 3)], lambda m, a, b: m.stack([m.cos(b[3:1:-1]), a], axis=-1)),
    "sum_axis0": ([(3, 4)], lambda m, x: m.sum(m.sin(x), axis=0) * x[0]),
    "max_axis1": ([(3, 4)], lambda m, x: m.max(x, axis=1) * 2.0),
    "max_axis0_keepdims": ([(3, 4)],
                           lambda m, x: m.max(x[:, ::2], axis=0, keepdims=True) + x[2, 1::2]),
    "prod_axis1": ([(3, 4)], lambda m, x: m.prod(x[:, 1:], axis=1) + x[:, 0]),
    "matvec": ([(3, 4), (4,)], lambda m, A, v: m.tanh(m.matmul(A, v)) + v[:3]),
    "matvec_partial": ([(3, 4), (4,)], lambda m, A, v: m.matmul(A[:, :2], v[2:]) * v[0]),
    "gather_repeated": ([(5,)], lambda m, x: x[[0, 2, 2, 1, 0, 4, 2]] * x[[4, 4, 0, 1, 1, 2, 3]]),
    "gather_2d": ([(3, 4)], lambda m, x: m.exp(x[[0, 0, 2, 1], [1, 1, 3, 1]]) * x[[2, 0, 2, 2]]),
    "where_condition_reversed": ([(6,)],
                                 lambda m, x: m.where(m.gt(x[::-1], 0.0), x * x, 2.0 * x)),
    "where_two_inputs": ([(6,), (6,)],
                         lambda m, x, y: m.where(m.gt(y, x), x * y, m.sin(x))),
    "where_condition_only": ([(6,), (6,)],
                             lambda m, x, y: m.where(m.lt(y[::-1] * x, 0.0), x, 3.0 * x)),
    "floor_ceil": ([(5,), (5,)],
                   lambda m, x, y: x * m.floor(x[::-1]) + m.ceil(y) * y[::-1]),
    "floor_only": ([(5,)], lambda m, x: m.floor(x) * 2.0 + m.ceil(x[::-1])),
    "dense_rows": ([(8,)], lambda m, x: m.stack([m.sum(m.sin(x)), m.prod(x[::2]), x[3] * x[5]])),
    # Values made of shifted windows of the input keep their sets as bands
    # (Dependencies.h): windows at several distances, padding by
    # concatenation, another input's holes, a 2-D window mixed with a
    # reversed (explicit) slice, and permutations of 40 and 80 single
    # elements (under and over the 64-band limit).
    "band_windows": ([(12,)], lambda m, x: x[2:10] * x[:8] + m.sin(x[4:])
                     - x[1:9] / (1.0 + x[3:11] ** 2)),
    "band_pads": ([(9,)], lambda m, x: m.concat([x[3:] * 2.0, m.sin(x[:3])], axis=0)
                  + m.concat([x[:4] ** 2, m.exp(x[4:])], axis=0)),
    "band_holes": ([(6,), (2,)], lambda m, x, y: m.concat([y, x[:4] * y[0]], axis=0)
                   * m.concat([x[2:], y ** 2], axis=0)),
    "band_rows_2d": ([(12,)], lambda m, x: x.reshape((4, 3))[1:3] * m.cos(x.reshape((4, 3))[2:])
                     + x.reshape((4, 3))[:2, ::-1]),
    "band_permuted_40": ([(40,)], lambda m, x: m.concat(
        [x[(7 * i) % 40:(7 * i) % 40 + 1] for i in range(40)], axis=0) * x),
    "band_permuted_80": ([(80,)], lambda m, x: m.concat(
        [x[(7 * i) % 80:(7 * i) % 80 + 1] for i in range(80)], axis=0) * x),
    "rosenbrock_chain": ([(9,)],
                         lambda m, x: 10.0 * (x[1:-1] - x[:-2] ** 2) + (1.0 - x[2:]) * x[1:-1]),
}


@functools.lru_cache(maxsize=None)
def pattern_function(name):
    shapes, body = PATTERN_CASES[name]
    return build(f"pat_{name}", [(f"x{k}", s) for k, s in enumerate(shapes)], body)


def column_sets(colind, row, ncol):
    return [set(row[colind[j]:colind[j + 1]].tolist()) for j in range(ncol)]


def adjacency(n, colind, row):
    nbrs = [set() for _ in range(n)]
    for j in range(n):
        for i in row[colind[j]:colind[j + 1]]:
            if i != j:
                nbrs[j].add(int(i))
                nbrs[int(i)].add(j)
    return nbrs


def assert_star_colouring(n, colind, row, colours):
    colours = [int(c) for c in colours]
    assert len(colours) == n and min(colours) >= 0
    nbrs = adjacency(n, colind, row)
    for v in range(n):
        for w in nbrs[v]:
            assert colours[v] != colours[w], f"adjacent {v}, {w} share colour {colours[v]}"
    # No path u - v - w - x on two colours (every path on 4 vertices uses >= 3 colours).
    for v in range(n):
        for w in nbrs[v]:
            for u in nbrs[v] - {w}:
                if colours[u] != colours[w]:
                    continue
                for x in nbrs[w] - {v, u}:
                    assert colours[x] != colours[v], (
                        f"two-coloured path {u}-{v}-{w}-{x} (colours {colours[u]}, {colours[v]})")


def assert_star_recovery(n, colind, row, colours, from_row):
    """Each stored (i, j) is read from a sweep where it is alone in its colour."""
    colours = np.asarray(colours)
    from_row = np.asarray(from_row, bool)
    cols = np.repeat(np.arange(n), np.diff(colind))
    assert from_row.shape == (len(row),)
    # Row i's columns are column i's rows (the pattern is symmetric).
    members = column_sets(colind, row, n)
    for k, (i, j) in enumerate(zip(row, cols)):
        i, j = int(i), int(j)
        if from_row[k]:
            same = [c for c in members[i] if colours[c] == colours[j]]
            assert same == [j], f"({i},{j}) from row {i}: columns {same} share colour"
        else:
            same = [c for c in members[j] if colours[c] == colours[i]]
            assert same == [i], f"({i},{j}) from row {j}: columns {same} share colour"
    # Numerically: compress a random symmetric matrix with the pattern and recover it.
    values = rng(99).normal(size=len(row))
    A = scipy.sparse.csc_matrix((values, row, colind), shape=(n, n)).toarray()
    A = A + A.T
    B = A @ (colours[:, None] == np.arange(colours.max() + 1)[None, :])
    got = np.where(from_row, B[row, colours[cols]], B[cols, colours[row]])
    np.testing.assert_allclose(got, A[row, cols], rtol=1e-14, atol=1e-14)
