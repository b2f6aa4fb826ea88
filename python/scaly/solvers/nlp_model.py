"""`sc.nlp`: a nonlinear program solved inside a traced Function.

CasADi's ``nlpsol`` is the anchor: f and g are functions of the decision
variables x (and parameters p), the bounds and the start are values of the
traced Function (or constants), and the results are x, lam_g and lam_x with
CasADi's sign convention. Tracing makes the solver's oracles from f and g
with Scaly's own derivative passes:

* ``<w>_f(x, p)`` and ``<w>_g(x, p)``;
* the gradient of f, the Jacobian of g (exact pattern, compressed-column
  values) and the Hessian of the Lagrangian ``sigma f + lam'g`` (exact
  symmetric pattern; the wrapper hands the solver its lower triangle).

They are rendered into the module's solver translation unit (see
``wrapper.py``), where the wrapper ``<w>`` passes them to the NLP library.
"""

import hashlib
from dataclasses import dataclass, field

import numpy as np

from .._function import Arg, Function, trace
from .._trace import Expr, _graph_of, as_expr

SOLVERS = ("ipopt", "sqp")
QP_BACKENDS = ("sparse", "dense")
_INF = 1e20  # SCALY_NLP_INFINITY: keeps infinities out of the C


@dataclass(frozen=True)
class NLPSpec:
    """The structure of one NLP wrapper: what its C code is generated from."""
    name: str
    n: int
    m: int
    np_: int
    solver: str
    qp: str
    functions: tuple  # (f, g, grad_f, jac_g, hess_l) Functions; g and jac_g None when m == 0
    jac: tuple  # (colptr, rowind) of dg/dx
    hess: tuple  # (colptr, rowind) of the lower triangle
    hess_pick: np.ndarray  # per lower entry, its position in hess_l's symmetric values
    options: dict = field(default_factory=dict)  # defaults fixed when tracing

    kind = "nlp"


_SPECS = {}


def spec(name):
    """The NLPSpec of the wrapper called `name` (traced in this process)."""
    return _SPECS[name]


def _vector(v, size, what, graph, fill):
    if v is None:
        return as_expr(np.full(size, fill), graph)
    if isinstance(v, (list, tuple)) and any(isinstance(e, Expr) for e in v):
        from ..ops import stack
        v = stack([as_expr(min(max(e, -_INF), _INF) if not isinstance(e, Expr) else e, graph)
                   .astype("float64").reshape(()) for e in v])
    if isinstance(v, Expr):
        if v.size != size or v.ndim > 1:
            raise ValueError(f"nlp: {what} has shape {v.shape}, expected ({size},)")
        return v.astype("float64").reshape((size,))
    a = np.asarray(v, dtype=np.float64).reshape(-1) if np.ndim(v) else np.full(size, float(v))
    if a.shape != (size,):
        raise ValueError(f"nlp: {what} has shape {np.shape(v)}, expected ({size},)")
    if np.isnan(a).any():
        raise ValueError(f"nlp: {what} has NaN entries")
    return as_expr(np.clip(a, -_INF, _INF), graph)


def _call(fn, x, p, with_p, what):
    """fn(x, p) (or fn(x)) as a 1-D float64 Expr, with a clear error for the rest."""
    try:
        out = fn(x, p) if with_p else fn(x)
    except ValueError as e:
        if "another traced function" in str(e) or "different traced functions" in str(e):
            raise ValueError(f"nlp: {what} uses a value of the enclosing traced function; pass "
                             "such values through p= (f and g see only x and p)") from None
        raise
    if isinstance(out, (list, tuple)):
        from ..ops import stack
        out = stack([as_expr(o, x._g) for o in out]) if out else None
    if out is None:
        return None
    out = as_expr(out, x._g)
    return out.astype("float64") if out.dtype != "float64" else out


