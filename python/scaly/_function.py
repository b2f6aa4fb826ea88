"""`sc.arg`, `sc.function` and the traced `Function`."""

from __future__ import annotations

import inspect
import re

from . import _core, _runtime
from ._core import core as _scaly
from ._trace import Expr, as_expr, normalize_dtype, normalize_shape

# Names become C identifiers and parts of derivative names. fullmatch: with
# match and `$`, a name ending in a newline would pass ($ matches before it).
_IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


class Arg:
    """A declared input or output: a name, a shape (None: inferred) and a dtype (None: default)."""

    __slots__ = ("name", "shape", "dtype")

    def __init__(self, name, shape=None, dtype=None):
        if not isinstance(name, str):
            raise TypeError(f"argument name must be a str, got {type(name).__name__} {name!r}")
        if not _IDENTIFIER.fullmatch(name):
            raise ValueError(
                f"argument name {name!r} is not a valid identifier (letters, digits and _, "
                "not starting with a digit)")
        self.name = name
        self.shape = None if shape is None or shape is Ellipsis else normalize_shape(shape, f"'{name}'")
        self.dtype = None if dtype is None else normalize_dtype(dtype, f"'{name}'")

    def __repr__(self):
        return f"sc.arg({self.name!r}, {self.shape!r}, dtype={self.dtype!r})"


def arg(name, shape=None, dtype=None):
    """Declare an input or output named `name`.

    `shape`: an int is a vector, a tuple a shape, ``()`` a scalar; for an
    output it may be omitted or ``...`` to take the traced result's shape.
    `dtype`: float64 (default for inputs), float32, int32, int64 or bool; an
    output without one takes the traced result's dtype.
    """
    return Arg(name, shape, dtype)


L = arg


class _DtypeOnly:
    """Stands in for an Expr where only a dtype matters (weak typing of constants)."""

    def __init__(self, dtype):
        self.dtype = dtype


class Function:
    """A traced Scaly function.

    Calling it with `Expr` arguments (inside another traced function) records
    a call; `inputs` and `outputs` list ``(name, shape, dtype)`` tuples.
    """

    def __init__(self, traced, pyfunc=None):
        self._setup(traced.name, traced.inputs, traced.outputs, pyfunc)
        self._traced_now = traced

    @classmethod
    def _untraced(cls, pyfunc, name, inputs, outputs, retrace):
        """A Function whose compiled code came from the trace-free index: `retrace()`
        makes its trace the first time the graph is needed."""
        self = cls.__new__(cls)
        self._setup(name, inputs, outputs, pyfunc)
        self._retrace = retrace
        return self

    def _setup(self, name, inputs, outputs, pyfunc):
        self._traced_now = None
        self._retrace = None  # for a Function loaded trace-free: makes the trace on demand
        self._name = name
        self._inputs = [tuple(p) for p in inputs]
        self._outputs = [tuple(p) for p in outputs]
        if pyfunc is not None:  # what inspect.signature and help() follow
            self.__wrapped__ = pyfunc
        self.__doc__ = getattr(pyfunc, "__doc__", None)
        self._kernel = None
        self._solver_module = None  # set by the JIT for a Function that reaches a solver
        self._workspace_bytes = 0
        self._recompile_id = None
        self._fast_key = None  # the trace-free index's key (runtime/fast.py), if any

    @property
    def _traced(self):
        """The traced function (the C++ graph); made now for a Function loaded trace-free."""
        traced = self._traced_now
        if traced is None:
            traced = self._traced_now = self._retrace()
        return traced

    @_traced.setter
    def _traced(self, traced):
        self._traced_now = traced

    @property
    def name(self):
        """The function's name (the Python function's name)."""
        return self._name

    @property
    def inputs(self):
        """Declared inputs as (name, shape, dtype) tuples."""
        return list(self._inputs)

    @property
    def outputs(self):
        """Outputs as (name, shape, dtype) tuples, shapes and dtypes resolved by tracing."""
        return list(self._outputs)

    @property
    def blocked(self):
        """Whether the traced result carried the `.block()` hint."""
        return self._traced.block

    def mlir(self):
        """The expression-dialect MLIR of this function and its callees, as text."""
        return _scaly.expr_module(self._traced)

    def __repr__(self):
        ins = ", ".join(f"{n}: {d}{list(s)}" for n, s, d in self.inputs)
        outs = ", ".join(f"{n}: {d}{list(s)}" for n, s, d in self.outputs)
        return f"<scaly.Function {self.name}({ins}) -> ({outs})>"

    def compile(self):
        """Load (or build) the compiled module without evaluating; returns self."""
        from .runtime import compile_function
        compile_function(self)
        return self

    def stats(self):
        """Statistics of the latest solve of each solver this Function reaches.

        A dict of the ``scaly_solver_stats`` fields (status by name) and
        ``solver`` ("qp", "ipopt" or "sqp") for a Function with one solver;
        with several, a dict of such dicts by wrapper name, in the order the
        module calls them. Compiles the Function if needed; TypeError if it
        reaches no solver.
        """
        from .runtime.jit import solver_stats
        stats = solver_stats(self)
        return next(iter(stats.values())) if len(stats) == 1 else stats

    def recompile(self):
        """Drop the compiled handle; the next call or compile() builds under a fresh key.

        Kernels already handed out stay callable; the cache's index entries,
        which other processes use, are left as they were.
        """
        from .runtime import recompile_function
        recompile_function(self)

    def _call(self, *args, **keywords):
        """f(*args) when Function.__call__ (in C) has no fast way: arguments to
        convert into the graph of the Exprs among them, wrong counts or keywords to
        report, or numbers for a Function not compiled yet."""
        if set(keywords) == {"options"}:
            from .runtime.jit import call_with_options
            return call_with_options(self, args, keywords["options"])
        if keywords:
            raise TypeError(f"{self.name}() got an unexpected keyword argument "
                            f"'{next(iter(keywords))}': inputs are passed by position "
                            f"({', '.join(n for n, _, _ in self._inputs)})")
        if len(args) != len(self._inputs):
            raise TypeError(f"{self.name}() takes {len(self._inputs)} inputs "
                            f"({', '.join(n for n, _, _ in self._inputs)}), got {len(args)}")
        for a in args:
            if isinstance(a, Expr):
                return self._call_traced(args, a._g)
        from .runtime import call_numeric
        return call_numeric(self, args)

    def _call_traced(self, args, graph):
        """A call recorded in `graph` (that of the first Expr argument)."""
        ids = []
        for (name, shape, dtype), a in zip(self._inputs, args):
            if type(a) is Expr and a._g is graph:  # the common case: nothing to convert
                ids.append(a._id)
                continue
            e = as_expr(a, graph, like=_DtypeOnly(dtype))
            if not isinstance(a, Expr) and e.dtype != dtype:
                raise TypeError(f"{self.name}(): input '{name}' expects {dtype} values, "
                                f"got {a!r}")
            ids.append(e._id)
        results = graph.call(self._traced, ids)
        if len(results) == 1:
            return Expr(graph, results[0])
        return tuple(Expr(graph, r) for r in results)


