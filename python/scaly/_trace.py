"""Tracing: symbolic array expressions (`Expr`) recorded in a C++ graph.

Each Python operator on an `Expr` is one call into the `scaly._scaly.Graph`
that the enclosing `@sc.function` trace owns; shape and dtype rules (and their
error messages) live in C++.
"""

from __future__ import annotations

import numbers

import numpy as np

from . import _core
from ._core import core as _scaly

DTYPES = ("float64", "float32", "int32", "int64", "bool")
_NUMPY_DTYPES = {np.dtype(d).name: d for d in DTYPES}


def normalize_dtype(dtype, what="dtype"):
    """Return the Scaly name of `dtype` (a string, NumPy dtype or type)."""
    if isinstance(dtype, str) and dtype in DTYPES:
        return dtype
    try:
        name = np.dtype(dtype).name
    except TypeError:
        name = None
    if name in _NUMPY_DTYPES:
        return _NUMPY_DTYPES[name]
    raise TypeError(f"{what}: unknown dtype {dtype!r}; expected one of {', '.join(DTYPES)}")


MAX_ELEMENTS = 2 ** 31 - 1


def normalize_shape(shape, what="shape"):
    """Return `shape` as a tuple of non-negative ints: an int is a vector.

    Arrays are small and static: at most 2**31 - 1 elements.
    """
    if isinstance(shape, numbers.Integral) and not isinstance(shape, bool):
        shape = (int(shape),)
    if not isinstance(shape, (tuple, list)):
        raise TypeError(f"{what}: expected an int or a tuple of ints, got {shape!r}")
    out = []
    for d in shape:
        if not isinstance(d, numbers.Integral) or isinstance(d, bool):
            raise TypeError(f"{what}: dimensions must be ints, got {d!r} in {tuple(shape)!r}")
        if d < 0:
            raise ValueError(f"{what}: dimensions must be >= 0, got {tuple(shape)!r}")
        out.append(int(d))
    size = 1
    for d in out:
        size *= d
    if size > MAX_ELEMENTS:
        raise ValueError(f"{what}: shape {tuple(out)!r} has {size} elements; at most "
                         f"{MAX_ELEMENTS} are supported")
    return tuple(out)


