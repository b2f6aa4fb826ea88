"""Array functions of the authoring API: sc.stack, sc.where, sc.sum, sc.vmap, ..."""

from __future__ import annotations

import numbers

import numpy as np

from ._trace import (MATH2_FUNCTIONS, MATH_FUNCTIONS, Expr, _graph_of, as_expr, binary_math,
                     mean_, pow_, reduce_)


def _graph(values, what):
    graph = _graph_of(*values)
    if graph is None:
        raise TypeError(f"{what}: at least one argument must be an Expr")
    return graph


def _axis(axis, what):
    if not isinstance(axis, numbers.Integral) or isinstance(axis, bool):
        raise TypeError(f"{what}: axis must be an int, got {type(axis).__name__} {axis!r}")
    return int(axis)


def _operands(values, what):
    """The Exprs of a non-empty list of arrays, or None when none is an Expr.

    Numbers take the dtype of the Exprs among them when they convert exactly.
    """
    if not values:
        raise ValueError(f"{what}: needs at least one array")
    like = next((v for v in values if isinstance(v, Expr)), None)
    if like is None:
        return None  # only numbers: the caller builds a NumPy constant
    graph = _graph(values, what)
    return [as_expr(v, graph, like=like) for v in values]


def stack(values, axis=0):
    """Stack arrays of equal shape along a new axis (default: leading)."""
    axis = _axis(axis, "stack")
    values = list(values)
    exprs = _operands(values, "stack")
    if exprs is None:
        return np.stack([np.asarray(v) for v in values], axis=axis)
    graph = exprs[0]._g
    shape = exprs[0].shape
    for i, e in enumerate(exprs):
        if e.shape != shape:
            raise ValueError(f"stack: element {i} has shape {e.shape}, element 0 has {shape}")
        if e.dtype != exprs[0].dtype:
            raise ValueError(f"stack: element {i} has dtype {e.dtype}, element 0 has "
                             f"{exprs[0].dtype}; cast with .astype()")
    ndim = len(shape) + 1
    if not -ndim <= axis < ndim:
        raise ValueError(f"stack: axis {axis} is out of range for {ndim} dimensions")
    axis %= ndim
    if axis == 0:
        # The parts one after another: a flattened concatenation.
        return Expr(graph, graph.concat([e._id for e in exprs], [len(exprs), *shape]))
    inner = shape[:axis] + (1,) + shape[axis:]
    return Expr(graph, graph.concat_axis([e.reshape(inner)._id for e in exprs], axis))


def concat(values, axis=0):
    """Join arrays along an existing axis (default: leading)."""
    axis = _axis(axis, "concat")
    values = list(values)
    exprs = _operands(values, "concat")
    if exprs is None:
        return np.concatenate([np.asarray(v) for v in values], axis=axis)
    graph = exprs[0]._g
    ndim = exprs[0].ndim
    if ndim == 0:
        raise ValueError("concat: scalars have no axis to join; use sc.stack")
    if not -ndim <= axis < ndim:
        raise ValueError(f"concat: axis {axis} is out of range for {ndim} dimensions")
    return Expr(graph, graph.concat_axis([e._id for e in exprs], axis % ndim))


def where(cond, on_true, on_false):
    """Elementwise choice: `on_true` where `cond` holds, else `on_false`."""
    graph = _graph([cond, on_true, on_false], "where")
    like = on_true if isinstance(on_true, Expr) else on_false
    a = as_expr(on_true, graph, like=like if isinstance(like, Expr) else None)
    b = as_expr(on_false, graph, like=like if isinstance(like, Expr) else None)
    c = as_expr(cond, graph)
    return Expr(graph, graph.select(c._id, a._id, b._id))


def sum(x, axis=None, keepdims=False):  # noqa: A001 - the authoring API's name
    """Sum of all elements, or over `axis` (an int or a tuple of ints)."""
    return reduce_("sum", _expr(x, "sum"), axis, keepdims)


def prod(x, axis=None, keepdims=False):
    """Product of all elements, or over `axis`."""
    return reduce_("prod", _expr(x, "prod"), axis, keepdims)


def max(x, axis=None, keepdims=False):  # noqa: A001
    """Maximum of all elements, or over `axis`; NaN propagates as in NumPy."""
    return reduce_("max", _expr(x, "max"), axis, keepdims)


def min(x, axis=None, keepdims=False):  # noqa: A001
    """Minimum of all elements, or over `axis`; NaN propagates as in NumPy."""
    return reduce_("min", _expr(x, "min"), axis, keepdims)


def mean(x, axis=None, keepdims=False):
    """Arithmetic mean of all elements, or over `axis`."""
    return mean_(_expr(x, "mean"), axis, keepdims)


def transpose(x, axes=None):
    """Permute the axes of `x` (reversed when `axes` is None)."""
    return _expr(x, "transpose").transpose(axes)