def _trace_oracles(prefix, f, g, n, np_, with_p):
    """The oracle Functions of one NLP, named `<prefix>_...`."""
    from ..derivatives import _hessian, _jacobian, gradient
    ins = [Arg("x", (n,)), Arg("p", (np_,))]

    def objective(x, p):
        out = _call(f, x, p, with_p, "f")
        if out is None or out.size != 1:
            raise ValueError(f"nlp: f must return a scalar, got shape "
                             f"{None if out is None else out.shape}")
        return out.reshape(())

    def constraints(x, p):
        out = _call(g, x, p, with_p, "g")
        if out is None or out.ndim > 1:
            raise ValueError("nlp: g must return a vector (or a list of scalars), got "
                             f"{'nothing' if out is None else f'shape {out.shape}'}")
        return out

    objective.__name__ = f"{prefix}_f"
    F = trace(objective, ins, [Arg("f")])
    G = None
    if g is not None:
        constraints.__name__ = f"{prefix}_g"
        G = trace(constraints, ins, [Arg("g")])
    m = G.outputs[0][1][0] if G is not None else 0
    if m == 0:
        G = None

    def lagrangian(x, p, sigma, lam):
        # The user's functions traced again, not calls of F and G: an entry
        # of the oracle module cannot also be one of its internal callees.
        value = sigma * objective(x, p)
        return value + (lam * constraints(x, p)).sum() if G is not None else value

    lagrangian.__name__ = f"{prefix}_lagrangian"
    L = trace(lagrangian, ins + [Arg("sigma", ()), Arg("lam", (max(m, 1),))], [Arg("l")])
    grad = gradient(F, wrt=0)
    # IEEE products in the compressed sweeps (not exact with zeros): the solver
    # refuses a non-finite entry whichever entries it spreads to, and the plain
    # products widen to lanes (derivatives._jacobian).
    jac = _jacobian(G, 0, None, "csc", False) if G is not None else None
    hess = _hessian(L, 0, None, False, "csc", False)
    # The module's entries call these: a Function the derivatives call is an
    # internal callee of the module, whose name an entry may not take.
    return m, tuple(_entry(f"{prefix}_oracle_{what}", fn) if fn is not None else None
                    for what, fn in zip(("f", "g", "grad_f", "jac_g", "hess_l"),
                                        (F, G, grad, jac, hess)))


def _entry(name, fn):
    """A Function named `name` that calls `fn` (keeping its sparse outputs' patterns)."""
    def call(*args):
        return fn(*args)

    call.__name__ = name
    out = trace(call, [Arg(n, tuple(s), d) for n, s, d in fn.inputs],
                [Arg(n) for n, _, _ in fn.outputs])
    out._pattern_source = fn
    return out


def _lower_triangle(hess):
    """(colptr, rowind) of the lower triangle of hess's pattern and, per entry,
    its position among the stored (symmetric) values."""
    shape, colind, row = hess._pattern_source.sparsity(0)
    colind, row = np.asarray(colind, np.int64), np.asarray(row, np.int64)
    col = np.repeat(np.arange(shape[1]), np.diff(colind))
    keep = row >= col
    pick = np.nonzero(keep)[0]
    counts = np.bincount(col[keep], minlength=shape[1])
    colptr = np.concatenate([[0], np.cumsum(counts)]).astype(np.int64)
    return (colptr, row[keep]), pick