class Expr:
    """A symbolic array inside a traced `sc.function`.

    Supports arithmetic (`+ - * / ** @`, unary `-`), comparisons, indexing
    and slicing (row-major, negative indices and steps), `.T`, `.reshape`,
    `.vec()`, elementwise math methods, `.astype` and the `.block()` hint.
    """

    __slots__ = ("_g", "_id", "_blocked")
    __array_priority__ = 1000  # NumPy defers to our reflected operators

    def __init__(self, graph, node, blocked=False):
        self._g = graph
        self._id = node
        self._blocked = blocked

    # -- properties --------------------------------------------------------
    @property
    def shape(self):
        """The static shape, a tuple of ints (``()`` for a scalar)."""
        return self._g.shape(self._id)

    @property
    def dtype(self):
        """The element type: one of float64, float32, int32, int64, bool."""
        return self._g.dtype(self._id)

    @property
    def ndim(self):
        """Number of dimensions."""
        return len(self.shape)

    @property
    def size(self):
        """Number of elements."""
        return int(np.prod(self.shape, dtype=np.int64))

    def __len__(self):
        if not self.shape:
            raise TypeError("len() of a scalar Expr")
        return self.shape[0]

    def __repr__(self):
        return f"Expr(shape={self.shape}, dtype={self.dtype})"

    def __array__(self, *args, **kwargs):
        raise TypeError("an Expr is symbolic and has no values while tracing; "
                        "call the Function with NumPy arrays to evaluate it")

    def __bool__(self):
        raise TypeError(
            "an Expr has no truth value while tracing; use sc.where(cond, a, b) instead of if/and/or")

    def __iter__(self):
        if not self.shape:
            raise TypeError("iteration over a scalar Expr")
        return (self[i] for i in range(self.shape[0]))

    # -- arithmetic --------------------------------------------------------
    def _binary(self, op, other, reflected=False):
        other = as_expr(other, self._g, like=self)
        a, b = (other, self) if reflected else (self, other)
        return Expr(self._g, self._g.binary(op, a._id, b._id))

    def __add__(self, o): return self._binary("add", o)
    def __radd__(self, o): return self._binary("add", o, True)
    def __sub__(self, o): return self._binary("sub", o)
    def __rsub__(self, o): return self._binary("sub", o, True)
    def __mul__(self, o): return self._binary("mul", o)
    def __rmul__(self, o): return self._binary("mul", o, True)
    def __truediv__(self, o): return _true_divide(self, as_expr(o, self._g, like=self))
    def __rtruediv__(self, o): return _true_divide(as_expr(o, self._g, like=self), self)

    def __and__(self, o): return _logical("&", self, o)
    def __rand__(self, o): return _logical("&", o, self)
    def __or__(self, o): return _logical("|", self, o)
    def __ror__(self, o): return _logical("|", o, self)
    def __xor__(self, o): return _logical("^", self, o)
    def __rxor__(self, o): return _logical("^", o, self)

    def __invert__(self):
        if self.dtype != "bool":
            raise TypeError(f"~ on {self.dtype} arrays is not supported (bitwise operations are "
                            "not built); on bools it is logical not")
        return self == False  # noqa: E712 - elementwise comparison, not a truth test

    def __floordiv__(self, o): return floor_divide(self, o)
    def __rfloordiv__(self, o): return floor_divide(o, self)
    def __mod__(self, o): return remainder(self, o)
    def __rmod__(self, o): return remainder(o, self)

    def __array_ufunc__(self, ufunc, method, *inputs, **kwargs):
        return _apply_ufunc(ufunc, method, inputs, kwargs)

    def __array_function__(self, func, types, args, kwargs):
        return _apply_array_function(func, args, kwargs)

    def __neg__(self):
        if self.dtype.startswith("int"):
            return as_expr(0, self._g, like=self) - self
        return Expr(self._g, self._g.neg(self._id))
    def __pos__(self): return self

    def __pow__(self, o):
        return pow_(self, o)

    def __rpow__(self, o):
        return pow_(as_expr(o, self._g, like=self), self)

    def __matmul__(self, o):
        from .ops import matmul
        return matmul(self, o)

    def __rmatmul__(self, o):
        from .ops import matmul
        return matmul(as_expr(o, self._g, like=self), self)

    def _compare(self, pred, other):
        other = as_expr(other, self._g, like=self)
        return Expr(self._g, self._g.compare(pred, self._id, other._id))

    def __lt__(self, o): return self._compare("lt", o)
    def __le__(self, o): return self._compare("le", o)
    def __gt__(self, o): return self._compare("gt", o)
    def __ge__(self, o): return self._compare("ge", o)
    def __eq__(self, o): return self._compare("eq", o)
    def __ne__(self, o): return self._compare("ne", o)
    __hash__ = object.__hash__

    # -- structure ---------------------------------------------------------
    def _getitem(self, key):
        """x[key] for every key but an int in range (Expr.__getitem__, in C, does
        that one): a slice, a row, an element, or a gather for an array of positions."""
        if isinstance(key, Expr) or (isinstance(key, tuple) and any(isinstance(k, Expr) for k in key)):
            raise TypeError("indexing with an Expr is not supported: indices must be static")
        basic = _basic_index(key, self.shape)
        if basic is not None:
            starts, steps, sizes, out_shape = basic
            out = Expr(self._g, self._g.slice(self._id, starts, steps, sizes))
            return out if tuple(sizes) == out_shape else out.reshape(out_shape)
        # Fancy (irregular) indexing: one gather with the picked positions.
        if self.ndim == 1 and isinstance(key, np.ndarray) and (
                key.dtype.kind == "i" or (key.dtype.kind == "u" and key.dtype.itemsize < 8)):
            # A 1-D table picks positions as they are (no table of every position:
            # a derivative's gather from a compressed product of 10^6 values).
            picked = key.astype(np.int64, copy=False)
            n = self.shape[0]
            if picked.size and (picked.min() < -n or picked.max() >= n):
                bad = picked[(picked < -n) | (picked >= n)][0]
                raise IndexError(f"index {bad} is out of bounds for axis 0 with size {n} "
                                 f"(indexing an Expr of shape {self.shape})")
            picked = np.where(picked < 0, picked + n, picked)
            return Expr(self._g, self._g.gather(self._id, picked.ravel().tolist(),
                                                list(picked.shape)))
        positions = np.arange(self.size, dtype=np.int64).reshape(self.shape)
        try:
            picked = positions[key]
        except IndexError as e:
            raise IndexError(f"{e} (indexing an Expr of shape {self.shape})") from None
        picked = np.asarray(picked)
        return Expr(self._g, self._g.gather(self._id, picked.ravel().tolist(), list(picked.shape)))

    @property
    def T(self):
        """The transpose (axes reversed)."""
        return self.transpose()

    def transpose(self, *axes):
        """Permute the axes (reversed when none are given), as NumPy's transpose."""
        if len(axes) == 1 and (axes[0] is None or isinstance(axes[0], (tuple, list))):
            axes = axes[0]
        if not axes:
            axes = tuple(range(self.ndim))[::-1]
        axes = [_axis_index(a, self.ndim, "transpose") for a in axes]
        if sorted(axes) != list(range(self.ndim)):
            raise ValueError(f"transpose: axes {tuple(axes)} are not a permutation of "
                             f"{self.ndim} axes")
        return Expr(self._g, self._g.transpose(self._id, axes))

    def reshape(self, *shape, order="C"):
        """The same elements with another shape; one -1 is inferred. `order="C"` (default)
        reads and writes row-major, `order="F"` column-major (as NumPy and CasADi)."""
        if len(shape) == 1 and not isinstance(shape[0], numbers.Integral):
            shape = shape[0]
        shape = tuple(shape)
        if order not in ("C", "F"):
            raise ValueError(f"reshape: order must be 'C' or 'F', got {order!r}")
        if order == "F":
            # Column-major reshape: reverse the axes, reshape row-major, reverse back.
            if shape.count(-1) == 1:
                rest = int(np.prod([d for d in shape if d != -1], dtype=np.int64))
                if rest == 0 or self.size % rest:
                    raise ValueError(f"cannot reshape {self.shape} to {shape}")
                shape = tuple(self.size // rest if d == -1 else d for d in shape)
            return self.T.reshape(tuple(shape)[::-1]).T
        if shape.count(-1) > 1:
            raise ValueError(f"reshape: at most one dimension may be -1, got {shape}")
        if shape.count(-1) == 1:
            rest = int(np.prod([d for d in shape if d != -1], dtype=np.int64))
            if rest == 0 or self.size % rest:
                raise ValueError(f"cannot reshape {self.shape} to {shape}")
            shape = tuple(self.size // rest if d == -1 else d for d in shape)
        shape = normalize_shape(shape, "reshape")
        return Expr(self._g, self._g.reshape(self._id, list(shape)))

    def vec(self):
        """All elements as a vector, in row-major order."""
        return self.reshape((self.size,))

    def ravel(self):
        """Same as `vec()`."""
        return self.vec()

    def astype(self, dtype):
        """Elementwise conversion to `dtype`."""
        return Expr(self._g, self._g.cast(self._id, normalize_dtype(dtype)))

    def block(self):
        """Lowering hint: keep the function returning this value as its own C procedure."""
        return Expr(self._g, self._id, blocked=True)

    def sum(self, axis=None, keepdims=False):
        """Sum of all elements, or over `axis` (an int or a tuple); bool and int32 sum to int64."""
        return reduce_("sum", self, axis, keepdims)

    def prod(self, axis=None, keepdims=False):
        """Product of all elements, or over `axis`."""
        return reduce_("prod", self, axis, keepdims)

    def max(self, axis=None, keepdims=False):
        """Maximum (NaN propagates, as in NumPy) of all elements, or over `axis`."""
        return reduce_("max", self, axis, keepdims)

    def min(self, axis=None, keepdims=False):
        """Minimum (NaN propagates, as in NumPy) of all elements, or over `axis`."""
        return reduce_("min", self, axis, keepdims)

    def mean(self, axis=None, keepdims=False):
        """Arithmetic mean of all elements, or over `axis` (float64 for integers)."""
        return mean_(self, axis, keepdims)

    def flatten(self):
        """All elements as a vector, in row-major order (same as `vec()`)."""
        return self.vec()


def _axis_index(axis, ndim, what):
    """`axis` as a non-negative int below `ndim` (negative axes count from the end)."""
    if not isinstance(axis, numbers.Integral) or isinstance(axis, bool):
        raise TypeError(f"{what}: axis must be an int, got {type(axis).__name__} {axis!r}")
    if not -ndim <= axis < ndim:
        raise ValueError(f"{what}: axis {axis} is out of range for {ndim} dimensions")
    return int(axis) % ndim


def _reduced_axes(axis, ndim, what):
    """The sorted axes `axis` names (None: all of them)."""
    if axis is None:
        return list(range(ndim))
    axes = axis if isinstance(axis, (tuple, list)) else (axis,)
    out = sorted(_axis_index(a, ndim, what) for a in axes)
    if len(set(out)) != len(out):
        raise ValueError(f"{what}: axis {axis!r} names an axis twice")
    return out


def reduce_(kind, x, axis=None, keepdims=False):
    """A reduction (sum, prod, max, min) of `x` over `axis`, optionally keeping size-1 axes."""
    if not isinstance(keepdims, bool):
        raise TypeError(f"{kind}: keepdims must be a bool, got {keepdims!r}")
    axes = _reduced_axes(axis, x.ndim, kind)
    out = Expr(x._g, x._g.reduce(kind, x._id, axes))
    if keepdims:
        out = out.reshape(tuple(1 if d in axes else n for d, n in enumerate(x.shape)))
    return out


def mean_(x, axis=None, keepdims=False):
    """Arithmetic mean over `axis`; integers and bools average in float64, as in NumPy."""
    axes = _reduced_axes(axis, x.ndim, "mean")
    count = 1
    for d in axes:
        count *= x.shape[d]
    if count == 0:
        raise ValueError("mean: the reduced axes are empty (NumPy returns nan with a warning)")
    if not x.dtype.startswith("float"):
        x = x.astype("float64")
    return reduce_("sum", x, axes, keepdims) / count


def _basic_index(key, shape):
    """Starts, steps and sizes of a basic (slice/int/None/...) index, and the
    result shape; None for fancy indexing (lists and arrays)."""
    key = key if isinstance(key, tuple) else (key,)
    for k in key:
        if not (k is None or k is Ellipsis or isinstance(k, slice) or
                (isinstance(k, numbers.Integral) and not isinstance(k, bool))):
            return None
    if sum(k is Ellipsis for k in key) > 1:
        raise IndexError("an index can only have a single ellipsis ('...')")
    used = sum(1 for k in key if k is not None and k is not Ellipsis)
    if used > len(shape):
        raise IndexError(f"too many indices for an Expr of shape {shape}: {used} were given")
    if Ellipsis in key:
        at = key.index(Ellipsis)
        key = key[:at] + (slice(None),) * (len(shape) - used) + key[at + 1:]
    else:
        key = key + (slice(None),) * (len(shape) - used)
    starts, steps, sizes, out_shape = [], [], [], []
    axis = 0
    for k in key:
        if k is None:
            out_shape.append(1)
            continue
        n = shape[axis]
        if isinstance(k, slice):
            start, stop, step = k.indices(n)
            size = len(range(start, stop, step))
            starts.append(start if size else 0)
            steps.append(step)
            sizes.append(size)
            out_shape.append(size)
        else:
            i = int(k)
            if not -n <= i < n:
                raise IndexError(f"index {i} is out of bounds for axis {axis} with size {n} "
                                 f"(indexing an Expr of shape {shape})")
            starts.append(i % n)
            steps.append(1)
            sizes.append(1)
        axis += 1
    return starts, steps, sizes, tuple(out_shape)


def _logical(op, a, b):
    """& | ^ on bool Exprs: logical and, or, xor (NumPy's meaning on bools)."""
    graph = _graph_of(a, b)
    a = as_expr(a, graph, like=b if isinstance(b, Expr) else None)
    b = as_expr(b, graph, like=a)
    if a.dtype != "bool" or b.dtype != "bool":
        raise TypeError(f"{op} needs bool arrays (bitwise operations on {a.dtype}/{b.dtype} are not "
                        "built); compare first, e.g. (x > 0) & (y < 1)")
    if op == "&":
        return Expr(graph, graph.binary("mul", a._id, b._id))
    if op == "|":
        return Expr(graph, graph.binary("add", a._id, b._id))
    return a != b


def _float_operands(a, b, what):
    graph = _graph_of(a, b)
    like = a if isinstance(a, Expr) else b
    a, b = as_expr(a, graph, like=like), as_expr(b, graph, like=like)
    if not a.dtype.startswith("float") or not b.dtype.startswith("float"):
        if a.dtype.startswith("float") or b.dtype.startswith("float"):
            dtype = a.dtype if a.dtype.startswith("float") else b.dtype
            return graph, a.astype(dtype), b.astype(dtype)
        raise TypeError(f"{what} on integer arrays is not built yet; use floats, e.g. "
                        f"x.astype('float64') {what} y")
    return graph, a, b


def _signed_zero(negative, like):
    """-0.0 where `negative` holds, else 0.0 (NumPy's copysign(0, ...))."""
    return where_(negative, as_expr(-0.0, like._g, like=like), as_expr(0.0, like._g, like=like))


def _divmod(a, b, what):
    """NumPy's divmod for floats (npy_divmod): fmod, then the sign of the divisor."""
    graph, a, b = _float_operands(a, b, what)
    mod = Expr(graph, graph.math2("fmod", a._id, b._id))
    div = (a - mod) / b
    adjust = (mod != 0) & ((b < 0) != (mod < 0))
    div = where_(adjust, div - 1, div)
    mod = where_(adjust, mod + b, where_(mod == 0, _zero_signed_like(b < 0, mod), mod))
    return a, b, div, mod


def _zero_signed_like(negative, zero):
    """`zero` (a +-0.0 of fmod's) with the sign NumPy gives it: -0.0 where `negative`
    holds, else 0.0. Computed from `zero` by sign-exact additions, not picked as a
    constant, so it keeps fmod's derivative: d(x % y)/dx is 1 where the remainder
    is 0 too (x = 0, say), as everywhere else."""
    plus = zero + 0.0            # +0.0 whatever zero's sign: (-0) + (+0) = +0
    minus = -((-zero) + 0.0)     # -0.0 whatever zero's sign
    return where_(negative, minus, plus)


def floor_divide(a, b):
    """a // b as NumPy computes it for floats (npy_divmod: from fmod, not floor(a / b))."""
    a, b, div, _ = _divmod(a, b, "//")
    floor = div.floor()
    floor = where_(div - floor > 0.5, floor + 1, floor)
    quotient = a / b
    negative = (quotient < 0) | ((quotient == 0) & (1 / quotient < 0))
    floor = where_(div == 0, _signed_zero(negative, div), floor)
    # Division by zero gives a / b (inf or nan), as in NumPy.
    return where_(b == 0, quotient, floor)


def remainder(a, b):
    """a % b with the sign of b, as NumPy's remainder for floats."""
    return _divmod(a, b, "%")[3]


def where_(cond, a, b):
    from .ops import where
    return where(cond, a, b)


# NumPy ufuncs named unlike Scaly's math functions: np.arcsin(x) on an Expr is
# sc.asin(x). A ufunc named like one of MATH_FUNCTIONS (np.sin) maps to it.
_UFUNC_METHODS = {"arcsin": "asin", "arccos": "acos", "arctan": "atan", "absolute": "abs",
                  "fabs": "abs"}
_UFUNC_OPERATORS = {"add": "__add__", "subtract": "__sub__", "multiply": "__mul__",
                    "divide": "__truediv__", "true_divide": "__truediv__", "power": "__pow__",
                    "matmul": "__matmul__", "less": "__lt__", "less_equal": "__le__",
                    "greater": "__gt__", "greater_equal": "__ge__", "equal": "__eq__",
                    "not_equal": "__ne__", "floor_divide": "__floordiv__",
                    "remainder": "__mod__", "logical_and": "__and__", "logical_or": "__or__",
                    "logical_xor": "__xor__", "bitwise_and": "__and__", "bitwise_or": "__or__",
                    "bitwise_xor": "__xor__"}


def _apply_ufunc(ufunc, method, inputs, kwargs):
    name = ufunc.__name__
    if method != "__call__" or kwargs:
        raise TypeError(f"np.{name}.{method} with {sorted(kwargs) or 'no'} keyword arguments is "
                        "not supported on a traced Expr; call np."
                        f"{name}(...) plainly or use the sc. function")
    from . import ops
    if name in MATH_FUNCTIONS or name in _UFUNC_METHODS:
        return getattr(ops, _UFUNC_METHODS.get(name, name))(inputs[0])
    if name == "negative":
        return -inputs[0]
    if name == "positive":
        return +inputs[0]
    if name == "square":
        return inputs[0] * inputs[0]
    if name == "arctan2":
        return ops.atan2(*inputs)
    if name in MATH2_FUNCTIONS:  # fmin, fmax, fmod, ...
        return getattr(ops, name)(*inputs)
    if name == "logical_not" or name == "invert":
        return ~as_expr(inputs[0], _graph_of(*inputs))
    if name in _UFUNC_OPERATORS:
        a, b = inputs
        graph = _graph_of(a, b)
        a = a if isinstance(a, Expr) else as_expr(a, graph, like=b)
        return getattr(a, _UFUNC_OPERATORS[name])(b)
    raise TypeError(f"np.{name} is not supported on a traced Expr; see the sc. functions "
                    "(sc.sin, sc.where, sc.fmax, ...) for what Scaly provides")


def _apply_array_function(func, args, kwargs):
    from . import ops
    name = func.__name__
    table = {"sum": ops.sum, "prod": ops.prod, "max": ops.max, "amax": ops.max, "min": ops.min,
             "amin": ops.min, "mean": ops.mean, "transpose": ops.transpose, "dot": ops.dot,
             "matmul": ops.matmul, "stack": ops.stack, "concatenate": ops.concat,
             "where": ops.where, "reshape": lambda a, *s, **k: a.reshape(*s, **k),
             "ravel": lambda a: a.vec()}
    if name not in table:
        raise TypeError(f"np.{name} is not supported on a traced Expr; see the sc. functions "
                        "for what Scaly provides")
    if name == "concatenate" and "axis" in kwargs:
        return ops.concat(*args, axis=kwargs["axis"])
    return table[name](*args, **kwargs)


def _math_method(name):
    def method(self):
        return Expr(self._g, self._g.math(name, self._id))
    method.__name__ = name
    method.__doc__ = f"Elementwise {name}."
    method.__qualname__ = f"Expr.{name}"
    return method


# The elementwise math functions, as the expression dialect declares them (ODS).
MATH_FUNCTIONS = tuple(_core.expr_enums()["math"])
MATH2_FUNCTIONS = tuple(_core.expr_enums()["math2"])
for _name in MATH_FUNCTIONS:
    setattr(Expr, _name, _math_method(_name))


def _abs(self):
    """Elementwise absolute value (integers too: as NumPy, the minimum stays itself)."""
    if self.dtype in ("int32", "int64"):
        return where_(self < 0, -self, self)
    if self.dtype == "bool":
        return self
    return Expr(self._g, self._g.math("abs", self._id))


Expr.abs = _abs
Expr.__abs__ = _abs


def _graph_of(*values):
    graphs = {id(v._g): v._g for v in values if isinstance(v, Expr)}
    if len(graphs) > 1:
        raise ValueError("these Exprs belong to different traced functions and cannot be mixed")
    return next(iter(graphs.values()), None)


def as_expr(value, graph=None, like=None):
    """Turn `value` (an Expr, number, list or NumPy array) into an Expr of `graph`.

    A constant combined with an Expr takes that Expr's dtype when its values
    convert exactly (weak typing, as in JAX: ``0.1 * x`` stays float32 for a
    float32 ``x``); the graph refuses a lossy conversion such as 0.5 to int.
    """
    if isinstance(value, Expr):
        if graph is not None and value._g is not graph:
            raise ValueError("this Expr belongs to another traced function and cannot be mixed in")
        return value
    if graph is None:
        raise TypeError(f"expected an Expr, got {type(value).__name__}")
    arr = np.asarray(value)
    if arr.dtype.kind not in "fiub":
        raise TypeError(f"cannot use {type(value).__name__} ({arr.dtype}) as an array constant")
    shape = list(arr.shape)
    if arr.dtype.kind in "iub":
        # Integers stay exact (int64 values beyond 2**53 included).
        if arr.dtype.kind == "u" and arr.size and int(arr.max()) > np.iinfo(np.int64).max:
            raise ValueError(f"constant {value!r} does not fit int64")
        values = arr.astype(np.int64).ravel().tolist()
        dtype = "bool" if arr.dtype.kind == "b" else "int64"
        if like is not None and like.dtype != dtype and _KIND[dtype] <= _KIND[like.dtype] \
                and _fits(values, like.dtype):
            dtype = like.dtype
        return Expr(graph, graph.constant_ints(values, shape, dtype))
    dtype = "float32" if arr.dtype == np.float32 else "float64"
    values = arr.astype(np.float64).ravel().tolist()
    if like is not None and like.dtype != dtype and _KIND[dtype] <= _KIND[like.dtype] \
            and _fits(values, like.dtype):
        dtype = like.dtype
    return Expr(graph, graph.constant(values, shape, dtype))


# Kinds in NumPy's order: a weak constant never lowers its kind (2.0 * int_x
# is float64, as in NumPy; 2 * float32_x stays float32).
_KIND = {"bool": 0, "int32": 1, "int64": 1, "float32": 2, "float64": 2}


def _fits(values, dtype):
    """Whether `values` convert to `dtype` without changing (float32: in range)."""
    ints = all(isinstance(v, int) for v in values)
    if dtype == "float64":
        return not ints or all(abs(v) <= 2 ** 53 for v in values)
    if dtype == "float32":
        if ints:
            return all(abs(v) <= 2 ** 24 for v in values)
        return all(abs(v) <= 3.4028234663852886e38 or v != v for v in values)
    if dtype == "bool":
        return all(v in (0, 1) for v in values)
    bound = 2 ** 31 if dtype == "int32" else 2 ** 63
    return all(v == v and abs(v) != float("inf") and v == int(v) and -bound <= v < bound
               for v in values)


def _true_divide(a, b):
    """a / b with Python's and NumPy's meaning: integers divide as float64."""
    graph = a._g
    if not a.dtype.startswith("float") and not b.dtype.startswith("float"):
        a, b = a.astype("float64"), b.astype("float64")
    elif isinstance(b, Expr) and a.dtype != b.dtype and not b.dtype.startswith("float"):
        b = b.astype(a.dtype)
    elif a.dtype != b.dtype and not a.dtype.startswith("float"):
        a = a.astype(b.dtype)
    return Expr(graph, graph.binary("div", a._id, b._id))


def pow_(base, exponent):
    """Elementwise power; small integer exponents become multiplications."""
    graph = _graph_of(base, exponent)
    if isinstance(base, Expr) and isinstance(exponent, numbers.Integral) and \
            not isinstance(exponent, bool) and exponent > 4 and base.dtype in ("int32", "int64"):
        # Integer powers by repeated squaring: exact, wrapping as NumPy's do.
        out, square, k = None, base, int(exponent)
        while k:
            if k & 1:
                out = square if out is None else out * square
            k >>= 1
            if k:
                square = square * square
        return out
    if isinstance(base, Expr) and isinstance(exponent, numbers.Integral) and exponent < 0 and \
            base.dtype in ("int32", "int64"):
        raise ValueError("Integers to negative integer powers are not allowed (as in NumPy); "
                         "cast the base to float first")
    if isinstance(base, Expr) and isinstance(exponent, numbers.Integral) and 0 <= exponent <= 4:
        if exponent == 0:
            return as_expr(np.ones(base.shape), graph).astype(base.dtype) if base.shape else \
                as_expr(1.0, graph, like=base)
        out = base
        for _ in range(int(exponent) - 1):
            out = out * base
        return out
    like = base if isinstance(base, Expr) else exponent
    a = as_expr(base, graph, like=like)
    b = as_expr(exponent, graph, like=like)
    return Expr(graph, graph.math2("pow", a._id, b._id))


def binary_math(name, a, b):
    """Elementwise two-argument math function (atan2, fmin, fmax, pow)."""
    graph = _graph_of(a, b)
    if graph is None:
        raise TypeError(f"{name}: at least one argument must be an Expr")
    like = a if isinstance(a, Expr) else b
    a = as_expr(a, graph, like=like)
    b = as_expr(b, graph, like=like)
    return Expr(graph, graph.math2(name, a._id, b._id))