def _expr(x, what):
    if not isinstance(x, Expr):
        raise TypeError(f"{what}: expected an Expr, got {type(x).__name__}")
    return x


def expr_op(name, *operands, **attributes):
    """Apply any op of the expression dialect by name to Exprs, as they are.

    `name` is the op's name (``"expr.matmul"``). Attributes are ints, floats,
    bools, lists of ints or of bools, or MLIR attribute text for the
    dialect's enums (``kind="#expr<reduce_kind max>"``). The op infers its
    result types and checks its operands with its own ODS definition and
    verifier: no NumPy broadcasting or promotion happens here, and an op
    without type inference is refused. Returns an Expr, or a tuple of Exprs
    for an op with several results. A newly defined op is reachable from
    Python this way before it has a function of its own.
    """
    if not isinstance(name, str):
        raise TypeError(f"expr_op: the op name must be a str, got {type(name).__name__}")
    exprs = [_expr(x, name) for x in operands]
    graph = _graph(exprs, name)  # refuses operands of different traced functions
    ids = graph.op(name, [e._id for e in exprs], attributes)
    out = tuple(Expr(graph, i) for i in ids)
    return out[0] if len(out) == 1 else out


def sumsqr(x):
    """Sum of squares of all elements."""
    x = _expr(x, "sumsqr")
    return (x * x).sum()


def dot(a, b):
    """Inner product of two vectors of equal length; matrices multiply as with `@`."""
    graph = _graph([a, b], "dot")
    like = a if isinstance(a, Expr) else b
    a, b = as_expr(a, graph, like=like), as_expr(b, graph, like=like)
    if a.ndim == 0 or b.ndim == 0:
        return a * b
    if a.ndim == 1 and b.ndim == 1 and a.shape != b.shape:
        raise ValueError(f"dot: shapes {a.shape} and {b.shape} differ")
    if a.ndim > 2 or b.ndim > 2:
        raise ValueError(f"dot: operands of more than 2 dimensions ({a.shape}, {b.shape}); "
                         "use sc.matmul for batched products")
    return matmul(a, b)


def norm2(x):
    """Euclidean norm of all elements."""
    return sumsqr(x).sqrt()


def matmul(a, b):
    """Matrix product with NumPy's rules: 1-D operands are vectors, leading axes are batches."""
    graph = _graph([a, b], "matmul")
    like = a if isinstance(a, Expr) else b
    a, b = as_expr(a, graph, like=like), as_expr(b, graph, like=like)
    if a.ndim == 0 or b.ndim == 0:
        raise ValueError(f"@: scalar operands are not allowed (shapes {a.shape} and {b.shape}); "
                         "use * for scaling")
    a2 = a.reshape((1, a.shape[0])) if a.ndim == 1 else a
    b2 = b.reshape((b.shape[0], 1)) if b.ndim == 1 else b
    if a2.shape[-1] != b2.shape[-2]:
        raise ValueError(f"@: inner dimensions differ: {a.shape} @ {b.shape}")
    out = Expr(graph, graph.matmul(a2._id, b2._id))
    shape = out.shape
    if a.ndim == 1:
        shape = shape[:-2] + shape[-1:]
    if b.ndim == 1:
        shape = shape[:-1]
    return out if shape == out.shape else out.reshape(shape)


def atan2(y, x):
    """Elementwise atan2(y, x)."""
    return binary_math("atan2", y, x)


def fmin(a, b):
    """Elementwise minimum (NaN-ignoring, like C's fmin)."""
    return binary_math("fmin", a, b)


def fmax(a, b):
    """Elementwise maximum (NaN-ignoring, like C's fmax)."""
    return binary_math("fmax", a, b)


def pow(base, exponent):  # noqa: A001
    """Elementwise power."""
    if not isinstance(base, Expr) and not isinstance(exponent, Expr):
        raise TypeError("pow: at least one argument must be an Expr")
    return pow_(base, exponent)


def cast(x, dtype):
    """Elementwise conversion of `x` to `dtype`."""
    return _expr(x, "cast").astype(dtype)


def _math_function(name):
    def fn(x):
        return getattr(_expr(x, name), name)()
    fn.__name__ = name
    fn.__doc__ = f"Elementwise {name} of an Expr."
    fn.__qualname__ = name
    return fn


for _name in MATH_FUNCTIONS:
    globals()[_name] = _math_function(_name)


def _math2_function(name):
    def fn(a, b):
        return binary_math(name, a, b)
    fn.__name__ = name
    fn.__doc__ = f"Elementwise {name}(a, b), as C's {name} (at least one an Expr)."
    fn.__qualname__ = name
    return fn


# Two-operand functions of the dialect's table without a function above (fmod, and any
# added later) are sc.<name>(a, b).
for _name in MATH2_FUNCTIONS:
    globals().setdefault(_name, _math2_function(_name))


