"""Derivatives: `sc.jvp`, `sc.vjp`, `sc.gradient`, `sc.jacobian`, `sc.hessian`.

Each takes a `Function` and returns a `Function` whose first inputs are the
original's, built once per Function and arguments (a Function keeps its
derivatives, as CasADi's do). The work is done by the compiler: a Function built here holds
an `expr.jvp` or `expr.vjp` of the original, and the `scaly-differentiate`
pass turns it into derivative functions from each op's rules, keeping calls,
maps and contractions structured. Inside a traced function the same names
take Exprs: ``sc.gradient(y, x)`` with `x` an input of the function being
traced.
"""

from __future__ import annotations

import functools
import numbers
import threading

import numpy as np

from ._core import core as _scaly
from ._function import Arg, Function, trace
from ._trace import MAX_ELEMENTS, Expr, as_expr

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
    fn = trace(traced, ins, outs)
    # The body is needed only while tracing. Kept, it would keep what it
    # closes over (colours, gather positions: megabytes at n = 10^5) for as
    # long as the Function lives; released, the next build reuses that memory.
    del fn.__wrapped__
    return fn


def _size(shape):
    return int(np.prod(shape, dtype=np.int64))


# ---------------------------------------------------------------------------
# Function transforms
# ---------------------------------------------------------------------------

class _Made:
    """One derivative of a Function: built by the first thread that asks, while the
    others wait for it (a derivative is traced, analysed and compiled once)."""

    def __init__(self):
        # Reentrant: a build that asked for itself would otherwise wait forever.
        self.lock = threading.RLock()
        self.value = None

    def get(self, make):
        with self.lock:
            if self.value is None:  # a failed build leaves it for the next to try
                self.value = make()
            return self.value


# Guards every Function's table of derivatives (not their builds, which take
# each its own entry's lock: a Hessian's build asks for its gradient meanwhile).
_MADE_LOCK = threading.Lock()


def _once_per_function(make):
    """`make(f, *selection)`, built once per Function and selection.

    A Function's derivatives are kept with it, as CasADi keeps a Function's
    derivative functions: asking again (or building another derivative that
    needs this one, as a Hessian needs a gradient) returns the same Function
    instead of tracing, analysing and colouring it afresh, also when threads
    ask at once. A selection spelled differently (a name, then an index) is
    a new entry.
    """
    def typed(value):  # 1.0 == 1, but only the int is a valid index
        if isinstance(value, (list, tuple)):
            return (type(value), tuple(typed(v) for v in value))
        return (type(value), value)

    @functools.wraps(make)
    def once(f, *selection):
        key = (make.__name__,) + tuple(typed(s) for s in selection)
        try:
            hash(key)
        except TypeError:  # an unusual selection: let make() check it
            return make(f, *selection)
        with _MADE_LOCK:
            entry = f.__dict__.setdefault("_derivatives", {}).setdefault(key, _Made())
        return entry.get(lambda: make(f, *selection))
    return once


@_once_per_function
def _jvp(f, wrt, exact_zeros=False):
    """`exact_zeros`: a zero tangent times a factor is zero even where the
    factor is infinite or NaN (the compressed sweeps: expr.jvp's exact_zeros)."""
    flags = _flags(f.inputs, wrt, "input", "jvp", f.name)
    tangents = [(f"d_{n}", s, d) for (n, s, d), on in zip(f.inputs, flags) if on]

    def body(*args):
        g = args[0]._g
        return tuple(Expr(g, r) for r in g.jvp(f._traced, [a._id for a in args], flags,
                                               exact_zeros=exact_zeros))

    return _build(f"{f.name}_jvp", f.inputs + tangents, [f"d_{n}" for n, _, _ in f.outputs], body)


