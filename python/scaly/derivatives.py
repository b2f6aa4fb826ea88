"""Derivatives: `sc.jvp`, `sc.vjp`, `sc.gradient`, `sc.jacobian`, `sc.hessian`.

Each takes a `Function` and returns a new `Function` whose first inputs are
the original's. The work is done by the compiler: a Function built here holds
an `expr.jvp` or `expr.vjp` of the original, and the `scaly-differentiate`
pass turns it into derivative functions from each op's rules, keeping calls,
maps and contractions structured. Inside a traced function the same names
take Exprs: ``sc.gradient(y, x)`` with `x` an input of the function being
traced.
"""

from __future__ import annotations

import numbers

import numpy as np

from . import _scaly
from ._function import Arg, Function, trace
from ._trace import Expr, as_expr

_FLOATS = ("float64", "float32")


# ---------------------------------------------------------------------------
# Ports and flags
# ---------------------------------------------------------------------------

def _check_function(f, what):
    if not isinstance(f, Function):
        raise TypeError(f"{what}: expected a scaly Function or an Expr, got {type(f).__name__}")


def _flags(ports, selection, kind, what, fname):
    """One flag per port from None (every float port), a name, an index or a list of them."""
    if selection is None:
        flags = [d in _FLOATS for _, _, d in ports]
        if not any(flags):
            raise ValueError(f"{what}: {fname}() has no float {kind}s to differentiate")
        return flags
    items = list(selection) if isinstance(selection, (list, tuple)) else [selection]
    if not items:
        raise ValueError(f"{what}: {kind} selection is empty")
    names = [n for n, _, _ in ports]
    flags = [False] * len(ports)
    for item in items:
        if isinstance(item, str):
            if item not in names:
                raise ValueError(f"{what}: {fname}() has no {kind} named {item!r} "
                                 f"(its {kind}s: {', '.join(names) or 'none'})")
            k = names.index(item)
        elif isinstance(item, numbers.Integral) and not isinstance(item, bool):
            if not -len(ports) <= item < len(ports):
                raise ValueError(f"{what}: {kind} index {item} is out of range for "
                                 f"{len(ports)} {kind}s of {fname}()")
            k = int(item) % len(ports)
        else:
            raise TypeError(f"{what}: {kind}s are chosen by name or index, got {item!r}")
        if ports[k][2] not in _FLOATS:
            raise TypeError(f"{what}: {kind} '{ports[k][0]}' of {fname}() is {ports[k][2]}; "
                            "only float64 and float32 values have derivatives")
        flags[k] = True
    return flags


def _one(ports, selection, kind, what, fname):
    """The index of the single port chosen (None: the only float one)."""
    flags = _flags(ports, selection, kind, what, fname)
    if sum(flags) != 1:
        chosen = [ports[k][0] for k, on in enumerate(flags) if on]
        raise ValueError(f"{what}: choose one {kind} of {fname}() (got {', '.join(chosen)}); "
                         f"pass {'wrt' if kind == 'input' else 'of'}=<name>")
    return flags.index(True)


def _fresh(name, taken):
    while name in taken:
        name += "_"
    taken.add(name)
    return name


def _build(name, inputs, outputs, body):
    """Trace `body` over `inputs` ((name, shape, dtype) tuples) into a Function."""
    taken = set()
    ins = [Arg(_fresh(n, taken), tuple(s), d) for n, s, d in inputs]
    outs = [Arg(_fresh(n, taken)) for n in outputs]

    def traced(*args):
        return body(*args)

    traced.__name__ = name
    return trace(traced, ins, outs)


def _size(shape):
    return int(np.prod(shape, dtype=np.int64))


# ---------------------------------------------------------------------------
# Function transforms
# ---------------------------------------------------------------------------

def _jvp(f, wrt):
    flags = _flags(f.inputs, wrt, "input", "jvp", f.name)
    tangents = [(f"d_{n}", s, d) for (n, s, d), on in zip(f.inputs, flags) if on]

    def body(*args):
        g = args[0]._g
        return tuple(Expr(g, r) for r in g.jvp(f._traced, [a._id for a in args], flags))

    return _build(f"{f.name}_jvp", f.inputs + tangents, [f"d_{n}" for n, _, _ in f.outputs], body)


