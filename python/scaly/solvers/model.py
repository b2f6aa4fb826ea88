"""`sc.qp`: a quadratic program solved inside a traced Function.

The problem data are expressions of the Function's inputs (or constants). The
matrices reach the solver as their stored values in compressed-column order of
a pattern fixed when tracing: a NumPy or SciPy constant keeps its nonzeros, an
Expr matrix is taken whole (P: its upper triangle). The generated C computes
those values straight into the order the solver declares, then calls the
module's solver wrapper (see docs/solvers.md).
"""

import hashlib
from dataclasses import dataclass

import numpy as np

from .._trace import Expr, _graph_of, as_expr

_INF = 1e20  # the QP library's "absent" (SCALY_QP_INFINITY); keeps infinities out of the C


@dataclass(frozen=True)
class QPSpec:
    """The structure of one solver wrapper: what its C code is generated from."""
    name: str
    n: int
    p: int
    m: int
    P: tuple  # (colptr, rowind) of the upper triangle
    A: tuple
    G: tuple
    dense: bool


_SPECS = {}
"""Every wrapper traced in this process, by C name (the name digests the structure)."""


def spec(name):
    """The QPSpec of the wrapper called `name` (traced in this process)."""
    return _SPECS[name]


def _pattern_of_constant(M, rows, cols, what, upper):
    """(colptr, rowind, values) of a constant matrix's nonzeros, as the QP library reads it."""
    from .qp import _matrix as library_matrix
    try:
        M = library_matrix(M, rows, cols, what, upper=upper).copy()
    except ValueError as e:
        raise ValueError(f"qp: {e}") from None
    M.eliminate_zeros()
    return M.indptr.astype(np.int64), M.indices.astype(np.int64), M.data


def _dense_pattern(rows, cols, upper):
    colptr, rowind, positions = [0], [], []
    for j in range(cols):
        for i in range(rows if not upper else min(j + 1, rows)):
            rowind.append(i)
            positions.append(i * cols + j)  # row-major position in the Expr
        colptr.append(len(rowind))
    return np.array(colptr, np.int64), np.array(rowind, np.int64), np.array(positions, np.int64)


def _matrix(M, rows, cols, what, graph, upper=False):
    """(colptr, rowind, values Expr) of a matrix argument."""
    if M is None:
        return np.zeros(cols + 1, np.int64), np.zeros(0, np.int64), as_expr(np.zeros(0), graph)
    if isinstance(M, Expr):
        if M.shape != (rows, cols):
            raise ValueError(f"qp: {what} has shape {M.shape}, expected ({rows}, {cols})")
        colptr, rowind, positions = _dense_pattern(rows, cols, upper)
        flat = M.astype("float64").vec()
        values = flat[positions] if len(positions) else as_expr(np.zeros(0), graph)
        return colptr, rowind, values
    colptr, rowind, data = _pattern_of_constant(M, rows, cols, what, upper)
    return colptr, rowind, as_expr(np.asarray(data, np.float64), graph)


def _vector(v, size, what, graph, fill):
    if v is None:
        return as_expr(np.full(size, fill), graph)
    if isinstance(v, Expr):
        if v.size != size or v.ndim > 1:
            raise ValueError(f"qp: {what} has shape {v.shape}, expected ({size},)")
        return v.astype("float64").reshape((size,))
    a = np.asarray(v, dtype=np.float64).reshape(-1)
    if a.shape != (size,):
        raise ValueError(f"qp: {what} has shape {np.shape(v)}, expected ({size},)")
    if np.isnan(a).any():
        raise ValueError(f"qp: {what} has NaN entries")
    return as_expr(np.clip(a, -_INF, _INF), graph)


def _rows(M, what):
    if M is None:
        return 0
    shape = M.shape if hasattr(M, "shape") else np.shape(M)
    if len(shape) != 2:
        raise ValueError(f"qp: {what} must be a matrix, got shape {tuple(shape)}")
    return int(shape[0])


def qp(P, c, A=None, b=None, G=None, h_l=None, h_u=None, x_l=None, x_u=None, *,
       sparse=True):
    """Solve min 1/2 x'Px + c'x s.t. Ax = b, h_l <= Gx <= h_u, x_l <= x <= x_u while tracing.

    Any argument may be an Expr of the traced Function's inputs or a constant
    (NumPy array, SciPy sparse matrix, number list). P must be positive
    semidefinite (only its upper triangle is read); a constant matrix keeps
    its sparsity pattern, an Expr matrix is stored whole. ``sparse`` chooses
    the sparse (LDL^T) or dense (Cholesky) backend: a structural choice of the
    generated C. Returns ``(x, y, z, z_box)``: the solution and the
    multipliers of Ax = b, of the rows of G and of the bounds, signed as in
    ``P x + c + A'y + G'z + z_box = 0`` (positive on an active upper bound).
    The Function's ``stats()`` reports the latest solve's status.
    """
    graph = _graph_of(P, c, A, b, G, h_l, h_u, x_l, x_u)
    if graph is None:
        raise TypeError("qp: at least one argument must be an Expr of the traced function "
                        "(use scaly.solvers.solve_qp for numbers)")
    if not isinstance(sparse, bool):
        raise TypeError(f"qp: sparse must be True or False, got {sparse!r}")
    c_expr = as_expr(c, graph) if not isinstance(c, Expr) else c
    if c_expr.ndim != 1:
        raise ValueError(f"qp: c must be a vector, got shape {c_expr.shape}")
    n = c_expr.size
    p, m = _rows(A, "A"), _rows(G, "G")
    if b is not None and A is None:
        raise ValueError("qp: b is given without A")
    if (h_l is not None or h_u is not None) and G is None:
        raise ValueError("qp: h_l/h_u are given without G")
    P_ = _matrix(P, n, n, "P", graph, upper=True)
    A_ = _matrix(A, p, n, "A", graph)
    G_ = _matrix(G, m, n, "G", graph)
    operands = [P_[2], _vector(c, n, "c", graph, 0.0), A_[2], _vector(b, p, "b", graph, 0.0),
                G_[2], _vector(h_l, m, "h_l", graph, -_INF), _vector(h_u, m, "h_u", graph, _INF),
                _vector(x_l, n, "x_l", graph, -_INF), _vector(x_u, n, "x_u", graph, _INF)]
    structure = (n, p, m, not sparse) + tuple(tuple(a.tolist()) for a in
                                              (P_[0], P_[1], A_[0], A_[1], G_[0], G_[1]))
    name = "scaly_qp_" + hashlib.sha256(repr(structure).encode()).hexdigest()[:16]
    _SPECS[name] = QPSpec(name, n, p, m, (P_[0], P_[1]), (A_[0], A_[1]), (G_[0], G_[1]),
                          not sparse)
    attrs = {"P_colptr": P_[0].tolist(), "P_rowind": P_[1].tolist(),
             "A_colptr": A_[0].tolist(), "A_rowind": A_[1].tolist(),
             "G_colptr": G_[0].tolist(), "G_rowind": G_[1].tolist(),
             "name": f'"{name}"', "dense": not sparse}
    ids = graph.op("expr.qp_solve", [e._id for e in operands], attrs)
    return tuple(Expr(graph, i) for i in ids)