@_once_per_function
def _vjp(f, of, wrt, exact_zeros=False):
    of_flags = _flags(f.outputs, of, "output", "vjp", f.name)
    wrt_flags = _flags(f.inputs, wrt, "input", "vjp", f.name)
    cotangents = [(f"adj_{n}", s, d) for (n, s, d), on in zip(f.outputs, of_flags) if on]

    def body(*args):
        g = args[0]._g
        return tuple(Expr(g, r)
                     for r in g.vjp(f._traced, [a._id for a in args], wrt_flags, of_flags,
                                    exact_zeros=exact_zeros))

    outs = [f"adj_{n}" for (n, _, _), on in zip(f.inputs, wrt_flags) if on]
    return _build(f"{f.name}_vjp", f.inputs + cotangents, outs, body)


@_once_per_function
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


class BatchedSparse:
    """Matrices of one shared sparsity pattern, as a `layout="batched"` output returns them.

    `values` has shape (batch, nnz): row b holds matrix b's stored values in
    compressed-column order of the shared pattern (`shape`, `colind`, `row`).
    `matrix(b)` is matrix b as a `scipy.sparse.csc_matrix`; `toarray()` all of
    them as a dense (batch, nrow, ncol) array.
    """

    def __init__(self, values, shape, colind, row):
        self.values, self.shape = np.asarray(values), tuple(shape)
        self.colind, self.row = np.asarray(colind), np.asarray(row)

    def __len__(self):
        return self.values.shape[0]

    def matrix(self, b):
        """Matrix `b` as a scipy.sparse.csc_matrix."""
        import scipy.sparse
        return scipy.sparse.csc_matrix((self.values[b], self.row, self.colind), shape=self.shape)

    def toarray(self):
        """All matrices, dense: shape (batch, nrow, ncol)."""
        return np.stack([self.matrix(b).toarray() for b in range(len(self))]) if len(self) else \
            np.zeros((0,) + self.shape)


class SparseOutputFunction(Function):
    """A Function with sparse outputs, returned as scipy.sparse matrices by a numerical call.

    `layout="csc"` gives a `csc_matrix`, `"csr"` a `csr_matrix`, `"coo"` a
    `coo_matrix` and `"batched"` a `BatchedSparse`. In C and inside other
    traced functions such an output is its stored values in the layout's
    order; `sparsity(k)` gives the pattern.
    """

    def sparsity(self, output=0):
        """(shape, *tables) of sparse output `output` (name or index), or None if dense.

        The tables are (colind, row) for csc and batched (one matrix's shape),
        (rowptr, col) for csr and (row, col) for coo.
        """
        info = self._sparse.get(self._index(output))
        return None if info is None else (info[1],) + tuple(v for _, v in info[2])

    def _index(self, output):
        """The position of output `output`: a name, or an index counted from the end when
        negative, as `of=` takes them. Anything else is refused: a bad index would find no
        pattern and look like a dense output."""
        names = [n for n, _, _ in self.outputs]
        if isinstance(output, str):
            if output not in names:
                raise ValueError(f"{self.name}() has no output named {output!r}")
            return names.index(output)
        if not isinstance(output, numbers.Integral) or isinstance(output, bool):
            raise TypeError(f"{self.name}(): outputs are chosen by name or index, "
                            f"got {output!r}")
        if not -len(names) <= output < len(names):
            raise IndexError(f"{self.name}(): output index {output} is out of range; "
                             f"{len(names)} output(s), valid indices "
                             f"{-len(names)}..{len(names) - 1}")
        return int(output) % len(names)

    def layout(self, output=0):
        """The layout of output `output` (name or index): "csc", "csr", "coo", "batched"
        or "dense"."""
        info = self._sparse.get(self._index(output))
        return "dense" if info is None else info[0]

    def __call__(self, *args):
        out = super().__call__(*args)
        if any(isinstance(a, Expr) for a in args):
            return out
        import scipy.sparse
        many = isinstance(out, tuple)
        values = list(out) if many else [out]
        for k, (layout, shape, tables) in self._sparse.items():
            if layout == "batched":
                t = dict(tables)
                values[k] = BatchedSparse(values[k], shape, t["colind"], t["row"])
                continue
            # Copies: each matrix owns writable indices (the tables are
            # read-only and shared). They are int32, as SciPy keeps them:
            # handed int64 ones it would convert them on every call.
            t = {name: table.copy() for name, table in tables}
            if layout == "csc":
                values[k] = scipy.sparse.csc_matrix((values[k], t["row"], t["colind"]), shape=shape)
            elif layout == "csr":
                values[k] = scipy.sparse.csr_matrix((values[k], t["col"], t["rowptr"]), shape=shape)
            else:
                values[k] = scipy.sparse.coo_matrix((values[k], (t["row"], t["col"])), shape=shape)
        return tuple(values) if many else values[0]