def _vjp(f, of, wrt):
    of_flags = _flags(f.outputs, of, "output", "vjp", f.name)
    wrt_flags = _flags(f.inputs, wrt, "input", "vjp", f.name)
    cotangents = [(f"adj_{n}", s, d) for (n, s, d), on in zip(f.outputs, of_flags) if on]

    def body(*args):
        g = args[0]._g
        return tuple(Expr(g, r)
                     for r in g.vjp(f._traced, [a._id for a in args], wrt_flags, of_flags))

    outs = [f"adj_{n}" for (n, _, _), on in zip(f.inputs, wrt_flags) if on]
    return _build(f"{f.name}_vjp", f.inputs + cotangents, outs, body)


def _gradient(f, wrt, of):
    j = _one(f.outputs, of, "output", "gradient", f.name)
    if f.outputs[j][1]:
        raise ValueError(f"gradient: output '{f.outputs[j][0]}' of {f.name}() has shape "
                         f"{tuple(f.outputs[j][1])}; a gradient needs a scalar output "
                         "(use sc.jacobian or sc.vjp)")
    back = _vjp(f, j, wrt)
    dtype = f.outputs[j][2]

    def body(*xs):
        one = as_expr(np.array(1.0, dtype=dtype), xs[0]._g)
        return back(*xs, one)

    names = [f"grad_{n[4:]}" for n, _, _ in back.outputs]
    return _build(f"{f.name}_gradient", f.inputs, names, body)


def _unit_vector(count, k, dtype, shape):
    """Row k of the identity of size `count` (k traced), shaped `shape`."""
    hit = as_expr(np.arange(count, dtype=np.int64), k._g) == k
    return hit.astype(dtype).reshape(shape)


def _jacobian(f, wrt, of, layout):
    if layout != "dense":
        if layout in ("csc", "csr", "coo"):
            raise NotImplementedError(f"jacobian: layout={layout!r} is not available yet; "
                                      "use layout='dense'")
        raise ValueError(f"jacobian: layout must be 'dense', got {layout!r}")
    i = _one(f.inputs, wrt, "input", "jacobian", f.name)
    j = _one(f.outputs, of, "output", "jacobian", f.name)
    in_name, in_shape, in_dtype = f.inputs[i]
    out_name, out_shape, out_dtype = f.outputs[j]
    n, m = _size(in_shape), _size(out_shape)
    nin = len(f.inputs)
    forward = n <= m  # one sweep per column, or per row
    sweeps = n if forward else m
    if forward:
        kernel = _jvp(f, i)

        def sweep(*args):
            *xs, k = args
            return kernel(*xs, _unit_vector(n, k, in_dtype, in_shape))
    else:
        kernel = _vjp(f, j, i)

        def sweep(*args):
            *xs, k = args
            return kernel(*xs, _unit_vector(m, k, out_dtype, out_shape))

    def one_sweep(*args):
        r = sweep(*args)
        r = r[j] if forward and isinstance(r, tuple) else r
        return r.reshape((m,) if forward else (n,))

    step = _build(f"{f.name}_sweep", f.inputs + [("k", (), "int64")],
                  ["col" if forward else "row"], one_sweep)

    def body(*xs):
        from .ops import vmap
        ks = as_expr(np.arange(sweeps, dtype=np.int64), xs[0]._g)
        stacked = vmap(step, sweeps, in_axes=(None,) * nin + (0,))(*xs, ks)
        return stacked.T if forward else stacked

    return _build(f"{f.name}_jacobian", f.inputs, [f"jac_{out_name}_{in_name}"], body)


def _hessian(f, wrt, of, multipliers):
    i = _one(f.inputs, wrt, "input", "hessian", f.name)
    if not multipliers:
        grad = _gradient(f, i, of)
        return _jacobian(grad, i, 0, "dense")
    j = _one(f.outputs, of, "output", "hessian", f.name)
    out_name, out_shape, out_dtype = f.outputs[j]
    back = _vjp(f, j, i)
    lagrangian_gradient = _build(f"{f.name}_lagrangian_gradient",
                                 f.inputs + [(f"lam_{out_name}", out_shape, out_dtype)],
                                 [f"grad_{f.inputs[i][0]}"], lambda *a: back(*a))
    return _jacobian(lagrangian_gradient, i, 0, "dense")