# Function.__call__ is a C method from the start: a compiled call runs without
# a Python frame. Once the compiler module is loaded (the first trace), the
# Expr class is registered with it (calls and int indexes make Exprs in C),
# and Expr.__getitem__ and Function.__call__ become its C methods, which also
# record an int index and a call of Exprs of one graph without a frame.
_runtime.install_call(Function)
_core.on_load(lambda core: core.install_fast_methods(Expr, Function))


def _split_declarations(pyfunc, decls, outputs):
    """Inputs and outputs from `@sc.function(*decls, outputs=...)`."""
    for d in decls:
        if not isinstance(d, Arg):
            raise TypeError(f"sc.function: declarations must be sc.arg(...), got {d!r}")
    try:
        signature = inspect.signature(pyfunc).parameters.values()
    except (TypeError, ValueError):
        signature = None
    params = None
    if signature is not None:
        params = [p for p in signature if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
        variadic = [p for p in signature if p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD)]
        if variadic:
            # The declarations bind to named parameters only: with *args they
            # would silently become outputs.
            raise TypeError(f"sc.function: {pyfunc.__name__}() takes "
                            f"{'*' if variadic[0].kind == variadic[0].VAR_POSITIONAL else '**'}"
                            f"{variadic[0].name}; name each input as a parameter of its own, "
                            "one per declared input")
    if outputs is None:
        # As in sc.function(sc.L("x", 3), sc.L("energy", ...)): the first k
        # declarations name the k parameters, the rest name the outputs.
        if params is None:
            raise TypeError("sc.function: cannot read the parameters of "
                            f"{pyfunc!r}; pass outputs=...")
        k = len(params)
        if len(decls) < k:
            raise TypeError(f"sc.function: {pyfunc.__name__}() takes {k} parameters but only "
                            f"{len(decls)} inputs are declared")
        inputs, outs = list(decls[:k]), list(decls[k:])
    else:
        inputs = list(decls)
        outs = [outputs] if isinstance(outputs, Arg) else list(outputs)
        for o in outs:
            if not isinstance(o, Arg):
                raise TypeError(f"sc.function: outputs must be sc.arg(...), got {o!r}")
        if params is not None and len(params) != len(inputs):
            raise TypeError(f"sc.function: {pyfunc.__name__}() takes {len(params)} parameters but "
                            f"{len(inputs)} inputs are declared")
    names = [d.name for d in inputs + outs]
    dup = sorted({n for n in names if names.count(n) > 1})
    if dup:
        raise ValueError(f"sc.function: names used twice among inputs and outputs: {', '.join(dup)}")
    for d in inputs:
        if d.shape is None:
            raise ValueError(f"sc.function: input '{d.name}' needs a shape")
    return inputs, outs