def nlp(f, g=None, *, x0, p=None, lbx=None, ubx=None, lbg=None, ubg=None, lam_g0=None,
        lam_x0=None, solver="ipopt", qp="sparse", options=None):
    """Solve min f(x, p) s.t. lbg <= g(x, p) <= ubg, lbx <= x <= ubx while tracing.

    As CasADi's ``nlpsol``: `f` and `g` are Python functions of the decision
    variables ``x`` (a vector Expr of x0's length) and, when `p` is given, of
    the parameters ``p`` (``f(x, p)``; else ``f(x)``). `f` returns a scalar,
    `g` a vector or a list of scalars (None: no constraints). They may only
    use x and p: values of the enclosing function reach them through `p`.
    `x0`, `p`, the bounds and the multiplier guesses may be Exprs of the
    traced Function or constants; absent bounds are infinite (CasADi's
    defaults), so an equality needs ``lbg == ubg``.

    `solver` is "ipopt" (IPOPT, COIN-OR) or "sqp" (Scaly SQP, the project's
    own; `qp` picks its QP backend, "sparse" or "dense"): structural choices
    of the generated C. `options` are the wrapper's defaults, by the
    backend's option names (``scaly.solvers.nlp_option_names``); for IPOPT,
    any other IPOPT option is passed by name as text. Call-time options go to
    the Function (``f(..., options={...})``).

    Returns ``(x, lam_g, lam_x)``: the solution and the multipliers of g and
    of the bounds, with ``grad f + J' lam_g + lam_x = 0`` (positive on an
    active upper bound). The Function's ``stats()`` reports the latest solve.
    """
    from .nlp_options import check_trace_options
    if not callable(f):
        raise TypeError(f"nlp: f must be a function of x (and p), got {type(f).__name__}")
    if g is not None and not callable(g):
        raise TypeError(f"nlp: g must be a function of x (and p) or None, got {type(g).__name__}")
    if solver not in SOLVERS:
        raise ValueError(f"nlp: solver={solver!r} is not one of {', '.join(map(repr, SOLVERS))}")
    if qp not in QP_BACKENDS:
        raise ValueError(f"nlp: qp={qp!r} is not one of {', '.join(map(repr, QP_BACKENDS))}")
    graph = _graph_of(x0, p, lbx, ubx, lbg, ubg, lam_g0, lam_x0)
    if graph is None:
        raise TypeError("nlp: at least one of x0, p, the bounds or the multiplier guesses must "
                        "be an Expr of the traced function")
    x0_shape = x0.shape if isinstance(x0, Expr) else np.shape(x0)
    if len(x0_shape) != 1 or x0_shape[0] == 0:
        raise ValueError(f"nlp: x0 must be a non-empty vector, got shape {tuple(x0_shape)}")
    n = int(x0_shape[0])
    with_p = p is not None
    p_expr = _vector(p, (p.size if isinstance(p, Expr) else int(np.size(p))) if with_p else 1,
                     "p", graph, 0.0) if with_p else as_expr(np.zeros(1), graph)
    np_ = p_expr.size
    if np_ == 0:
        p_expr, np_ = as_expr(np.zeros(1), graph), 1
    defaults = check_trace_options(solver, options)

    # The oracles, traced once under a provisional name to learn their
    # structure, then under the name that digests it.
    m, functions = _trace_oracles("scalynlp_pending", f, g, n, np_, with_p)
    text = "\n".join(fn.mlir() for fn in functions if fn is not None)
    digest = hashlib.sha256(repr((text, n, m, np_, solver, qp, sorted(defaults.items())))
                            .encode()).hexdigest()[:16]
    name = f"scaly_nlp_{digest}"
    if name not in _SPECS:
        # Oracles are prefixed scalynlp_<digest> (an entry's name may not
        # start with scaly_); the module renames both to <module>_nlp<k>.
        _, functions = _trace_oracles(f"scalynlp_{digest}", f, g, n, np_, with_p)
        F, G, grad, jac, hess = functions
        jac_pattern = ((np.asarray(jac._pattern_source.sparsity(0)[1], np.int64),
                        np.asarray(jac._pattern_source.sparsity(0)[2], np.int64))
                       if jac is not None else
                       (np.zeros(n + 1, np.int64), np.zeros(0, np.int64)))
        lower, pick = _lower_triangle(hess)
        _SPECS[name] = NLPSpec(name, n, m, np_, solver, qp, functions, jac_pattern, lower, pick,
                               defaults)
    if (lbg is not None or ubg is not None or lam_g0 is not None) and m == 0:
        raise ValueError("nlp: lbg, ubg or lam_g0 are given but there is no g")
    operands = [_vector(x0, n, "x0", graph, 0.0), p_expr,
                _vector(lbx, n, "lbx", graph, -_INF), _vector(ubx, n, "ubx", graph, _INF),
                _vector(lbg, m, "lbg", graph, -_INF), _vector(ubg, m, "ubg", graph, _INF),
                _vector(lam_g0, m, "lam_g0", graph, 0.0), _vector(lam_x0, n, "lam_x0", graph, 0.0)]
    ids = graph.op("expr.nlp_solve", [e._id for e in operands],
                   {"name": f'"{name}"', "solver": f'"{solver}"'})
    return tuple(Expr(graph, i) for i in ids)