# ---------------------------------------------------------------------------
# Inside a traced function: derivatives of Exprs
# ---------------------------------------------------------------------------

def _function_of(y, x, what):
    """The traced-so-far function from the current inputs to `y`, and x's position."""
    if not isinstance(y, Expr):
        raise TypeError(f"{what}: expected an Expr to differentiate, got {type(y).__name__}")
    if not isinstance(x, Expr) or x._g is not y._g:
        raise TypeError(f"{what}: differentiate with respect to an input Expr of the same "
                        "traced function")
    g = y._g
    ids = g.inputs()
    if x._id not in ids:
        raise ValueError(f"{what}: x must be an input of the function being traced (derivatives "
                         "with respect to intermediate values are not supported)")
    ins = [(f"in{k}", list(g.shape(i)), g.dtype(i)) for k, i in enumerate(ids)]
    traced = _scaly.TracedFunction("traced", ins, [("out", list(y.shape), y.dtype)], g,
                                   [y._id], False)
    return Function(traced), ids.index(x._id), [Expr(g, i) for i in ids]


def gradient(f, wrt=None, of=None):
    """Gradient of a scalar output: a Function of f's inputs returning d out / d x per `wrt`.

    `wrt`: an input name, index or list of them (default: every float input);
    `of`: the output (default: the only one). Inside a traced function,
    ``sc.gradient(y, x)`` returns the gradient of the scalar Expr `y` with
    respect to the input Expr `x` (reverse mode).
    """
    if isinstance(f, Expr):
        fn, i, xs = _function_of(f, wrt, "gradient")
        return _gradient(fn, i, 0)(*xs)
    _check_function(f, "gradient")
    return _gradient(f, wrt, of)


def jacobian(f, wrt=None, of=None, layout="dense"):
    """Jacobian d out / d x as a 2-D (out.size, x.size) array, one input and one output.

    Forward mode (one sweep per column) when x is no larger than the output,
    else reverse mode (one sweep per row); the sweeps are one map, one loop in
    C. Inside a traced function, ``sc.jacobian(y, x)`` with `x` an input Expr.
    """
    if isinstance(f, Expr):
        fn, i, xs = _function_of(f, wrt, "jacobian")
        return _jacobian(fn, i, 0, layout)(*xs)
    _check_function(f, "jacobian")
    return _jacobian(f, wrt, of, layout)


def hessian(f, wrt=None, of=None, multipliers=False):
    """Hessian of a scalar output with respect to one input, as an (n, n) array.

    With ``multipliers=True`` the output `of` may be a vector g(x): the result
    is the Hessian of the Lagrangian term lam . g(x), and the returned
    Function takes the multipliers lam (the output's shape) as an extra, last
    input. Computed forward over reverse. Inside a traced function,
    ``sc.hessian(y, x)``.
    """
    if isinstance(f, Expr):
        if multipliers:
            raise ValueError("hessian: multipliers=True applies to a Function, not an Expr")
        fn, i, xs = _function_of(f, wrt, "hessian")
        return _hessian(fn, i, 0, False)(*xs)
    _check_function(f, "hessian")
    return _hessian(f, wrt, of, multipliers)


def jvp(f, wrt=None):
    """Forward mode: a Function of (f's inputs, one tangent per `wrt` input) returning J . t.

    The result has one tangent per output of f (named d_<output>); tangent
    inputs are named d_<input>. `wrt` defaults to every float input.
    """
    _check_function(f, "jvp")
    return _jvp(f, wrt)


def vjp(f, of=None, wrt=None):
    """Reverse mode: a Function of (f's inputs, one cotangent per `of` output) returning w . J.

    The result has one cotangent per `wrt` input (named adj_<input>);
    cotangent inputs are named adj_<output>. Both default to every float port.
    """
    _check_function(f, "vjp")
    return _vjp(f, of, wrt)