_LAYOUTS = ("dense", "csc", "csr", "coo", "batched")


def _check_layout(layout, what):
    if layout not in _LAYOUTS:
        raise ValueError(f"{what}: layout must be one of {', '.join(map(repr, _LAYOUTS))}, "
                         f"got {layout!r}")


class _Pattern:
    """A compressed-column pattern and the (row, column) of each stored entry.

    The tables are int32, as the analysis makes them and SciPy keeps them (it
    refuses patterns of more than 2^31 - 1 entries); arithmetic that can
    pass 2^31 (a dense position row * ncol + col) widens first.
    """

    def __init__(self, nrow, ncol, colind, row):
        self.nrow, self.ncol = int(nrow), int(ncol)
        self.colind = np.asarray(colind, dtype=np.int32)
        self.row = np.asarray(row, dtype=np.int32)

    # Arrays of nnz entries are made only when a caller needs them: at
    # n = 10^5 each is megabytes, and first-touched memory dominates the build.
    @functools.cached_property
    def col(self):
        """The column of each stored entry."""
        return self.by_column(np.arange(self.ncol, dtype=np.int32))

    @functools.cached_property
    def counts(self):
        """The number of stored entries of each column."""
        return np.diff(self.colind)

    def by_column(self, values):
        """values[column] for each stored entry (a value per column, repeated)."""
        return np.repeat(values, self.counts)

    @property
    def nnz(self):
        return len(self.row)

    @classmethod
    def from_entries(cls, nrow, ncol, rows, cols):
        """The pattern of entries (rows[k], cols[k]), in CSC order."""
        order = np.lexsort((rows, cols))
        colind = np.concatenate([[0], np.cumsum(np.bincount(cols, minlength=ncol))])
        return cls(nrow, ncol, colind, np.asarray(rows)[order])

    def args(self):
        return self.nrow, self.ncol, self.colind, self.row


def jacobian_sparsity(f, wrt=None, of=None):
    """The exact structural pattern of d out / d x as a `scipy.sparse.csc_matrix` of ones.

    Computed symbolically on the expression dialect (maps and scans are not
    unrolled); an entry is stored when the derivative is not structurally zero.
    """
    _check_function(f, "jacobian_sparsity")
    i = _one(f.inputs, wrt, "input", "jacobian_sparsity", f.name)
    j = _one(f.outputs, of, "output", "jacobian_sparsity", f.name)
    import scipy.sparse
    p = _Pattern(*_scaly.jacobian_pattern(f._traced, i, j))
    return scipy.sparse.csc_matrix((np.ones(p.nnz), p.row, p.colind), shape=(p.nrow, p.ncol))


# Tables proportional to n (colours, gather positions) would make the C of a
# large Jacobian grow with n. Banded and block patterns give periodic tables,
# which are built from structured ops instead: a small constant broadcast, or
# strided slices stacked together. Only irregular remnants stay tables.
_SMALL_TABLE = 512