def _in_axes(in_axes, count, what):
    """Per-input mapping flags from `in_axes` (0 or None, or a tuple of them)."""
    if in_axes == 0 or in_axes is None:
        return [in_axes == 0] * count
    if not isinstance(in_axes, (tuple, list)):
        raise TypeError(f"{what}: in_axes must be 0, None or a tuple of them, got {in_axes!r}")
    if len(in_axes) != count:
        raise ValueError(f"{what}: in_axes has {len(in_axes)} entries for {count} inputs")
    flags = []
    for a in in_axes:
        if a is None or (isinstance(a, numbers.Integral) and not isinstance(a, bool) and a == 0):
            flags.append(a is not None)
        else:
            raise ValueError(f"{what}: each in_axes entry must be 0 (map over the leading axis) "
                             f"or None (pass whole), got {a!r}")
    return flags


def _check_count(count, what):
    if not isinstance(count, numbers.Integral) or isinstance(count, bool):
        raise TypeError(f"{what}: count must be an int, got {type(count).__name__} {count!r}")
    if count < 1:
        raise ValueError(f"{what}: count must be a positive int, got {count!r}")
    return int(count)


class _Mapped:
    """`sc.vmap(fn, n, in_axes)`: call with arrays whose leading axis has length n."""

    def __init__(self, fn, count, in_axes=0):
        from ._function import Function
        if not isinstance(fn, Function):
            raise TypeError(f"vmap: expected a scaly Function, got {type(fn).__name__}")
        self.fn, self.count = fn, _check_count(count, "vmap")
        self.mapped = _in_axes(in_axes, len(fn.inputs), f"vmap({fn.name})")

    def __call__(self, *args):
        fn = self.fn
        if len(args) != len(fn.inputs):
            raise TypeError(f"vmap({fn.name}) takes {len(fn.inputs)} inputs, got {len(args)}")
        graph = _graph(args, f"vmap({fn.name})")
        ids = [as_expr(a, graph)._id for a in args]
        mapped = [] if all(self.mapped) else self.mapped
        results = [Expr(graph, r) for r in graph.map(fn._traced, self.count, ids, mapped)]
        return results[0] if len(results) == 1 else tuple(results)


def vmap(fn, n, in_axes=0):
    """Map Function `fn` over the leading axis (length `n`) of its inputs; lowers to one loop.

    `in_axes` is 0 (every input mapped) or a tuple with one entry per input: 0 maps that
    input over its leading axis, None passes it whole to every iteration (never copied).
    """
    return _Mapped(fn, n, in_axes)


class _Scanned:
    """`sc.scan(fn, n, in_axes)`: call with the initial state and the per-step inputs."""

    def __init__(self, fn, count, in_axes=0):
        from ._function import Function
        if not isinstance(fn, Function):
            raise TypeError(f"scan: expected a scaly Function, got {type(fn).__name__}")
        self.fn, self.count = fn, _check_count(count, "scan")
        if not fn.inputs or not fn.outputs or fn.inputs[0][1:] != fn.outputs[0][1:]:
            raise ValueError(f"scan: {fn.name}'s first input and first output are the state and "
                             "must have the same shape and dtype")
        rest = len(fn.inputs) - 1
        if isinstance(in_axes, (tuple, list)) and len(in_axes) == len(fn.inputs):
            if in_axes[0] is not None:
                raise ValueError(f"scan({fn.name}): in_axes[0] is the state and must be None")
            in_axes = tuple(in_axes[1:])
        self.mapped = [False] + _in_axes(in_axes, rest, f"scan({fn.name})")

    def __call__(self, init, *args):
        fn = self.fn
        if 1 + len(args) != len(fn.inputs):
            raise TypeError(f"scan({fn.name}) takes {len(fn.inputs)} inputs (the state first), "
                            f"got {1 + len(args)}")
        graph = _graph([init, *args], f"scan({fn.name})")
        ids = [as_expr(a, graph)._id for a in (init, *args)]
        results = [Expr(graph, r) for r in graph.scan(fn._traced, self.count, ids, self.mapped)]
        return results[0], tuple(results[1:]) if len(results) > 2 else (
            results[1] if len(results) == 2 else ())


def scan(fn, n, in_axes=0):
    """A sequential loop of `n` steps with carried state, like `jax.lax.scan`.

    `fn`'s first input and first output are the state (same shape and dtype).
    `sc.scan(step, n)(x0, us)` calls `step(state, us[k])` for k = 0..n-1 and returns
    `(final_state, stacked)`, where `stacked` holds `fn`'s other outputs stacked along a
    new leading axis (a tuple when there are several, `()` when there are none).
    `in_axes` covers the inputs after the state: 0 (mapped) or None (passed whole).
    Lowers to one C loop whatever `n` is.
    """
    return _Scanned(fn, n, in_axes)