def trace(pyfunc, inputs, outputs):
    """Trace `pyfunc` on symbolic inputs; returns a `Function`."""
    name = pyfunc.__name__
    if not isinstance(name, str) or not _IDENTIFIER.fullmatch(name):
        raise ValueError(f"function name {name!r} is not a valid identifier")
    graph = _scaly.Graph()
    args = [Expr(graph, graph.input(i, list(d.shape), d.dtype or "float64"))
            for i, d in enumerate(inputs)]
    result = pyfunc(*args)
    results = list(result) if isinstance(result, (tuple, list)) else [result]
    if not outputs:
        outputs = [Arg(f"o{k}") if len(results) > 1 else Arg("out") for k in range(len(results))]
    if len(results) != len(outputs):
        raise ValueError(f"{name}() returned {len(results)} values but {len(outputs)} outputs "
                         f"are declared ({', '.join(o.name for o in outputs)})")
    exprs, ports, blocked = [], [], False
    for out, r in zip(outputs, results):
        if not isinstance(r, Expr):
            if isinstance(r, (int, float, bool)) or hasattr(r, "__array__"):
                r = as_expr(r, graph)
            else:
                raise TypeError(f"{name}() must return Exprs; output '{out.name}' is "
                                f"{type(r).__name__}")
        if r._g is not graph:
            raise ValueError(f"{name}(): output '{out.name}' was traced in another function")
        blocked |= r._blocked
        if out.dtype is not None and r.dtype != out.dtype:
            raise TypeError(f"{name}(): output '{out.name}' is declared {out.dtype} but the "
                            f"traced value is {r.dtype}; use .astype('{out.dtype}')")
        if out.shape is not None and r.shape != out.shape:
            raise ValueError(f"{name}(): output '{out.name}' is declared with shape "
                             f"{out.shape} but the traced value has shape {r.shape}")
        exprs.append(r)
        ports.append((out.name, list(r.shape), r.dtype))
    ins = [(d.name, list(d.shape), d.dtype or "float64") for d in inputs]
    traced = _scaly.TracedFunction(name, ins, ports, graph, [e._id for e in exprs], blocked)
    return Function(traced, pyfunc)


def _from_fast_index(pyfunc, inputs, outs, key):
    """The Function compiled before for this code and these values (runtime/fast.py),
    callable at once without tracing, or None."""
    name = pyfunc.__name__
    if not isinstance(name, str) or not _IDENTIFIER.fullmatch(name):
        return None  # trace() reports it
    from .runtime import fast, jit
    hit = fast.lookup(key, name)
    if hit is None:
        return None
    address, owner, workspace, ins, outs_ = hit
    declared = [(d.name, list(d.shape), d.dtype or "float64") for d in inputs]
    if [tuple(p) for p in ins] != [tuple(p) for p in declared]:
        return None
    fn = Function._untraced(pyfunc, name, ins, outs_,
                            lambda: trace(pyfunc, inputs, outs)._traced)
    fn._fast_key = key
    jit._make_kernel(fn, address, owner, workspace, name)
    return fn


def function(*decls, outputs=None):
    """Decorator: trace a Python function once into a Scaly `Function`.

    ``@sc.function(sc.arg("z", 2), sc.arg("u", ()), outputs=sc.arg("znext"))``
    declares two inputs and one output; with ``outputs`` omitted, the
    declarations after the function's parameters name its outputs.
    """
    if len(decls) == 1 and callable(decls[0]) and not isinstance(decls[0], Arg):
        raise TypeError("sc.function needs declarations: @sc.function(sc.arg('x', 3), ...)")

    def decorate(pyfunc):
        if not callable(pyfunc):
            raise TypeError(f"sc.function decorates a function, got {pyfunc!r}")
        inputs, outs = _split_declarations(pyfunc, decls, outputs)
        from .runtime import fast
        key = fast.function_key(pyfunc, inputs, outs)
        if key is not None:
            fn = _from_fast_index(pyfunc, inputs, outs, key)
            if fn is not None:
                return fn
        fn = trace(pyfunc, inputs, outs)
        fn._fast_key = key
        return fn

    return decorate