def _periodic_constant(colours, graph):
    """`colours` (1-D) as an int64 Expr (they are compared with the int64 sweep
    number): a broadcast of one period when it repeats."""
    colours = np.asarray(colours)
    count = len(colours)
    if count >= _SMALL_TABLE:
        for period in range(1, 65):
            if np.array_equal(colours[period:], colours[:-period]):
                reps = -(-count // period)
                base = as_expr(colours[:period].astype(np.int64), graph)
                tiled = Expr(graph, graph.broadcast(base._id, [reps, period]))
                return tiled.reshape(reps * period)[:count]
    return as_expr(colours.astype(np.int64), graph)


_RUN_BLOCK = 8192


def _longest_periodic_run(table):
    """(start, period, stride, periods) of the longest stretch where
    table[k + period] == table[k] + stride, or None.

    Only periods whose run through the middle of the table (where the stride
    is read) spans 8 periods are considered."""
    count, best = len(table), None
    for period in range(1, min(64, count // 8) + 1):
        # The stride is read in the middle of the table, and a run worth taking
        # has 8 periods: test that the run through the middle has them on a
        # window of 7 periods each side before the whole table (at n = 10^5
        # the whole-table test of every period cost ~50 ms). Runs that miss
        # the middle are not looked for.
        middle = (count - period) // 2  # where the stride is read
        lo, hi = max(0, middle - 7 * period), min(count - period, middle + 7 * period + 1)
        near = table[lo + period:hi + period] - table[lo:hi]
        m = middle - lo
        same = near == near[m]
        before, after = np.flatnonzero(~same[:m]), np.flatnonzero(~same[m:])
        run_start = before[-1] + 1 if len(before) else 0
        run_end = m + after[0] if len(after) else len(same)
        if near[m] <= 0 or run_end - run_start < 7 * period:
            continue
        # Where the step equals the middle's, a block at a time: the steps of
        # the whole table at once were megabytes of fresh memory at n = 10^5,
        # which cost more than comparing them.
        steps = count - period
        stride = table[steps // 2 + period] - table[steps // 2]
        ok = np.zeros(steps + 2, dtype=bool)  # False at both ends: runs start and stop inside
        for a in range(0, steps, _RUN_BLOCK):
            b = min(a + _RUN_BLOCK, steps)
            np.equal(table[a + period:b + period] - table[a:b], stride, out=ok[a + 1:b + 1])
        edges = np.flatnonzero(ok[1:] != ok[:-1])
        starts, ends = edges[::2], edges[1::2]
        longest = int(np.argmax(ends - starts))
        start, end = int(starts[longest]), int(ends[longest])
        periods = (end - start + period) // period
        if stride > 0 and periods >= 8 and (best is None or periods * period > best[1] * best[3]):
            best = (start, period, int(stride), periods)
        if best and best[1] * best[3] >= count - 2 * period:
            break
    return best


def _gather(flat, table, depth=0):
    """flat[table] for a 1-D Expr: periodic stretches as stacked strided slices.

    `table` is an array of positions or an `_scaly.EntryPositions`, which
    computes the slices read here on demand: only irregular remnants become
    tables."""
    from .ops import concat, stack
    if not isinstance(table, _scaly.EntryPositions):
        table = np.asarray(table)
        if table.dtype.kind != "i":  # signed int32 or int64 kept (differences may be negative)
            table = table.astype(np.int64)
    run = _longest_periodic_run(table) if len(table) >= _SMALL_TABLE and depth < 8 else None
    if run is None:
        return flat[np.asarray(table)]
    start, period, stride, periods = run
    end = start + period * periods
    columns = [flat[int(table[start + i]):int(table[start + i]) + (periods - 1) * stride + 1:stride]
               for i in range(period)]
    parts = [stack(columns, axis=1).reshape(period * periods)]
    if start:
        parts.insert(0, _gather(flat, table[:start], depth + 1))
    if end < len(table):
        parts.append(_gather(flat, table[end:], depth + 1))
    return parts[0] if len(parts) == 1 else concat(parts)


def _compressed(f, i, j, colours, forward, exact_zeros=True):
    """A Function of f's inputs returning the compressed derivative (sweeps, size).

    Sweep k seeds the columns (forward) or rows (reverse) of colour k. The
    sweeps are exact with zeros (expr.jvp / expr.vjp's exact_zeros): an
    unseeded column's infinite or NaN entries, times its zero seed, do not
    spread into the entries of the seeded ones (issue 33). With
    `exact_zeros=False` they are IEEE products (the solvers' oracles, see
    _jacobian), named `<f>_sweep_ieee`.
    """
    in_name, in_shape, in_dtype = f.inputs[i]
    out_name, out_shape, out_dtype = f.outputs[j]
    n, m = _size(in_shape), _size(out_shape)
    sweeps = int(colours.max()) + 1
    nin = len(f.inputs)
    kernel = _jvp(f, i, exact_zeros) if forward else _vjp(f, j, i, exact_zeros)
    seed_shape, seed_dtype = (in_shape, in_dtype) if forward else (out_shape, out_dtype)

    def one_sweep(*args):
        *xs, k = args
        seed = (_periodic_constant(colours, k._g) == k).astype(seed_dtype).reshape(seed_shape)
        r = kernel(*xs, seed)
        r = r[j] if forward and isinstance(r, tuple) else r
        # A reverse sweep is in the input's dtype: the derivative takes the output's.
        r = r if r.dtype == out_dtype else r.astype(out_dtype)
        return r.reshape((m,) if forward else (n,))

    step = _build(f"{f.name}_sweep" + ("" if exact_zeros else "_ieee"), f.inputs + [("k", (), "int64")],
                  ["col" if forward else "row"], one_sweep)

    def body(*xs):
        from .ops import vmap
        ks = as_expr(np.arange(sweeps, dtype=np.int64), xs[0]._g)
        return vmap(step, sweeps, in_axes=(None,) * nin + (0,))(*xs, ks)

    return body, sweeps


def _batched_pattern(pattern, batch, what):
    """The pattern shared by the `batch` diagonal blocks of `pattern`, or a ValueError."""
    if batch < 1 or pattern.nrow % batch or pattern.ncol % batch:
        raise ValueError(f"{what}: layout='batched' needs the input and the output to share a "
                         f"leading axis; got a {pattern.nrow} x {pattern.ncol} matrix")
    mb, nb = pattern.nrow // batch, pattern.ncol // batch
    block = pattern.row // mb
    if np.any(block != pattern.col // nb):
        raise ValueError(f"{what}: layout='batched' needs a block-diagonal matrix over the "
                         f"leading axis ({batch} blocks of {mb} x {nb}); this one is not")
    # Entries of block b, in CSC order, and their position inside the block.
    order = np.lexsort((pattern.row, pattern.col - block * nb, block))
    local = np.stack([pattern.row[order] - block[order] * mb,
                      pattern.col[order] - block[order] * nb])
    counts = np.bincount(block, minlength=batch)
    if np.any(counts != counts[0]) or not np.all(
            local.reshape(2, batch, -1) == local.reshape(2, batch, -1)[:, :1]):
        raise ValueError(f"{what}: layout='batched' needs every block to have one pattern; "
                         "the blocks differ")
    first = _Pattern.from_entries(mb, nb, local[0, :counts[0]], local[1, :counts[0]])
    return first, order


def _assemble(f, name, out_name, pattern, compressed, index, layout, dtype, batch=None):
    """The Function returning d out / d x: dense, or its stored values in `layout` order.

    `compressed(*xs)` computes the compressed sweeps; entry k of `pattern` (CSC
    order) is element `index[k]` of them, flattened.
    """
    shape = (pattern.nrow, pattern.ncol)
    what = name.rsplit("_", 1)[-1]  # "jacobian" or "hessian"
    if layout == "dense":
        def body(*xs):
            if pattern.nnz == 0:
                return as_expr(np.zeros(shape, dtype=dtype), xs[0]._g)
            values = _gather(compressed(*xs).reshape(-1), index)
            return _scatter(values, _dense_positions(pattern), shape)
        return _build(name, f.inputs, [out_name], body)

    # The order values are written in (straight into the output), and the tables.
    if layout == "csc":  # the pattern's own order
        order, tables, stored = None, [("colind", pattern.colind), ("row", pattern.row)], shape
        out_shape, count = (pattern.nnz,), 0
    elif layout in ("csr", "coo"):
        order = np.lexsort((pattern.col, pattern.row))
        if layout == "csr":
            rowptr = np.concatenate([[0], np.cumsum(np.bincount(pattern.row,
                                                                minlength=pattern.nrow))])
            tables = [("rowptr", rowptr), ("col", pattern.col[order])]
        else:
            tables = [("row", pattern.row[order]), ("col", pattern.col[order])]
        stored, out_shape, count = shape, (pattern.nnz,), 0
    else:
        block, order = _batched_pattern(pattern, batch, what)
        tables = [("colind", block.colind), ("row", block.row)]
        stored, out_shape, count = (block.nrow, block.ncol), (batch, block.nnz), batch

    def body(*xs):
        if pattern.nnz == 0:
            return as_expr(np.zeros(out_shape, dtype=dtype), xs[0]._g)
        positions = index if order is None else np.asarray(index)[order]
        return _gather(compressed(*xs).reshape(-1), positions).reshape(out_shape)

    out = _build(name, f.inputs, [out_name], body)
    sparse = SparseOutputFunction(out._traced)
    # int32 as the pattern's (no copy of those); the others are as large
    # as the pattern's, so they fit. Read-only: each call copies them.
    tables = [(n, np.asarray(t, dtype=np.int32)) for n, t in tables]
    for _, t in tables:
        t.setflags(write=False)
    sparse._sparse = {0: (layout, stored, tables)}
    _scaly.set_output_sparsity(out._traced, 0, layout, stored[0], stored[1], count, tables)
    return sparse


def _dense_positions(pattern):
    """The row-major position of each stored entry of `pattern` (CSC order) in the
    dense (nrow, ncol) matrix: int64, as row * ncol + col passes 2^31."""
    return pattern.row.astype(np.int64) * pattern.ncol + pattern.col


def _scatter(values, positions, shape):
    """The (shape) array holding values[k] at row-major position positions[k] and zeros
    elsewhere: one expr.scatter. Its C fills the array with zeros and writes the values
    through a table of the positions (entries long); a gather of the array from the
    values and a zero would need a table of every element (issue 33: n^2 entries for
    the dense Jacobian of sin(x), 19 s of compile at n = 3000)."""
    return Expr(values._g, values._g.scatter(values._id, np.asarray(positions).tolist(),
                                             list(shape)))


def _check_dense(layout, nrow, ncol, what, fname, of, wrt):
    """A dense matrix is one array: refused past the array limit before anything
    is traced or analysed (a pattern of its size would take minutes and memory
    before failing)."""
    if layout == "dense" and nrow * ncol > MAX_ELEMENTS:
        raise ValueError(
            f"{what}: the dense {what.capitalize()} of {fname}()'s {of} by input {wrt!r} would be "
            f"{nrow} x {ncol} = {nrow * ncol} elements; an array holds at most "
            f"2**31 - 1 = {MAX_ELEMENTS} elements. Ask for layout='csc' (only the stored "
            f"entries) or differentiate a smaller function")


@_once_per_function
def _jacobian(f, wrt, of, layout, exact_zeros=True):
    """`exact_zeros=False`: the compressed sweeps multiply as IEEE does, so a
    non-finite partial may spread into entries sharing its colour. The NLP
    solvers' oracles take this (scaly.solvers.nlp_model): a solver refuses any
    non-finite derivative entry anyway, and the exact products' compare and
    select per product kept the sweeps from being widened to lanes (the
    cart-pole's Hessian oracle took 49 us instead of 5)."""
    _check_layout(layout, "jacobian")
    i = _one(f.inputs, wrt, "input", "jacobian", f.name)
    j = _one(f.outputs, of, "output", "jacobian", f.name)
    in_name, in_shape, in_dtype = f.inputs[i]
    out_name, out_shape, out_dtype = f.outputs[j]
    _check_dense(layout, _size(out_shape), _size(in_shape), "jacobian", f.name,
                 f"output {out_name!r}", in_name)
    pattern = _Pattern(*_scaly.jacobian_pattern(f._traced, i, j))
    compressed = index = None
    if pattern.nnz:
        # Columns (forward sweeps) or rows (reverse), whichever need fewer
        # colours; per stored entry, where it is read in the compressed product.
        colours, forward = _scaly.compress_jacobian(*pattern.args())
        index = _scaly.EntryPositions(*pattern.args(), colours, forward)
        compressed, _ = _compressed(f, i, j, colours, forward, exact_zeros)
    batch = in_shape[0] if in_shape and out_shape and in_shape[0] == out_shape[0] else 0
    return _assemble(f, f"{f.name}_jacobian" + ("" if exact_zeros else "_ieee"), f"jac_{out_name}_{in_name}", pattern, compressed,
                     index, layout, out_dtype, batch)


@_once_per_function
def _hessian(f, wrt, of, multipliers, layout, exact_zeros=True):
    """`exact_zeros`: as for _jacobian."""
    _check_layout(layout, "hessian")
    i = _one(f.inputs, wrt, "input", "hessian", f.name)
    in_name, in_shape, in_dtype = f.inputs[i]
    _check_dense(layout, _size(in_shape), _size(in_shape), "hessian", f.name,
                 "output" if of is None else f"output {of!r}", in_name)
    if not multipliers:
        grad = _gradient(f, i, of)
    else:
        j = _one(f.outputs, of, "output", "hessian", f.name)
        out_name, out_shape, out_dtype = f.outputs[j]
        back = _vjp(f, j, i)
        grad = _build(f"{f.name}_lagrangian_gradient",
                      f.inputs + [(f"lam_{out_name}", out_shape, out_dtype)],
                      [f"grad_{in_name}"], lambda *a: back(*a))
    # The Hessian is symmetric: store the union of the pattern and its transpose.
    pattern = _Pattern(*_scaly.jacobian_pattern(grad._traced, i, 0, symmetric=True))
    compressed = index = None
    if pattern.nnz:
        colours, from_row = _scaly.star_colouring(pattern.nrow, pattern.colind, pattern.row)
        index = _scaly.EntryPositions(*pattern.args(), colours, True, from_row)
        compressed, _ = _compressed(grad, i, 0, colours, True, exact_zeros)
    batch = in_shape[0] if in_shape else 0
    return _assemble(grad, f"{f.name}_hessian" + ("" if exact_zeros else "_ieee"), f"hess_{in_name}", pattern, compressed, index,
                     layout, in_dtype, batch)


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
    for what_, e in (("y", y), ("x", x)):
        if e.dtype not in _FLOATS:
            raise TypeError(f"{what}: {what_} is {e.dtype}; only float64 and float32 values have "
                            "derivatives")
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
    """Jacobian d out / d x as a 2-D (out.size, x.size) matrix, one input and one output.

    The exact structural pattern is computed first; columns (forward mode)
    or rows (reverse mode) that share no entry are seeded together, whichever
    needs fewer sweeps, and the sweeps run as one map (one C loop).
    `layout="dense"` returns an array; `"csc"` returns the stored values in
    compressed-column order (a `scipy.sparse.csc_matrix` from a numerical
    call; the C header publishes the index tables). Inside a traced
    function, ``sc.jacobian(y, x)`` with `x` an input Expr.
    """
    if isinstance(f, Expr):
        fn, i, xs = _function_of(f, wrt, "jacobian")
        return _jacobian(fn, i, 0, layout)(*xs)
    _check_function(f, "jacobian")
    return _jacobian(f, wrt, of, layout)


def hessian(f, wrt=None, of=None, multipliers=False, layout="dense"):
    """Hessian of a scalar output with respect to one input, as an (n, n) array.

    With ``multipliers=True`` the output `of` may be a vector g(x): the result
    is the Hessian of the Lagrangian term lam . g(x), and the returned
    Function takes the multipliers lam (the output's shape) as an extra, last
    input. Computed forward over reverse. Inside a traced function,
    ``sc.hessian(y, x)``. The symmetric pattern is star-coloured, so a banded
    Hessian costs about its bandwidth in sweeps; `layout` as for `jacobian`.
    """
    if isinstance(f, Expr):
        if multipliers:
            raise ValueError("hessian: multipliers=True applies to a Function, not an Expr")
        fn, i, xs = _function_of(f, wrt, "hessian")
        return _hessian(fn, i, 0, False, layout)(*xs)
    _check_function(f, "hessian")
    return _hessian(f, wrt, of, multipliers, layout)


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
